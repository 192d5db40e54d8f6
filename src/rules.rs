//! Rule ids, their classes and their findings (FORMAT.md §1.3, §2.5, §3.2, §5.5, §6, §9.3).
//!
//! A rule id is the stable name FORMAT.md gives a check (`E3`, `S15`, `J5` …). A
//! [`Finding`] is data, not a string: CI output, JSON output and tests all read the same
//! struct.

use std::fmt;

/// The two failure classes of FORMAT.md §6.2, plus findings that do not fail a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// The bytes or records are damaged or malformed.
    Corrupt,
    /// The log is intact but must not be interpreted by this reader (unsupported version,
    /// unknown required event type).
    Refused,
    /// A torn tail: uncommitted bytes after the committed region that a repair cuts.
    TornTail,
    /// Worth telling, not a failure (for example a June-era rule DSH then did not enforce).
    Warning,
    /// Not a DSH log at all: another harness's session file (pi, OpenClaw, Claude Code,
    /// Codex).
    Foreign,
}

impl Class {
    /// The class as the outputs name it (`corrupt`, `refused`, `torn-tail`, `warning`,
    /// `foreign`): a finding's status in `validate`, `follow` and `rules`.
    pub fn name(self) -> &'static str {
        match self {
            Class::Corrupt => "corrupt",
            Class::Refused => "refused",
            Class::TornTail => "torn-tail",
            Class::Warning => "warning",
            Class::Foreign => "foreign",
        }
    }
}

macro_rules! rules {
    ($($id:ident => $class:ident, $section:literal, $summary:literal;)*) => {
        /// Every rule id this reader reports.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule { $(#[doc = $summary] $id,)* }

        impl Rule {
            /// All rules, in FORMAT.md order.
            pub const ALL: &'static [Rule] = &[$(Rule::$id,)*];

            /// The id exactly as FORMAT.md spells it, for example `"S15"`.
            pub fn id(self) -> &'static str {
                match self { $(Rule::$id => stringify!($id),)* }
            }

            /// The FORMAT.md section that defines the rule, for example `"§3.2"`.
            pub fn section(self) -> &'static str {
                match self { $(Rule::$id => $section,)* }
            }

            /// One line saying what breaks the rule.
            pub fn summary(self) -> &'static str {
                match self { $(Rule::$id => $summary,)* }
            }

            /// The class a violation of this rule has in a HEAD-era log.
            pub fn class(self) -> Class {
                match self { $(Rule::$id => Class::$class,)* }
            }

            /// Looks a rule up by id (`"E3"`).
            pub fn from_id(id: &str) -> Option<Rule> {
                match id { $(stringify!($id) => Some(Rule::$id),)* _ => None }
            }
        }
    };
}

