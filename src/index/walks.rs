//! The directory walks of an update ([`walk_dir`]), kept in the index (`walks`) so that the
//! walk of a tree in which nothing was added, removed or renamed costs one `stat` of each of
//! its directories instead of listing them all: on a root of 10,000 session directories,
//! 10,000 `stat` calls instead of 50,000 calls to open, list and close them. Every `stat`
//! is taken below the root's open directory ([`Below`]), on every core.
//!
//! A kept walk holds while every directory it listed has the same inode, size,
//! modification and change time, and so has every file it judged by its first bytes (a
//! store, a log under a name of its own). A walk is not kept when it failed somewhere, when
//! a path below the root is not UTF-8 or holds a tab or a line break, or when something in
//! it changed less than [`RACY_NS`] before the walk began: a file system's clock ticks
//! coarsely, so a directory changed twice within one tick, once before the walk and once
//! after, would show the same time (what git calls a racily clean entry).

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rusqlite::OptionalExtension;

use super::{Index, IndexError};
use crate::load::layout::{DirWalk, walk_dir};
use crate::load::stat::{Below, Stat};

/// How long before a walk began a change must be for the walk to be kept, in ns.
pub const RACY_NS: i64 = 2_000_000_000;

/// What tells that a directory or a judged file changed: its [`Stat`] and change time (ns).
type Stamp = (Stat, i64);

/// A log or store a walk found, and its stat (or why there is none).
pub(super) type Found = (PathBuf, std::io::Result<Stat>);

/// A walk as the index keeps it, paths relative to its root, borrowed from the walk or
/// from the text it was kept as (on 10,000 sessions, 20,000 paths not copied).
struct Kept<'a> {
    found: Vec<&'a str>,
    skipped: Vec<&'a str>,
    stamped: Vec<(&'a str, Stamp)>,
}

impl<'a> Kept<'a> {
    /// Whether nothing it depends on changed.
    fn holds(&self, below: &Below) -> bool {
        self.stamped
            .par_iter()
            .all(|(rel, stamp)| below.stat(rel).ok().as_ref() == Some(stamp))
    }

    /// One line per entry: `t` lines (the stamp of a directory listed or a file judged:
    /// inode, size, mtime, ctime, path), `f` lines (found), `s` lines (passed over).
    fn encode(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        for (rel, (s, ctime_ns)) in &self.stamped {
            let _ = writeln!(
                out,
                "t\t{}\t{}\t{}\t{ctime_ns}\t{rel}",
                s.inode, s.size, s.mtime_ns
            );
        }
        for rel in &self.found {
            let _ = writeln!(out, "f\t{rel}");
        }
        for line in &self.skipped {
            let _ = writeln!(out, "s\t{line}");
        }
        out
    }

