//! The search index (issue 28): a SQLite file that keeps, for every log and store it was
//! given, each session's header, verdict and counts and the text of every message on its
//! surface, so that `search`, `sessions ROOT`, and in-process callers (a TUI, an MCP
//! server) answer without reading the logs again.
//!
//! The index is derived data, never trusted over the logs: it is read only through the
//! same load → check → fold → views pipeline every command uses ([`crate::scan`], with the
//! [`crate::view::message_rows`] and [`crate::view::stats`] views), kept up to date by
//! [`Index::update`] before it answers, rebuilt when its schema version differs or SQLite
//! finds it damaged, and never holds anything a log does not say.
//!
//! Keeping up to date ([`Index::update`]): a log whose path, size, mtime and inode are
//! unchanged is skipped without being opened; a plain JSONL log that only grew is read from
//! the end of what was indexed ([`crate::scan::resume`]: O(new bytes)), after the hash of
//! the last [`TAIL_BYTES`] indexed bytes and the header line are found unchanged; a log
//! that shrank, was replaced or changed in place, a zstd log or a store that changed, is
//! read again whole; a removed one is dropped. Logs are read in parallel on every core and
//! written in batches, one transaction per batch. Two processes may update one index at
//! once: each writes a log's rows only if nobody changed that log's row since it looked.
//!
//! In process (a TUI, an MCP server): [`Index::open`] (or [`default_path`]), then
//! [`Index::update`] with a progress callback, [`Index::sessions`] with a
//! [`SessionFilter`], [`Index::search`] / [`Index::search_sessions`] with a [`Query`], and
//! [`Index::messages`] for a session's messages by seq range, in surface order
//! ([`Index::message_seqs`] lists them all without their texts, to page through). An
//! [`Index`] is one SQLite connection (`Send`, not `Sync`): open one per thread; any number
//! of them, in any number of processes, share the file (WAL).
//!
//! This module writes only its own index file (the cache), never a log.

mod expr;
mod ingest;
mod query;
mod schema;
mod search;
mod update;
mod walks;
mod writer;

use std::path::{Path, PathBuf};

use rusqlite::Connection;

pub use expr::{CJK_BUCKETS, grams};
pub use query::{
    MessagePart, MessageRow, MessageSeq, ModelUse, SessionFilter, SessionRef, SessionRow, Times,
    Tokens,
};
pub use schema::{PAGE_SIZE, SCHEMA_VERSION, TOKENIZER};
pub use search::{
    CANDIDATES, Field, Hit, LINEAGE_WEIGHT, PROJECT_WEIGHT, Query, SessionHits, Snippet,
    TITLE_WEIGHT, syntax_problem,
};
pub use update::{Progress, UpdateOptions, UpdateSummary};

/// Bytes at the end of a log's indexed part whose hash tells that a longer file only grew.
pub const TAIL_BYTES: u64 = 4096;

/// Why the index cannot answer.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// SQLite failed (not for damage: a damaged index is rebuilt). Shown as the path, then
    /// the cause.
    #[error("{}", .path.display())]
    Sqlite {
        /// The index file.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The file at the index path is a SQLite database that is not an index: it is never
    /// overwritten.
    #[error(
        "{}: is a SQLite database but not a dsh-session index; refusing to overwrite it (give another --index FILE)", .0.display()
    )]
    Foreign(PathBuf),
    /// A path to index cannot be read. Shown as the path, then the cause.
    #[error("{}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Another process has been writing the index for longer than the busy timeout (a
    /// minute): nothing was written; the index can still be read as it is.
    #[error(
        "{}: another dsh-session has been writing the index for over a minute", .0.display()
    )]
    Busy(PathBuf),
    /// A search query FTS5 cannot parse.
    #[error(
        "the query {query:?} cannot be read: {reason} (plain words need no quotes; a phrase is \"in double quotes\")"
    )]
    Query {
        /// The query as given.
        query: String,
        /// What is wrong, in the query's own words ([`syntax_problem`]) or SQLite's.
        reason: String,
    },
}

/// A search index opened for reading and updating.
pub struct Index {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").field("path", &self.path).finish()
    }
}

