//! `provenance FILE SEQ`: status, ancestors and descendants of one event
//! (FORMAT.md §1.2, §3). The trace is [`dsh_session::provenance::trace`]'s; the output
//! [`crate::render::provenance`]'s.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use dsh_session::provenance::trace;
use dsh_session::scan::ScanOptions;

use crate::cli::ProvenanceArgs;
use crate::cmd::salvage;
use crate::cmd::spool_stdin;

/// Runs `provenance`: one pass builds the index, a second collects what the trees show.
pub fn run(args: &ProvenanceArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let options = ScanOptions {
        session: args.session.clone(),
        ..ScanOptions::default()
    };
    // Two passes read the log: standard input is kept in a temporary file for the second.
    let spooled = spool_stdin(&args.file)?;
    let path = spooled.as_ref().map_or(args.file.as_path(), |s| s.path());
    let (report, index, salvaged) =
        salvage::scan_salvaging(path, &args.file, &options, args.salvage, trace::scan_index)?;
    let session = args.session.as_ref();
    let t = trace::trace(path, session, args.seq, args.depth, &report, index)
        .map_err(|e| crate::reading::trace_error(&args.file, e))?;
    let salvaged_shown = args.salvage.then_some(salvaged.as_ref());
    crate::render::provenance::write(out, &t, args.format, salvaged_shown)?;
    Ok(salvage::exit_code(salvaged.as_ref()))
}
