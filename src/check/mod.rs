//! Per-event checks and the legacy conversions HEAD applies on load
//! (FORMAT.md §1.3 E0–E8, §2.2 U1, §2.5 M1–M8 / R1–R4 / L1–L3, §9.3 L4–L6).
//!
//! Every function here looks at one event and returns the first rule it breaks, so that
//! [`stages`] can apply them in the stage order of §6.5; [`header`] checks the header line
//! and [`closers`] the closers DSH appends on load (§5.2).

pub mod closers;
pub mod foreign;
pub mod header;
pub mod stages;

use std::borrow::Cow;

use crate::event::{CLOSER_SCAN_TYPES, Dialect, Event};
use crate::json::{Json, Kind};
use crate::rules::Rule;

/// A rule broken by one event, with the one-line explanation (the scan adds seq and line).
pub type Broken = (Rule, String);

/// An event after the legacy conversions of FORMAT.md §9.3: the stored envelope with,
/// possibly, a new type and a rebuilt `data`.
#[derive(Debug, Clone)]
pub struct Logical<'a> {
    /// The stored event.
    pub ev: Event<'a>,
    /// The (converted) type, when `type` is a string.
    pub ty: Option<Cow<'a, str>>,
    /// The rebuilt `data` text, when a conversion changed it.
    data_owned: Option<String>,
    /// The message of a stored (unconverted) message event, looked up once.
    message_cache: Option<Json<'a>>,
}

impl<'a> Logical<'a> {
    /// An event taken as stored, without conversion.
    pub fn stored(ev: Event<'a>) -> Self {
        let mut logical = Logical {
            ty: ev.type_name(),
            ev,
            data_owned: None,
            message_cache: None,
        };
        logical.cache_message();
        logical
    }

    fn cache_message(&mut self) {
        self.message_cache = match (self.data_owned.is_none(), self.ev.data) {
            (true, Some(data)) => match self.type_str() {
                "user/message" => Some(data),
                "assistant/message" | "tool/result" | "system/message" | "developer/message" => {
                    data.get("message")
                }
                _ => None,
            },
            _ => None,
        };
    }

    /// `data` after conversion.
    pub fn data(&self) -> Option<Json<'_>> {
        match &self.data_owned {
            Some(text) => Some(Json::from_valid(text)),
            None => self.ev.data,
        }
    }

    /// The converted type, or `""` when `type` is not a string.
    pub fn type_str(&self) -> &str {
        self.ty.as_deref().unwrap_or("")
    }

    /// True when a conversion rebuilt the event.
    pub fn is_converted(&self) -> bool {
        self.data_owned.is_some()
    }

    /// The message the event carries, for the three message types: `data` itself for
    /// `user/message`, `data.message` for `assistant/message` and `tool/result`.
    pub fn message(&self) -> Option<Json<'_>> {
        if self.data_owned.is_none() {
            return self.message_cache;
        }
        let data = self.data()?;
        match self.type_str() {
            "user/message" => Some(data),
            "assistant/message" | "tool/result" | "system/message" | "developer/message" => {
                data.get("message")
            }
            _ => None,
        }
    }
}

/// Builds a compact JSON object from raw member values, in insertion order.
struct ObjectText(String);

