//! Repairing a `.jsonl.zstd` log through a journal: cut the torn frame, append one
//! checksummed frame with the recovered lines and the closers (FORMAT.md §5.4, §7.5).

use std::fs::{File, OpenOptions};
use std::hash::Hasher;
use std::io::{self, Read, Seek, SeekFrom, Write};

use crate::write::durable::{append, crash_point, sync_dir, truncate};
use crate::write::plan::{JOURNAL_MAGIC, Journal, Plan, RepairError, journal_path};

/// zstd: the recovered lines of the torn frame are only in the torn frame, so the cut is
/// journaled first: write `FILE.repair` (cut offset + new frame), fsync, then truncate,
/// append, and remove the journal. A crash anywhere is completed by the next run.
pub fn apply_zstd(plan: &Plan) -> Result<(), RepairError> {
    let journal = match &plan.resume {
        Some(j) => j.clone(),
        None => {
            let mut plain = String::new();
            for line in plan
                .recovered
                .iter()
                .map(String::as_str)
                .chain(plan.appended())
            {
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
