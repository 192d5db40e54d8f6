//! `--salvage` on `show`, `surface`, `messages`, `provenance`, `replacements` and
//! `export` (issue 27): a corrupt or refused log is read up to its defect by the one rule
//! every command follows ([`dsh_session::scan::defect`]: the lines before the line its
//! verdict names; a log only the frozen edges refuse is read whole, as DSH 0.1.1 loads it),
//! and what it held there is printed, with the defect and the lines read named at
//! the top (text), in a `salvaged` field (JSON; an array output becomes an object that
//! holds it), or on standard error (`jsonl`, as one JSON line). The exit code stays 1, so a
//! script cannot take a salvaged read for a healthy log. A log whose header is broken, and
//! another harness's file, have nothing to salvage: they are refused as without the flag.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use dsh_session::scan::defect::{self, Reach};
use dsh_session::scan::{Report, ScanError, ScanOptions};

use crate::cmd::{readable, spool_stdin};
pub use crate::render::salvage::{Salvaged, Shape, head, tail};

/// The exit code of a command that read `salvaged`: 1 after a salvaged read.
pub fn exit_code(salvaged: Option<&Salvaged>) -> ExitCode {
    if salvaged.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The scan `read` makes of `path` (its views made anew at each call, handed back), as
/// [`scan_readable_as`] reads it; with `salvage` a corrupt or refused log read up to its defect
/// instead of refused ([`defect`]: the one rule every command follows): the report then
/// holds what the log held before it, and the defect comes back beside it. A log only the
/// frozen edges refuse is read whole, as DSH 0.1.1 loads it, as without the flag.
///
/// # Errors
/// As [`scan_readable_as`], for a log with nothing to salvage (a broken header, another
/// harness's file).
pub fn scan_salvaging<V>(
    path: &Path,
    shown: &Path,
    options: &ScanOptions,
    salvage: bool,
    mut read: impl FnMut(&Path, &ScanOptions) -> Result<(Report, V), ScanError>,
) -> Result<(Report, V, Option<Salvaged>)> {
    if !salvage {
        let (report, views) = crate::reading::read_readable(path, shown, options, read)?;
        return Ok((report, views, None));
    }
    let context = || shown.display().to_string();
    // A second pass reads the log again when its defect was found after later lines:
    // standard input is kept in a temporary file.
    let spooled = spool_stdin(path)?;
    let path = spooled.as_ref().map_or(path, |s| s.path());
    let (report, views) =
        defect::read_up_to_defect(options, |options| read(path, options)).with_context(context)?;
    let salvaged = match (defect::reach(&report), &report.finding) {
        (Reach::UpTo(_), Some(f)) => Some(Salvaged {
            status: report.status,
            finding: f.clone(),
            read: defect::read_text(&report),
            read_json: defect::read_json(&report),
        }),
        _ => None,
    };
    match salvaged {
        Some(s) => Ok((report, views, Some(s))),
        None => Ok((readable(report, shown)?, views, None)),
    }
}
