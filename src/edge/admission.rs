//! The v2→v3 edge (GENERATIONS §6): what a v2 event must be for the edge to transform it
//! safely, and where the system prompt can become the protected surface head.
//!
//! Refused here: content blocks of a kind outside `text, reasoning, image, file,
//! tool-call, tool-result` and message sources of a kind outside the fixed list of 15
//! (F5); a surface event before the first `step/start`, where the head is inserted, and a
//! changed system prompt outside an open step (F8); an assistant message or attempt with
//! turn or step 0, error metadata on a result that is not an error, a `TOOL_NOT_STARTED`
//! repair without its canonical id (F3, F6); delivery markers that claim the target
//! generation or name another session (F9). A v2 log read natively gets the v2 inventory
//! and payload rules here as well.
//!
//! Learnt from `packages/session/session-format-v2-to-v3/src/payload.ts` (`assertEvent`,
//! `assertV3Event`, `canonicalizeTransformedEvent`) and `src/migration.ts`,
//! tenyi/deepseek-harness @ `77afa3438160c9b45d81277b1fa64e9edcd9416d` (S-v23P, S-v23R).

use crate::edge::Source;
use crate::edge::attempts::Attempt;
use crate::edge::inventory::{is_surface_v0, released_v2};
use crate::edge::payload::{Payload, Supplied, semantics};
use crate::edge::repairs::is_repair_identity;
use crate::edge::shape::{
    Checked, Label, Refusal, count, exact_keys, exact_record, record, value_refused,
};
use crate::header::Header;
use crate::json::{Fields, Json, Kind};
use crate::rules::Rule;

/// The message source kinds the v2→v3 edge can classify.
const SOURCE_KINDS: [&str; 15] = [
    "user",
    "plugin",
    "model",
    "tool",
    "agent-instructions",
    "session-reference",
    "team-message",
    "goal",
    "skill-invocation",
    "skill-catalog",
    "coordinator",
    "subagent-report",
    "subagent-settled",
    "webhook",
    "agent-message",
];

/// The content block kinds it can classify.
const CONTENT_KINDS: [&str; 6] = [
    "text",
    "reasoning",
    "image",
    "file",
    "tool-call",
    "tool-result",
];

fn unclassified(detail: String) -> Refusal {
    Refusal {
        rule: Rule::F5,
        detail,
    }
}

/// The v2→v3 edge's state.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Admission {
    session_id: String,
    parent: bool,
    seeded: bool,
    /// The open step (its turn and step), where a system message can be placed.
    step: Option<(u64, u64)>,
    /// The protected head exists (inserted after the first `step/start`).
    head: bool,
    prompt: String,
    /// The inherited cut, from the last tagged `session/end-seed` (v2).
    cut: Option<u64>,
    /// A delivery marker of generation 2 naming another session.
    foreign_delivery: Option<(u64, u64)>,
}

impl Admission {
    /// The edge's state for a log with `header`.
    pub fn new(header: Option<&Header>) -> Admission {
        let seeded = header.is_some_and(|h| {
            h.lineage.seed_length.is_some()
                || Json::parse(&h.raw)
                    .ok()
                    .and_then(|v| v.get("isSeeded"))
                    .and_then(Json::as_bool)
                    == Some(true)
        });
        Admission {
            session_id: header.map(|h| h.id.clone()).unwrap_or_default(),
            parent: header.is_some_and(|h| h.lineage.parent_session.is_some()),
            seeded,
            cut: (!seeded).then_some(0),
            ..Admission::default()
        }
    }

