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
    /// [`Event::seq_value`], read once when the event is split ([`u64::MAX`]: none).
    seq_value: u64,
    /// [`Event::time_value`], read once when the event is split ([`i64::MIN`]: none).
    time_value: i64,
}

impl<'a> Event<'a> {
    /// Splits an object into its envelope keys. `None` when `object` is not an object.
    pub fn from_object(object: Json<'a>) -> Option<Self> {
        if object.kind() != Kind::Object {
            return None;
        }
        // From the index when every key is a plain envelope name (the common case); any
        // other key (an escaped name, E1's extra key) takes the walk of the members below.
        if let Some(ev) = Self::from_indexed(object) {
            return Some(ev);
        }
        let mut ev = Self::empty(object);
        for (key, value) in object.members() {
            // By length first: a match on the text compares it with every key of the same
            // length by a call to memcmp, and type, time and data are all four bytes.
            let body = key.raw_str_body().unwrap_or_default().as_bytes();
            let named = match body.len() {
                3 if body == b"seq" => Some(1),
                4 => match body {
                    b"type" => Some(0),
                    b"time" => Some(2),
                    b"data" => Some(3),
                    _ => None,
                },
                9 if body == b"surfaceOp" => Some(4),
                9 if body == b"ignorable" => Some(6),
                15 if body == b"sourceEventSeqs" => Some(5),
                _ => None,
            };
            let slot = match named {
                Some(0) => &mut ev.ty,
                Some(1) => &mut ev.seq,
                Some(2) => &mut ev.time,
                Some(3) => &mut ev.data,
                Some(4) => &mut ev.surface_op,
                Some(5) => &mut ev.source_event_seqs,
                Some(_) => &mut ev.ignorable,
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
        Some(ev.read_integers())
    }

    /// An event with no envelope key set.
    fn empty(object: Json<'a>) -> Self {
        Event {
            object,
            ty: None,
            seq: None,
            time: None,
            data: None,
            surface_op: None,
            source_event_seqs: None,
            ignorable: None,
            extra_key: None,
            seq_value: u64::MAX,
            time_value: i64::MIN,
        }
    }

    /// [`Event::from_object`] from the object's index, when every key is written as one of
    /// the envelope names (last one winning); `None` otherwise.
    fn from_indexed(object: Json<'a>) -> Option<Self> {
        let mut ev = Self::empty(object);
        for (body, value) in object.indexed_members()? {
            let slot = match body {
                b"seq" => &mut ev.seq,
                b"type" => &mut ev.ty,
                b"time" => &mut ev.time,
                b"data" => &mut ev.data,
                b"surfaceOp" => &mut ev.surface_op,
                b"ignorable" => &mut ev.ignorable,
                b"sourceEventSeqs" => &mut ev.source_event_seqs,
                _ => return None,
            };
            *slot = Some(value);
        }
        Some(ev.read_integers())
    }

    /// Reads `seq` and `time` once for every stage after.
    fn read_integers(mut self) -> Self {
        // Read once here for every stage after (the envelope check, the stages, the open
        // turn, the edges): a safe integer is never u64::MAX or i64::MIN.
        if let Some(seq) = self.seq.and_then(Json::as_seq) {
            self.seq_value = seq;
        }
        if let Some(time) = self.time.and_then(Json::as_safe_integer) {
            self.time_value = time;
        }
        self
    }

    /// The type as text, when `type` is a string.
    pub fn type_name(&self) -> Option<Cow<'a, str>> {
        self.ty.and_then(Json::as_str)
    }

    /// The seq, when it is a non-negative safe integer.
    #[inline]
    pub fn seq_value(&self) -> Option<u64> {
        (self.seq_value != u64::MAX).then_some(self.seq_value)
    }

    /// The time in ms since the Unix epoch, when it is a safe integer.
    #[inline]
    pub fn time_value(&self) -> Option<i64> {
        (self.time_value != i64::MIN).then_some(self.time_value)
    }

    /// True when `ignorable` is the literal `true`.
    pub fn is_ignorable(&self) -> bool {
        self.ignorable.and_then(Json::as_bool) == Some(true)
    }
}

/// The era (format generation) of a log, detected from its header and content
/// (FORMAT.md §9.2, GENERATIONS.md §0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// Format v0 as written by DSH 0.1.1-rc.2 (merge `b150a551b8`, 2026-08-21) or read by
    /// it after the conversions of §9.3.
    Head,
    /// The original design, commit `828c3f85c9` (2026-06-24).
    June2026,
    /// Format v0 as written by DSH 0.1.2-alpha.1 … 0.1.2-rc.1: still labelled 0, with
    /// range-encoded provenance and new event types (GENERATIONS §3). Detected by content.
    V0Alpha,
    /// Format v1 (`session.v1.jsonl`; development builds only).
    V1,
    /// Format v2 (`session.v2.jsonl`, DSH 0.1.3): embedded assistant streams.
    V2,
    /// Format v3 (`session.v3.jsonl`, DSH 0.1.5–0.1.6): system prompt on the surface.
    V3,
    /// Format v4 (`session.v4.jsonl`, DSH 0.1.7–0.2.x): tool-role results, developer messages.
    V4,
}

