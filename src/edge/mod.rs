//! The frozen migration edges DSH 0.1.5 and later run when they open an older log
//! (GENERATIONS §1.3, §4–§7, §11).
//!
//! DSH 0.1.1-rc.2 loads a `session.jsonl` (v0) as it is; that is what the checks in
//! [`crate::check`] model. DSH 0.1.5 and later never do: they decode it with the frozen
//! released-v0 codec and run it through the adjacent migration edges v0→v1→v2→v3 (→v4 in
//! 0.1.7 and later), each with strict validation, then validate the migrated log again;
//! a refusal anywhere makes the session's history unavailable, and the file stays as it
//! was. [`Edges`] runs the same chain over the events of the one streaming scan and keeps
//! the first refusal, in the chain's order:
//!
//! 1. **v0→v1** ([`legacy`], [`payload`], [`message`]): the retired names and legacy
//!    shapes it converts, then a closed inventory ([`inventory`]) that refuses unknown
//!    types even when `ignorable`, and the exact members and values of every payload.
//! 2. **v1→v2** ([`attempts`]): every top-level `assistant/chunk` is consumed into the
//!    `stream` of the message that cites its complete attempt, or into an
//!    `assistant/attempt`; a reference to a consumed chunk, a turn that starts while
//!    another is open, and a message that cites part of an attempt are refused.
//! 3. **v2→v3** ([`admission`]): content kinds and message sources from fixed lists, the
//!    system prompt becomes a surface head after the first `step/start` (a surface event
//!    before it is refused), repair identities, error metadata.
//! 4. **the migrated log's own check** ([`relationships`]): turns, steps and tool calls,
//!    compactions, retries, commands and titles, as the frozen released validator checks
//!    them — a `step/end` or `turn/end` that leaves an advertised call unresolved included
//!    (F10). Only a native v4 read changed it: the first v4 builds refuse it, the builds
//!    after 2026-09-22 release the call (GENERATIONS §7, §8), so in a v4 log F10 is a
//!    warning.
//!
//! Learnt from (never copied) tenyi/deepseek-harness @
//! `77afa3438160c9b45d81277b1fa64e9edcd9416d`: `packages/session/session-format-v0-to-v1/src/`
//! (`codec.ts`, `migration.ts`, `validation.ts`, `validation-helpers.ts`,
//! `payload-validation.ts`, `relationships.ts`, `dispositions.ts`), the same for
//! `session-format-v1-to-v2` and `session-format-v2-to-v3` (`payload.ts`, `validation.ts`),
//! `packages/session/session-format/src/{chain,catalog}.ts`; the v4 relationships from
//! MrChenDev/my-deepseek-harness @ `0c97230f94d5a6e24d64e0b63b4a00800ad560b7`
//! (`packages/session/session-format-v3-to-v4/src/relationships.ts`). The refusal texts
//! are DSH's, with the stored seqs (DSH numbers the events of the migrated log anew).
//!
//! Not modelled: SQLite stores (DSH 0.1.5 and later do not open them at all), and the
//! installed build's own `Session.fromRestore` on the migrated log, whose rules are the
//! ones [`crate::check`] already applies.

pub mod admission;
pub mod attempts;
pub mod features;
pub mod inventory;
pub mod legacy;
pub mod message;
pub mod payload;
pub mod relationships;
pub mod repairs;
pub mod shape;
pub mod tools;

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::check::Logical;
use crate::event::Era;
use crate::header::Header;
use crate::json::{Fields, Json};
use crate::load::packed::PackedSpan;
use crate::rules::{Class, Finding, Rule};
use shape::Refusal;

/// Which DSH release line a log is judged as (`--dsh`): the lines that judge differently
/// (GENERATIONS.md §0, §1.3; the oracle, ORACLE.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DshLine {
    /// DSH 0.1.1-rc.2 (0.0.x and 0.1.0–0.1.1), which loads a v0 log as it is: its store
    /// refuses every v1–v4 header as newer, range-form `sourceEventSeqs` and the event
    /// types the v0-alpha writers added.
    V0_1_1,
    /// DSH 0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3 (in
    /// the recoverable reading: a defect with no `turn/end` after it is a torn tail); a v4
    /// log is refused as newer ("stored Session uses newer format v4; this build writes
    /// v3").
    V0_1_5,
    /// DSH 0.1.7 and later (0.2.x included), which read and write v4; the newest DSH that
    /// FORMAT.md and GENERATIONS.md describe (0.2.1-alpha.2) is of this line, and it is the
    /// default.
    Current,
    /// The line of the DSH that writes the log's generation, resolved once its header is
    /// read ([`DshLine::resolve`]): v0 as DSH 0.1.1 loads it, v3 as 0.1.5, v1, v2 and v4 as
    /// 0.1.7 and later (`--dsh writer`). `follow` judges a live log so.
    Writer,
}

