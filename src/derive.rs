//! deriveMessages: projecting surface events to messages (FORMAT.md §4, §9.1).
//!
//! HEAD returns stored messages verbatim, so a projection here is a borrowed slice of the
//! stored (or legacy-converted) bytes. June 2026 built new messages; those are assembled
//! from the stored values' raw text, key order as June wrote them.

/// Characters kept for a one-line preview of an event or surface entry.
pub const PREVIEW_CHARS: usize = 60;
use crate::event::Dialect;
use crate::replay::{Keep, Replay, SurfaceInput};
use crate::rules::Rule;
use std::borrow::Cow;

use crate::check::Logical;
use crate::event::Projection;
use crate::json::{Json, Kind};

/// The message an event contributes to the derived history, byte for byte, or `None`
/// when it contributes nothing (a non-message type, or an `assistant/message` with
/// empty content, which only carries usage).
pub fn project<'l>(logical: &'l Logical<'_>, projection: Projection) -> Option<Cow<'l, str>> {
    let data = logical.data()?;
    match projection {
        Projection::Stored => {
            let message = logical.message()?;
            if logical.type_str() == "assistant/message"
                && logical
                    .message_fields()
                    .get("content")
                    .is_some_and(|c| c.is_array() && c.is_empty())
            {
                return None;
            }
            Some(Cow::Borrowed(message.raw()))
        }
        Projection::June => project_june(logical.type_str(), data).map(Cow::Owned),
    }
}

/// The elements of an array value, raw, comma-joined (no brackets).
fn inner_elements(content: Json<'_>) -> String {
    content
        .elements()
        .map(Json::raw)
        .collect::<Vec<_>>()
        .join(",")
}

