//! Answering from the index: the sessions under some paths ([`Index::sessions`]) and a
//! session's messages by seq ([`Index::messages`]); the search is in [`super::search`].

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use rusqlite::types::Value;

use super::{Index, IndexError, under};
use crate::header::Lineage;
use crate::period::Period;
use crate::view::message_rows::PartKind;
pub use crate::view::stats::ModelUse;

/// Which sessions [`Index::sessions`] lists.
#[derive(Debug, Clone, Default)]
pub struct SessionFilter {
    /// Only sessions in files at or under these paths (absolute, as given to
    /// [`Index::update`]); all when empty.
    pub under: Vec<PathBuf>,
    /// Only sessions whose project (the header's `cwd`) contains this text.
    pub project: Option<String>,
    /// Only the session with this id, or whose id starts with it.
    pub session: Option<String>,
    /// Only sessions active in this period: active at or after its start, created before
    /// its end.
    pub period: Period,
    /// Only sessions of JSONL logs (not of SQLite stores).
    pub jsonl_only: bool,
    /// At most this many, the most recently active first.
    pub limit: Option<usize>,
}

/// Token totals of a session (FORMAT.md §2.4.4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tokens {
    /// Uncached input tokens.
    pub input: u64,
    /// Output tokens (reasoning included).
    pub output: u64,
    /// Cached input tokens read.
    pub cache_read: u64,
    /// Cached input tokens written.
    pub cache_write: u64,
    /// Reasoning tokens (part of output).
    pub reasoning: u64,
}

/// A session as a listed row ([`SessionRow`]) and a search hit ([`super::Hit`]) both name
/// it: the file holding it and its encoding, its id, title and project (`cwd`), where it
/// came from, and `validate`'s verdict on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRef {
    /// The log or store holding it.
    pub file: PathBuf,
    /// `none`, `zstd` or `sqlite`.
    pub encoding: String,
    /// The header's `id` (empty when the log has no readable header).
    pub id: String,
    /// The latest `session/title`.
    pub title: Option<String>,
    /// The header's `cwd`: the project.
    pub cwd: Option<String>,
    /// The header's lineage.
    pub lineage: Lineage,
    /// `validate`'s verdict: `valid`, `torn-tail`, `corrupt`, `refused`, `foreign`, or
    /// `unreadable` for a file that could not be read.
    pub status: String,
    /// The rule behind a verdict other than `valid` (`F2` for a log the frozen edges
    /// refuse).
    pub rule: Option<String>,
}

/// When a session was created and active, ms since the Unix epoch: what
/// [`SessionFilter::period`] is compared with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Times {
    /// The header's `createdAt`.
    pub created_at: Option<i64>,
    /// The first event's time.
    pub first_time: Option<i64>,
    /// The last event's time: the last activity.
    pub last_time: Option<i64>,
}

/// One session as the index keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// Which session, and what it is.
    pub session: SessionRef,
    /// Bytes of the file.
    pub size: u64,
    /// When it was created and active.
    pub times: Times,
    /// A schema 17 store's `revision`.
    pub revision: Option<i64>,
    /// The format generation (`head`, `june-2026`, `v1` … `v4`).
    pub generation: Option<String>,
    /// What the finding (or why the file could not be read) says.
    pub message: Option<String>,
    /// Events in the log.
    pub events: u64,
    /// `turn/start` events.
    pub turns: u64,
    /// `tool/call` events.
    pub tool_calls: u64,
    /// Models, in the order first named.
    pub models: Vec<ModelUse>,
    /// Token totals.
    pub tokens: Tokens,
}

impl SessionRow {
    /// The model most assistant messages named (the first named on a tie), else the first
    /// model named.
    pub fn main_model(&self) -> Option<&ModelUse> {
        let most = self
            .models
            .iter()
            .rev()
            .max_by_key(|m| m.assistant_messages);
        most.filter(|m| m.assistant_messages > 0)
            .or(self.models.first())
    }
}

/// One message part as the index keeps it, without its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessagePart {
    /// The message's seq.
    pub seq: u64,
    /// Its place on the surface: messages in `pos` order (then seq) are the derived
    /// history; a replace takes the place of the first entry it shadowed.
    pub pos: i64,
    /// The `data.turn` of the turn it is in.
    pub turn: Option<i64>,
    /// The event type.
    pub event_type: String,
    /// What part of the message this is.
    pub kind: PartKind,
    /// The message's role.
    pub role: String,
    /// The message's source kind.
    pub source: Option<String>,
    /// The tool (of a tool part), names joined by `,` when the message has several.
    pub tool: Option<String>,
    /// The event's time, ms since the Unix epoch.
    pub time: Option<i64>,
    /// The seq of the replace that took it off the surface, when one did.
    pub shadowed_by: Option<u64>,
}

