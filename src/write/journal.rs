//! Repairs that append more than DSH's own two steps make durable through a journal
//! (`FILE.repair`), so that a crash at any point is completed by the next run to the same
//! bytes: zstd repairs (the recovered lines live only in the torn frame, FORMAT.md §5.4) and
//! plain repairs that append heals (a partial batch of heals would be planned again
//! differently).

use std::fs::{File, OpenOptions};
use std::hash::Hasher;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::load::Encoding;
use crate::load::sqlite::sidecar;
use crate::write::durable::{append, crash_point, sync_dir, truncate};
use crate::write::plan::{Journal, Plan, WriteError, fingerprint};

/// The first bytes of a journal (layout 2: the original length and tail hash added).
pub const JOURNAL_MAGIC: &[u8] = b"DSHREPAIR2\n";

/// The journal path of a log: `FILE.repair`.
pub fn journal_path(path: &Path) -> PathBuf {
    sidecar(path, ".repair")
}

/// The journal of the log at `path`, when an interrupted repair left one.
///
/// # Errors
/// [`WriteError::Changed`] when `FILE.repair` is not a journal of ours; reading it.
pub fn read_journal(path: &Path) -> Result<Option<Journal>, WriteError> {
    let journal = journal_path(path);
    let bytes = match std::fs::read(&journal) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let header = JOURNAL_MAGIC.len() + 24;
    if bytes.len() < header || !bytes.starts_with(JOURNAL_MAGIC) {
        return Err(WriteError::Changed(format!(
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
    /// A plan that completes `journal`, the interrupted repair of the log at `path` (plain
    /// or zstd JSONL).
    ///
    /// # Errors
    /// [`WriteError::Changed`] when the log is shorter than the journal's cut; reading the
    /// file.
    pub fn resuming(path: &Path, journal: Journal) -> Result<Plan, WriteError> {
        let size = std::fs::metadata(path)?.len();
        if size < journal.offset {
            return Err(WriteError::Changed(format!(
                "the journal {} cuts at byte {} but the log has {size} bytes",
                journal_path(path).display(),
                journal.offset
            )));
        }
        Ok(Plan {
            path: path.to_path_buf(),
            session: None,
            encoding: journaled_encoding(path)?,
            cut_at: None,
            closers: Vec::new(),
            heals: Vec::new(),
            recovered: Vec::new(),
            backup: None,
            fingerprint: fingerprint(path, journal.offset)?,
            row_set: None,
            resume: Some(journal),
        })
    }
}

/// The encoding of a log with a journal (plain or zstd JSONL), from its first bytes.
fn journaled_encoding(path: &Path) -> io::Result<Encoding> {
    let mut head = [0u8; 16];
    let n = File::open(path)?.read(&mut head)?;
    Ok(Encoding::detect(&head[..n], path))
}

/// Applies a plan through a journal: write `FILE.repair` (cut offset + the bytes to
/// append), fsync, then truncate, append, and remove the journal. A crash anywhere is
/// completed by the next run to the same bytes. `frame` is what to append (a zstd frame,
/// or plain JSONL lines when a plain repair appends heals); with `plan.resume`, the
/// interrupted journal is completed instead and `frame` is not read.
pub fn apply_journaled(plan: &Plan, frame: &[u8]) -> Result<(), WriteError> {
    let journal = match &plan.resume {
        Some(j) => j.clone(),
        None => {
            let journal = Journal {
                offset: plan.cut_at.unwrap_or(plan.fingerprint.size),
                frame: frame.to_vec(),
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
        return Err(WriteError::Changed(format!(
            "the log no longer matches the interrupted repair recorded in {}; check the log, then move the journal away",
            journal_path(&plan.path).display()
        )));
    }
    if !done {
        let file = if size != journal.offset {
            truncate(&plan.path, journal.offset)?
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