/// The values `--dsh` takes, as the usage error lists them.
pub const DSH_LINE_VALUES: &str = "0.1.1, 0.1.5, 0.1.7, latest or writer";

static PROCESS_LINE: AtomicU8 = AtomicU8::new(2);

impl DshLine {
    /// The newest line, the default.
    pub const NEWEST: DshLine = DshLine::Current;

    /// `DSH 0.1.1`, `DSH 0.1.5` or `DSH 0.1.7+`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            DshLine::V0_1_1 => "DSH 0.1.1",
            DshLine::V0_1_5 => "DSH 0.1.5",
            DshLine::Current => "DSH 0.1.7+",
            DshLine::Writer => "the DSH that writes it",
        }
    }

    /// The `--dsh` value that names the line (`0.1.1`, `0.1.5`, `0.1.7`; `writer`).
    pub fn value(self) -> &'static str {
        match self {
            DshLine::V0_1_1 => "0.1.1",
            DshLine::V0_1_5 => "0.1.5",
            DshLine::Current => "0.1.7",
            DshLine::Writer => "writer",
        }
    }

    /// The newest generation the line reads and writes: 0, 3 or 4 (GENERATIONS.md §0); a
    /// log's own for [`DshLine::Writer`].
    pub fn writes_generation(self) -> u8 {
        match self {
            DshLine::V0_1_1 => 0,
            DshLine::V0_1_5 => 3,
            DshLine::Current | DshLine::Writer => 4,
        }
    }

    /// Whether the line migrates older logs through the frozen edges (every line after
    /// 0.1.1; [`DshLine::Writer`] reads each log as its writer does, natively).
    pub fn migrates(self) -> bool {
        matches!(self, DshLine::V0_1_5 | DshLine::Current)
    }

    /// The line that judges a log of `era`: this one, or for [`DshLine::Writer`] the line
    /// of the DSH that writes the era.
    pub fn resolve(self, era: crate::event::Era) -> DshLine {
        use crate::event::Era;
        match (self, era) {
            (DshLine::Writer, Era::Head | Era::V0Alpha | Era::June2026) => DshLine::V0_1_1,
            (DshLine::Writer, Era::V3) => DshLine::V0_1_5,
            (DshLine::Writer, _) => DshLine::Current,
            (line, _) => line,
        }
    }

    /// The line `--dsh` chose for this process (the newest unless set), which every
    /// [`crate::scan::ScanOptions::default`] starts from: one command line judges every log
    /// it reads, in every scan, as one DSH.
    pub fn process_default() -> DshLine {
        DshLine::from_code(PROCESS_LINE.load(Ordering::Relaxed))
    }

    /// Sets [`DshLine::process_default`] (`main`, from `--dsh`).
    pub fn set_process_default(line: DshLine) {
        PROCESS_LINE.store(line.code(), Ordering::Relaxed);
    }

    /// A small number for the line (saved scan states, the process default).
    pub fn code(self) -> u8 {
        match self {
            DshLine::V0_1_1 => 0,
            DshLine::V0_1_5 => 1,
            DshLine::Current => 2,
            DshLine::Writer => 3,
        }
    }

    /// The line of [`DshLine::code`]; an unknown code is the newest line.
    pub fn from_code(code: u8) -> DshLine {
        match code {
            0 => DshLine::V0_1_1,
            1 => DshLine::V0_1_5,
            3 => DshLine::Writer,
            _ => DshLine::Current,
        }
    }

    /// Reads a `--dsh` value: a line (`0.1.1`, `0.1.5`, `0.1.7`, `latest`, `writer`) or a
    /// DSH version of a known line (`0.1.1-rc.2`, `0.1.6-alpha.1`, `0.2.1-alpha.2`).
    ///
    /// # Errors
    /// A value that is not a DSH version, one of 0.1.2–0.1.4 (the v0-alpha and v2 writers,
    /// whose behaviour GENERATIONS.md does not describe in full), or a version newer than
    /// any line described; the message names the values known.
    pub fn parse(text: &str) -> Result<DshLine, String> {
        match text {
            "latest" => return Ok(DshLine::NEWEST),
            "writer" => return Ok(DshLine::Writer),
            _ => {}
        }
        let core = text.split(['-', '+']).next().unwrap_or_default();
        let parts: Vec<Option<u64>> = core.split('.').map(|p| p.parse().ok()).collect();
        let [Some(major), Some(minor), Some(patch)] = parts[..] else {
            return Err(format!(
                "{text:?} is not a DSH release line: give {DSH_LINE_VALUES}"
            ));
        };
        match (major, minor, patch) {
            (0, 0, _) | (0, 1, 0..=1) => Ok(DshLine::V0_1_1),
            (0, 1, 2..=4) => Err(format!(
                "DSH {text} (a v0-alpha or v2 writer) is not described here: give {DSH_LINE_VALUES}"
            )),
            (0, 1, 5..=6) => Ok(DshLine::V0_1_5),
            (0, 1, 7..) | (0, 2, 0..=1) => Ok(DshLine::Current),
            _ => Err(format!(
                "DSH {text} is newer than any release line described here: give {DSH_LINE_VALUES}"
            )),
        }
    }
}