rules! {
    H1 => Corrupt, "§6.3", "no complete first record (header line)";
    H2 => Corrupt, "§6.3", "header line is not valid JSON";
    H3 => Refused, "§6.2", "header version is a number below 0 (unsupported format version; above 4 is G1)";
    H4 => Corrupt, "§6.3", "first line is not a session header (type, version, id, createdAt, delegationDepth, origin, agentPreset)";
    H5 => Corrupt, "§6.3", "header carries retired sandboxMode or approvalPolicy";
    H6 => Corrupt, "§6.3, §7.1", "header id or cwd cannot name this file's storage path";
    H7 => Corrupt, "§6.3", "header cwd, parentSession or seedLength malformed";
    H8 => Refused, "§6.3, §7.1", "header cwd is absolute only on another platform: DSH on Linux or macOS refuses a Windows path (drive letter, UNC, backslash), DSH on Windows loads it (--platform)";
    X1 => Foreign, "§6.3", "not a DSH session log: the first line is another harness's session header (pi, OpenClaw, Codex, Claude Code)";
    J1 => Corrupt, "§5.5.1", "file contains no newline at all (empty or header-less log)";
    J2 => TornTail, "§5.5.1", "final bytes after the last newline (torn final line)";
    J3 => Corrupt, "§5.5.1", "a complete line is not JSON or not a valid packed chunk row";
    J4 => Corrupt, "§5.5.1", "a line's events do not continue the seq sequence";
    J5 => Corrupt, "§5.5.1", "defect inside the committed region (a turn/end follows it)";
    J6 => TornTail, "§5.5.1", "defect with no turn/end after it (torn tail)";
    J7 => Corrupt, "§5.5.1", "an event line is JSON null (DSH 0.1.1 aborts the load; DSH 0.1.5 and later read it as any defect: a torn tail, J6, unless a turn/end follows, J5)";
    Z1 => Corrupt, "§5.5.2", "invalid zstd frame magic at a frame boundary";
    Z2 => Corrupt, "§5.5.2", "zstd frame header reserved bits set, or reserved block type";
    Z3 => TornTail, "§5.5.2", "file ends inside the final zstd frame (torn frame)";
    Z4 => Corrupt, "§5.5.2", "no structurally complete zstd frame";
    Z5 => Corrupt, "§5.5.2", "a complete zstd frame fails decompression or its checksum";
    Z6 => Corrupt, "§5.5.2", "first zstd frame is not exactly one header line";
    Z7 => Corrupt, "§5.5.2", "complete zstd frames hold a torn or invalid JSONL record";
    Z8 => TornTail, "§5.5.2", "lines recovered from a torn final frame hold a defect";
    D1 => Refused, "§6.4", "store has user_version 0 but a foreign application id or schema objects";
    D2 => Refused, "§6.4", "store schema version (user_version) is neither 17 nor the June 2026 schema 4";
    D3 => Refused, "§6.4", "store has the wrong application id for its schema";
    D5 => Refused, "§6.4", "store schema objects differ from the canonical schema";
    D6 => Refused, "§6.4", "store has no valid persistence_state store id";
    Q1 => Corrupt, "§5.5.3", "row seq, type or time column malformed";
    Q2 => Corrupt, "§5.5.3", "row data column is neither TEXT nor BLOB";
    Q3 => Corrupt, "§5.5.3", "row source_event_seqs column is neither BLOB nor NULL (schema 17)";
    Q4 => Corrupt, "§5.5.3", "row surface_op column is neither TEXT nor NULL";
    Q5 => Corrupt, "§5.5.3", "row ignorable column is not NULL, 0 or 1";
    Q7 => Corrupt, "§5.5.3, §5.5.4", "a row fails to decode or breaks the seq sequence inside the committed region";
    Q8 => TornTail, "§5.5.3, §5.5.4", "a row fails to decode or breaks the seq sequence after the last turn/end (torn tail)";
    E0 => Corrupt, "§1.3", "legacy request/header-delta event";
    E1 => Corrupt, "§1.3", "event has a key other than type, seq, time, data, surfaceOp, sourceEventSeqs, ignorable";
    E2 => Corrupt, "§1.3", "type is not a string";
    E3 => Corrupt, "§1.3", "seq is not a non-negative safe integer";
    E4 => Corrupt, "§1.3", "time is not a safe integer";
    E5 => Corrupt, "§1.3", "data key missing";
    E6 => Corrupt, "§1.3", "ignorable present with a value other than true";
    E7 => Corrupt, "§1.3", "seq differs from the event's index in the log";
    E8 => Corrupt, "§1.3, §5.2", "turn/start, step/start or tool/call with null or absent data";
    U1 => Refused, "§2.2", "unknown event type without ignorable: true (HEAD and v3 vocabularies)";
    M1 => Corrupt, "§2.5", "message is not an object or lacks a non-empty string id";
    M2 => Corrupt, "§2.5", "message role is wrong for its event type";
    M3 => Corrupt, "§2.5", "message source is not an object with a non-empty string kind";
    M4 => Corrupt, "§2.5", "message content is not an array";
    M5 => Corrupt, "§2.5", "assistant message source is not a model source with provider and model";
    M6 => Corrupt, "§2.5", "tool result source is not a tool source with a callId";
    M7 => Corrupt, "§2.5", "tool result content is not exactly one tool-result block with array content";
    M8 => Corrupt, "§2.5", "tool-result block toolCallId differs from source.callId";
    R1 => Corrupt, "§2.5", "request/header lacks a header object with config provider and model";
    R2 => Corrupt, "§2.5", "request/header config.reasoningEffort present but not a non-empty string";
    R3 => Corrupt, "§2.5", "request/header adapterDefaults malformed";
    R4 => Corrupt, "§2.5", "request/header reason is the retired \"fallback\"";
    L1 => Corrupt, "§2.5", "log contains a request/header-delta event";
    L2 => Corrupt, "§2.5", "log contains a mode/set event";
    L3 => Corrupt, "§2.5", "log contains a request/header with reason \"fallback\"";
    L4 => Corrupt, "§9.3.2", "malformed pre-react-loop turn/start";
    L5 => Corrupt, "§9.3.2", "malformed pre-react-loop turn/end";
    L6 => Corrupt, "§9.3.2", "malformed steering/message";
    S1 => Corrupt, "§3.2", "seq is not the expected next seq";
    S2 => Corrupt, "§3.2", "non-surface event carries surfaceOp";
    S3 => Corrupt, "§3.2", "non-surface event carries sourceEventSeqs";
    S4 => Corrupt, "§3.2", "surface event lacks surfaceOp";
    S5 => Corrupt, "§3.2", "surfaceOp is neither \"append\" nor an object";
    S6 => Corrupt, "§3.2", "replace surfaceOp is not exactly {op:\"replace\",start,end} with seq endpoints";
    S7 => Corrupt, "§3.2", "replace start seq is not on the surface";
    S8 => Corrupt, "§3.2", "replace end seq is not on the surface";
    S9 => Corrupt, "§3.2", "replace start lies after end on the surface";
    S10 => Corrupt, "§3.2", "sourceEventSeqs is not an array";
    S11 => Corrupt, "§3.2", "sourceEventSeqs is empty on a type other than assistant/message";
    S12 => Corrupt, "§3.2", "sourceEventSeqs holds something other than a non-negative safe integer";
    S13 => Corrupt, "§3.2", "sourceEventSeqs holds a duplicate";
    S14 => Corrupt, "§3.2", "sourceEventSeqs cites a seq not earlier than the event";
    S15 => Corrupt, "§3.2", "replace does not cite every shadowed seq in sourceEventSeqs";
    S16 => Corrupt, "§3.2", "tool/result replace shadows other than exactly one entry";
    S17 => Corrupt, "§3.2", "tool/result replace shadows an event that is not a tool/result";
    S18 => Corrupt, "§3.2", "tool/result replace changes more than the tool-result content";
    G1 => Refused, "GENERATIONS §1.3, §9", "header version above 4: an unknown or newer lineage";
    G2 => Corrupt, "GENERATIONS §1.1", "file name and header version disagree (session.vN.jsonl must hold version N)";
    G3 => Corrupt, "GENERATIONS §1.5", "sourceEventSeqs range pair malformed (not [start, end] with start <= end, expanded list not increasing or past the event)";
    G4 => Corrupt, "GENERATIONS §5", "assistant/message carries sourceEventSeqs (v2 and later must omit it)";
    G5 => Corrupt, "GENERATIONS §6, §7", "protected system head violated (v3 and later)";
    G6 => Corrupt, "GENERATIONS §7", "v4 tool/result is not a tool-role message {id, role: tool, toolCallId, source: {kind: tool, callId}, content}";
    G7 => Corrupt, "GENERATIONS §6, §7", "system/message or developer/message malformed";
    G8 => Corrupt, "GENERATIONS §5", "v2+ header: isSeeded missing or not a boolean, or a retired seedLength";
    G9 => Corrupt, "GENERATIONS §6, §7", "a v3 or v4 log breaks its generation's own lifecycle rules (turns and steps, tool calls, compactions, retries, commands, titles, PTC dispatches)";
    G10 => Refused, "GENERATIONS §1.3, §3", "written by a newer harness than the judged DSH line reads: a v1-v4 header or range-form sourceEventSeqs for DSH 0.1.1, a v4 header for DSH 0.1.5 and 0.1.6 (--dsh)";
    F1 => Refused, "GENERATIONS §1.3, §4, §5", "DSH 0.1.5 and later refuse to migrate it: an event type outside the frozen inventory of an edge (even with ignorable: true), or a retired legacy type";
    F2 => Refused, "GENERATIONS §4", "DSH 0.1.5 and later refuse to migrate it: a payload (or header) does not have exactly the frozen members of its type";
    F3 => Refused, "GENERATIONS §4, §6", "DSH 0.1.5 and later refuse to migrate it: a payload value the frozen validator does not admit";
    F4 => Refused, "GENERATIONS §4", "DSH 0.1.5 and later refuse to migrate it: a subagent/descriptor of a version other than 3 (DSH 0.1.0-rc.7 to 0.1.1-rc.2 wrote 2)";
    F5 => Refused, "GENERATIONS §6", "DSH 0.1.5 and later refuse to migrate it: a content block or message source of a kind the v2→v3 edge cannot classify";
    F6 => Refused, "GENERATIONS §1.6, §4, §7", "DSH 0.1.5 and later refuse to migrate it: turns, steps or tool calls out of their lifecycle";
    F7 => Refused, "GENERATIONS §5", "DSH 0.1.5 and later refuse to migrate it: assistant chunks the v1→v2 edge cannot embed (partial provenance, a reference to a consumed chunk, an undecodable packed row)";
    F8 => Refused, "GENERATIONS §1.6, §6", "DSH 0.1.5 and later refuse to migrate it: the surface cannot take the system head, or a replacement or compaction span is not on the surface";
    F9 => Refused, "GENERATIONS §4, §6", "DSH 0.1.5 and later refuse to migrate it: a cross-event reference breaks (compaction ownership, retry chain, command, title source, PTC dispatch, delivery marker)";
    F10 => Refused, "GENERATIONS §7, §8", "DSH 0.1.5 and later refuse to migrate it: a step/end or turn/end leaves an advertised tool call unresolved (in a v4 log a warning: the v4 builds after 2026-09-22 release the call)";
    P1 => Warning, "PROVIDERS §3", "derived history has a tool call with no tool result after it (unanswered call; all providers refuse it)";
    P2 => Warning, "PROVIDERS §3", "derived history has a tool result whose call is not before it (orphan result; all providers refuse it)";
    P3 => Warning, "PROVIDERS §1, §3", "a tool result is not sent right after the assistant message that made the call (a message or user text comes between; all providers refuse it)";
    P4 => Warning, "PROVIDERS §1, §3", "DeepSeek thinking mode: an assistant message with tool calls lacks reasoning that existed (its usage reports reasoning tokens, or another model wrote it in a session whose messages carry reasoning); DeepSeek refuses it";
    P5 => Warning, "PROVIDERS §3", "a message holds an unpaired UTF-16 surrogate (the request is not valid UTF-8 JSON; all providers refuse it)";
    P6 => Warning, "PROVIDERS §3", "a tool-call id is announced twice in the history (Anthropic refuses it)";
    P7 => Warning, "PROVIDERS §3", "a message has an empty text block (Anthropic refuses it)";
    W1 => Warning, "§4, §5.2", "alias of P1 (reported as P1 since provider readiness): a tool call with no tool result after it";
    W2 => Warning, "§4", "alias of P2 (reported as P2 since provider readiness): a tool result whose call is not before it";
    W3 => Warning, "GENERATIONS §8", "event type outside this reader's v1, v2 or v4 vocabulary (v3 has a closed one: U1), not marked ignorable";
}