    /// One event reaching the edge. `from_v0`: it came through the earlier edges, which
    /// already checked its inventory and payload (at version 0 or 1).
    ///
    /// # Errors
    /// What the edge refuses first in this event.
    pub fn event(&mut self, ev: &Source<'_>, from_v0: bool) -> Checked {
        let label = Label::Event(ev.ty, ev.seq);
        if !from_v0 {
            self.native_v2(ev, &label)?;
        }
        // `sessionFormatSafeInteger` refuses the `-0` DSH 0.1.1 took as 0.
        if ev
            .time
            .is_none_or(|t| t.is_negative_zero() || t.as_safe_integer().is_none())
        {
            return Err(value_refused("event time must be a safe integer".into()));
        }
        let data = record(ev.data, &label.at("data"))?;
        owned_content(ev, data)?;
        if matches!(ev.ty, "assistant/message") {
            positive_coordinates(ev.ty, ev.seq, ev.fields)?;
        }
        match ev.ty {
            "user/message" => source_kind(Some(data))?,
            "assistant/message" | "tool/result" => source_kind(ev.fields.get("message"))?,
            "agent/inbox/spliced" | "session/title-llm-request" => {
                let key = if ev.ty == "agent/inbox/spliced" {
                    "inserted"
                } else {
                    "messages"
                };
                for message in data.get(key).into_iter().flat_map(Json::elements) {
                    source_kind(Some(message))?;
                }
            }
            _ => {}
        }
        if ev.ty == "tool/result" {
            repair_identity(ev, data)?;
            error_metadata(ev, data)?;
        }
        if ev.ty == "request/header" {
            let system = data.get("header").and_then(|h| h.get("system"));
            let prompt = system
                .filter(|s| s.kind() == Kind::String)
                .and_then(Json::as_str)
                .unwrap_or_default();
            if prompt != self.prompt {
                if self.step.is_none() {
                    return Err(Refusal {
                        rule: Rule::F8,
                        detail: "format v2 changed request prompt outside an open step cannot retain source chronology".into(),
                    });
                }
                self.prompt = prompt.into_owned();
                self.head = true;
            }
        }
        if is_surface_v0(ev.ty) && !self.head {
            return Err(Refusal {
                rule: Rule::F8,
                detail: "format v2 surface before first step cannot acquire a system head without changing chronology".into(),
            });
        }
        if ev.ty == "session/end-seed"
            && data.get("inherited").and_then(Json::as_bool) == Some(true)
        {
            if !self.seeded {
                return Err(Refusal {
                    rule: Rule::F9,
                    detail: "format v2 unseeded Session contains an inherited end-seed marker"
                        .into(),
                });
            }
            self.cut = Some(ev.seq);
        }
        if ev.ty == "session-log-deepseek/delivery-accepted" {
            let version = data.get("sessionFormatVersion").and_then(Json::as_seq);
            if version == Some(3) {
                return Err(Refusal {
                    rule: Rule::F9,
                    detail: "format v2 delivery marker claims target format v3".into(),
                });
            }
            let ours = data
                .get("sessionId")
                .is_some_and(|s| s.str_eq(&self.session_id));
            if version == Some(2) && !ours {
                self.foreign_delivery = Some((ev.seq, ev.line));
            }
        }
        match ev.ty {
            "step/start" => {
                let field = |k: &str| data.get(k).and_then(Json::as_seq).unwrap_or(0);
                self.step = Some((field("turn"), field("step")));
                self.head = true;
            }
            "step/end" | "turn/end" => self.step = None,
            _ => {}
        }
        Ok(())
    }

    /// A native v2 event: the v2 inventory (unknown types refused even when `ignorable`)
    /// and payload rules.
    fn native_v2(&self, ev: &Source<'_>, label: &Label<'_>) -> Checked {
        let feedback = matches!(ev.ty, "feedback/message-put" | "feedback/message-delete");
        let Some(disposition) = released_v2(ev.ty) else {
            if feedback {
                return Ok(());
            }
            return Err(Refusal {
                rule: Rule::F1,
                detail: format!(
                    "format v2 to v3 cannot safely transform unclassified event {}",
                    ev.ty
                ),
            });
        };
        let data = record(ev.data, &label.at("data"))?;
        exact_keys(
            data,
            disposition.required,
            disposition.optional,
            &label.at("data"),
        )?;
        if ev.ty == "assistant/attempt" {
            return positive_coordinates(ev.ty, ev.seq, ev.fields);
        }
        if ev.ty == "session/end-seed"
            && data
                .get("inherited")
                .is_some_and(|i| i.as_bool() != Some(true))
        {
            return Err(value_refused(
                "session/end-seed inherited must be true".into(),
            ));
        }
        let payload = Payload {
            ty: ev.ty,
            seq: ev.seq,
            fields: ev.fields,
            message: ev.message_fields,
        };
        semantics(payload, data, 2, Supplied::default())
    }

    /// What only the end of the log decides: a foreign delivery marker of this generation
    /// is allowed only in an inherited prefix.
    pub fn finish(&self) -> Option<(u64, u64, Refusal)> {
        let (seq, line) = self.foreign_delivery?;
        let inherited = self.parent && self.cut.is_some_and(|cut| seq < cut);
        (!inherited).then(|| {
            (
                seq,
                line,
                Refusal {
                    rule: Rule::F9,
                    detail: "current-generation delivery marker names the wrong Session".into(),
                },
            )
        })
    }
}

