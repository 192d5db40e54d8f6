//! `show`'s counts and totals (FORMAT.md §2.3, §2.4.4; GENERATIONS.md for the v3/v4 events
//! it reads): events by type, turns and their end reasons, steps, tool calls and results,
//! token usage, models, presets, title and child sessions, and one row per turn.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::check::Logical;
use crate::event::{Dialect, Projection};
use crate::json::{Json, Kind};
use crate::view::{Checked, PackedChunks, View};

/// Token usage totals (FORMAT.md §2.4.4), summed over `assistant/message.data.usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// `inputTokens` (uncached input).
    pub input: u64,
    /// `outputTokens`.
    pub output: u64,
    /// `cacheReadTokens`.
    pub cache_read: u64,
    /// `cacheWriteTokens`.
    pub cache_write: u64,
    /// `reasoningTokens`.
    pub reasoning: u64,
    /// Some `usage` reported `reasoningTokens`.
    pub reasoning_reported: bool,
    /// Some assistant message carried a `reasoning` block.
    pub reasoning_shown: bool,
}

impl Usage {
    /// The reasoning tokens, or `None` when they are not known: the messages carry
    /// reasoning but no `usage` reported a count (a provider that leaves it out), so a sum
    /// of 0 would be false. Shown `-` in text and `null` in JSON.
    pub fn reasoning_tokens(&self) -> Option<u64> {
        (self.reasoning_reported || !self.reasoning_shown).then_some(self.reasoning)
    }

    /// [`Usage::reasoning_tokens`] as text: the count, or `-`.
    pub fn reasoning_text(&self) -> String {
        self.reasoning_tokens()
            .map_or_else(|| "-".to_owned(), |n| n.to_string())
    }

    /// Adds the counts of one `usage` object (a missing or non-integer count adds 0).
    pub(crate) fn add(&mut self, usage: Json<'_>) {
        self.reasoning_reported |= usage
            .get("reasoningTokens")
            .and_then(Json::as_seq)
            .is_some();
        let [input, output, cache_read, cache_write, reasoning] = usage
            .lookup([
                "inputTokens",
                "outputTokens",
                "cacheReadTokens",
                "cacheWriteTokens",
                "reasoningTokens",
            ])
            .map(|n| n.and_then(Json::as_seq).unwrap_or(0));
        self.input += input;
        self.output += output;
        self.cache_read += cache_read;
        self.cache_write += cache_write;
        self.reasoning += reasoning;
    }
}

/// One turn, for `show`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnRow {
    /// The turn number (`data.turn`).
    pub turn: i64,
    /// Seq of its `turn/start`.
    pub start_seq: u64,
    /// Seq of its `turn/end`, when it ended.
    pub end_seq: Option<u64>,
    /// The end reason's `kind` (`completed`, `aborted`, …) or `open`.
    pub reason: String,
    /// `step/start` events in the turn.
    pub steps: u64,
    /// `tool/call` events in the turn.
    pub tool_calls: u64,
    /// Usage summed over the turn's assistant messages.
    pub usage: Usage,
    /// v2 and later: records in the turn's embedded assistant streams
    /// (`assistant/message` and `assistant/attempt` `data.stream`, GENERATIONS §5).
    pub stream_records: u64,
    /// Time of `turn/start`, ms since the Unix epoch.
    pub start_time: Option<i64>,
    /// Time of `turn/end`, ms since the Unix epoch.
    pub end_time: Option<i64>,
}

impl TurnRow {
    /// `turn/end` time minus `turn/start` time, in ms; `None` for a turn still open or
    /// without times.
    pub fn duration_ms(&self) -> Option<i64> {
        (self.start_time.zip(self.end_time)).map(|(a, b)| b - a)
    }
}

/// One provider and model a session used (`show`'s `models`; the index keeps a session's
/// as JSON, `sessions.models`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ModelUse {
    /// The provider id (`provider`), as decoded text.
    pub provider: String,
    /// The model id (`model`), as decoded text.
    pub model: String,
    /// `assistant/message` events whose message `source` names this provider and model
    /// (FORMAT.md §2.4.2 source kind `model`); 0 for a model only selected or requested.
    pub assistant_messages: u64,
}

