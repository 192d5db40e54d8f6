//! `messages`' pages: a window of a session's derived history at a time, cut at
//! `max_bytes` without parting a tool call from its results ([`window::window`]). The
//! history of a revision of a log (its size and modification time) is derived once and
//! kept ([`Histories`]: the last few, keyed by file, store session and revision), so the
//! pages after the first are cut from it, not from a new reading of the log from its
//! start; a page asked for with the revision of a log that changed since is the error
//! `source_changed`.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::{Context as _, Result, bail};
use dsh_session::index::SessionRow;
use dsh_session::replay::window::{self, Item};
use dsh_session::replay::{Keep, Replay};
use dsh_session::scan::ScanOptions;
use dsh_session::view::stats::{Stats, TurnRow};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::tools::{Context, store_session};

/// `messages`' default cap on the messages of one answer, in bytes.
pub const MAX_BYTES: usize = 100_000;
/// The largest cap a `messages` call may ask for.
const MAX_BYTES_LIMIT: usize = 1_000_000;
/// Derived histories kept for later pages (the least recently derived goes first).
const KEPT: usize = 4;

/// One message of a derived history without its text: what a window is cut by.
#[derive(Debug)]
struct Meta {
    seq: u64,
    /// Bytes of the derived message.
    bytes: usize,
    /// Tool-call ids it announces, and those it answers.
    calls: Vec<String>,
    results: Vec<String>,
}

/// A session's derived history at one revision of its log: the fold with every derived
/// message kept (past 2 MiB in a temporary file), the messages' sizes and call ids in
/// order, and the turn rows `show` reads for a range by turns.
#[derive(Debug)]
struct History {
    file: PathBuf,
    session: Option<String>,
    revision: String,
    replay: Replay,
    messages: Vec<Meta>,
    turns: Vec<TurnRow>,
}

impl History {
    /// Reads the log of `row` once, as `messages` scans it.
    fn read(row: &SessionRow, revision: String) -> Result<History> {
        let mut keep = Keep::MESSAGES;
        let mut stats = Stats::with_turn_rows();
        let options = ScanOptions {
            session: store_session(row),
            ..ScanOptions::default()
        };
        let report = crate::reading::scan_readable_as(
            &row.session.file,
            &row.session.file,
            &options,
            &mut [&mut keep, &mut stats],
        )?;
        let mut messages = Vec::new();
        for entry in report.replay.iter() {
            let entry = entry.with_context(|| cannot_read(&row.session.file))?;
            if let Some(m) = &entry.message {
                messages.push(Meta {
                    seq: entry.seq,
                    bytes: m.len(),
                    calls: entry.calls,
                    results: entry.results,
                });
            }
        }
        Ok(History {
            file: row.session.file.clone(),
            session: options.session,
            revision,
            replay: report.replay,
            messages,
            turns: stats.turns,
        })
    }

    /// The derived message of `seq`, as stored.
    fn message(&self, seq: u64) -> Result<Box<RawValue>> {
        let entry = self
            .replay
            .entry_by_seq(seq)
            .with_context(|| format!("internal error: seq {seq} left the kept history"))?
            .with_context(|| cannot_read(&self.file))?;
        let text = entry.message.unwrap_or_default();
        RawValue::from_string(text).with_context(|| {
            format!(
                "{}: seq {seq}: the derived message is not JSON",
                self.file.display()
            )
        })
    }
}

fn cannot_read(file: &Path) -> String {
    format!(
        "{}: cannot read back the derived messages from a temporary file",
        file.display()
    )
}

/// The histories derived lately, shared by every call of the server.
#[derive(Debug, Default)]
pub struct Histories {
    kept: Mutex<VecDeque<Arc<History>>>,
}

impl Histories {
    /// The history of `row`'s log at `revision`: the one kept, else read now (and kept in
    /// place of an older revision of the same session).
    fn get(&self, row: &SessionRow, revision: &str) -> Result<Arc<History>> {
        let session = store_session(row);
        let same = |h: &History| h.file == row.session.file && h.session == session;
        let kept = |this: &Self| {
            this.kept
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .find(|h| same(h) && h.revision == revision)
                .cloned()
        };
        if let Some(history) = kept(self) {
            return Ok(history);
        }
        let history = Arc::new(History::read(row, revision.to_owned())?);
        let mut all = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        all.retain(|h| !same(h));
        all.push_back(Arc::clone(&history));
        while all.len() > KEPT {
            all.pop_front();
        }
        Ok(history)
    }
}

/// Arguments of `messages`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Messages {
    /// The session: its id, or a unique prefix of it.
    pub session: String,
    /// Only messages of events at or after this seq.
    pub from_seq: Option<u64>,
    /// Only messages of events at or before this seq.
    pub to_seq: Option<u64>,
    /// Only messages from this turn on (the turn numbers of show's per_turn); not with
    /// from_seq.
    pub from_turn: Option<i64>,
    /// Only messages up to the end of this turn; not with to_seq.
    pub to_turn: Option<i64>,
    /// At most about this many bytes of messages (default 100000, at most 1000000); the
    /// answer's `next` gives the range to ask for next.
    pub max_bytes: Option<usize>,
    /// The `revision` of the answer whose `next` range this asks for (`next` carries it):
    /// when the log changed since, the answer is the error `source_changed` instead of a
    /// page that may not follow the one before.
    pub revision: Option<String>,
}

/// The revision of the log a page was read from: its size and modification time
/// (`SIZE-MTIME_NS`); any write to the log changes it.
fn revision(file: &std::path::Path) -> Result<String> {
    let meta = std::fs::metadata(file).with_context(|| file.display().to_string())?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Ok(format!("{}-{mtime}", meta.len()))
}

