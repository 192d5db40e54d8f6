//! Logs that are not DSH's: session files of other harnesses, which users find under the
//! same name (`session.jsonl`) or beside DSH's, recognised by their first line so that they
//! get one clear verdict (`foreign`, rule X1) instead of a header defect (H4), and no DSH
//! format version is read out of them (a pi header's `version: 3` is pi's own).
//!
//! The shapes, from each harness's own description of its files:
//! * pi (badlogic/pi-mono, `packages/coding-agent/docs/session.md`, "SessionHeader"; read at
//!   zhy0216/pigo@d05ede963ebd24d456380aee393a108555dbae1a,
//!   `docs/reference/pi-mono-main/packages/coding-agent/docs/session.md`): the first line is
//!   `{"type":"session","version":3,"id":…,"timestamp":"2024-12-03T14:00:00.000Z","cwd":…}`,
//!   an ISO `timestamp` where a DSH header has `createdAt` in ms. OpenClaw keeps pi's
//!   transcripts (`~/.openclaw/agents/<agent>/sessions/<id>.jsonl`, the same header).
//! * Codex (openai/codex, `codex-rs/protocol/src/protocol.rs`, `RolloutLine` and
//!   `RolloutItem`, `#[serde(tag = "type", content = "payload")]`, at
//!   edb4efee49ae9f130636fab25f2e398a931dd987): every line is
//!   `{"timestamp":…,"type":…,"payload":…}` and the first is `type: "session_meta"`; rollouts
//!   of 2025 before that envelope start with the bare `SessionMeta`
//!   `{"id":…,"timestamp":…,"instructions":…}`.
//! * Claude Code (`~/.claude/projects/<project>/<session>.jsonl`; no published schema, the
//!   shapes as oneryalcin/agent-schemas `claude-code/README.md` and the session files
//!   document them): records carry `sessionId`, `uuid`, `parentUuid`, an ISO `timestamp`
//!   and `type` `user`, `assistant`, `system`, `summary` (with `leafUuid`),
//!   `file-history-snapshot` or `queue-operation`.
//!
//! A first line that is none of these and no DSH header stays a header defect (H2, H4): it
//! may be a DSH log whose header was damaged.

use crate::json::Json;

/// Another harness's session file, recognised by its first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    /// Which harness writes files of this shape (`a pi session`; OpenClaw writes pi's).
    pub looks_like: &'static str,
    /// What in the first line says so (``header has `timestamp`, no `createdAt` ``).
    pub evidence: &'static str,
}

impl Foreign {
    /// The verdict's message: `not a DSH session log (looks like a pi session: header has
    /// `timestamp`, no `createdAt`)`.
    pub fn message(&self) -> String {
        format!(
            "not a DSH session log (looks like {}: {})",
            self.looks_like, self.evidence
        )
    }
}

/// The harness whose session file starts with `first` (the parsed first line), or `None`
/// when the line is a DSH header (however damaged) or of no known harness.
pub fn recognise(first: Json<'_>) -> Option<Foreign> {
    if !first.is_object() {
        return None;
    }
    let [
        ty,
        created_at,
        timestamp,
        payload,
        session_id,
        uuid,
        parent_uuid,
        leaf_uuid,
    ] = first.lookup([
        "type",
        "createdAt",
        "timestamp",
        "payload",
        "sessionId",
        "uuid",
        "parentUuid",
        "leafUuid",
    ]);
    let is_type = |name: &str| ty.is_some_and(|t| t.str_eq(name));
    let iso_time = timestamp.is_some_and(Json::is_nonempty_string);
    if is_type("session") && created_at.is_none() && iso_time {
        return Some(Foreign {
            looks_like: "a pi session",
            evidence: "header has `timestamp`, no `createdAt`",
        });
    }
    if is_type("session_meta") && payload.is_some_and(Json::is_object) {
        return Some(Foreign {
            looks_like: "a Codex rollout",
            evidence: "first line is `session_meta` with a `payload`",
        });
    }
    if ty.is_none()
        && created_at.is_none()
        && iso_time
        && first.has("id")
        && first.has("instructions")
    {
        return Some(Foreign {
            looks_like: "a Codex rollout",
            evidence: "first line is a session meta with `instructions` and `timestamp`, no `type`",
        });
    }
    let claude_type = [
        "user",
        "assistant",
        "system",
        "summary",
        "file-history-snapshot",
        "queue-operation",
    ]
    .into_iter()
    .any(is_type);
    if claude_type
        && (session_id.is_some() && (uuid.is_some() || parent_uuid.is_some())
            || leaf_uuid.is_some()
            || is_type("file-history-snapshot"))
    {
        return Some(Foreign {
            looks_like: "a Claude Code session",
            evidence: "first line is a `user`, `assistant`, `summary` or snapshot record with Claude Code's `sessionId`/`uuid` fields",
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(line: &str) -> Option<&'static str> {
        recognise(Json::parse(line).expect("json")).map(|f| f.looks_like)
    }

    #[test]
    fn other_harnesses_first_lines() {
        let pi = r#"{"type":"session","version":3,"id":"1f9d","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/p"}"#;
        assert_eq!(of(pi), Some("a pi session"));
        let codex = r#"{"timestamp":"2026-03-01T10:00:00.000Z","type":"session_meta","payload":{"id":"0199","cwd":"/p"}}"#;
        assert_eq!(of(codex), Some("a Codex rollout"));
        let old_codex =
            r#"{"id":"0199","timestamp":"2025-07-01T10:00:00.000Z","instructions":null}"#;
        assert_eq!(of(old_codex), Some("a Codex rollout"));
        let claude = r#"{"parentUuid":null,"sessionId":"5c1f","type":"user","message":{"role":"user","content":"hi"},"uuid":"0d6b","timestamp":"2026-03-01T10:00:00.000Z"}"#;
        assert_eq!(of(claude), Some("a Claude Code session"));
        let summary = r#"{"type":"summary","summary":"Fix tests","leafUuid":"0d6b"}"#;
        assert_eq!(of(summary), Some("a Claude Code session"));
    }

    #[test]
    fn dsh_headers_and_unknown_lines_are_not_foreign() {
        for line in [
            r#"{"type":"session","version":0,"id":"s","createdAt":1,"delegationDepth":0}"#,
            // A damaged DSH header stays a header defect (H4).
            r#"{"type":"session","version":0,"id":"s","delegationDepth":0}"#,
            r#"{"type":"session","version":3,"id":"s","createdAt":1,"timestamp":"x"}"#,
            r#"{"type":"sessions"}"#,
            r#"[1]"#,
            r#""session""#,
        ] {
            assert_eq!(of(line), None, "{line}");
        }
    }
}