/// The columns [`part_row`] reads, of `messages m`.
pub(super) const PART_COLUMNS: &str =
    "m.seq, m.pos, m.turn, m.type, m.kind, m.role, m.source, m.tool, m.time, m.shadowed_by";

/// How many columns [`PART_COLUMNS`] names.
pub(super) const PART_WIDTH: usize = column_count(PART_COLUMNS);

/// A [`MessagePart`] from the columns [`PART_COLUMNS`] at `at`.
pub(super) fn part_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<MessagePart> {
    Ok(MessagePart {
        seq: r.get::<_, i64>(at)? as u64,
        pos: r.get(at + 1)?,
        turn: r.get(at + 2)?,
        event_type: r.get(at + 3)?,
        kind: PartKind::from_name(&r.get::<_, String>(at + 4)?).unwrap_or(PartKind::User),
        role: r.get(at + 5)?,
        source: r.get(at + 6)?,
        tool: r.get(at + 7)?,
        time: r.get(at + 8)?,
        shadowed_by: r.get::<_, Option<i64>>(at + 9)?.map(|s| s as u64),
    })
}

/// One message part of a session with its text ([`Index::messages`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageRow {
    /// The part.
    pub part: MessagePart,
    /// The text (each part cut at [`crate::view::message_rows::MAX_PART_BYTES`]).
    pub text: String,
}

/// One message of a session without its text ([`Index::message_seqs`]): where it stands,
/// for a browser that pages through a long history and reads texts only for what it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageSeq {
    /// The message's seq.
    pub seq: u64,
    /// Its place on the surface, as [`MessagePart::pos`].
    pub pos: i64,
    /// The `data.turn` of the turn it is in.
    pub turn: Option<i64>,
    /// The seq of the replace that took it off the surface, when one did.
    pub shadowed_by: Option<u64>,
}

/// SQL conditions and their parameters, built up.
#[derive(Default)]
pub(super) struct Where {
    sql: Vec<String>,
    pub(super) params: Vec<Value>,
}

impl Where {
    pub(super) fn add(&mut self, sql: &str, params: impl IntoIterator<Item = Value>) {
        self.sql.push(sql.to_owned());
        self.params.extend(params);
    }

    pub(super) fn sql(&self) -> String {
        if self.sql.is_empty() {
            "1".into()
        } else {
            self.sql.join(" AND ")
        }
    }

    pub(super) fn sessions(&mut self, f: &SessionFilter) {
        if !f.under.is_empty() {
            let mut any = Vec::new();
            for p in &f.under {
                let (exact, from, to) = under(p);
                any.push("(f.path = ? OR (f.path > ? AND f.path < ?))");
                self.params
                    .extend([Value::Text(exact), Value::Text(from), Value::Text(to)]);
            }
            self.sql.push(format!("({})", any.join(" OR ")));
        }
        if let Some(p) = &f.project {
            self.add("instr(s.cwd, ?) > 0", [Value::Text(p.clone())]);
        }
        if let Some(id) = &f.session {
            self.add(
                "(s.session = ? OR substr(s.session, 1, length(?)) = ?)",
                [
                    Value::Text(id.clone()),
                    Value::Text(id.clone()),
                    Value::Text(id.clone()),
                ],
            );
        }
        if let Some(t) = f.period.since {
            self.add(
                "COALESCE(s.last_time, s.created_at) >= ?",
                [Value::Integer(t)],
            );
        }
        if let Some(t) = f.period.until {
            self.add(
                "COALESCE(s.created_at, s.first_time) < ?",
                [Value::Integer(t)],
            );
        }
        if f.jsonl_only {
            self.add("f.encoding <> 'sqlite'", []);
        }
    }
}