/// Where the index lives when no `--index` is given: `$DSH_SESSION_INDEX`, else
/// `index.db` in the platform's cache directory for `dsh-session`
/// (`$XDG_CACHE_HOME/dsh-session`, else `~/.cache/dsh-session` on Linux;
/// `~/Library/Caches/dsh-session` on macOS; `%LOCALAPPDATA%\dsh-session\cache` on Windows).
/// `None` when neither is known (no home directory).
pub fn default_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("DSH_SESSION_INDEX").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    directories::ProjectDirs::from("", "", "dsh-session").map(|d| d.cache_dir().join("index.db"))
}

impl Index {
    /// Opens the index at `path`, creating it (and its directory) when absent. An index of
    /// another schema version is rebuilt; an index SQLite finds damaged is removed and
    /// created again; a file that is not a database at all is moved to `PATH.damaged` and
    /// the index created: each with a note in the returned list (for standard error). A
    /// SQLite database that is not an index is refused.
    ///
    /// # Errors
    /// [`IndexError::Foreign`]; SQLite or I/O errors that are not damage.
    pub fn open(path: &Path) -> Result<(Index, Vec<String>), IndexError> {
        let mut notes = Vec::new();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| IndexError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        match Self::open_retrying(path, &mut notes) {
            Err(IndexError::Sqlite { source, .. }) if is_damage(&source) => {
                let what = crate::wording::without_os_error(&source.to_string());
                if written_by_us(path) {
                    notes.push(format!(
                        "{}: the index is damaged ({what}); rebuilding it from the logs",
                        path.display()
                    ));
                    remove_index_files(path)?;
                } else {
                    // Not recognisably an index: kept aside, never deleted.
                    let aside = sidecar(path, ".damaged");
                    std::fs::rename(path, &aside).map_err(|source| IndexError::Io {
                        path: path.to_path_buf(),
                        source,
                    })?;
                    remove_index_files(path)?;
                    notes.push(format!(
                        "{}: not a readable index ({what}); moved it to {} and rebuilding the index from the logs",
                        path.display(),
                        aside.display()
                    ));
                }
                Self::open_retrying(path, &mut notes).map(|index| (index, notes))
            }
            other => other.map(|index| (index, notes)),
        }
    }