fn project_june(ty: &str, data: Json<'_>) -> Option<String> {
    let content = data.get("content").filter(|c| c.kind() == Kind::Array);
    match ty {
        "user/message" => Some(format!(r#"{{"role":"user","content":{}}}"#, content?.raw())),
        "assistant/message" => {
            let content = content?;
            (!content.is_empty())
                .then(|| format!(r#"{{"role":"assistant","content":{}}}"#, content.raw()))
        }
        "tool/result" => Some(format!(
            r#"{{"role":"user","content":[{{"type":"tool-result","toolCallId":{},"content":{},"isError":{}}}]}}"#,
            data.get("callId")?.raw(),
            content?.raw(),
            data.get("isError").map_or("false", Json::raw),
        )),
        "context/message" | "steering/message" => {
            let tag = if ty == "context/message" {
                "context"
            } else {
                "steering"
            };
            let kind = data
                .get("source")
                .and_then(|s| s.get("kind"))
                .map_or("null", Json::raw);
            let mut open = String::new();
            crate::json::write_js_string(&mut open, &format!("<{tag} source={kind}>"));
            let mut close = String::new();
            crate::json::write_js_string(&mut close, &format!("</{tag}>"));
            let inner = inner_elements(content?);
            let sep = if inner.is_empty() { "" } else { "," };
            Some(format!(
                r#"{{"role":"user","content":[{{"type":"text","text":{open}}}{sep}{inner},{{"type":"text","text":{close}}}]}}"#
            ))
        }
        _ => None,
    }
}

/// A one-line preview of a message, at most `max` characters: the first text, reasoning,
/// tool call or tool result it holds.
pub fn preview(message: Option<Json<'_>>, max: usize) -> String {
    let Some(content) = message.and_then(|m| m.get("content")) else {
        return String::new();
    };
    one_line(&first_text(content, 0, max + 1).unwrap_or_default(), max)
}

/// `text` on one line (control characters become spaces), at most `max` characters: a
/// longer text keeps `max - 1` and ends in `…`.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(max + 1)
        .collect();
    if out.chars().count() > max {
        out = out.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
    }
    out
}

/// The first `limit` characters of a string value, decoding no more than that.
fn prefix(v: Json<'_>, limit: usize) -> Option<String> {
    let body = v.raw_str_body()?;
    if !body.contains('\\') {
        return Some(body.chars().take(limit).collect());
    }
    Some(
        char::decode_utf16(v.code_units())
            .map(|r| r.unwrap_or('\u{FFFD}'))
            .take(limit)
            .collect(),
    )
}

fn first_text(content: Json<'_>, depth: usize, limit: usize) -> Option<String> {
    if depth > 4 {
        return None;
    }
    for block in content.elements() {
        let [ty, text, name, arguments, inner] =
            block.lookup(["type", "text", "name", "arguments", "content"]);
        let ty = ty.and_then(Json::as_str).unwrap_or_default();
        match ty.as_ref() {
            "text" | "reasoning" => {
                if let Some(t) = text.and_then(|t| prefix(t, limit)) {
                    return Some(t);
                }
            }
            "tool-call" => {
                let name = name.and_then(|n| prefix(n, limit)).unwrap_or_default();
                let args = arguments.and_then(|a| prefix(a, limit)).unwrap_or_default();
                return Some(format!("{name}({args})"));
            }
            "tool-result" => {
                if let Some(inner) = inner.and_then(|c| first_text(c, depth + 1, limit)) {
                    return Some(inner);
                }
            }
            "image" => return Some("[image]".into()),
            "tool-addition" | "tool-removal" => {
                let sign = if ty == "tool-addition" { "+" } else { "-" };
                let name = block
                    .get("toolName")
                    .and_then(|n| prefix(n, limit))
                    .unwrap_or_default();
                return Some(format!("{sign}tool {name}"));
            }
            _ => {}
        }
    }
    None
}

/// Feeds one checked event to the surface fold (FORMAT.md §3.2, S1–S18): a surface event
/// with what its entry keeps (role, message id, tool-call ids, the provider's view of its
/// message, and per `keep` its derived message and preview), any other event with only its
/// surface fields. `line` is where it is (for SQLite, the row's seq).
///
/// # Errors
/// The surface rule the event breaks and what was found.
pub fn fold_event(
    replay: &mut Replay,
    seq: u64,
    logical: &Logical<'_>,
    dialect: &Dialect,
    line: Option<u64>,
    keep: Keep,
) -> Result<(), (Rule, String)> {
    let ty = logical.type_str();
    if dialect.is_surface_type(ty) {
        let projected = project(logical, dialect.projection);
        let message = logical.message().or(logical.data());
        let role_json = match dialect.projection {
            Projection::Stored => logical.message_fields().get("role"),
            Projection::June => None,
        };
        let role = role_json
            .and_then(Json::as_str)
            .map(|r| r.into_owned())
            .or_else(|| {
                (dialect.projection == Projection::June).then(|| {
                    if ty == "assistant/message" {
                        "assistant"
                    } else {
                        "user"
                    }
                    .to_owned()
                })
            });
        let message_id = logical.message_fields().get("id").map(Json::raw);
        let preview = if keep.previews {
            preview(message, PREVIEW_CHARS)
        } else {
            String::new()
        };
        let derived = match (dialect.projection, projected.as_deref()) {
            (_, None) => None,
            (Projection::Stored, Some(_)) => logical.message(),
            (Projection::June, Some(m)) => Some(Json::from_valid(m)),
        };
        let (calls, results, shape) = match derived {
            Some(m) => {
                let (calls, results, mut shape) = crate::provider::read_message(m, role.as_deref());
                if shape.role == crate::provider::WireRole::Assistant {
                    // What P4 needs to tell a lost reasoning from none produced.
                    shape.reasoning_lost = !shape.has_reasoning
                        && crate::provider::usage_reports_reasoning(logical.data());
                    shape.model =
                        crate::provider::source_model(m).map_or(0, |name| replay.model_key(&name));
                }
                (calls, results, Some(shape))
            }
            None => Default::default(),
        };
        replay.push_surface(SurfaceInput {
            seq,
            ty,
            surface_op: logical.ev.surface_op,
            source_event_seqs: logical.ev.source_event_seqs,
            data: logical.data(),
            message: projected.as_deref().filter(|_| keep.messages),
            role: role.as_deref(),
            message_id,
            preview: &preview,
            calls,
            results,
            line,
            shape,
        })
    } else {
        replay.push_log_only(
            seq,
            ty,
            logical.ev.surface_op.is_some(),
            logical.ev.source_event_seqs.is_some(),
        )
    }
}