impl ObjectText {
    fn new() -> Self {
        ObjectText(String::from("{"))
    }
    fn raw(mut self, key: &str, raw_value: &str) -> Self {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        self.0.push('"');
        self.0.push_str(key);
        self.0.push_str("\":");
        self.0.push_str(raw_value);
        self
    }
    fn member(self, key: Json<'_>, value: Json<'_>) -> Self {
        let key_body = key.raw_str_body().unwrap_or_default().to_owned();
        self.raw(&key_body, value.raw())
    }
    fn finish(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

fn is_safe_int_at_least(v: Option<Json<'_>>, min: i64) -> bool {
    v.and_then(Json::as_safe_integer).is_some_and(|n| n >= min)
}

fn legacy_id(session_id: &str, seq: u64) -> String {
    format!("\"legacy-message:{session_id}:{seq}\"")
}

/// Applies the legacy conversions of FORMAT.md §9.3 to one event, in HEAD's order:
/// `turn/start`, `turn/end`, `steering/message`, then the pre-identity messages.
///
/// `session_id` is the header id as stored inside its quotes; `message_id_at` returns the
/// raw message id (with quotes) of an earlier event by seq, for legacy `tool/result`
/// replacements that keep their target's identity.
///
/// # Errors
/// L4, L5 or L6 for malformed legacy records.
pub fn convert<'a>(
    ev: Event<'a>,
    session_id: &str,
    message_id_at: &dyn Fn(u64) -> Option<String>,
) -> Result<Logical<'a>, Broken> {
    let mut logical = Logical::stored(ev);
    let seq = ev.seq_value().unwrap_or(0);
    let Some(data) = ev.data.filter(|d| d.is_object()) else {
        // §9.3.2: a steering/message's data "must be a non-array object".
        if logical.type_str() == "steering/message" {
            return Err((
                Rule::L6,
                format!(
                    "malformed steering/message: data must be an object, found {}",
                    shown(ev.data)
                ),
            ));
        }
        return Ok(logical);
    };
    match logical.type_str() {
        "turn/start" if data.has("trigger") => {
            let trigger = data.get("trigger");
            let ok = is_safe_int_at_least(data.get("turn"), 1)
                && data.has_exactly_keys(&["turn", "trigger"])
                && trigger.is_some_and(|t| t.is_object())
                && trigger
                    .and_then(|t| t.get("kind"))
                    .is_some_and(Json::is_nonempty_string);
            if !ok {
                return Err((
                    Rule::L4,
                    "malformed pre-react-loop turn/start: expected exactly {turn >= 1, trigger: {kind}}".into(),
                ));
            }
            let turn = data.get("turn").expect("checked above");
            logical.data_owned = Some(ObjectText::new().raw("turn", turn.raw()).finish());
        }
        "turn/end" => {
            if let Some(reason) = convert_turn_end_reason(data)? {
                let turn = data
                    .get("turn")
                    .expect("checked by convert_turn_end_reason");
                logical.data_owned = Some(
                    ObjectText::new()
                        .raw("turn", turn.raw())
                        .raw("reason", &reason)
                        .finish(),
                );
            }
        }
        "steering/message" => {
            let message = data.get("message").filter(|m| m.is_object());
            let turn_ok = data.get("turn").and_then(Json::as_safe_integer).is_some();
            if let (Some(message), true, true) = (
                message,
                turn_ok,
                data.has_exactly_keys(&["turn", "message"]),
            ) {
                logical.ty = Some(Cow::Borrowed("user/message"));
                logical.data_owned = Some(message.raw().to_owned());
            } else if turn_ok && data.has_exactly_keys(&["turn", "content", "source"]) {
                let mut obj = ObjectText::new();
                for (k, v) in data.members() {
                    if k.str_eq("content") || k.str_eq("source") {
                        obj = obj.member(k, v);
                    }
                }
                logical.ty = Some(Cow::Borrowed("user/message"));
                logical.data_owned = Some(
                    obj.raw("id", &legacy_id(session_id, seq))
                        .raw("role", "\"user\"")
                        .finish(),
                );
                logical.cache_message();
                return Ok(logical);
            } else {
                return Err((
                    Rule::L6,
                    "malformed steering/message: expected {turn, message} or {turn, content, source}".into(),
                ));
            }
        }
        _ => {}
    }
    convert_pre_identity(&mut logical, session_id, seq, message_id_at);
    logical.cache_message();
    Ok(logical)
}

