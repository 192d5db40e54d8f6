//! One file per subcommand, each with a single `run` entry point.

pub mod export;
pub mod follow;
pub mod index;
pub mod lineage;
pub mod mcp;
pub mod messages;
pub mod provenance;
pub mod recover;
pub mod repair;
pub mod replacements;
pub mod rules;
pub mod salvage;
pub mod search;
pub mod sessions;
pub mod show;
pub mod stats;
pub mod statusline;
pub mod surface;
pub mod tui;
pub mod validate;
pub mod version;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use dsh_session::period::Period;
use dsh_session::prices::PriceTable;

pub use crate::reading::{Rejected, log_path, readable, scan_readable_as, spool_stdin};

/// The zone `--tz` names and the period `--since` and `--until` ask for in it, as `stats`
/// and `search` read them.
pub(crate) fn zone_and_period(
    tz: &str,
    since: &Option<String>,
    until: &Option<String>,
) -> Result<(jiff::tz::TimeZone, Period)> {
    let zone = dsh_session::stats::zone(tz).with_context(|| format!("--tz {tz:?}"))?;
    let period = dsh_session::stats::parse_period(
        since.as_deref(),
        until.as_deref(),
        ["--since", "--until"],
        &zone,
    )?;
    Ok((zone, period))
}

/// The built-in price table, under the `--prices` file when one is given.
pub(crate) fn price_table(file: Option<&Path>) -> Result<Arc<PriceTable>> {
    let table = PriceTable::built_in_under(file)
        .with_context(|| format!("--prices {}", file.unwrap_or(Path::new("")).display()))?;
    Ok(Arc::new(table))
}

/// The paths a walking command reads: those given, else DSH's default root
/// ([`dsh_session::load::layout::default_root`]).
///
/// # Errors
/// No path given and no `~/.dsh/sessions`: a usage error naming the command.
pub fn paths_or_default_root(paths: &[PathBuf], command: &str) -> Result<Vec<PathBuf>> {
    if !paths.is_empty() {
        return Ok(paths.to_vec());
    }
    match dsh_session::load::layout::default_root() {
        Some(root) => Ok(vec![root]),
        None => anyhow::bail!(
            "no path given and no ~/.dsh/sessions (DSH's default root): name the JSONL roots, logs or stores to read (`dsh-session {command} ~/.dsh/sessions`)"
        ),
    }
}

/// The logs `validate` and `stats` read for their PATH arguments: files as given, and
/// directories walked for DSH's log names and SQLite stores
/// ([`dsh_session::load::layout::discover`]). What the walk passed over goes to standard
/// error, as does each directory in which nothing was found; their number is returned
/// beside the logs, so the command can exit 2 instead of passing on nothing.
pub fn walk(inputs: &[PathBuf]) -> (Vec<PathBuf>, usize) {
    let (paths, skipped) = dsh_session::load::layout::discover(inputs);
    crate::render::say_passed_over(skipped);
    let mut empty_dirs = 0;
    for dir in inputs.iter().filter(|f| f.is_dir()) {
        if !paths.iter().any(|p| p.starts_with(dir)) {
            empty_dirs += 1;
            stderr!("dsh-session: {}", crate::render::no_logs_in(dir));
        }
    }
    (paths, empty_dirs)
}
