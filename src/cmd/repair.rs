//! `repair FILE`: cut the torn tail, close the interrupted turn (FORMAT.md §5).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::write::{self, Plan, RepairError};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::cli::{RepairArgs, RepairFormat};
use crate::cmd::Rejected;
use crate::render::{TornTailJson, log_name};

#[derive(Debug, Serialize)]
struct Cut {
    #[serde(flatten)]
    tail: TornTailJson,
    /// What is known of the loss when it cannot be counted ([`dsh_session::scan::TornTail::uncounted`]).
    #[serde(skip)]
    uncounted: Option<String>,
}

#[derive(Debug, Serialize)]
struct Outcome<'a> {
    file: String,
    session: Option<&'a str>,
    /// `repaired`, `would repair` (dry run) or `nothing to repair`.
    status: &'static str,
    cut: Option<Cut>,
    closers: Vec<&'a RawValue>,
    backup: Option<String>,
    /// True when an interrupted zstd repair was completed from its journal.
    resumed: bool,
}

fn outcome<'a>(plan: &'a Plan, status: &'static str) -> Outcome<'a> {
    Outcome {
        file: plan.path.display().to_string(),
        session: plan.session.as_deref(),
        status,
        cut: plan.cut.as_ref().map(|t| Cut {
            tail: TornTailJson::from(t),
            uncounted: t.counted().is_none().then(|| t.uncounted()),
        }),
        closers: plan
            .closers
            .iter()
            .map(|c| serde_json::from_str::<&RawValue>(c).expect("closers are JSON"))
            .collect(),
        backup: plan.backup.as_ref().map(|b| b.display().to_string()),
        resumed: plan.resume.is_some(),
    }
}

/// Runs `repair`.
pub fn run(args: &RepairArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let path = &args.file;
    if path == Path::new("-") {
        bail!("-: standard input cannot be repaired; give the log's path");
    }
    let mut plan = match write::plan(path, args.session.as_deref()) {
        Ok(plan) => plan,
        Err(e @ RepairError::Refused { .. }) => {
            return Err(Rejected(format!("{}: {e}", path.display())).into());
        }
        Err(e) => return Err(anyhow::Error::new(e).context(path.display().to_string())),
    };
    let status = if plan.is_empty() {
        "nothing to repair"
    } else if args.dry_run {
        "would repair"
    } else {
        match write::apply(&mut plan, !args.no_backup) {
            Ok(()) => "repaired",
            Err(e @ RepairError::Changed(_)) => {
                return Err(Rejected(format!("{}: {e}", path.display())).into());
            }
            Err(e) => return Err(anyhow::Error::new(e).context(path.display().to_string())),
        }
    };
    let o = outcome(&plan, status);
    match args.format {
        RepairFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &o)?;
            writeln!(out)?;
        }
        RepairFormat::Text => write_text(out, &o, args.dry_run)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn write_text(out: &mut dyn Write, o: &Outcome<'_>, dry_run: bool) -> std::io::Result<()> {
    let name = log_name(&o.file, o.session);
    if o.status == "nothing to repair" {
        return writeln!(out, "{name}: nothing to repair");
    }
    if o.resumed {
        let verb = if dry_run {
            "would complete"
        } else {
            "completed"
        };
        writeln!(
            out,
            "{name}: {verb} an interrupted repair from its journal {}.repair",
            o.file
        )?;
    }
    let (cut_verb, append_verb) = if dry_run {
        ("would cut", "would append")
    } else {
        ("cut", "appended")
    };
    if let Some(c) = &o.cut {
        let what = if o.session.is_some() {
            format!("rows from seq {}", c.tail.offset)
        } else {
            format!("{} byte(s) at offset {}", c.tail.bytes, c.tail.offset)
        };
        let t = &c.tail;
        match (&c.uncounted, t.lines, t.events) {
            (None, Some(lines), Some(events)) => writeln!(
                out,
                "{name}: {cut_verb} {what} ({}: from line {}, {lines} line(s), {events} event(s) lost)",
                t.rule, t.line
            )?,
            (uncounted, ..) => writeln!(
                out,
                "{name}: {cut_verb} {what} ({}: from line {}; {})",
                t.rule,
                t.line,
                uncounted
                    .as_deref()
                    .unwrap_or("what it held cannot be counted")
            )?,
        }
        if t.recovered_lines > 0 {
            writeln!(
                out,
                "{name}: {} complete line(s) of the torn frame are written again",
                t.recovered_lines
            )?;
        }
    }
    if !o.closers.is_empty() {
        writeln!(
            out,
            "{name}: {append_verb} {} closer record(s):",
            o.closers.len()
        )?;
        for c in &o.closers {
            writeln!(out, "{}", c.get())?;
        }
    }
    if let Some(b) = &o.backup {
        writeln!(out, "{name}: backup of the original: {b}")?;
    }
    Ok(())
}
