//! The event envelope and the event vocabulary (FORMAT.md §1, §2, §2.7, §9.1).
//!
//! An [`Event`] is a view over one validated JSON object: it borrows the stored bytes and
//! splits out the seven envelope keys, so checks can look at each key and views can print
//! stored values byte for byte. Which types exist and which join the surface depends on
//! the log's era; a [`Dialect`] holds that as data, so a format generation plugs in as a
//! new table rather than a fork of the code.

use std::borrow::Cow;

use crate::json::{Json, Kind};

/// The seven envelope keys of FORMAT.md §1.1, in the order the live session writes them.
pub const ENVELOPE_KEYS: [&str; 7] = [
    "type",
    "seq",
    "time",
    "data",
    "sourceEventSeqs",
    "surfaceOp",
    "ignorable",
];

/// One logical event as stored: the envelope keys split out of the object, last
/// duplicate winning (FORMAT.md §1.1, §1.5).
#[derive(Debug, Clone, Copy)]
pub struct Event<'a> {
    /// The whole stored object.
    pub object: Json<'a>,
    /// `type` (any JSON value; E2 checks it is a string).
    pub ty: Option<Json<'a>>,
    /// `seq`.
    pub seq: Option<Json<'a>>,
    /// `time` (ms since the Unix epoch).
    pub time: Option<Json<'a>>,
    /// `data`.
    pub data: Option<Json<'a>>,
    /// `surfaceOp`.
    pub surface_op: Option<Json<'a>>,
    /// `sourceEventSeqs`.
    pub source_event_seqs: Option<Json<'a>>,
    /// `ignorable`.
    pub ignorable: Option<Json<'a>>,
    /// The first key that is not an envelope key (E1), raw token with quotes.
    pub extra_key: Option<Json<'a>>,
}

impl<'a> Event<'a> {
    /// Splits an object into its envelope keys. `None` when `object` is not an object.
    pub fn from_object(object: Json<'a>) -> Option<Self> {
        if object.kind() != Kind::Object {
            return None;
        }
        let mut ev = Event {
            object,
            ty: None,
            seq: None,
            time: None,
            data: None,
            surface_op: None,
            source_event_seqs: None,
            ignorable: None,
            extra_key: None,
        };
        for (key, value) in object.members() {
            let slot = match key.raw_str_body() {
                Some("type") => &mut ev.ty,
                Some("seq") => &mut ev.seq,
                Some("time") => &mut ev.time,
                Some("data") => &mut ev.data,
                Some("surfaceOp") => &mut ev.surface_op,
                Some("sourceEventSeqs") => &mut ev.source_event_seqs,
                Some("ignorable") => &mut ev.ignorable,
                // Keys written with escapes (`"t\u0079pe"`) still name envelope keys.
                _ => match ENVELOPE_KEYS.iter().find(|k| key.str_eq(k)) {
                    Some(&"type") => &mut ev.ty,
                    Some(&"seq") => &mut ev.seq,
                    Some(&"time") => &mut ev.time,
                    Some(&"data") => &mut ev.data,
                    Some(&"surfaceOp") => &mut ev.surface_op,
                    Some(&"sourceEventSeqs") => &mut ev.source_event_seqs,
                    Some(_) => &mut ev.ignorable,
                    None => {
                        ev.extra_key.get_or_insert(key);
                        continue;
                    }
                },
            };
            *slot = Some(value);
        }
        Some(ev)
    }

    /// The type as text, when `type` is a string.
    pub fn type_name(&self) -> Option<Cow<'a, str>> {
        self.ty.and_then(Json::as_str)
    }

    /// The seq, when it is a non-negative safe integer.
    pub fn seq_value(&self) -> Option<u64> {
        self.seq.and_then(Json::as_seq)
    }

    /// The time in ms since the Unix epoch, when it is a safe integer.
    pub fn time_value(&self) -> Option<i64> {
        self.time.and_then(Json::as_safe_integer)
    }

    /// True when `ignorable` is the literal `true`.
    pub fn is_ignorable(&self) -> bool {
        self.ignorable.and_then(Json::as_bool) == Some(true)
    }
}

/// The era of a log, detected from its content (FORMAT.md §9.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// Written by DSH 0.1.1-rc.2 (merge `b150a551b8`, 2026-08-21) or read by it after the
    /// conversions of §9.3.
    Head,
    /// The original design, commit `828c3f85c9` (2026-06-24).
    June2026,
}

