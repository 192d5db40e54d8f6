//! The load-time closers of an interrupted turn (FORMAT.md §5.2, §5.3, §5.6; GENERATIONS.md
//! §12 for v1–v4): DSH computes them on every load and checks them with the log, so they
//! are a check. [`OpenTurn`] is §5.2's scan over every event; [`closers_for_open_turn`]
//! turns its final state into the closer records, byte for byte as DSH writes them.

use crate::check::Logical;
use crate::event::{Dialect, Era, Projection};
use crate::json::{Fields, Json};

/// A tool call announced by an assistant message that has no result yet
/// (FORMAT.md §5.2 `pending`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingCall {
    /// The call id as text.
    pub call_id: String,
    /// The call id as `JSON.stringify` prints it, quotes included.
    pub call_id_raw: String,
    /// The call id as a JavaScript template literal inserts it (`String(id)`), escaped for
    /// use inside a JSON string.
    pub call_id_in_text: String,
    /// The announcing message's `data.step` as `JSON.stringify` prints it, when present.
    pub step_raw: Option<String>,
    /// Seq of the announcing `assistant/message`.
    pub announced_seq: u64,
    /// Seq of the `tool/call`, when one was recorded.
    pub call_seq: Option<u64>,
    /// The announcing step.
    pub step: Option<i64>,
}

/// §5.2's state after each event: the open turn and step, and the calls announced in the
/// open step that have no result yet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenTurn {
    /// The open turn at the end of the log, if any.
    pub open_turn: Option<i64>,
    /// The open step at the end of the log, if any.
    pub open_step: Option<i64>,
    /// Calls of the open turn's open step still without a result: repair closes these.
    pub pending: Vec<PendingCall>,
    /// Calls whose step or turn closed without a result (committed orphans).
    pub orphans: Vec<PendingCall>,
    /// The open turn's `data.turn` as `JSON.stringify` prints it.
    pub open_turn_raw: Option<String>,
    /// The open step's `data.step` as `JSON.stringify` prints it.
    pub open_step_raw: Option<String>,
    /// Time of the last event (packed chunks included), ms since the Unix epoch: every
    /// closer reuses it.
    pub last_time: Option<i64>,
}

impl OpenTurn {
    /// Takes one event (§5.2's table); `seq` is its seq.
    pub fn record(&mut self, seq: u64, logical: &Logical<'_>, dialect: &Dialect) {
        let ty = logical.type_str();
        if let Some(time) = logical.ev.time_value() {
            self.last_time = Some(time);
        }
        let raw = |v: Option<Json<'_>>| v.map(crate::json::js_token);
        let fields = logical.data_fields();
        let member = |key: &str| fields.get(key);
        match ty {
            "turn/start" => {
                self.close_pending();
                self.open_turn = Some(fields.safe_integer("turn").unwrap_or(0));
                self.open_turn_raw = raw(member("turn"));
                self.open_step = None;
                self.open_step_raw = None;
            }
            "turn/end" => {
                self.close_pending();
                self.open_turn = None;
                self.open_turn_raw = None;
                self.open_step = None;
                self.open_step_raw = None;
            }
            "step/start" => {
                self.open_step = fields.safe_integer("step");
                self.open_step_raw = raw(member("step"));
            }
            "step/end" => {
                self.close_pending();
                self.open_step = None;
                self.open_step_raw = None;
            }
            "assistant/message" => {
                let step = member("step");
                let content = match dialect.projection {
                    Projection::Stored => logical.message_fields().get("content"),
                    Projection::June => member("content"),
                };
                let step_raw = raw(step);
                let step = fields.safe_integer("step");
                for block in content.into_iter().flat_map(Json::elements) {
                    let block = Fields::of(Some(block));
                    if block.get("type").is_some_and(|t| t.str_eq("tool-call"))
                        && let Some(id) = block.get("id")
                    {
                        self.announce(seq, id, step, &step_raw);
                    }
                }
            }
            "tool/call" => {
                let id = member("callId").and_then(Json::as_str);
                if let Some(p) = self
                    .pending
                    .iter_mut()
                    .find(|p| id.as_deref() == Some(p.call_id.as_str()))
                {
                    p.call_seq = Some(seq);
                }
            }
            "tool/result" => {
                let id = match dialect.projection {
                    Projection::Stored => logical
                        .message_fields()
                        .get("source")
                        .and_then(|s| s.get("callId")),
                    Projection::June => member("callId"),
                };
                let id = id.and_then(Json::as_str);
                let pending = self.pending.len();
                self.pending
                    .retain(|p| id.as_deref() != Some(p.call_id.as_str()));
                // A result recorded after its call's step (or turn) closed still answers
                // it: the derived history puts it right after the call, and `validate`,
                // `messages` and `surface` count the call as answered.
                if self.pending.len() == pending
                    && let Some(i) = self
                        .orphans
                        .iter()
                        .rposition(|p| id.as_deref() == Some(p.call_id.as_str()))
                {
                    self.orphans.remove(i);
                }
            }
            _ => {}
        }
    }

    /// The `assistant/chunk` members of a packed row, at their `times`: they change no
    /// turn state, only the last event's time.
    pub fn record_chunks(&mut self, times: &[i64]) {
        self.last_time = times.last().copied().or(self.last_time);
    }

