//! What a writer applies, shared by the backends: the plan (where the log is cut, what is
//! appended after the cut), the fingerprint re-checked right before writing, and the errors
//! (FORMAT.md §5.4). A plan is made by [`crate::repair`]; this module only records what the
//! writer must check again.

use std::fs::File;
use std::hash::Hasher;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::load::Encoding;
use crate::load::sqlite::{RowSet, Store};

/// What a repair writes: a cut, the records to append after it, and what the writer checks
/// again before it touches the log.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The log.
    pub path: PathBuf,
    /// The session, for a SQLite store.
    pub session: Option<String>,
    /// The encoding.
    pub encoding: Encoding,
    /// Where the log is cut before anything is appended: a byte offset (zstd: the torn
    /// frame's start; SQLite: the seq of the first row deleted). `None`: nothing is cut.
    pub cut_at: Option<u64>,
    /// The closer records DSH appends on load, one compact JSON object each.
    pub closers: Vec<String>,
    /// Records appended after the closers (a provider heal), one compact JSON object each.
    pub heals: Vec<String>,
    /// zstd only: lines of the torn frame written again in the new frame.
    pub recovered: Vec<String>,
    /// Where the original was copied, once applied.
    pub backup: Option<PathBuf>,
    /// Size, mtime and hash of the region to rewrite, as planned.
    pub(crate) fingerprint: Fingerprint,
    /// SQLite only: the session's row count, last seq and data length, as planned.
    pub(crate) row_set: Option<RowSet>,
    /// An interrupted repair's journal to complete instead of a new cut and append.
    pub resume: Option<Journal>,
}

impl Plan {
    /// A plan for the log at `path` that cuts at `cut_at` and appends nothing yet. It takes
    /// the fingerprint of the log's bytes from `tail_from` on (for a SQLite session also the
    /// session's row set), which [`crate::write::apply`] checks again before writing.
    ///
    /// # Errors
    /// Reading the file or the store.
    pub fn new(
        path: &Path,
        session: Option<String>,
        encoding: Encoding,
        cut_at: Option<u64>,
        tail_from: u64,
    ) -> Result<Plan, WriteError> {
        let row_set = match (&session, encoding) {
            (Some(session), Encoding::Sqlite) => Some(
                Store::open(path)
                    .map_err(io::Error::other)?
                    .row_set(session)?,
            ),
            _ => None,
        };
        Ok(Plan {
            path: path.to_path_buf(),
            session,
            encoding,
            cut_at,
            closers: Vec::new(),
            heals: Vec::new(),
            recovered: Vec::new(),
            backup: None,
            fingerprint: fingerprint(path, tail_from)?,
            row_set,
            resume: None,
        })
    }

    /// True when there is nothing to cut, nothing to append and no journal to complete.
    pub fn is_empty(&self) -> bool {
        self.cut_at.is_none()
            && self.closers.is_empty()
            && self.heals.is_empty()
            && self.resume.is_none()
    }

    /// The records to append, in order: the closers, then the heals.
    pub fn appended(&self) -> impl Iterator<Item = &str> {
        (self.closers.iter().map(String::as_str)).chain(self.heals.iter().map(String::as_str))
    }
}

/// The journal a repair writes before it truncates (`FILE.repair`; zstd repairs, and plain
/// ones that append heals): where the cut is and the exact bytes to append, so a crash at
/// any later point is completed by the next run to the same bytes. Layout: `DSHREPAIR2\n`,
/// the cut offset, the original length and the tail hash (u64 LE each), then the bytes.
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

/// Why a plan was not written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The log changed between the plan and the write (a live writer?).
    #[error("the log changed since it was scanned ({0}); is DSH writing it? nothing was written")]
    Changed(String),
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// SQLite failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// A new session's path exists: it is never written over.
    #[error("{0} exists; an existing file is never written over")]
    Exists(PathBuf),
    /// A new session written does not load as read back from its path (a defect of the
    /// planner: the same text passed in memory); it was removed again
    /// ([`crate::write::new_session::publish_read_back`]).
    #[error("{}: {problem}; the file was removed again (please report this)", path.display())]
    NotLoaded {
        /// The file written and removed.
        path: PathBuf,
        /// What the reading DSH says of it.
        problem: String,
    },
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