/// FORMAT.md §9.3.2 `turn/end`: returns the rebuilt reason text when it changes.
fn convert_turn_end_reason(data: Json<'_>) -> Result<Option<String>, Broken> {
    let l5 = |what: &str| {
        Err((
            Rule::L5,
            format!("malformed pre-react-loop turn/end: {what}"),
        ))
    };
    let reason = data.get("reason").filter(|r| r.is_object());
    let kind = reason
        .and_then(|r| r.get("kind"))
        .filter(|k| k.kind() == Kind::String);
    let (Some(reason), Some(kind), true, true) = (
        reason,
        kind,
        data.has_exactly_keys(&["turn", "reason"]),
        is_safe_int_at_least(data.get("turn"), 1),
    ) else {
        return l5("expected exactly {turn >= 1, reason: {kind: string}}");
    };
    let only_kind = reason.has_exactly_keys(&["kind"]);
    let kind = kind.as_str().unwrap_or_default();
    match kind.as_ref() {
        "completed" | "blocked" | "max-tokens" | "interrupted" => {
            if only_kind {
                Ok(None)
            } else {
                l5(&format!("reason {kind:?} must have no key but kind"))
            }
        }
        "aborted" if reason.has("reason") => Ok(None),
        "aborted" if only_kind => Ok(Some(
            r#"{"kind":"aborted","reason":{"kind":"legacy"}}"#.into(),
        )),
        "disposed" if only_kind => Ok(Some(
            r#"{"kind":"aborted","reason":{"kind":"disposed"}}"#.into(),
        )),
        "aborted" | "disposed" => l5(&format!("reason {kind:?} has unexpected keys")),
        "error" if reason.has("error") => Ok(None),
        "error" => {
            let step_ok = is_safe_int_at_least(reason.get("step"), 0);
            if step_ok && reason.has_exactly_keys(&["kind", "step", "failure"]) {
                let failure = reason.get("failure").expect("key present");
                if is_llm_failure(failure) {
                    return Ok(Some(
                        ObjectText::new()
                            .raw("kind", "\"error\"")
                            .raw("error", failure.raw())
                            .finish(),
                    ));
                }
            } else if step_ok
                && (reason.has_exactly_keys(&["kind", "step", "message"])
                    || reason.has_exactly_keys(&["kind", "step", "message", "code"]))
            {
                let message = reason.get("message").filter(|m| m.kind() == Kind::String);
                let code = reason.get("code");
                if let Some(message) = message
                    && code.is_none_or(|c| c.kind() == Kind::String)
                {
                    let error = ObjectText::new()
                        .raw("message", message.raw())
                        .raw("code", code.map_or("\"UNKNOWN\"", Json::raw))
                        .finish();
                    return Ok(Some(
                        ObjectText::new()
                            .raw("kind", "\"error\"")
                            .raw("error", &error)
                            .finish(),
                    ));
                }
            }
            l5(
                "error reason is neither {kind, error}, {kind, step, failure} nor {kind, step, message, code?}",
            )
        }
        _ => Ok(None),
    }
}

fn is_llm_failure(f: Json<'_>) -> bool {
    if !f.is_object() {
        return false;
    }
    let is = |key: &str, kind: Kind| f.get(key).is_some_and(|v| v.kind() == kind);
    let may = |key: &str, kind: Kind| f.get(key).is_none_or(|v| v.kind() == kind);
    is("message", Kind::String)
        && is("code", Kind::String)
        && may("status", Kind::Number)
        && may("providerRetryAfterMs", Kind::Number)
        && may("requestId", Kind::String)
        && f.keys().iter().all(|k| {
            [
                "message",
                "code",
                "status",
                "providerRetryAfterMs",
                "requestId",
            ]
            .iter()
            .any(|w| k.str_eq(w))
        })
}