    /// A tool-call block's id joins `pending` (a repeated id keeps its place and loses its
    /// `callSeq`, §5.2).
    fn announce(&mut self, seq: u64, id: Json<'_>, step: Option<i64>, step_raw: &Option<String>) {
        let call_id = id.as_str().unwrap_or_default().into_owned();
        match self.pending.iter_mut().find(|p| p.call_id == call_id) {
            Some(p) => {
                p.call_seq = None;
                p.step = step;
                p.step_raw.clone_from(step_raw);
            }
            None => self.pending.push(PendingCall {
                call_id,
                call_id_raw: crate::json::js_token(id),
                call_id_in_text: {
                    let mut quoted = String::new();
                    crate::json::write_js_string(
                        &mut quoted,
                        &crate::json::js_string_conversion(id),
                    );
                    quoted[1..quoted.len() - 1].to_owned()
                },
                step_raw: step_raw.clone(),
                announced_seq: seq,
                call_seq: None,
                step,
            }),
        }
    }

    fn close_pending(&mut self) {
        self.orphans.append(&mut self.pending);
    }

    /// What DSH does with an open final turn when it loads the log, in one sentence for
    /// the notes of `validate` and `show`; `None` when the log ends outside a turn. The
    /// closers it appends (§5.2, §5.3) answer the pending calls before anything is sent,
    /// so they are no provider finding.
    pub fn load_note(&self) -> Option<String> {
        self.open_turn?;
        let pending = match self.pending.as_slice() {
            [] => String::new(),
            calls => {
                let ids: Vec<String> = calls.iter().map(|p| format!("{:?}", p.call_id)).collect();
                format!(
                    " with {} ({})",
                    crate::wording::count(calls.len() as u64, "pending call"),
                    ids.join(", ")
                )
            }
        };
        Some(format!(
            "the final turn is still open{pending}: DSH will close it on load (`dsh-session repair` writes the same closers now)"
        ))
    }
}

/// The text of a synthetic result when a `tool/call` was recorded (§5.3), verbatim.
pub const OUTCOME_UNKNOWN_TEXT: &str = "The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.";

/// The text of a synthetic result when no `tool/call` was recorded (§5.3), verbatim.
pub const NOT_STARTED_TEXT: &str = "The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.";

/// The one text of June 2026 closers (§5.6), verbatim.
pub const JUNE_TEXT: &str = "Tool call interrupted by a crash; no result was recorded.";

/// The closer records for the open turn at the end of a log, one compact JSON object
/// each, in order: a `tool/result` per pending call (map order), `step/end` when a step is
/// open, then `turn/end {interrupted}`. Empty when no turn is open or the log is empty.
///
/// `next_seq` is the seq after the last event; every closer reuses the last event's `time`
/// token. Numbers and ids are copied from the stored tokens, so the output is
/// byte-identical to DSH's (§1.4 key orders, §5.3 literals).
pub fn closers_for_open_turn(state: &OpenTurn, era: Era, next_seq: u64) -> Vec<String> {
    let (Some(turn), Some(time)) = (&state.open_turn_raw, state.last_time) else {
        return Vec::new();
    };
    if state.open_turn.is_none() || next_seq == 0 {
        return Vec::new();
    }
    let mut seq = next_seq;
    let mut out = Vec::new();
    for call in &state.pending {
        let mut data = format!("{{\"turn\":{turn}");
        if let Some(step) = &call.step_raw {
            data.push_str(&format!(",\"step\":{step}"));
        }
        let c = &call.call_id_raw;
        let body = &call.call_id_in_text;
        let text = match (era, call.call_seq) {
            (Era::June2026, _) => JUNE_TEXT,
            (_, Some(_)) => OUTCOME_UNKNOWN_TEXT,
            (_, None) => NOT_STARTED_TEXT,
        };
        let mut text_json = String::new();
        crate::json::write_js_string(&mut text_json, text);
        let content = format!("[{{\"type\":\"text\",\"text\":{text_json}}}]");
        match era {
            Era::June2026 => data.push_str(&format!(
                ",\"callId\":{c},\"content\":{content},\"isError\":true,\"error\":{{\"name\":\"InterruptedError\",\"code\":\"interrupted\"}}}}"
            )),
            _ => {
                let error = if call.call_seq.is_some() {
                    r#"{"name":"ToolOutcomeUnknownError","code":"TOOL_OUTCOME_UNKNOWN"}"#
                } else {
                    r#"{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"}"#
                };
                let id = format!("\"interrupted-tool-result-{body}-{seq}\"");
                let message = if era == Era::V4 {
                    // GENERATIONS §12.2: a tool-role message, no wrapper block.
                    format!(
                        "{{\"id\":{id},\"role\":\"tool\",\"toolCallId\":{c},\"isError\":true,\"source\":{{\"kind\":\"tool\",\"callId\":{c}}},\"content\":{content}}}"
                    )
                } else {
                    format!(
                        "{{\"id\":{id},\"role\":\"user\",\"source\":{{\"kind\":\"tool\",\"callId\":{c}}},\"content\":[{{\"type\":\"tool-result\",\"toolCallId\":{c},\"isError\":true,\"content\":{content}}}]}}"
                    )
                };
                data.push_str(&format!(",\"message\":{message},\"error\":{error}}}"));
            }
        }
        let mut line = format!(
            "{{\"type\":\"tool/result\",\"seq\":{seq},\"time\":{time},\"data\":{data},\"surfaceOp\":\"append\""
        );
        if let Some(call_seq) = call.call_seq {
            line.push_str(&format!(",\"sourceEventSeqs\":[{call_seq}]"));
        }
        line.push('}');
        out.push(line);
        seq += 1;
    }
    if let Some(step) = &state.open_step_raw {
        out.push(format!(
            "{{\"type\":\"step/end\",\"seq\":{seq},\"time\":{time},\"data\":{{\"turn\":{turn},\"step\":{step}}}}}"
        ));
        seq += 1;
    }
    out.push(format!(
        "{{\"type\":\"turn/end\",\"seq\":{seq},\"time\":{time},\"data\":{{\"turn\":{turn},\"reason\":{{\"kind\":\"interrupted\"}}}}}}"
    ));
    out
}