/// One SELECT of the index: what it reads, from which tables, under which conditions, in
/// which order, how many — the one builder every answer from the index is asked through
/// ([`Index::sessions`], the searches of [`super::search`]).
pub(super) struct Select<'a> {
    /// The columns read.
    pub(super) columns: String,
    /// `FROM` and its joins.
    pub(super) from: &'a str,
    /// The conditions and their parameters.
    pub(super) filter: Where,
    /// `ORDER BY`.
    pub(super) order: &'a str,
    /// `LIMIT`: a number, `?` (the last parameter), or none.
    pub(super) limit: Option<String>,
}

impl Select<'_> {
    /// The statement's text.
    pub(super) fn sql(&self) -> String {
        let mut sql = format!(
            "SELECT {} {} WHERE {} ORDER BY {}",
            self.columns,
            self.from,
            self.filter.sql(),
            self.order
        );
        if let Some(limit) = &self.limit {
            sql.push_str(" LIMIT ");
            sql.push_str(limit);
        }
        sql
    }

    /// Every row, each read by `read`; an error of SQLite's goes through `error` (a search
    /// turns FTS5's into a query error).
    pub(super) fn rows<T>(
        self,
        index: &Index,
        read: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
        error: impl Fn(rusqlite::Error) -> IndexError,
    ) -> Result<Vec<T>, IndexError> {
        let mut stmt = index
            .conn
            .prepare(&self.sql())
            .map_err(|e| index.error(e))?;
        stmt.query_map(rusqlite::params_from_iter(self.filter.params), read)
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(error)
    }
}

/// The columns [`session_ref`] reads, of `files f` and `sessions s` (the lineage's as
/// [`lineage_row`] reads them).
pub(super) const REF_COLUMNS: &str = "f.path, f.encoding, s.session, s.title, s.cwd, s.parent_session, s.seed_length, s.origin, s.delegation_depth, s.status, s.rule";

/// How many columns [`REF_COLUMNS`] names.
pub(super) const REF_WIDTH: usize = column_count(REF_COLUMNS);

/// How many columns a list of plain column names separated by `,` names (no expression
/// with a comma in it).
pub(super) const fn column_count(list: &str) -> usize {
    let bytes = list.as_bytes();
    let (mut n, mut i) = (1, 0);
    while i < bytes.len() {
        if bytes[i] == b',' {
            n += 1;
        }
        i += 1;
    }
    n
}