/// Counts and totals for `show`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Events replayed (the torn tail excluded).
    pub events: u64,
    /// Time of the first event, ms since the Unix epoch.
    pub first_time: Option<i64>,
    /// Time of the last event, ms since the Unix epoch.
    pub last_time: Option<i64>,
    /// Events per type (converted types).
    pub types: BTreeMap<String, u64>,
    /// Every turn, in order (only with `ScanOptions::turn_rows`).
    pub turns: Vec<TurnRow>,
    /// Number of `turn/start` events.
    pub turn_count: u64,
    /// Ended turns by their end reason's `kind`.
    pub end_reasons: BTreeMap<String, u64>,
    /// Keep [`Stats::turns`].
    keep_turn_rows: bool,
    /// A turn is open (for counting end reasons of turns that were open).
    turn_open: bool,
    /// `step/start` events.
    pub steps: u64,
    /// `tool/call` events.
    pub tool_calls: u64,
    /// `tool/result` events (replacements included).
    pub tool_results: u64,
    /// Usage over all assistant messages.
    pub usage: Usage,
    /// The latest `session/title` event's `data.title` (a string).
    pub title: Option<String>,
    /// Every provider and model named by `model/selection`, `request/context` (their
    /// `data.provider` and `data.model`) or an assistant message's `source`, in the order
    /// first named.
    pub models: Vec<ModelUse>,
    /// Where each `(provider, model)` of [`Stats::models`] is, so that a log naming many
    /// models costs one hash look-up per event, not a walk over the list.
    model_index: HashMap<(String, String), usize>,
    /// Which entry of [`Stats::models`] the last event named (the usual next one).
    last_model: Option<usize>,
    /// The last `agent-preset/selected` event's `data.agentPreset`: the preset in force at
    /// the end, over the header's `agentPreset`.
    pub selected_agent_preset: Option<String>,
    /// The last `permission/preset` event's `data.preset`.
    pub permission_preset: Option<String>,
    /// The last `sandbox/mode` event's `data.mode`.
    pub sandbox_mode: Option<String>,
    /// The last `approval/policy` event's `data.policy`.
    pub approval_policy: Option<String>,
    /// The child sessions `subagent/catalog` events name (`data.childId`), each once.
    pub child_sessions: BTreeSet<String>,
}

impl Stats {
    /// Counts that keep one row per turn in [`Stats::turns`] (`show`, and `repair` to tell
    /// closed turns apart); memory grows with the number of turns.
    pub fn with_turn_rows() -> Self {
        Stats {
            keep_turn_rows: true,
            ..Stats::default()
        }
    }

    /// The counts `show` prints, for one event.
    fn record(&mut self, seq: u64, logical: &Logical<'_>, dialect: &Dialect) {
        let ty = logical.type_str();
        let time = logical.ev.time_value();
        self.count(ty, time);
        let data = logical.data();
        // Every member of `data` read below, in one pass.
        let [turn, reason, stream, usage] = data.map_or([None; 4], |d| {
            d.lookup(["turn", "reason", "stream", "usage"])
        });
        let int = |v: Option<Json<'_>>| v.and_then(Json::as_safe_integer);
        match ty {
            "turn/start" => {
                self.turn_open = true;
                self.turn_count += 1;
                if self.keep_turn_rows {
                    self.turns.push(TurnRow {
                        turn: int(turn).unwrap_or(0),
                        start_seq: seq,
                        reason: "open".into(),
                        start_time: time,
                        ..TurnRow::default()
                    });
                }
            }
            "turn/end" => {
                let was_open = std::mem::take(&mut self.turn_open);
                let kind = reason
                    .and_then(|r| r.get("kind"))
                    .and_then(Json::as_str)
                    .map_or_else(|| "unknown".to_owned(), |k| k.into_owned());
                if was_open {
                    *self.end_reasons.entry(kind.clone()).or_insert(0) += 1;
                }
                if let Some(row) = self.open_row() {
                    row.end_seq = Some(seq);
                    row.reason = kind;
                    row.end_time = time;
                }
            }
            "step/start" => {
                self.steps += 1;
                if let Some(row) = self.open_row() {
                    row.steps += 1;
                }
            }
            "assistant/attempt" | "assistant/message" => {
                let records = stream.map_or(0, |st| st.len() as u64);
                if let Some(row) = self.open_row() {
                    row.stream_records += records;
                }
                if ty == "assistant/attempt" {
                    return;
                }
                let source = match dialect.projection {
                    Projection::Stored => logical.message().and_then(|m| m.get("source")),
                    // June assistant messages name no model.
                    Projection::June => None,
                };
                if let Some(source) = source {
                    let [provider, model] = source.lookup(["provider", "model"]);
                    if let Some(used) = self.model_use(provider, model) {
                        used.assistant_messages += 1;
                    }
                }
                if let Some(usage) = usage.filter(|u| u.is_object()) {
                    self.usage.add(usage);
                    if let Some(row) = self.open_row() {
                        row.usage.add(usage);
                    }
                }
                if has_reasoning(logical.message()) {
                    self.usage.reasoning_shown = true;
                    if let Some(row) = self.open_row() {
                        row.usage.reasoning_shown = true;
                    }
                }
            }
            "tool/call" => {
                self.tool_calls += 1;
                if let Some(row) = self.open_row() {
                    row.tool_calls += 1;
                }
            }
            "tool/result" => self.tool_results += 1,
            // The members below are read only for their own event types, so other events
            // pay nothing for them.
            "session/title" => latest_text(&mut self.title, data, "title"),
            "model/selection" | "request/context" => {
                let [provider, model] = data.map_or([None; 2], |d| d.lookup(["provider", "model"]));
                self.model_use(provider, model);
            }
            "agent-preset/selected" => {
                latest_text(&mut self.selected_agent_preset, data, "agentPreset");
            }
            "permission/preset" => latest_text(&mut self.permission_preset, data, "preset"),
            "sandbox/mode" => latest_text(&mut self.sandbox_mode, data, "mode"),
            "approval/policy" => latest_text(&mut self.approval_policy, data, "policy"),
            "subagent/catalog" => {
                if let Some(child) = data
                    .and_then(|d| d.get("childId"))
                    .and_then(Json::as_str)
                    .filter(|c| !self.child_sessions.contains(c.as_ref()))
                {
                    self.child_sessions.insert(child.into_owned());
                }
            }
            _ => {}
        }
    }