impl Era {
    /// Short name for tables and JSON: `head`, `june-2026`, `v1` … `v4`.
    pub fn name(self) -> &'static str {
        match self {
            Era::Head => "head",
            Era::June2026 => "june-2026",
            Era::V0Alpha => "v0-alpha",
            Era::V1 => "v1",
            Era::V2 => "v2",
            Era::V3 => "v3",
            Era::V4 => "v4",
        }
    }

    /// The era of a header `version` 1–4.
    pub fn of_version(version: i64) -> Option<Era> {
        match version {
            1 => Some(Era::V1),
            2 => Some(Era::V2),
            3 => Some(Era::V3),
            4 => Some(Era::V4),
            _ => None,
        }
    }

    /// How the log's rules and vocabulary are read.
    pub fn dialect(self) -> &'static Dialect {
        match self {
            Era::Head | Era::V0Alpha => &HEAD,
            Era::June2026 => &JUNE_2026,
            Era::V1 => &V1,
            Era::V2 => &V2,
            Era::V3 => &V3,
            Era::V4 => &V4,
        }
    }
}

/// What a reader does with a type outside its vocabulary that is not marked ignorable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownTypes {
    /// Refuse the log (U1): the vocabulary is complete (HEAD, and v3 by the frozen released-v3 list).
    Refuse,
    /// Warn (W3): the vocabulary may lack first-party types of the generation (v1 and v2
    /// outside the edges' inventories; v4, whose inventories differ by checkpoint), so an
    /// unknown type is more likely ours to learn than a newer log.
    Warn,
    /// Accept silently (June 2026 did).
    Accept,
}

/// How to project a surface event to a message (FORMAT.md §4, §9.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Projection {
    /// HEAD: return the stored message verbatim.
    Stored,
    /// June 2026: build `{role, content}` messages, wrap context and steering in tags.
    June,
}

/// Types the v0 alpha dialect added without `ignorable` (GENERATIONS §3): in a v0 log they
/// mark the alpha dialect instead of an unknown type.
pub const V0_ALPHA_TYPES: [&str; 3] = [
    "model/selection",
    "session-log-deepseek/delivery-accepted",
    "subagent/model-selection-policy",
];

/// Whether an event type is in DSH's own namespace: the part before its first `/` is one
/// that a type of DSH's vocabulary, in any generation, starts with (`turn/`, `tool/`,
/// `session/`, …). A type outside it (`pentest/submit`) is a plugin's or another tool's.
pub fn in_dsh_namespace(ty: &str) -> bool {
    let Some((space, _)) = ty.split_once('/') else {
        return false;
    };
    HEAD_KNOWN_TYPES
        .iter()
        .chain(V1_V2_EXTRA_TYPES)
        .chain(RELEASED_V3_TYPES)
        .chain(V4_EXTRA_TYPES)
        .chain(&V0_ALPHA_TYPES)
        .any(|t| t.split_once('/').is_some_and(|(s, _)| s == space))
}

