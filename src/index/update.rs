//! Bringing the index up to date for some paths ([`Index::update`]): which logs changed
//! (by their size, mtime and inode, without opening them), reading those on every core
//! ([`super::ingest`]), and writing what was read in batches, one transaction each.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

// foldhash, not SipHash: an update hashes every path of a root (10,000 on a large one),
// and the paths are the user's own, not an attacker's.
use hashbrown::HashMap;
use rayon::prelude::*;
use rusqlite::{OptionalExtension, params};

use super::ingest::{self, FileRead, Job, KNOWN_COLUMNS, Known, Previous, Stat, TakeUp};
use super::walks;
use super::writer::Writer;
use super::{Index, IndexError, under};
use crate::edge::DshLine;
use crate::scan::resume::Saved;

/// How far an update is: files and bytes read so far of those to read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Files read so far.
    pub files_done: u64,
    /// Files to read (changed or new).
    pub files: u64,
    /// Bytes read so far (for a log taken up, only its new bytes count).
    pub bytes_done: u64,
    /// Bytes to read.
    pub bytes: u64,
}

/// What [`Index::update`] takes besides the paths.
#[derive(Default)]
pub struct UpdateOptions<'a> {
    /// Called on the updating thread about ten times a second while files are read, and
    /// after each file is written.
    pub progress: Option<&'a dyn Fn(Progress)>,
}

/// What an update did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateSummary {
    /// Logs and stores found under the paths.
    pub files: u64,
    /// Found unchanged: not opened.
    pub unchanged: u64,
    /// Read for the first time.
    pub added: u64,
    /// Taken up from their last indexed byte (they only grew).
    pub grown: u64,
    /// Read again whole (changed otherwise, shrunk, replaced, or zstd and stores).
    pub read_again: u64,
    /// Gone from disk: dropped from the index.
    pub removed: u64,
    /// Changed in the index by another process while this one read them: left as that
    /// process wrote them.
    pub raced: u64,
    /// Logs that could not be read or stores that were refused, with why (they are in
    /// the index with the reason, and skipped next time while unchanged).
    pub unreadable: Vec<(PathBuf, String)>,
    /// What the directory walk passed over (frozen predecessors, logs under other names),
    /// one line each, as `validate` says it.
    pub passed_over: Vec<String>,
    /// Directories given in which no log or store was found, as given.
    pub empty_dirs: Vec<PathBuf>,
    /// Directories given whose walk, kept in the index, still held: not listed again, only
    /// each directory in them stat'ed ([`super::walks`]).
    pub walks_kept: u64,
    /// Message parts written.
    pub parts_written: u64,
}

/// What the file-system half of an update found for one input path.
enum OnDisk {
    /// A directory: its logs and stores, from the kept walk or a new one.
    Dir(walks::Looked),
    /// A log or store named itself, and its stat.
    File(std::io::Result<Stat>),
}

impl UpdateSummary {
    /// Whether the update changed what the index holds of the files (read some, dropped
    /// some, or found some written by another process meanwhile): an answer read from the
    /// index before the update is stale only then (the roots recorded and a kept walk do
    /// not change what a search finds).
    pub fn wrote(&self) -> bool {
        self.added + self.grown + self.read_again + self.removed + self.raced > 0
    }
}

impl Index {
    /// Brings the index up to date for `paths` (logs, stores, directories walked as
    /// `validate` walks them), records them as roots, and returns what it did. With no
    /// paths, the roots recorded so far are updated (a root gone from disk is dropped with
    /// everything under it).
    ///
    /// Verdicts are those of the DSH line `--dsh` chose for this process
    /// ([`DshLine::process_default`], as every scan's): a file the index holds as judged by
    /// the other line is read again whole, even when unchanged.
    ///
    /// # Errors
    /// A path that cannot be read ([`IndexError::Io`]); SQLite errors.
    pub fn update(
        &mut self,
        paths: &[PathBuf],
        options: &UpdateOptions<'_>,
    ) -> Result<UpdateSummary, IndexError> {
        self.update_with(paths, options, |_| ())
            .map(|(summary, ())| summary)
    }