#[derive(Debug, Serialize)]
struct MessageJson {
    /// The event's seq.
    seq: u64,
    /// The derived message, as stored.
    message: Box<RawValue>,
}

#[derive(Debug, Serialize)]
struct SeqRange {
    from_seq: u64,
    to_seq: u64,
    /// The revision of the log this range belongs to (give it back with the range).
    revision: String,
}

/// The `messages` tool's layout (README "JSON outputs").
const MESSAGES_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
struct MessagesJson<'a> {
    schema_version: u32,
    session: &'a str,
    file: String,
    /// The range the messages shown cover.
    from_seq: u64,
    to_seq: u64,
    /// Messages in the whole derived history.
    history_messages: usize,
    messages: Vec<MessageJson>,
    bytes: usize,
    /// The revision of the log read ([`revision`]).
    revision: String,
    /// The range holding the rest, when the answer was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    next: Option<SeqRange>,
    /// What was widened or cut, and why.
    notes: Vec<String>,
}

/// The seqs turns `from..=to` span, from `show`'s turn rows.
fn turn_seqs(turns: &[TurnRow], from: Option<i64>, to: Option<i64>) -> Result<(u64, u64)> {
    let known = || match (turns.first(), turns.last()) {
        (Some(a), Some(b)) => format!("its turns are {} to {}", a.turn, b.turn),
        _ => "it has no turns".to_owned(),
    };
    let start = match from {
        None => 0,
        Some(t) => match turns.iter().find(|r| r.turn == t) {
            Some(r) => r.start_seq,
            None => bail!("the session has no turn {t}: {}", known()),
        },
    };
    let end = match to {
        None => u64::MAX,
        Some(t) => match turns.iter().rposition(|r| r.turn == t) {
            Some(i) => match (turns[i].end_seq, turns.get(i + 1)) {
                (Some(end), _) => end,
                (None, Some(next)) => next.start_seq.saturating_sub(1),
                (None, None) => u64::MAX,
            },
            None => bail!("the session has no turn {t}: {}", known()),
        },
    };
    Ok((start, end))
}

/// `messages`: a window of the derived history (what `messages --format json` prints,
/// each message with its seq), cut at `max_bytes` without parting a tool call from its
/// results ([`window::window`]), from the history of the log's revision ([`Histories`]).
pub fn messages(cx: &Context, histories: &Histories, p: Messages) -> Result<String> {
    if p.from_seq.is_some() && p.from_turn.is_some() || p.to_seq.is_some() && p.to_turn.is_some() {
        bail!(
            "give a range by seqs (from_seq, to_seq) or by turns (from_turn, to_turn), not both at one end"
        );
    }
    let max_bytes = p.max_bytes.unwrap_or(MAX_BYTES);
    if !(1..=MAX_BYTES_LIMIT).contains(&max_bytes) {
        bail!("max_bytes is {max_bytes}: give 1 to {MAX_BYTES_LIMIT}");
    }
    let row = cx.find(&cx.index()?, &p.session)?;
    let now = revision(&row.session.file)?;
    if let Some(asked) = &p.revision
        && *asked != now
    {
        bail!(
            "source_changed: the log of {} changed since the page that gave revision {asked} (now {now}); ask again without a revision, from the start or from a seq",
            row.session.id
        );
    }
    let history = histories.get(&row, &now)?;
    let (turn_from, turn_to) = turn_seqs(&history.turns, p.from_turn, p.to_turn)?;
    let from = p.from_seq.unwrap_or(turn_from);
    let to = p.to_seq.unwrap_or(turn_to);
    if from > to {
        bail!("the range is empty: from seq {from} to seq {to}");
    }
    let items: Vec<Item<'_>> = history
        .messages
        .iter()
        .map(|m| Item {
            seq: m.seq,
            bytes: m.bytes,
            calls: &m.calls,
            results: &m.results,
        })
        .collect();
    let w = window::window(&items, from, to, max_bytes);
    let shown = w
        .take
        .iter()
        .map(|&i| {
            let seq = items[i].seq;
            Ok(MessageJson {
                seq,
                message: history.message(seq)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut notes = Vec::new();
    if let Some((a, b)) = w.widened_from {
        notes.push(format!(
            "the range asked for (seq {a} to {}) was widened to seq {} to {} so that tool calls stay with their results",
            shown_end(b),
            w.range.0,
            w.range.1
        ));
    }
    if w.over_cap {
        notes.push(format!(
            "the first messages that can be shown together (a tool call with its results, or a compaction with what it kept) are {} bytes, over max_bytes {max_bytes}: shown whole",
            w.bytes
        ));
    }
    if w.take.is_empty() {
        notes.push(format!(
            "no message of the derived history lies in seq {from} to {}: a replace (a compaction, a pruned result) may have taken it off; search with include_shadowed finds such text, provenance tells what replaced a seq",
            shown_end(to)
        ));
    }
    if let Some((a, b)) = w.next {
        notes.push(format!(
            "cut at max_bytes {max_bytes}: the rest is from_seq {a} to_seq {b}"
        ));
    }
    let json = MessagesJson {
        schema_version: MESSAGES_SCHEMA_VERSION,
        session: &row.session.id,
        file: row.session.file.display().to_string(),
        from_seq: w.from_seq,
        to_seq: w.to_seq,
        history_messages: items.len(),
        messages: shown,
        bytes: w.bytes,
        revision: now.clone(),
        next: w.next.map(|(from_seq, to_seq)| SeqRange {
            from_seq,
            to_seq,
            revision: now.clone(),
        }),
        notes,
    };
    Ok(serde_json::to_string(&json)?)
}

/// A range's end as a note says it: "the end" for an open one.
fn shown_end(seq: u64) -> String {
    if seq == u64::MAX {
        "the end".to_owned()
    } else {
        seq.to_string()
    }
}
