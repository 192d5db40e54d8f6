//! What a repair result for a call that never started is (GENERATIONS §12.3): the
//! `TOOL_NOT_STARTED` result DSH's crash closers write, which the edges and the v3/v4
//! checks admit for an advertised call without a `tool/call`.
//!
//! Learnt from `isExactToolNotStartedRepair`
//! (`packages/session/session-format-v0-to-v1/src/relationships.ts`) and `isRepairIdentity`
//! (`packages/session/session-format-v2-to-v3/src/payload.ts`), tenyi/deepseek-harness @
//! `77afa3438160c9b45d81277b1fa64e9edcd9416d`, and `notStartedRepair`
//! (`packages/session/session-format-v3-to-v4/src/relationships.ts`),
//! MrChenDev/my-deepseek-harness @ `0c97230f94d5a6e24d64e0b63b4a00800ad560b7`.

use crate::edge::Source;
use crate::json::{Json, Kind};

/// The text of a not-started repair result.
pub const NOT_STARTED_TEXT: &str = "The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.";

/// `isRepairIdentity`: `interrupted-tool-result-<callId>-<decimal>`.
pub fn is_repair_identity(id: Option<Json<'_>>, call_id: Option<Json<'_>>) -> bool {
    let (Some(id), Some(call)) = (
        id.and_then(Json::as_str),
        call_id
            .filter(|c| c.kind() == Kind::String)
            .and_then(Json::as_str),
    ) else {
        return false;
    };
    let Some(suffix) = id.strip_prefix(&format!("interrupted-tool-result-{call}-")) else {
        return false;
    };
    !suffix.is_empty()
        && suffix.bytes().all(|b| b.is_ascii_digit())
        && (suffix == "0" || !suffix.starts_with('0'))
        && suffix
            .parse::<u64>()
            .is_ok_and(|n| n <= 9_007_199_254_740_991)
}

/// `isExactToolNotStartedRepair`, as the migrated log's check reads it (the v3 view takes
/// any canonical suffix).
pub fn exact_not_started_repair(ev: &Source<'_>, data: Json<'_>) -> bool {
    let message = data.get("message");
    let call = message
        .and_then(|m| m.get("source"))
        .and_then(|s| s.get("callId"));
    let block = message
        .and_then(|m| m.get("content"))
        .and_then(|c| c.elements().next());
    is_not_started_error(data.get("error"))
        && ev.sources.is_none()
        && is_repair_identity(message.and_then(|m| m.get("id")), call)
        && block.and_then(|b| b.get("isError")).and_then(Json::as_bool) == Some(true)
        && is_not_started_content(block.and_then(|b| b.get("content")))
}

/// The error of a not-started repair: `name` `ToolNotStartedError`, `code`
/// `TOOL_NOT_STARTED`.
fn is_not_started_error(error: Option<Json<'_>>) -> bool {
    let member = |key, want| {
        error
            .and_then(|e| e.get(key))
            .is_some_and(|v| v.str_eq(want))
    };
    member("name", "ToolNotStartedError") && member("code", "TOOL_NOT_STARTED")
}

/// The content of a not-started repair: one text block, [`NOT_STARTED_TEXT`].
fn is_not_started_content(content: Option<Json<'_>>) -> bool {
    let block = content.and_then(|c| c.elements().next());
    let member = |key, want| {
        block
            .and_then(|b| b.get(key))
            .is_some_and(|v| v.str_eq(want))
    };
    content.is_some_and(|c| c.len() == 1)
        && member("type", "text")
        && member("text", NOT_STARTED_TEXT)
}

/// `notStartedRepair` of the v4 check: a tool-role error result with the not-started
/// error, an `interrupted-tool-result-` id and text, or a fork's `forked-tool-result-` one.
pub fn v4_not_started_repair(ev: &Source<'_>, data: Json<'_>, call: &str) -> bool {
    let Some(message) = data.get("message") else {
        return false;
    };
    let named = is_not_started_error(data.get("error"))
        && message.get("isError").and_then(Json::as_bool) == Some(true)
        && ev.sources.is_none();
    if !named {
        return false;
    }
    let id = message.get("id").and_then(Json::as_str).unwrap_or_default();
    if id.starts_with(&format!("forked-tool-result-{call}-")) {
        return true;
    }
    is_repair_identity(message.get("id"), message.get("toolCallId"))
        && is_not_started_content(message.get("content"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repair_identities_have_a_decimal_suffix() {
        fn j(s: &str) -> Option<Json<'_>> {
            Json::parse(s).ok()
        }
        assert!(is_repair_identity(
            j(r#""interrupted-tool-result-c1-17""#),
            j(r#""c1""#)
        ));
        assert!(!is_repair_identity(
            j(r#""interrupted-tool-result-c1-017""#),
            j(r#""c1""#)
        ));
        assert!(!is_repair_identity(
            j(r#""interrupted-tool-result-c2-17""#),
            j(r#""c1""#)
        ));
    }
}
