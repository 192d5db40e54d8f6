//! How `fork` and `trim` say what they did: a few lines of text, or one JSON object.

use std::io::Write;

use anyhow::Result;
use dsh_session::lineage::fork::Fork;
use dsh_session::lineage::trim::Trim;
use dsh_session::lineage::{Derived, Source};
use dsh_session::wording::count;
use serde_json::json;

use crate::cli::RepairFormat;

/// `fork`'s report on `plan` of the log `name` (`status`: `forked`, `would fork`, `not
/// written`).
///
/// # Errors
/// A write error.
pub fn fork(
    out: &mut dyn Write,
    format: RepairFormat,
    name: &str,
    source: &Source,
    plan: &Fork,
    status: &str,
) -> Result<()> {
    match format {
        RepairFormat::Json => {
            let o = json!({
                "schema_version": 1,
                "file": name,
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
            Ok(())
        }
        RepairFormat::Text => fork_text(out, name, source, plan, status),
    }
}

/// `trim`'s report on `plan` of the log `name` (`status`: `trimmed`, `would trim`, `not
/// written`, `nothing to trim`), whose parent is `parent`.
///
/// # Errors
/// A write error.
pub fn trim(
    out: &mut dyn Write,
    format: RepairFormat,
    name: &str,
    tool_output_max: Option<usize>,
    plan: &Trim,
    status: &str,
    parent: &str,
) -> Result<()> {
    let nothing = plan.cuts.is_empty() && plan.dropped.is_none();
    if let RepairFormat::Json = format {
        let o = json!({
            "schema_version": 1,
            "file": name,
            "parent": parent,
            "status": status,
            "tool_output_max": tool_output_max,
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
        return Ok(());
    }
    let d = &plan.session;
    if nothing {
        writeln!(
            out,
            "{name}: nothing to trim: no tool result holds more than {} bytes; nothing written",
            tool_output_max.unwrap_or(0)
        )?;
        return Ok(());
    }
    writeln!(out, "{name}: {status} into {}", d.path.display())?;
    if let Some(max) = tool_output_max {
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