impl fmt::Display for DshLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which platform DSH runs on (`--platform`): where a `cwd` is absolute differs
/// (`path.isAbsolute` of Node, FORMAT.md §6.3), so DSH on Linux or macOS refuses a log
/// written on Windows (`C:\…`), and DSH on Windows loads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Platform {
    /// Linux, macOS: an absolute `cwd` starts with `/`.
    Posix,
    /// Windows: a drive letter and a separator, a UNC path or a rooted path.
    Windows,
}

/// 0: the writer's platform (the default); 1: POSIX; 2: Windows.
static PROCESS_PLATFORM: AtomicU8 = AtomicU8::new(0);

impl Platform {
    /// Reads `posix` or `windows` (`--platform`).
    ///
    /// # Errors
    /// Any other value, with the known ones.
    pub fn parse(text: &str) -> Result<Platform, String> {
        match text {
            "posix" | "linux" | "macos" => Ok(Platform::Posix),
            "windows" => Ok(Platform::Windows),
            _ => Err(format!("{text:?} is not a platform: give posix or windows")),
        }
    }

    /// The platform `--platform` chose for this process, or `None`: each log is judged on
    /// the platform that wrote it ([`Platform::of_writer`]).
    pub fn process_override() -> Option<Platform> {
        match PROCESS_PLATFORM.load(Ordering::Relaxed) {
            1 => Some(Platform::Posix),
            2 => Some(Platform::Windows),
            _ => None,
        }
    }

    /// Sets [`Platform::process_override`] (`main`, from `--platform`).
    pub fn set_process_override(platform: Option<Platform>) {
        let code = match platform {
            None => 0,
            Some(Platform::Posix) => 1,
            Some(Platform::Windows) => 2,
        };
        PROCESS_PLATFORM.store(code, Ordering::Relaxed);
    }

    /// The platform a log was written on, from its header's `cwd`: Windows for a drive
    /// letter, UNC or backslash path, POSIX otherwise.
    pub fn of_writer(cwd: Option<&str>) -> Platform {
        match cwd {
            Some(cwd) if crate::load::layout::is_windows_cwd(cwd) => Platform::Windows,
            _ => Platform::Posix,
        }
    }

    /// The platform a log is judged on: `--platform`, else its writer's.
    pub fn judging(cwd: Option<&str>) -> Platform {
        Platform::process_override().unwrap_or_else(|| Platform::of_writer(cwd))
    }

    /// `Linux or macOS` or `Windows`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Posix => "Linux or macOS",
            Platform::Windows => "Windows",
        }
    }
}

/// How a scan judges a log: the line whose verdict it reports, and whether the frozen
/// edges run even when that line does not need them (`show` and `version` say both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judge {
    /// The line whose verdict the report carries.
    pub line: DshLine,
    /// Run the edges under [`DshLine::V0_1_1`] too, to report what the other line does.
    pub both_lines: bool,
}

impl Default for Judge {
    fn default() -> Self {
        Judge {
            line: DshLine::process_default(),
            both_lines: false,
        }
    }
}

impl Judge {
    /// This judge, also reporting the other line.
    pub fn with_both_lines(self) -> Judge {
        Judge {
            both_lines: true,
            ..self
        }
    }

