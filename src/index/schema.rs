//! The index file: its tables, its identity (application id and schema version), and how
//! it is created, checked and rebuilt.
//!
//! Tables (every row is derived from the logs and can be rebuilt from them):
//!
//! * `files`: one row per log or store read: path, size, mtime, inode, encoding, the hash
//!   of the end of the indexed bytes, the saved scan state a grown log is taken up from
//!   ([`crate::scan::resume`]), the turn open at its end, why it could not be read, and
//!   which DSH line judged it (`DSH 0.1.5+` or `DSH 0.1.1`, as `--dsh` chose: a file judged
//!   by the other line is read again whole).
//! * `sessions`: one row per session (a JSONL log holds one, a store any number): the
//!   header's fields, the verdict (`validate`'s status, rule and message), counts, models
//!   and tokens.
//! * `messages`: one row per message part ([`crate::view::message_rows`]): seq, turn, kind,
//!   role, source kind, tool, time, surface position, the seq of the replace that shadowed
//!   it, and where its text is kept ([`TextAt`]); `blocks`: the texts of a session's parts,
//!   one after the other, in blocks of about [`BLOCK_BYTES`] ([`pack_text`]:
//!   zstd-compressed when that is shorter); `texts` (FTS5,
//!   contentless, `detail=none`) indexes, under the same rowid, the text's grams
//!   ([`super::expr::grams`]: its trigrams, CJK text by pairs of characters): a search
//!   reads the candidates it gives and checks their texts ([`super::expr::Expr`]).
//! * `calls`: tool-call ids and their tool's name, so that a result appended later finds it.
//! * `files_known`: an index of `files` that holds what [`super::Index::update`] reads of
//!   every row (path, id, size, mtime, inode, judge), so that it reads a few pages of it
//!   instead of each row's page (a row keeps its saved scan state, kilobytes).
//! * `roots`: the paths given to `index`, `search` and `sessions`, updated when `search`
//!   names none; `walks`: the directory walk of each root and what it holds by
//!   ([`super::walks`]); `meta`: what wrote the index.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

/// `PRAGMA application_id` of an index: `DSHI`.
pub const APPLICATION_ID: i32 = 0x4453_4849;

/// `PRAGMA user_version`: the layout of the tables below. An index of another version is
/// rebuilt (it is derived data). 3: a tool part's text is indexed after its tool's name.
/// 5: `texts` indexes grams with `detail=none`, in 1 KiB pages (a third of the size);
/// `walks`, and `files_known` to read what tells a file changed without its row (4 was an
/// unreleased layout).
pub const SCHEMA_VERSION: i32 = 5;

/// The FTS5 tokenizer of `texts`: it reads the gram tokens [`super::expr::grams`] writes
/// (one per distinct gram of a text), so that any substring of three characters or more
/// is found, and CJK text from two characters (FTS5's default `unicode61` keeps a run of
/// CJK characters as one token, so a word inside it is never found).
pub const TOKENIZER: &str = "ascii";

/// The page size of a new index file: a quarter of SQLite's default, so that a small
/// index wastes less of its pages (the real samples' index is about 10 % smaller than
/// with 2 KiB pages).
pub const PAGE_SIZE: u32 = 1024;

const TABLES: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE roots (path TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    encoding TEXT NOT NULL,
    tail_hash INTEGER,
    resume BLOB,
    resume_turn INTEGER,
    error TEXT,
    judge TEXT NOT NULL
);
CREATE INDEX files_known ON files (path, id, size, mtime_ns, inode, judge);
CREATE TABLE walks (root TEXT PRIMARY KEY, walk NOT NULL);
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    session TEXT NOT NULL,
    title TEXT,
    cwd TEXT,
    created_at INTEGER,
    first_time INTEGER,
    last_time INTEGER,
    parent_session TEXT,
    seed_length INTEGER,
    origin TEXT,
    delegation_depth INTEGER,
    revision INTEGER,
    generation TEXT,
    status TEXT NOT NULL,
    rule TEXT,
    message TEXT,
    events INTEGER NOT NULL,
    turns INTEGER NOT NULL,
    tool_calls INTEGER NOT NULL,
    models TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL
);
CREATE INDEX sessions_by_file ON sessions (file_id);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    pos INTEGER NOT NULL,
    turn INTEGER,
    type TEXT NOT NULL,
    kind TEXT NOT NULL,
    role TEXT NOT NULL,
    source TEXT,
    tool TEXT,
    time INTEGER,
    shadowed_by INTEGER,
    block INTEGER NOT NULL,
    start INTEGER NOT NULL,
    len INTEGER NOT NULL
);
CREATE INDEX messages_by_seq ON messages (session_id, seq);
CREATE TABLE blocks (id INTEGER PRIMARY KEY, data NOT NULL);
CREATE TABLE calls (
    session_id INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    PRIMARY KEY (session_id, call_id)
) WITHOUT ROWID;
";

