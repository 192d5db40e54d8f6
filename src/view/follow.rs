//! `follow`'s view: what happens in a live log, event by event (FORMAT.md §2.3 for the
//! events it reads, §3 for replacements; GENERATIONS.md §7 for v4 tool results): turns
//! starting and ending, tool calls and results, replacements and, at each turn's end,
//! the provider findings the history newly has (PROVIDERS.md).
//!
//! Memory is O(open turn + surface): the calls of the open turn (to name their results)
//! and the keys of the provider findings last reported; nothing grows with the log.

use std::collections::{HashMap, HashSet};

use crate::json::Json;
use crate::provider::Provider;
use crate::replay::Replay;
use crate::rules::Finding;
use crate::view::stats::Usage;
use crate::view::{Checked, View};

/// One thing that happened in the log, in log order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Happening {
    /// A `turn/start`.
    TurnStart {
        /// `data.turn`.
        turn: i64,
        /// The event's seq and line (for SQLite, the row's seq).
        seq: u64,
        /// The event's line.
        line: u64,
    },
    /// A `turn/end`.
    TurnEnd {
        /// `data.turn`.
        turn: i64,
        /// The event's seq.
        seq: u64,
        /// The event's line.
        line: u64,
        /// `data.reason.kind` (`completed`, `aborted`, …), `unknown` when absent.
        reason: String,
        /// `inputTokens` summed over the turn's `assistant/message.data.usage`.
        input_tokens: u64,
        /// `outputTokens`, summed likewise.
        output_tokens: u64,
        /// `turn/end.time - turn/start.time` in ms, when both are known.
        duration_ms: Option<i64>,
    },
    /// A `tool/call`.
    ToolCall {
        /// The event's seq.
        seq: u64,
        /// The event's line.
        line: u64,
        /// `data.callId`.
        call_id: String,
        /// `data.name`.
        name: String,
    },
    /// A `tool/result` (appended or replacing).
    ToolResult {
        /// The event's seq.
        seq: u64,
        /// The event's line.
        line: u64,
        /// The call it answers (`message.source.callId`).
        call_id: String,
        /// The tool's name, when its `tool/call` was seen in this turn.
        name: Option<String>,
        /// The result is an error (`isError: true`, or `data.error` present).
        error: bool,
    },
    /// An event that replaced a range of the surface (`surfaceOp.op: "replace"`, §3).
    Replacement {
        /// The event's seq.
        seq: u64,
        /// The event's line.
        line: u64,
        /// Its type (`user/message`, `tool/result`, …).
        ty: String,
        /// Surface entries it shadowed.
        shadowed: u64,
        /// Surface length before it.
        surface_before: u64,
        /// Surface length after it.
        surface_after: u64,
    },
    /// A provider finding (P1–P7) the history has at a turn's end that it did not have at
    /// the previous one.
    Provider(Finding),
    /// What was said: a `user/message`, an `assistant/message` (its text blocks, and with
    /// [`Follow::reasoning`] its reasoning blocks as a separate happening), a
    /// `system/message` or `developer/message`, when [`Follow::texts`] is set.
    Said {
        /// The event's seq.
        seq: u64,
        /// The event's line.
        line: u64,
        /// `user`, `assistant`, `reasoning`, `system` or `developer`.
        who: &'static str,
        /// The text blocks' text, joined by a space, whole.
        text: String,
    },
}

/// The open turn, as far as `follow` reports it.
#[derive(Debug, Default)]
struct OpenTurn {
    start_time: Option<i64>,
    /// Tokens of its assistant messages.
    usage: Usage,
    /// Tool names by call id, for the results of this turn.
    calls: HashMap<String, String>,
}