    /// True when the scan runs the edges.
    pub fn runs_edges(self) -> bool {
        self.line.migrates() || self.both_lines
    }
}

/// A step of the chain, as messages name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Edge {
    /// The frozen released-v0/v1 codec decoding a row.
    Codec,
    /// v0→v1.
    V0V1,
    /// v1→v2.
    V1V2,
    /// v2→v3.
    V2V3,
    /// The check of the migrated log after the last edge.
    Migrated,
    /// The check of a v3 or v4 log, which the DSH writing it reads natively.
    Native(u8),
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Edge::Codec => "the frozen v0 codec",
            Edge::V0V1 => "the v0→v1 edge",
            Edge::V1V2 => "the v1→v2 edge",
            Edge::V2V3 => "the v2→v3 edge",
            Edge::Migrated => "the check of the migrated log",
            Edge::Native(3) => "the check of a v3 log",
            Edge::Native(_) => "the check of a v4 log",
        })
    }
}

/// A refusal placed in the stored log.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Placed {
    edge: Edge,
    seq: Option<u64>,
    line: Option<u64>,
    refusal: Refusal,
}

impl Placed {
    fn finding(self) -> Finding {
        let Placed {
            edge,
            seq,
            line,
            refusal,
        } = self;
        if edge == Edge::Native(4) && refusal.rule == Rule::F10 {
            // The one rule of a native v4 read that drifted (GENERATIONS §7, §8).
            let mut finding = Finding::new(
                Rule::F10,
                seq,
                line,
                format!(
                    "the first v4 builds refuse to read it ({edge}): {}; the builds after 2026-09-22 release the call",
                    refusal.detail
                ),
            );
            finding.class = Class::Warning;
            return finding;
        }
        if let Edge::Native(generation) = edge {
            // The generation's own rules: the DSH that writes it refuses to load it.
            let mut finding = Finding::new(
                Rule::G9,
                seq,
                line,
                format!(
                    "{} ({edge}, as DSH {} and later read it)",
                    refusal.detail,
                    if generation == 3 { "0.1.5" } else { "0.1.7" }
                ),
            );
            finding.class = Class::Corrupt;
            return finding;
        }
        let message = format!(
            "DSH 0.1.5 and later refuse to migrate it ({edge}): {}",
            refusal.detail
        );
        let mut finding = Finding::new(refusal.rule, seq, line, message);
        finding.class = Class::Refused;
        finding
    }
}

/// What the edges concluded about one log.
#[derive(Debug, Clone, Default)]
pub struct EdgeVerdict {
    /// The first refusal, in the chain's order.
    pub refusal: Option<Finding>,
    /// Rules that only some builds of the line refuse (F10).
    pub warnings: Vec<Finding>,
}

/// One stored event as the edges read it.
#[derive(Clone, Copy)]
pub struct Source<'j> {
    /// The type as stored.
    pub stored_type: &'j str,
    /// The type after DSH 0.1.1's conversions (`steering/message` → `user/message`).
    pub ty: &'j str,
    /// The stored seq.
    pub seq: u64,
    /// Its line.
    pub line: u64,
    /// `data` after DSH 0.1.1's conversions (the same as the edge's for the shapes both
    /// convert: pre-react-loop turns, steering messages, pre-identity messages).
    pub data: Option<Json<'j>>,
    /// The stored `data`.
    pub stored_data: Option<Json<'j>>,
    /// `surfaceOp`.
    pub surface_op: Option<Json<'j>>,
    /// `sourceEventSeqs`.
    pub sources: Option<Json<'j>>,
    /// `time`, as stored.
    pub time: Option<Json<'j>>,
    /// `ignorable: true`.
    pub ignorable: bool,
    /// The fixed record of [`Source::data`]: its members as [`Json::get`] gives them, read
    /// once for the event (borrowed, not copied, from where the scan keeps it).
    pub fields: &'j Fields<'j>,
    /// The fixed record of the event's message as the scan read it
    /// ([`Logical::message_fields`]; of no value for an event without one).
    pub message_fields: &'j Fields<'j>,
}

