//! `messages FILE [--at SEQ]`: deriveMessages (FORMAT.md §4), byte for byte as stored. The
//! messages are the scan's ([`dsh_session::view::surface_at`],
//! [`dsh_session::view::message_at`], [`dsh_session::repair::healed_history`]); the
//! output is [`crate::render::messages`]'.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use dsh_session::repair::{self, RepairError};
use dsh_session::replay::Keep;
use dsh_session::scan::ScanOptions;
use dsh_session::view::surface_at::SurfaceAt;

use crate::cli::{MessageFormat, MessagesArgs, ProviderName};
use crate::cmd::salvage::{self, Shape};
use crate::cmd::{Rejected, readable, scan_readable_as, spool_stdin};
use crate::render::messages::{kept_context, kept_messages, write_heal_notes, write_messages};

/// Runs `messages`.
pub fn run(args: &MessagesArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if let Some(provider) = args.provider {
        return run_healed(args, provider, out);
    }
    if let Some(seq) = args.seq {
        let one = crate::reading::one_message(&args.file, args.session.as_deref(), seq)?;
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
    write_heal_notes(&name, profile.name(), &planned, &report);
    Ok(ExitCode::SUCCESS)
}
