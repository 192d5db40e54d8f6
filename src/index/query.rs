//! Answering from the index: the sessions under some paths ([`Index::sessions`]), a
//! full-text search over the message texts ([`Index::search`], [`Index::search_sessions`]),
//! and a session's messages by seq ([`Index::messages`]).

use std::ops::{Range, RangeInclusive};
use std::path::{Path, PathBuf};

use rusqlite::types::Value;

use super::writer::ModelJson;
use super::{Index, IndexError, under};
use crate::view::message_rows::PartKind;

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
    /// Only sessions active at or after this time (ms since the Unix epoch).
    pub since: Option<i64>,
    /// Only sessions created before this time (ms since the Unix epoch).
    pub until: Option<i64>,
    /// Only sessions of JSONL logs (not of SQLite stores).
    pub jsonl_only: bool,
    /// At most this many, the most recently active first.
    pub limit: Option<usize>,
}

/// One provider and model a session's assistant messages named.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ModelUse {
    /// The provider id.
    pub provider: String,
    /// The model id.
    pub model: String,
    /// Assistant messages that named it (0 for a model only selected).
    pub assistant_messages: u64,
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

/// One session as the index keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// The log or store holding it.
    pub file: PathBuf,
    /// `none`, `zstd` or `sqlite`.
    pub encoding: String,
    /// Bytes of the file.
    pub size: u64,
    /// The header's `id` (empty when the log has no readable header).
    pub session: String,
    /// The latest `session/title`.
    pub title: Option<String>,
    /// The header's `cwd`: the project.
    pub cwd: Option<String>,
    /// The header's `createdAt`, ms since the Unix epoch.
    pub created_at: Option<i64>,
    /// The first event's time.
    pub first_time: Option<i64>,
    /// The last event's time: the last activity.
    pub last_time: Option<i64>,
    /// The header's `parentSession`.
    pub parent_session: Option<String>,
    /// The header's `seedLength`.
    pub seed_length: Option<i64>,
    /// The header's `origin`.
    pub origin: Option<String>,
    /// The header's `delegationDepth`.
    pub delegation_depth: Option<i64>,
    /// A schema 17 store's `revision`.
    pub revision: Option<i64>,
    /// The format generation (`head`, `june-2026`, `v1` … `v4`).
    pub generation: Option<String>,
    /// `validate`'s verdict: `valid`, `torn-tail`, `corrupt`, `refused`, or `unreadable`
    /// for a file that could not be read.
    pub status: String,
    /// The rule behind a verdict other than `valid`.
    pub rule: Option<String>,
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

/// What [`Index::search`] looks for.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// The words: plain words (each must occur, as a substring, case-insensitively), or
    /// FTS5 syntax (phrases in double quotes, `AND`/`OR`/`NOT`, `NEAR(...)`, parentheses,
    /// a prefix `*`). See [`Index::search`].
    pub text: String,
    /// The sessions to search, as for [`SessionFilter`] (`limit` aside).
    pub sessions: SessionFilter,
    /// Only message times at or after (ms since the Unix epoch).
    pub since: Option<i64>,
    /// Only message times before.
    pub until: Option<i64>,
    /// Only these kinds of text; all when empty.
    pub kinds: Vec<PartKind>,
    /// Only tool calls and results of this tool.
    pub tool: Option<String>,
    /// Also messages a replace took off the surface (a compaction, a pruned result).
    pub include_shadowed: bool,
    /// At most this many hits, the best first.
    pub limit: Option<usize>,
}

/// A search hit's text around the match: `matches` are byte ranges of `text` to highlight.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snippet {
    /// The text (on one line: newlines and tabs are spaces); `…` marks a cut.
    pub text: String,
    /// Byte ranges of `text` that matched.
    pub matches: Vec<Range<usize>>,
}