impl<'j> Source<'j> {
    /// Hands `f` the edges' view of a checked event, its records borrowed where the
    /// `Logical` keeps them (made here for a converted event), not copied.
    pub fn with<R>(
        logical: &Logical<'_>,
        seq: u64,
        line: u64,
        f: impl FnOnce(Source<'_>) -> R,
    ) -> R {
        match logical.stored_records() {
            Some(records) => f(Source::of(logical, records, seq, line)),
            None => {
                let converted = (logical.data_fields(), logical.message_fields());
                f(Source::of(logical, (&converted.0, &converted.1), seq, line))
            }
        }
    }

    /// The edges' view of a checked event, whose records of `data` and message are
    /// `records` ([`Logical::data_fields`], [`Logical::message_fields`], or borrowed from
    /// the `Logical` by [`Logical::stored_records`]).
    pub fn of(
        logical: &'j Logical<'j>,
        records: (&'j Fields<'j>, &'j Fields<'j>),
        seq: u64,
        line: u64,
    ) -> Source<'j> {
        let stored_type = logical.ev.ty.and_then(Json::raw_str_body).unwrap_or("");
        Source {
            stored_type,
            ty: logical.type_str(),
            seq,
            line,
            data: logical.data(),
            stored_data: logical.ev.data,
            surface_op: logical.ev.surface_op,
            sources: logical.ev.source_event_seqs,
            time: logical.ev.time,
            ignorable: logical.ev.is_ignorable(),
            fields: records.0,
            message_fields: records.1,
        }
    }
}

/// The chain DSH 0.1.5 and later run on a v0–v3 log, fed one event at a time.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Edges {
    generation: u8,
    legacy: legacy::Legacy,
    attempts: attempts::Attempts,
    admission: admission::Admission,
    relationships: relationships::Relationships,
    /// A row the frozen codec cannot decode: a refusal once a `turn/end` follows it
    /// (committed), a torn tail DSH drops otherwise.
    codec_issue: Option<Placed>,
    refused: Option<Placed>,
    warnings: Vec<Placed>,
}

impl Edges {
    /// The chain for a log of `era` with `header`, or `None` when DSH 0.1.5 and later read
    /// it natively (v4) or the edges have nothing to say. A June 2026 log is refused at
    /// its header: the frozen v0 codec requires `delegationDepth`.
    pub fn for_log(era: Era, header: Option<&Header>) -> Option<Edges> {
        let generation = match era {
            Era::Head | Era::V0Alpha | Era::June2026 => 0,
            Era::V1 => 1,
            Era::V2 => 2,
            // Read natively by the DSH that writes them: only the log's own check runs
            // (the v3→v4 edge that 0.1.7 and later run on v3 is not modelled).
            Era::V3 => 3,
            Era::V4 => 4,
        };
        let mut edges = Edges {
            generation,
            legacy: legacy::Legacy::new(header),
            attempts: attempts::Attempts::new(header),
            admission: admission::Admission::new(header),
            relationships: relationships::Relationships::of_generation(generation),
            codec_issue: None,
            refused: None,
            warnings: Vec::new(),
        };
        if era == Era::June2026 {
            edges.refused = Some(Placed {
                edge: Edge::Codec,
                seq: None,
                line: Some(1),
                refusal: shape::members_refused(
                    "released v0 physical header lacks required member \"delegationDepth\" (a June 2026 header)".into(),
                ),
            });
        }
        Some(edges)
    }

    /// The chain's whole state, for a scan taken up after appends
    /// ([`crate::scan::resume`]): every member of every edge's state, as serde derives it
    /// (so none can be left out), as JSON text.
    pub fn save(&self) -> Option<String> {
        serde_json::to_string(self).ok()
    }

    /// The state [`Edges::save`] wrote; `None` for text it did not write (the scan is then
    /// not taken up: the log is read whole).
    pub fn restore(text: &str) -> Option<Edges> {
        serde_json::from_str(text).ok()
    }

    fn done(&self) -> bool {
        self.refused.is_some()
    }

    fn refuse(&mut self, edge: Edge, seq: u64, line: u64, refusal: Refusal) {
        if self.refused.is_none() {
            self.refused = Some(Placed {
                edge,
                seq: Some(seq),
                line: Some(line),
                refusal,
            });
        }
    }

