//! SQLite stores, read strictly read-only: identity checks, session rows and event rows
//! (FORMAT.md §5.5.3, §5.5.4, §6.3, §6.4, §8).
//!
//! A store is opened so that nothing on disk changes: a rollback-journal database is
//! opened read-only (a shared lock, no new file); a WAL database with no `-wal` file is
//! opened `immutable` (a read-only WAL connection would create a `-shm`); with a `-wal` and
//! its `-shm` (a live or crashed writer) it is opened read-only and reads through the WAL;
//! with a `-wal` but no `-shm`, the pair is copied to a private temporary directory and
//! the copy is read.
//!
//! Event rows are turned into the same JSONL records a JSONL log holds (a scalar row
//! becomes its event object, a packed row its §7.4 line), so one scan serves both
//! backends. Column checks Q1–Q5 are fatal; a row that fails to decode is a defect that
//! the scan judges by Q6–Q8.

use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use crate::event::Era;
use crate::header::{Header, Lineage};
use crate::json::MAX_SAFE_INTEGER;
use crate::load::line::{MAX_LINE_BYTES, SourceError};
use crate::rules::{Finding, Rule};

/// `PRAGMA application_id` of a HEAD store: ASCII `DSHP`.
pub const APPLICATION_ID: i64 = 0x4453_4850;

/// Largest serialized DATA of a packed row, in bytes (FORMAT.md §7.4).
pub const MAX_PACKED_DATA_BYTES: usize = 1_048_576;

/// Largest decompressed `data` of a scalar row, in bytes; a bigger one is a defect.
pub const MAX_DATA_BYTES: usize = MAX_LINE_BYTES;

/// The canonical schema 17 objects, whitespace collapsed (FORMAT.md §8.2).
const SCHEMA_17: [(&str, &str, &str, &str); 3] = [
    (
        "table",
        "events",
        "events",
        "CREATE TABLE events ( session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, seq INTEGER NOT NULL, type TEXT NOT NULL, time INTEGER NOT NULL, data ANY NOT NULL, source_event_seqs ANY, surface_op TEXT, ignorable INTEGER CHECK (ignorable IS NULL OR ignorable IN (0, 1)), PRIMARY KEY (session_id, seq) ) STRICT",
    ),
    (
        "table",
        "persistence_state",
        "persistence_state",
        "CREATE TABLE persistence_state ( singleton INTEGER PRIMARY KEY CHECK (singleton = 1), store_id TEXT NOT NULL ) STRICT",
    ),
    (
        "table",
        "sessions",
        "sessions",
        "CREATE TABLE sessions ( id TEXT PRIMARY KEY, version INTEGER NOT NULL, created_at INTEGER NOT NULL, cwd TEXT, parent_session TEXT, seed_length INTEGER, origin TEXT, delegation_depth INTEGER, agent_preset TEXT, incarnation TEXT NOT NULL, revision INTEGER NOT NULL ) STRICT",
    ),
];

/// Column sets that identify a June 2026 schema 4 store (FORMAT.md §8.5).
const SCHEMA_4_SESSIONS: [&str; 6] = [
    "id",
    "version",
    "created_at",
    "cwd",
    "parent_session",
    "seed_length",
];
const SCHEMA_4_EVENTS: [&str; 7] = [
    "session_id",
    "seq",
    "type",
    "time",
    "data",
    "source_event_seqs",
    "surface_op",
];

/// The store's schema generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// HEAD, `user_version` 17.
    V17,
    /// June 2026, `user_version` 4.
    V4,
    /// A pristine file (`user_version` 0, no objects): no sessions.
    Empty,
}

impl Schema {
    /// The era of the logs the schema holds.
    pub fn era(self) -> Era {
        match self {
            Schema::V4 => Era::June2026,
            _ => Era::Head,
        }
    }
}

/// Why a store could not be read.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed (not a database, locked, I/O).
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// Copying the store aside failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The store breaks an identity rule (D1–D6): refused.
    #[error("{0}")]
    Refused(Finding),
}

