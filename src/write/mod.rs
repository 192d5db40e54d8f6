//! Making a repair durable: the only code in dsh-session that writes (FORMAT.md §5.4).
//!
//! A [`Plan`] comes from [`crate::repair`], which scanned the log, checked "stored events +
//! closers (+ heals)" in memory and decided what to cut and append; this module only applies
//! it, one backend per file ([`plain`], [`zstd_jsonl`], [`sqlite`]; shared: [`mod@plan`],
//! [`journal`], [`durable`]). It reads no event and imports neither the scan, the heals nor
//! the views. A recovery's new sessions are one more backend ([`new_session`]: published
//! beside nothing, never over an existing file). A repair:
//!
//! * plain JSONL: truncate to the end of the last good line, fsync; append the closer
//!   lines in one write, fsync;
//! * zstd JSONL: truncate to the start of the torn frame, fsync; append one checksummed
//!   frame holding the lines recovered from the torn frame and the closers, fsync;
//! * SQLite: one `BEGIN IMMEDIATE` transaction that re-checks the schema and the row set,
//!   deletes the torn rows, inserts the closers and bumps `revision` (schema 17).
//!
//! Safety: a backup of the original is made first (fsynced, named
//! `FILE.bak.<UTC timestamp>`); size, mtime and a hash of the region to cut are re-checked
//! right before writing, so a live writer's appends are never overwritten. Each step is
//! fsynced (file, then its directory), and a crash between steps leaves a log that a second
//! repair completes to the same bytes: after the truncation the log has no torn tail and
//! the same open turn, and a half-written append is itself a torn tail.

pub mod durable;
pub mod journal;
pub mod new_session;
pub mod plain;
pub mod plan;
pub mod site;
pub mod sqlite;
pub mod zstd_jsonl;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use durable::{CRASH_EXIT, CRASH_HOOK};
pub use journal::{journal_path, read_journal};
pub use plan::{Journal, Plan, WriteError};
pub use zstd_jsonl::zstd_frame;

use crate::load::Encoding;
use crate::load::sqlite::sidecar;
use durable::{crash_point, sync_dir};
use plan::fingerprint;

/// A name for the backup that does not exist yet: `FILE.bak.<YYYYMMDDTHHMMSSZ>`, with
/// `.1`, `.2` … appended when needed.
fn backup_path(path: &Path) -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now())
        .to_string()
        .replace(['-', ':'], "");
    let base = sidecar(path, &format!(".bak.{stamp}"));
    let mut candidate = base.clone();
    let mut n = 0;
    while candidate.exists() {
        n += 1;
        candidate = sidecar(&base, &format!(".{n}"));
    }
    candidate
}

/// Removes the backup [`apply`] made, after a failed write that left the log as it was.
/// A backup that cannot be removed is left as it is.
pub fn discard_backup(plan: &Plan) {
    if let Some(b) = &plan.backup {
        let _ = std::fs::remove_file(b);
    }
}

/// Applies a plan. With `backup`, copies the original first.
///
/// # Errors
/// [`WriteError::Changed`] when the file changed since the plan was made; I/O and SQLite
/// errors.
pub fn apply(plan: &mut Plan, backup: bool) -> Result<(), WriteError> {
    if plan.is_empty() {
        return Ok(());
    }
    let now = fingerprint(&plan.path, plan.fingerprint.tail_from)?;
    if now != plan.fingerprint {
        let what = if now.size != plan.fingerprint.size {
            format!("size {} → {}", plan.fingerprint.size, now.size)
        } else {
            "modification time or tail bytes differ".to_owned()
        };
        return Err(WriteError::Changed(what));
    }
    if backup {
        let to = backup_path(&plan.path);
        let made = || -> Result<(), WriteError> {
            if plan.encoding == Encoding::Sqlite {
                let conn = rusqlite::Connection::open_with_flags(
                    &plan.path,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
                )?;
                conn.backup(
                    rusqlite::MAIN_DB,
                    &to,
                    None::<fn(rusqlite::backup::Progress)>,
                )?;
            } else {
                std::fs::copy(&plan.path, &to)?;
            }
            File::open(&to)?.sync_all()?;
            Ok(sync_dir(&to)?)
        };
        // A backup that failed half way (a full disk) is not left behind.
        if let Err(e) = made() {
            let _ = std::fs::remove_file(&to);
            return Err(e);
        }
        plan.backup = Some(to);
    }
    crash_point("backup");
    match plan.encoding {
        // Heals in a plain log go through the journal, so that a crash in the middle of
        // the batch is completed to the same bytes (a partial batch would be planned again
        // differently); DSH's own two steps stay as DSH makes them.
        Encoding::Plain if plan.resume.is_some() => journal::apply_journaled(plan, &[]),
        Encoding::Plain if !plan.heals.is_empty() => {
            let mut batch: String = plan.appended().collect::<Vec<_>>().join("\n");
            batch.push('\n');
            journal::apply_journaled(plan, batch.as_bytes())
        }
        Encoding::Plain => plain::apply_plain(plan),
        Encoding::Zstd => zstd_jsonl::apply_zstd(plan),
        Encoding::Sqlite => sqlite::apply_repair(plan),
    }
}
