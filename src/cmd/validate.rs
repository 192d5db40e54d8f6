//! `validate PATH...`: one verdict per log, for people and for CI.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use dsh_session::layout::discover;
use dsh_session::rules::Finding;
use dsh_session::scan::{self, Report, ScanOptions, Status, TornTail};
use rayon::prelude::*;
use serde::Serialize;

use crate::cli::{ListFormat, ValidateArgs};
use crate::render::{TornTailJson, log_name, paint};

/// Version of the JSON object layout below; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// Inputs at least this large get a progress bar on a terminal (64 MB).
const PROGRESS_BYTES: u64 = 64_000_000;

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
    #[serde(flatten)]
    tail: TornTailJson,
    message: String,
    /// What is known of the loss when it cannot be counted ([`dsh_session::scan::TornTail::uncounted`]).
    #[serde(skip)]
    uncounted: Option<String>,
}

impl From<&TornTail> for TornJson {
    fn from(t: &TornTail) -> Self {
        TornJson {
            tail: TornTailJson::from(t),
            message: t.message.clone(),
            uncounted: t.counted().is_none().then(|| t.uncounted()),
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
    let torn = report.torn.as_ref();
    let sqlite = report.session.is_some();
    Verdict {
        schema_version: SCHEMA_VERSION,
        file,
        session: report.session.clone(),
        status: report.status.name(),
        rule: finding.map(|f| f.rule.id()).or(torn.map(|t| t.rule.id())),
        seq: finding.and_then(|f| f.seq),
        line: finding
            .and_then(|f| f.line)
            .or(torn.filter(|_| !sqlite).map(|t| t.line)),
        row: finding
            .and_then(|f| f.row)
            .or(torn.filter(|_| sqlite).map(|t| t.line)),
        message: finding
            .map(|f| f.message.clone())
            .or(torn.map(|t| t.message.clone())),
        events: report.stats.events,
        surface_len: report.replay.len(),
        era: report.era.map(|e| e.name()),
        encoding: Some(report.encoding.name()),
        torn_tail: torn.map(TornJson::from),
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

/// A progress bar on standard error for one large input, when standard error is a terminal.
fn progress_for(path: &Path) -> Option<(indicatif::ProgressBar, dsh_session::load::ProgressFn)> {
    let size = std::fs::metadata(path).ok()?.len();
    if size < PROGRESS_BYTES || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(size);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} {bar:40} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        )
        .expect("valid template"),
    );
    bar.set_message(path.display().to_string());
    let handle = bar.clone();
    Some((bar, Arc::new(move |read| handle.set_position(read))))
}

fn check(path: &Path, session: Option<&String>) -> Vec<Verdict> {
    let file = path.display().to_string();
    let progress = progress_for(path);
    let options = ScanOptions {
        session: session.cloned(),
        progress: progress.as_ref().map(|p| p.1.clone()),
        ..ScanOptions::default()
    };
    let result = scan::scan_all(path, &options);
    if let Some((bar, _)) = progress {
        bar.finish_and_clear();
    }
    match result {
        Ok(reports) if reports.is_empty() => {
            eprintln!("dsh-session: {file}: store holds no sessions");
            Vec::new()
        }
        Ok(reports) => reports.iter().map(|r| verdict(file.clone(), r)).collect(),
        Err(e) => vec![io_error(file, e.to_string())],
    }
}

/// Runs `validate`: inputs are expanded, checked in parallel, and printed in path order.
pub fn run(args: &ValidateArgs, color: bool, out: &mut dyn Write) -> Result<ExitCode> {
    let (paths, skipped): (Vec<PathBuf>, Vec<String>) = discover(&args.files);
    for s in &skipped {
        eprintln!("dsh-session: {s}");
    }
    let mut empty_dirs = 0;
    for dir in args.files.iter().filter(|f| f.is_dir()) {
        if !paths.iter().any(|p| p.starts_with(dir)) {
            empty_dirs += 1;
            eprintln!("dsh-session: {}", crate::cmd::no_logs_in(dir));
        }
    }
    let verdicts: Vec<Verdict> = paths
        .par_iter()
        .map(|p| check(p, args.session.as_ref()))
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect();
    let count = |status: &str| verdicts.iter().filter(|v| v.status == status).count();
    let errors = count("error");
    for v in verdicts.iter().filter(|v| v.status == "error") {
        eprintln!(
            "dsh-session: {}: {}",
            v.file,
            v.message.as_deref().unwrap_or_default()
        );
    }
    let shown: Vec<&Verdict> = verdicts
        .iter()
        .filter(|v| !(args.quiet && v.status == "valid" && v.warnings.is_empty()))
        .collect();
    match args.format {
        ListFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &shown)?;
            writeln!(out)?;
        }
        ListFormat::Jsonl => {
            for v in &shown {
                serde_json::to_writer(&mut *out, v)?;
                writeln!(out)?;
            }
        }
        ListFormat::Github => {
            for v in &shown {
                write_github(out, v)?;
            }
        }
        ListFormat::Text => {
            for v in shown.iter().filter(|v| v.status != "error") {
                write_text(out, v, color)?;
            }
            if !args.quiet {
                let unreadable = if errors > 0 {
                    format!(", {errors} unreadable")
                } else {
                    String::new()
                };
                writeln!(
                    out,
                    "{} valid, {} torn-tail, {} corrupt, {} refused{unreadable}",
                    count(Status::Valid.name()),
                    count(Status::TornTail.name()),
                    count(Status::Corrupt.name()),
                    count(Status::Refused.name()),
                )?;
            }
        }
    }
    let failed = count(Status::Corrupt.name()) + count(Status::Refused.name()) > 0;
    Ok(ExitCode::from(if errors + empty_dirs > 0 {
        2
    } else if failed {
        1
    } else {
        0
    }))
}