/// One row of `sessions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// The header fields the row maps to (FORMAT.md §8.4).
    pub header: Header,
    /// `incarnation` (schema 17).
    pub incarnation: Option<String>,
    /// `revision` (schema 17).
    pub revision: Option<i64>,
    /// Number of event rows (packed rows count once).
    pub rows: u64,
}

/// A session's row count, last seq and total data length: what a repair re-checks inside
/// its transaction to detect a concurrent writer.
pub type RowSet = (i64, Option<i64>, f64);

/// A session id with its row, or the §6.3 rule the row breaks.
pub type SessionEntry = (String, Result<SessionRow, Finding>);

/// An opened store.
pub struct Store {
    pub(crate) conn: Connection,
    /// The schema generation.
    pub schema: Schema,
    /// `PRAGMA user_version`.
    pub user_version: i64,
    /// `PRAGMA application_id`.
    pub application_id: i64,
    /// `persistence_state.store_id` (schema 17).
    pub store_id: Option<String>,
    _copy: Option<tempfile::TempDir>,
}

/// `path` with `suffix` appended to its file name (`x.db` + `-wal` → `x.db-wal`).
pub(crate) fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Percent-encodes a path for a `file:` URI.
fn file_uri(path: &Path, query: &str) -> String {
    let mut uri = String::from("file:");
    for b in path.to_string_lossy().bytes() {
        match b {
            b'?' | b'#' | b'%' => uri.push_str(&format!("%{b:02X}")),
            _ => uri.push(char::from(b)),
        }
    }
    uri.push_str(query);
    uri
}