/// One message part that matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The log or store.
    pub file: PathBuf,
    /// `none`, `zstd` or `sqlite`.
    pub encoding: String,
    /// The session id.
    pub session: String,
    /// The session's title.
    pub title: Option<String>,
    /// The session's project (`cwd`).
    pub project: Option<String>,
    /// The turn the message is in.
    pub turn: Option<i64>,
    /// The message's seq.
    pub seq: u64,
    /// What part of the message matched.
    pub kind: PartKind,
    /// The message's role.
    pub role: String,
    /// The message's source kind.
    pub source: Option<String>,
    /// The tool (of a tool part).
    pub tool: Option<String>,
    /// The event's time, ms since the Unix epoch.
    pub time: Option<i64>,
    /// The seq of the replace that took it off the surface, when one did.
    pub shadowed_by: Option<u64>,
    /// The matching text.
    pub snippet: Snippet,
    /// FTS5's bm25 rank (lower is better; 0 for a search by short words only).
    pub rank: f64,
}

/// A session with hits ([`Index::search_sessions`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionHits {
    /// The session.
    pub session: SessionRow,
    /// Its hits.
    pub hits: u64,
}

/// One message part of a session ([`Index::messages`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageRow {
    /// The message's seq.
    pub seq: u64,
    /// Its place on the surface: messages in `pos` order (then seq) are the derived
    /// history; a replace takes the place of the first entry it shadowed.
    pub pos: i64,
    /// The turn.
    pub turn: Option<i64>,
    /// The event type.
    pub event_type: String,
    /// What part this is.
    pub kind: PartKind,
    /// The message's role.
    pub role: String,
    /// The message's source kind.
    pub source: Option<String>,
    /// The tool.
    pub tool: Option<String>,
    /// The event's time.
    pub time: Option<i64>,
    /// The replace that took it off the surface.
    pub shadowed_by: Option<u64>,
    /// The text (each part cut at [`crate::view::message_rows::MAX_PART_BYTES`]).
    pub text: String,
}

/// Marks around a match while a snippet is built (private-use characters).
const OPEN: char = '\u{E000}';
const CLOSE: char = '\u{E001}';

/// SQL conditions and their parameters, built up.
#[derive(Default)]
struct Where {
    sql: Vec<String>,
    params: Vec<Value>,
}

impl Where {
    fn add(&mut self, sql: &str, params: impl IntoIterator<Item = Value>) {
        self.sql.push(sql.to_owned());
        self.params.extend(params);
    }

    fn sql(&self) -> String {
        if self.sql.is_empty() {
            "1".into()
        } else {
            self.sql.join(" AND ")
        }
    }

