//! What the search index keeps of each message (issue 28): every event that joins the
//! surface with a message (FORMAT.md §4: what deriveMessages gives for it), with its seq,
//! turn, role, source kind, time and its text split by what a search filters on — the
//! user's words, the assistant's, its reasoning, tool calls (name and arguments) and tool
//! results (FORMAT.md §2.4.3), system and developer text — and, for a replace, the seqs it
//! shadowed (§3), so that the index marks them.
//!
//! What a replace shadowed, it reads from the fold's surface change
//! ([`View::on_surface`]); the fold keeps nothing for it ([`View::keeps`]: nothing), so a
//! scan that composes it can be saved and taken up ([`crate::scan::resume`]). Memory: the
//! rows of the log (its message texts), each part cut at [`MAX_PART_BYTES`].

use std::collections::HashMap;

use crate::derive::project;
use crate::event::Projection;
use crate::json::{Json, Kind};
use crate::replay::SurfaceChange;
use crate::view::{Checked, View};

/// Bytes of one part's text kept for search; a longer text (a tool result that printed a
/// whole file) is cut at a character boundary below it.
pub const MAX_PART_BYTES: usize = 1 << 20;

/// What a part of a message is, as `search --role` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PartKind {
    /// Text of a user message (a person, or text a plugin injected as the user).
    User,
    /// Text of an assistant message.
    Assistant,
    /// An assistant message's `reasoning` blocks.
    Reasoning,
    /// A tool call (the tool's name and its arguments) or a tool result's output.
    Tool,
    /// Text of a system or developer message (v3, v4).
    System,
}

impl PartKind {
    /// `user`, `assistant`, `reasoning`, `tool` or `system`.
    pub fn name(self) -> &'static str {
        match self {
            PartKind::User => "user",
            PartKind::Assistant => "assistant",
            PartKind::Reasoning => "reasoning",
            PartKind::Tool => "tool",
            PartKind::System => "system",
        }
    }

    /// The kind a name gives ([`PartKind::name`]).
    pub fn from_name(name: &str) -> Option<PartKind> {
        [
            PartKind::User,
            PartKind::Assistant,
            PartKind::Reasoning,
            PartKind::Tool,
            PartKind::System,
        ]
        .into_iter()
        .find(|k| k.name() == name)
    }
}

/// The text of one kind in one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// What it is.
    pub kind: PartKind,
    /// For a tool part: the tool's name (of the call, or of the call a result answers, when
    /// known), the names joined by `,` when the message holds several.
    pub tool: Option<String>,
    /// For a tool part: the call ids it announces or answers (a result whose call this
    /// scan did not see finds its tool's name by them in the index).
    pub call_ids: Vec<String>,
    /// The text, blocks of the kind joined by a newline, cut at [`MAX_PART_BYTES`].
    pub text: String,
}

/// One message on the surface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageRow {
    /// The event's seq.
    pub seq: u64,
    /// The `data.turn` of the turn it is in (after a `turn/start`, up to its `turn/end`).
    pub turn: Option<i64>,
    /// The event type (`user/message`, `tool/result`, …).
    pub event_type: String,
    /// The message's `role` (`user`, `assistant`, `system`, `developer`, `tool`).
    pub role: String,
    /// The message's `source.kind` (`user`, `model`, `tool`, `plugin`, …, §2.4.2).
    pub source: Option<String>,
    /// The event's time, ms since the Unix epoch.
    pub time: Option<i64>,
    /// Its text by kind, in the order first met; a message with no text has one empty
    /// part of its role's kind.
    pub parts: Vec<Part>,
    /// For a replace: the seqs it took off the surface.
    pub shadows: Vec<u64>,
}

/// The view: see the module docs.
#[derive(Debug, Default)]
pub struct MessageRows {
    /// The messages, in seq order.
    pub rows: Vec<MessageRow>,
    /// Tool calls announced by assistant messages: call id and tool name, in order.
    pub calls: Vec<(String, String)>,
    /// Tool names by call id, for the results of this scan.
    names: HashMap<String, String>,
    turn: Option<i64>,
    /// The last replace the fold made: its seq and the seqs it shadowed (told just before
    /// the replacing event itself).
    replaced: Option<(u64, Vec<u64>)>,
}

impl MessageRows {
    /// A view for a scan that takes up an earlier one ([`crate::scan::resume`]), inside the
    /// turn that was open where the earlier scan stopped.
    pub fn in_turn(turn: Option<i64>) -> Self {
        MessageRows {
            turn,
            ..MessageRows::default()
        }
    }

    /// The turn open after the last event (to give [`MessageRows::in_turn`] next time).
    pub fn turn(&self) -> Option<i64> {
        self.turn
    }