impl Store {
    /// Opens `path` read-only without changing any file (see the module docs) and applies
    /// D1–D3, D5 and D6 (D4, initialising a pristine file, is a writer's step: a pristine
    /// file opens as a store with no sessions; D7 and D8 guard writers and are not applied).
    ///
    /// # Errors
    /// [`StoreError::Refused`] for an identity rule; SQLite and I/O errors otherwise.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let wal = sidecar(path, "-wal");
        let shm = sidecar(path, "-shm");
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let (conn, copy) = if !is_wal_mode(path)? || (wal.exists() && shm.exists()) {
            // Rollback-journal readers take a shared lock and create no file; a WAL reader
            // with both side files present uses them as they are.
            (
                Connection::open_with_flags(file_uri(&absolute(path), "?mode=ro"), flags)?,
                None,
            )
        } else if !wal.exists() {
            // WAL mode with no WAL file: nothing beyond the main file to read, and a
            // read-only WAL connection would create a -shm. Immutable creates nothing.
            (
                Connection::open_with_flags(file_uri(&absolute(path), "?immutable=1"), flags)?,
                None,
            )
        } else {
            let dir = tempfile::tempdir()?;
            let copy = dir.path().join("store.db");
            std::fs::copy(path, &copy)?;
            std::fs::copy(&wal, sidecar(&copy, "-wal"))?;
            (
                Connection::open_with_flags(file_uri(&copy, "?mode=ro"), flags)?,
                Some(dir),
            )
        };
        conn.pragma_update(None, "query_only", 1)?;
        conn.busy_timeout(std::time::Duration::from_millis(5000))?;
        let user_version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let application_id: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
        let mut store = Store {
            conn,
            schema: Schema::Empty,
            user_version,
            application_id,
            store_id: None,
            _copy: copy,
        };
        store.schema = store.identity()?;
        Ok(store)
    }

    fn identity(&mut self) -> Result<Schema, StoreError> {
        let refuse = |rule, message: String| {
            Err(StoreError::Refused(Finding::new(rule, None, None, message)))
        };
        let objects = user_objects(&self.conn)?;
        match self.user_version {
            0 if self.application_id != 0 || !objects.is_empty() => refuse(
                Rule::D1,
                format!(
                    "unversioned schema or foreign application identity (application_id {:#010x}, {} schema objects)",
                    self.application_id,
                    objects.len()
                ),
            ),
            0 => Ok(Schema::Empty),
            4 => {
                if self.application_id != 0 {
                    return refuse(
                        Rule::D3,
                        format!(
                            "schema 4 store with application id {:#010x}, expected 0",
                            self.application_id
                        ),
                    );
                }
                for (table, want) in [
                    ("sessions", &SCHEMA_4_SESSIONS[..]),
                    ("events", &SCHEMA_4_EVENTS[..]),
                ] {
                    let columns = self.columns(table)?;
                    if columns.len() != want.len()
                        || !want.iter().all(|c| columns.iter().any(|x| x == c))
                    {
                        return refuse(
                            Rule::D5,
                            format!(
                                "schema 4 table {table} has columns {}, expected {}",
                                columns.join(", "),
                                want.join(", ")
                            ),
                        );
                    }
                }
                Ok(Schema::V4)
            }
            17 => {
                if self.application_id != APPLICATION_ID {
                    return refuse(
                        Rule::D3,
                        format!(
                            "wrong application id {:#010x} ({}), expected 0x44534850 (1146308688, DSHP)",
                            self.application_id, self.application_id
                        ),
                    );
                }
                if !is_schema_17(&objects) {
                    let names: Vec<String> =
                        objects.iter().map(|o| format!("{} {}", o.0, o.1)).collect();
                    return refuse(
                        Rule::D5,
                        format!(
                            "required schema objects missing or extra objects present (found: {})",
                            names.join(", ")
                        ),
                    );
                }
                let row: Option<String> = self
                    .conn
                    .query_row(
                        "SELECT store_id FROM persistence_state WHERE singleton = 1",
                        [],
                        |r| r.get(0),
                    )
                    .ok();
                match row {
                    Some(id) if is_uuid(&id) => {
                        self.store_id = Some(id);
                        Ok(Schema::V17)
                    }
                    other => refuse(
                        Rule::D6,
                        format!(
                            "no valid store identity: persistence_state store_id is {}",
                            other.map_or("absent".into(), |s| format!("{s:?}"))
                        ),
                    ),
                }
            }
            n => refuse(
                Rule::D2,
                format!(
                    "schema version {n} incompatible with this build (17, or the June 2026 schema 4)"
                ),
            ),
        }
    }

    fn columns(&self, table: &str) -> rusqlite::Result<Vec<String>> {
        let mut stmt = self.conn.prepare(&format!("PRAGMA table_info({table})"))?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(1))?;
        rows.collect()
    }

    /// The row set of a session (see [`RowSet`]).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn row_set(&self, session: &str) -> rusqlite::Result<RowSet> {
        row_set(&self.conn, session)
    }

    /// The ids of every session, ordered.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn session_ids(&self) -> rusqlite::Result<Vec<String>> {
        if self.schema == Schema::Empty {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare("SELECT id FROM sessions ORDER BY id")?;
        let rows = stmt.query_map([], |r| {
            Ok(match r.get_ref(0)? {
                ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                other => format!("<{}>", kind_name(other)),
            })
        })?;
        rows.collect()
    }

    /// Every session row, ordered by id, with the §6.3 row rules applied.
    ///
    /// # Errors
    /// SQLite errors. A row breaking a rule is returned with its finding instead.
    pub fn sessions(&self) -> Result<Vec<SessionEntry>, StoreError> {
        if self.schema == Schema::Empty {
            return Ok(Vec::new());
        }
        let sql = match self.schema {
            Schema::V17 => {
                "SELECT s.id, s.version, s.created_at, s.cwd, s.parent_session, s.seed_length, s.origin, s.delegation_depth, s.agent_preset, s.incarnation, s.revision, (SELECT count(*) FROM events e WHERE e.session_id = s.id) FROM sessions s ORDER BY s.id"
            }
            _ => {
                "SELECT s.id, s.version, s.created_at, s.cwd, s.parent_session, s.seed_length, NULL, NULL, NULL, NULL, NULL, (SELECT count(*) FROM events e WHERE e.session_id = s.id) FROM sessions s ORDER BY s.id"
            }
        };
        let mut stmt = self.conn.prepare(sql)?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let id = match row.get_ref(0)? {
                ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                other => format!("<{}>", kind_name(other)),
            };
            out.push((id, session_row(row, self.schema)));
        }
        Ok(out)
    }
}

