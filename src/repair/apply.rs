//! A repair from plan to disk (`repair FILE`, [`super::run`]): what it did ([`Done`]), why
//! it did not write ([`ApplyError`]), and the check that the log and its directory can be
//! written before [`crate::write::apply`] is handed the plan ([`preflight`]).

use std::path::Path;

use super::RepairError;
use crate::load::Encoding;
use crate::wording::io_error;
use crate::write::{self, WriteError};

/// What a repair did with its plan (`repair --format json`, `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// Nothing to cut, append or complete.
    NothingToRepair,
    /// A dry run: the plan, not written.
    WouldRepair,
    /// The plan was written.
    Repaired,
}

impl Done {
    /// `nothing to repair`, `would repair`, `repaired`.
    pub fn name(self) -> &'static str {
        match self {
            Done::NothingToRepair => "nothing to repair",
            Done::WouldRepair => "would repair",
            Done::Repaired => "repaired",
        }
    }
}

/// Why a repair did not write.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// No plan ([`RepairError`]).
    #[error(transparent)]
    Plan(#[from] RepairError),
    /// The log changed since it was planned ([`WriteError::Changed`]): nothing was written.
    #[error(transparent)]
    Changed(WriteError),
    /// The log or its directory cannot be written, or the write stopped: one sentence
    /// naming the log, what was (not) written and the way out.
    #[error("{0}")]
    Stopped(String),
    /// Writing failed and no backup was made.
    #[error(transparent)]
    Write(WriteError),
}

/// Checks, before anything is written, that the repair can write what it will: the log
/// itself, and files beside it in its directory (the backup, the repair journal
/// `FILE.repair` of a zstd log or a plain log that heals, SQLite's rollback journal). A
/// read-only log or directory is then an error naming the path, with the way out, instead of
/// a backup left behind on every try.
///
/// # Errors
/// [`ApplyError::Stopped`]: the log cannot be opened for writing, or no file can be
/// created in its directory.
pub(super) fn preflight(plan: &write::Plan, backup: bool) -> Result<(), ApplyError> {
    let path = &plan.path;
    let way_out = "or copy the log to a directory you can write and repair the copy";
    if let Err(e) = std::fs::OpenOptions::new().write(true).open(path) {
        return Err(ApplyError::Stopped(format!(
            "{}: cannot repair: the log cannot be written ({}); nothing was written. Make it writable (`chmod u+w {}`), {way_out}",
            path.display(),
            io_error(&e),
            path.display()
        )));
    }
    let wal = |ext: &str| {
        let mut name = path.clone().into_os_string();
        name.push(ext);
        Path::new(&name).exists()
    };
    let mut beside = Vec::new();
    if backup {
        beside.push("the backup");
    }
    match plan.encoding {
        Encoding::Zstd => beside.push("the repair journal"),
        Encoding::Plain if !plan.heals.is_empty() || plan.resume.is_some() => {
            beside.push("the repair journal");
        }
        Encoding::Sqlite if !(wal("-wal") && wal("-shm")) => beside.push("SQLite's journal"),
        _ => {}
    }
    if beside.is_empty() {
        return Ok(());
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // A probe file, removed at once: the only test that holds under ACLs, read-only
    // mounts and root squashing alike.
    if let Err(e) = tempfile::Builder::new()
        .prefix(".dsh-session-probe")
        .tempfile_in(dir)
    {
        let no_backup = if beside == ["the backup"] {
            ", repair without a backup (`--no-backup`)"
        } else {
            ""
        };
        return Err(ApplyError::Stopped(format!(
            "{}: cannot repair: no file can be created in {} ({}), where {} goes; nothing was written. Make the directory writable (`chmod u+w {}`){no_backup}, {way_out}",
            path.display(),
            dir.display(),
            io_error(&e),
            beside.join(" and "),
            dir.display()
        )));
    }
    Ok(())
}
