//! Repairs that append more than DSH's own two steps make durable through a journal
//! (`FILE.repair`), so that a crash at any point is completed by the next run to the same
//! bytes: zstd repairs (the recovered lines live only in the torn frame, FORMAT.md §5.4) and
//! plain repairs that append heals (a partial batch of heals would be planned again
//! differently).

use std::fs::{File, OpenOptions};
use std::hash::Hasher;
use std::io::{Read, Seek, SeekFrom, Write};

use crate::write::durable::{append, crash_point, sync_dir, truncate};
use crate::write::plan::{JOURNAL_MAGIC, Journal, Plan, RepairError, journal_path};

/// Applies a plan through a journal: write `FILE.repair` (cut offset + the bytes to
/// append), fsync, then truncate, append, and remove the journal. A crash anywhere is
/// completed by the next run to the same bytes. `frame` is what to append (a zstd frame,
/// or plain JSONL lines when a plain repair appends heals); with `plan.resume`, the
/// interrupted journal is completed instead and `frame` is not read.
pub fn apply_journaled(plan: &Plan, frame: &[u8]) -> Result<(), RepairError> {
    let journal = match &plan.resume {
        Some(j) => j.clone(),
        None => {
            let journal = Journal {
                offset: plan
                    .cut
                    .as_ref()
                    .map_or(plan.fingerprint.size, |t| t.offset),
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