    /// [`Index::update`], running `meanwhile` on the index as it was before the update
    /// while the file system is stat'ed (on the other cores), and returning its answer
    /// beside the summary. When the update wrote nothing ([`UpdateSummary::wrote`] is
    /// false) that answer is the same as one asked after it: a search asks its query so,
    /// and asks again only when the update changed the index.
    ///
    /// # Errors
    /// As [`Index::update`].
    pub fn update_with<T>(
        &mut self,
        paths: &[PathBuf],
        options: &UpdateOptions<'_>,
        meanwhile: impl FnOnce(&Index) -> T,
    ) -> Result<(UpdateSummary, T), IndexError> {
        let mut summary = UpdateSummary::default();
        // Each input absolute (the index keeps absolute paths), beside the path as given.
        let mut given = Vec::new();
        let mut inputs = Vec::new();
        let mut gone_roots = Vec::new();
        if paths.is_empty() {
            for root in self.roots()? {
                if root.exists() {
                    given.push(root.clone());
                    inputs.push(root);
                } else {
                    gone_roots.push(root);
                }
            }
        } else {
            for p in paths {
                let abs = std::fs::canonicalize(p).map_err(|source| IndexError::Io {
                    path: p.clone(),
                    source,
                })?;
                given.push(p.clone());
                inputs.push(abs);
            }
        }
        // Directories are walked as `discover` walks them, from the walk kept in the index
        // where it holds, each log with its stat: on another thread (and every core), while
        // this one reads what the index knows of the files under the inputs, and runs
        // `meanwhile`.
        let stored = inputs
            .iter()
            .map(|input| input.is_dir().then(|| self.stored_walk(input)).transpose())
            .collect::<Result<Vec<_>, _>>()?;
        let this = &*self;
        let (looked, known, answer) = std::thread::scope(|threads| {
            let inputs = &inputs;
            let looking = threads.spawn(move || {
                inputs
                    .iter()
                    .zip(stored)
                    .map(|(input, stored)| match stored {
                        Some(stored) => OnDisk::Dir(walks::look(input, stored)),
                        None => OnDisk::File(Stat::of_path(input)),
                    })
                    .collect::<Vec<_>>()
            });
            let mut known = HashMap::new();
            let known = inputs
                .iter()
                .chain(&gone_roots)
                .try_for_each(|input| this.known_under(input, &mut known))
                .map(|()| known);
            let answer = meanwhile(this);
            let looked = looking
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (looked, known, answer)
        });
        let mut known = known?;
        let mut found = Vec::new();
        // The directories given, as given beside their absolute paths, told by what was
        // found on disk for them (not by a second `stat`).
        let mut dirs = Vec::new();
        for ((input, as_given), looked) in inputs.iter().zip(&given).zip(looked) {
            match looked {
                OnDisk::Dir(looked) => {
                    dirs.push((input, as_given));
                    self.keep_walk(input, &looked);
                    summary.walks_kept += u64::from(looked.kept);
                    found.extend(looked.found);
                    summary.passed_over.extend(looked.skipped);
                }
                OnDisk::File(stat) => found.push((input.clone(), stat)),
            }
        }
        for (dir, as_given) in dirs {
            if !found.iter().any(|(f, _)| f.starts_with(dir)) {
                summary.empty_dirs.push(as_given.clone());
            }
        }
        summary.files = found.len() as u64;
        let judge = DshLine::process_default();
        let mut jobs = Vec::new();
        for (path, stat) in found {
            // Each file the index knows is marked found, by its path as the index keeps it.
            let base = known
                .get_mut(path.to_string_lossy().as_ref())
                .map(|(known, found)| {
                    *found = true;
                    *known
                });
            let stat = match stat {
                Ok(stat) => stat,
                Err(e) => {
                    summary
                        .unreadable
                        .push((path.clone(), crate::wording::io_error(&e)));
                    continue;
                }
            };
            // A file judged by another DSH line is read again whole for this one.
            if base.is_some_and(|k: Known| k.stat == stat && k.judge == Some(judge)) {
                summary.unchanged += 1;
                continue;
            }
            let previous = match base {
                Some(k) if k.stat.size < stat.size => self.previous(k.id)?,
                _ => None,
            };
            jobs.push(Job {
                path: path.clone(),
                stat,
                base,
                previous,
                judge,
            });
        }
        // Dropped: what is gone from disk, and what the walk of a directory no longer
        // takes (a frozen predecessor once a session moved to a later generation), unless
        // it was named itself (a log under another name, given as a path).
        let roots = self.roots()?;
        let removed: Vec<(String, Known)> = known
            .into_iter()
            .filter(|(path, (_, found))| {
                let p = Path::new(path);
                !found
                    && (!p.exists()
                        || !(roots.iter().any(|r| r == p) || inputs.iter().any(|i| i == p)))
            })
            .map(|(path, (known, _))| (path, known))
            .collect();
        // Paths given for the first time become roots (written with the rest).
        let mut new_roots = Vec::new();
        if !paths.is_empty() {
            new_roots.extend(inputs.iter().filter(|p| !roots.contains(p)).cloned());
        }
        let changes = Changes {
            removed: &removed,
            gone_roots: &gone_roots,
            new_roots: &new_roots,
        };
        if !jobs.is_empty() || !changes.is_empty() {
            self.run(jobs, &changes, options, &mut summary)?;
        }
        Ok((summary, answer))
    }

