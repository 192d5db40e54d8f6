//! `messages FILE [--at SEQ]`: deriveMessages (FORMAT.md §4), byte for byte as stored.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use dsh_session::repair::{self, RepairError};
use dsh_session::replay::{Keep, Replay};
use dsh_session::scan::ScanOptions;
use dsh_session::view::surface_at::SurfaceAt;

use crate::cli::{MessageFormat, MessagesArgs, ProviderName};
use crate::cmd::salvage::{self, Shape};
use crate::cmd::{Rejected, readable, scan_readable_as, spool_stdin};

/// Runs `messages`.
pub fn run(args: &MessagesArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if let Some(provider) = args.provider {
        return run_healed(args, provider, out);
    }
    if let Some(seq) = args.seq {
        let one = one_message(&args.file, args.session.as_deref(), seq)?;
        writeln!(out, "{}", one.message)?;
        return Ok(ExitCode::SUCCESS);
    }
    // The whole surface's messages may be many times the memory a scan needs: past 2 MiB
    // they wait in a temporary file, and are printed one at a time from there.
    let options = ScanOptions {
        session: args.session.clone(),
        ..ScanOptions::default()
    };
    let (report, snapshot, salvaged) =
        salvage::scan_salvaging(&args.file, &args.file, &options, args.salvage, |path, o| {
            let mut snapshot = SurfaceAt::new(args.at.unwrap_or_default(), Keep::MESSAGES);
            let mut keep = Keep::MESSAGES;
            let view: &mut dyn dsh_session::view::View = match args.at {
                Some(_) => &mut snapshot,
                None => &mut keep,
            };
            let report = dsh_session::scan::scan_path_with(path, o, &mut [view])?;
            Ok((report, snapshot))
        })?;
    let name = args.file.display();
    let shape = match args.format {
        MessageFormat::Json => Shape::JsonArray("messages"),
        MessageFormat::Jsonl => Shape::Jsonl,
    };
    if args.salvage {
        salvage::head(out, shape, salvaged.as_ref())?;
    }
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
    if args.salvage {
        salvage::tail(out, shape)?;
    }
    Ok(salvage::exit_code(salvaged.as_ref()))
}

/// The message one event derives ([`one_message`]), with where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneMessage {
    /// The event's seq.
    pub seq: u64,
    /// The event's type (`user/message`, `assistant/message`, `tool/result` …).
    pub ty: String,
    /// The message's role, when it has one.
    pub role: Option<String>,
    /// False when a replace took it off the surface (compacted or pruned).
    pub on_surface: bool,
    /// The derived message, byte for byte as stored (FORMAT.md §4).
    pub message: String,
}

/// The message the event `seq` of the log at `file` derives (of `session` in a store), on
/// the surface or shadowed by a replace: what `messages --seq` and `show --seq` print.
///
/// # Errors
/// The log cannot be read, or is corrupt or refused ([`Rejected`]); `seq` is no event of
/// the log, or an event that derives no message (a usage error naming the seq).
pub fn one_message(file: &std::path::Path, session: Option<&str>, seq: u64) -> Result<OneMessage> {
    let options = ScanOptions {
        session: session.map(str::to_owned),
        ..ScanOptions::default()
    };
    let mut keep = Keep {
        shadowed: true,
        ..Keep::MESSAGES
    };
    let spooled = spool_stdin(file)?;
    let path = spooled.as_ref().map_or(file, |s| s.path());
    let report = scan_readable_as(path, file, &options, &mut [&mut keep])?;
    let name = file.display();
    let Some(entry) = report.replay.entry_by_seq(seq) else {
        bail!(
            "{name}: seq {seq} derives no message (the log's events are seqs 0 to {}; `dsh-session surface {name} --all` lists those that do)",
            report.events.saturating_sub(1)
        );
    };
    let entry = entry.with_context(|| kept_context(&name))?;
    let on_surface = report.replay.contains(seq);
    let Some(message) = entry.message else {
        bail!("{name}: seq {seq} ({}) derives no message", entry.ty);
    };
    Ok(OneMessage {
        seq,
        ty: entry.ty.into_owned(),
        role: entry.role.map(|r| r.into_owned()),
        on_surface,
        message,
    })
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

/// `messages --provider NAME`: the history after `repair --provider NAME`, computed in
/// memory from the same plan ([`dsh_session::repair::healed_history`]); nothing is written.
///
/// A drop-in for `messages`: standard output is what `messages` prints of the healed log, in
/// either format, and each change (a closer DSH appends on load, a heal, a finding left
/// unhealed) is a note on standard error. The changes as data come from
/// `repair --dry-run --provider NAME --format json`.
fn run_healed(
    args: &MessagesArgs,
    provider: ProviderName,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let spooled = spool_stdin(&args.file)?;
    let path = spooled.as_ref().map_or(args.file.as_path(), |s| s.path());
    let profile = provider.profile();
    let name = args.file.display();
    let (planned, history) = match repair::healed_history(path, args.session.as_deref(), profile) {
        Ok(planned) => planned,
        // Worded as `messages` words a log it cannot read: nothing is written here anyway.
        Err(RepairError::Refused { status, finding }) => {
            return Err(Rejected(format!("{name}: {status} {finding}")).into());
        }
        Err(RepairError::Heal(why)) => {
            return Err(Rejected(format!(
                "{name}: the healed history would not validate ({why}); please report this"
            ))
            .into());
        }
        Err(e) => return Err(anyhow::Error::new(e).context(name.to_string())),
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
    write_messages(out, args.format, kept_messages(&report.replay, &name))?;
    let provider = profile.name();
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
