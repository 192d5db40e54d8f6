//! What each asked-for event is, for `provenance`'s trees (FORMAT.md §1.2, §3).

use std::collections::{HashMap, HashSet};

use crate::check::Logical;
use crate::derive::{self, PREVIEW_CHARS};
use crate::json::Json;
use crate::view::{Checked, View};

/// One event as provenance views show it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeInfo {
    /// The (converted) type.
    pub ty: String,
    /// `data.turn`, when present.
    pub turn: Option<i64>,
    /// `data.step`, when present.
    pub step: Option<i64>,
    /// A one-line preview (at most 60 characters).
    pub preview: String,
    /// The message id, decoded, for a message event.
    pub message_id: Option<String>,
}

/// What a provenance view shows of an event.
pub(crate) fn node_info(logical: &Logical<'_>) -> NodeInfo {
    let data = logical.data();
    let int = |k: &str| data.and_then(|d| d.get(k)).and_then(Json::as_safe_integer);
    let preview = if let Some(message) = logical.message() {
        derive::preview(Some(message), PREVIEW_CHARS)
    } else {
        let d = data.unwrap_or_else(|| Json::parse("null").expect("literal"));
        let text = match logical.type_str() {
            "tool/call" => format!(
                "{}({})",
                d.get("name").and_then(Json::as_str).unwrap_or_default(),
                d.get("arguments")
                    .and_then(Json::as_str)
                    .unwrap_or_default()
            ),
            "assistant/chunk" => {
                let chunk = d.get("chunk");
                let kind = chunk
                    .and_then(|c| c.get("type"))
                    .and_then(Json::as_str)
                    .unwrap_or_default()
                    .into_owned();
                let text = chunk
                    .and_then(|c| c.get("text").or(c.get("argumentsDelta")))
                    .and_then(Json::as_str)
                    .unwrap_or_default()
                    .into_owned();
                format!("{kind} {text}").trim_end().to_owned()
            }
            _ => d.raw().to_owned(),
        };
        derive::one_line(&text, PREVIEW_CHARS)
    };
    NodeInfo {
        ty: logical.type_str().to_owned(),
        turn: int("turn"),
        step: int("step"),
        preview,
        message_id: logical
            .message()
            .and_then(|m| m.get("id"))
            .and_then(Json::as_str)
            .map(|id| id.into_owned()),
    }
}

/// Collects a [`NodeInfo`] for each of a few seqs (`provenance`'s trees).
#[derive(Debug, Default)]
pub struct Nodes {
    wanted: HashSet<u64>,
    /// What each wanted event is, by seq.
    pub nodes: HashMap<u64, NodeInfo>,
}

impl Nodes {
    /// Collects the events with these seqs.
    pub fn new(wanted: HashSet<u64>) -> Self {
        Nodes {
            wanted,
            nodes: HashMap::new(),
        }
    }
}

impl View for Nodes {
    fn on_event(&mut self, event: &Checked<'_, '_>) {
        if self.wanted.contains(&event.seq) {
            self.nodes.insert(event.seq, node_info(event.event));
        }
    }
}