    /// Adds the rows of the files at or under `input` to `known`, by path, each marked not
    /// found yet.
    fn known_under(
        &self,
        input: &Path,
        known: &mut HashMap<String, (Known, bool)>,
    ) -> Result<(), IndexError> {
        let (exact, from, to) = under(input);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT path, {KNOWN_COLUMNS} FROM files WHERE path = ?1 OR (path > ?2 AND path < ?3)"
            ))
            .map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map(params![exact, from, to], |r| {
                Ok((r.get::<_, String>(0)?, (Known::from_row(r, 1)?, false)))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.error(e))?;
        known.extend(rows);
        Ok(())
    }

    /// What the index kept of file `id` to take it up, if anything.
    fn previous(&self, id: i64) -> Result<Option<Previous>, IndexError> {
        let row = self
            .conn
            .query_row(
                "SELECT resume, resume_turn, tail_hash, inode FROM files WHERE id = ?1 AND resume IS NOT NULL",
                [id],
                |r| {
                    Ok((
                        r.get::<_, Vec<u8>>(0)?,
                        r.get::<_, Option<i64>>(1)?,
                        r.get::<_, Option<i64>>(2)?,
                        r.get::<_, i64>(3)?,
                    ))
                },
            )
            .optional()
            .map_err(|e| self.error(e))?;
        Ok(row.and_then(|(blob, turn, hash, inode)| {
            Some(Previous {
                take_up: TakeUp {
                    saved: Saved::from_bytes(blob)?,
                    turn,
                    tail_hash: hash? as u64,
                },
                inode: inode as u64,
            })
        }))
    }

    /// Reads `jobs` on every core while this thread writes what they read and `changes`.
    fn run(
        &mut self,
        mut jobs: Vec<Job>,
        changes: &Changes<'_>,
        options: &UpdateOptions<'_>,
        summary: &mut UpdateSummary,
    ) -> Result<(), IndexError> {
        // The least recently modified first: rowids follow the order of writing, and a
        // search reads matches in rowid order from the newest (`search` module docs).
        jobs.sort_by_key(|j| (j.stat.mtime_ns, j.path.clone()));
        let total = Progress {
            files: jobs.len() as u64,
            bytes: jobs.iter().map(to_read).sum(),
            ..Progress::default()
        };
        let files_done = Arc::new(AtomicU64::new(0));
        let bytes_done = Arc::new(AtomicU64::new(0));
        let tell = || {
            if let Some(report) = options.progress {
                report(Progress {
                    files_done: files_done.load(Ordering::Relaxed),
                    bytes_done: bytes_done.load(Ordering::Relaxed).min(total.bytes),
                    ..total
                });
            }
        };
        tell();
        let path = self.path.clone();
        let sql = move |source: rusqlite::Error| {
            if source.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) {
                return IndexError::Busy(path.clone());
            }
            IndexError::Sqlite {
                path: path.clone(),
                source,
            }
        };
        let mut writer = Writer::begin(&self.conn).map_err(&sql)?;
        for (path, known) in changes.removed {
            if writer.remove(path, *known).map_err(&sql)? {
                summary.removed += 1;
            }
        }
        for root in changes.gone_roots {
            writer.forget_root(root).map_err(&sql)?;
        }
        for root in changes.new_roots {
            writer.add_root(root).map_err(&sql)?;
        }
        // A window's reads wait here while the next window is read.
        let (sender, received) = std::sync::mpsc::sync_channel::<(usize, FileRead)>(WINDOW_FILES);
        let jobs = &jobs;
        std::thread::scope(|threads| -> Result<(), IndexError> {
            let (files, bytes) = (Arc::clone(&files_done), Arc::clone(&bytes_done));
            threads.spawn(move || read_all(jobs, &files, &bytes, sender));
            loop {
                let (i, read) = match received.recv_timeout(Duration::from_millis(100)) {
                    Ok(next) => next,
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                        tell();
                        continue;
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                };
                let job = &jobs[i];
                if let Some(error) = &read.error {
                    summary.unreadable.push((job.path.clone(), error.clone()));
                }
                let kind = match (&job.base, read.resumed) {
                    (None, _) => &mut summary.added,
                    (Some(_), true) => &mut summary.grown,
                    (Some(_), false) => &mut summary.read_again,
                };
                match writer.apply(job, &read).map_err(&sql)? {
                    Some(parts) => {
                        *kind += 1;
                        summary.parts_written += parts;
                    }
                    None => summary.raced += 1,
                }
                writer.maybe_commit().map_err(&sql)?;
                tell();
            }
            Ok(())
        })?;
        writer.commit().map_err(&sql)?;
        Ok(())
    }
}

