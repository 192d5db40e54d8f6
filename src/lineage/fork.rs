//! `fork FILE --at SEQ`: a new session holding the history up to the end of the turn that
//! holds SEQ, as DSH's `SessionStore.fork(source, boundary, childId)` makes a child
//! session (learnt from, never copied: `@deepseek-ai/dsh-session@0.1.1-rc.2`,
//! `lib/index.js`, `fork` and `_forkSeed`): the boundary is an inclusive seq outside an
//! open turn; the child holds the events `0..=boundary` as stored, then a
//! `session/end-seed` (FORMAT.md §2.3); its header names the parent and the inherited
//! count ([`super::child_header`]). A tool call is never separated from its result: a
//! turn is kept whole, up to its `turn/end`.

use std::path::Path;

use std::collections::HashMap;

use super::{Derived, Lineage, LineageError, Source, child_header, derived, end_seed_record};
use crate::check::legacy::convert;
use crate::event::Event;
use crate::json::{Json, write_js_string};
use crate::load::Encoding;
use crate::recover::edit::{MemberPath, value_span};

/// What `fork` does.
#[derive(Debug, Clone)]
pub struct Fork {
    /// The new session.
    pub session: Derived,
    /// The seq asked for.
    pub at: u64,
    /// The last inherited seq: the `turn/end` of the turn that holds `at`, or `at` itself
    /// when it is outside a turn.
    pub boundary: u64,
    /// The turn that holds `at` (`data.turn`), when it is in one.
    pub turn: Option<i64>,
    /// Events inherited from the source (`boundary + 1`).
    pub inherited: u64,
    /// The source's lines the new session holds: `(2, last)` (for SQLite, row seqs).
    pub lines: (u64, u64),
    /// Events of the source after the boundary, not in the new session.
    pub left: u64,
}

/// The inherited records as DSH holds them once loaded, which is how its fork writes them:
/// for a log of the era DSH 0.1.1 converts on load (FORMAT.md §9.3), each converted record
/// with its converted `type` and `data` (a pre-identity message gets its legacy id, made of
/// the parent's session id, so the child's messages keep the ids they have in the parent);
/// every other record, and every other byte, as stored.
fn as_loaded(source: &Source, records: &[crate::recover::stored::Record]) -> Vec<Vec<u8>> {
    if !source.stored.era.dialect().legacy_conversions {
        return records.iter().map(|r| r.bytes().to_vec()).collect();
    }
    let header = Json::parse(&source.stored.header_text).ok();
    let id_body = header
        .as_ref()
        .and_then(|h| h.get("id"))
        .and_then(|id| id.raw_str_body().map(str::to_owned))
        .unwrap_or_default();
    let mut ids: HashMap<u64, String> = HashMap::new();
    let mut out = Vec::with_capacity(records.len());
    for r in records {
        let stored = || r.bytes().to_vec();
        if r.packed || r.raw.is_some() {
            out.push(stored());
            continue;
        }
        let Ok(json) = Json::parse(&r.text) else {
            out.push(stored());
            continue;
        };
        let Some(ev) = Event::from_object(json) else {
            out.push(stored());
            continue;
        };
        let message_id = |seq: u64| ids.get(&seq).cloned();
        let Ok(logical) = convert(ev, &id_body, &message_id) else {
            out.push(stored());
            continue;
        };
        if let Some(id) = logical.message().and_then(|m| m.get("id")) {
            ids.insert(r.seq, id.raw().to_owned());
        }
        let stored_type = ev.type_name();
        let retyped = logical.ty != stored_type;
        if !logical.is_converted() && !retyped {
            out.push(stored());
            continue;
        }
        let mut splices = Vec::new();
        if logical.is_converted()
            && let (Some(span), Some(data)) = (
                value_span(&r.text, &MemberPath::of(&["data"])),
                logical.data(),
            )
        {
            splices.push((span, data.raw().to_owned()));
        }
        if retyped && let Some(span) = value_span(&r.text, &MemberPath::of(&["type"])) {
            let mut ty = String::new();
            write_js_string(&mut ty, logical.type_str());
            splices.push((span, ty));
        }
        out.push(crate::recover::edit::apply(&r.text, splices).into_bytes());
    }
    out
}

/// Plans the fork of `source` at `at` into session `id` under `root`, created at `now`
/// (ms since the Unix epoch).
///
/// # Errors
/// [`LineageError::Refused`] when `at` is not a seq of the committed region or its turn
/// has not ended in the log; [`LineageError::WouldNotLoad`].
pub fn plan(
    source: &Source,
    at: u64,
    id: &str,
    root: &Path,
    encoding: Encoding,
    now: i64,
) -> Result<Fork, LineageError> {
    let end = source.end();
    let Some(i) = source.record_of(at) else {
        return Err(LineageError::Refused(if end == 0 {
            format!("seq {at} is not in the log: it holds no event")
        } else {
            format!(
                "seq {at} is not in the log: its events are seqs 0–{}",
                end - 1
            )
        }));
    };
    // The turn open at record i, if any: the last turn/start at or before it whose
    // turn/end is not before it.
    let mut open: Option<(usize, i64)> = None;
    for (k, r) in source.records[..=i].iter().enumerate() {
        match r.ty.as_str() {
            "turn/start" => open = Some((k, r.turn.unwrap_or(0))),
            "turn/end" if k < i => open = None,
            _ => {}
        }
    }
    let (last, turn) = match open {
        None => (i, None),
        Some((start, turn)) => {
            let close = (i..source.records.len()).find(|&k| source.records[k].ty == "turn/end");
            match close {
                Some(k) => (k, Some(turn)),
                None => {
                    let from = &source.records[start];
                    return Err(LineageError::Refused(format!(
                        "seq {at} is in turn {turn} (from line {}, seq {}), which has not ended in the log: fork at a seq of a turn that ended, or `dsh-session repair` the log first (it closes the turn as DSH does)",
                        from.line, from.seq
                    )));
                }
            }
        }
    };
    let records = &source.records[..=last];
    let boundary = records[last].end() - 1;
    let inherited = boundary + 1;
    let version = source.stored.header.version.unwrap_or(0);
    let created = now.max(records.iter().rev().find_map(|r| r.time).unwrap_or(0));
    let header = child_header(
        &source.stored.header_text,
        version,
        id,
        created,
        Lineage::Seeded { inherited },
    );
    let mut texts = as_loaded(source, records);
    texts.push(end_seed_record(source.stored.era, inherited, created).into_bytes());
    let session = derived(source, id, &header, &texts, inherited + 1, root, encoding)?;
    Ok(Fork {
        session,
        at,
        boundary,
        turn,
        inherited,
        lines: (records[0].line, records[last].line),
        left: end - inherited,
    })
}