/// An `assistant/attempt` the v1→v2 edge inserted, as this edge admits it.
///
/// # Errors
/// Turn or step 0.
pub fn attempt(attempt: &Attempt) -> Checked {
    for (name, value) in [("turn", attempt.turn), ("step", attempt.step)] {
        if value == 0 {
            return Err(value_refused(format!(
                "assistant/attempt {} (its chunks) {name} must be positive",
                attempt.last_seq
            )));
        }
    }
    Ok(())
}

/// The raw chunks an attempt's stream keeps (`block-start`, `block-end`) name content
/// kinds, which must be classifiable too.
///
/// # Errors
/// An unclassified kind (F5), or a block the frozen rules refuse (F3).
pub fn stream_chunk(ev: &Source<'_>) -> Checked {
    let chunk = ev
        .data
        .and_then(|d| d.get("chunk"))
        .filter(|c| c.is_object());
    let Some(chunk) = chunk else {
        return Ok(());
    };
    let label = Label::Event(ev.ty, ev.seq);
    let chunk_label = label.at("chunk");
    match chunk.get("type") {
        Some(t) if t.str_eq("block-end") => {
            content_block(chunk.get("block"), &chunk_label.at("block"))
        }
        Some(t) if t.str_eq("block-start") => {
            content_kind(chunk.get("blockType"), &chunk_label.at("blockType"))
        }
        _ => Ok(()),
    }
}

fn positive_coordinates(ty: &str, seq: u64, data: &Fields<'_>) -> Checked {
    for (name, value) in [("turn", data.get("turn")), ("step", data.get("step"))] {
        let label = Label::Event(ty, seq);
        if count(value, &label.at(name))? == 0 {
            return Err(value_refused(format!("{ty} {seq} {name} must be positive")));
        }
    }
    Ok(())
}

