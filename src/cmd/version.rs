//! `version FILE`: format version, era and compression; exit 1 when refused (FORMAT.md §6).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use dsh_session::scan::{self, ScanOptions, Status};
use serde::Serialize;

use crate::cli::{TableFormat, VersionArgs};

#[derive(Debug, Serialize)]
struct VersionInfo {
    file: String,
    session_id: Option<String>,
    format_version: Option<i64>,
    supported: bool,
    era: Option<&'static str>,
    encoding: &'static str,
    status: &'static str,
    rule: Option<&'static str>,
    message: Option<String>,
}

/// Runs `version`.
pub fn run(args: &VersionArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let options = ScanOptions {
        header_only: true,
        ..ScanOptions::default()
    };
    let report = scan::scan_path(&args.file, &options).with_context(|| args.file.display().to_string())?;
    let header = report.header.as_ref();
    let info = VersionInfo {
        file: args.file.display().to_string(),
        session_id: header.map(|h| h.id.clone()),
        format_version: header.and_then(|h| h.version),
        supported: report.status != Status::Refused && header.and_then(|h| h.version) == Some(0),
        era: report.era.map(|e| e.name()),
        encoding: report.encoding.name(),
        status: report.status.name(),
        rule: report.finding.as_ref().map(|f| f.rule.id()),
        message: report.finding.as_ref().map(|f| f.message.clone()),
    };
    match args.format {
        TableFormat::Json | TableFormat::Jsonl => {
            serde_json::to_writer(&mut *out, &info)?;
            writeln!(out)?;
        }
        TableFormat::Table => {
            let version = info.format_version.map_or("unknown".into(), |v| format!("v{v}"));
            let support = if info.supported { "supported" } else { "not supported" };
            writeln!(out, "file:           {}", info.file)?;
            writeln!(out, "session id:     {}", info.session_id.as_deref().unwrap_or("-"))?;
            writeln!(out, "format version: {version} ({support})")?;
            writeln!(out, "era:            {}", info.era.unwrap_or("-"))?;
            writeln!(out, "compression:    {}", info.encoding)?;
            if let (Some(rule), Some(message)) = (info.rule, &info.message) {
                writeln!(out, "{:<16}{rule}: {message}", format!("{}:", info.status))?;
            }
        }
    }
    Ok(ExitCode::from(if report.is_ok() { 0 } else { 1 }))
}
