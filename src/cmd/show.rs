//! `show FILE`: a summary of one session log, then a table of its turns. The summary is
//! [`dsh_session::view::summary`]'s; the output [`crate::render::show`]'s.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use dsh_session::view::summary;

use crate::cli::ShowArgs;
use crate::cmd::salvage;

/// Runs `show`.
pub fn run(args: &ShowArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if let Some(seq) = args.seq {
        let one = crate::reading::one_message(&args.log.file, args.log.session.as_deref(), seq)?;
        crate::render::show::write_message(out, &one, args.log.format)?;
        return Ok(ExitCode::SUCCESS);
    }
    let options = summary::options(args.log.session.clone());
    let (report, views, salvaged) = salvage::scan_salvaging(
        &args.log.file,
        &args.log.file,
        &options,
        args.salvage,
        summary::scan,
    )?;
    let salvaged_shown = args.salvage.then_some(salvaged.as_ref());
    crate::render::show::write(out, &report, &views, salvaged_shown, args.log.format)?;
    Ok(salvage::exit_code(salvaged.as_ref()))
}
