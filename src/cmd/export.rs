//! `export PATH --format markdown|html [-o FILE]` and
//! `export STORE --format dsh-jsonl --out ROOT` (issue 17).
//!
//! The transcripts compose three views over one scan: `show`'s counts with turn rows, the
//! provider rules (their findings go to the top of the transcript) and the transcript
//! facts; the scan keeps messages, shadowed entries and replacements. The JSONL export is
//! [`dsh_session::export::jsonl`].

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use dsh_session::export::TranscriptFormat;
use dsh_session::export::jsonl::export_store;
use dsh_session::scan::{self, Status};

use crate::cli::{ExportArgs, ExportFormat};
use crate::cmd::Rejected;

/// Runs `export`.
pub fn run(args: &ExportArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if args.format == ExportFormat::Site {
        return run_site(args, out);
    }
    if args.prices.is_some() {
        bail!("--prices is for --format site (its index shows each session's cost)");
    }
    if !args.more.is_empty() {
        bail!("export reads one PATH for markdown, html and dsh-jsonl; --format site takes many");
    }
    if args.format == ExportFormat::DshJsonl {
        if args.salvage {
            bail!(
                "--salvage reads a transcript (markdown, html); `dsh-session recover` makes a session DSH loads from a damaged one"
            );
        }
        return run_jsonl(args, out);
    }
    if args.out.is_some() {
        bail!(
            "--out ROOT is for --format dsh-jsonl; a transcript goes to standard output or -o FILE"
        );
    }
    // A corrupt or refused log is exported too, with its verdict at the top (it is what a
    // bug report needs), read up to its defect as every command reads one (`scan::defect`),
    // and the command then exits 1 as the other readers do.
    // A damaged log may be read twice: standard input is kept in a temporary file.
    let spooled = crate::cmd::spool_stdin(&args.file)?;
    let path = spooled.as_ref().map_or(args.file.as_path(), |s| s.path());
    let prices = std::sync::Arc::new(dsh_session::prices::PriceTable::built_in().clone());
    let read = dsh_session::export::read_session(path, args.session.clone(), prices)
        .with_context(|| args.file.display().to_string())?;
    let report = &read.report;
    if let (Status::Foreign, Some(f)) = (report.status, &report.finding) {
        // Another harness's file: no DSH transcript to show, not even an empty one.
        return Err(Rejected(format!("{}: {}", args.file.display(), f.message)).into());
    }
    let file = args.file.display().to_string();
    let format = match args.format {
        ExportFormat::Html => TranscriptFormat::Html,
        _ => TranscriptFormat::Markdown,
    };
    let text = read
        .transcript_text(&file, format, !args.no_redact)
        .with_context(|| args.file.display().to_string())?;
    match &args.output {
        Some(path) => dsh_session::write::site::replace_file_durably(path, text.as_bytes())
            .with_context(|| format!("{}: cannot write", path.display()))?,
        None => out.write_all(text.as_bytes())?,
    }
    if let (Status::Refused, Some(f)) = (report.status, &report.finding)
        && f.rule.is_edge()
    {
        stderr!("dsh-session: {file}: warning: refused {f}; exported whole, as DSH 0.1.1 loads it");
    } else if let (Status::Corrupt | Status::Refused, Some(f)) = (report.status, &report.finding) {
        out.flush()?;
        stderr!(
            "dsh-session: {file}: {} {f} (the transcript shows what was read before it: {})",
            report.status.name(),
            scan::defect::read_text(report)
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// `export PATH... --format site --out DIR`: the work is [`dsh_session::export::site`].
fn run_site(args: &ExportArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let Some(dir) = &args.out else {
        bail!("--format site needs --out DIR, the directory to write the site into");
    };
    if args.output.is_some() || args.salvage || args.session.is_some() {
        bail!(
            "--format site writes into --out DIR, reads every session of a store and shows a damaged log as --salvage does: -o, --session and --salvage are for one transcript"
        );
    }
    let inputs: Vec<std::path::PathBuf> = std::iter::once(args.file.clone())
        .chain(args.more.iter().cloned())
        .collect();
    for p in &inputs {
        if p.as_os_str() == "-" || !p.exists() {
            bail!("{}: no such file or directory", p.display());
        }
    }
    // The built-in table, with a --prices file tried first (as `stats` prices).
    let prices = crate::cmd::price_table(args.prices.as_deref())?;
    let summary = dsh_session::export::site::build(
        &inputs,
        dir,
        &dsh_session::export::site::Options {
            redact: !args.no_redact,
            prices: std::sync::Arc::unwrap_or_clone(prices),
        },
    )?;
    for note in &summary.notes {
        stderr!("dsh-session: {note}");
    }
    crate::render::export::site(out, dir, &summary)?;
    if summary.damaged.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    out.flush()?;
    for d in &summary.damaged {
        stderr!("dsh-session: {d} (its page shows what was read before the defect)");
    }
    Ok(ExitCode::from(1))
}

fn run_jsonl(args: &ExportArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let Some(root) = &args.out else {
        bail!("--format dsh-jsonl needs --out ROOT, the JSONL root to write the sessions under");
    };
    if args.output.is_some() {
        bail!("-o FILE is for transcripts; --format dsh-jsonl writes under --out ROOT");
    }
    let name = args.file.display().to_string();
    let outcomes = match export_store(&args.file, args.session.as_deref(), root) {
        Ok(o) => o,
        Err(e @ dsh_session::export::jsonl::ExportError::JuneStore) => {
            return Err(Rejected(format!("{name}: {e}")).into());
        }
        Err(e) => return Err(anyhow::Error::new(e).context(name)),
    };
    let refused = crate::render::export::store(out, &name, &outcomes)?;
    if refused.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    out.flush()?;
    for r in &refused {
        stderr!("dsh-session: {r}");
    }
    Ok(ExitCode::from(1))
}