/// U1's message (FORMAT.md §2.2) for an event type this vocabulary does not know, written
/// without `ignorable: true` (`raw`: the type as stored, `ty` its text): in DSH's namespace
/// the log was probably written by a newer harness; any other type is not DSH's, DSH will
/// not load the log, and the way out is a recovered copy or marking the plugin's events
/// ignorable, which DSH 0.1.1 then skips.
pub fn unknown_type_message(raw: &str, ty: &str) -> String {
    if in_dsh_namespace(ty) {
        format!(
            "unknown event type {raw} without ignorable: true; the type is in DSH's own namespace, so the log was probably written by a newer harness: upgrade DSH and dsh-session"
        )
    } else {
        format!(
            "event type {raw} is not a DSH event type (a plugin's or another tool's) and is not marked ignorable: true, so DSH will not load this log; `dsh-session recover` writes a copy DSH loads, or the plugin can mark its events \"ignorable\": true, which DSH 0.1.1 then skips"
        )
    }
}

/// The rules and vocabulary of one era, as data.
#[derive(Debug)]
pub struct Dialect {
    /// The era this describes.
    pub era: Era,
    /// Types that join the surface (FORMAT.md §2.7).
    pub surface_types: &'static [&'static str],
    /// Known types, as sorted lists; `None` means every type is accepted silently (June 2026).
    pub known_types: Option<&'static [&'static [&'static str]]>,
    /// Whether the HEAD load checks (E, M, R, L, U, and the strict surface rules) apply.
    /// June 2026 enforced only seq contiguity, S4 and S7–S9 (FORMAT.md §9.2).
    pub strict: bool,
    /// How messages are derived.
    pub projection: Projection,
    /// Format generation: 0 for HEAD and June, 1–4 after.
    pub generation: u8,
    /// Unknown types without `ignorable: true`.
    pub unknown_types: UnknownTypes,
    /// Packed chunk rows exist (v0, v1; GENERATIONS §5).
    pub packed_rows: bool,
    /// `sourceEventSeqs` may hold `[start, end]` range pairs (v1–v4, GENERATIONS §1.5).
    pub range_provenance: bool,
    /// The keys of a replace `surfaceOp`: `start`/`end` (v0–v2) or `startSeq`/`endSeq`.
    pub replace_keys: [&'static str; 2],
    /// `assistant/message` may carry `sourceEventSeqs` (v0, v1).
    pub assistant_sources: bool,
    /// The protected system head applies (v3, v4).
    pub system_head: bool,
    /// `tool/result` messages are tool-role (v4) instead of user-role wrappers.
    pub tool_role_results: bool,
    /// HEAD's legacy conversions of FORMAT.md §9.3 apply (v0 only).
    pub legacy_conversions: bool,
    /// The v0-alpha dialect is read in a v0 log (GENERATIONS §3: range-form
    /// `sourceEventSeqs`, the alpha writers' event types): by every DSH after 0.1.1, not by
    /// DSH 0.1.1-rc.2's store, which refuses both ([`HEAD_0_1_1`]).
    pub v0_alpha: bool,
}

impl Dialect {
    /// True when events of type `ty` join the surface.
    pub fn is_surface_type(&self, ty: &str) -> bool {
        self.surface_types.contains(&ty)
    }

    /// True when `ty` is in the known vocabulary.
    pub fn is_known_type(&self, ty: &str) -> bool {
        self.known_types
            .is_none_or(|lists| lists.iter().any(|known| known.binary_search(&ty).is_ok()))
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

/// HEAD's fields, shared by [`HEAD`] and [`HEAD_0_1_1`].
const HEAD_FIELDS: Dialect = Dialect {
    era: Era::Head,
    surface_types: &["user/message", "assistant/message", "tool/result"],
    known_types: Some(&[HEAD_KNOWN_TYPES]),
    strict: true,
    projection: Projection::Stored,
    generation: 0,
    unknown_types: UnknownTypes::Refuse,
    packed_rows: true,
    range_provenance: false,
    replace_keys: ["start", "end"],
    assistant_sources: true,
    system_head: false,
    tool_role_results: false,
    legacy_conversions: true,
    v0_alpha: true,
};

/// Format v0 at HEAD (DSH 0.1.1-rc.2's vocabulary and rules, FORMAT.md §1–§6), read as every
/// DSH after 0.1.1 reads it: the v0-alpha dialect included.
pub static HEAD: Dialect = HEAD_FIELDS;

/// v0 as DSH 0.1.1-rc.2's store reads it (`--dsh 0.1.1`): [`HEAD`] without the v0-alpha
/// dialect — a range pair in `sourceEventSeqs` is refused ("must densely contain
/// non-negative safe integers") and `model/selection` and the other alpha types are unknown
/// types without `ignorable` (U1), as the store, run as the oracle, says.
pub static HEAD_0_1_1: Dialect = Dialect {
    v0_alpha: false,
    ..HEAD_FIELDS
};

/// What the v1 and v2 vocabulary adds to the released-v3 list (GENERATIONS §3, §5–§7):
/// `assistant/chunk`, the pre-v3 PTC names, and `developer/message`. A type outside both is
/// a warning (W3) here; the frozen v1→v2 and v2→v3 edges, which judge v1 and v2 logs by
/// default (`--dsh`), refuse it with their closed inventories (F1, `edge::inventory`).
pub const V1_V2_EXTRA_TYPES: &[&str] = &[
    "assistant/chunk",
    "developer/message",
    "tool/code-dispatch",
    "tool/code-dispatch-start",
];

/// The released-v3 vocabulary, sorted: the 58 first-party types the released v3 reader
/// understands, frozen by the v3→v4 edge as `RELEASED_V3_EVENT_TYPES` (GENERATIONS §6, §7;
/// S-v34X: zsagi1368/deepseek-harness-zDSH
/// `packages/session/session-format-v3-to-v4/src/extension-identities.ts` @
/// `1dd6c6a308f1db1d57f6d117d673e73f00072b68`). The list is complete, so a v3 type outside it
/// without `ignorable: true` is refused (U1), as the v3 reader and the v3→v4 edge refuse it;
/// `tool/code-dispatch*` and `assistant/chunk` are outside it (S-v23V).
pub const RELEASED_V3_TYPES: &[&str] = &[
    "agent-preset/selected",
    "agent/inbox/spliced",
    "approval/asked",
    "approval/decided",
    "approval/policy",
    "assistant/attempt",
    "assistant/message",
    "command/done",
    "command/run",
    "compaction/end",
    "compaction/prune",
    "compaction/start",
    "compaction/summary",
    "deliverables/presented",
    "feedback/message-delete",
    "feedback/message-put",
    "feedback/record",
    "goal/change",
    "hook/invoked",
    "hook/result",
    "image/offload",
    "llm/retry",
    "llm/retry-started",
    "model/selection",
    "permission/preset",
    "plan/mode",
    "request/context",
    "request/header",
    "sandbox/mode",
    "schedule/change",
    "session-log-deepseek/delivery-accepted",
    "session/end-seed",
    "session/title",
    "session/title-llm-request",
    "step/end",
    "step/start",
    "subagent/catalog",
    "subagent/descriptor",
    "subagent/model-selection-policy",
    "system/message",
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
    "tool/ptc-dispatch",
    "tool/ptc-dispatch-start",
    "tool/result",
    "turn/end",
    "turn/start",
    "user/message",
    "web/deepseek-search-llm-request",
    "workspace/changes",
];

/// What the v4 vocabulary adds to the released-v3 list (GENERATIONS §7). v4 inventories
/// still differ by checkpoint (60–63 roots), so a type outside both is a warning (W3), not a
/// refusal.
pub const V4_EXTRA_TYPES: &[&str] = &["developer/message"];

const GEN_SURFACE_3: &[&str] = &["user/message", "assistant/message", "tool/result"];
const GEN_SURFACE_4: &[&str] = &[
    "system/message",
    "user/message",
    "assistant/message",
    "tool/result",
];
const GEN_SURFACE_5: &[&str] = &[
    "system/message",
    "user/message",
    "developer/message",
    "assistant/message",
    "tool/result",
];

macro_rules! generation {
    ($name:ident, $era:ident, $n:literal, $surface:expr, $known:expr, $unknown:expr, $packed:literal, $keys:expr, $asrc:literal, $head:literal, $toolrole:literal) => {
        #[doc = concat!("Format v", stringify!($n), " (GENERATIONS.md).")]
        pub static $name: Dialect = Dialect {
            era: Era::$era,
            surface_types: $surface,
            known_types: Some($known),
            strict: true,
            projection: Projection::Stored,
            generation: $n,
            unknown_types: $unknown,
            packed_rows: $packed,
            range_provenance: true,
            replace_keys: $keys,
            assistant_sources: $asrc,
            system_head: $head,
            tool_role_results: $toolrole,
            legacy_conversions: false,
            v0_alpha: false,
        };
    };
}

generation!(
    V1,
    V1,
    1,
    GEN_SURFACE_3,
    &[RELEASED_V3_TYPES, V1_V2_EXTRA_TYPES],
    UnknownTypes::Warn,
    true,
    ["start", "end"],
    true,
    false,
    false
);
generation!(
    V2,
    V2,
    2,
    GEN_SURFACE_3,
    &[RELEASED_V3_TYPES, V1_V2_EXTRA_TYPES],
    UnknownTypes::Warn,
    false,
    ["start", "end"],
    false,
    false,
    false
);
generation!(
    V3,
    V3,
    3,
    GEN_SURFACE_4,
    &[RELEASED_V3_TYPES],
    UnknownTypes::Refuse,
    false,
    ["startSeq", "endSeq"],
    false,
    true,
    false
);
generation!(
    V4,
    V4,
    4,
    GEN_SURFACE_5,
    &[RELEASED_V3_TYPES, V4_EXTRA_TYPES],
    UnknownTypes::Warn,
    false,
    ["startSeq", "endSeq"],
    false,
    true,
    true
);

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
    generation: 0,
    unknown_types: UnknownTypes::Accept,
    packed_rows: true,
    range_provenance: false,
    replace_keys: ["start", "end"],
    assistant_sources: true,
    system_head: false,
    tool_role_results: false,
    legacy_conversions: false,
    v0_alpha: false,
};

/// Types whose `data` the closer scan dereferences (FORMAT.md §1.3 E8).
pub const CLOSER_SCAN_TYPES: [&str; 3] = ["turn/start", "step/start", "tool/call"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_split_from_the_index_is_the_one_split_from_its_members() {
        let texts = [
            r#"{"type":"turn/start","seq":0,"time":1760000000007,"data":{"turn":1}}"#,
            r#"{"seq":1,"type":"a","seq":2,"time":-0,"time":3.0,"ignorable":true}"#,
            r#"{"type":"x","surfaceOp":"append","sourceEventSeqs":[1,[2,3]],"data":null}"#,
            r#"{"t\u0079pe":"escaped","seq":1}"#,
            r#"{"type":"x","extra":1,"seq":9007199254740993}"#,
            r#"{"seq":"1","time":"2"}"#,
            r#"{}"#,
        ];
        for text in texts {
            let doc = crate::json::Document::parse(text).unwrap();
            let indexed = Event::from_object(doc.root()).unwrap();
            let scanned = Event::from_object(Json::parse(text).unwrap()).unwrap();
            assert_eq!(format!("{indexed:?}"), format!("{scanned:?}"), "{text}");
            assert_eq!(indexed.seq_value(), scanned.seq_value(), "{text}");
            assert_eq!(indexed.time_value(), scanned.time_value(), "{text}");
        }
        // The plain ones are split from the index, the others walk their members.
        let doc = crate::json::Document::parse(texts[1]).unwrap();
        assert!(Event::from_indexed(doc.root()).is_some());
        let doc = crate::json::Document::parse(texts[3]).unwrap();
        assert!(Event::from_indexed(doc.root()).is_none());
    }

    #[test]
    fn known_types_are_sorted_for_binary_search() {
        assert_eq!(HEAD_KNOWN_TYPES.len(), 48);
        assert!(HEAD_KNOWN_TYPES.windows(2).all(|w| w[0] < w[1]));
        for list in [RELEASED_V3_TYPES, V1_V2_EXTRA_TYPES, V4_EXTRA_TYPES] {
            assert!(list.windows(2).all(|w| w[0] < w[1]));
        }
        assert_eq!(RELEASED_V3_TYPES.len(), 58);
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