/// Escapes a GitHub workflow command's message (`%`, CR, LF) or property (also `:`, `,`).
fn gh_escape(text: &str, property: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

fn write_github(out: &mut dyn Write, v: &Verdict) -> std::io::Result<()> {
    let file = gh_escape(&v.file, true);
    let line = |l: Option<u64>| l.map(|l| format!(",line={l}")).unwrap_or_default();
    let level = match v.status {
        "corrupt" | "refused" | "error" => Some("error"),
        "torn-tail" => Some("warning"),
        _ => None,
    };
    if let Some(level) = level {
        let title = v
            .rule
            .map_or_else(|| v.status.to_owned(), |r| format!("{r} {}", v.status));
        let mut message = v.message.clone().unwrap_or_default();
        if let Some(seq) = v.seq {
            message = format!("seq {seq}: {message}");
        }
        if let Some(session) = &v.session {
            message = format!("session {session}: {message}");
        }
        writeln!(
            out,
            "::{level} file={file}{},title={}::{}",
            line(v.line),
            gh_escape(&title, true),
            gh_escape(&message, false)
        )?;
    }
    for w in &v.warnings {
        let seq = w.seq.map(|s| format!("seq {s}: ")).unwrap_or_default();
        writeln!(
            out,
            "::warning file={file}{},title={}::{}",
            line(w.line),
            gh_escape(w.rule, true),
            gh_escape(&format!("{seq}{}", w.message), false)
        )?;
    }
    Ok(())
}

fn write_text(out: &mut dyn Write, v: &Verdict, color: bool) -> std::io::Result<()> {
    let code = match v.status {
        "valid" => "32",
        "torn-tail" => "33",
        _ => "31",
    };
    let status = paint(color, code, v.status);
    let era = v.era.map(|e| format!(", {e}")).unwrap_or_default();
    let name = log_name(&v.file, v.session.as_deref());
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
            if let Some(TornJson {
                tail: t, uncounted, ..
            }) = &v.torn_tail
            {
                let loss = match (uncounted, t.lines, t.events) {
                    (None, Some(lines), Some(events)) => {
                        format!("{lines} line(s), {events} event(s)")
                    }
                    (uncounted, ..) => uncounted
                        .clone()
                        .unwrap_or_else(|| "what it held cannot be counted".into()),
                };
                writeln!(
                    out,
                    "  a repair cuts {} byte(s) at offset {}: {loss}; {} events before it are kept",
                    t.bytes, t.offset, v.events
                )?;
            }
        }
    }
    for w in &v.warnings {
        let warning = paint(color, "33", "warning");
        writeln!(
            out,
            "  {warning} {} (seq {}): {}",
            w.rule,
            w.seq.unwrap_or_default(),
            w.message
        )?;
    }
    Ok(())
}