/// True when the database header says WAL mode (read and write versions 2, bytes 18–19);
/// false for a file too short to hold them (a pristine, empty store).
fn is_wal_mode(path: &Path) -> std::io::Result<bool> {
    let mut head = Vec::with_capacity(20);
    std::fs::File::open(path)?.take(20).read_to_end(&mut head)?;
    Ok(head.len() == 20 && (head[18] == 2 || head[19] == 2))
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A schema object as compared with [`SCHEMA_17`]: type, name, table, SQL with runs of
/// whitespace collapsed.
type SchemaObject = (String, String, String, String);

/// The store's own schema objects (not `sqlite_*`), sorted by type and name (§8, D5/D8).
pub(crate) fn user_objects(conn: &Connection) -> rusqlite::Result<Vec<SchemaObject>> {
    let mut stmt = conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name")?;
    let rows = stmt.query_map([], |r| {
        let sql: Option<String> = r.get(3)?;
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            sql.map(|s| collapse_ws(&s)).unwrap_or_default(),
        ))
    })?;
    rows.collect()
}

/// True when `objects` are exactly the schema 17 objects.
pub(crate) fn is_schema_17(objects: &[SchemaObject]) -> bool {
    objects.len() == SCHEMA_17.len()
        && objects
            .iter()
            .zip(SCHEMA_17.iter())
            .all(|(o, (t, n, tbl, sql))| {
                (o.0.as_str(), o.1.as_str(), o.2.as_str(), o.3.as_str()) == (*t, *n, *tbl, *sql)
            })
}

fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// 8-4-4-4-12 hex, version nibble 1–8, variant nibble 8, 9, a or b, any case (§6.3).
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
        && (b'1'..=b'8').contains(&b[14])
        && matches!(b[19].to_ascii_lowercase(), b'8' | b'9' | b'a' | b'b')
}

fn session_row(row: &rusqlite::Row<'_>, schema: Schema) -> Result<SessionRow, Finding> {
    let value = |i: usize| row.get_ref(i).unwrap_or(ValueRef::Null);
    let id = match value(0) {
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        _ => String::new(),
    };
    let bad = |what: String| {
        Err(Finding::new(
            Rule::H4,
            None,
            None,
            format!("sessions row {id:?}: {what}"),
        ))
    };
    let int = |i: usize| match value(i) {
        ValueRef::Integer(n) => Ok(Some(n)),
        ValueRef::Null => Ok(None),
        _ => Err(()),
    };
    let text = |i: usize| match value(i) {
        ValueRef::Text(t) => Ok(Some(String::from_utf8_lossy(t).into_owned())),
        ValueRef::Null => Ok(None),
        _ => Err(()),
    };
    if id.is_empty() {
        return bad("id must be a non-empty string".into());
    }
    let safe = |n: i64| (n as f64).abs() <= MAX_SAFE_INTEGER;
    let Ok(Some(version)) = int(1) else {
        return bad("version must be an integer".into());
    };
    if !safe(version) {
        return bad(format!("version {version} is not a safe integer"));
    }
    let Ok(Some(created_at)) = int(2) else {
        return bad("created_at must be an integer".into());
    };
    if created_at < 0 || !safe(created_at) {
        return bad(format!(
            "created_at must be non-negative, found {created_at}"
        ));
    }
    let Ok(cwd) = text(3) else {
        return bad("cwd must be NULL or TEXT".into());
    };
    if cwd
        .as_ref()
        .is_some_and(|c| !crate::load::layout::is_absolute_cwd(c))
    {
        return bad(format!("cwd must be NULL or absolute, found {cwd:?}"));
    }
    let Ok(parent_session) = text(4) else {
        return bad("parent_session must be NULL or TEXT".into());
    };
    let nonneg = |i: usize, name: &str| match int(i) {
        Ok(Some(n)) if n < 0 || !safe(n) => {
            Err(format!("{name} must be NULL or non-negative, found {n}"))
        }
        Ok(v) => Ok(v),
        Err(()) => Err(format!("{name} must be NULL or an integer")),
    };
    let seed_length = match nonneg(5, "seed_length") {
        Ok(v) => v,
        Err(e) => return bad(e),
    };
    let (mut origin, mut delegation_depth, mut agent_preset, mut incarnation, mut revision) =
        (None, None, None, None, None);
    if schema == Schema::V17 {
        let Ok(o) = text(6) else {
            return bad("origin must be NULL or TEXT".into());
        };
        if o.as_deref().is_some_and(|o| o != "subagent") {
            return bad(format!("origin must be NULL or \"subagent\", found {o:?}"));
        }
        origin = o;
        delegation_depth = match nonneg(7, "delegation_depth") {
            Ok(v) => v,
            Err(e) => return bad(e),
        };
        let Ok(p) = text(8) else {
            return bad("agent_preset must be NULL or TEXT".into());
        };
        agent_preset = p;
        match text(9) {
            Ok(Some(i)) if is_uuid(&i) => incarnation = Some(i),
            _ => return bad("incarnation must be a UUID".into()),
        }
        revision = match nonneg(10, "revision") {
            Ok(Some(r)) => Some(r),
            _ => return bad("revision must be a non-negative integer".into()),
        };
    }
    let rows = match value(11) {
        ValueRef::Integer(n) => n as u64,
        _ => 0,
    };
    Ok(SessionRow {
        header: Header {
            raw: String::new(),
            id,
            version: Some(version),
            created_at: Some(created_at),
            cwd,
            lineage: Lineage {
                parent_session,
                seed_length,
                origin,
                delegation_depth,
            },
            agent_preset,
        },
        incarnation,
        revision,
        rows,
    })
}