    /// One stored event (after DSH 0.1.1's conversions).
    pub fn event(&mut self, mut ev: Source<'_>) {
        if self.done() {
            return;
        }
        if let Some(issue) = &self.codec_issue {
            // Rows after an undecodable one are not read; a turn/end after it makes it
            // committed corruption.
            if ev.stored_type == "turn/end" && self.refused.is_none() {
                self.refused = Some(issue.clone());
            }
            return;
        }
        if self.generation == 3
            && matches!(ev.ty, "tool/code-dispatch-start" | "tool/code-dispatch")
            && !ev.ignorable
        {
            // The PTC events' old names: opaque when ignorable, refused otherwise (S-v23V).
            let detail = format!(
                "format v3 contains unknown event type {} at seq {}",
                shape::js_quote(ev.ty),
                ev.seq
            );
            let refusal = Refusal {
                rule: Rule::F1,
                detail,
            };
            return self.refuse(Edge::Native(3), ev.seq, ev.line, refusal);
        }
        if self.generation == 0 {
            match self.legacy.check(&ev) {
                Ok(renamed) => ev.ty = renamed,
                Err(r) => return self.refuse(Edge::V0V1, ev.seq, ev.line, r),
            }
        } else if self.generation == 1
            && let Err(r) = self.legacy.check_decoded_v1(&ev)
        {
            return self.refuse(Edge::V1V2, ev.seq, ev.line, r);
        }
        if self.generation <= 1 {
            let step = self.relationships.step_state();
            let out = match self.attempts.event(&ev, step) {
                Ok(out) => out,
                Err(r) => return self.refuse(Edge::V1V2, ev.seq, ev.line, r),
            };
            if let Some(attempt) = out.attempt {
                self.attempt_downstream(attempt);
            }
            if let Some(turn) = out.interrupted_turn {
                self.relationships
                    .interrupted_turn_end(turn, ev.seq, ev.line);
            }
            if !out.emit {
                // A consumed chunk's raw block chunks stay in the stream the v2→v3 edge
                // admits.
                if let Err(r) = admission::stream_chunk(&ev) {
                    self.refuse(Edge::V2V3, ev.seq, ev.line, r);
                }
                return;
            }
        }
        if self.generation <= 2 {
            let from_v0 = self.generation < 2;
            if let Err(r) = self.admission.event(&ev, from_v0) {
                return self.refuse(Edge::V2V3, ev.seq, ev.line, r);
            }
        }
        let supplied = self.legacy.supplied_compaction();
        self.relationships.event(&ev, supplied);
    }

    fn attempt_downstream(&mut self, attempt: attempts::Attempt) {
        if let Err(r) = admission::attempt(&attempt) {
            return self.refuse(Edge::V2V3, attempt.last_seq, attempt.last_line, r);
        }
        self.relationships.attempt(&attempt);
    }

    /// The members of one packed chunk row (v0/v1).
    pub fn packed(&mut self, row: Json<'_>, span: &PackedSpan, line: u64) {
        if self.done() || self.codec_issue.is_some() {
            return;
        }
        let decoded = match attempts::decode_packed(row, span, line) {
            Ok(run) => run,
            Err(r) => {
                self.codec_issue = Some(Placed {
                    edge: Edge::Codec,
                    seq: Some(span.seq0),
                    line: Some(line),
                    refusal: r,
                });
                return;
            }
        };
        let step = self.relationships.step_state();
        match self.attempts.run(&decoded, line, step) {
            Ok(Some(attempt)) => self.attempt_downstream(attempt),
            Ok(None) => {}
            Err(r) => self.refuse(Edge::V1V2, span.seq0, line, r),
        }
    }

    /// The verdict, once every stored event was fed.
    pub fn finish(mut self) -> EdgeVerdict {
        if self.refused.is_none()
            && let Some(attempt) = self.attempts.finish()
        {
            self.attempt_downstream(attempt);
        }
        if self.refused.is_none()
            && let Some((seq, line, r)) = self.admission.finish()
        {
            self.refuse(Edge::V2V3, seq, line, r);
        }
        let relationships = std::mem::take(&mut self.relationships).finish();
        let last = if self.generation >= 3 {
            Edge::Native(self.generation)
        } else {
            Edge::Migrated
        };
        if self.refused.is_none()
            && let Some((seq, line, r)) = relationships.refusal
        {
            self.refuse(last, seq, line, r);
        }
        for (seq, line, r) in relationships.warnings {
            self.warnings.push(Placed {
                edge: last,
                seq: Some(seq),
                line: Some(line),
                refusal: r,
            });
        }
        if self.refused.is_some() {
            // DSH stops at the refusal: what only its later checks would say is moot.
            self.warnings
                .retain(|w| w.seq < self.refused.as_ref().and_then(|r| r.seq));
        }
        EdgeVerdict {
            refusal: self.refused.map(Placed::finding),
            warnings: self.warnings.into_iter().map(Placed::finding).collect(),
        }
    }
}
