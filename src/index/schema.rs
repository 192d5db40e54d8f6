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
//!   it, and its text ([`pack_text`]: zstd-compressed when that is shorter); `texts` (FTS5,
//!   trigram tokenizer, contentless: the text is kept once, in `messages`) indexes the text
//!   under the same rowid.
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
/// 4: `walks`, and `files_known` to read what tells a file changed without its row.
pub const SCHEMA_VERSION: i32 = 4;

/// The FTS5 tokenizer of `texts`: trigrams, so that any substring of three characters or
/// more is found, CJK text included (FTS5's default `unicode61` keeps a run of CJK
/// characters as one token, so a word inside it is never found).
pub const TOKENIZER: &str = "trigram case_sensitive 0 remove_diacritics 1";

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
    text NOT NULL
);
CREATE INDEX messages_by_seq ON messages (session_id, seq);
CREATE TABLE calls (
    session_id INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    PRIMARY KEY (session_id, call_id)
) WITHOUT ROWID;
";

/// A message part's text as `messages.text` keeps it: a zstd frame (a BLOB) when that is
/// shorter, else the text itself (TEXT). Texts are about a third of the index's bytes
/// uncompressed, and compress about fourfold.
pub fn pack_text(text: &str) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    if text.len() >= 128
        && let Ok(packed) = zstd::bulk::compress(text.as_bytes(), 3)
        && packed.len() < text.len()
    {
        return Value::Blob(packed);
    }
    Value::Text(text.to_owned())
}

/// The text [`pack_text`] kept (a damaged frame reads as empty text).
pub fn unpack_text(value: rusqlite::types::ValueRef<'_>) -> String {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Blob(b) => {
            let bytes = UNPACK.with(|d| {
                let mut d = d.borrow_mut();
                let capacity = zstd::zstd_safe::get_frame_content_size(b)
                    .ok()
                    .flatten()
                    .map_or(MAX_UNPACKED, |n| (n as usize).min(MAX_UNPACKED));
                d.as_mut()
                    .and_then(|d| d.decompress(b, capacity).ok())
                    .unwrap_or_default()
            });
            String::from_utf8_lossy(&bytes).into_owned()
        }
        _ => String::new(),
    }
}

/// The largest text [`pack_text`] packs: a message part is cut at
/// [`crate::view::message_rows::MAX_PART_BYTES`].
const MAX_UNPACKED: usize = crate::view::message_rows::MAX_PART_BYTES + 4096;

thread_local! {
    /// One decompression context per thread: a search may unpack thousands of texts.
    static UNPACK: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Decompressor::new().ok());
}

/// Registers `dsh_has(messages.text, word)`: whether the text [`unpack_text`] gives holds
/// `word` (ASCII letters without case), for the words shorter than a trigram, which the
/// full-text index cannot find.
///
/// # Errors
/// SQLite errors.
pub fn functions(conn: &Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    conn.create_scalar_function(
        "dsh_has",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let text = unpack_text(ctx.get_raw(0));
            let word = ctx.get::<String>(1)?;
            Ok(contains_folded(&text, &word))
        },
    )
}

/// Whether `text` holds `word`, ASCII letters compared without case.
pub fn contains_folded(text: &str, word: &str) -> bool {
    let (text, word) = (text.as_bytes(), word.as_bytes());
    word.is_empty()
        || text
            .windows(word.len())
            .any(|w| w.eq_ignore_ascii_case(word))
}

/// Prepares the connection to an index ([`identify`] first: this writes to the file): WAL
/// (readers never wait for a writer) and what an index needs of SQLite.
///
/// # Errors
/// SQLite errors.
pub fn configure(conn: &Connection) -> rusqlite::Result<()> {
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    debug_assert!(mode.eq_ignore_ascii_case("wal") || mode.eq_ignore_ascii_case("memory"));
    // Derived data: a crash may lose the last transactions, never the file's consistency.
    conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY;")?;
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
        "CREATE VIRTUAL TABLE texts USING fts5(text, content = '', contentless_delete = 1, tokenize = '{TOKENIZER}');"
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
