//! Making a repair durable: the only code in dsh-session that writes (FORMAT.md §5.4).
//!
//! A repair is planned from a scan that already checked "stored events + closers"
//! (`ScanOptions::append_closers`), then applied per backend:
//!
//! * plain JSONL: truncate to the end of the last good line, fsync; append the closer
//!   lines in one write, fsync;
//! * zstd JSONL: truncate to the start of the torn frame, fsync; append one checksummed
//!   frame holding the lines recovered from the torn frame and the closers, fsync;
//! * SQLite: one `BEGIN IMMEDIATE` transaction that re-checks the schema and the row set,
//!   deletes the torn rows, inserts the closers and bumps `revision` (schema 17).
//!
//! Safety: nothing is written unless the scan found no corruption and no refusal; a
//! backup of the original is made first (fsynced, named `FILE.bak.<UTC timestamp>`);
//! size, mtime and a hash of the region to cut are re-checked right before writing, so a
//! live writer's appends are never overwritten. Each step is fsynced (file, then its
//! directory), and a crash between steps leaves a log that a second repair completes to
//! the same bytes: after the truncation the log has no torn tail and the same open turn,
//! and a half-written append is itself a torn tail.

use std::fs::{File, OpenOptions};
use std::hash::Hasher;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::load::Encoding;
use crate::load::sqlite::sidecar;
use crate::rules::Finding;
use crate::scan::{self, Report, ScanOptions, Status, TornTail};

/// Environment variable that makes a repair stop right after the named step, for tests
/// that prove a crash at any point is recoverable: `backup`, `truncate`, `append-half`,
/// `append`, `transaction` (SQLite: before `COMMIT`).
pub const CRASH_HOOK: &str = "DSH_SESSION_REPAIR_CRASH_AFTER";

/// Exit code of a process stopped by [`CRASH_HOOK`].
pub const CRASH_EXIT: i32 = 75;

/// What a repair would do or did.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The log.
    pub path: PathBuf,
    /// The session, for a SQLite store.
    pub session: Option<String>,
    /// The encoding.
    pub encoding: Encoding,
    /// The torn tail to cut, if any.
    pub cut: Option<TornTail>,
    /// Closer records to append, one compact JSON object each.
    pub closers: Vec<String>,
    /// zstd only: lines of the torn frame written again in the new frame.
    pub recovered: Vec<String>,
    /// Where the original was copied, once applied.
    pub backup: Option<PathBuf>,
    /// Size, mtime and hash of the region to rewrite, as scanned.
    fingerprint: Fingerprint,
    /// SQLite only: the session's row count, last seq and data length, as scanned.
    pub(crate) row_set: Option<crate::load::sqlite::RowSet>,
    /// zstd only: an interrupted repair's journal to complete instead of a new plan.
    pub resume: Option<Journal>,
    /// Provider findings the repaired history still has, and why DSH's closers leave them
    /// (PROVIDERS.md §3; empty when resuming a journal).
    pub stays: Vec<crate::repair::Staying>,
}

/// The journal a zstd repair writes before it truncates (`FILE.repair`): where the cut
/// is and the exact frame to append, so a crash at any later point is completed by the
/// next run to the same bytes. Layout: `DSHREPAIR1\n`, the cut offset (u64 LE), the frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal {
    /// Where the file is cut before the frame is appended.
    pub offset: u64,
    /// The log's size when the journal was written, and a hash of its bytes from `offset`
    /// to that size (the torn frame being cut): how a later run recognises the untouched
    /// original.
    pub original_len: u64,
    /// See `original_len`.
    pub original_tail_hash: u64,
    /// The frame to append.
    pub frame: Vec<u8>,
}

const JOURNAL_MAGIC: &[u8] = b"DSHREPAIR2\n";

/// The journal path of a log: `FILE.repair`.
pub fn journal_path(path: &Path) -> PathBuf {
    sidecar(path, ".repair")
}

fn read_journal(path: &Path) -> Result<Option<Journal>, RepairError> {
    let journal = journal_path(path);
    let bytes = match std::fs::read(&journal) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let header = JOURNAL_MAGIC.len() + 24;
    if bytes.len() < header || !bytes.starts_with(JOURNAL_MAGIC) {
        return Err(RepairError::Changed(format!(
            "{} is not a dsh-session repair journal; move it away",
            journal.display()
        )));
    }
    let word = |k: usize| {
        let at = JOURNAL_MAGIC.len() + 8 * k;
        u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
    };
    let (offset, original_len, original_tail_hash) = (word(0), word(1), word(2));
    Ok(Some(Journal {
        offset,
        original_len,
        original_tail_hash,
        frame: bytes[header..].to_vec(),
    }))
}

impl Plan {
    /// True when there is nothing to cut, nothing to append and no journal to complete.
    pub fn is_empty(&self) -> bool {
        self.cut.is_none() && self.closers.is_empty() && self.resume.is_none()
    }
}

