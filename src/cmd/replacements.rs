//! `replacements FILE`: every replace in log order (FORMAT.md §3.1). The replaces are
//! [`dsh_session::view::replacements`]'; the output [`crate::render::replacements`]'.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use dsh_session::scan::ScanOptions;
use dsh_session::view::replacements;

use crate::cli::ReplacementsArgs;
use crate::cmd::salvage::{self, Shape};

/// Runs `replacements`.
pub fn run(args: &ReplacementsArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let options = ScanOptions {
        session: args.session.clone(),
        ..ScanOptions::default()
    };
    let (_, replacements, salvaged) = salvage::scan_salvaging(
        &args.file,
        &args.file,
        &options,
        args.salvage,
        replacements::scan,
    )?;
    let shape = Shape::of_table(args.format, "replacements");
    if args.salvage {
        salvage::head(out, shape, salvaged.as_ref())?;
    }
    crate::render::replacements::write(out, &replacements, args.format)?;
    if args.salvage {
        salvage::tail(out, shape)?;
    }
    Ok(salvage::exit_code(salvaged.as_ref()))
}
