//! `fork` and `trim`: parse, plan ([`dsh_session::lineage`]), publish through the one
//! writer of new sessions ([`dsh_session::write::new_session`]), read back, render.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::edge::DshLine;
use dsh_session::lineage::fork::{self, Fork};
use dsh_session::lineage::trim::{self, Trim, TrimOptions};
use dsh_session::lineage::{Derived, LineageError, Source, file_would_not_load, new_id, now_ms};
use dsh_session::load::Encoding;
use dsh_session::wording::count;
use dsh_session::write::new_session::{NewFile, publish};
use dsh_session::write::plan::WriteError;
use serde_json::json;

use crate::cli::lineage::NewSessionArgs;
use crate::cli::{ForkArgs, RepairFormat, TrimArgs};
use crate::cmd::Rejected;

fn source(file: &Path, args: &NewSessionArgs) -> Result<Source> {
    if file == Path::new("-") {
        bail!("-: standard input cannot be forked or trimmed; give the log's path");
    }
    match Source::read(file, args.session.as_deref()) {
        Ok(s) => Ok(s),
        Err(e @ LineageError::NotLoaded(_)) => Err(Rejected(e.to_string()).into()),
        Err(e) => Err(anyhow::Error::new(e).context(file.display().to_string())),
    }
}

fn encoding(source: &Source, args: &NewSessionArgs) -> Encoding {
    match args.encoding {
        Some(e) => e.encoding(),
        None if source.stored.encoding == Encoding::Zstd => Encoding::Zstd,
        None => Encoding::Plain,
    }
}

/// A plan error: a refusal exits 1 naming the file, anything else 2.
fn planned<T>(file: &Path, plan: Result<T, LineageError>) -> Result<T> {
    plan.map_err(|e| match e {
        LineageError::Refused(_) | LineageError::NotLoaded(_) => {
            Rejected(format!("{}: {e}", file.display())).into()
        }
        e => anyhow::Error::new(e).context(file.display().to_string()),
    })
}

/// Publishes `d`, then reads it back as the newest DSH and as the DSH that writes its
/// generation read it; a file that does not load is removed again.
fn write(d: &Derived, lines: &[DshLine]) -> Result<()> {
    let file = NewFile {
        path: &d.path,
        text: &d.text,
        encoding: d.encoding,
    };
    match publish(&[file]) {
        Ok(_) => {}
        Err(e @ WriteError::Exists(_)) => return Err(Rejected(e.to_string()).into()),
        Err(e) => return Err(e.into()),
    }
    if let Some(problem) = file_would_not_load(&d.path, lines) {
        let _ = std::fs::remove_file(&d.path);
        bail!(
            "{}: {problem}; the file was removed again (please report this)",
            d.path.display()
        );
    }
    Ok(())
}

/// `written`, `would …` (dry run) or `not written` (the path exists), and the exit code.
fn publish_or_plan(
    d: &Derived,
    lines: &[DshLine],
    dry_run: bool,
    done: &'static str,
    would: &'static str,
) -> Result<(&'static str, ExitCode)> {
    if d.exists {
        return Ok(("not written", ExitCode::from(1)));
    }
    if dry_run {
        return Ok((would, ExitCode::SUCCESS));
    }
    write(d, lines)?;
    Ok((done, ExitCode::SUCCESS))
}

fn session_json(d: &Derived) -> serde_json::Value {
    json!({
        "session": d.id,
        "path": d.path.display().to_string(),
        "exists": d.exists,
        "encoding": d.encoding.name(),
        "events": d.events,
    })
}

fn exists_line(out: &mut dyn Write, d: &Derived) -> Result<()> {
    if d.exists {
        writeln!(
            out,
            "  {} (or session {} elsewhere under the root) exists: nothing was written",
            d.path.display(),
            d.id
        )?;
    }
    Ok(())
}

/// `dsh-session fork FILE --at SEQ --out ROOT`.
pub fn fork(args: &ForkArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let source = source(&args.file, &args.new)?;
    let id = args.new.id.clone().unwrap_or_else(new_id);
    let plan = planned(
        &args.file,
        fork::plan(
            &source,
            args.at,
            &id,
            &args.new.out,
            encoding(&source, &args.new),
            now_ms(),
        ),
    )?;
    let (status, code) = publish_or_plan(
        &plan.session,
        &source.lines,
        args.new.dry_run,
        "forked",
        "would fork",
    )?;
    let name = args.file.display();
    match args.new.format {
        RepairFormat::Json => {
            let o = json!({
                "schema_version": 1,
                "file": name.to_string(),
                "parent": source.id(),
                "status": status,
                "at": plan.at,
                "boundary": plan.boundary,
                "turn": plan.turn,
                "inherited": plan.inherited,
                "lines": [plan.lines.0, plan.lines.1],
                "left_out": plan.left,
                "new": session_json(&plan.session),
            });
            serde_json::to_writer_pretty(&mut *out, &o)?;
            writeln!(out)?;
        }
        RepairFormat::Text => fork_text(out, &name.to_string(), &source, &plan, status)?,
    }
    Ok(code)
}