impl Era {
    /// Short name for tables and JSON: `head` or `june-2026`.
    pub fn name(self) -> &'static str {
        match self {
            Era::Head => "head",
            Era::June2026 => "june-2026",
        }
    }

    /// How the log's rules and vocabulary are read.
    pub fn dialect(self) -> &'static Dialect {
        match self {
            Era::Head => &HEAD,
            Era::June2026 => &JUNE_2026,
        }
    }
}

/// How to project a surface event to a message (FORMAT.md §4, §9.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Projection {
    /// HEAD: return the stored message verbatim.
    Stored,
    /// June 2026: build `{role, content}` messages, wrap context and steering in tags.
    June,
}

/// The rules and vocabulary of one era, as data.
#[derive(Debug)]
pub struct Dialect {
    /// The era this describes.
    pub era: Era,
    /// Types that join the surface (FORMAT.md §2.7).
    pub surface_types: &'static [&'static str],
    /// Known types; `None` means every type is accepted silently (June 2026).
    pub known_types: Option<&'static [&'static str]>,
    /// Whether the HEAD load checks (E, M, R, L, U, and the strict surface rules) apply.
    /// June 2026 enforced only seq contiguity, S4 and S7–S9 (FORMAT.md §9.2).
    pub strict: bool,
    /// How messages are derived.
    pub projection: Projection,
}

impl Dialect {
    /// True when events of type `ty` join the surface.
    pub fn is_surface_type(&self, ty: &str) -> bool {
        self.surface_types.contains(&ty)
    }

    /// True when `ty` is in the known vocabulary.
    pub fn is_known_type(&self, ty: &str) -> bool {
        self.known_types
            .is_none_or(|known| known.binary_search(&ty).is_ok())
    }
}

/// The 48 known types at HEAD, sorted (FORMAT.md §2.1).
pub const HEAD_KNOWN_TYPES: &[&str] = &[
    "agent-preset/selected",
    "agent/inbox/spliced",
    "approval/asked",
    "approval/decided",
    "approval/policy",
    "assistant/chunk",
    "assistant/message",
    "command/done",
    "command/run",
    "compaction/end",
    "compaction/prune",
    "compaction/start",
    "compaction/summary",
    "feedback/record",
    "goal/change",
    "hook/invoked",
    "hook/result",
    "llm/retry",
    "llm/retry-started",
    "permission/preset",
    "plan/mode",
    "request/context",
    "request/header",
    "sandbox/mode",
    "schedule/change",
    "session/end-seed",
    "session/title",
    "session/title-llm-request",
    "step/end",
    "step/start",
    "subagent/descriptor",
    "team/member",
    "team/message/delivered",
    "team/message/queued",
    "team/task",
    "todo/write",
    "tool-workflow/agent-end",
    "tool-workflow/agent-start",
    "tool-workflow/run-end",
    "tool-workflow/run-start",
    "tool/call",
    "tool/code-dispatch",
    "tool/code-dispatch-start",
    "tool/result",
    "turn/end",
    "turn/start",
    "user/message",
    "web/deepseek-search-llm-request",
];

/// HEAD (0.1.1-rc.2).
pub static HEAD: Dialect = Dialect {
    era: Era::Head,
    surface_types: &["user/message", "assistant/message", "tool/result"],
    known_types: Some(HEAD_KNOWN_TYPES),
    strict: true,
    projection: Projection::Stored,
};

/// June 2026 (`828c3f85c9`).
pub static JUNE_2026: Dialect = Dialect {
    era: Era::June2026,
    surface_types: &[
        "user/message",
        "assistant/message",
        "tool/result",
        "context/message",
        "steering/message",
    ],
    known_types: None,
    strict: false,
    projection: Projection::June,
};

/// Types whose `data` the closer scan dereferences (FORMAT.md §1.3 E8).
pub const CLOSER_SCAN_TYPES: [&str; 3] = ["turn/start", "step/start", "tool/call"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_types_are_sorted_for_binary_search() {
        assert_eq!(HEAD_KNOWN_TYPES.len(), 48);
        assert!(HEAD_KNOWN_TYPES.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn envelope_last_duplicate_wins_and_extra_keys_are_found() {
        let text = r#"{"type":"a","seq":1,"seq":2,"t\u0069me":5,"data":null,"x":1}"#;
        let ev = Event::from_object(Json::parse(text).unwrap()).unwrap();
        assert_eq!(ev.seq_value(), Some(2));
        assert_eq!(ev.time_value(), Some(5));
        assert_eq!(ev.extra_key.unwrap().raw(), "\"x\"");
        assert!(ev.data.unwrap().is_null());
    }
}