/// Collects [`Happening`]s; the command drains them after each push
/// ([`crate::scan::live::Live::push`]).
#[derive(Debug, Default)]
pub struct Follow {
    /// What happened since the last drain, in log order.
    pub happenings: Vec<Happening>,
    /// With `--provider`: the provider whose rules are checked at each turn's end.
    provider: Option<Provider>,
    system_prompt: bool,
    turn: OpenTurn,
    surface_len: u64,
    /// Keys of the provider findings reported at the last turn end.
    reported: HashSet<String>,
    /// Check the provider rules once, when told ([`Follow::check_provider`]), instead of at
    /// every turn end: while catching up quietly, where only the history at the end counts
    /// (checking at every turn end would cost the surface times the turns).
    pub deferring: bool,
    /// While deferring: a turn ended since the last check.
    provider_due: bool,
    /// Report what was said ([`Happening::Said`]).
    pub texts: bool,
    /// With `texts`: report assistant reasoning too.
    pub reasoning: bool,
}

/// The text of `content`'s blocks of `kind` (`text` or `reasoning`), joined by a space.
fn blocks_text(content: Option<Json<'_>>, kind: &str) -> String {
    let mut out = String::new();
    for block in content.into_iter().flat_map(|c| c.elements()) {
        if block.get("type").is_some_and(|t| t.str_eq(kind))
            && let Some(t) = block.get("text").and_then(Json::as_str)
        {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&t);
        }
    }
    out
}

impl Follow {
    /// A view reporting turns, tools and replacements, and with `provider` that
    /// provider's findings.
    pub fn new(provider: Option<Provider>) -> Self {
        Follow {
            provider,
            ..Follow::default()
        }
    }

    /// With `deferring`: the provider findings of `replay`'s history, if a turn ended since
    /// the last check. Call it right after the last turn end pushed: the findings are those
    /// of the history that turn end left.
    pub fn check_provider(&mut self, replay: &Replay) {
        if std::mem::take(&mut self.provider_due) {
            self.provider_findings(replay);
        }
    }

    /// The provider findings now standing that were not standing at the last check.
    fn provider_findings(&mut self, replay: &Replay) {
        let Some(provider) = self.provider else {
            return;
        };
        let mut now = HashSet::new();
        for finding in replay.provider_findings(self.system_prompt) {
            if !provider.enforces(finding.rule) {
                continue;
            }
            let call = finding
                .provider
                .as_ref()
                .and_then(|p| p.call_id.clone())
                .unwrap_or_default();
            let key = format!("{}:{:?}:{call}", finding.rule, finding.seq);
            if !self.reported.contains(&key) {
                self.happenings.push(Happening::Provider(finding));
            }
            now.insert(key);
        }
        self.reported = now;
    }
}

fn text(v: Option<Json<'_>>) -> Option<String> {
    v.and_then(Json::as_str).map(|s| s.into_owned())
}

impl Follow {
    /// With [`Follow::texts`]: what the message event says, as [`Happening::Said`].
    fn said(&mut self, checked: &Checked<'_, '_>, who: &'static str) {
        if !self.texts {
            return;
        }
        let content = checked.event.message().and_then(|m| m.get("content"));
        let (seq, line) = (checked.seq, checked.line);
        if who == "assistant" && self.reasoning {
            let text = blocks_text(content, "reasoning");
            if !text.is_empty() {
                self.happenings.push(Happening::Said {
                    seq,
                    line,
                    who: "reasoning",
                    text,
                });
            }
        }
        let text = blocks_text(content, "text");
        if !text.is_empty() {
            self.happenings.push(Happening::Said {
                seq,
                line,
                who,
                text,
            });
        }
    }
}

