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

use dsh_session::wording::count;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use dsh_session::scan::{self, Report, ScanOptions, Status};
use dsh_session::view::View;

/// The log a command reads at `path`: the path itself, or for a session directory its
/// current generation ([`dsh_session::load::layout::current_generation`]), named on standard
/// error so the user knows which file was read.
pub fn log_path(path: PathBuf) -> Result<PathBuf> {
    if !path.is_dir() {
        return Ok(path);
    }
    let log = dsh_session::load::layout::current_generation(&path)
        .with_context(|| path.display().to_string())?;
    stderr!(
        "dsh-session: reading {} (the current generation of the session directory)",
        log.display()
    );
    Ok(log)
}

/// For a command that reads its log more than once: standard input (`-`) is copied to a
/// temporary file, read in its place (the file goes when the value is dropped); any other
/// path is read as it is (`None`).
pub fn spool_stdin(path: &Path) -> Result<Option<tempfile::NamedTempFile>> {
    if path.as_os_str() != "-" {
        return Ok(None);
    }
    let mut spool = tempfile::NamedTempFile::new()?;
    std::io::copy(&mut std::io::stdin().lock(), &mut spool)?;
    Ok(Some(spool))
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

/// A log that is corrupt or refused: `main` prints it and exits 1.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Rejected(pub String);

/// Scans a log for a command that needs a readable log: a corrupt or refused log is a
/// [`Rejected`] error naming the rule; a torn tail is reported on standard error and
/// left out of the replay, as DSH does. The log at `path` is named `shown` in messages
/// (standard input spooled to a temporary file is still `-` to the user).
pub fn scan_readable_as(
    path: &Path,
    shown: &Path,
    options: &ScanOptions,
    views: &mut [&mut dyn View],
) -> Result<Report> {
    let report =
        scan::scan_path_with(path, options, views).with_context(|| shown.display().to_string())?;
    readable(report, shown)
}

/// A finished scan's report, if its log can be read (not corrupt or refused: otherwise a
/// [`Rejected`] error naming `shown`); a torn tail left out is said on standard error.
///
/// # Errors
/// The log is corrupt or refused.
pub fn readable(report: Report, shown: &Path) -> Result<Report> {
    let path = shown;
    if let (Status::Foreign, Some(f)) = (report.status, &report.finding) {
        // One verdict, the same in every command: what the file is, not a rule broken.
        return Err(Rejected(format!("{}: {}", path.display(), f.message)).into());
    }
    if let (Status::Refused, Some(f)) = (report.status, &report.finding)
        && f.rule.is_edge()
    {
        // Intact, and read as DSH 0.1.1 loads it: the command goes on, and says what the
        // later DSH does with the log.
        stderr!(
            "dsh-session: {}: warning: refused {f}; shown whole, as DSH 0.1.1 loads it",
            path.display()
        );
    } else if let (Status::Corrupt | Status::Refused, Some(f)) = (report.status, &report.finding) {
        return Err(Rejected(format!("{}: {} {f}", path.display(), report.status.name())).into());
    }
    if let Some(torn) = &report.torn {
        let name = path.display();
        match torn.counted() {
            Some((lines, events)) => stderr!(
                "dsh-session: {name}: warning: torn tail ({}) from line {}: {} and {} after byte offset {} are left out",
                torn.rule,
                torn.line,
                count(lines, "line"),
                count(events, "event"),
                torn.offset
            ),
            None => stderr!(
                "dsh-session: {name}: warning: torn tail ({}) from line {}: the {} after byte offset {} are left out; {}",
                torn.rule,
                torn.line,
                count(torn.bytes, "byte"),
                torn.offset,
                torn.uncounted()
            ),
        }
    }
    Ok(report)
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
