//! The write side of an update: what a file read becomes in the tables, in batches of one
//! transaction each (`BEGIN IMMEDIATE`, so a second updater waits for the first, up to the
//! busy timeout, instead of failing). A file's rows are written only when its `files` row
//! is still as the update found it: an updater that lost a race leaves the other's rows.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

use super::ingest::{FileRead, Job, KNOWN_COLUMNS, Known, SessionRead};
use crate::view::stats::ModelUse;

/// Commit a batch after this many message parts, files, or this much time.
const BATCH_PARTS: u64 = 50_000;
const BATCH_FILES: usize = 1000;
const BATCH_TIME: Duration = Duration::from_secs(2);

/// One open transaction at a time on the index connection.
pub(super) struct Writer<'c> {
    conn: &'c Connection,
    open: bool,
    since: Instant,
    parts: u64,
    files: usize,
}

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        if self.open {
            // An error ended the update: nothing of the open batch is kept.
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

impl<'c> Writer<'c> {
    /// Starts the first batch (waits for another writer to finish).
    pub fn begin(conn: &'c Connection) -> rusqlite::Result<Self> {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(Writer {
            conn,
            open: true,
            since: Instant::now(),
            parts: 0,
            files: 0,
        })
    }

    /// Commits the batch when it is large or old enough, and starts the next.
    pub fn maybe_commit(&mut self) -> rusqlite::Result<()> {
        if self.parts < BATCH_PARTS && self.files < BATCH_FILES && self.since.elapsed() < BATCH_TIME
        {
            return Ok(());
        }
        self.conn.execute_batch("COMMIT")?;
        self.open = false;
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        self.open = true;
        self.since = Instant::now();
        self.parts = 0;
        self.files = 0;
        Ok(())
    }

    /// Commits the last batch.
    pub fn commit(mut self) -> rusqlite::Result<()> {
        self.conn.execute_batch("COMMIT")?;
        self.open = false;
        Ok(())
    }

    /// Forgets a root that is gone from disk.
    pub fn forget_root(&self, root: &Path) -> rusqlite::Result<()> {
        self.conn.execute(
            "DELETE FROM roots WHERE path = ?1",
            [root.to_string_lossy()],
        )?;
        Ok(())
    }

    /// Records a root.
    pub fn add_root(&self, root: &Path) -> rusqlite::Result<()> {
        self.conn.execute(
            "INSERT OR IGNORE INTO roots (path) VALUES (?1)",
            [root.to_string_lossy()],
        )?;
        Ok(())
    }

    /// The `files` row of `path` now.
    fn current(&self, path: &str) -> rusqlite::Result<Option<Known>> {
        self.conn
            .prepare_cached(&format!(
                "SELECT {KNOWN_COLUMNS} FROM files WHERE path = ?1"
            ))?
            .query_row([path], |r| Known::from_row(r, 0))
            .optional()
    }

    /// Drops a file gone from disk; false when its row changed since the update looked.
    pub fn remove(&mut self, path: &str, known: Known) -> rusqlite::Result<bool> {
        if self.current(path)? != Some(known) {
            return Ok(false);
        }
        self.delete_contents(known.id)?;
        self.conn
            .execute("DELETE FROM files WHERE id = ?1", [known.id])?;
        Ok(true)
    }

    /// The sessions, messages, texts and calls of file `id`.
    fn delete_contents(&self, id: i64) -> rusqlite::Result<()> {
        self.conn.execute(
            "DELETE FROM texts WHERE rowid IN (SELECT m.id FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.file_id = ?1)",
            [id],
        )?;
        self.conn.execute(
            "DELETE FROM blocks WHERE id IN (SELECT m.block FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.file_id = ?1)",
            [id],
        )?;
        self.conn.execute(
            "DELETE FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE file_id = ?1)",
            [id],
        )?;
        self.conn.execute(
            "DELETE FROM calls WHERE session_id IN (SELECT id FROM sessions WHERE file_id = ?1)",
            [id],
        )?;
        self.conn
            .execute("DELETE FROM sessions WHERE file_id = ?1", [id])?;
        Ok(())
    }

    /// Writes what was read of `job`'s file: the message parts written, or `None` when its
    /// row changed since the update looked (another updater wrote it).
    pub fn apply(&mut self, job: &Job, read: &FileRead) -> rusqlite::Result<Option<u64>> {
        let key = job.path.to_string_lossy();
        let current = self.current(&key)?;
        if current != job.base {
            return Ok(None);
        }
        let resumed = read.resumed && current.is_some();
        let stat = job.stat;
        let take_up = read.take_up.as_ref();
        let saved = take_up.map(|t| t.saved.as_bytes());
        let tail = take_up.map(|t| t.tail_hash as i64);
        let turn = take_up.and_then(|t| t.turn);
        let judge = job.judge.name();
        let file_id = match current {
            Some(known) => {
                if !resumed {
                    self.delete_contents(known.id)?;
                }
                self.conn.execute(
                    "UPDATE files SET size = ?2, mtime_ns = ?3, inode = ?4, encoding = ?5, tail_hash = ?6, resume = ?7, resume_turn = ?8, error = ?9, judge = ?10 WHERE id = ?1",
                    params![known.id, stat.size as i64, stat.mtime_ns, stat.inode as i64, read.encoding, tail, saved, turn, read.error, judge],
                )?;
                known.id
            }
            None => {
                self.conn.execute(
                    "INSERT INTO files (path, size, mtime_ns, inode, encoding, tail_hash, resume, resume_turn, error, judge) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    params![key, stat.size as i64, stat.mtime_ns, stat.inode as i64, read.encoding, tail, saved, turn, read.error, judge],
                )?;
                self.conn.last_insert_rowid()
            }
        };
        let mut parts = 0;
        if resumed {
            let session = read.sessions.first();
            let id: Option<i64> = self
                .conn
                .query_row(
                    "SELECT id FROM sessions WHERE file_id = ?1 LIMIT 1",
                    [file_id],
                    |r| r.get(0),
                )
                .optional()?;
            match (session, id) {
                (Some(session), Some(id)) => {
                    self.add_to_session(id, session)?;
                    parts += self.insert_rows(id, session)?;
                }
                _ => {
                    // The kept rows do not match what was taken up: make the next update
                    // read the file whole.
                    self.conn.execute(
                        "UPDATE files SET size = -1, resume = NULL WHERE id = ?1",
                        [file_id],
                    )?;
                }
            }
        } else {
            for session in &read.sessions {
                let id = self.insert_session(file_id, session)?;
                parts += self.insert_rows(id, session)?;
            }
        }
        self.parts += parts;
        self.files += 1;
        Ok(Some(parts))
    }

    fn insert_session(&self, file_id: i64, s: &SessionRead) -> rusqlite::Result<i64> {
        let h = &s.header;
        let mut values: Vec<Value> = vec![
            file_id.into(),
            h.id.clone().into(),
            s.stats.title.clone().into(),
            h.cwd.clone().into(),
            h.created_at.into(),
            s.stats.first_time.into(),
            s.stats.last_time.into(),
            h.lineage.parent_session.clone().into(),
            h.lineage.seed_length.into(),
            h.lineage.origin.clone().into(),
            h.lineage.delegation_depth.into(),
            s.revision.into(),
        ];
        values.extend(verdict_and_counts(s, merge_models(None, s)));
        self.conn
            .prepare_cached(
                "INSERT INTO sessions (file_id, session, title, cwd, created_at, first_time, last_time, parent_session, seed_length, origin, delegation_depth, revision, generation, status, rule, message, events, turns, tool_calls, models, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)",
            )?
            .execute(params_from_iter(values))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// A session taken up: its counts grow by what the new events hold, its verdict is the
    /// new one.
    fn add_to_session(&self, id: i64, s: &SessionRead) -> rusqlite::Result<()> {
        let old: String =
            self.conn
                .query_row("SELECT models FROM sessions WHERE id = ?1", [id], |r| {
                    r.get(0)
                })?;
        let mut values: Vec<Value> = vec![
            id.into(),
            s.stats.title.clone().into(),
            s.stats.first_time.into(),
            s.stats.last_time.into(),
        ];
        values.extend(verdict_and_counts(s, merge_models(Some(&old), s)));
        self.conn.execute(
            "UPDATE sessions SET title = COALESCE(?2, title), first_time = COALESCE(first_time, ?3), last_time = COALESCE(?4, last_time), generation = ?5, status = ?6, rule = ?7, message = ?8, events = ?9, turns = turns + ?10, tool_calls = tool_calls + ?11, models = ?12, input_tokens = input_tokens + ?13, output_tokens = output_tokens + ?14, cache_read_tokens = cache_read_tokens + ?15, cache_write_tokens = cache_write_tokens + ?16, reasoning_tokens = reasoning_tokens + ?17 WHERE id = ?1",
            params_from_iter(values),
        )?;
        Ok(())
    }

    /// Writes the calls and message parts of a session read, marks what its replaces
    /// shadowed, and returns the parts written.
    fn insert_rows(&self, id: i64, s: &SessionRead) -> rusqlite::Result<u64> {
        let mut call = self.conn.prepare_cached(
            "INSERT OR REPLACE INTO calls (session_id, call_id, tool) VALUES (?1, ?2, ?3)",
        )?;
        for (call_id, tool) in &s.calls {
            call.execute(params![id, call_id, tool])?;
        }
        let shadowed_by: HashMap<u64, u64> = s
            .rows
            .iter()
            .flat_map(|r| r.shadows.iter().map(move |&seq| (seq, r.seq)))
            .collect();
        let mut message = self.conn.prepare_cached(
            "INSERT INTO messages (session_id, seq, pos, turn, type, kind, role, source, tool, time, shadowed_by, block, start, len) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        )?;
        let mut block = Block::default();
        let mut text = self
            .conn
            .prepare_cached("INSERT INTO texts (rowid, text) VALUES (?1, ?2)")?;
        let mut pos_of: HashMap<u64, i64> = HashMap::new();
        let mut parts = 0;
        for row in &s.rows {
            // A replace stands where the first entry it shadowed stood.
            let pos = match row.shadows.first() {
                None => row.seq as i64,
                Some(&first) => match pos_of.get(&first) {
                    Some(&p) => p,
                    None => self.kept_pos(id, first)?.unwrap_or(first as i64),
                },
            };
            pos_of.insert(row.seq, pos);
            for part in &row.parts {
                let tool = match &part.tool {
                    Some(t) => Some(t.clone()),
                    None => self.kept_tool(id, &part.call_ids)?,
                };
                let at = self.place(&mut block, &part.text)?;
                let start = block.text.len() - part.text.len();
                message.execute(params![
                    id,
                    row.seq as i64,
                    pos,
                    row.turn,
                    row.event_type,
                    part.kind.name(),
                    row.role,
                    row.source,
                    tool,
                    row.time,
                    shadowed_by.get(&row.seq).map(|&s| s as i64),
                    at,
                    start as i64,
                    part.text.len() as i64,
                ])?;
                // The tool's name is searched with the text (`search bash` finds its
                // calls and results); the kept text stays the part's own.
                let searched = match &tool {
                    Some(name) if part.kind == crate::view::message_rows::PartKind::Tool => {
                        std::borrow::Cow::Owned(format!("{name}\n{}", part.text))
                    }
                    _ => std::borrow::Cow::Borrowed(part.text.as_str()),
                };
                text.execute(params![
                    self.conn.last_insert_rowid(),
                    super::expr::grams(&searched)
                ])?;
                parts += 1;
            }
        }
        self.flush(&block)?;
        // Entries shadowed by the new events that an earlier read wrote.
        let mut mark = self.conn.prepare_cached(
            "UPDATE messages SET shadowed_by = ?3 WHERE session_id = ?1 AND seq = ?2 AND shadowed_by IS NULL",
        )?;
        for (&seq, &by) in &shadowed_by {
            if !pos_of.contains_key(&seq) {
                mark.execute(params![id, seq as i64, by as i64])?;
            }
        }
        Ok(parts)
    }

    /// Adds `text` to the block being filled (a new one when it would grow past
    /// [`BLOCK_BYTES`](super::schema::BLOCK_BYTES)): the id of the block it is in, at the
    /// end of `block.text`.
    fn place(&self, block: &mut Block, text: &str) -> rusqlite::Result<i64> {
        let full =
            !block.text.is_empty() && block.text.len() + text.len() > super::schema::BLOCK_BYTES;
        if block.id.is_none() || full {
            self.flush(block)?;
            // The block's row first, for its id; its data when it is full.
            self.conn
                .prepare_cached("INSERT INTO blocks (data) VALUES ('')")?
                .execute([])?;
            block.id = Some(self.conn.last_insert_rowid());
            block.text.clear();
        }
        block.text.push_str(text);
        Ok(block.id.unwrap_or_default())
    }

    /// Writes the texts of the block being filled.
    fn flush(&self, block: &Block) -> rusqlite::Result<()> {
        if let Some(id) = block.id {
            self.conn
                .prepare_cached("UPDATE blocks SET data = ?2 WHERE id = ?1")?
                .execute(params![id, super::schema::pack_text(&block.text)])?;
        }
        Ok(())
    }

    /// The surface position an earlier read gave the entry `seq` of session `id`.
    fn kept_pos(&self, id: i64, seq: u64) -> rusqlite::Result<Option<i64>> {
        self.conn
            .prepare_cached("SELECT pos FROM messages WHERE session_id = ?1 AND seq = ?2 LIMIT 1")?
            .query_row(params![id, seq as i64], |r| r.get(0))
            .optional()
    }

    /// The tool name an earlier read kept for one of `call_ids`.
    fn kept_tool(&self, id: i64, call_ids: &[String]) -> rusqlite::Result<Option<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT tool FROM calls WHERE session_id = ?1 AND call_id = ?2")?;
        for call in call_ids {
            if let Some(tool) = stmt
                .query_row(params![id, call], |r| r.get::<_, String>(0))
                .optional()?
            {
                return Ok(Some(tool));
            }
        }
        Ok(None)
    }
}

