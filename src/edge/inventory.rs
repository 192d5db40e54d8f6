//! The frozen event inventories of the edges: every released-v0 event type with its exact
//! top-level payload members (GENERATIONS §4: "a closed event inventory that refuses
//! unknown types even with `ignorable: true`"), and the released-v2 changes (§5).
//!
//! Learnt from `packages/session/session-format-v0-to-v1/src/dispositions.ts` and
//! `packages/session/session-format-v1-to-v2/src/dispositions.ts`, tenyi/deepseek-harness @
//! `77afa3438160c9b45d81277b1fa64e9edcd9416d` (S-v01V, S-v12V).

use crate::json::SlotMask;

/// The members a payload of one type must have, may have, and keeps as opaque JSON.
#[derive(Debug, Clone, Copy)]
pub struct Disposition {
    /// Members that must be present.
    pub required: &'static [&'static str],
    /// Further members that may be present.
    pub optional: &'static [&'static str],
    /// The masks of `required` and `optional` in the fixed record
    /// ([`crate::json::Fields::has_exactly`]), made when this crate is compiled.
    pub masks: [SlotMask; 2],
}

const fn d(required: &'static [&'static str], optional: &'static [&'static str]) -> Disposition {
    Disposition {
        required,
        optional,
        masks: [SlotMask::of(required), SlotMask::of(optional)],
    }
}

/// The 51 released-v0 types, sorted by name.
const RELEASED_V0: &[(&str, Disposition)] = &[
    ("agent-preset/selected", d(&["agentPreset"], &[])),
    (
        "agent/inbox/spliced",
        d(
            &["target", "start", "inserted"],
            &["removedCount", "outcome"],
        ),
    ),
    (
        "approval/asked",
        d(&["id", "toolName"], &["callId", "reason"]),
    ),
    ("approval/decided", d(&["id", "outcome"], &[])),
    ("approval/policy", d(&["policy"], &["source"])),
    ("assistant/chunk", d(&["turn", "step", "chunk"], &[])),
    (
        "assistant/message",
        d(&["turn", "step", "message"], &["usage", "interrupted"]),
    ),
    (
        "command/done",
        d(&["commandId", "kind"], &["text", "sourceEventSeq"]),
    ),
    (
        "command/run",
        d(&["commandId", "name", "source"], &["args"]),
    ),
    (
        "compaction/end",
        d(&["compactionId", "turn"], &["sourceCommandId", "error"]),
    ),
    (
        "compaction/prune",
        d(
            &["shadowedRange", "shadowedSeqs", "shadowedTokenCount"],
            &[],
        ),
    ),
    (
        "compaction/start",
        d(&["compactionId", "turn"], &["sourceCommandId"]),
    ),
    (
        "compaction/summary",
        d(
            &[
                "compactionId",
                "summary",
                "shadowedRange",
                "shadowedSeqs",
                "shadowedTokenCount",
                "provider",
                "model",
            ],
            &[
                "sourceCommandId",
                "maxTokens",
                "usage",
                "rawOutput",
                "llmStreamCall",
            ],
        ),
    ),
    ("feedback/record", d(&["text"], &[])),
    (
        "goal/change",
        d(
            &["kind", "version", "operation"],
            &[
                "goal",
                "roundsStarted",
                "createdAt",
                "updatedAt",
                "cleared",
                "clearedAt",
            ],
        ),
    ),
    (
        "hook/invoked",
        d(&["turn", "point", "dialect", "handlerId"], &["matcher"]),
    ),
    (
        "hook/result",
        d(
            &["turn", "point", "handlerId", "decision", "durationMs"],
            &["exitCode", "stderrSummary"],
        ),
    ),
    (
        "llm/retry",
        d(
            &[
                "retryId",
                "turn",
                "step",
                "provider",
                "mode",
                "policyKey",
                "retry",
                "delayMs",
                "failure",
            ],
            &["maxRetries"],
        ),
    ),
    (
        "llm/retry-started",
        d(&["retryId", "turn", "step", "retry"], &[]),
    ),
    (
        "model/selection",
        d(&["provider", "model"], &["reasoningEffort"]),
    ),
    ("permission/preset", d(&["preset"], &[])),
    ("plan/mode", d(&["active"], &[])),
    (
        "request/context",
        d(&["provider", "model"], &["contextWindow"]),
    ),
    (
        "request/header",
        d(&["header", "reason"], &["startsSeries"]),
    ),
    ("sandbox/mode", d(&["mode"], &["source"])),
    (
        "schedule/change",
        d(&["version", "operation"], &["schedule", "id", "acceptedAt"]),
    ),
    (
        "session-log-deepseek/delivery-accepted",
        d(&["sessionId", "throughSeq"], &[]),
    ),
    ("session/end-seed", d(&[], &[])),
    ("session/title", d(&["title", "messageSeqs", "source"], &[])),
    (
        "session/title-llm-request",
        d(
            &[
                "titleProvider",
                "messageSeqs",
                "route",
                "system",
                "messages",
                "maxTokens",
            ],
            &[],
        ),
    ),
    ("step/end", d(&["turn", "step"], &[])),
    ("step/start", d(&["turn", "step"], &[])),
    (
        "subagent/descriptor",
        d(
            &["mode", "version", "provider"],
            &[
                "label",
                "agentProvider",
                "agentModel",
                "agentReasoningEffort",
                "persona",
                "toolFilter",
            ],
        ),
    ),
    (
        "subagent/model-selection-policy",
        d(&["allowedModels"], &[]),
    ),
    ("team/member", d(&["version", "teamId", "member"], &[])),
    (
        "team/message/delivered",
        d(&["version", "teamId", "messageId", "targetId"], &[]),
    ),
    (
        "team/message/queued",
        d(&["version", "teamId", "message"], &[]),
    ),
    ("team/task", d(&["version", "teamId", "task"], &[])),
    ("todo/write", d(&["todos"], &[])),
    (
        "tool-workflow/agent-end",
        d(&["runId", "seq", "outcome"], &[]),
    ),
    (
        "tool-workflow/agent-start",
        d(&["runId", "seq", "label", "childId"], &["phase"]),
    ),
    ("tool-workflow/run-end", d(&["runId", "stopReason"], &[])),
    ("tool-workflow/run-start", d(&["runId", "name"], &[])),
    (
        "tool/call",
        d(&["turn", "step", "callId", "name", "arguments"], &[]),
    ),
    (
        "tool/code-dispatch",
        d(
            &[
                "rootCallId",
                "parentCallId",
                "subCallId",
                "name",
                "arguments",
                "isError",
                "content",
            ],
            &[],
        ),
    ),
    (
        "tool/code-dispatch-start",
        d(
            &[
                "rootCallId",
                "parentCallId",
                "subCallId",
                "name",
                "arguments",
            ],
            &[],
        ),
    ),
    (
        "tool/result",
        d(&["turn", "step", "message"], &["error", "meta"]),
    ),
    ("turn/end", d(&["turn", "reason"], &[])),
    ("turn/start", d(&["turn"], &[])),
    ("user/message", d(&["role", "id", "content", "source"], &[])),
    (
        "web/deepseek-search-llm-request",
        d(&["endpoint", "apiVersion", "body"], &[]),
    ),
];

