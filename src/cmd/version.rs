//! `version FILE`: format version, era and compression; exit 1 when refused (FORMAT.md §6).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use dsh_session::event::Era;
use dsh_session::load::sqlite::{Schema, Store, StoreError};
use dsh_session::load::store_file::looks_like_store;
use dsh_session::scan::{self, ScanOptions, Status};
use serde::Serialize;

use crate::cli::VersionArgs;
use crate::render::write_one;

/// `version --format json` layout: 2 renamed `session_id` (and a store's `sessions[].id`)
/// to `session`.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Serialize)]
struct VersionInfo {
    schema_version: u32,
    file: String,
    #[serde(rename = "session")]
    session_id: Option<String>,
    format_version: Option<i64>,
    supported: bool,
    era: Option<&'static str>,
    encoding: &'static str,
    status: &'static str,
    rule: Option<&'static str>,
    message: Option<String>,
    /// What DSH 0.1.1 and DSH 0.1.5+ each do with a v0 log (`null` for other logs).
    dsh: Option<String>,
}

#[derive(Debug, Serialize)]
struct StoreInfo {
    schema_version: u32,
    file: String,
    user_version: i64,
    application_id: i64,
    application_id_hex: String,
    schema: &'static str,
    era: &'static str,
    store_id: Option<String>,
    supported: bool,
    rule: Option<&'static str>,
    message: Option<String>,
    sessions: Vec<StoreSession>,
}

#[derive(Debug, Serialize)]
struct StoreSession {
    #[serde(rename = "session")]
    id: String,
    format_version: Option<i64>,
    supported: bool,
}

fn run_store(args: &VersionArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let file = args.file.display().to_string();
    let (info, ok) = match Store::open(&args.file) {
        Ok(store) => {
            let mut sessions = Vec::new();
            let rows = store.sessions().with_context(|| file.clone())?;
            // `--session` names one session, exactly or by a unique prefix.
            let wanted = match &args.session {
                Some(want) => {
                    let ids: Vec<String> = rows.iter().map(|(id, _)| id.clone()).collect();
                    let index = dsh_session::load::sqlite::resolve_session(&ids, want)
                        .map_err(|why| anyhow::anyhow!("{file}: {why}"))?;
                    Some(index)
                }
                None => None,
            };
            for (i, (_, s)) in rows.into_iter().enumerate() {
                match s {
                    Ok(s) if wanted.is_none_or(|w| w == i) => sessions.push(StoreSession {
                        supported: s.header.version == Some(0),
                        id: s.header.id,
                        format_version: s.header.version,
                    }),
                    Ok(_) => {}
                    Err(f) if wanted.is_none_or(|w| w == i) => {
                        eprintln!("dsh-session: {file}: {f}")
                    }
                    Err(_) => {}
                }
            }
            let ok = sessions.iter().all(|s| s.supported);
            let info = StoreInfo {
                schema_version: SCHEMA_VERSION,
                file,
                user_version: store.user_version,
                application_id: store.application_id,
                application_id_hex: format!("{:#010x}", store.application_id),
                schema: match store.schema {
                    Schema::V17 => "17",
                    Schema::V4 => "4 (June 2026)",
                    Schema::Empty => "none (pristine file)",
                },
                era: store.schema.era().name(),
                store_id: store.store_id.clone(),
                supported: true,
                rule: None,
                message: None,
                sessions,
            };
            (info, ok)
        }
        Err(StoreError::Refused(f)) => {
            let info = StoreInfo {
                schema_version: SCHEMA_VERSION,
                file,
                user_version: 0,
                application_id: 0,
                application_id_hex: String::new(),
                schema: "refused",
                era: "-",
                store_id: None,
                supported: false,
                rule: Some(f.rule.id()),
                message: Some(f.message),
                sessions: Vec::new(),
            };
            (info, false)
        }
        Err(e) => return Err(anyhow::Error::new(e).context(file)),
    };
    write_one(out, args.format, &info, |out| {
        writeln!(out, "file:           {}", info.file)?;
        if let (Some(rule), Some(message)) = (info.rule, &info.message) {
            writeln!(out, "refused:        {rule}: {message}")?;
        } else {
            writeln!(out, "user_version:   {}", info.user_version)?;
            writeln!(
                out,
                "application_id: {} ({})",
                info.application_id_hex, info.application_id
            )?;
            writeln!(out, "schema:         {}", info.schema)?;
            writeln!(out, "era:            {}", info.era)?;
            writeln!(
                out,
                "store id:       {}",
                info.store_id.as_deref().unwrap_or("-")
            )?;
            writeln!(out, "sessions:       {}", info.sessions.len())?;
            for s in &info.sessions {
                let v = s.format_version.map_or("?".into(), |v| format!("v{v}"));
                let support = if s.supported {
                    "supported"
                } else {
                    "not supported"
                };
                writeln!(out, "  {}  format {v} ({support})", s.id)?;
            }
        }
        Ok(())
    })?;
    Ok(ExitCode::from(if ok { 0 } else { 1 }))
}

