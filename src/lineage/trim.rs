//! `trim FILE --tool-output-max BYTES [--drop-turns A..B]`: the same session with every
//! tool result over BYTES cut to BYTES, and turns left out, as a new session.
//!
//! A cut changes only the `text` members of the text blocks of a `tool/result`'s message
//! (v0–v3: inside its `tool-result` block, v4: the tool-role message's own content;
//! FORMAT.md §2.4, GENERATIONS.md §7): the first BYTES bytes of the result's text are kept
//! (at a character boundary), then [`TRIM_MARK`] and how many bytes were cut; every other
//! byte of every record is as stored, so every call stays answered and every other message
//! is byte-identical. Shadowed results are cut too (the model no longer sees them; a
//! provider export still would).
//!
//! Dropping turns A..B leaves out every record from `turn/start A` to `turn/end B`, then
//! renumbers the records after them as DSH's migration edges renumber a log (their seqs,
//! the seqs they cite, [`crate::recover::refs`], and `data.turn`). A record after them that
//! cites a left-out event makes the drop impossible, and is named.

use std::path::Path;

use super::{Derived, Lineage, LineageError, Source, child_header, derived};
use crate::json::{Json, write_js_string};
use crate::load::Encoding;
use crate::recover::edit::{Edit, MemberPath, Splice, apply, members_named, splice, value_span};
use crate::recover::refs::{refs_of, renumbered};

/// Marks the note a cut leaves in a tool result's text.
pub const TRIM_MARK: &str = "[dsh-session trim]";

/// Bytes per token assumed when the log reports no usage to estimate it from.
pub const BYTES_PER_TOKEN: f64 = 4.0;

/// What to trim.
#[derive(Debug, Clone, Default)]
pub struct TrimOptions {
    /// Cut each tool result's text to this many bytes.
    pub tool_output_max: Option<usize>,
    /// Leave out turns `A..=B` (`data.turn`).
    pub drop_turns: Option<(i64, i64)>,
}

/// One tool result cut.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Cut {
    /// Its line in the source (for SQLite, the row's seq).
    pub line: u64,
    /// Its seq in the source.
    pub seq: u64,
    /// The call it answers (`toolCallId` / `source.callId`), when it says.
    pub call_id: Option<String>,
    /// Bytes of text it held.
    pub bytes: u64,
    /// Bytes cut from it.
    pub cut: u64,
}

/// What `trim` does.
#[derive(Debug, Clone)]
pub struct Trim {
    /// The new session.
    pub session: Derived,
    /// Each tool result cut, in log order.
    pub cuts: Vec<Cut>,
    /// Turns left out, and the events they held.
    pub dropped: Option<((i64, i64), u64)>,
    /// Bytes of tool output cut.
    pub cut_bytes: u64,
    /// Bytes per token the estimate uses, and whether it comes from the log's own usage
    /// (the last request's input tokens against the bytes of the history before it).
    pub bytes_per_token: (f64, bool),
    /// Estimated context tokens saved: cut bytes (and the dropped turns' message bytes)
    /// over [`Trim::bytes_per_token`].
    pub tokens_saved: u64,
}

/// The call a tool result answers.
fn call_of(text: &str) -> Option<String> {
    let json = Json::parse(text).ok()?;
    let message = json.get("data")?.get("message")?;
    let direct = message
        .get("toolCallId")
        .or_else(|| message.get("source").and_then(|s| s.get("callId")));
    let nested = || {
        message
            .get("content")?
            .elements()
            .find_map(|b| b.get("toolCallId"))
    };
    direct
        .or_else(nested)
        .and_then(|v| v.as_str().map(|s| s.into_owned()))
}

/// True for a result DSH itself wrote for a call that has none (`data.error.code`
/// `TOOL_NOT_STARTED` or `TOOL_OUTCOME_UNKNOWN`: crash repair, fork seeds; FORMAT.md §5.2):
/// the edges check its exact text, so it is never cut.
fn is_dsh_repair(record: &str) -> bool {
    Json::parse(record).ok().is_some_and(|j| {
        j.get("data")
            .and_then(|d| d.get("error"))
            .and_then(|e| e.get("code"))
            .is_some_and(|c| c.str_eq("TOOL_NOT_STARTED") || c.str_eq("TOOL_OUTCOME_UNKNOWN"))
    })
}

/// The `text` members of `record`'s message, as paths and decoded strings.
fn texts(record: &str) -> Vec<(MemberPath, String)> {
    let within = MemberPath::of(&["data", "message", "content"]);
    members_named(record, &within, "text")
        .into_iter()
        .filter_map(|path| {
            let span = value_span(record, &path)?;
            let value = Json::parse(&record[span]).ok()?;
            Some((path, value.as_str()?.into_owned()))
        })
        .collect()
}