    /// [`Index::open_as_is`], again while SQLite answers `SQLITE_BUSY` for up to a minute
    /// (as long as a writer is waited for). Two processes that open a new index at once
    /// race to create it and switch it to WAL: SQLite answers some steps of that race
    /// (a journal-mode change, a first read of a file another connection is switching)
    /// with `SQLITE_BUSY` at once, without the busy timeout; about one first open in twenty
    /// of two concurrent `search` runs did.
    fn open_retrying(path: &Path, notes: &mut Vec<String>) -> Result<Index, IndexError> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut pause = std::time::Duration::from_millis(5);
        loop {
            // An attempt's notes count only when it is the last.
            let mut said = Vec::new();
            match Self::open_as_is(path, &mut said) {
                Err(IndexError::Sqlite { source, .. })
                    if source.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                        && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(std::time::Duration::from_millis(200));
                }
                other => {
                    notes.extend(said);
                    return other;
                }
            }
        }
    }

    fn open_as_is(path: &Path, notes: &mut Vec<String>) -> Result<Index, IndexError> {
        let sql = |source| IndexError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let mut conn = Connection::open(path).map_err(sql)?;
        let found = schema::identify(&conn).map_err(sql)?;
        if found == schema::Found::Foreign {
            return Err(IndexError::Foreign(path.to_path_buf()));
        }
        schema::configure(&conn).map_err(sql)?;
        match found {
            schema::Found::Current => {}
            schema::Found::Foreign => return Err(IndexError::Foreign(path.to_path_buf())),
            schema::Found::Empty => schema::create(&mut conn).map_err(sql)?,
            schema::Found::OtherVersion(v) => {
                notes.push(format!(
                    "{}: the index has schema version {v}, this build writes {}; rebuilding it from the logs",
                    path.display(),
                    schema::SCHEMA_VERSION
                ));
                schema::create(&mut conn).map_err(sql)?;
            }
        }
        Ok(Index {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The index file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes the index takes on disk (the database and its write-ahead log).
    pub fn size_on_disk(&self) -> u64 {
        let wal = sidecar(&self.path, "-wal");
        [self.path.clone(), wal]
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum()
    }

    /// Checks the whole file (`PRAGMA quick_check`); when SQLite finds damage, the file is
    /// removed and created empty, and the note says so (`None`: the file is sound). The
    /// next [`Index::update`] fills it again.
    ///
    /// # Errors
    /// As [`Index::open`].
    pub fn check(self) -> Result<(Index, Option<String>), IndexError> {
        let found = match schema::check(&self.conn) {
            Ok(None) => return Ok((self, None)),
            Ok(Some(what)) => what,
            Err(e) if is_damage(&e) => e.to_string(),
            Err(source) => {
                return Err(IndexError::Sqlite {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        let path = self.path.clone();
        drop(self);
        remove_index_files(&path)?;
        let (index, _) = Index::open(&path)?;
        let note = format!(
            "{}: the index failed its integrity check ({found}); rebuilding it from the logs",
            path.display()
        );
        Ok((index, Some(note)))
    }

    /// Empties the index (its roots stay): the next [`Index::update`] reads every log again.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn rebuild(&mut self) -> Result<(), IndexError> {
        schema::rebuild(&mut self.conn).map_err(|source| self.error(source))
    }

    /// The paths given to [`Index::update`] so far (absolute), sorted.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn roots(&self) -> Result<Vec<PathBuf>, IndexError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path FROM roots ORDER BY path")
            .map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.error(e))?;
        Ok(rows.into_iter().map(PathBuf::from).collect())
    }

    /// The paths an update reads when `given` are named: `given` when there are some;
    /// none (the roots indexed before, [`Index::roots`]) when something was indexed; else
    /// DSH's default root ([`crate::load::layout::default_root`]). `None` when nothing was
    /// given, nothing indexed and there is no `~/.dsh/sessions`: every front end (index,
    /// search, sessions, tui, mcp) falls back the same way and says so in its own words.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn paths_to_update(&self, given: &[PathBuf]) -> Result<Option<Vec<PathBuf>>, IndexError> {
        if !given.is_empty() || !self.roots()?.is_empty() {
            return Ok(Some(given.to_vec()));
        }
        Ok(crate::load::layout::default_root().map(|root| vec![root]))
    }

    fn error(&self, source: rusqlite::Error) -> IndexError {
        IndexError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }
}

/// True when the file at `path` starts with a SQLite header that carries the index's
/// application id (bytes 68–71, big-endian): an index, however damaged its pages are.
fn written_by_us(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 72];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| {
            head.starts_with(crate::load::SQLITE_MAGIC)
                && i32::from_be_bytes([head[68], head[69], head[70], head[71]])
                    == schema::APPLICATION_ID
        })
}

/// True for the errors SQLite gives for a damaged file or one that is not a database.
fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

/// `path` with `suffix` appended to its file name (`index.db-wal`).
fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Removes a damaged index and its write-ahead log and shared-memory files.
fn remove_index_files(path: &Path) -> Result<(), IndexError> {
    for p in [
        path.to_path_buf(),
        sidecar(path, "-wal"),
        sidecar(path, "-shm"),
    ] {
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(IndexError::Io { path: p, source }),
        }
    }
    Ok(())
}

/// `(path, lower, upper)`: a file row is at or under `input` when its path equals `path` or
/// lies strictly between the bounds (`input/` and `input0`, `0` following `/`).
fn under(input: &Path) -> (String, String, String) {
    let exact = input.to_string_lossy().into_owned();
    let sep = std::path::MAIN_SEPARATOR;
    let dir = exact.trim_end_matches(sep);
    let after = char::from_u32(sep as u32 + 1).unwrap_or('0');
    (
        exact.clone(),
        format!("{dir}{sep}"),
        format!("{dir}{after}"),
    )
}
