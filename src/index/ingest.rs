//! Reading one log or store for the index, on a worker thread: the scan with the views the
//! index keeps ([`MessageRows`] and [`Stats`]), whole, or taken up from where the last one
//! stopped ([`crate::scan::resume`]) when the log only grew.

use std::io::{Read as _, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::edge::{DshLine, Judge};
use crate::header::Header;
use crate::load::ProgressFn;
use crate::load::sqlite::{Store, StoreError};
use crate::saved::fnv1a;
use crate::scan::resume::{Saved, scan_resuming, scan_saving};
use crate::scan::{Report, ScanOptions, Status};
use crate::view::message_rows::{MessageRow, MessageRows};
use crate::view::stats::Stats;

use super::TAIL_BYTES;
pub(super) use crate::load::stat::Stat;

/// A file's row as the update found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Known {
    pub id: i64,
    pub stat: Stat,
    /// The DSH line whose verdicts the row holds (`files.judge`); `None` for a name this
    /// build does not know.
    pub judge: Option<DshLine>,
}

/// The `files` columns [`Known::from_row`] reads, in its order.
pub(super) const KNOWN_COLUMNS: &str = "id, size, mtime_ns, inode, judge";

impl Known {
    /// The [`KNOWN_COLUMNS`] of a row, from column `at` on.
    pub fn from_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Known> {
        let judge: String = r.get(at + 4)?;
        Ok(Known {
            id: r.get(at)?,
            stat: Stat {
                size: r.get::<_, i64>(at + 1)? as u64,
                mtime_ns: r.get(at + 2)?,
                inode: r.get::<_, i64>(at + 3)? as u64,
            },
            judge: [DshLine::Current, DshLine::V0_1_1]
                .into_iter()
                .find(|l| l.name() == judge),
        })
    }
}

/// One file to read.
pub(super) struct Job {
    pub path: PathBuf,
    pub stat: Stat,
    /// Its row when the update looked (the write goes ahead only if it is still so).
    pub base: Option<Known>,
    pub previous: Option<Previous>,
    /// The DSH line whose verdicts to index.
    pub judge: DshLine,
}

/// What the index kept of a log it may take up.
#[derive(Debug, Clone)]
pub(super) struct Previous {
    pub take_up: TakeUp,
    pub inode: u64,
}

/// Where an update takes a log up: the scan's state at the end of its last complete,
/// valid record, the turn open there, and FNV-1a of the [`TAIL_BYTES`] before it (a log
/// whose bytes there changed is read whole).
#[derive(Debug, Clone)]
pub(super) struct TakeUp {
    pub saved: Saved,
    pub turn: Option<i64>,
    pub tail_hash: u64,
}

/// One session as read.
#[derive(Debug)]
pub(super) struct SessionRead {
    pub header: Header,
    /// SQLite schema 17: the session's `revision`.
    pub revision: Option<i64>,
    pub status: &'static str,
    pub rule: Option<&'static str>,
    pub message: Option<String>,
    pub generation: Option<&'static str>,
    /// Events in the log (all of them, also when taken up).
    pub events: u64,
    /// The counts of the events read (when taken up: of the new events only).
    pub stats: Stats,
    pub rows: Vec<MessageRow>,
    pub calls: Vec<(String, String)>,
}

/// A file as read.
#[derive(Debug)]
pub(super) struct FileRead {
    pub encoding: &'static str,
    /// Only the lines after the last indexed byte were read: the rows add to those kept.
    pub resumed: bool,
    pub sessions: Vec<SessionRead>,
    /// Where a later update takes it up (plain JSONL that ended in a complete, valid
    /// record).
    pub take_up: Option<TakeUp>,
    /// Why the file could not be read, or its store was refused.
    pub error: Option<String>,
}

impl FileRead {
    fn failed(encoding: &'static str, error: String) -> FileRead {
        FileRead {
            encoding,
            resumed: false,
            sessions: Vec::new(),
            take_up: None,
            error: Some(error),
        }
    }
}

/// The scan options of the index: its verdicts are those of `line` (`validate`'s with the
/// same `--dsh`). A log only the frozen edges refuse is read on as DSH 0.1.1 loads it (the
/// scan folds it whole), so its messages are indexed as the read commands show them.
fn options(progress: Option<ProgressFn>, session: Option<String>, line: DshLine) -> ScanOptions {
    ScanOptions {
        progress,
        session,
        dsh: Judge {
            line,
            both_lines: false,
        },
        ..ScanOptions::default()
    }
}