/// Decodes a schema 17 `source_event_seqs` BLOB: a LEB128 varint first seq, then zigzag
/// LEB128 deltas (FORMAT.md §8.3). An empty BLOB is `[]`.
///
/// # Errors
/// A one-line reason for a malformed encoding (over-long or non-canonical varint,
/// truncated blob, a seq outside `[0, 2^53−1]`).
pub fn decode_source_seqs(blob: &[u8]) -> Result<Vec<u64>, String> {
    const MAX: u64 = (1 << 53) - 1;
    let mut out = Vec::new();
    let mut i = 0;
    while i < blob.len() {
        let mut value = 0u64;
        let mut shift = 0;
        let start = i;
        loop {
            let Some(&b) = blob.get(i) else {
                return Err(format!("varint at byte {start} is truncated"));
            };
            i += 1;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                if i - start > 1 && b == 0 {
                    return Err(format!("varint at byte {start} is not canonical"));
                }
                break;
            }
            if i - start == 9 {
                return Err(format!("varint at byte {start} is longer than 9 bytes"));
            }
            shift += 7;
        }
        let seq = match out.last() {
            None => {
                if value > MAX {
                    return Err(format!("first seq {value} exceeds 2^53-1"));
                }
                value
            }
            Some(&prev) => {
                if value > 2 * MAX {
                    return Err(format!("delta {value} exceeds the zigzag range"));
                }
                let delta = if value.is_multiple_of(2) {
                    (value / 2) as i64
                } else {
                    -(value.div_ceil(2) as i64)
                };
                let seq = prev as i64 + delta;
                if !(0..=MAX as i64).contains(&seq) {
                    return Err(format!("decoded seq {seq} is outside [0, 2^53-1]"));
                }
                seq as u64
            }
        };
        out.push(seq);
    }
    Ok(out)
}

/// Encodes seqs the way `decode_source_seqs` reads them (used by tests and repair).
pub fn encode_source_seqs(seqs: &[u64]) -> Vec<u8> {
    use crate::varint::write as varint;
    let mut out = Vec::new();
    for (i, &s) in seqs.iter().enumerate() {
        if i == 0 {
            varint(&mut out, s);
        } else {
            let d = s as i64 - seqs[i - 1] as i64;
            varint(
                &mut out,
                if d >= 0 {
                    2 * d as u64
                } else {
                    (-2 * d - 1) as u64
                },
            );
        }
    }
    out
}

