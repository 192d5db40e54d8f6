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

use super::query::{
    MessagePart, PART_COLUMNS, SESSION_COLUMNS, SessionFilter, SessionRow, Where, part_row,
    session_row,
};
use super::{Index, IndexError};
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
    /// The session's `validate` status (`valid`, `torn-tail`, `corrupt`, `refused`,
    /// `foreign`), as [`SessionRow::status`].
    pub status: String,
    /// The rule of its finding (`F2` for a log the frozen edges refuse), if any.
    pub rule: Option<String>,
    /// The part that matched.
    pub part: MessagePart,
    /// The matching text.
    pub snippet: Snippet,
    /// How well the part matches, higher is better (see [`Index::search`]).
    pub score: f64,
}

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

/// How a query's text goes to SQLite: an FTS5 expression for `MATCH` (absent when every
/// word is shorter than a trigram), the words shorter than a trigram (found by reading the
/// texts, `dsh_has`), and the terms a snippet marks.
#[derive(Debug, PartialEq, Eq)]
struct Translated {
    fts: Option<String>,
    short: Vec<String>,
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
/// characters (a two-character CJK word) has no trigram and is found by reading the texts
/// the other words leave (all of them, newest first, when it is alone).
fn translate(text: &str) -> Translated {
    if is_fts_syntax(text) {
        return Translated {
            fts: Some(text.to_owned()),
            short: Vec::new(),
            terms: fts_terms(text),
        };
    }
    let mut phrases = Vec::new();
    let mut short = Vec::new();
    for word in text.split_whitespace() {
        if word.chars().count() >= 3 {
            phrases.push(format!("\"{}\"", word.replace('"', "\"\"")));
        } else {
            short.push(word.to_owned());
        }
    }
    Translated {
        fts: (!phrases.is_empty()).then(|| phrases.join(" ")),
        short,
        terms: text.split_whitespace().map(str::to_owned).collect(),
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
    /// case (`cargo test` finds "Cargo testing"); a word of one or two characters (a
    /// two-character CJK word) is found too, by reading the texts the other words left
    /// (slow when it is the only word). Text with FTS5 syntax goes to FTS5 as it is:
    /// `"exact phrase"`, `a OR b`, `a NOT b`, `NEAR(a b, 5)`, `prefix*`; there every term
    /// needs three characters or more.
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
        let Matches { hits, texts, terms } = self.matches(query, candidates)?;
        let scores = scores(&texts, &terms);
        let mut ranked: Vec<(Hit, f64, usize)> = hits
            .into_iter()
            .zip(scores)
            .enumerate()
            .map(|(i, (hit, score))| (hit, score, i))
            .collect();
        // The candidates come newest first: their order breaks ties.
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
        ranked.truncate(query.limit.unwrap_or(usize::MAX));
        Ok(ranked
            .into_iter()
            .map(|(mut hit, score, i)| {
                hit.score = score;
                hit.snippet = snippet_of(&texts[i], &terms, 40);
                hit
            })
            .collect())
    }

    /// The sessions with hits for `query`, the one with the newest hit first, each with
    /// that hit; `query.limit` counts sessions. Reads matches newest first until it has
    /// enough sessions (all matches with no limit).
    ///
    /// # Errors
    /// As [`Index::search`].
    pub fn search_sessions(&self, query: &Query) -> Result<Vec<SessionHits>, IndexError> {
        let (sql, params, terms) = self.search_sql(query, true)?;
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.error(e))?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
            .map_err(|e| self.query_error(query, e))?;
        let mut seen = std::collections::HashSet::new();
        let mut found = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.query_error(query, e))? {
            if query.limit.is_some_and(|n| found.len() >= n) {
                break;
            }
            let id: i64 = r.get(0).map_err(|e| self.error(e))?;
            if !seen.insert(id) {
                continue;
            }
            let (mut newest, text) = hit_row(r, 1).map_err(|e| self.error(e))?;
            newest.snippet = snippet_of(&text, &terms, 40);
            let session = session_row(r, 19).map_err(|e| self.error(e))?;
            found.push(SessionHits { session, newest });
        }
        Ok(found)
    }

    /// The matching parts of `query`, newest first, at most `limit`.
    fn matches(&self, query: &Query, limit: Option<usize>) -> Result<Matches, IndexError> {
        let (sql, mut params, terms) = self.search_sql(query, false)?;
        params.push(Value::Integer(limit.map_or(-1, |n| n as i64)));
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.error(e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params), |r| hit_row(r, 0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.query_error(query, e))?;
        let (hits, texts) = rows.into_iter().unzip();
        Ok(Matches { hits, texts, terms })
    }

    /// The SQL of a search (hits newest first; `by_session`: each with its session's
    /// columns, after the session's id), its parameters, and the terms its snippets mark.
    fn search_sql(
        &self,
        query: &Query,
        by_session: bool,
    ) -> Result<(String, Vec<Value>, Vec<String>), IndexError> {
        let t = translate(&query.text);
        if t.fts.is_none() && t.short.is_empty() {
            return Err(IndexError::Query {
                query: query.text.clone(),
                reason: "nothing to search for".into(),
            });
        }
        let mut w = Where::default();
        if let Some(fts) = &t.fts {
            w.add("texts MATCH ?", [Value::Text(fts.clone())]);
        }
        for word in &t.short {
            w.add("dsh_has(m.text, ?)", [Value::Text(word.clone())]);
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
        let sql = if by_session {
            format!(
                "SELECT s.id, {HIT_COLUMNS}, {PART_COLUMNS}, {SESSION_COLUMNS} {from} WHERE {} ORDER BY {order}",
                w.sql()
            )
        } else {
            format!(
                "SELECT {HIT_COLUMNS}, {PART_COLUMNS} {from} WHERE {} ORDER BY {order} LIMIT ?",
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

/// The columns [`hit_row`] reads.
const HIT_COLUMNS: &str = "f.path, f.encoding, s.session, s.title, s.cwd, m.text, s.status, s.rule";

/// A hit (no snippet or score yet) and its text, from [`HIT_COLUMNS`] then
/// [`PART_COLUMNS`] at `at`.
fn hit_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<(Hit, String)> {
    let text = super::schema::unpack_text(r.get_ref(at + 5)?);
    let hit = Hit {
        file: PathBuf::from(r.get::<_, String>(at)?),
        encoding: r.get(at + 1)?,
        session: r.get(at + 2)?,
        title: r.get(at + 3)?,
        project: r.get(at + 4)?,
        status: r.get(at + 6)?,
        rule: r.get(at + 7)?,
        part: part_row(r, at + 8)?,
        snippet: Snippet::default(),
        score: 0.0,
    };
    Ok((hit, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_become_phrases_and_short_words_are_read() {
        assert_eq!(
            translate("src/lib.rs 测试 cargo"),
            Translated {
                fts: Some("\"src/lib.rs\" \"cargo\"".into()),
                short: vec!["测试".into()],
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