/// One real message per rule, as `validate` prints it after `FILE: ` (`rule_examples.tsv`,
/// renewed and checked by `tests/rule_examples.rs`).
const EXAMPLES: &str = include_str!("rule_examples.tsv");

/// Rule ids FORMAT.md names that no file makes this reader report, and why (`rules ID`):
/// some because an earlier stage always reports the defect first, some because they are
/// not defects. Ids that are not [`Rule`]s here (D4, D7, D8, Q6) are listed too.
pub const NOT_REPORTED: &[(&str, &str)] = &[
    (
        "H1",
        "a plain file without a complete first line is J1, a zstd file without one Z4 or Z6, a SQLite session reads its header from the sessions row",
    ),
    (
        "J3",
        "an unparsable line is reported as J5 when a turn/end follows it (the committed region) and as J6 when none does (a torn tail); both say what is wrong with the line",
    ),
    (
        "J4",
        "a record that does not continue the seqs is reported as J5 or J6, as J3 is; both say which seq was expected and which was found",
    ),
    (
        "E0",
        "a request/header-delta event is refused by L1 over the whole log first, as DSH does",
    ),
    (
        "E3",
        "in a file, a seq that is not a non-negative safe integer is caught by the framing first (J4, reported as J5 or J6)",
    ),
    (
        "E7",
        "in a file, a seq that is not the event's index is caught by the framing first (J4, reported as J5 or J6)",
    ),
    (
        "S1",
        "in a file, a seq that does not continue is caught by the framing first (J4, reported as J5 or J6)",
    ),
    (
        "R4",
        "a request/header with the reason \"fallback\" is refused by L3 over the whole log first, as DSH does",
    ),
    (
        "W1",
        "an alias kept for old scripts: the finding is reported as P1",
    ),
    (
        "W2",
        "an alias kept for old scripts: the finding is reported as P2",
    ),
    (
        "Q4",
        "a schema-17 events table is STRICT: SQLite itself refuses a surface_op that is neither TEXT nor NULL",
    ),
    (
        "Q5",
        "a schema-17 events table has a CHECK constraint that keeps ignorable NULL, 0 or 1",
    ),
    (
        "D4",
        "a pristine SQLite file (user_version 0, no objects) is not a defect: DSH initialises it, and this reader reads it as a store without sessions",
    ),
    (
        "D7",
        "DSH checks the store's file owner and permissions before it opens it for writing; a reader has no such rule",
    ),
    (
        "D8",
        "checked by DSH inside each write transaction; `repair` re-checks the schema and rows in its own transaction and reports a change as a stale repair",
    ),
    (
        "Q6",
        "not a defect: it finds the last row with a turn/end, which ends the committed region Q7 and Q8 are judged by",
    ),
];