    fn row(&mut self, checked: &Checked<'_, '_>) -> Option<MessageRow> {
        let logical = checked.event;
        let ty = logical.type_str();
        let projected = project(logical, checked.dialect.projection)?;
        let message = match checked.dialect.projection {
            Projection::Stored => logical.message()?,
            // June messages are built from the stored values (valid JSON by construction).
            Projection::June => Json::from_valid(&projected),
        };
        let text = |v: Option<Json<'_>>| {
            v.filter(|v| v.kind() == Kind::String)
                .and_then(Json::as_str)
                .map(|s| s.into_owned())
        };
        let role = text(message.get("role")).unwrap_or_default();
        let source = text(message.get("source").and_then(|s| s.get("kind")))
            .or_else(|| text(logical.data()?.get("source")?.get("kind")));
        let mut parts: Vec<Part> = Vec::new();
        let by_role = match role.as_str() {
            "assistant" => PartKind::Assistant,
            "system" | "developer" => PartKind::System,
            "tool" => PartKind::Tool,
            _ => PartKind::User,
        };
        // A v4 tool-role result names its call on the message (GENERATIONS §7).
        let result_call = text(message.get("toolCallId"));
        let result_tool = result_call
            .as_ref()
            .and_then(|id| self.names.get(id).cloned());
        let blocks = message.get("content").filter(|c| c.is_array());
        for block in blocks.into_iter().flat_map(Json::elements) {
            let [kind, body, name, arguments, inner, call_id, id] = block.lookup([
                "type",
                "text",
                "name",
                "arguments",
                "content",
                "toolCallId",
                "id",
            ]);
            match text(kind).as_deref() {
                Some("text") => add(
                    &mut parts,
                    by_role,
                    (result_tool.as_deref(), result_call.as_deref()),
                    text(body),
                ),
                Some("reasoning") => add(&mut parts, PartKind::Reasoning, (None, None), text(body)),
                Some("tool-call") => {
                    let name = text(name).unwrap_or_default();
                    let id = text(id);
                    if let Some(id) = &id {
                        self.names.insert(id.clone(), name.clone());
                        self.calls.push((id.clone(), name.clone()));
                    }
                    let args = text(arguments).unwrap_or_default();
                    let call = (Some(name.as_str()), id.as_deref());
                    add(
                        &mut parts,
                        PartKind::Tool,
                        call,
                        Some(format!("{name} {args}")),
                    );
                }
                Some("tool-result") => {
                    let call_id = text(call_id);
                    let tool = call_id.as_ref().and_then(|id| self.names.get(id).cloned());
                    let output = inner
                        .filter(|c| c.is_array())
                        .into_iter()
                        .flat_map(Json::elements)
                        .filter_map(|b| text(b.get("text")))
                        .collect::<Vec<_>>()
                        .join("\n");
                    let call = (tool.as_deref(), call_id.as_deref());
                    add(&mut parts, PartKind::Tool, call, Some(output));
                }
                _ => {}
            }
        }
        if parts.is_empty() {
            parts.push(Part {
                kind: by_role,
                tool: result_tool,
                call_ids: result_call.into_iter().collect(),
                text: String::new(),
            });
        }
        let shadows = self
            .replaced
            .take()
            .filter(|(seq, _)| *seq == checked.seq)
            .map(|(_, shadowed)| shadowed)
            .unwrap_or_default();
        Some(MessageRow {
            seq: checked.seq,
            turn: self.turn,
            event_type: ty.to_owned(),
            role,
            source,
            time: logical.ev.time_value(),
            parts,
            shadows,
        })
    }
}

/// Adds `text` to the part of `kind` (a new one when the message has none yet), noting the
/// tool name and call id of `call` (when known) among its tools and calls.
fn add(
    parts: &mut Vec<Part>,
    kind: PartKind,
    call: (Option<&str>, Option<&str>),
    text: Option<String>,
) {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return;
    };
    let part = match parts.iter().position(|p| p.kind == kind) {
        Some(i) => &mut parts[i],
        None => {
            parts.push(Part {
                kind,
                tool: None,
                call_ids: Vec::new(),
                text: String::new(),
            });
            parts.last_mut().expect("just pushed")
        }
    };
    let (tool, call_id) = call;
    if let Some(tool) = tool.filter(|t| !t.is_empty()) {
        match &mut part.tool {
            Some(names) if names.split(',').any(|n| n == tool) => {}
            Some(names) => {
                names.push(',');
                names.push_str(tool);
            }
            None => part.tool = Some(tool.to_owned()),
        }
    }
    if let Some(id) = call_id.filter(|id| !part.call_ids.iter().any(|c| c == id)) {
        part.call_ids.push(id.to_owned());
    }
    if part.text.len() >= MAX_PART_BYTES {
        return;
    }
    if !part.text.is_empty() {
        part.text.push('\n');
    }
    let room = MAX_PART_BYTES.saturating_sub(part.text.len());
    let mut cut = text.len().min(room);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    part.text.push_str(&text[..cut]);
}

impl View for MessageRows {
    fn on_surface(&mut self, change: &SurfaceChange<'_>) {
        self.replaced = change.replace.map(|r| (change.seq, r.shadowed.to_vec()));
    }

    fn on_event(&mut self, checked: &Checked<'_, '_>) {
        let logical = checked.event;
        match logical.type_str() {
            "turn/start" => {
                self.turn = logical
                    .data()
                    .and_then(|d| d.get("turn"))
                    .and_then(Json::as_safe_integer);
            }
            "turn/end" => {
                self.turn = None;
                return;
            }
            _ => {}
        }
        if !checked.folded
            || !checked.dialect.is_surface_type(logical.type_str())
            || !checked.replay.contains(checked.seq)
        {
            return;
        }
        if let Some(row) = self.row(checked) {
            self.rows.push(row);
        }
    }
}