/// The released-v0 disposition of `ty`, when `ty` is in the frozen inventory.
pub fn released_v0(ty: &str) -> Option<&'static Disposition> {
    RELEASED_V0
        .binary_search_by(|(name, _)| (*name).cmp(ty))
        .ok()
        .map(|i| &RELEASED_V0[i].1)
}

/// The released-v2 disposition of `ty`: v0's without `assistant/chunk`, with an
/// `assistant/attempt`, a `stream` on every `assistant/message`, an optional
/// `sessionFormatVersion` on delivery markers and an optional `inherited` on end seeds.
pub fn released_v2(ty: &str) -> Option<Disposition> {
    const MESSAGE: Disposition = d(
        &["turn", "step", "message", "stream"],
        &["usage", "interrupted"],
    );
    match ty {
        "assistant/chunk" => None,
        "assistant/attempt" => Some(d(&["turn", "step", "stream"], &[])),
        "assistant/message" => Some(MESSAGE),
        "session-log-deepseek/delivery-accepted" => {
            Some(d(&["sessionId", "throughSeq"], &["sessionFormatVersion"]))
        }
        "session/end-seed" => Some(d(&[], &["inherited"])),
        _ => released_v0(ty).copied(),
    }
}

/// The types that join the surface through v2 (GENERATIONS §1.6).
pub fn is_surface_v0(ty: &str) -> bool {
    matches!(ty, "user/message" | "assistant/message" | "tool/result")
}

/// The retired names the v0→v1 edge translates (`compact/*`) or converts
/// (`steering/message`) instead of refusing, and their current names.
pub fn legacy_rename(ty: &str) -> Option<&'static str> {
    match ty {
        "compact/start" => Some("compaction/start"),
        "compact/summary" => Some("compaction/summary"),
        "compact/end" => Some("compaction/end"),
        "compact/prune" => Some("compaction/prune"),
        "steering/message" => Some("user/message"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inventory_is_sorted_and_complete() {
        assert_eq!(RELEASED_V0.len(), 51);
        assert!(RELEASED_V0.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(released_v0("permission/preset").is_some());
        assert!(released_v0("assistant/attempt").is_none());
        assert!(released_v2("assistant/chunk").is_none());
        assert_eq!(released_v2("assistant/message").unwrap().required.len(), 4);
    }
}
