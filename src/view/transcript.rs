//! What `export --format markdown|html` needs beyond `show`'s counts ([`crate::view::stats`]):
//! for each turn the models its assistant messages name and why it ended in words
//! (FORMAT.md §2.3 TurnEndReason, §2.4.7 LlmFailure); for each surface-eligible event its
//! time; which tool results carry `data.error` (§2.3) and which assistant messages were
//! cut by a cancellation (`data.interrupted`). Memory grows with the surface-eligible
//! events, not with chunks.

use std::collections::{HashMap, HashSet};

use crate::event::Projection;
use crate::json::{Json, Kind};
use crate::view::stats::TurnRow;
use crate::view::{Checked, View};

/// One turn's facts, in the order the turns started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnFacts {
    /// Seq of the turn's `turn/start`.
    pub start_seq: u64,
    /// `provider/model` of the turn's assistant messages, in the order first named.
    pub models: Vec<String>,
    /// What the end reason says beyond its kind: an `error` turn's failure message and
    /// code, an `aborted` turn's cause (`user`, `hook: <reason>`, …); `None` otherwise.
    pub detail: Option<String>,
}

/// One turn (FORMAT.md §2.3) as a transcript or a browser shows it: its counts from `show`
/// ([`TurnRow`]) with its models and how it ended ([`TurnFacts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// Its row as `show` keeps it: seqs, end reason, counts, usage and times.
    pub counts: TurnRow,
    /// An error turn's failure message and code, an aborted turn's cause.
    pub detail: Option<String>,
    /// `provider/model` of its assistant messages.
    pub models: Vec<String>,
}

impl Turn {
    /// `data.turn`.
    pub fn number(&self) -> i64 {
        self.counts.turn
    }
}

/// The facts a transcript shows that `show` does not keep.
#[derive(Debug, Clone, Default)]
pub struct TranscriptFacts {
    /// Every turn, in order.
    pub turns: Vec<TurnFacts>,
    /// The time (ms since the Unix epoch) of every surface-eligible event, by seq.
    pub times: HashMap<u64, i64>,
    /// `tool/result` events with `data.error`: seq → `name (code)`.
    pub tool_errors: HashMap<u64, String>,
    /// `assistant/message` events with `data.interrupted: true`.
    pub interrupted: HashSet<u64>,
    /// Tool names by call id, from `tool/call` events (a result whose assistant message
    /// was shadowed still gets its tool's name).
    pub tool_names: HashMap<String, String>,
}

impl TranscriptFacts {
    /// Every turn of `rows` (`show`'s, [`crate::view::stats::Stats::turns`]) joined with its
    /// facts by the seq of its `turn/start`, in the order of `rows`.
    pub fn turns_of(&self, rows: &[TurnRow]) -> Vec<Turn> {
        // Facts by the seq of their turn/start, looked up once per turn (not a search each).
        let facts_at: HashMap<u64, &TurnFacts> =
            self.turns.iter().map(|f| (f.start_seq, f)).collect();
        rows.iter()
            .map(|row| {
                let facts = facts_at.get(&row.start_seq).copied();
                Turn {
                    counts: row.clone(),
                    detail: facts.and_then(|f| f.detail.clone()),
                    models: facts.map(|f| f.models.clone()).unwrap_or_default(),
                }
            })
            .collect()
    }
}

impl View for TranscriptFacts {
    fn on_event(&mut self, checked: &Checked<'_, '_>) {
        let logical = checked.event;
        let ty = logical.type_str();
        let data = logical.data();
        let text = |v: Option<Json<'_>>| {
            v.filter(|v| v.kind() == Kind::String)
                .and_then(Json::as_str)
                .map(|s| s.into_owned())
        };
        match ty {
            "turn/start" => self.turns.push(TurnFacts {
                start_seq: checked.seq,
                ..TurnFacts::default()
            }),
            "turn/end" => {
                let reason = data.and_then(|d| d.get("reason"));
                let kind = text(reason.and_then(|r| r.get("kind")));
                let detail = match kind.as_deref() {
                    Some("error") => {
                        let failure = reason.and_then(|r| r.get("error"));
                        let [message, code] = members(failure, ["message", "code"]);
                        match (message, code) {
                            (Some(m), Some(c)) => Some(format!("{m} ({c})")),
                            (m, c) => m.or(c),
                        }
                    }
                    Some("aborted") => {
                        let cause = reason.and_then(|r| r.get("reason"));
                        let [cause_kind, why] = members(cause, ["kind", "reason"]);
                        match (cause_kind, why) {
                            (Some(k), Some(w)) => Some(format!("by {k}: {w}")),
                            (Some(k), None) => Some(format!("by {k}")),
                            (None, w) => w,
                        }
                    }
                    _ => None,
                };
                if let Some(turn) = self.turns.last_mut() {
                    turn.detail = detail;
                }
            }
            "tool/call" => {
                let [id, name] = data.map_or([None; 2], |d| d.lookup(["callId", "name"]));
                if let (Some(id), Some(name)) = (text(id), text(name)) {
                    self.tool_names.entry(id).or_insert(name);
                }
            }
            _ => {}
        }
        if !checked.dialect.is_surface_type(ty) {
            return;
        }
        if let Some(time) = logical.ev.time_value() {
            self.times.insert(checked.seq, time);
        }
        match ty {
            "assistant/message" => {
                if data
                    .and_then(|d| d.get("interrupted"))
                    .and_then(Json::as_bool)
                    == Some(true)
                {
                    self.interrupted.insert(checked.seq);
                }
                let source = match checked.dialect.projection {
                    Projection::Stored => logical.message().and_then(|m| m.get("source")),
                    Projection::June => None,
                };
                let [provider, model] =
                    source.map_or([None; 2], |s| s.lookup(["provider", "model"]));
                if let (Some(p), Some(m), Some(turn)) =
                    (text(provider), text(model), self.turns.last_mut())
                {
                    let name = format!("{p}/{m}");
                    if !turn.models.contains(&name) {
                        turn.models.push(name);
                    }
                }
            }
            "tool/result" => {
                if let Some(error) = data.and_then(|d| d.get("error")) {
                    let [name, code] = error.lookup(["name", "code"]);
                    let what = match (text(name), text(code)) {
                        (Some(n), Some(c)) => format!("{n} ({c})"),
                        (n, c) => n.or(c).unwrap_or_else(|| "error".to_owned()),
                    };
                    self.tool_errors.insert(checked.seq, what);
                }
            }
            _ => {}
        }
    }
}

/// The string members `keys` of `object` (`None` for a member that is absent or not a
/// string, or when there is no object).
fn members<const N: usize>(object: Option<Json<'_>>, keys: [&str; N]) -> [Option<String>; N] {
    object.map_or([const { None }; N], |o| {
        o.lookup(keys).map(|v| {
            v.filter(|v| v.kind() == Kind::String)
                .and_then(Json::as_str)
                .map(|s| s.into_owned())
        })
    })
}