/// The texts of a session's message parts are kept together, in blocks of at most this
/// many bytes (a longer part is a block of its own): one zstd frame compresses a session's
/// texts about a third better than a frame per part (the real samples: 66 KB against
/// 92 KB for 164 KB of text), and a search reads the candidates of one session, which
/// come one after the other, from one block unpacked once.
pub const BLOCK_BYTES: usize = 256 * 1024;

/// The zstd level of a block: 6 packs the real samples' texts 4 % smaller than 3, at
/// about a third of its speed (a first index of 177 MB of text spends about 2 s on it).
const LEVEL: i32 = 6;

/// A block of texts as `blocks.data` keeps it: a zstd frame (a BLOB) when that is
/// shorter, else the text itself (TEXT).
pub fn pack_text(text: &str) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    if text.len() >= 128
        && let Ok(packed) = zstd::bulk::compress(text.as_bytes(), LEVEL)
        && packed.len() < text.len()
    {
        return Value::Blob(packed);
    }
    Value::Text(text.to_owned())
}

/// The bytes of the text [`pack_text`] kept (a damaged frame reads as empty).
pub fn unpack_bytes(value: rusqlite::types::ValueRef<'_>) -> Vec<u8> {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Text(t) => t.to_vec(),
        ValueRef::Blob(b) => UNPACK.with(|d| {
            let mut d = d.borrow_mut();
            let capacity = zstd::zstd_safe::get_frame_content_size(b)
                .ok()
                .flatten()
                .map_or(MAX_UNPACKED, |n| (n as usize).min(MAX_UNPACKED));
            d.as_mut()
                .and_then(|d| d.decompress(b, capacity).ok())
                .unwrap_or_default()
        }),
        _ => Vec::new(),
    }
}

/// Where a message part's text is kept: `messages.block`, `start`, `len` (bytes of the
/// block's text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextAt {
    /// The block (`blocks.id`).
    pub block: i64,
    /// The first byte of the text in the block's text.
    pub start: usize,
    /// Its length in bytes.
    pub len: usize,
}

impl TextAt {
    /// The [`TextAt`] of the columns `block, start, len` at `at`.
    pub fn from_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<TextAt> {
        Ok(TextAt {
            block: r.get(at)?,
            start: r.get::<_, i64>(at + 1)?.max(0) as usize,
            len: r.get::<_, i64>(at + 2)?.max(0) as usize,
        })
    }
}

/// Reads message texts from their blocks, the last block read kept unpacked (a search
/// reads the candidates of one session one after the other, a page of messages reads one
/// session).
pub struct Texts<'c> {
    stmt: rusqlite::CachedStatement<'c>,
    block: Option<(i64, Vec<u8>)>,
}

impl<'c> Texts<'c> {
    /// A reader on `conn`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn new(conn: &'c Connection) -> rusqlite::Result<Texts<'c>> {
        Ok(Texts {
            stmt: conn.prepare_cached("SELECT data FROM blocks WHERE id = ?1")?,
            block: None,
        })
    }

    /// The text at `at` (empty when its block is missing or damaged).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn get(&mut self, at: TextAt) -> rusqlite::Result<String> {
        if self.block.as_ref().is_none_or(|(id, _)| *id != at.block) {
            let bytes = self
                .stmt
                .query_row([at.block], |r| Ok(unpack_bytes(r.get_ref(0)?)))
                .optional()?
                .unwrap_or_default();
            self.block = Some((at.block, bytes));
        }
        let bytes = self.block.as_ref().map_or(&[][..], |(_, b)| b.as_slice());
        let end = at.start.saturating_add(at.len).min(bytes.len());
        let slice = bytes.get(at.start.min(end)..end).unwrap_or_default();
        Ok(String::from_utf8_lossy(slice).into_owned())
    }
}

/// The largest block [`pack_text`] packs: a message part is cut at
/// [`crate::view::message_rows::MAX_PART_BYTES`], and a block holds one such part or
/// parts up to [`BLOCK_BYTES`].
const MAX_UNPACKED: usize = crate::view::message_rows::MAX_PART_BYTES + BLOCK_BYTES;

thread_local! {
    /// One decompression context per thread: a search may unpack thousands of texts.
    static UNPACK: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Decompressor::new().ok());
}

/// The page cache of a connection to an index, in KiB (`PRAGMA cache_size`): 16 MiB, more
/// than the most one search of 10,000 sessions reads (about 4,200 pages, 6 MiB with
/// SQLite's own bookkeeping), and only that much above SQLite's default while indexing.
const CACHE_KIB: u64 = 16 * 1024;