/// Reads the file at `path` (`stat` as seen when planning), judged as `line` judges,
/// taking up `previous` when the file only grew since (and `line` saved it: a state of
/// another judge is not taken up, the file is read whole).
pub(super) fn read(
    path: &Path,
    stat: Stat,
    previous: Option<&Previous>,
    line: DshLine,
    progress: Option<ProgressFn>,
) -> FileRead {
    if crate::load::store_file::looks_like_store(path) {
        return read_store(path, line);
    }
    let encoding = match std::fs::File::open(path).and_then(|mut f| {
        let mut head = Vec::with_capacity(16);
        (&mut f).take(16).read_to_end(&mut head)?;
        Ok(crate::load::Encoding::detect(&head, path))
    }) {
        Ok(e) => e.name(),
        Err(e) => return FileRead::failed("none", crate::wording::io_error(&e)),
    };
    if let Some(prev) = previous.filter(|p| grew_only(path, stat, p)) {
        let mut rows = MessageRows::in_turn(prev.take_up.turn);
        let mut stats = Stats::default();
        match scan_resuming(
            path,
            &prev.take_up.saved,
            &options(progress.clone(), None, line),
            &mut [&mut rows, &mut stats],
        ) {
            Ok(Some((report, saved))) => {
                return jsonl_read(path, encoding, true, report, saved, rows, stats);
            }
            Ok(None) => {}
            Err(e) => return FileRead::failed(encoding, e.to_string()),
        }
    }
    let mut rows = MessageRows::default();
    let mut stats = Stats::default();
    match scan_saving(
        path,
        &options(progress, None, line),
        &mut [&mut rows, &mut stats],
    ) {
        Ok((report, saved)) => jsonl_read(path, encoding, false, report, saved, rows, stats),
        Err(e) => FileRead::failed(encoding, crate::wording::without_os_error(&e.to_string())),
    }
}

/// True when the file at `path` is the same file as before, longer, and ends its former
/// part with the bytes indexed then (their hash).
fn grew_only(path: &Path, stat: Stat, prev: &Previous) -> bool {
    let offset = prev.take_up.saved.offset();
    stat.inode == prev.inode
        && stat.size > offset
        && tail_hash(path, offset) == Some(prev.take_up.tail_hash)
}

/// FNV-1a of the [`TAIL_BYTES`] of the file at `path` that end at `end`.
pub(super) fn tail_hash(path: &Path, end: u64) -> Option<u64> {
    let start = end.saturating_sub(TAIL_BYTES);
    let mut file = std::fs::File::open(path).ok()?;
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::with_capacity((end - start) as usize);
    file.take(end - start).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 == end - start).then(|| fnv1a(&bytes))
}

fn jsonl_read(
    path: &Path,
    encoding: &'static str,
    resumed: bool,
    report: Report,
    saved: Option<Saved>,
    rows: MessageRows,
    stats: Stats,
) -> FileRead {
    let turn = rows.turn();
    let take_up = saved.and_then(|saved| {
        let tail_hash = tail_hash(path, saved.offset())?;
        Some(TakeUp {
            saved,
            turn,
            tail_hash,
        })
    });
    FileRead {
        encoding,
        resumed,
        sessions: vec![session_read(report, None, rows, stats)],
        take_up,
        error: None,
    }
}

fn session_read(
    report: Report,
    revision: Option<i64>,
    rows: MessageRows,
    stats: Stats,
) -> SessionRead {
    let (rule, message) = match (&report.finding, &report.torn) {
        (Some(f), _) => (Some(f.rule.id()), Some(f.message.clone())),
        (None, Some(t)) => (Some(t.rule.id()), Some(t.message.clone())),
        (None, None) => (None, None),
    };
    SessionRead {
        header: report.header.clone().unwrap_or_default(),
        revision,
        status: report.status.name(),
        rule,
        message,
        generation: report.era.map(|e| e.name()),
        events: report.events,
        stats,
        rows: rows.rows,
        calls: rows.calls,
    }
}

/// Every session of a SQLite store, each scanned whole (a store is read again whole when
/// it changed).
fn read_store(path: &Path, line: DshLine) -> FileRead {
    let store = match Store::open(path) {
        Ok(store) => store,
        Err(StoreError::Refused(f)) => {
            return FileRead::failed("sqlite", format!("{} {f}", Status::Refused.name()));
        }
        Err(e) => return FileRead::failed("sqlite", e.to_string()),
    };
    let entries = match store.sessions() {
        Ok(entries) => entries,
        Err(e) => return FileRead::failed("sqlite", e.to_string()),
    };
    drop(store);
    let mut sessions = Vec::new();
    for (id, entry) in entries {
        let revision = entry.as_ref().ok().and_then(|s| s.revision);
        let mut rows = MessageRows::default();
        let mut stats = Stats::default();
        let scanned = crate::scan::scan_path_with(
            path,
            &options(None, Some(id.clone()), line),
            &mut [&mut rows, &mut stats],
        );
        match scanned {
            Ok(report) => sessions.push(session_read(report, revision, rows, stats)),
            Err(e) => {
                return FileRead::failed("sqlite", format!("session {id}: {e}"));
            }
        }
    }
    FileRead {
        encoding: "sqlite",
        resumed: false,
        sessions,
        take_up: None,
        error: None,
    }
}
