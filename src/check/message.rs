//! Message shapes (FORMAT.md §2.5 M1–M8, GENERATIONS §1.6): the message a message event
//! carries, per the dialect's vocabulary.

use crate::check::{Broken, Logical, shown};
use crate::json::{Fields, Json};
use crate::rules::Rule;

/// Checks the message of a message event against M1–M8 (FORMAT.md §2.5).
///
/// # Errors
/// The first of M1–M8 broken.
pub fn check_message(logical: &Logical<'_>) -> Result<(), Broken> {
    let ty = logical.type_str();
    let Some(_) = logical.message().filter(|m| m.is_object()) else {
        return Err((
            Rule::M1,
            format!("{ty} lacks an identified message: message is not an object"),
        ));
    };
    let m = logical.message_fields();
    let [id, role, source, content] = [
        m.get("id"),
        m.get("role"),
        m.get("source"),
        m.get("content"),
    ];
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
    // The source's members, read in one pass.
    let sf = Fields::of(Some(source));
    let kind_is = |want: &str| sf.get("kind").is_some_and(|k| k.str_eq(want));
    let wrong_source =
        |rule: Rule, what: &str| Err((rule, format!("{what}, found {}", source.raw())));
    match ty {
        "assistant/message"
            if !(kind_is("model")
                && sf.get("provider").is_some_and(Json::is_nonempty_string)
                && sf.get("model").is_some_and(Json::is_nonempty_string)) =>
        {
            let what = "assistant/message must have a model source with provider and model";
            return wrong_source(Rule::M5, what);
        }
        "tool/result" => {
            let call_id = sf.get("callId");
            if !(kind_is("tool") && call_id.is_some_and(Json::is_nonempty_string)) {
                let what = "tool/result must have a tool source with a non-empty callId";
                return wrong_source(Rule::M6, what);
            }
            let block = content.elements().next().filter(|b| b.is_object());
            let bf = Fields::of(block);
            let ok = content.len() == 1
                && block.is_some()
                && bf.get("type").is_some_and(|t| t.str_eq("tool-result"))
                && bf.get("content").is_some_and(Json::is_array);
            if !ok {
                return Err((
                    Rule::M7,
                    format!(
                        "tool/result must contain one tool-result block with array content, found {}",
                        crate::wording::count(content.len() as u64, "block")
                    ),
                ));
            }
            let same = match (bf.get("toolCallId"), call_id) {
                (Some(a), Some(b)) => a.same_string(b),
                _ => false,
            };
            if !same {
                return Err((
                    Rule::M8,
                    format!(
                        "mismatched tool call ids: toolCallId {} but source.callId {}",
                        shown(bf.get("toolCallId")),
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
    let Some(_) = logical.message().filter(|m| m.is_object()) else {
        return g6("message is not an object".into());
    };
    let m = logical.message_fields();
    let [id, role, call, source, content, is_error] =
        ["id", "role", "toolCallId", "source", "content", "isError"].map(|k| m.get(k));
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
    if logical.data_fields().get("error").is_some()
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
