//! The legacy conversions HEAD applies on load (FORMAT.md §9.3 L4–L6): `turn/start`,
//! `turn/end` reasons, `steering/message`, and messages written before message identity.

use std::borrow::Cow;

use crate::check::{Broken, Logical, shown};
use crate::event::Event;
use crate::json::{Json, Kind};
use crate::rules::Rule;

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
    convert_in(&mut logical, session_id, message_id_at).map(|()| logical)
}

/// [`convert`] on an event already taken as stored ([`Logical::stored`]), in place: the
/// scan builds each event's `Logical` once where it stays instead of moving it out of a
/// result. On an error `logical` may be partly converted: take the event as stored again.
///
/// # Errors
/// As [`convert`].
pub fn convert_in(
    logical: &mut Logical<'_>,
    session_id: &str,
    message_id_at: &dyn Fn(u64) -> Option<String>,
) -> Result<(), Broken> {
    let ev = logical.ev;
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
        return Ok(());
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
                return Ok(());
            } else {
                return Err((
                    Rule::L6,
                    "malformed steering/message: expected {turn, message} or {turn, content, source}".into(),
                ));
            }
        }
        _ => {}
    }
    convert_pre_identity(logical, session_id, seq, message_id_at);
    if logical.is_converted() {
        // The message and its record were taken from the stored `data` by `stored`.
        logical.cache_message();
    }
    Ok(())
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
    // Only the three message types are converted here: the others cost no look-up.
    if !matches!(
        logical.type_str(),
        "user/message" | "assistant/message" | "tool/result"
    ) {
        return;
    }
    let Some(data) = logical.data().filter(|d| d.is_object()) else {
        return;
    };
    // The members the conversions test, from the event's record.
    let fields = logical.data_fields();
    let has = |key: &str| fields.get(key).is_some();
    let rebuilt = match logical.type_str() {
        "user/message"
            if !has("id") && !has("role") && !has("message") && has("content") && has("source") =>
        {
            let mut obj = ObjectText::new();
            for k in data.keys() {
                obj = obj.member(k, data_get(data, k));
            }
            obj.raw("id", &legacy_id(session_id, seq))
                .raw("role", "\"user\"")
                .finish()
        }
        "assistant/message" if !has("message") && has("content") && has("provenance") => {
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
        "tool/result" if !has("message") && has("callId") && has("content") && has("isError") => {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::message::check_message;

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