/// `record` (a `tool/result`) with its text cut to `max` bytes, and how many bytes it held
/// and lost; `None` when it holds no more than `max`.
pub fn cut_result(record: &str, max: usize) -> Option<(String, u64, u64)> {
    let blocks = texts(record);
    let total: usize = blocks.iter().map(|(_, t)| t.len()).sum();
    if total <= max {
        return None;
    }
    let cut = total - max;
    let mut budget = max;
    let mut splices: Vec<Splice> = Vec::new();
    let mut marked = false;
    for (path, text) in &blocks {
        if budget >= text.len() {
            budget -= text.len();
            continue;
        }
        let mut keep = budget;
        while !text.is_char_boundary(keep) {
            keep -= 1;
        }
        budget = 0;
        let mut new = text[..keep].to_owned();
        if !marked {
            if !new.is_empty() {
                new.push('\n');
            }
            new.push_str(&format!(
                "{TRIM_MARK} {cut} of {total} bytes of this tool output were cut."
            ));
            marked = true;
        }
        let mut json = String::new();
        write_js_string(&mut json, &new);
        splices.push(splice(record, &Edit::Set(path.clone(), json))?);
    }
    Some((apply(record, splices), total as u64, cut as u64))
}

/// Message types whose text the model is sent (for the bytes-per-token estimate).
fn is_message(ty: &str) -> bool {
    matches!(
        ty,
        "user/message"
            | "assistant/message"
            | "tool/result"
            | "system/message"
            | "developer/message"
            | "context/message"
            | "steering/message"
    )
}

/// Bytes per token from the log's own usage: the bytes of the message records before the
/// last `assistant/message` that reports `inputTokens` (plus `cacheReadTokens`), over
/// those tokens; [`BYTES_PER_TOKEN`] without one.
fn bytes_per_token(source: &Source) -> (f64, bool) {
    let mut bytes = 0usize;
    let mut best = None;
    for r in &source.records {
        if r.ty == "assistant/message"
            && let Ok(json) = Json::parse(&r.text)
            && let Some(usage) = json.get("data").and_then(|d| d.get("usage"))
        {
            let n = |k: &str| usage.get(k).and_then(|v| v.as_seq()).unwrap_or(0);
            let tokens = n("inputTokens") + n("cacheReadTokens");
            if tokens > 0 && bytes > 0 {
                best = Some((bytes as f64 / tokens as f64).clamp(1.0, 16.0));
            }
        }
        if is_message(&r.ty) {
            bytes += r.text.len();
        }
    }
    best.map_or((BYTES_PER_TOKEN, false), |b| (b, true))
}

/// Plans the trim of `source` into session `id` under `root`.
///
/// # Errors
/// [`LineageError::Refused`] when nothing is asked, a turn to drop is not in the log or
/// has not ended, or a kept record cites a dropped event; [`LineageError::WouldNotLoad`].
pub fn plan(
    source: &Source,
    options: &TrimOptions,
    id: &str,
    root: &Path,
    encoding: Encoding,
) -> Result<Trim, LineageError> {
    if options.tool_output_max.is_none() && options.drop_turns.is_none() {
        return Err(LineageError::Refused(
            "nothing to trim: give --tool-output-max BYTES or --drop-turns A..B".to_owned(),
        ));
    }
    let records = &source.records;
    let span = match options.drop_turns {
        Some((a, b)) => Some(drop_span(source, a, b)?),
        None => None,
    };
    // The seqs left out, and what a kept seq becomes.
    let dropped = span.map_or(0..0, |(i, j)| records[i].seq..records[j].end());
    let dropped_events = dropped.end - dropped.start;
    let shift_turns = options.drop_turns.map_or(0, |(a, b)| b - a + 1);
    let map = |seq: u64| -> Option<u64> {
        if dropped.contains(&seq) {
            None
        } else if seq >= dropped.end && dropped_events > 0 {
            Some(seq - dropped_events)
        } else {
            Some(seq)
        }
    };
    let mut cuts = Vec::new();
    let mut cut_bytes = 0u64;
    let mut dropped_bytes = 0u64;
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(records.len());
    for (k, r) in records.iter().enumerate() {
        if let Some((i, j)) = span
            && (i..=j).contains(&k)
        {
            if is_message(&r.ty) {
                dropped_bytes += r.text.len() as u64;
            }
            continue;
        }
        let mut text = r.text.clone();
        let mut changed = false;
        if r.ty == "tool/result"
            && !is_dsh_repair(&r.text)
            && let Some(max) = options.tool_output_max
            && let Some((new, bytes, cut)) = cut_result(&text, max)
        {
            cuts.push(Cut {
                line: r.line,
                seq: r.seq,
                call_id: call_of(&r.text),
                bytes,
                cut,
            });
            cut_bytes += cut;
            text = new;
            changed = true;
        }
        if span.is_some_and(|(_, j)| k > j) {
            let refs = refs_of(&text, &r.ty, r.packed);
            let mut extra = Vec::new();
            if let Some(at) = value_span(&text, &MemberPath::of(&["data", "turn"]))
                && let Some(turn) = text[at.clone()].parse::<i64>().ok()
                && options.drop_turns.is_some_and(|(_, b)| turn > b)
            {
                extra.push((at, (turn - shift_turns).to_string()));
            }
            let Some(new) = renumbered(&text, &refs, r.seq - dropped_events, &map, extra) else {
                let (a, b) = options.drop_turns.unwrap_or_default();
                return Err(LineageError::Refused(format!(
                    "line {} (seq {}, {}) cites an event of turns {a}–{b}: they cannot be left out",
                    r.line, r.seq, r.ty
                )));
            };
            text = new;
            changed = true;
        }
        out.push(if changed {
            text.into_bytes()
        } else {
            r.bytes().to_vec()
        });
    }
    let version = source.stored.header.version.unwrap_or(0);
    let header = child_header(
        &source.stored.header_text,
        version,
        id,
        source.stored.header.created_at.unwrap_or(0),
        Lineage::Derived,
    );
    let events = source.end() - dropped_events;
    let session = match derived(source, id, &header, &out, events, root, encoding) {
        Err(LineageError::WouldNotLoad(why)) if span.is_some() => {
            let (a, b) = options.drop_turns.unwrap_or_default();
            return Err(LineageError::Refused(format!(
                "without turns {a}–{b} the session would not load: {why}"
            )));
        }
        other => other?,
    };
    let bytes_per_token = bytes_per_token(source);
    let tokens_saved = ((cut_bytes + dropped_bytes) as f64 / bytes_per_token.0).round() as u64;
    Ok(Trim {
        session,
        cuts,
        dropped: options.drop_turns.map(|t| (t, dropped_events)),
        cut_bytes,
        bytes_per_token,
        tokens_saved,
    })
}