impl View for Follow {
    fn on_event(&mut self, checked: &Checked<'_, '_>) {
        let logical = checked.event;
        let data = logical.data();
        let (seq, line) = (checked.seq, checked.line);
        let ty = logical.type_str();
        let surface_before = self.surface_len;
        self.surface_len = checked.replay.len() as u64;
        if let Some(system_prompt) = crate::view::provider::header_system_prompt(checked) {
            self.system_prompt = system_prompt;
        }
        let turn_number = || {
            data.and_then(|d| d.get("turn"))
                .and_then(Json::as_safe_integer)
        };
        match ty {
            "turn/start" => {
                self.turn = OpenTurn {
                    start_time: logical.ev.time_value(),
                    ..OpenTurn::default()
                };
                self.happenings.push(Happening::TurnStart {
                    turn: turn_number().unwrap_or(0),
                    seq,
                    line,
                });
            }
            "turn/end" => {
                let turn = std::mem::take(&mut self.turn);
                let reason = data
                    .and_then(|d| d.get("reason"))
                    .and_then(|r| r.get("kind"))
                    .and_then(Json::as_str)
                    .map_or_else(|| "unknown".to_owned(), |k| k.into_owned());
                let duration_ms = match (turn.start_time, logical.ev.time_value()) {
                    (Some(start), Some(end)) => Some(end - start),
                    _ => None,
                };
                self.happenings.push(Happening::TurnEnd {
                    turn: turn_number().unwrap_or(0),
                    seq,
                    line,
                    reason,
                    input_tokens: turn.usage.input,
                    output_tokens: turn.usage.output,
                    duration_ms,
                });
                // The history is stable at a turn's end: the provider's answer is due.
                if checked.folded && self.deferring {
                    self.provider_due = true;
                } else if checked.folded {
                    self.provider_findings(checked.replay);
                }
            }
            "assistant/message" => {
                if let Some(usage) = data.and_then(|d| d.get("usage")) {
                    self.turn.usage.add(usage);
                }
                self.said(checked, "assistant");
            }
            "user/message" => self.said(checked, "user"),
            "system/message" => self.said(checked, "system"),
            "developer/message" => self.said(checked, "developer"),
            "tool/call" => {
                let [id, name] = data.map_or([None; 2], |d| d.lookup(["callId", "name"]));
                let (call_id, name) = (text(id).unwrap_or_default(), text(name));
                if let Some(name) = &name {
                    self.turn.calls.insert(call_id.clone(), name.clone());
                }
                self.happenings.push(Happening::ToolCall {
                    seq,
                    line,
                    call_id,
                    name: name.unwrap_or_default(),
                });
            }
            "tool/result" => {
                let message = logical.message();
                // `message.source.callId`, else its block's `toolCallId`; a June 2026
                // result has no message, only `data.callId` (FORMAT.md §9.1).
                let call_id = text(
                    message
                        .and_then(|m| m.get("source"))
                        .and_then(|s| s.get("callId")),
                )
                .or_else(|| {
                    text(
                        message
                            .and_then(|m| m.get("content"))
                            .and_then(|c| c.elements().next())
                            .and_then(|b| b.get("toolCallId")),
                    )
                })
                .or_else(|| text(data.and_then(|d| d.get("callId"))))
                .unwrap_or_default();
                // v4: the tool-role message says it; v0–v3: its one `tool-result` block.
                let flag = |v: Option<Json<'_>>| v.and_then(Json::as_bool) == Some(true);
                let error = data.and_then(|d| d.get("error")).is_some()
                    || flag(message.and_then(|m| m.get("isError")))
                    || flag(
                        message
                            .and_then(|m| m.get("content"))
                            .and_then(|c| c.elements().next())
                            .and_then(|b| b.get("isError")),
                    );
                self.happenings.push(Happening::ToolResult {
                    seq,
                    line,
                    name: self.turn.calls.get(&call_id).cloned(),
                    call_id,
                    error,
                });
            }
            _ => {}
        }
        let replace = logical
            .ev
            .surface_op
            .and_then(|op| op.get("op"))
            .is_some_and(|op| op.str_eq("replace"));
        if replace && checked.folded {
            self.happenings.push(Happening::Replacement {
                seq,
                line,
                ty: ty.to_owned(),
                shadowed: (surface_before + 1).saturating_sub(self.surface_len),
                surface_before,
                surface_after: self.surface_len,
            });
        }
    }
}
