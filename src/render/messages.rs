//! `messages`' output: the derived messages as one JSON array or one a line (byte for byte
//! as stored, FORMAT.md §4), and with `--provider` each change of the healed history as a
//! note on standard error (README "messages").

use std::io::Write;

use anyhow::Result;
use dsh_session::repair::Repair;
use dsh_session::replay::Replay;
use dsh_session::scan::Report;

use crate::cli::MessageFormat;

/// The notes of `messages --provider NAME` on standard error, one a line: each closer DSH
/// appends on load, each heal, each finding left unhealed, at its seq in the healed
/// `report` of the log `name`.
pub fn write_heal_notes(
    name: &dyn std::fmt::Display,
    provider: &str,
    planned: &Repair,
    report: &Report,
) {
    let first_closer = report.events - (planned.plan.closers.len() + planned.heals.len()) as u64;
    for (record, seq) in planned.plan.closers.iter().zip(first_closer..) {
        stderr!(
            "note: {name}: {provider}: seq {seq}: DSH's crash repair appends {}",
            closer_what(record)
        );
    }
    for h in &planned.heals {
        stderr!("note: {name}: {provider}: seq {}: {}", h.seq, h.change);
    }
    for u in &planned.unhealed {
        stderr!(
            "note: {name}: {provider}: {} at seq {} is not healed: {}",
            u.finding.rule.id(),
            u.finding.seq.unwrap_or_default(),
            u.why
        );
    }
}

/// The derived messages of the final surface, read back one at a time.
pub fn kept_messages<'a>(
    replay: &'a Replay,
    name: &'a dyn std::fmt::Display,
) -> impl Iterator<Item = Result<String>> + 'a {
    replay.iter().filter_map(move |e| match e {
        Ok(e) => e.message.map(Ok),
        Err(e) => Some(Err(anyhow::Error::new(e).context(kept_context(name)))),
    })
}

/// What failed when a kept message cannot be read back.
pub fn kept_context(name: &dyn std::fmt::Display) -> String {
    format!("{name}: cannot read back the derived messages from a temporary file")
}

/// Writes the messages as an array (`json`) or one per line (`jsonl`), as they come.
pub fn write_messages(
    out: &mut dyn Write,
    format: MessageFormat,
    messages: impl Iterator<Item = Result<String>>,
) -> Result<()> {
    match format {
        MessageFormat::Jsonl => {
            for m in messages {
                out.write_all(m?.as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
        MessageFormat::Json => {
            write_array(out, messages)?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// A JSON array of the messages: `[]` when empty, otherwise one stored message per line,
/// so that a diff or `grep` of the output still works line by line.
fn write_array(out: &mut dyn Write, messages: impl Iterator<Item = Result<String>>) -> Result<()> {
    out.write_all(b"[")?;
    let mut any = false;
    for m in messages {
        let m = m?;
        out.write_all(if any { b",\n" } else { b"\n" })?;
        out.write_all(m.as_bytes())?;
        any = true;
    }
    out.write_all(if any { b"\n]" } else { b"]" })?;
    Ok(())
}

/// What a closer record is, for a change line: `a tool/result for call "call_7"`.
fn closer_what(record: &str) -> String {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(record) else {
        return "a closer".to_owned();
    };
    let ty = v["type"].as_str().unwrap_or("a closer");
    match ty {
        "tool/result" => format!(
            "a tool/result for the interrupted call {}",
            v["data"]["message"]["source"]["callId"]
        ),
        "turn/end" => "turn/end (interrupted)".to_owned(),
        other => other.to_owned(),
    }
}