impl Rule {
    /// A real message of this rule as `validate` prints it (after `FILE: `), when a file
    /// can make this reader report it.
    pub fn example(self) -> Option<&'static str> {
        EXAMPLES.lines().find_map(|line| {
            let (id, text) = line.split_once('\t')?;
            (id == self.id()).then_some(text)
        })
    }

    /// True for the rules of the frozen migration edges (F1–F10, [`crate::edge`]): what DSH
    /// 0.1.5 and later refuse in a log DSH 0.1.1 loads.
    pub fn is_edge(self) -> bool {
        use Rule::*;
        matches!(self, F1 | F2 | F3 | F4 | F5 | F6 | F7 | F8 | F9 | F10)
    }

    /// What to do about a finding of this rule, in one sentence.
    pub fn advice(self) -> &'static str {
        use Rule::*;
        match self {
            J2 | J6 | Z3 | Z8 | Q8 => {
                "nothing, or `dsh-session repair` to cut the torn tail as DSH does on its next load"
            }
            J5 | J7 | Z5 | Z6 | Z7 | Q7 => {
                "damaged bytes inside the committed part of the log: restore it from a backup; `repair` will not guess"
            }
            X1 => {
                "nothing: the file is another harness's session log; read it with that harness's tools (a walk of a DSH root lists it as foreign and goes on)"
            }
            J1 | H1 | Z1 | Z2 | Z4 => {
                "the file is not a DSH log, or was cut before its header: check the path"
            }
            G1 | H3 => {
                "written by a newer harness or a fork this reader does not know: upgrade DSH or dsh-session"
            }
            G10 => {
                "written by a newer DSH than the one judged (--dsh): open it with that DSH or a later one; the DSH line you run never downgrades a log"
            }
            H8 => {
                "open the log with DSH on Windows, where it was written; on Linux or macOS, `dsh-session recover` writes a copy whose cwd is a path there"
            }
            U1 => {
                "a plugin's own event type: `dsh-session recover` writes a copy DSH loads, or the plugin marks its events `ignorable: true` (DSH 0.1.1 skips them); a type in DSH's namespace: written by a newer harness, upgrade DSH and dsh-session"
            }
            D1 | D2 | D3 | D5 | D6 => {
                "the SQLite file is not a DSH store of a schema this reader knows: check the path; upgrade if the schema is newer"
            }
            P1 => {
                "`dsh-session repair --provider NAME` heals it append-only (the calls of an open final turn are no finding: DSH's own closers answer them on load)"
            }
            P2 | P3 | P4 | P5 | P6 | P7 => {
                "`dsh-session repair --provider NAME` heals it append-only (a surface replacement; nothing stored changes)"
            }
            F1 | F2 | F3 | F4 | F5 | F6 | F7 | F8 | F9 => {
                "DSH 0.1.1 loads the log as it is (`--dsh 0.1.1` judges as it does); DSH 0.1.5 and later show its history as unavailable and leave the file unchanged: keep using 0.1.1 for it, or fix the record the finding names in a copy"
            }
            F10 => {
                "in a v0-v3 log: DSH 0.1.1 loads it as it is; DSH 0.1.5 and later refuse it (`dsh-session recover` writes a copy whose call is answered). In a v4 log: nothing for DSH builds after 2026-09-22, which release the call"
            }
            W1 | W2 => "see the provider rule it stands for (P1, P2)",
            W3 => {
                "nothing: the event is read as opaque; upgrade dsh-session if it is a type DSH writes"
            }
            H6 => {
                "move the file where its header's cwd and id say (FORMAT.md §7.1), or fix the header if a tool wrote it"
            }
            _ => {
                "if DSH wrote it, report a bug with the rule id and the line; if a tool or a hand edit did, fix or drop the record"
            }
        }
    }

    /// Why no file makes this reader report the rule, when none does.
    pub fn not_reported(self) -> Option<&'static str> {
        NOT_REPORTED
            .iter()
            .find(|(id, _)| *id == self.id())
            .map(|(_, why)| *why)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One finding about a log: which rule, where, and what was expected versus found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule broken.
    pub rule: Rule,
    /// How the finding counts (usually `rule.class()`; June-era logs demote some rules to
    /// warnings, FORMAT.md §9.2).
    pub class: Class,
    /// Seq of the event concerned, when there is one.
    pub seq: Option<u64>,
    /// 1-based line in the (decoded) file, the header being line 1, when there is one.
    pub line: Option<u64>,
    /// SQLite only: the `seq` column of the physical row concerned.
    pub row: Option<u64>,
    /// One line: what was expected and what was found.
    pub message: String,
    /// Provider rules (P*) only: the wire indexes and the call id the finding is about.
    pub provider: Option<Box<ProviderDetail>>,
}

