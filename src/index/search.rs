//! The full-text search ([`Index::search`], [`Index::search_sessions`]): a query's words
//! to FTS5, the filters to SQL, and the hits ranked and cut into snippets here.
//!
//! Why the newest matches first: message parts get rowids in the order they are written,
//! and an update writes logs from the least to the most recently modified (a log that
//! grew gets its new parts after every other), so FTS5, which hands out matches in rowid
//! order, gives the parts of the most recently modified logs first, each log's latest
//! first. A search stops after the [`CANDIDATES`] newest that pass the filters, however
//! common its words: a word in every message costs about what a rare one costs. FTS5's own
//! `bm25()` would read every match first (the document frequency of a trigram phrase is a
//! pass over its whole position list): a quarter of a second for a common word over
//! 10,000 sessions.

use std::ops::Range;
use std::path::PathBuf;

use rusqlite::types::Value;

use super::expr::{Expr, fold};
use super::query::{
    MessagePart, PART_COLUMNS, PART_WIDTH, REF_COLUMNS, REF_WIDTH, ROW_COLUMNS, Select,
    SessionFilter, SessionRef, SessionRow, Where, column_count, part_row, session_ref, session_row,
};
use super::schema::{TextAt, Texts};
use super::{Index, IndexError};
use crate::period::Period;
use crate::view::message_rows::PartKind;

/// Matches ranked per search: the newest that pass the filters (more when the limit asks
/// for more).
pub const CANDIDATES: usize = 1000;

/// What [`Index::search`] looks for.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// The words: plain words (each must occur, as a substring, case-insensitively), or
    /// FTS5 syntax (phrases in double quotes, `AND`/`OR`/`NOT`, `NEAR(...)`, parentheses,
    /// a prefix `*`). See [`Index::search`].
    pub text: String,
    /// The sessions to search, as for [`SessionFilter`] (`limit` aside).
    pub sessions: SessionFilter,
    /// Only messages of this period (a title or project hit: sessions active in it, as
    /// [`SessionFilter::period`]).
    pub period: Period,
    /// Only these kinds of text; all when empty.
    pub kinds: Vec<PartKind>,
    /// Only tool calls and results of this tool.
    pub tool: Option<String>,
    /// Also messages a replace took off the surface (a compaction, a pruned result).
    pub include_shadowed: bool,
    /// At most this many hits, the best first (`None`: every hit, all ranked, which reads
    /// every match).
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
    /// The session (its lineage: a subagent's or a fork's hits rank below the parent's,
    /// [`LINEAGE_WEIGHT`]).
    pub session: SessionRef,
    /// What matched: a message part's text (or its tool's name), the session's title, or
    /// its project.
    pub field: Field,
    /// The part that matched (for a title or project hit: the session's first message
    /// part, seq 0 when the index holds none).
    pub part: MessagePart,
    /// The seqs of the other hits of the same run of assistant messages (one turn of the
    /// agent's replies) grouped into this one, in seq order.
    pub grouped: Vec<u64>,
    /// The matching text.
    pub snippet: Snippet,
    /// How well the part matches, higher is better (see [`Index::search`]).
    pub score: f64,
}

/// What a [`Hit`] matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// A message part's text, or the name of the tool of a tool part.
    Message,
    /// The session's title (the latest `session/title`).
    Title,
    /// The session's project (the header's `cwd`).
    Project,
}

impl Field {
    /// `message`, `title` or `project`.
    pub fn name(self) -> &'static str {
        match self {
            Field::Message => "message",
            Field::Title => "title",
            Field::Project => "project",
        }
    }

    /// How much a match here weighs against a message part's, BM25 being the same.
    fn weight(self) -> f64 {
        match self {
            Field::Message => 1.0,
            Field::Title => TITLE_WEIGHT,
            Field::Project => PROJECT_WEIGHT,
        }
    }
}

/// A title's match weighs this many message parts' (a title names what the session is).
pub const TITLE_WEIGHT: f64 = 3.0;
/// A project path's match weighs this much of a message part's: a path is shared by every
/// session of a project, so it says less of any one.
pub const PROJECT_WEIGHT: f64 = 0.5;
/// The score of a subagent's or a fork's hit is multiplied by this, so the same match
/// ranks below its parent's.
pub const LINEAGE_WEIGHT: f64 = 0.5;