/// FORMAT.md §9.3.1: messages written before message identities existed.
fn convert_pre_identity(
    logical: &mut Logical<'_>,
    session_id: &str,
    seq: u64,
    message_id_at: &dyn Fn(u64) -> Option<String>,
) {
    let Some(data) = logical.data().filter(|d| d.is_object()) else {
        return;
    };
    let rebuilt = match logical.type_str() {
        "user/message"
            if !data.has("id")
                && !data.has("role")
                && !data.has("message")
                && data.has("content")
                && data.has("source") =>
        {
            let mut obj = ObjectText::new();
            for k in data.keys() {
                obj = obj.member(k, data_get(data, k));
            }
            obj.raw("id", &legacy_id(session_id, seq))
                .raw("role", "\"user\"")
                .finish()
        }
        "assistant/message"
            if !data.has("message") && data.has("content") && data.has("provenance") =>
        {
            let mut obj = ObjectText::new();
            for k in data.keys() {
                if !k.str_eq("content") && !k.str_eq("provenance") {
                    obj = obj.member(k, data_get(data, k));
                }
            }
            let provenance = data.get("provenance").expect("key present");
            let mut source = ObjectText::new();
            let mut has_kind = false;
            for k in provenance.keys() {
                if k.str_eq("kind") {
                    has_kind = true;
                    source = source.raw("kind", "\"model\"");
                } else {
                    source = source.member(k, data_get(provenance, k));
                }
            }
            if !has_kind {
                source = source.raw("kind", "\"model\"");
            }
            let message = ObjectText::new()
                .raw("id", &legacy_id(session_id, seq))
                .raw("role", "\"assistant\"")
                .raw("content", data.get("content").expect("key present").raw())
                .raw("source", &source.finish())
                .finish();
            obj.raw("message", &message).finish()
        }
        "tool/result"
            if !data.has("message")
                && data.has("callId")
                && data.has("content")
                && data.has("isError") =>
        {
            let replace_start = logical
                .ev
                .surface_op
                .filter(|op| op.get("op").is_some_and(|o| o.str_eq("replace")))
                .and_then(|op| op.get("start"))
                .filter(|s| s.kind() == Kind::Number);
            let id = match replace_start {
                Some(start) => start.as_seq().and_then(message_id_at),
                None => Some(legacy_id(session_id, seq)),
            };
            let mut obj = ObjectText::new();
            for k in data.keys() {
                if !["callId", "content", "isError"].iter().any(|w| k.str_eq(w)) {
                    obj = obj.member(k, data_get(data, k));
                }
            }
            let call_id = data.get("callId").expect("key present").raw();
            let block = ObjectText::new()
                .raw("type", "\"tool-result\"")
                .raw("toolCallId", call_id)
                .raw("content", data.get("content").expect("key present").raw())
                .raw("isError", data.get("isError").expect("key present").raw())
                .finish();
            let mut message = ObjectText::new();
            if let Some(id) = &id {
                message = message.raw("id", id);
            }
            let message = message
                .raw("role", "\"user\"")
                .raw("content", &format!("[{block}]"))
                .raw(
                    "source",
                    &ObjectText::new()
                        .raw("kind", "\"tool\"")
                        .raw("callId", call_id)
                        .finish(),
                )
                .finish();
            obj.raw("message", &message).finish()
        }
        _ => return,
    };
    logical.data_owned = Some(rebuilt);
}

fn data_get<'a>(obj: Json<'a>, key: Json<'_>) -> Json<'a> {
    obj.get_by_key(key).expect("key taken from the same object")
}