/// Prepares the connection to an index ([`identify`] first: this writes to the file): WAL
/// (readers never wait for a writer) and what an index needs of SQLite.
///
/// # Errors
/// SQLite errors.
pub fn configure(conn: &Connection) -> rusqlite::Result<()> {
    // Before WAL, which fixes the page size of a new file (an existing file keeps its own).
    conn.execute_batch(&format!("PRAGMA page_size = {PAGE_SIZE}"))?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    debug_assert!(mode.eq_ignore_ascii_case("wal") || mode.eq_ignore_ascii_case("memory"));
    // Derived data: a crash may lose the last transactions, never the file's consistency.
    conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY;")?;
    // A page cache that holds what one search reads (SQLite's default, 2 MiB, is less than
    // the doclists of a query's common grams on a large index, which were then read again:
    // a search for one rare word read 4,467 pages, 2,449 of them once).
    conn.execute_batch(&format!("PRAGMA cache_size = -{CACHE_KIB}"))?;
    Ok(())
}

/// What a database at the index path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// An index of this schema.
    Current,
    /// No tables yet (a new file).
    Empty,
    /// An index of another schema version: rebuilt.
    OtherVersion(i32),
    /// A database with tables that is not an index: never touched.
    Foreign,
}

/// What the database behind `conn` is, read without writing anything; also sets the busy
/// timeout (a second writer waits for the first).
///
/// # Errors
/// SQLite errors (`SQLITE_NOTADB` for a file that is not a database).
pub fn identify(conn: &Connection) -> rusqlite::Result<Found> {
    conn.busy_timeout(std::time::Duration::from_secs(60))?;
    // One snapshot: another process may be creating the tables meanwhile.
    let tx = conn.unchecked_transaction()?;
    let found = identify_in(&tx)?;
    tx.commit()?;
    Ok(found)
}

/// [`identify`] inside a transaction the caller holds.
fn identify_in(conn: &Connection) -> rusqlite::Result<Found> {
    let app: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let version: i32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let objects: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
    Ok(match (app, objects) {
        (0, 0) => Found::Empty,
        (APPLICATION_ID, _) if version == SCHEMA_VERSION => Found::Current,
        (APPLICATION_ID, _) => Found::OtherVersion(version),
        _ => Found::Foreign,
    })
}

/// Creates the tables in an empty database, or drops and creates them in an index of
/// another version, in one transaction that waits for any other writer; a no-op when
/// another process did it meanwhile.
///
/// # Errors
/// SQLite errors.
pub fn create(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    match identify_in(&tx)? {
        Found::Current | Found::Foreign => return tx.commit(),
        Found::Empty => {}
        Found::OtherVersion(_) => drop_all(&tx)?,
    }
    tx.execute_batch(TABLES)?;
    tx.execute_batch(&format!(
        "CREATE VIRTUAL TABLE texts USING fts5(text, content = '', contentless_delete = 1, detail = none, tokenize = '{TOKENIZER}');"
    ))?;
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ('written_by', ?1)",
        [format!("dsh-session {}", env!("CARGO_PKG_VERSION"))],
    )?;
    tx.execute_batch(&format!(
        "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
    ))?;
    tx.commit()
}

/// Empties the index (`index --rebuild`): every table is dropped and created again, in one
/// transaction. The roots are kept.
///
/// # Errors
/// SQLite errors.
pub fn rebuild(conn: &mut Connection) -> rusqlite::Result<()> {
    let roots: Vec<String> = {
        let mut stmt = conn.prepare("SELECT path FROM roots")?;
        stmt.query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?
    };
    {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        drop_all(&tx)?;
        tx.execute_batch("PRAGMA user_version = 0")?;
        tx.commit()?;
    }
    create(conn)?;
    for root in roots {
        conn.execute("INSERT OR IGNORE INTO roots (path) VALUES (?1)", [root])?;
    }
    Ok(())
}

fn drop_all(conn: &Connection) -> rusqlite::Result<()> {
    let names: Vec<(String, String)> = {
        let mut stmt = conn.prepare(
            "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'texts_%'",
        )?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?
    };
    for (ty, name) in names {
        conn.execute_batch(&format!(
            "DROP {ty} IF EXISTS \"{}\"",
            name.replace('"', "\"\"")
        ))?;
    }
    Ok(())
}

/// `PRAGMA quick_check`: `None` when the file is sound, else what SQLite found first.
///
/// # Errors
/// SQLite errors (a damaged file may fail to answer at all).
pub fn check(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let first: Option<String> = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .optional()?;
    Ok(first.filter(|s| s != "ok"))
}
