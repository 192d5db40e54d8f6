//! `messages FILE [--at SEQ]`: deriveMessages (FORMAT.md §4), byte for byte as stored.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::replay::SurfaceEntry;
use dsh_session::scan::ScanOptions;
use dsh_session::view::surface_at::SurfaceAt;

use crate::cli::{MessageFormat, MessagesArgs};
use crate::cmd::scan_readable;

/// Runs `messages`.
pub fn run(args: &MessagesArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let options = ScanOptions {
        keep_messages: true,
        session: args.session.clone(),
        ..ScanOptions::default()
    };
    let mut snapshot = SurfaceAt::new(args.at.unwrap_or_default());
    let report = match args.at {
        Some(_) => scan_readable(&args.file, &options, &mut [&mut snapshot])?,
        None => scan_readable(&args.file, &options, &mut [])?,
    };
    let entries: Vec<&SurfaceEntry> = match args.at {
        None => report.replay.entries(),
        Some(at) => match &snapshot.entries {
            Some(entries) => entries.iter().collect(),
            None => bail!("{}: --at {at} is beyond the log", args.file.display()),
        },
    };
    let messages = entries.iter().filter_map(|e| e.message.as_deref());
    match args.format {
        MessageFormat::Jsonl => {
            for m in messages {
                out.write_all(m.as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
        MessageFormat::Json => {
            // `[]` when empty; otherwise one stored message per line, so a diff or `grep`
            // of the output still works line by line.
            out.write_all(b"[")?;
            let mut any = false;
            for m in messages {
                out.write_all(if any { b",\n" } else { b"\n" })?;
                out.write_all(m.as_bytes())?;
                any = true;
            }
            out.write_all(if any { b"\n]\n" } else { b"]\n" })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