/// Why a repair did not happen.
#[derive(Debug, thiserror::Error)]
pub enum RepairError {
    /// The log is corrupt or refused: repair would guess; nothing was written.
    #[error("{status} {finding}; nothing was written")]
    Refused {
        /// `corrupt` or `refused`.
        status: &'static str,
        /// The finding, as `validate` reports it.
        finding: Finding,
    },
    /// The log changed between the scan and the write (a live writer?).
    #[error("the log changed since it was scanned ({0}); is DSH writing it? nothing was written")]
    Changed(String),
    /// Reading or scanning failed.
    #[error(transparent)]
    Scan(#[from] scan::ScanError),
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// SQLite failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Fingerprint {
    size: u64,
    modified: Option<SystemTime>,
    tail_from: u64,
    tail_hash: u64,
}

fn fingerprint(path: &Path, tail_from: u64) -> io::Result<Fingerprint> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    let size = meta.len();
    file.seek(SeekFrom::Start(tail_from.min(size)))?;
    let mut hasher = std::hash::DefaultHasher::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.write(&buf[..n]);
    }
    Ok(Fingerprint {
        size,
        modified: meta.modified().ok(),
        tail_from,
        tail_hash: hasher.finish(),
    })
}

/// Scans the log and plans its repair.
///
/// # Errors
/// [`RepairError::Refused`] for a corrupt or refused log (including one whose closers
/// would not validate); scan errors.
pub fn plan(path: &Path, session: Option<&str>) -> Result<Plan, RepairError> {
    if let Some(journal) = read_journal(path)? {
        let size = std::fs::metadata(path)?.len();
        if size < journal.offset {
            return Err(RepairError::Changed(format!(
                "the journal {} cuts at byte {} but the log has {size} bytes",
                journal_path(path).display(),
                journal.offset
            )));
        }
        return Ok(Plan {
            path: path.to_path_buf(),
            session: None,
            encoding: Encoding::Zstd,
            cut: None,
            closers: Vec::new(),
            recovered: Vec::new(),
            backup: None,
            fingerprint: fingerprint(path, journal.offset)?,
            row_set: None,
            resume: Some(journal),
            stays: Vec::new(),
        });
    }
    let options = ScanOptions {
        session: session.map(str::to_owned),
        append_closers: true,
        turn_rows: true,
        ..ScanOptions::default()
    };
    let report = scan::scan_path(path, &options)?;
    plan_from_report(path, report)
}

fn plan_from_report(path: &Path, report: Report) -> Result<Plan, RepairError> {
    if let (Status::Corrupt | Status::Refused, Some(finding)) =
        (report.status, report.finding.clone())
    {
        return Err(RepairError::Refused {
            status: report.status.name(),
            finding,
        });
    }
    let cut = report.torn.clone();
    let tail_from = match (&cut, report.encoding) {
        (_, Encoding::Sqlite) => 0,
        (Some(t), _) => t.offset,
        (None, _) => report.size.unwrap_or(0),
    };
    let recovered = match (&cut, report.encoding) {
        (Some(t), Encoding::Zstd) if t.recovered_lines > 0 => recovered_lines(path, t)?,
        _ => Vec::new(),
    };
    let row_set = match (&report.session, report.encoding) {
        (Some(session), Encoding::Sqlite) => Some(
            crate::load::sqlite::Store::open(path)
                .map_err(io::Error::other)?
                .row_set(session)?,
        ),
        _ => None,
    };
    let stored_events = report.stats.events - report.closers.len() as u64;
    let stays = crate::repair::staying(&report.warnings, &report.stats, stored_events);
    Ok(Plan {
        row_set,
        resume: None,
        stays,
        path: path.to_path_buf(),
        session: report.session.clone(),
        encoding: report.encoding,
        cut,
        closers: report.closers,
        recovered,
        backup: None,
        fingerprint: fingerprint(path, tail_from)?,
    })
}

fn recovered_lines(path: &Path, torn: &TornTail) -> io::Result<Vec<String>> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(torn.offset))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let plain = crate::load::decode_torn_frame(&bytes);
    Ok(plain
        .split(|b| *b == b'\n')
        .take(torn.recovered_lines as usize)
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect())
}

fn crash_point(step: &str) {
    if std::env::var(CRASH_HOOK).is_ok_and(|v| v == step) {
        std::process::exit(CRASH_EXIT);
    }
}

fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

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

/// Applies a plan. With `backup`, copies the original first.
///
/// # Errors
/// [`RepairError::Changed`] when the file changed since the scan; I/O and SQLite errors.
pub fn apply(plan: &mut Plan, backup: bool) -> Result<(), RepairError> {
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
        return Err(RepairError::Changed(what));
    }
    if backup {
        let to = backup_path(&plan.path);
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
        sync_dir(&to)?;
        plan.backup = Some(to);
    }
    crash_point("backup");
    match plan.encoding {
        Encoding::Plain => apply_plain(plan),
        Encoding::Zstd => apply_zstd(plan),
        Encoding::Sqlite => crate::load::sqlite::apply_repair(plan),
    }
}

