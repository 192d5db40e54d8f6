//! `validate FILE...`: one verdict per log, for people and for CI.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use dsh_session::rules::Finding;
use dsh_session::scan::{self, Report, ScanOptions, Status, TornTail};
use serde::Serialize;

use crate::cli::{ListFormat, ValidateArgs};
use crate::render::paint;

/// Version of the JSON object layout below; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// One line of `validate --format json|jsonl`.
#[derive(Debug, Serialize)]
struct Verdict {
    schema_version: u32,
    file: String,
    /// The session id, for a SQLite store.
    session: Option<String>,
    /// `valid`, `torn-tail`, `corrupt`, `refused`, or `error` (the file could not be read).
    status: &'static str,
    rule: Option<&'static str>,
    seq: Option<u64>,
    line: Option<u64>,
    /// SQLite only: the `seq` column of the physical row concerned.
    row: Option<u64>,
    message: Option<String>,
    /// Events replayed (the torn tail excluded).
    events: u64,
    surface_len: usize,
    era: Option<&'static str>,
    encoding: Option<&'static str>,
    torn_tail: Option<TornJson>,
    warnings: Vec<FindingJson>,
}

#[derive(Debug, Serialize)]
struct TornJson {
    rule: &'static str,
    offset: u64,
    bytes: u64,
    line: u64,
    lines: u64,
    events: u64,
    message: String,
}

impl From<&TornTail> for TornJson {
    fn from(t: &TornTail) -> Self {
        TornJson {
            rule: t.rule.id(),
            offset: t.offset,
            bytes: t.bytes,
            line: t.line,
            lines: t.lines,
            events: t.events,
            message: t.message.clone(),
        }
    }
}

#[derive(Debug, Serialize)]
struct FindingJson {
    rule: &'static str,
    seq: Option<u64>,
    line: Option<u64>,
    row: Option<u64>,
    message: String,
}

impl From<&Finding> for FindingJson {
    fn from(f: &Finding) -> Self {
        FindingJson {
            rule: f.rule.id(),
            seq: f.seq,
            line: f.line,
            row: f.row,
            message: f.message.clone(),
        }
    }
}

fn verdict(file: String, report: &Report) -> Verdict {
    let finding = report.finding.as_ref();
    Verdict {
        schema_version: SCHEMA_VERSION,
        file,
        session: report.session.clone(),
        status: report.status.name(),
        rule: finding
            .map(|f| f.rule.id())
            .or(report.torn.as_ref().map(|t| t.rule.id())),
        seq: finding.and_then(|f| f.seq),
        line: finding.and_then(|f| f.line).or(report
            .torn
            .as_ref()
            .filter(|_| report.session.is_none())
            .map(|t| t.line)),
        row: finding.and_then(|f| f.row).or(report
            .torn
            .as_ref()
            .filter(|_| report.session.is_some())
            .map(|t| t.line)),
        message: finding
            .map(|f| f.message.clone())
            .or(report.torn.as_ref().map(|t| t.message.clone())),
        events: report.stats.events,
        surface_len: report.replay.len(),
        era: report.era.map(|e| e.name()),
        encoding: Some(report.encoding.name()),
        torn_tail: report.torn.as_ref().map(TornJson::from),
        warnings: report.warnings.iter().map(FindingJson::from).collect(),
    }
}

fn io_error(file: String, message: String) -> Verdict {
    Verdict {
        schema_version: SCHEMA_VERSION,
        file,
        session: None,
        status: "error",
        rule: None,
        seq: None,
        line: None,
        row: None,
        message: Some(message),
        events: 0,
        surface_len: 0,
        era: None,
        encoding: None,
        torn_tail: None,
        warnings: Vec::new(),
    }
}

/// Runs `validate`.
pub fn run(args: &ValidateArgs, color: bool, out: &mut dyn Write) -> Result<ExitCode> {
    let mut verdicts = Vec::with_capacity(args.files.len());
    let mut counts = [0usize; 4];
    let mut errors = 0usize;
    for path in &args.files {
        let file = path.display().to_string();
        let options = ScanOptions {
            session: args.session.clone(),
            ..ScanOptions::default()
        };
        match scan::scan_all(path, &options) {
            Ok(reports) => {
                if reports.is_empty() {
                    eprintln!("dsh-session: {file}: store holds no sessions");
                }
                for report in reports {
                    counts[report.status as usize] += 1;
                    verdicts.push(verdict(file.clone(), &report));
                }
            }
            Err(e) => {
                errors += 1;
                eprintln!("dsh-session: {file}: {e}");
                verdicts.push(io_error(file, e.to_string()));
            }
        }
    }
    match args.format {
        ListFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &verdicts)?;
            writeln!(out)?;
        }
        ListFormat::Jsonl => {
            for v in &verdicts {
                serde_json::to_writer(&mut *out, v)?;
                writeln!(out)?;
            }
        }
        ListFormat::Text => {
            for v in verdicts
                .iter()
                .filter(|v| !args.quiet || v.status != "valid")
            {
                if v.status == "error" {
                    continue;
                }
                write_text(out, v, color)?;
            }
            if !args.quiet {
                writeln!(
                    out,
                    "{} valid, {} torn-tail, {} corrupt, {} refused{}",
                    counts[Status::Valid as usize],
                    counts[Status::TornTail as usize],
                    counts[Status::Corrupt as usize],
                    counts[Status::Refused as usize],
                    if errors > 0 {
                        format!(", {errors} unreadable")
                    } else {
                        String::new()
                    }
                )?;
            }
        }
    }
    let failed = counts[Status::Corrupt as usize] + counts[Status::Refused as usize] > 0;
    Ok(ExitCode::from(if errors > 0 {
        2
    } else if failed {
        1
    } else {
        0
    }))
}

fn write_text(out: &mut dyn Write, v: &Verdict, color: bool) -> std::io::Result<()> {
    let code = match v.status {
        "valid" => "32",
        "torn-tail" => "33",
        _ => "31",
    };
    let status = paint(color, code, v.status);
    let era = v.era.map(|e| format!(", {e}")).unwrap_or_default();
    let name = match &v.session {
        Some(id) => format!("{} [session {id}]", v.file),
        None => v.file.clone(),
    };
    match (v.status, v.rule) {
        ("valid", _) | (_, None) => writeln!(
            out,
            "{name}: {status} ({} events, surface {}{era})",
            v.events, v.surface_len
        )?,
        (_, Some(rule)) => {
            let mut place = String::new();
            if let Some(line) = v.line {
                place.push_str(&format!(" at line {line}"));
            }
            if let Some(row) = v.row {
                place.push_str(&format!(" at row {row}"));
            }
            if let Some(seq) = v.seq {
                place.push_str(&format!(" (seq {seq})"));
            }
            let message = v.message.as_deref().unwrap_or_default();
            writeln!(out, "{name}: {status} {rule}{place}: {message}")?;
            if let Some(t) = &v.torn_tail {
                writeln!(
                    out,
                    "  a repair cuts {} byte(s) at offset {}: {} line(s), {} event(s); {} events before it are kept",
                    t.bytes, t.offset, t.lines, t.events, v.events
                )?;
            }
        }
    }
    for w in &v.warnings {
        writeln!(
            out,
            "  warning {} (seq {}): {}",
            w.rule,
            w.seq.unwrap_or_default(),
            w.message
        )?;
    }
    Ok(())
}