fn fork_text(
    out: &mut dyn Write,
    name: &str,
    source: &Source,
    plan: &Fork,
    status: &str,
) -> Result<()> {
    let d = &plan.session;
    let up_to = match plan.turn {
        Some(turn) => format!("up to the end of turn {turn}, which holds seq {}", plan.at),
        None => format!("up to seq {}, outside a turn", plan.at),
    };
    writeln!(out, "{name}: {status}: seqs 0–{}, {up_to}", plan.boundary)?;
    writeln!(out, "  {}", d.path.display())?;
    writeln!(
        out,
        "    session {}: {} of session {} (lines {}–{}), then a session/end-seed; parentSession {}",
        d.id,
        count(plan.inherited, "event"),
        source.id(),
        plan.lines.0,
        plan.lines.1,
        source.id()
    )?;
    if plan.left > 0 {
        writeln!(
            out,
            "    left out: {} after seq {}",
            count(plan.left, "event"),
            plan.boundary
        )?;
    }
    exists_line(out, d)
}

/// `dsh-session trim FILE --tool-output-max BYTES [--drop-turns A..B] --out ROOT`.
pub fn trim(args: &TrimArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let source = source(&args.file, &args.new)?;
    let id = args.new.id.clone().unwrap_or_else(new_id);
    let options = TrimOptions {
        tool_output_max: args.tool_output_max,
        drop_turns: args.drop_turns,
    };
    let plan = planned(
        &args.file,
        trim::plan(
            &source,
            &options,
            &id,
            &args.new.out,
            encoding(&source, &args.new),
        ),
    )?;
    let nothing = plan.cuts.is_empty() && plan.dropped.is_none();
    let (status, code) = if nothing {
        ("nothing to trim", ExitCode::SUCCESS)
    } else {
        publish_or_plan(
            &plan.session,
            &source.lines,
            args.new.dry_run,
            "trimmed",
            "would trim",
        )?
    };
    let name = args.file.display().to_string();
    match args.new.format {
        RepairFormat::Json => {
            let o = json!({
                "schema_version": 1,
                "file": name,
                "parent": source.id(),
                "status": status,
                "tool_output_max": args.tool_output_max,
                "cuts": plan.cuts,
                "cut_bytes": plan.cut_bytes,
                "dropped_turns": plan.dropped.map(|((a, b), _)| [a, b]),
                "dropped_events": plan.dropped.map(|(_, n)| n),
                "bytes_per_token": plan.bytes_per_token.0,
                "bytes_per_token_from_usage": plan.bytes_per_token.1,
                "tokens_saved": plan.tokens_saved,
                "new": (!nothing).then(|| session_json(&plan.session)),
            });
            serde_json::to_writer_pretty(&mut *out, &o)?;
            writeln!(out)?;
        }
        RepairFormat::Text => trim_text(out, &name, args, &plan, status, source.id())?,
    }
    Ok(code)
}

fn trim_text(
    out: &mut dyn Write,
    name: &str,
    args: &TrimArgs,
    plan: &Trim,
    status: &str,
    parent: &str,
) -> Result<()> {
    let d = &plan.session;
    if plan.cuts.is_empty() && plan.dropped.is_none() {
        writeln!(
            out,
            "{name}: nothing to trim: no tool result holds more than {} bytes; nothing written",
            args.tool_output_max.unwrap_or(0)
        )?;
        return Ok(());
    }
    writeln!(out, "{name}: {status} into {}", d.path.display())?;
    if let Some(max) = args.tool_output_max {
        writeln!(
            out,
            "  {} cut to {max} bytes: {} bytes cut",
            count(plan.cuts.len() as u64, "tool result"),
            plan.cut_bytes
        )?;
        for c in &plan.cuts {
            writeln!(
                out,
                "    line {} (seq {}{}): {} → {} bytes",
                c.line,
                c.seq,
                c.call_id
                    .as_deref()
                    .map(|id| format!(", call {id}"))
                    .unwrap_or_default(),
                c.bytes,
                c.bytes - c.cut
            )?;
        }
    }
    if let Some(((a, b), events)) = plan.dropped {
        let turns = if a == b {
            format!("turn {a}")
        } else {
            format!("turns {a}–{b}")
        };
        writeln!(
            out,
            "  {turns} left out ({}); the turns after them renumbered",
            count(events, "event")
        )?;
    }
    let (per, from_usage) = plan.bytes_per_token;
    writeln!(
        out,
        "  about {} of context saved ({per:.1} bytes per token, {})",
        count(plan.tokens_saved, "token"),
        if from_usage {
            "from the log's own usage"
        } else {
            "assumed: the log reports no usage"
        }
    )?;
    writeln!(
        out,
        "  session {}: {}, parentSession {}",
        d.id,
        count(d.events, "event"),
        parent
    )?;
    exists_line(out, d)
}