/// What an update writes besides the logs it read.
struct Changes<'a> {
    /// Files gone from disk, as the update found their rows.
    removed: &'a [(String, Known)],
    /// Roots gone from disk.
    gone_roots: &'a [PathBuf],
    /// Paths given for the first time.
    new_roots: &'a [PathBuf],
}

impl Changes<'_> {
    fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.gone_roots.is_empty() && self.new_roots.is_empty()
    }
}

/// Files read at once ([`read_all`]), and bytes: their rows wait in memory for the writer.
const WINDOW_FILES: usize = 256;
const WINDOW_BYTES: u64 = 256 << 20;

/// Reads `jobs` on the rayon pool (every core), a window of files at a time, and sends each
/// read with its job's index in the order of `jobs` (the writer writes in that order);
/// `files` and `bytes` count what was read so far. Stops early when the receiver is gone.
fn read_all(
    jobs: &[Job],
    files: &AtomicU64,
    bytes: &Arc<AtomicU64>,
    sender: std::sync::mpsc::SyncSender<(usize, FileRead)>,
) {
    let mut start = 0;
    while start < jobs.len() {
        let mut end = start;
        let mut size = 0;
        while end < jobs.len()
            && end - start < WINDOW_FILES
            && (end == start || size < WINDOW_BYTES)
        {
            size += to_read(&jobs[end]);
            end += 1;
        }
        let reads: Vec<FileRead> = jobs[start..end]
            .par_iter()
            .map(|job| read_one(job, files, bytes))
            .collect();
        for (i, read) in (start..end).zip(reads) {
            if sender.send((i, read)).is_err() {
                // The writer stopped on an error: nothing more to do.
                return;
            }
        }
        start = end;
    }
}

/// Reads one job's file, counting its bytes in `bytes` as they are read.
fn read_one(job: &Job, files: &AtomicU64, bytes: &Arc<AtomicU64>) -> FileRead {
    let start = job
        .previous
        .as_ref()
        .map_or(0, |p| p.take_up.saved.offset());
    // Bytes of this file counted so far (a log taken up starts at its offset).
    let counted = Arc::new(AtomicU64::new(start));
    let (total, mine) = (Arc::clone(bytes), Arc::clone(&counted));
    let progress: crate::load::ProgressFn = Arc::new(move |at: u64| {
        let before = mine.swap(at, Ordering::Relaxed);
        total.fetch_add(at.saturating_sub(before), Ordering::Relaxed);
    });
    let read = ingest::read(
        &job.path,
        job.stat,
        job.previous.as_ref(),
        job.judge,
        Some(progress),
    );
    // Whatever the scan told, the file counts whole once read.
    let rest = job
        .stat
        .size
        .saturating_sub(counted.load(Ordering::Relaxed));
    bytes.fetch_add(rest, Ordering::Relaxed);
    files.fetch_add(1, Ordering::Relaxed);
    read
}

/// Bytes a job reads: the new bytes of a log taken up, else the whole file.
fn to_read(job: &Job) -> u64 {
    let from = job
        .previous
        .as_ref()
        .map_or(0, |p| p.take_up.saved.offset());
    job.stat.size.saturating_sub(from)
}
