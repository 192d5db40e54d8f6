//! The `outputSchema` of every tool (MCP 2025-06-18, "Structured content"): a JSON Schema
//! of the object each tool answers with, sent in `structuredContent` beside the same JSON
//! as text. A schema names the members a client can rely on, with their types; the objects
//! may carry more (a command's JSON output gains members with its schema version).

use std::sync::Arc;

use serde_json::{Map, Value, json};

/// An object schema from `json!` (its members described for the model).
fn object(schema: Value) -> Arc<Map<String, Value>> {
    match schema {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("every schema here is written as an object"),
    }
}

/// `list_sessions`: `sessions ROOT --format json` rows and how many the limit left out.
pub fn list_sessions() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "properties": {
            "sessions": {
                "type": "array",
                "description": "The sessions, the most recently active first: `sessions ROOT --format json` rows.",
                "items": {
                    "type": "object",
                    "properties": {
                        "session": {"type": ["string", "null"], "description": "The session id."},
                        "title": {"type": ["string", "null"]},
                        "cwd": {"type": ["string", "null"], "description": "The project."},
                        "status": {"type": "string", "description": "The verdict: valid, torn-tail, corrupt, refused, foreign, unreadable."},
                        "file": {"type": ["string", "null"]}
                    },
                    "required": ["session", "status"]
                }
            },
            "more": {"type": "integer", "minimum": 0, "description": "Sessions that matched but were left out by the limit."}
        },
        "required": ["sessions", "more"]
    }))
}

/// `search`: the hits of `search --format json`.
pub fn search() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "properties": {
            "hits": {
                "type": "array",
                "description": "The hits, the best first (`search --format json`, schema 2).",
                "items": {
                    "type": "object",
                    "properties": {
                        "session": {"type": "string"},
                        "title": {"type": ["string", "null"]},
                        "file": {"type": "string"},
                        "project": {"type": ["string", "null"]},
                        "field": {"enum": ["message", "title", "project"], "description": "What matched."},
                        "lineage": {"enum": ["subagent", "fork", null], "description": "Set for a session another made: ranked below its parent's."},
                        "seq": {"type": ["integer", "null"], "description": "The message's seq (get_message reads it); null for a title or project hit."},
                        "grouped": {"type": "array", "items": {"type": "integer"}, "description": "Seqs of the other hits of the same run of assistant messages."},
                        "role": {"type": "string"},
                        "snippet": {"type": "string"},
                        "score": {"type": "number"},
                        "open": {"type": "string", "description": "The command line that prints the hit's message."}
                    },
                    "required": ["session", "file", "field", "seq", "snippet", "open"]
                }
            }
        },
        "required": ["hits"]
    }))
}

/// `show`: what `show --format json` prints.
pub fn show() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "description": "What `dsh-session show FILE --format json` prints: header, title, models, presets, verdict, counts, usage and one row per turn."
    }))
}

/// `messages`: a range of the derived history.
pub fn messages() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "properties": {
            "schema_version": {"type": "integer"},
            "session": {"type": "string"},
            "file": {"type": "string"},
            "from_seq": {"type": "integer", "minimum": 0},
            "to_seq": {"type": "integer", "minimum": 0},
            "history_messages": {"type": "integer", "minimum": 0},
            "messages": {"type": "array", "items": {"type": "object"}, "description": "Each message with its seq."},
            "bytes": {"type": "integer", "minimum": 0},
            "revision": {"type": "string", "description": "The revision of the log read (its size and modification time)."},
            "next": {
                "type": "object",
                "description": "When cut at max_bytes: the range to ask for next, with the revision to give back (a changed log answers source_changed).",
                "properties": {"from_seq": {"type": "integer"}, "to_seq": {"type": "integer"}, "revision": {"type": "string"}},
                "required": ["from_seq", "to_seq", "revision"]
            },
            "notes": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["session", "from_seq", "to_seq", "messages", "bytes", "revision", "notes"]
    }))
}

/// `validate`: the verdict `validate --format json` prints for the session.
pub fn validate() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "properties": {
            "status": {"type": "string", "description": "valid, torn-tail, corrupt or refused."}
        },
        "required": ["status"]
    }))
}

/// `provenance`: what `provenance --format json` prints.
pub fn provenance() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "description": "What `dsh-session provenance FILE SEQ --format json` prints: the event's ancestors, descendants and the replace that shadowed it."
    }))
}

/// `get_message`: one message by seq.
pub fn get_message() -> Arc<Map<String, Value>> {
    object(json!({
        "type": "object",
        "properties": {
            "session": {"type": "string"},
            "seq": {"type": "integer", "minimum": 0},
            "type": {"type": "string", "description": "The event type (user/message, assistant/message, tool/result …)."},
            "role": {"type": ["string", "null"]},
            "on_surface": {"type": "boolean", "description": "False when a replace (a compaction, a prune) took it off the history."},
            "message": {"type": "object", "description": "The derived message as stored."}
        },
        "required": ["session", "seq", "type", "on_surface", "message"]
    }))
}
