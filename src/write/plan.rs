//! What a repair will write, shared by the backends: the plan, the zstd journal, the
//! fingerprint re-checked before writing, and the errors (FORMAT.md §5.4).

use std::fs::File;
use std::hash::Hasher;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::load::Encoding;
use crate::load::sqlite::sidecar;
use crate::rules::Finding;
use crate::scan::{self, TornTail};

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
    pub(crate) fingerprint: Fingerprint,
    /// SQLite only: the session's row count, last seq and data length, as scanned.
    pub(crate) row_set: Option<crate::load::sqlite::RowSet>,
    /// zstd only: an interrupted repair's journal to complete instead of a new plan.
    pub resume: Option<Journal>,
    /// Provider findings the repaired history still has, and why DSH's closers leave them
    /// (PROVIDERS.md §3; empty when resuming a journal).
    pub stays: Vec<crate::repair::stays::Staying>,
    /// Heal records to append after the closers (`repair --provider`, [`crate::heal`]).
    pub heals: Vec<crate::heal::Heal>,
    /// Provider findings no heal fixes, and why.
    pub unhealed: Vec<crate::heal::Unhealed>,
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

pub const JOURNAL_MAGIC: &[u8] = b"DSHREPAIR2\n";

/// The journal path of a log: `FILE.repair`.
pub fn journal_path(path: &Path) -> PathBuf {
    sidecar(path, ".repair")
}

pub fn read_journal(path: &Path) -> Result<Option<Journal>, RepairError> {
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
        self.cut.is_none()
            && self.closers.is_empty()
            && self.heals.is_empty()
            && self.resume.is_none()
    }

    /// The records to append, in order: the closers, then the heals.
    pub fn appended(&self) -> impl Iterator<Item = &str> {
        (self.closers.iter().map(String::as_str))
            .chain(self.heals.iter().map(|h| h.record.as_str()))
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
    /// The healed log would not validate: a heal this build wrote wrongly. Nothing is
    /// written.
    #[error("the healed log would not validate ({0}); nothing was written (please report this)")]
    Heal(String),
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
pub struct Fingerprint {
    pub(crate) size: u64,
    pub(crate) modified: Option<SystemTime>,
    pub(crate) tail_from: u64,
    pub(crate) tail_hash: u64,
}

pub fn fingerprint(path: &Path, tail_from: u64) -> io::Result<Fingerprint> {
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