impl Finding {
    /// For a SQLite store, which has rows, not lines (FORMAT.md §7): the `seq` column
    /// stands where a line number would, so the line becomes the row (the seq when the
    /// finding had no line).
    pub fn line_to_row(&mut self) {
        self.row = self.line.take().or(self.seq);
    }

    /// A finding with the rule's own class.
    pub fn new(
        rule: Rule,
        seq: Option<u64>,
        line: Option<u64>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            rule,
            class: rule.class(),
            seq,
            line,
            row: None,
            message: message.into(),
            provider: None,
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = crate::wording::place(self.line, self.row, self.seq);
        write!(f, "{}{place}: {}", self.rule, self.message)
    }
}

/// Where a provider finding points: the wire message indexes the providers count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderDetail {
    /// Index in the OpenAI-compatible `messages` array DSH's DeepSeek adapter sends (what
    /// DeepSeek's and OpenAI's "message index N" count): the request's system prompt, when
    /// the log has one, is message 0; a user message with text and k results is k + 1
    /// messages.
    pub message_index: u64,
    /// Index in the Anthropic `messages` array (`messages.N`): the system prompt is not a
    /// message; a harness `system` message becomes a user message (pi-ai adapter); the
    /// results following one assistant message share one user message.
    pub anthropic_index: u64,
    /// The tool-call id concerned (P1, P2, P3, P6).
    pub call_id: Option<String>,
    /// P3: the seq of the result that answers the call, too late.
    pub answer_seq: Option<u64>,
}