    fn sessions(&mut self, f: &SessionFilter) {
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
        if let Some(t) = f.since {
            self.add(
                "COALESCE(s.last_time, s.created_at) >= ?",
                [Value::Integer(t)],
            );
        }
        if let Some(t) = f.until {
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

const SESSION_COLUMNS: &str = "f.path, f.encoding, f.size, f.error, s.session, s.title, s.cwd, s.created_at, s.first_time, s.last_time, s.parent_session, s.seed_length, s.origin, s.delegation_depth, s.revision, s.generation, s.status, s.rule, s.message, s.events, s.turns, s.tool_calls, s.models, s.input_tokens, s.output_tokens, s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens";

/// A [`SessionRow`] from the columns [`SESSION_COLUMNS`] at `at`.
fn session_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<SessionRow> {
    let n = |i: usize| -> rusqlite::Result<u64> {
        Ok(r.get::<_, Option<i64>>(at + i)?.unwrap_or(0).max(0) as u64)
    };
    let error: Option<String> = r.get(at + 3)?;
    let status: Option<String> = r.get(at + 16)?;
    let models: Option<String> = r.get(at + 22)?;
    let models: Vec<ModelJson> = models
        .and_then(|m| serde_json::from_str(&m).ok())
        .unwrap_or_default();
    Ok(SessionRow {
        file: PathBuf::from(r.get::<_, String>(at)?),
        encoding: r.get(at + 1)?,
        size: n(2)?,
        session: r.get::<_, Option<String>>(at + 4)?.unwrap_or_default(),
        title: r.get(at + 5)?,
        cwd: r.get(at + 6)?,
        created_at: r.get(at + 7)?,
        first_time: r.get(at + 8)?,
        last_time: r.get(at + 9)?,
        parent_session: r.get(at + 10)?,
        seed_length: r.get(at + 11)?,
        origin: r.get(at + 12)?,
        delegation_depth: r.get(at + 13)?,
        revision: r.get(at + 14)?,
        generation: r.get(at + 15)?,
        message: r.get::<_, Option<String>>(at + 18)?.or(error),
        status: status.unwrap_or_else(|| "unreadable".into()),
        rule: r.get(at + 17)?,
        events: n(19)?,
        turns: n(20)?,
        tool_calls: n(21)?,
        models: models
            .into_iter()
            .map(|m| ModelUse {
                provider: m.provider,
                model: m.model,
                assistant_messages: m.assistant_messages,
            })
            .collect(),
        tokens: Tokens {
            input: n(23)?,
            output: n(24)?,
            cache_read: n(25)?,
            cache_write: n(26)?,
            reasoning: n(27)?,
        },
    })
}

/// How a query's text goes to SQLite: an FTS5 expression for `MATCH` (absent when every
/// word is shorter than a trigram), words to find with `LIKE`, and the terms a snippet
/// marks.
#[derive(Debug, PartialEq, Eq)]
struct Translated {
    fts: Option<String>,
    likes: Vec<String>,
    terms: Vec<String>,
}

/// True when `text` uses FTS5 syntax: a double quote, a parenthesis, a prefix `*`, a
/// column filter's `^`, or one of the operators `AND`, `OR`, `NOT`, `NEAR` as a word.
fn is_fts_syntax(text: &str) -> bool {
    text.contains(['"', '(', ')', '*', '^'])
        || text
            .split_whitespace()
            .any(|w| matches!(w, "AND" | "OR" | "NOT") || w.starts_with("NEAR"))
}

/// The strings an FTS5 expression looks for: its quoted phrases and its bare words, the
/// operators, `NEAR`'s distance and the marks `*`, `^`, `+` left out.
fn fts_terms(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        bare_terms(&rest[..open], &mut terms);
        let mut phrase = String::new();
        let mut chars = rest[open + 1..].char_indices();
        let mut end = rest.len();
        while let Some((i, c)) = chars.next() {
            if c == '"' {
                if rest[open + 1 + i + 1..].starts_with('"') {
                    phrase.push('"');
                    chars.next();
                    continue;
                }
                end = open + 1 + i + 1;
                break;
            }
            phrase.push(c);
        }
        if !phrase.is_empty() {
            terms.push(phrase);
        }
        rest = &rest[end.min(rest.len())..];
    }
    bare_terms(rest, &mut terms);
    terms
}

fn bare_terms(text: &str, out: &mut Vec<String>) {
    let mut after_comma = false;
    for word in text.split(|c: char| c.is_whitespace() || c == '(' || c == ')') {
        let comma = word.ends_with(',');
        let w = word.trim_matches(|c| matches!(c, '*' | '^' | '+' | ','));
        let operator = matches!(w, "AND" | "OR" | "NOT" | "NEAR");
        let distance = after_comma && w.bytes().all(|b| b.is_ascii_digit());
        if !w.is_empty() && !operator && !distance {
            out.push(w.to_owned());
        }
        after_comma = comma || word == ",";
    }
}

/// Plain words become phrases FTS5 matches as substrings (trigram tokenizer), so a word
/// with punctuation (`src/lib.rs`, `foo-bar`) just works; a word shorter than three
/// characters (a two-character CJK word) has no trigram and is found with `LIKE`.
fn translate(text: &str) -> Translated {
    if is_fts_syntax(text) {
        return Translated {
            fts: Some(text.to_owned()),
            likes: Vec::new(),
            terms: fts_terms(text),
        };
    }
    let mut phrases = Vec::new();
    let mut likes = Vec::new();
    for word in text.split_whitespace() {
        if word.chars().count() >= 3 {
            phrases.push(format!("\"{}\"", word.replace('"', "\"\"")));
        } else {
            likes.push(word.to_owned());
        }
    }
    Translated {
        fts: (!phrases.is_empty()).then(|| phrases.join(" ")),
        likes,
        terms: text.split_whitespace().map(str::to_owned).collect(),
    }
}

/// A `LIKE` pattern for a substring (`\` escapes `%`, `_` and itself).
fn like_pattern(word: &str) -> String {
    let mut p = String::from("%");
    for c in word.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// A marked snippet, its marks turned into byte ranges, on one line.
fn parse_snippet(marked: &str) -> Snippet {
    let mut text = String::with_capacity(marked.len());
    let mut matches: Vec<Range<usize>> = Vec::new();
    let mut start = None;
    for c in marked.chars() {
        match c {
            OPEN => start = Some(text.len()),
            CLOSE => {
                if let Some(s) = start.take() {
                    // Trigram matches overlap: join what touches.
                    match matches.last_mut() {
                        Some(last) if last.end >= s => last.end = last.end.max(text.len()),
                        _ => matches.push(s..text.len()),
                    }
                }
            }
            '\n' | '\r' | '\t' => text.push(' '),
            c if c.is_control() => text.push(' '),
            c => text.push(c),
        }
    }
    Snippet { text, matches }
}

/// A snippet of `text` around the first of `words` (ASCII letters found without case),
/// every occurrence in it marked. (The full-text table keeps no text of its own, so
/// FTS5's `snippet()` has nothing to cut: the snippet is cut here from `messages.text`.)
fn snippet_of(text: &str, words: &[String], around: usize) -> Snippet {
    let folded = text.to_ascii_lowercase();
    let words: Vec<String> = words
        .iter()
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let first = words
        .iter()
        .filter_map(|w| folded.find(w.as_str()))
        .min()
        .unwrap_or(0);
    let start = text[..first]
        .char_indices()
        .rev()
        .nth(around)
        .map_or(0, |(i, _)| i);
    let mut end = first.saturating_add(around * 8).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut spans: Vec<Range<usize>> = Vec::new();
    for w in &words {
        let mut from = start;
        while let Some(at) = folded[from..end].find(w.as_str()).map(|i| i + from) {
            spans.push(at..at + w.len());
            from = at + w.len();
        }
    }
    spans.sort_by_key(|r| r.start);
    let mut marked = String::new();
    if start > 0 {
        marked.push('…');
    }
    let mut last = start;
    for r in spans.into_iter().filter(|r| r.start >= start) {
        if r.start < last {
            continue;
        }
        marked.push_str(&text[last..r.start]);
        marked.push(OPEN);
        marked.push_str(&text[r.clone()]);
        marked.push(CLOSE);
        last = r.end;
    }
    marked.push_str(&text[last..end]);
    if end < text.len() {
        marked.push('…');
    }
    parse_snippet(&marked)
}

impl Index {
    /// The sessions `filter` picks, the most recently active first (a file that could not
    /// be read is listed with status `unreadable` and no session id).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn sessions(&self, filter: &SessionFilter) -> Result<Vec<SessionRow>, IndexError> {
        let mut w = Where::default();
        w.sessions(filter);
        let limit = filter.limit.map_or(-1, |n| n as i64);
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM files f LEFT JOIN sessions s ON s.file_id = f.id WHERE (s.id IS NOT NULL OR f.error IS NOT NULL) AND {} ORDER BY COALESCE(s.last_time, s.created_at) DESC NULLS LAST, f.path, s.session LIMIT {limit}",
            w.sql()
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(w.params), |r| session_row(r, 0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.error(e))?;
        Ok(rows)
    }

    /// The hits of `query`, the best first: FTS5's bm25 rank, then the newest.
    ///
    /// Plain words must each occur in a message part, as substrings, without regard to
    /// case (`cargo test` finds "Cargo testing"); a word of one or two characters (a
    /// two-character CJK word) is found too, by a scan of the texts the other words
    /// left (slower when it is the only word). Text with FTS5 syntax goes to FTS5 as it
    /// is: `"exact phrase"`, `a OR b`, `a NOT b`, `NEAR(a b, 5)`, `prefix*`; there every
    /// term needs three characters or more.
    ///
    /// # Errors
    /// [`IndexError::Query`] for FTS5 syntax SQLite refuses, or an empty query; SQLite
    /// errors.
    pub fn search(&self, query: &Query) -> Result<Vec<Hit>, IndexError> {
        let (sql, params, terms) = self.search_sql(query, false)?;
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params), |r| {
                let text = super::schema::unpack_text(r.get_ref(13)?);
                Ok(Hit {
                    file: PathBuf::from(r.get::<_, String>(0)?),
                    encoding: r.get(1)?,
                    session: r.get(2)?,
                    title: r.get(3)?,
                    project: r.get(4)?,
                    turn: r.get(5)?,
                    seq: r.get::<_, i64>(6)? as u64,
                    kind: PartKind::from_name(&r.get::<_, String>(7)?).unwrap_or(PartKind::User),
                    role: r.get(8)?,
                    source: r.get(9)?,
                    tool: r.get(10)?,
                    time: r.get(11)?,
                    shadowed_by: r.get::<_, Option<i64>>(12)?.map(|s| s as u64),
                    snippet: snippet_of(&text, &terms, 40),
                    rank: r.get(14)?,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.query_error(query, e))?;
        Ok(rows)
    }

    /// The sessions with hits for `query` (its limit counts sessions), the best first, each
    /// with its number of hits.
    ///
    /// # Errors
    /// As [`Index::search`].
    pub fn search_sessions(&self, query: &Query) -> Result<Vec<SessionHits>, IndexError> {
        let (sql, params, _) = self.search_sql(query, true)?;
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params), |r| {
                Ok(SessionHits {
                    session: session_row(r, 0)?,
                    hits: r.get::<_, i64>(28)? as u64,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.query_error(query, e))?;
        Ok(rows)
    }

    /// The SQL of a search, its parameters, and the terms its snippets mark.
    fn search_sql(
        &self,
        query: &Query,
        by_session: bool,
    ) -> Result<(String, Vec<Value>, Vec<String>), IndexError> {
        let t = translate(&query.text);
        if t.fts.is_none() && t.likes.is_empty() {
            return Err(IndexError::Query {
                query: query.text.clone(),
                reason: "nothing to search for".into(),
            });
        }
        let mut w = Where::default();
        if let Some(fts) = &t.fts {
            w.add("texts MATCH ?", [Value::Text(fts.clone())]);
        }
        for word in &t.likes {
            w.add(
                "dsh_text(m.text) LIKE ? ESCAPE '\\'",
                [Value::Text(like_pattern(word))],
            );
        }
        w.sessions(&query.sessions);
        if let Some(t) = query.since {
            w.add("m.time >= ?", [Value::Integer(t)]);
        }
        if let Some(t) = query.until {
            w.add("m.time < ?", [Value::Integer(t)]);
        }
        if !query.kinds.is_empty() {
            let marks = vec!["?"; query.kinds.len()].join(", ");
            w.add(
                &format!("m.kind IN ({marks})"),
                query.kinds.iter().map(|k| Value::Text(k.name().into())),
            );
        }
        if let Some(tool) = &query.tool {
            w.add(
                "instr(',' || m.tool || ',', ',' || ? || ',') > 0",
                [Value::Text(tool.clone())],
            );
        }
        if !query.include_shadowed {
            w.add("m.shadowed_by IS NULL", []);
        }
        let rank = if t.fts.is_some() {
            "bm25(texts)"
        } else {
            "0.0"
        };
        let limit = query.limit.map_or(-1, |n| n as i64);
        let from = if t.fts.is_some() {
            "FROM texts JOIN messages m ON m.id = texts.rowid JOIN sessions s ON s.id = m.session_id JOIN files f ON f.id = s.file_id"
        } else {
            "FROM messages m JOIN sessions s ON s.id = m.session_id JOIN files f ON f.id = s.file_id"
        };
        let sql = if by_session {
            // bm25() cannot be aggregated: rank the hits first, then group them.
            format!(
                "WITH ranked AS MATERIALIZED (SELECT s.id AS session_id, {rank} AS best, m.time AS time {from} WHERE {}), h AS (SELECT session_id, count(*) AS hits, min(best) AS best, max(time) AS latest FROM ranked GROUP BY session_id) SELECT {SESSION_COLUMNS}, h.hits FROM h JOIN sessions s ON s.id = h.session_id JOIN files f ON f.id = s.file_id ORDER BY h.best, h.latest DESC LIMIT {limit}",
                w.sql()
            )
        } else {
            format!(
                "SELECT f.path, f.encoding, s.session, s.title, s.cwd, m.turn, m.seq, m.kind, m.role, m.source, m.tool, m.time, m.shadowed_by, m.text, {rank} AS best {from} WHERE {} ORDER BY best, m.time DESC LIMIT {limit}",
                w.sql()
            )
        };
        Ok((sql, w.params, t.terms))
    }

    /// A query error for FTS5 syntax SQLite refused, else the SQLite error.
    fn query_error(&self, query: &Query, e: rusqlite::Error) -> IndexError {
        let text = e.to_string();
        if text.contains("fts5") || text.contains("syntax error") || text.contains("no such column")
        {
            return IndexError::Query {
                query: query.text.clone(),
                reason: text,
            };
        }
        self.error(e)
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
            "SELECT m.seq, m.pos, m.turn, m.type, m.kind, m.role, m.source, m.tool, m.time, m.shadowed_by, m.text FROM files f JOIN sessions s ON s.file_id = f.id JOIN messages m ON m.session_id = s.id WHERE f.path = ?1 AND s.session = ?2 AND m.seq BETWEEN ?3 AND ?4 {} ORDER BY m.pos, m.seq, m.id",
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
                    Ok(MessageRow {
                        seq: r.get::<_, i64>(0)? as u64,
                        pos: r.get(1)?,
                        turn: r.get(2)?,
                        event_type: r.get(3)?,
                        kind: PartKind::from_name(&r.get::<_, String>(4)?)
                            .unwrap_or(PartKind::User),
                        role: r.get(5)?,
                        source: r.get(6)?,
                        tool: r.get(7)?,
                        time: r.get(8)?,
                        shadowed_by: r.get::<_, Option<i64>>(9)?.map(|s| s as u64),
                        text: super::schema::unpack_text(r.get_ref(10)?),
                    })
                },
            )
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.error(e))?;
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_become_phrases_and_short_words_likes() {
        assert_eq!(
            translate("src/lib.rs 测试 cargo"),
            Translated {
                fts: Some("\"src/lib.rs\" \"cargo\"".into()),
                likes: vec!["测试".into()],
                terms: vec!["src/lib.rs".into(), "测试".into(), "cargo".into()],
            }
        );
        assert_eq!(
            fts_terms("\"a \"\"b\"\"\" OR NEAR(foo bar*, 5) NOT ^baz"),
            ["a \"b\"", "foo", "bar", "baz"]
        );
        assert_eq!(translate("a OR bcd").fts.as_deref(), Some("a OR bcd"));
        assert_eq!(translate("\"x y\"").fts.as_deref(), Some("\"x y\""));
        assert_eq!(translate("ab").fts, None);
        assert_eq!(like_pattern("50%_a\\"), "%50\\%\\_a\\\\%");
    }

    #[test]
    fn snippets_mark_byte_ranges_on_one_line() {
        let s = parse_snippet("…a \u{E000}foo\u{E001}\n\u{E000}bar\u{E001}");
        assert_eq!(s.text, "…a foo bar");
        assert_eq!(&s.text[s.matches[0].clone()], "foo");
        assert_eq!(&s.text[s.matches[1].clone()], "bar");
        let s = snippet_of("前面的话 指南针 后面", &["指南".into()], 3);
        assert_eq!(&s.text[s.matches[0].clone()], "指南");
        let s = snippet_of("Hello World", &["wo".into()], 40);
        assert_eq!(&s.text[s.matches[0].clone()], "Wo");
    }
}