/// Runs `version`.
pub fn run(args: &VersionArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if looks_like_store(&args.file) {
        return run_store(args, out);
    }
    let options = ScanOptions {
        header_only: true,
        ..ScanOptions::default()
    };
    let mut report =
        scan::scan_path(&args.file, &options).with_context(|| args.file.display().to_string())?;
    // What the release lines do with a v0 log takes the whole log: the frozen edges read
    // every event (standard input, read once, is judged by its header only).
    let mut dsh = None;
    if report.is_ok()
        && matches!(report.era, Some(Era::Head | Era::V0Alpha | Era::June2026))
        && args.file.as_os_str() != "-"
    {
        let whole = ScanOptions {
            dsh: dsh_session::edge::Judge::default().with_both_lines(),
            ..ScanOptions::default()
        };
        let full =
            scan::scan_path(&args.file, &whole).with_context(|| args.file.display().to_string())?;
        dsh = crate::cmd::dsh_lines(&full);
        if full.finding.as_ref().is_some_and(|f| f.rule.is_edge()) {
            report.status = full.status;
            report.finding = full.finding;
        }
    }
    let header = report.header.as_ref();
    let info = VersionInfo {
        file: args.file.display().to_string(),
        schema_version: SCHEMA_VERSION,
        session_id: header.map(|h| h.id.clone()),
        format_version: header.and_then(|h| h.version),
        supported: (report.status != Status::Refused
            || report.finding.as_ref().is_some_and(|f| f.rule.is_edge()))
            && header
                .and_then(|h| h.version)
                .is_some_and(|v| v == 0 || Era::of_version(v).is_some()),
        era: report.era.map(|e| e.name()),
        encoding: report.encoding.name(),
        status: report.status.name(),
        rule: report.finding.as_ref().map(|f| f.rule.id()),
        message: report.finding.as_ref().map(|f| f.message.clone()),
        dsh,
    };
    write_one(out, args.format, &info, |out| {
        let version = info
            .format_version
            .map_or("unknown".into(), |v| format!("v{v}"));
        let support = if info.supported {
            "supported"
        } else {
            "not supported"
        };
        // Another harness's file has no DSH format version, whatever its header says.
        let (version, support) = if report.status == Status::Foreign {
            ("none".to_owned(), "not a DSH session log")
        } else {
            (version, support)
        };
        writeln!(out, "file:           {}", info.file)?;
        writeln!(
            out,
            "session id:     {}",
            info.session_id.as_deref().unwrap_or("-")
        )?;
        writeln!(out, "format version: {version} ({support})")?;
        writeln!(out, "era:            {}", info.era.unwrap_or("-"))?;
        writeln!(out, "compression:    {}", info.encoding)?;
        if let Some(lines) = &info.dsh {
            writeln!(out, "dsh:            {lines}")?;
        }
        for (n, other, relation) in dsh_session::load::layout::siblings(&args.file) {
            let what = relation.describe();
            writeln!(out, "other file:     v{n} {} ({what})", other.display())?;
        }
        if let (Some(rule), Some(message)) = (info.rule, &info.message) {
            writeln!(out, "{:<16}{rule}: {message}", format!("{}:", info.status))?;
        }
        Ok(())
    })?;
    Ok(ExitCode::from(if report.is_ok() { 0 } else { 1 }))
}
