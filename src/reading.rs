//! How every front end (the commands, the TUI, the MCP server) reads a log for a person:
//! which file a session directory stands for, standard input kept for a second read, and
//! the readable-log policy — a corrupt or refused log is a [`Rejected`] error naming the
//! rule, a torn tail is said on standard error and left out, as DSH does (FORMAT.md §5).
//! The reading itself is the library's ([`dsh_session::scan`]); this is its wording.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use dsh_session::scan::{self, Report, ScanError, ScanOptions, Status};
use dsh_session::view::View;
use dsh_session::view::message_at::{self, NoMessage, OneMessage};
use dsh_session::wording::count;

use crate::render::messages::kept_context;

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

/// The message the event `seq` of the log at `file` derives (of `session` in a store), on
/// the surface or shadowed by a replace: what `messages --seq` and `show --seq` print
/// ([`message_at::find`]).
///
/// # Errors
/// The log cannot be read, or is corrupt or refused ([`Rejected`]); `seq` is no event of
/// the log, or an event that derives no message (a usage error naming the seq).
pub fn one_message(file: &std::path::Path, session: Option<&str>, seq: u64) -> Result<OneMessage> {
    let options = ScanOptions {
        session: session.map(str::to_owned),
        ..ScanOptions::default()
    };
    let mut keep = message_at::KEEP;
    let spooled = spool_stdin(file)?;
    let path = spooled.as_ref().map_or(file, |s| s.path());
    let report = scan_readable_as(path, file, &options, &mut [&mut keep])?;
    let name = file.display();
    match message_at::find(&report, seq) {
        Ok(one) => Ok(one),
        Err(NoMessage::NotAnEntry { events, .. }) => bail!(
            "{name}: seq {seq} derives no message (the log's events are seqs 0 to {}; `dsh-session surface {name} --all` lists those that do)",
            events.saturating_sub(1)
        ),
        Err(e @ NoMessage::Derives { .. }) => bail!("{name}: {e}"),
        Err(NoMessage::ReadBack(e)) => Err(anyhow::Error::new(e).context(kept_context(&name))),
    }
}

/// What `read` (a room's scan of a log: [`dsh_session::view::summary::scan`],
/// [`dsh_session::provenance::trace::scan_index`], …) gives of the log at `path`, if the log
/// is readable ([`readable`]; named `shown` in messages).
///
/// # Errors
/// The log cannot be read, or is corrupt or refused ([`Rejected`]).
pub fn read_readable<V>(
    path: &Path,
    shown: &Path,
    options: &ScanOptions,
    read: impl FnOnce(&Path, &ScanOptions) -> Result<(Report, V), ScanError>,
) -> Result<(Report, V)> {
    let (report, views) = read(path, options).with_context(|| shown.display().to_string())?;
    Ok((readable(report, shown)?, views))
}

/// How a front end words a failed trace of the log named `shown`
/// ([`dsh_session::provenance::trace::trace`]): a seq beyond the log in the trace's own
/// words, a read error under the log's name.
pub fn trace_error(shown: &Path, e: dsh_session::provenance::trace::TraceError) -> anyhow::Error {
    use dsh_session::provenance::trace::TraceError;
    let name = shown.display();
    match e {
        e @ TraceError::Beyond { .. } => anyhow::anyhow!("{name}: {e}"),
        TraceError::Scan(e) => anyhow::Error::new(e).context(name.to_string()),
    }
}