    /// The [`ModelUse`] of `provider` and `model`, added when first named; `None` unless
    /// both are strings.
    fn model_use(
        &mut self,
        provider: Option<Json<'_>>,
        model: Option<Json<'_>>,
    ) -> Option<&mut ModelUse> {
        let provider = provider.filter(|p| p.kind() == Kind::String)?;
        let model = model.filter(|m| m.kind() == Kind::String)?;
        let last = self.last_model.filter(|&i| {
            self.models
                .get(i)
                .is_some_and(|u| provider.str_eq(&u.provider) && model.str_eq(&u.model))
        });
        let i = match last {
            Some(i) => i,
            None => {
                let key = (
                    provider.as_str().unwrap_or_default().into_owned(),
                    model.as_str().unwrap_or_default().into_owned(),
                );
                match self.model_index.get(&key) {
                    Some(&i) => i,
                    None => {
                        let i = self.models.len();
                        self.models.push(ModelUse {
                            provider: key.0.clone(),
                            model: key.1.clone(),
                            assistant_messages: 0,
                        });
                        self.model_index.insert(key, i);
                        i
                    }
                }
            }
        };
        self.last_model = Some(i);
        self.models.get_mut(i)
    }

    /// The counts the `assistant/chunk` members of a packed row add, at their `times` (ms
    /// since epoch, in order); they change no turn state.
    fn record_packed_chunks(&mut self, times: &[i64]) {
        self.count_n(
            "assistant/chunk",
            times.len() as u64,
            times.first().copied(),
        );
        self.last_time = times.last().copied().or(self.last_time);
    }

    /// Counts one event of type `ty` at `time` (ms since epoch, when it has one).
    fn count(&mut self, ty: &str, time: Option<i64>) {
        self.count_n(ty, 1, time);
        if time.is_some() {
            self.last_time = time;
        }
    }

    /// Counts `n` events of type `ty`, the first at `first_time`.
    fn count_n(&mut self, ty: &str, n: u64, first_time: Option<i64>) {
        self.events += n;
        if self.first_time.is_none() {
            self.first_time = first_time;
        }
        if let Some(count) = self.types.get_mut(ty) {
            *count += n;
        } else {
            self.types.insert(ty.to_owned(), n);
        }
    }

    fn open_row(&mut self) -> Option<&mut TurnRow> {
        self.turns.last_mut().filter(|r| r.end_seq.is_none())
    }
}

/// Sets `slot` to the string `data[key]`, when it is one (the latest value wins).
fn latest_text(slot: &mut Option<String>, data: Option<Json<'_>>, key: &str) {
    if let Some(text) = data.and_then(|d| d.get(key)).and_then(Json::as_str) {
        *slot = Some(text.into_owned());
    }
}

impl View for Stats {
    fn on_event(&mut self, event: &Checked<'_, '_>) {
        self.record(event.seq, event.event, event.dialect);
    }

    fn on_packed_chunks(&mut self, chunks: &PackedChunks<'_>) {
        self.record_packed_chunks(chunks.times);
    }
}

/// Whether an assistant message carries a `reasoning` block (FORMAT.md §2.4.2): its
/// reasoning is then shown, though a count of its tokens may be missing.
pub(crate) fn has_reasoning(message: Option<Json<'_>>) -> bool {
    message.and_then(|m| m.get("content")).is_some_and(|c| {
        c.elements()
            .any(|b| b.get("type").is_some_and(|t| t.str_eq("reasoning")))
    })
}
