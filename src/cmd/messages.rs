//! `messages FILE [--at SEQ]`: deriveMessages (FORMAT.md §4), byte for byte as stored.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use dsh_session::repair::{self, RepairError};
use dsh_session::replay::{Keep, Replay};
use dsh_session::scan::ScanOptions;
use dsh_session::view::surface_at::SurfaceAt;
use serde::Serialize;
use serde_json::json;

use crate::cli::{MessageFormat, MessagesArgs, ProviderName};
use crate::cmd::{Rejected, readable, scan_readable, scan_readable_as, spool_stdin};

/// Runs `messages`.
pub fn run(args: &MessagesArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if let Some(provider) = args.provider {
        return run_healed(args, provider, out);
    }
    // The whole surface's messages may be many times the memory a scan needs: past 2 MiB
    // they wait in a temporary file, and are printed one at a time from there.
    let options = ScanOptions {
        session: args.session.clone(),
        ..ScanOptions::default()
    };
    let mut snapshot = SurfaceAt::new(args.at.unwrap_or_default(), Keep::MESSAGES);
    let mut keep = Keep::MESSAGES;
    let report = match args.at {
        Some(_) => scan_readable(&args.file, &options, &mut [&mut snapshot])?,
        None => scan_readable(&args.file, &options, &mut [&mut keep])?,
    };
    let name = args.file.display();
    match args.at {
        None => write_messages(out, args.format, kept_messages(&report.replay, &name))?,
        Some(at) => match snapshot.entries {
            Some(entries) => {
                let entries = entries.with_context(|| kept_context(&name))?;
                let messages = entries.into_iter().filter_map(|e| e.message).map(Ok);
                write_messages(out, args.format, messages)?;
            }
            None => bail!("{name}: --at {at} is beyond the log"),
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// The derived messages of the final surface, read back one at a time.
fn kept_messages<'a>(
    replay: &'a Replay,
    name: &'a dyn std::fmt::Display,
) -> impl Iterator<Item = Result<String>> + 'a {
    replay.iter().filter_map(move |e| match e {
        Ok(e) => e.message.map(Ok),
        Err(e) => Some(Err(anyhow::Error::new(e).context(kept_context(name)))),
    })
}

/// What failed when a kept message cannot be read back.
fn kept_context(name: &dyn std::fmt::Display) -> String {
    format!("{name}: cannot read back the derived messages from a temporary file")
}

/// Writes the messages as an array (`json`) or one per line (`jsonl`), as they come.
fn write_messages(
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

/// One change `--provider` makes to the history: a closer DSH appends on load, or a heal.
#[derive(Debug, Serialize)]
struct Change<'a> {
    seq: u64,
    /// `closer` or `heal`.
    kind: &'static str,
    rules: Vec<&'static str>,
    shadowed: &'a [u64],
    change: String,
}

/// `messages --provider NAME`: the history after `repair --provider NAME`, computed in
/// memory from the same plan ([`dsh_session::repair::healed_history`]); nothing is written.
fn run_healed(
    args: &MessagesArgs,
    provider: ProviderName,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let spooled = spool_stdin(&args.file)?;
    let path = spooled.as_ref().map_or(args.file.as_path(), |s| s.path());
    let profile = provider.profile();
    let (planned, history) = match repair::healed_history(path, args.session.as_deref(), profile) {
        Ok(planned) => planned,
        Err(e @ (RepairError::Refused { .. } | RepairError::Heal(_))) => {
            return Err(Rejected(format!("{}: {e}", args.file.display())).into());
        }
        Err(e) => return Err(anyhow::Error::new(e).context(args.file.display().to_string())),
    };
    let options = ScanOptions {
        session: args.session.clone(),
        append_closers: true,
        then_append: planned.plan.heals.clone(),
        ..ScanOptions::default()
    };
    // The plan's last scan derived the healed history; a log whose repair journal waits
    // is read again with the plan's closers and heals.
    let report = match history {
        Some(report) => readable(report, &args.file)?,
        None => {
            let mut keep = Keep::MESSAGES;
            scan_readable_as(path, &args.file, &options, &mut [&mut keep])?
        }
    };
    let name = args.file.display();
    let messages = kept_messages(&report.replay, &name);
    let first_closer = report.events - (planned.plan.closers.len() + planned.heals.len()) as u64;
    let mut changes: Vec<Change<'_>> = planned
        .plan
        .closers
        .iter()
        .zip(first_closer..)
        .map(|(record, seq)| Change {
            seq,
            kind: "closer",
            rules: Vec::new(),
            shadowed: &[],
            change: format!("DSH's crash repair appends {}", closer_what(record)),
        })
        .collect();
    changes.extend(planned.heals.iter().map(|h| Change {
        seq: h.seq,
        kind: "heal",
        rules: h.rules.iter().map(|r| r.id()).collect(),
        shadowed: &h.shadowed,
        change: h.change.clone(),
    }));
    let name = args.file.display();
    let unhealed = planned.unhealed.iter().map(|u| {
        json!({
            "rule": u.finding.rule.id(),
            "seq": u.finding.seq,
            "message": u.finding.message,
            "why": u.why,
        })
    });
    match args.format {
        MessageFormat::Json => {
            // The array `messages` prints, inside an object.
            out.write_all(b"{\"messages\":")?;
            write_array(out, messages)?;
            let rest = json!({
                "schema_version": 1,
                "provider": profile.name(),
                "changes": changes,
                "unhealed": unhealed.collect::<Vec<_>>(),
            });
            let rest = serde_json::to_string(&rest)?;
            // `{"messages":[…],` then the other members of `rest`.
            writeln!(out, ",{}", &rest[1..])?;
        }
        MessageFormat::Jsonl => {
            write_messages(out, MessageFormat::Jsonl, messages)?;
            for c in &changes {
                eprintln!(
                    "dsh-session: {name}: {}: seq {}: {}",
                    profile.name(),
                    c.seq,
                    c.change
                );
            }
            for u in &planned.unhealed {
                eprintln!(
                    "dsh-session: {name}: {}: {} at seq {} is not healed: {}",
                    profile.name(),
                    u.finding.rule.id(),
                    u.finding.seq.unwrap_or_default(),
                    u.why
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
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