    /// The walk written by [`Kept::encode`]; `None` for anything else.
    fn decode(text: &'a str) -> Option<Kept<'a>> {
        let mut kept = Kept {
            found: Vec::new(),
            skipped: Vec::new(),
            stamped: Vec::new(),
        };
        for line in text.lines() {
            let (kind, rest) = line.split_once('\t')?;
            match kind {
                "t" => {
                    let mut fields = rest.splitn(5, '\t');
                    let mut number = || fields.next()?.parse::<i64>().ok();
                    let stat = Stat {
                        inode: number()? as u64,
                        size: number()? as u64,
                        mtime_ns: number()?,
                    };
                    let ctime_ns = number()?;
                    kept.stamped.push((fields.next()?, (stat, ctime_ns)));
                }
                "f" => kept.found.push(rest),
                "s" => kept.skipped.push(rest),
                _ => return None,
            }
        }
        Some(kept)
    }

    /// `walk`, relative to `root` and with its stamps, if it is one to keep.
    fn of(walk: &'a DirWalk, root: &Path, below: &Below, started_ns: i64) -> Option<Kept<'a>> {
        if walk.failed || walk.skipped.iter().any(|l| l.contains(['\n', '\r'])) {
            return None;
        }
        let rel = |p: &'a PathBuf| -> Option<&'a str> {
            let r = p.strip_prefix(root).ok()?.to_str()?;
            (!r.contains(['\t', '\n', '\r'])).then_some(r)
        };
        let stamped = walk
            .dirs
            .par_iter()
            .chain(walk.judged.par_iter())
            .map(|path| {
                let rel = rel(path)?;
                let (stat, ctime_ns) = below.stat(rel).ok()?;
                let racy = stat.mtime_ns.max(ctime_ns) > started_ns.saturating_sub(RACY_NS);
                (!racy).then_some((rel, (stat, ctime_ns)))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Kept {
            found: walk.found.iter().map(rel).collect::<Option<_>>()?,
            skipped: walk.skipped.iter().map(String::as_str).collect(),
            stamped,
        })
    }
}

/// A root's walk as the index keeps it, read before anything is stat'ed
/// ([`Index::stored_walk`]).
pub(super) struct Stored {
    /// The walk kept, packed, when one was (unpacked by [`look`], beside what reads the
    /// index).
    packed: Option<Vec<u8>>,
    /// Whether the index holds a row for the root (to drop when no new walk is kept).
    row: bool,
}

/// What a directory holds ([`look`]): the logs and stores under it, each with its stat (or
/// why there is none), and what was passed over, as [`walk_dir`] gives them.
pub(super) struct Looked {
    /// The logs and stores found.
    pub found: Vec<Found>,
    /// What was passed over, one line each.
    pub skipped: Vec<String>,
    /// Whether the walk kept in the index held (nothing walked).
    pub kept: bool,
    /// A new walk to keep, packed, when one was taken and can be kept.
    keep: Option<Vec<u8>>,
    /// Whether the index holds a row for the root.
    row: bool,
}

impl Index {
    /// The walk of directory `root` kept in the index, for [`look`].
    ///
    /// # Errors
    /// SQLite errors.
    pub(super) fn stored_walk(&self, root: &Path) -> Result<Stored, IndexError> {
        let key = root.to_string_lossy();
        let text: Option<Option<Vec<u8>>> = self
            .conn
            .prepare_cached("SELECT walk FROM walks WHERE root = ?1")
            .and_then(|mut stmt| {
                stmt.query_row([key.as_ref()], |r| {
                    Ok(r.get_ref(0)?.as_blob().ok().map(<[u8]>::to_vec))
                })
                .optional()
            })
            .map_err(|e| self.error(e))?;
        Ok(Stored {
            row: text.is_some(),
            packed: text.flatten(),
        })
    }

    /// Keeps the new walk [`look`] took for next time, or drops the stale one: best effort,
    /// since the walk is only a shortcut (an index file that cannot be written, or another
    /// process writing it, loses the shortcut, not the update).
    pub(super) fn keep_walk(&self, root: &Path, looked: &Looked) {
        let key = root.to_string_lossy();
        let _ = match &looked.keep {
            // zstd: on 10,000 sessions the walk is about 700 KB of text, 110 KB packed.
            Some(packed) => self.conn.execute(
                "INSERT OR REPLACE INTO walks (root, walk) VALUES (?1, ?2)",
                rusqlite::params![key.as_ref(), packed],
            ),
            None if looked.row && !looked.kept => self
                .conn
                .execute("DELETE FROM walks WHERE root = ?1", [key.as_ref()]),
            None => Ok(0),
        };
    }
}

/// The logs and stores under directory `root`: from the walk kept in the index when it
/// still holds, else from a new walk, packed in [`Looked`] for [`Index::keep_walk`] when
/// it can be kept. Reads the file system only (no SQLite), so that it can run beside
/// what reads the index.
pub(super) fn look(root: &Path, stored: Stored) -> Looked {
    let below = Below::open(root);
    // A walk that does not read back (damaged) is walked again.
    let text = stored
        .packed
        .and_then(|packed| zstd::stream::decode_all(packed.as_slice()).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok());
    let kept = text.as_deref().and_then(Kept::decode);
    if let Some(kept) = kept
        && kept.holds(&below)
    {
        let found = kept
            .found
            .par_iter()
            .map(|rel| {
                // `""`: the root itself, a session directory with no single log.
                let path = if rel.is_empty() {
                    root.to_path_buf()
                } else {
                    root.join(rel)
                };
                (path, below.stat(rel).map(|(stat, _)| stat))
            })
            .collect();
        return Looked {
            found,
            skipped: kept.skipped.into_iter().map(str::to_owned).collect(),
            kept: true,
            keep: None,
            row: stored.row,
        };
    }
    let started_ns = crate::load::stat::ns_since_epoch(std::time::SystemTime::now());
    let walk = walk_dir(root);
    let keep = Kept::of(&walk, root, &below, started_ns)
        .and_then(|kept| zstd::bulk::compress(kept.encode().as_bytes(), 3).ok());
    let found = walk
        .found
        .into_par_iter()
        .map(|path| {
            let stat = Stat::of_path(&path);
            (path, stat)
        })
        .collect();
    Looked {
        found,
        skipped: walk.skipped,
        kept: false,
        keep,
        row: stored.row,
    }
}
