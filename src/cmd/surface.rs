//! `surface FILE [--at SEQ]`: the surface after replaying the log (FORMAT.md §3). The
//! listing is [`dsh_session::view::surface_list`]'s; the output
//! [`crate::render::surface`]'s.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::scan::ScanOptions;
use dsh_session::view::surface_list::{self, ListError};

use crate::cli::SurfaceArgs;
use crate::cmd::salvage::{self, Shape};

/// Runs `surface`.
pub fn run(args: &SurfaceArgs, out: &mut dyn Write) -> Result<ExitCode> {
    // Previews of the whole surface wait in a temporary file past 2 MiB; rows are printed
    // one at a time, so memory does not grow with the surface's text.
    let options = ScanOptions {
        session: args.session.clone(),
        ..ScanOptions::default()
    };
    let (report, scanned, salvaged) =
        salvage::scan_salvaging(&args.file, &args.file, &options, args.salvage, |path, o| {
            surface_list::scan(path, o, args.at, args.all)
        })?;
    let name = args.file.display().to_string();
    let listing = match surface_list::listing(&report, scanned, args.at, args.all) {
        Ok(listing) => listing,
        Err(e @ ListError::Beyond { .. }) => bail!("{name}: {e}"),
        Err(ListError::ReadBack(e)) => {
            let context = format!("{name}: cannot read back the previews from a temporary file");
            return Err(anyhow::Error::new(e).context(context));
        }
    };
    let shape = Shape::of_table(args.format, "surface");
    if args.salvage {
        salvage::head(out, shape, salvaged.as_ref())?;
    }
    crate::render::surface::write(out, &listing, &name, args.format, args.all)?;
    if args.salvage {
        salvage::tail(out, shape)?;
    }
    Ok(salvage::exit_code(salvaged.as_ref()))
}