/// The index in `ids` of the session `want` names (`--session`): the id equal to it, or
/// else the only id it is a prefix of, so a short id such as `5c40` will do.
///
/// # Errors
/// No id starting with `want` (naming the ids the store holds), or a prefix of several
/// ids (naming them), as a one-line message.
pub fn resolve_session(ids: &[String], want: &str) -> Result<usize, String> {
    if let Some(exact) = ids.iter().position(|id| id == want) {
        return Ok(exact);
    }
    let matching: Vec<usize> = (0..ids.len())
        .filter(|&i| ids[i].starts_with(want))
        .collect();
    match matching[..] {
        [only] => Ok(only),
        [] if ids.is_empty() => Err(format!(
            "store has no session {want:?}: it holds no sessions"
        )),
        [] => Err(format!(
            "store has no session {want:?} and no id starts with it; it holds: {}",
            list(ids)
        )),
        _ => {
            let names: Vec<String> = matching.iter().map(|&i| ids[i].clone()).collect();
            Err(format!(
                "session {want:?} is ambiguous: it starts {} ids: {}; give more of the id",
                names.len(),
                list(&names)
            ))
        }
    }
}

pub(crate) fn row_set(conn: &Connection, session: &str) -> rusqlite::Result<RowSet> {
    conn.query_row(
        "SELECT count(*), max(seq), total(length(data)) FROM events WHERE session_id = ?1",
        [session],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

impl From<StoreError> for SourceError {
    /// A refusal is the scan's finding; the rest are read errors.
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Refused(f) => SourceError::Finding(f),
            StoreError::Sqlite(e) => sql_err(e),
            StoreError::Io(e) => SourceError::Io(e),
        }
    }
}

pub(crate) fn kind_name(v: ValueRef<'_>) -> &'static str {
    match v {
        ValueRef::Null => "NULL",
        ValueRef::Integer(_) => "INTEGER",
        ValueRef::Real(_) => "REAL",
        ValueRef::Text(_) => "TEXT",
        ValueRef::Blob(_) => "BLOB",
    }
}

pub(crate) fn list(ids: &[String]) -> String {
    ids.join(", ")
}

pub(crate) fn sql_err(e: rusqlite::Error) -> SourceError {
    SourceError::Io(std::io::Error::other(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_examples_from_the_format_reference() {
        let cases: [(&[u64], &[u8]); 7] = [
            (&[5, 6, 7, 8], &[0x05, 0x02, 0x02, 0x02]),
            (&[300], &[0xAC, 0x02]),
            (&[10, 3], &[0x0A, 0x0D]),
            (&[129, 130, 131, 200], &[0x81, 0x01, 0x02, 0x02, 0x8A, 0x01]),
            (&[0], &[0x00]),
            (&[], &[]),
            (
                &[(1 << 53) - 1],
                &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F],
            ),
        ];
        for (seqs, bytes) in cases {
            assert_eq!(encode_source_seqs(seqs), bytes, "{seqs:?}");
            assert_eq!(decode_source_seqs(bytes).unwrap(), seqs, "{bytes:02x?}");
        }
    }

    #[test]
    fn malformed_varints_are_rejected() {
        assert!(
            decode_source_seqs(&[0x00, 0x01])
                .unwrap_err()
                .contains("outside")
        );
        assert!(
            decode_source_seqs(&[0x80])
                .unwrap_err()
                .contains("truncated")
        );
        assert!(
            decode_source_seqs(&[0x80, 0x00])
                .unwrap_err()
                .contains("canonical")
        );
        assert!(
            decode_source_seqs(&[0xFF; 10])
                .unwrap_err()
                .contains("9 bytes")
        );
        assert!(
            decode_source_seqs(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
                .unwrap_err()
                .contains("exceeds")
        );
    }

    #[test]
    fn uuids() {
        assert!(is_uuid("bbf1938d-3b32-4931-8011-a1f03334693f"));
        assert!(is_uuid("BBF1938D-3B32-4931-B011-A1F03334693F"));
        assert!(!is_uuid("bbf1938d-3b32-0931-8011-a1f03334693f"));
        assert!(!is_uuid("bbf1938d-3b32-4931-c011-a1f03334693f"));
        assert!(!is_uuid("bbf1938d3b3249318011a1f03334693f"));
    }
}