/// `assertOwnedContent`: every content block the event owns.
fn owned_content(ev: &Source<'_>, data: Json<'_>) -> Checked {
    debug_assert_eq!(Some(data), ev.fields.value());
    let data = ev.fields;
    let label = Label::V2Data(ev.ty, ev.seq);
    let message_content = |key: &str| data.get(key).and_then(|m| m.get("content"));
    match ev.ty {
        "user/message" | "tool/code-dispatch" => {
            content_blocks(data.get("content"), &label.then(".content"))
        }
        "assistant/message" | "tool/result" | "team/message/queued" => {
            content_blocks(message_content("message"), &label.then(".message.content"))
        }
        "agent/inbox/spliced" | "session/title-llm-request" => {
            let key = if ev.ty == "agent/inbox/spliced" {
                "inserted"
            } else {
                "messages"
            };
            let dotted = format!(".{key}");
            let list_label = label.then(&dotted);
            for (i, message) in data
                .get(key)
                .into_iter()
                .flat_map(Json::elements)
                .enumerate()
            {
                let item = list_label.nth(i);
                content_blocks(message.get("content"), &item.then(".content"))?;
            }
            Ok(())
        }
        "compaction/summary" => {
            content_blocks(data.get("summary"), &label.then(".summary"))?;
            match data.get("rawOutput") {
                Some(raw) => content_blocks(Some(raw), &label.then(".rawOutput")),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }?;
    // The raw chunks a v2 stream keeps name content kinds too (a migrated v0 message gets
    // its stream later, from its chunks: [`stream_chunk`]).
    if matches!(ev.ty, "assistant/message" | "assistant/attempt") {
        let stream_label = label.then(".stream");
        for (i, entry) in data
            .get("stream")
            .into_iter()
            .flat_map(Json::elements)
            .enumerate()
        {
            if !entry.get("type").is_some_and(|t| t.str_eq("chunk")) {
                continue;
            }
            let entry_label = stream_label.nth(i);
            let chunk_label = entry_label.then(".chunk");
            let chunk = record(entry.get("chunk"), &chunk_label)?;
            match chunk.get("type") {
                Some(t) if t.str_eq("block-end") => {
                    content_block(chunk.get("block"), &chunk_label.then(".block"))?;
                }
                Some(t) if t.str_eq("block-start") => {
                    content_kind(chunk.get("blockType"), &chunk_label.then(".blockType"))?;
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn content_kind(kind: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    if kind.is_some_and(|k| CONTENT_KINDS.iter().any(|c| k.str_eq(c))) {
        return Ok(());
    }
    Err(unclassified(format!(
        "{label}: cannot safely transform unclassified message content kind {}",
        kind.map_or_else(|| "undefined".to_owned(), |k| k.raw().to_owned())
    )))
}

fn content_blocks(content: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    for (i, block) in content.into_iter().flat_map(Json::elements).enumerate() {
        content_block(Some(block), &label.nth(i))?;
    }
    Ok(())
}

/// `assertContentBlock`: a classifiable kind, a `file` attachment's shape, and a
/// `tool-result`'s own blocks.
fn content_block(block: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let block = record(block, label)?;
    let ty = block.get("type");
    content_kind(ty, label)?;
    if ty.is_some_and(|t| t.str_eq("tool-result")) {
        return content_blocks(block.get("content"), &label.then(".content"));
    }
    if ty.is_some_and(|t| t.str_eq("file")) {
        let file_label = label.at("kind \"file\"");
        exact_keys(block, &["type", "attachment"], &[], &file_label)?;
        let attachment_label = file_label.at("attachment");
        let attachment = exact_record(
            block.get("attachment"),
            &attachment_label,
            &["attachmentId", "name", "bytes"],
            &[],
        )?;
        let named = attachment
            .get("attachmentId")
            .is_some_and(Json::is_nonempty_string)
            && attachment
                .get("name")
                .is_some_and(|n| n.kind() == Kind::String);
        if !named {
            return Err(value_refused(format!(
                "{file_label}: file attachment requires attachmentId and name"
            )));
        }
        count(attachment.get("bytes"), &attachment_label.at("bytes"))?;
    }
    Ok(())
}

/// `assertSource`: the source of a message must be of a classifiable kind.
fn source_kind(message: Option<Json<'_>>) -> Checked {
    let source = record(
        message.and_then(|m| m.get("source")),
        &Label::Text("message source"),
    )?;
    let kind = source.get("kind");
    if !kind.is_some_and(|k| k.kind() == Kind::String && SOURCE_KINDS.iter().any(|s| k.str_eq(s))) {
        return Err(unclassified(format!(
            "cannot safely transform unclassified message source (kind {})",
            kind.map_or_else(|| "undefined".to_owned(), |k| k.raw().to_owned())
        )));
    }
    if kind.is_some_and(|k| k.str_eq("agent-message")) {
        exact_keys(
            source,
            &["kind", "form", "senderSessionId"],
            &[],
            &Label::Text("agent-message source"),
        )?;
        let ok = source.get("form").is_some_and(|f| f.str_eq("relay"))
            && source
                .get("senderSessionId")
                .is_some_and(Json::is_nonempty_string);
        if !ok {
            return Err(value_refused(
                "agent-message source requires relay form and senderSessionId".into(),
            ));
        }
    }
    Ok(())
}

fn repair_identity(ev: &Source<'_>, data: Json<'_>) -> Checked {
    debug_assert_eq!(Some(data), ev.fields.value());
    let data = ev.fields;
    let not_started = data
        .get("error")
        .and_then(|e| e.get("code"))
        .is_some_and(|c| c.str_eq("TOOL_NOT_STARTED"));
    if !not_started {
        return Ok(());
    }
    let message = data.get("message");
    let call = message
        .and_then(|m| m.get("source"))
        .and_then(|s| s.get("callId"));
    if !is_repair_identity(message.and_then(|m| m.get("id")), call) {
        return Err(Refusal {
            rule: Rule::F6,
            detail: format!(
                "tool/result {}: TOOL_NOT_STARTED repair requires its canonical historical message id (interrupted-tool-result-{}-<seq>)",
                ev.seq,
                call.and_then(Json::as_str).unwrap_or_default()
            ),
        });
    }
    Ok(())
}

/// `assertCanonicalPayload`: error metadata only on an error result.
fn error_metadata(ev: &Source<'_>, data: Json<'_>) -> Checked {
    if !data.has("error") {
        return Ok(());
    }
    let content = data.get("message").and_then(|m| m.get("content"));
    let error_block = content.is_some_and(|c| {
        c.len() == 1
            && c.elements().next().is_some_and(|b| {
                b.get("type").is_some_and(|t| t.str_eq("tool-result"))
                    && b.get("isError").and_then(Json::as_bool) == Some(true)
            })
    });
    if !error_block {
        return Err(value_refused(format!(
            "format v3 tool/result at seq {} carries error metadata for a non-error tool result",
            ev.seq
        )));
    }
    Ok(())
}