/// A session with hits ([`Index::search_sessions`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionHits {
    /// The session.
    pub session: SessionRow,
    /// Its newest hit.
    pub newest: Hit,
}

/// Marks around a match while a snippet is built (private-use characters).
const OPEN: char = '\u{E000}';
const CLOSE: char = '\u{E001}';

/// How a query's text goes to SQLite: the FTS5 expression over grams that
/// finds its candidates ([`super::expr::Expr::candidates`]; absent when the table cannot
/// narrow them, e.g. every word is shorter than a trigram), what each candidate's text
/// must hold, and the terms a snippet marks.
#[derive(Debug, PartialEq, Eq)]
struct Translated {
    fts: Option<String>,
    check: Expr,
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

/// What is wrong with FTS5 syntax, in the query's own words, before SQLite reads it: a
/// phrase whose `"` is never closed, a parenthesis never closed or closing nothing, an
/// operator with nothing on one side. Columns are counted in characters from 1.
pub fn syntax_problem(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut open_quote = None;
    let mut parens: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if open_quote.is_some() {
            if c == '"' {
                if chars.get(i + 1) == Some(&'"') {
                    i += 2;
                    continue;
                }
                open_quote = None;
            }
        } else if c == '"' {
            open_quote = Some(i);
        } else if c == '(' {
            parens.push(i);
        } else if c == ')' && parens.pop().is_none() {
            return Some(format!("the `)` at character {} closes no `(`", i + 1));
        }
        i += 1;
    }
    if let Some(at) = open_quote {
        return Some(format!(
            "the phrase opened by the `\"` at character {} is never closed: add a closing `\"`, or drop the quote to search for the words",
            at + 1
        ));
    }
    if let Some(at) = parens.pop() {
        return Some(format!("the `(` at character {} is never closed", at + 1));
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    for (n, w) in words.iter().enumerate() {
        if matches!(*w, "AND" | "OR" | "NOT") && (n == 0 || n + 1 == words.len()) {
            let side = if n == 0 { "before" } else { "after" };
            return Some(format!(
                "`{w}` has nothing {side} it: put a word on each side, or write it in lower case to search for the word"
            ));
        }
    }
    None
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

/// Plain words must each occur as substrings, so a word with punctuation (`src/lib.rs`,
/// `foo-bar`) just works; FTS5 syntax keeps its operators (`NEAR` as `AND`). The
/// full-text table gives the candidates by their grams, and each candidate's text is
/// checked; a word with no gram (of one or two characters, but a two-character CJK word)
/// is found by that check alone (all texts, newest first, when it is the
/// only word).
fn translate(text: &str) -> Translated {
    let (check, terms) = if is_fts_syntax(text) {
        (Expr::fts(text), fts_terms(text))
    } else {
        (
            Expr::words(text),
            text.split_whitespace().map(str::to_owned).collect(),
        )
    };
    Translated {
        fts: check.candidates(),
        check,
        terms,
    }
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

/// BM25 scores of `texts` for `terms`, over the candidates themselves (their number, the
/// average length, in how many of them each term occurs): how often the words occur in a
/// part for its length, rarer words weighing more. ASCII letters are compared without case.
fn scores(texts: &[String], terms: &[String]) -> Vec<f64> {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    let terms: Vec<String> = terms.iter().map(|t| t.to_ascii_lowercase()).collect();
    let folded: Vec<String> = texts.iter().map(|t| t.to_ascii_lowercase()).collect();
    let n = texts.len() as f64;
    let average = (folded.iter().map(|t| t.chars().count()).sum::<usize>() as f64 / n).max(1.0);
    let counts: Vec<Vec<usize>> = folded
        .iter()
        .map(|text| {
            terms
                .iter()
                .map(|t| {
                    if t.is_empty() {
                        0
                    } else {
                        text.matches(t.as_str()).count()
                    }
                })
                .collect()
        })
        .collect();
    let idf: Vec<f64> = (0..terms.len())
        .map(|i| {
            let df = counts.iter().filter(|c| c[i] > 0).count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    folded
        .iter()
        .zip(&counts)
        .map(|(text, c)| {
            let len = text.chars().count() as f64;
            c.iter()
                .zip(&idf)
                .map(|(&tf, idf)| {
                    let tf = tf as f64;
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / average))
                })
                .sum()
        })
        .collect()
}

impl Index {
    /// The hits of `query`, the best first.
    ///
    /// Plain words must each occur in a message part, as substrings, without regard to
    /// case (`cargo test` finds "Cargo testing"), Latin letters without their diacritics
    /// (`cafe` finds "café"); a word of one or two characters is found too, by reading the
    /// texts the other words left (slow when it is the only word), but a two-character CJK
    /// word, which has a gram of its own. FTS5 syntax is read too: `"exact phrase"`,
    /// `a OR b`, `a NOT b`, `(a OR b) c`, `prefix*` (a substring, as every term);
    /// `NEAR(a b, 5)` is read as `a b` (the full-text table keeps no positions, index
    /// schema 5). Every candidate the table gives is checked against its text.
    ///
    /// Ranking: the [`CANDIDATES`] newest matching parts (all of them when fewer match; see
    /// the module docs for "newest") are scored by BM25 over those candidates
    /// ([`Hit::score`]) and the best `limit` returned, newest first among equals. With no
    /// limit every match is read and ranked.
    ///
    /// # Errors
    /// [`IndexError::Query`] for FTS5 syntax SQLite refuses, or an empty query; SQLite
    /// errors.
    pub fn search(&self, query: &Query) -> Result<Vec<Hit>, IndexError> {
        let candidates = query.limit.map(|n| n.max(CANDIDATES));
        let Matches {
            mut hits,
            mut texts,
            terms,
        } = self.matches(query, candidates)?;
        for (hit, text) in self.session_matches(query, &terms)? {
            hits.push(hit);
            texts.push(text);
        }
        let scores = scores(&texts, &terms);
        let mut ranked: Vec<(Hit, f64, usize)> = hits
            .into_iter()
            .zip(scores)
            .enumerate()
            .map(|(i, (hit, score))| {
                let lineage = if hit.session.lineage.kind().is_some() {
                    LINEAGE_WEIGHT
                } else {
                    1.0
                };
                let score = score * hit.field.weight() * lineage;
                (hit, score, i)
            })
            .collect();
        // The candidates come newest first: their order breaks ties.
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
        let ranked = group_runs(ranked);
        Ok(ranked
            .into_iter()
            .take(query.limit.unwrap_or(usize::MAX))
            .map(|(mut hit, score, i)| {
                hit.score = score;
                hit.snippet = snippet_of(&texts[i], &terms, 40);
                hit
            })
            .collect())
    }

    /// The sessions whose title or project holds every term of `query` (ASCII letters
    /// without case), as hits with the text that matched; none when the query asks for
    /// kinds of message text or a tool, or uses `OR`, `NOT` or `NEAR` (which only the
    /// full-text index answers).
    fn session_matches(
        &self,
        query: &Query,
        terms: &[String],
    ) -> Result<Vec<(Hit, String)>, IndexError> {
        let operators = query
            .text
            .split_whitespace()
            .any(|w| matches!(w, "OR" | "NOT") || w.starts_with("NEAR"));
        if terms.is_empty() || operators || !query.kinds.is_empty() || query.tool.is_some() {
            return Ok(Vec::new());
        }
        let mut found = Vec::new();
        for (field, column) in [(Field::Title, "s.title"), (Field::Project, "s.cwd")] {
            let mut w = Where::default();
            w.add(&format!("{column} IS NOT NULL"), []);
            for t in terms {
                w.add(
                    &format!("instr(lower({column}), lower(?)) > 0"),
                    [Value::Text(t.clone())],
                );
            }
            let sessions = SessionFilter {
                period: query.period,
                ..query.sessions.clone()
            };
            w.sessions(&sessions);
            let columns = format!(
                "{REF_COLUMNS}, {column}, \
                 COALESCE((SELECT MIN(m.seq) FROM messages m WHERE m.session_id = s.id), 0)"
            );
            let select = Select {
                columns,
                from: "FROM sessions s JOIN files f ON f.id = s.file_id",
                filter: w,
                order: "s.last_time DESC",
                limit: Some(CANDIDATES.to_string()),
            };
            let rows = select.rows(
                self,
                |r| {
                    let text: String = r.get(REF_WIDTH)?;
                    let seq: i64 = r.get(REF_WIDTH + 1)?;
                    let hit = Hit {
                        session: session_ref(r, 0)?,
                        field,
                        part: MessagePart {
                            seq: seq as u64,
                            pos: seq,
                            turn: None,
                            event_type: if field == Field::Title {
                                "session/title".into()
                            } else {
                                "session".into()
                            },
                            kind: PartKind::System,
                            role: field.name().into(),
                            source: None,
                            tool: None,
                            time: None,
                            shadowed_by: None,
                        },
                        grouped: Vec::new(),
                        snippet: Snippet::default(),
                        score: 0.0,
                    };
                    Ok((hit, text))
                },
                |e| self.error(e),
            )?;
            found.extend(rows);
        }
        Ok(found)
    }

    /// The sessions with hits for `query`, the one with the newest hit first, each with
    /// that hit; `query.limit` counts sessions. Reads matches newest first until it has
    /// enough sessions (all matches with no limit).
    ///
    /// # Errors
    /// As [`Index::search`].
    pub fn search_sessions(&self, query: &Query) -> Result<Vec<SessionHits>, IndexError> {
        let (select, terms, check) = self.search_select(query, true)?;
        let mut stmt = self.prepare(&select)?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(select.filter.params))
            .map_err(|e| self.query_error(query, e))?;
        let mut seen = std::collections::HashSet::new();
        let mut found = Vec::new();
        let mut texts = Texts::new(&self.conn).map_err(|e| self.error(e))?;
        // Sessions whose title holds the words first, the most recently active first.
        for (mut hit, text) in self.session_matches(query, &terms)? {
            if hit.field != Field::Title || query.limit.is_some_and(|n| found.len() >= n) {
                continue;
            }
            let key = (hit.session.file.clone(), hit.session.id.clone());
            if seen.contains(&key) {
                continue;
            }
            let row = self
                .sessions(&SessionFilter {
                    under: vec![hit.session.file.clone()],
                    session: Some(hit.session.id.clone()),
                    ..SessionFilter::default()
                })?
                .into_iter()
                .find(|r| r.session.id == hit.session.id);
            let Some(row) = row else { continue };
            seen.insert(key);
            hit.snippet = snippet_of(&text, &terms, 40);
            found.push(SessionHits {
                session: row,
                newest: hit,
            });
        }
        while let Some(r) = rows.next().map_err(|e| self.query_error(query, e))? {
            if query.limit.is_some_and(|n| found.len() >= n) {
                break;
            }
            let (mut newest, at) = hit_row(r, 1).map_err(|e| self.error(e))?;
            let key = (newest.session.file.clone(), newest.session.id.clone());
            if seen.contains(&key) {
                continue;
            }
            let Some(text) = self.checked(&mut texts, &check, &newest, at)? else {
                continue;
            };
            seen.insert(key);
            newest.snippet = snippet_of(&text, &terms, 40);
            let session = session_row(r, 1 + HIT_WIDTH + PART_WIDTH, newest.session.clone())
                .map_err(|e| self.error(e))?;
            found.push(SessionHits { session, newest });
        }
        Ok(found)
    }

    /// The matching parts of `query`, newest first, at most `limit`: the candidates the
    /// full-text table gives (or every part, when it cannot narrow them), each checked
    /// against its text.
    fn matches(&self, query: &Query, limit: Option<usize>) -> Result<Matches, IndexError> {
        let (select, terms, check) = self.search_select(query, false)?;
        let mut texts = Texts::new(&self.conn).map_err(|e| self.error(e))?;
        let mut stmt = self.prepare(&select)?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(select.filter.params))
            .map_err(|e| self.query_error(query, e))?;
        let mut found = Matches {
            hits: Vec::new(),
            texts: Vec::new(),
            terms,
        };
        while let Some(r) = rows.next().map_err(|e| self.query_error(query, e))? {
            if limit.is_some_and(|n| found.hits.len() >= n) {
                break;
            }
            let (hit, at) = hit_row(r, 0).map_err(|e| self.error(e))?;
            if let Some(text) = self.checked(&mut texts, &check, &hit, at)? {
                found.hits.push(hit);
                found.texts.push(text);
            }
        }
        Ok(found)
    }

    /// The statement of `select`.
    fn prepare(&self, select: &Select<'_>) -> Result<rusqlite::Statement<'_>, IndexError> {
        self.conn.prepare(&select.sql()).map_err(|e| self.error(e))
    }

    /// The text of `hit`'s part when it holds what `check` asks (after its tool's name,
    /// for a tool part: as it was indexed), else `None`.
    fn checked(
        &self,
        texts: &mut Texts<'_>,
        check: &Expr,
        hit: &Hit,
        at: TextAt,
    ) -> Result<Option<String>, IndexError> {
        let text = texts.get(at).map_err(|e| self.error(e))?;
        let folded = match &hit.part.tool {
            Some(tool) if hit.part.kind == PartKind::Tool => fold(&format!("{tool}\n{text}")),
            _ => fold(&text),
        };
        Ok(check.holds(&folded).then_some(text))
    }

    /// The SELECT of the candidates of a search (newest first; `by_session`: each with its
    /// session's columns, after the session's id), the terms its snippets mark, and what
    /// a candidate's text must hold.
    fn search_select(
        &self,
        query: &Query,
        by_session: bool,
    ) -> Result<(Select<'static>, Vec<String>, Expr), IndexError> {
        if is_fts_syntax(&query.text)
            && let Some(reason) = syntax_problem(&query.text)
        {
            return Err(IndexError::Query {
                query: query.text.clone(),
                reason,
            });
        }
        let t = translate(&query.text);
        if t.terms.is_empty() {
            return Err(IndexError::Query {
                query: query.text.clone(),
                reason: "nothing to search for".into(),
            });
        }
        let mut w = Where::default();
        if let Some(fts) = &t.fts {
            w.add("texts MATCH ?", [Value::Text(fts.clone())]);
        }
        w.sessions(&query.sessions);
        if let Some(t) = query.period.since {
            w.add("m.time >= ?", [Value::Integer(t)]);
        }
        if let Some(t) = query.period.until {
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
        // Newest first: rowids are times (see the module docs); FTS5 walks them backwards.
        let (from, order) = if t.fts.is_some() {
            (
                "FROM texts JOIN messages m ON m.id = texts.rowid JOIN sessions s ON s.id = m.session_id JOIN files f ON f.id = s.file_id",
                "texts.rowid DESC",
            )
        } else {
            (
                "FROM messages m JOIN sessions s ON s.id = m.session_id JOIN files f ON f.id = s.file_id",
                "m.id DESC",
            )
        };
        let select = Select {
            columns: if by_session {
                format!("s.id, {HIT_COLUMNS}, {REF_COLUMNS}, {PART_COLUMNS}, {ROW_COLUMNS}")
            } else {
                format!("{HIT_COLUMNS}, {REF_COLUMNS}, {PART_COLUMNS}")
            },
            from,
            filter: w,
            order,
            limit: None,
        };
        Ok((select, t.terms, t.check))
    }

    /// A query error for FTS5 syntax SQLite refused, else the SQLite error.
    fn query_error(&self, query: &Query, e: rusqlite::Error) -> IndexError {
        let text = e.to_string();
        if text.contains("fts5")
            || text.contains("syntax error")
            || text.contains("no such column")
            || text.contains("unterminated string")
        {
            // SQLite's words without its error code ("…: Error code 1: SQL logic error").
            let reason = text
                .split(": Error code")
                .next()
                .unwrap_or(&text)
                .trim_start_matches("fts5: ")
                .to_owned();
            return IndexError::Query {
                query: query.text.clone(),
                reason,
            };
        }
        self.error(e)
    }
}

/// Matching parts, newest first ([`Index::matches`]).
struct Matches {
    /// Each hit, without its snippet and score.
    hits: Vec<Hit>,
    /// Each hit's text.
    texts: Vec<String>,
    /// The terms a snippet marks.
    terms: Vec<String>,
}

/// The columns [`hit_row`] reads first (where the part's text is), then
/// [`REF_COLUMNS`] and [`PART_COLUMNS`].
const HIT_COLUMNS: &str = "m.block, m.start, m.len";

/// How many columns [`hit_row`] reads before [`PART_COLUMNS`]: [`HIT_COLUMNS`] and
/// [`REF_COLUMNS`].
const HIT_WIDTH: usize = column_count(HIT_COLUMNS) + REF_WIDTH;

/// Ranked hits with each run of assistant messages made one: a hit in an assistant message
/// of a session and turn that a better hit of the same run already stands for is left out,
/// its seq listed in that hit's [`Hit::grouped`].
fn group_runs(ranked: Vec<(Hit, f64, usize)>) -> Vec<(Hit, f64, usize)> {
    let mut out: Vec<(Hit, f64, usize)> = Vec::with_capacity(ranked.len());
    let mut runs: std::collections::HashMap<(PathBuf, String, i64), usize> =
        std::collections::HashMap::new();
    for (hit, score, i) in ranked {
        let run = match (hit.field, hit.part.kind, hit.part.turn) {
            (Field::Message, PartKind::Assistant, Some(turn)) => {
                Some((hit.session.file.clone(), hit.session.id.clone(), turn))
            }
            _ => None,
        };
        if let Some(key) = run {
            if let Some(&at) = runs.get(&key) {
                let best = &mut out[at].0;
                if best.part.seq != hit.part.seq && !best.grouped.contains(&hit.part.seq) {
                    best.grouped.push(hit.part.seq);
                    best.grouped.sort_unstable();
                }
                continue;
            }
            runs.insert(key, out.len());
        }
        out.push((hit, score, i));
    }
    out
}

/// A hit (no snippet or score yet) and where its text is, from [`HIT_COLUMNS`],
/// [`REF_COLUMNS`] then [`PART_COLUMNS`] at `at`.
fn hit_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<(Hit, TextAt)> {
    let text = TextAt::from_row(r, at)?;
    let hit = Hit {
        session: session_ref(r, at + 3)?,
        field: Field::Message,
        part: part_row(r, at + HIT_WIDTH)?,
        grouped: Vec::new(),
        snippet: Snippet::default(),
        score: 0.0,
    };
    Ok((hit, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_are_checked_and_short_words_read() {
        let t = translate("src/lib.rs 测试 cargo");
        assert_eq!(t.check, Expr::words("src/lib.rs 测试 cargo"));
        assert_eq!(t.terms, ["src/lib.rs", "测试", "cargo"]);
        assert!(t.fts.is_some());
        assert_eq!(
            fts_terms("\"a \"\"b\"\"\" OR NEAR(foo bar*, 5) NOT ^baz"),
            ["a \"b\"", "foo", "bar", "baz"]
        );
        assert_eq!(translate("a OR bcd").fts, None);
        assert_eq!(translate("a OR bcd").check, Expr::fts("a OR bcd"));
        assert_eq!(translate("ab").fts, None);
    }

    #[test]
    fn syntax_problems_in_the_query_own_words() {
        assert_eq!(
            syntax_problem("\"unbalanced").as_deref(),
            Some(
                "the phrase opened by the `\"` at character 1 is never closed: add a closing `\"`, or drop the quote to search for the words"
            )
        );
        assert_eq!(
            syntax_problem("(a OR b").as_deref(),
            Some("the `(` at character 1 is never closed")
        );
        assert_eq!(
            syntax_problem("a b)").as_deref(),
            Some("the `)` at character 4 closes no `(`")
        );
        assert_eq!(
            syntax_problem("foo OR").as_deref(),
            Some(
                "`OR` has nothing after it: put a word on each side, or write it in lower case to search for the word"
            )
        );
        assert_eq!(syntax_problem("\"a \"\"b\"\" c\" OR (d e)"), None);
    }

    #[test]
    fn scores_favour_more_occurrences_for_the_length() {
        let texts = [
            "a cargo b".to_owned(),
            "cargo cargo".to_owned(),
            "x".repeat(200) + " cargo",
        ];
        let s = scores(&texts, &["Cargo".into()]);
        assert!(s[1] > s[0] && s[0] > s[2], "{s:?}");
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