/// The records from `turn/start A` to `turn/end B`, as indexes into the source's records.
fn drop_span(source: &Source, a: i64, b: i64) -> Result<(usize, usize), LineageError> {
    if a > b {
        return Err(LineageError::Refused(format!(
            "--drop-turns {a}..{b}: the first turn comes after the last"
        )));
    }
    let records = &source.records;
    let start = records
        .iter()
        .position(|r| r.ty == "turn/start" && r.turn == Some(a))
        .ok_or_else(|| LineageError::Refused(format!("turn {a} is not in the log")))?;
    let end = records
        .iter()
        .position(|r| r.ty == "turn/end" && r.turn == Some(b))
        .ok_or_else(|| {
            LineageError::Refused(format!(
                "turn {b} is not in the log or has not ended; an open turn is not dropped"
            ))
        })?;
    if end < start {
        return Err(LineageError::Refused(format!(
            "--drop-turns {a}..{b}: turn {b} ends before turn {a} starts"
        )));
    }
    // A seeded session's inherited events are the parent's history: v0/v1 count them in
    // `seedLength`, v2+ end them with a tagged `session/end-seed` (GENERATIONS.md §5).
    let tagged = records
        .iter()
        .rev()
        .find(|r| r.ty == "session/end-seed" && r.text.contains("\"inherited\":true"))
        .map(|r| r.seq);
    let inherited = source.stored.header.lineage.seed().or(tagged);
    if let Some(n) = inherited
        && records[start].seq < n
    {
        return Err(LineageError::Refused(format!(
            "turn {a} is inherited from the parent session (the first {n} events): a fork's inherited history is not dropped"
        )));
    }
    Ok((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_v0_result_is_cut_in_its_tool_result_block_and_marked() {
        let text = r#"{"type":"tool/result","seq":9,"time":1,"data":{"turn":1,"step":1,"message":{"id":"r-1","role":"user","source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","content":[{"type":"text","text":"abcdefgh"}],"isError":false}]}},"sourceEventSeqs":[8],"surfaceOp":"append"}"#;
        let (out, bytes, cut) = cut_result(text, 3).expect("over 3 bytes");
        assert_eq!((bytes, cut), (8, 5));
        assert_eq!(
            out,
            text.replace(
                r#""text":"abcdefgh""#,
                r#""text":"abc\n[dsh-session trim] 5 of 8 bytes of this tool output were cut.""#
            )
        );
        assert!(cut_result(text, 8).is_none());
    }

    #[test]
    fn a_cut_keeps_whole_characters_and_empties_later_blocks() {
        let text = r#"{"type":"tool/result","seq":2,"time":1,"data":{"turn":1,"step":1,"message":{"role":"tool","toolCallId":"c","content":[{"type":"text","text":"指南针"},{"type":"text","text":"more"}]}}}"#;
        let (out, bytes, cut) = cut_result(text, 4).expect("13 bytes");
        assert_eq!((bytes, cut), (13, 9));
        assert!(
            out.contains(
                r#""text":"指\n[dsh-session trim] 9 of 13 bytes of this tool output were cut.""#
            ),
            "{out}"
        );
        assert!(out.contains(r#"{"type":"text","text":""}"#), "{out}");
    }
}
