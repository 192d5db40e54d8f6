//! `provenance FILE SEQ`: status, ancestors and descendants of one event
//! (FORMAT.md §1.2, §3). The trace is [`dsh_session::provenance::trace`]'s; the output
//! [`crate::render::provenance`]'s.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::provenance::trace::{self, TraceError};
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
    let name = args.file.display();
    let session = args.session.as_ref();
    let t = match trace::trace(path, session, args.seq, args.depth, &report, index) {
        Ok(t) => t,
        Err(e @ TraceError::Beyond { .. }) => bail!("{name}: {e}"),
        Err(TraceError::Scan(e)) => return Err(anyhow::Error::new(e).context(name.to_string())),
    };
    let salvaged_shown = args.salvage.then_some(salvaged.as_ref());
    crate::render::provenance::write(out, &t, args.format, salvaged_shown)?;
    Ok(salvage::exit_code(salvaged.as_ref()))
}