fn truncate(plan: &Plan, at: u64) -> io::Result<File> {
    let file = OpenOptions::new().write(true).open(&plan.path)?;
    file.set_len(at)?;
    file.sync_all()?;
    sync_dir(&plan.path)?;
    crash_point("truncate");
    Ok(file)
}

fn append(mut file: File, bytes: &[u8], path: &Path) -> io::Result<()> {
    file.seek(SeekFrom::End(0))?;
    if std::env::var(CRASH_HOOK).is_ok_and(|v| v == "append-half") {
        file.write_all(&bytes[..bytes.len() / 2])?;
        file.sync_all()?;
        crash_point("append-half");
    }
    file.write_all(bytes)?;
    file.sync_all()?;
    sync_dir(path)?;
    crash_point("append");
    Ok(())
}

fn apply_plain(plan: &Plan) -> Result<(), RepairError> {
    let file = match &plan.cut {
        Some(t) => truncate(plan, t.offset)?,
        None => OpenOptions::new().write(true).open(&plan.path)?,
    };
    if !plan.closers.is_empty() {
        let mut batch = plan.closers.join("\n");
        batch.push('\n');
        append(file, batch.as_bytes(), &plan.path)?;
    }
    Ok(())
}

/// zstd: the recovered lines of the torn frame are only in the torn frame, so the cut is
/// journaled first: write `FILE.repair` (cut offset + new frame), fsync, then truncate,
/// append, and remove the journal. A crash anywhere is completed by the next run.
fn apply_zstd(plan: &Plan) -> Result<(), RepairError> {
    let journal = match &plan.resume {
        Some(j) => j.clone(),
        None => {
            let mut plain = String::new();
            for line in plan.recovered.iter().chain(&plan.closers) {
                plain.push_str(line);
                plain.push('\n');
            }
            let journal = Journal {
                offset: plan
                    .cut
                    .as_ref()
                    .map_or(plan.fingerprint.size, |t| t.offset),
                frame: if plain.is_empty() {
                    Vec::new()
                } else {
                    zstd_frame(plain.as_bytes())?
                },
                original_len: plan.fingerprint.size,
                original_tail_hash: plan.fingerprint.tail_hash,
            };
            let mut bytes = JOURNAL_MAGIC.to_vec();
            for word in [
                journal.offset,
                journal.original_len,
                journal.original_tail_hash,
            ] {
                bytes.extend_from_slice(&word.to_le_bytes());
            }
            bytes.extend_from_slice(&journal.frame);
            let to = journal_path(&plan.path);
            let mut file = File::create(&to)?;
            file.write_all(&bytes)?;
            file.sync_all()?;
            sync_dir(&to)?;
            crash_point("journal");
            journal
        }
    };
    let mut current = File::open(&plan.path)?;
    let size = current.metadata()?.len();
    let mut tail = Vec::new();
    current.seek(SeekFrom::Start(journal.offset))?;
    current.read_to_end(&mut tail)?;
    // Where did the interrupted run stop? Only these states are completed; anything else
    // means the log changed since (DSH appended?) and is left alone.
    // An empty frame (a cut with nothing to append) is done only once the cut is made.
    let done = if journal.frame.is_empty() {
        tail.is_empty()
    } else {
        tail.starts_with(&journal.frame)
    };
    let partial_append = journal.frame.starts_with(&tail);
    // The hash is std's SipHash; a build from another Rust release may hash differently,
    // which can only make it refuse (never cut) an untouched log.
    let untouched = size == journal.original_len && {
        let mut h = std::hash::DefaultHasher::new();
        h.write(&tail);
        h.finish() == journal.original_tail_hash
    };
    if !(done || partial_append || untouched) {
        return Err(RepairError::Changed(format!(
            "the log no longer matches the interrupted repair recorded in {}; check the log, then move the journal away",
            journal_path(&plan.path).display()
        )));
    }
    if !done {
        let file = if size != journal.offset {
            truncate(plan, journal.offset)?
        } else {
            OpenOptions::new().write(true).open(&plan.path)?
        };
        if !journal.frame.is_empty() {
            append(file, &journal.frame, &plan.path)?;
        }
    }
    std::fs::remove_file(journal_path(&plan.path))?;
    sync_dir(&plan.path)?;
    Ok(())
}

/// One standard zstd frame with the content checksum, at the default level (§7.5).
pub fn zstd_frame(plain: &[u8]) -> io::Result<Vec<u8>> {
    let mut encoder = zstd::stream::Encoder::new(Vec::new(), zstd::DEFAULT_COMPRESSION_LEVEL)?;
    encoder.include_checksum(true)?;
    encoder.include_contentsize(true)?;
    encoder.set_pledged_src_size(Some(plain.len() as u64))?;
    encoder.write_all(plain)?;
    encoder.finish()
}