/// The block of texts being filled by [`Writer::insert_rows`].
#[derive(Default)]
struct Block {
    id: Option<i64>,
    text: String,
}

/// What a session read says besides its header, its title and its times, as both the
/// INSERT of a new session and the UPDATE of one taken up bind it (in this order, to the
/// columns `generation`, `status`, `rule`, `message`, `events`, `turns`, `tool_calls`,
/// `models` and the five token columns): an UPDATE adds the counts of the new events to
/// the kept ones, but `events`, which counts them all.
fn verdict_and_counts(s: &SessionRead, models: Vec<ModelUse>) -> [Value; 13] {
    let u = &s.stats.usage;
    let n = |n: u64| Value::Integer(n as i64);
    [
        s.generation.map(str::to_owned).into(),
        s.status.to_owned().into(),
        s.rule.map(str::to_owned).into(),
        s.message.clone().into(),
        n(s.events),
        n(s.stats.turn_count),
        n(s.stats.tool_calls),
        models_json(&models).into(),
        n(u.input),
        n(u.output),
        n(u.cache_read),
        n(u.cache_write),
        n(u.reasoning),
    ]
}

/// The models kept (`old`, JSON) and those of the session read, in the order first named,
/// their assistant messages summed.
fn merge_models(old: Option<&str>, s: &SessionRead) -> Vec<ModelUse> {
    let mut models: Vec<ModelUse> = old
        .and_then(|o| serde_json::from_str(o).ok())
        .unwrap_or_default();
    for m in &s.stats.models {
        match models
            .iter_mut()
            .find(|k| k.provider == m.provider && k.model == m.model)
        {
            Some(k) => k.assistant_messages += m.assistant_messages,
            None => models.push(m.clone()),
        }
    }
    models
}

fn models_json(models: &[ModelUse]) -> String {
    serde_json::to_string(models).unwrap_or_else(|_| "[]".into())
}
