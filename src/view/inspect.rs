//! What the interactive session view (`tui`) reads beyond `show`'s turn rows
//! ([`crate::view::stats`]) and the transcript facts ([`crate::view::transcript`]): each
//! step of each turn (FORMAT.md §2.3 `step/start`, `step/end`), the tool calls the assistant
//! messages announce and the results that answer them, by call id, with a result's
//! `isError` (§2.4.3; GENERATIONS.md §7 for v4 tool-role results), and every event's stored
//! text, so that the view shows an event as it is in the log without reading the log again.
//!
//! Memory: a few words per step, call and result; the stored texts of every event but
//! `assistant/chunk` go to a [`TextStore`] that spills to an anonymous temporary file past
//! 2 MiB, so memory stays flat however long the log is (its disk use is about the log's
//! size without its chunks).

use std::borrow::Cow;
use std::io;

use crate::derive::project;
use crate::event::Projection;
use crate::json::{Json, Kind};
use crate::replay::text::{TextRef, TextStore};
use crate::view::{Checked, View};

/// Bytes of stored event text held in memory before the rest goes to a temporary file.
pub const RAW_IN_MEMORY: usize = 2 << 20;

/// One step (`step/start` … `step/end`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRow {
    /// `data.turn` of its `step/start`.
    pub turn: Option<i64>,
    /// `data.step` of its `step/start`.
    pub step: Option<i64>,
    /// Seq of its `step/start`.
    pub start_seq: u64,
    /// Seq of its `step/end`, when it ended.
    pub end_seq: Option<u64>,
    /// `tool/call` events while it was open.
    pub tool_calls: u64,
}

/// A tool call announced by an assistant message (a `tool-call` block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallSite {
    /// The block's `id`.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// Seq of the assistant message that holds the block.
    pub seq: u64,
}

/// A tool result (a `tool-result` block, or a v4 tool-role message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultSite {
    /// The call it answers (`toolCallId`).
    pub call_id: String,
    /// Seq of the message that holds it.
    pub seq: u64,
    /// `isError: true`.
    pub is_error: bool,
}

/// The view: see the module docs.
#[derive(Debug)]
pub struct Inspect {
    /// Every step, in order.
    pub steps: Vec<StepRow>,
    /// Tool calls announced by assistant messages, in seq order (shadowed messages
    /// included: they were on the surface when they were written).
    pub calls: Vec<CallSite>,
    /// Tool results, in seq order.
    pub results: Vec<ResultSite>,
    raw: TextStore,
    /// Where each event's stored text is, by seq (ascending).
    raw_at: Vec<(u64, TextRef)>,
    /// Index in `steps` of the step still open.
    open_step: Option<usize>,
}

impl Default for Inspect {
    fn default() -> Self {
        Inspect {
            steps: Vec::new(),
            calls: Vec::new(),
            results: Vec::new(),
            raw: TextStore::spilling_after(RAW_IN_MEMORY),
            raw_at: Vec::new(),
            open_step: None,
        }
    }
}

impl Inspect {
    /// The stored text of the event with `seq` (one JSON object, as in the log; an
    /// `assistant/chunk` is not kept), `None` for a seq the log does not hold.
    ///
    /// # Errors
    /// Reading the temporary file failed.
    pub fn raw_event(&self, seq: u64) -> Option<io::Result<Cow<'_, str>>> {
        let at = self.raw_at.binary_search_by_key(&seq, |(s, _)| *s).ok()?;
        Some(self.raw.get(self.raw_at[at].1))
    }

    fn message_blocks(&mut self, checked: &Checked<'_, '_>) {
        let logical = checked.event;
        let Some(projected) = project(logical, checked.dialect.projection) else {
            return;
        };
        let message = match checked.dialect.projection {
            Projection::Stored => logical.message(),
            // June messages are built from the stored values (valid JSON by construction).
            Projection::June => Some(Json::from_valid(&projected)),
        };
        let Some(message) = message else { return };
        let text = |v: Option<Json<'_>>| {
            v.filter(|v| v.kind() == Kind::String)
                .and_then(Json::as_str)
                .map(|s| s.into_owned())
        };
        let is_error = |v: Option<Json<'_>>| v.and_then(Json::as_bool) == Some(true);
        let seq = checked.seq;
        // A v4 tool-role result names its call on the message (GENERATIONS §7).
        if let Some(call_id) = text(message.get("toolCallId")) {
            self.results.push(ResultSite {
                call_id,
                seq,
                is_error: is_error(message.get("isError")),
            });
        }
        let blocks = message.get("content").filter(|c| c.is_array());
        for block in blocks.into_iter().flat_map(Json::elements) {
            let [kind, id, name, call_id, error] =
                block.lookup(["type", "id", "name", "toolCallId", "isError"]);
            match text(kind).as_deref() {
                Some("tool-call") => {
                    if let Some(call_id) = text(id) {
                        self.calls.push(CallSite {
                            call_id,
                            name: text(name).unwrap_or_default(),
                            seq,
                        });
                    }
                }
                Some("tool-result") => {
                    if let Some(call_id) = text(call_id) {
                        self.results.push(ResultSite {
                            call_id,
                            seq,
                            is_error: is_error(error),
                        });
                    }
                }
                _ => {}
            }
        }
    }
}

impl View for Inspect {
    fn on_event(&mut self, checked: &Checked<'_, '_>) {
        let logical = checked.event;
        let ty = logical.type_str();
        if ty != "assistant/chunk" {
            let at = self.raw.push(logical.ev.object.raw());
            self.raw_at.push((checked.seq, at));
        }
        let int = |k: &str| {
            logical
                .data()
                .and_then(|d| d.get(k))
                .and_then(Json::as_safe_integer)
        };
        match ty {
            "step/start" => {
                self.steps.push(StepRow {
                    turn: int("turn"),
                    step: int("step"),
                    start_seq: checked.seq,
                    end_seq: None,
                    tool_calls: 0,
                });
                self.open_step = Some(self.steps.len() - 1);
            }
            "step/end" => {
                if let Some(i) = self.open_step.take() {
                    self.steps[i].end_seq = Some(checked.seq);
                }
            }
            "turn/end" => self.open_step = None,
            "tool/call" => {
                if let Some(i) = self.open_step {
                    self.steps[i].tool_calls += 1;
                }
            }
            _ => {}
        }
        if checked.folded && checked.dialect.is_surface_type(ty) {
            self.message_blocks(checked);
        }
    }
}