/// A [`SessionRef`] from the columns [`REF_COLUMNS`] at `at` (a file that could not be
/// read has no session: no id, status `unreadable`).
pub(super) fn session_ref(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<SessionRef> {
    Ok(SessionRef {
        file: PathBuf::from(r.get::<_, String>(at)?),
        encoding: r.get(at + 1)?,
        id: r.get::<_, Option<String>>(at + 2)?.unwrap_or_default(),
        title: r.get(at + 3)?,
        cwd: r.get(at + 4)?,
        lineage: lineage_row(r, at + 5)?,
        status: r
            .get::<_, Option<String>>(at + 9)?
            .unwrap_or_else(|| "unreadable".into()),
        rule: r.get(at + 10)?,
    })
}

/// A [`Lineage`] from the four columns `parentSession`, `seedLength`, `origin` and
/// `delegationDepth` of `sessions` at `at`.
fn lineage_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Lineage> {
    Ok(Lineage {
        parent_session: r.get(at)?,
        seed_length: r.get(at + 1)?,
        origin: r.get(at + 2)?,
        delegation_depth: r.get(at + 3)?,
    })
}

/// The columns [`session_row`] reads: what a listed row adds to its [`SessionRef`].
pub(super) const ROW_COLUMNS: &str = "f.size, f.error, s.created_at, s.first_time, s.last_time, s.revision, s.generation, s.message, s.events, s.turns, s.tool_calls, s.models, s.input_tokens, s.output_tokens, s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens";

/// The [`SessionRow`] of `session` from the columns [`ROW_COLUMNS`] at `at`.
pub(super) fn session_row(
    r: &rusqlite::Row<'_>,
    at: usize,
    session: SessionRef,
) -> rusqlite::Result<SessionRow> {
    let n = |i: usize| -> rusqlite::Result<u64> {
        Ok(r.get::<_, Option<i64>>(at + i)?.unwrap_or(0).max(0) as u64)
    };
    let error: Option<String> = r.get(at + 1)?;
    let models: Option<String> = r.get(at + 11)?;
    let models: Vec<ModelUse> = models
        .and_then(|m| serde_json::from_str(&m).ok())
        .unwrap_or_default();
    Ok(SessionRow {
        session,
        size: n(0)?,
        times: Times {
            created_at: r.get(at + 2)?,
            first_time: r.get(at + 3)?,
            last_time: r.get(at + 4)?,
        },
        revision: r.get(at + 5)?,
        generation: r.get(at + 6)?,
        message: r.get::<_, Option<String>>(at + 7)?.or(error),
        events: n(8)?,
        turns: n(9)?,
        tool_calls: n(10)?,
        models,
        tokens: Tokens {
            input: n(12)?,
            output: n(13)?,
            cache_read: n(14)?,
            cache_write: n(15)?,
            reasoning: n(16)?,
        },
    })
}

impl Index {
    /// The sessions `filter` picks, the most recently active first (a file that could not
    /// be read is listed with status `unreadable` and no session id).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn sessions(&self, filter: &SessionFilter) -> Result<Vec<SessionRow>, IndexError> {
        let mut filter_sql = Where::default();
        filter_sql.add("(s.id IS NOT NULL OR f.error IS NOT NULL)", []);
        filter_sql.sessions(filter);
        Select {
            columns: format!("{REF_COLUMNS}, {ROW_COLUMNS}"),
            from: "FROM files f LEFT JOIN sessions s ON s.file_id = f.id",
            filter: filter_sql,
            order: "COALESCE(s.last_time, s.created_at) DESC NULLS LAST, f.path, s.session",
            limit: Some(filter.limit.map_or(-1, |n| n as i64).to_string()),
        }
        .rows(
            self,
            |r| session_row(r, REF_WIDTH, session_ref(r, 0)?),
            |e| self.error(e),
        )
    }

    /// The message parts of session `session` of `file` whose seqs are in `seqs`, in
    /// surface order (then seq), shadowed ones only with `include_shadowed`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn messages(
        &self,
        file: &Path,
        session: &str,
        seqs: RangeInclusive<u64>,
        include_shadowed: bool,
    ) -> Result<Vec<MessageRow>, IndexError> {
        let end = i64::try_from(*seqs.end()).unwrap_or(i64::MAX);
        let sql = format!(
            "SELECT {PART_COLUMNS}, m.block, m.start, m.len FROM files f JOIN sessions s ON s.file_id = f.id JOIN messages m ON m.session_id = s.id WHERE f.path = ?1 AND s.session = ?2 AND m.seq BETWEEN ?3 AND ?4 {} ORDER BY m.pos, m.seq, m.id",
            if include_shadowed {
                ""
            } else {
                "AND m.shadowed_by IS NULL"
            }
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.error(e))?;
        let start = i64::try_from(*seqs.start()).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(
                rusqlite::params![file.to_string_lossy(), session, start, end],
                |r| {
                    Ok((
                        part_row(r, 0)?,
                        super::schema::TextAt::from_row(r, PART_WIDTH)?,
                    ))
                },
            )
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.error(e))?;
        let mut texts = super::schema::Texts::new(&self.conn).map_err(|e| self.error(e))?;
        rows.into_iter()
            .map(|(part, at)| {
                let text = texts.get(at).map_err(|e| self.error(e))?;
                Ok(MessageRow { part, text })
            })
            .collect()
    }

    /// Every message of session `session` of `file`, one per seq, shadowed ones included,
    /// in surface order (then seq), without texts: about 32 bytes a message, so a
    /// 100,000-message history is listed at once and its texts read with
    /// [`Index::messages`] as they are shown.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn message_seqs(&self, file: &Path, session: &str) -> Result<Vec<MessageSeq>, IndexError> {
        let sql = "SELECT m.seq, MIN(m.pos), m.turn, m.shadowed_by FROM files f JOIN sessions s ON s.file_id = f.id JOIN messages m ON m.session_id = s.id WHERE f.path = ?1 AND s.session = ?2 GROUP BY m.seq ORDER BY MIN(m.pos), m.seq";
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map(rusqlite::params![file.to_string_lossy(), session], |r| {
                Ok(MessageSeq {
                    seq: r.get::<_, i64>(0)? as u64,
                    pos: r.get(1)?,
                    turn: r.get(2)?,
                    shadowed_by: r.get::<_, Option<i64>>(3)?.map(|s| s as u64),
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.error(e))?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_widths_count_the_columns() {
        assert_eq!(REF_COLUMNS.split(", ").count(), REF_WIDTH);
        assert_eq!(PART_COLUMNS.split(", ").count(), PART_WIDTH);
    }
}