/// Checks the message of a message event against M1–M8 (FORMAT.md §2.5).
///
/// # Errors
/// The first of M1–M8 broken.
pub fn check_message(logical: &Logical<'_>) -> Result<(), Broken> {
    let ty = logical.type_str();
    let Some(msg) = logical.message().filter(|m| m.is_object()) else {
        return Err((
            Rule::M1,
            format!("{ty} lacks an identified message: message is not an object"),
        ));
    };
    let [id, role, source, content] = msg.lookup(["id", "role", "source", "content"]);
    if !id.is_some_and(Json::is_nonempty_string) {
        return Err((
            Rule::M1,
            format!("{ty} lacks an identified message: id is not a non-empty string"),
        ));
    }
    let want_role = if ty == "assistant/message" {
        "assistant"
    } else {
        "user"
    };
    if !role.is_some_and(|r| r.str_eq(want_role)) {
        return Err((
            Rule::M2,
            format!(
                "{ty} message must have role {want_role:?}, found {}",
                shown(role)
            ),
        ));
    }
    let source_value = source;
    let source = source.filter(|s| s.is_object());
    let kind = source.and_then(|s| s.get("kind"));
    let Some(source) = source.filter(|_| kind.is_some_and(Json::is_nonempty_string)) else {
        return Err((
            Rule::M3,
            format!(
                "{ty} message has an invalid source: expected an object with a non-empty string kind, found {}",
                shown(source_value)
            ),
        ));
    };
    let content_value = content;
    let Some(content) = content.filter(|c| c.is_array()) else {
        return Err((
            Rule::M4,
            format!(
                "{ty} message has invalid content: expected an array, found {}",
                shown(content_value)
            ),
        ));
    };
    match ty {
        "assistant/message" => {
            let ok = source.get("kind").is_some_and(|k| k.str_eq("model"))
                && source.get("provider").is_some_and(Json::is_nonempty_string)
                && source.get("model").is_some_and(Json::is_nonempty_string);
            if !ok {
                return Err((
                    Rule::M5,
                    format!(
                        "assistant/message must have a model source with provider and model, found {}",
                        source.raw()
                    ),
                ));
            }
        }
        "tool/result" => {
            let call_id = source.get("callId");
            let ok = source.get("kind").is_some_and(|k| k.str_eq("tool"))
                && call_id.is_some_and(Json::is_nonempty_string);
            if !ok {
                return Err((
                    Rule::M6,
                    format!(
                        "tool/result must have a tool source with a non-empty callId, found {}",
                        source.raw()
                    ),
                ));
            }
            let block = content.elements().next().filter(|b| b.is_object());
            let ok = content.len() == 1
                && block.is_some_and(|b| {
                    b.get("type").is_some_and(|t| t.str_eq("tool-result"))
                        && b.get("content").is_some_and(Json::is_array)
                });
            if !ok {
                return Err((
                    Rule::M7,
                    format!(
                        "tool/result must contain one tool-result block with array content, found {}",
                        crate::wording::count(content.len() as u64, "block")
                    ),
                ));
            }
            let block = block.expect("checked above");
            let same = match (block.get("toolCallId"), call_id) {
                (Some(a), Some(b)) => a.same_string(b),
                _ => false,
            };
            if !same {
                return Err((
                    Rule::M8,
                    format!(
                        "mismatched tool call ids: toolCallId {} but source.callId {}",
                        shown(block.get("toolCallId")),
                        shown(call_id)
                    ),
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// The message checks of the log's generation: M1–M8 through v3, and the v3/v4 shapes of
/// GENERATIONS §6–§7 (G6 tool-role results, G7 system and developer messages).
///
/// # Errors
/// The first rule broken.
pub fn check_message_in(
    logical: &Logical<'_>,
    dialect: &crate::event::Dialect,
) -> Result<(), Broken> {
    match logical.type_str() {
        "tool/result" if dialect.tool_role_results => check_tool_role_result(logical),
        "system/message" => check_system_message(logical, dialect.generation),
        "developer/message" => check_developer_message(logical),
        _ => check_message(logical),
    }
}

fn check_tool_role_result(logical: &Logical<'_>) -> Result<(), Broken> {
    let g6 = |what: String| Err((Rule::G6, format!("v4 tool/result: {what}")));
    let Some(msg) = logical.message().filter(|m| m.is_object()) else {
        return g6("message is not an object".into());
    };
    let [id, role, call, source, content, is_error] =
        msg.lookup(["id", "role", "toolCallId", "source", "content", "isError"]);
    if !id.is_some_and(Json::is_nonempty_string) {
        return g6("id is not a non-empty string".into());
    }
    if !role.is_some_and(|r| r.str_eq("tool")) {
        return g6(format!("role must be \"tool\", found {}", shown(role)));
    }
    let Some(call) = call.filter(|c| c.is_nonempty_string()) else {
        return g6(format!(
            "toolCallId must be a non-empty string, found {}",
            shown(call)
        ));
    };
    let source_ok = source.is_some_and(|s| {
        s.get("kind").is_some_and(|k| k.str_eq("tool"))
            && s.get("callId").is_some_and(|c| c.same_string(call))
    });
    if !source_ok {
        return g6(format!(
            "source must be {{kind: \"tool\", callId: {}}}, found {}",
            call.raw(),
            shown(source)
        ));
    }
    let Some(content) = content.filter(|c| c.is_array()) else {
        return g6(format!(
            "content must be an array, found {}",
            shown(content)
        ));
    };
    if content
        .elements()
        .any(|b| b.get("type").is_some_and(|t| t.str_eq("tool-result")))
    {
        return g6("content holds a retired tool-result block".into());
    }
    if is_error.is_some_and(|e| e.as_bool().is_none()) {
        return g6(format!(
            "isError must be a boolean, found {}",
            shown(is_error)
        ));
    }
    if logical.data().and_then(|d| d.get("error")).is_some()
        && is_error.and_then(Json::as_bool) != Some(true)
    {
        return g6("data.error is present but message.isError is not true".into());
    }
    Ok(())
}

fn check_system_message(logical: &Logical<'_>, generation: u8) -> Result<(), Broken> {
    let g7 = |what: String| Err((Rule::G7, format!("system/message: {what}")));
    let Some(msg) = logical.message().filter(|m| m.is_object()) else {
        return g7("message is not an object".into());
    };
    if !logical
        .data()
        .is_some_and(|d| d.has_exactly_keys(&["turn", "step", "message"]))
    {
        return g7("data must have exactly turn, step, message".into());
    }
    if !msg.has_exactly_keys(&["id", "role", "source", "content"]) {
        return g7("message must have exactly id, role, source, content".into());
    }
    let [id, role, source, content] = msg.lookup(["id", "role", "source", "content"]);
    if !id.is_some_and(Json::is_nonempty_string) || !role.is_some_and(|r| r.str_eq("system")) {
        return g7("message needs a non-empty id and role \"system\"".into());
    }
    if !content.is_some_and(Json::is_array) {
        return g7(format!(
            "content must be an array, found {}",
            shown(content)
        ));
    }
    let kind = source.and_then(|s| s.get("kind"));
    let ok = if generation >= 4 {
        kind.is_some_and(|k| k.str_eq("system-prompt"))
    } else {
        kind.is_some_and(|k| k.str_eq("plugin"))
            && source
                .and_then(|s| s.get("plugin"))
                .is_some_and(Json::is_nonempty_string)
    };
    if !ok {
        let want = if generation >= 4 {
            "{kind: \"system-prompt\"}"
        } else {
            "{kind: \"plugin\", plugin: <name>}"
        };
        return g7(format!("source must be {want}, found {}", shown(source)));
    }
    Ok(())
}

fn check_developer_message(logical: &Logical<'_>) -> Result<(), Broken> {
    let g7 = |what: String| Err((Rule::G7, format!("developer/message: {what}")));
    let Some(msg) = logical.message().filter(|m| m.is_object()) else {
        return g7("message is not an object".into());
    };
    let [id, role, source, content] = msg.lookup(["id", "role", "source", "content"]);
    if !id.is_some_and(Json::is_nonempty_string) || !role.is_some_and(|r| r.str_eq("developer")) {
        return g7("message needs a non-empty id and role \"developer\"".into());
    }
    let kind = source.and_then(|s| s.get("kind"));
    if !kind.is_some_and(|k| k.is_nonempty_string() && !k.str_eq("plugin")) {
        return g7(format!(
            "source needs a producer-owned kind other than \"plugin\", found {}",
            shown(source)
        ));
    }
    let Some(content) = content.filter(|c| c.is_array()) else {
        return g7(format!(
            "content must be an array, found {}",
            shown(content)
        ));
    };
    let additions = content
        .elements()
        .any(|b| b.get("type").is_some_and(|t| t.str_eq("tool-addition")));
    let header_seq = logical.data().and_then(|d| d.get("headerSeq"));
    match (additions, header_seq) {
        (true, None) => g7("headerSeq is required when the content adds tools".into()),
        (false, Some(_)) => g7("headerSeq must be absent when the content adds no tools".into()),
        (true, Some(h)) if h.as_seq().is_none() => {
            g7(format!("headerSeq must be a seq, found {}", h.raw()))
        }
        _ => Ok(()),
    }
}

/// Short rendering of an optional value for messages: `absent` or the raw text, cut.
pub fn shown(v: Option<Json<'_>>) -> String {
    match v {
        None => "absent".into(),
        Some(v) => {
            let raw = v.raw();
            if raw.chars().count() > 60 {
                format!("{}…", raw.chars().take(60).collect::<String>())
            } else {
                raw.to_owned()
            }
        }
    }
}

/// R1–R3 on a `request/header` (FORMAT.md §2.5); R4 is checked in the per-event stage.
///
/// # Errors
/// The first of R1–R3 broken.
pub fn check_request_header(data: Option<Json<'_>>) -> Result<(), Broken> {
    let header = data.and_then(|d| d.get("header")).filter(|h| h.is_object());
    let config = header
        .and_then(|h| h.get("config"))
        .filter(|c| c.is_object());
    let named = |key| {
        config
            .and_then(|c| c.get(key))
            .is_some_and(Json::is_nonempty_string)
    };
    let (Some(header), Some(config), true, true) =
        (header, config, named("provider"), named("model"))
    else {
        return Err((
            Rule::R1,
            "request/header needs data.header.config with non-empty provider and model".into(),
        ));
    };
    if let Some(effort) = config.get("reasoningEffort")
        && !effort.is_nonempty_string()
    {
        return Err((
            Rule::R2,
            format!(
                "config.reasoningEffort must be a non-empty string, found {}",
                effort.raw()
            ),
        ));
    }
    if let Some(defaults) = header.get("adapterDefaults") {
        let problem = if !defaults.is_object() {
            Some(format!(
                "must be an object, found {}",
                shown(Some(defaults))
            ))
        } else {
            defaults.members().find_map(|(k, v)| {
                let key = k.as_str().unwrap_or_default();
                if !["reasoningEffort", "maxTokens"].contains(&key.as_ref()) {
                    Some(format!("unexpected key {}", k.raw()))
                } else if v.as_bool() != Some(true) {
                    Some(format!("{} must be true, found {}", k.raw(), v.raw()))
                } else if !config.has(&key) {
                    Some(format!("{} is marked but config.{key} is absent", k.raw()))
                } else {
                    None
                }
            })
        };
        if let Some(problem) = problem {
            return Err((Rule::R3, format!("header.adapterDefaults {problem}")));
        }
    }
    Ok(())
}

/// True when a `request/header`'s `data.reason` is the retired `"fallback"` (R4, L3).
pub fn is_fallback_reason(data: Option<Json<'_>>) -> bool {
    data.and_then(|d| d.get("reason"))
        .is_some_and(|r| r.str_eq("fallback"))
}

/// E0–E6 on the stored envelope (FORMAT.md §1.3).
///
/// # Errors
/// The first of E0–E6 broken.
pub fn check_envelope(logical: &Logical<'_>) -> Result<(), Broken> {
    let ev = &logical.ev;
    if logical.type_str() == "request/header-delta" {
        return Err((
            Rule::E0,
            "legacy request/header-delta format is unsupported".into(),
        ));
    }
    if let Some(key) = ev.extra_key {
        return Err((
            Rule::E1,
            format!("invalid event envelope: unexpected key {}", key.raw()),
        ));
    }
    if !ev.ty.is_some_and(|t| t.kind() == Kind::String) {
        return Err((
            Rule::E2,
            format!(
                "invalid event envelope: type must be a string, found {}",
                shown(ev.ty)
            ),
        ));
    }
    if ev.seq_value().is_none() {
        return Err((
            Rule::E3,
            format!(
                "invalid event envelope: seq must be a non-negative safe integer, found {}",
                shown(ev.seq)
            ),
        ));
    }
    if ev.time_value().is_none() {
        return Err((
            Rule::E4,
            format!(
                "invalid event envelope: time must be a safe integer, found {}",
                shown(ev.time)
            ),
        ));
    }
    if ev.data.is_none() {
        return Err((Rule::E5, "invalid event envelope: data key missing".into()));
    }
    if let Some(ig) = ev.ignorable
        && ig.as_bool() != Some(true)
    {
        return Err((
            Rule::E6,
            format!(
                "invalid event envelope: ignorable must be true when present, found {}",
                ig.raw()
            ),
        ));
    }
    Ok(())
}

/// E8: the closer scan dereferences `data` of `turn/start`, `step/start` and `tool/call`.
pub fn breaks_closer_scan(logical: &Logical<'_>) -> bool {
    CLOSER_SCAN_TYPES.contains(&logical.type_str()) && logical.data().is_none_or(Json::is_null)
}

/// U1: an unknown type without `ignorable: true` (FORMAT.md §2.2). Non-string types are
/// unknown too.
pub fn is_unknown_required(logical: &Logical<'_>, dialect: &Dialect) -> bool {
    let known = logical.ev.ty.is_some_and(|t| t.kind() == Kind::String)
        && dialect.is_known_type(logical.type_str());
    let alpha = || {
        dialect.generation == 0
            && dialect.strict
            && crate::event::V0_ALPHA_TYPES.contains(&logical.type_str())
    };
    !(known || logical.ev.is_ignorable() || alpha())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(text: &str) -> Event<'_> {
        Event::from_object(Json::parse(text).unwrap()).unwrap()
    }

    fn no_ids(_: u64) -> Option<String> {
        None
    }

    #[test]
    fn pre_identity_user_message_gets_a_legacy_id() {
        let ev = event(
            r#"{"type":"user/message","seq":4,"time":1,"data":{"content":[],"source":{"kind":"user"}},"surfaceOp":"append"}"#,
        );
        let l = convert(ev, "s-1", &no_ids).unwrap();
        assert_eq!(
            l.data().unwrap().raw(),
            r#"{"content":[],"source":{"kind":"user"},"id":"legacy-message:s-1:4","role":"user"}"#
        );
        check_message(&l).unwrap();
    }

    #[test]
    fn pre_identity_tool_result_and_assistant_message() {
        let ev = event(
            r#"{"type":"tool/result","seq":9,"time":1,"data":{"turn":1,"step":1,"callId":"c","content":[],"isError":false,"meta":{}}}"#,
        );
        let l = convert(ev, "s", &no_ids).unwrap();
        assert_eq!(
            l.data().unwrap().raw(),
            r#"{"turn":1,"step":1,"meta":{},"message":{"id":"legacy-message:s:9","role":"user","content":[{"type":"tool-result","toolCallId":"c","content":[],"isError":false}],"source":{"kind":"tool","callId":"c"}}}"#
        );
        check_message(&l).unwrap();
        let ev = event(
            r#"{"type":"assistant/message","seq":3,"time":1,"data":{"turn":1,"step":1,"content":[],"provenance":{"provider":"p","model":"m"}}}"#,
        );
        let l = convert(ev, "s", &no_ids).unwrap();
        assert_eq!(
            l.data().unwrap().raw(),
            r#"{"turn":1,"step":1,"message":{"id":"legacy-message:s:3","role":"assistant","content":[],"source":{"provider":"p","model":"m","kind":"model"}}}"#
        );
    }

    #[test]
    fn legacy_turn_end_reasons() {
        let cases = [
            (
                r#"{"turn":1,"reason":{"kind":"disposed"}}"#,
                Some(r#"{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"disposed"}}}"#),
            ),
            (
                r#"{"turn":1,"reason":{"kind":"aborted"}}"#,
                Some(r#"{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"legacy"}}}"#),
            ),
            (
                r#"{"turn":2,"reason":{"kind":"error","step":1,"message":"boom"}}"#,
                Some(
                    r#"{"turn":2,"reason":{"kind":"error","error":{"message":"boom","code":"UNKNOWN"}}}"#,
                ),
            ),
            (
                r#"{"turn":2,"reason":{"kind":"error","step":0,"failure":{"message":"m","code":"c","status":500}}}"#,
                Some(
                    r#"{"turn":2,"reason":{"kind":"error","error":{"message":"m","code":"c","status":500}}}"#,
                ),
            ),
            (r#"{"turn":1,"reason":{"kind":"completed"}}"#, None),
        ];
        for (data, want) in cases {
            let text = format!(r#"{{"type":"turn/end","seq":0,"time":0,"data":{data}}}"#);
            let l = convert(event(&text), "s", &no_ids).unwrap();
            assert_eq!(l.is_converted(), want.is_some(), "{data}");
            assert_eq!(l.data().unwrap().raw(), want.unwrap_or(data));
        }
        for bad in [
            r#"{"turn":0,"reason":{"kind":"completed"}}"#,
            r#"{"turn":1,"reason":{"kind":"completed","x":1}}"#,
            r#"{"turn":1,"reason":{"kind":"error","step":1}}"#,
            r#"{"turn":1,"reason":"completed"}"#,
        ] {
            let text = format!(r#"{{"type":"turn/end","seq":0,"time":0,"data":{bad}}}"#);
            assert_eq!(
                convert(event(&text), "s", &no_ids).unwrap_err().0,
                Rule::L5,
                "{bad}"
            );
        }
    }

    #[test]
    fn steering_message_becomes_a_user_message() {
        let ev = event(
            r#"{"type":"steering/message","seq":7,"time":0,"data":{"turn":1,"content":[],"source":{"kind":"user"}},"surfaceOp":"append"}"#,
        );
        let l = convert(ev, "s", &no_ids).unwrap();
        assert_eq!(l.type_str(), "user/message");
        assert_eq!(
            l.data().unwrap().raw(),
            r#"{"content":[],"source":{"kind":"user"},"id":"legacy-message:s:7","role":"user"}"#
        );
        let ev = event(r#"{"type":"steering/message","seq":7,"time":0,"data":{"turn":1}}"#);
        assert_eq!(convert(ev, "s", &no_ids).unwrap_err().0, Rule::L6);
    }
}
