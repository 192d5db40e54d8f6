//! The check DSH 0.1.5 and later run on the migrated log (GENERATIONS §1.6, §4, §7):
//! turns and steps numbered 1, 2, … without overlap; step events inside the open step; every
//! `tool/call` and appended `tool/result` matching one advertised call (a result for a
//! call never started being the exact `TOOL_NOT_STARTED` repair); compactions owned,
//! turn-bound and naming exact surface spans; retry chains; commands; title sources; PTC
//! dispatches.
//!
//! A `step/end` or `turn/end` that leaves an advertised call unresolved (F10) is refused by
//! the frozen released validator every migrated log (v0–v2) and every v3 log is checked
//! with, in every DSH from 0.1.5 on: the edges are frozen, so no later build changed it
//! (DSH's own published v0→v1 package refuses it: `assertReleasedArtifactRelationships`,
//! `oracle/run`). Only a native v4 read drifted: the first v4 builds refuse it too, the
//! builds after the fix of 2026-09-22 release the call at the boundary; there it is the
//! warning F10 and the check goes on as the later builds do.
//!
//! The chain renumbers events; this check works on the stored seqs, which keep the same
//! order and the same references (the inserted system head never lies inside a span a v0
//! event names).
//!
//! Learnt from `packages/session/session-format-v0-to-v1/src/relationships.ts` and
//! `packages/session/session-format-v2-to-v3/src/validation.ts`
//! (`restoreReleasedV3Artifact`), tenyi/deepseek-harness @
//! `77afa3438160c9b45d81277b1fa64e9edcd9416d` (S-v01V, S-v23V); the v4 form from
//! `packages/session/session-format-v3-to-v4/src/relationships.ts`,
//! MrChenDev/my-deepseek-harness @ `0c97230f94d5a6e24d64e0b63b4a00800ad560b7` (S-v4rel).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use crate::edge::Source;
use crate::edge::attempts::{Attempt, StepState};
use crate::edge::repairs::{exact_not_started_repair, v4_not_started_repair};
use crate::edge::shape::{Refusal, seq_list};
use crate::edge::tools::Tools;
use crate::json::{Fields, Json, Kind, canonical_hash};
use crate::rules::Rule;

/// The types the check has a rule for, sorted.
const ROLES: &[&str] = &[
    "assistant/attempt",
    "assistant/message",
    "command/done",
    "command/run",
    "compaction/end",
    "compaction/prune",
    "compaction/start",
    "compaction/summary",
    "developer/message",
    "llm/retry",
    "llm/retry-started",
    "request/context",
    "request/header",
    "session/end-seed",
    "session/title",
    "session/title-llm-request",
    "step/end",
    "step/start",
    "system/message",
    "tool/call",
    "tool/code-dispatch",
    "tool/code-dispatch-start",
    "tool/ptc-dispatch",
    "tool/ptc-dispatch-start",
    "tool/result",
    "turn/end",
    "turn/start",
    "user/message",
];

fn lifecycle(detail: String) -> Refusal {
    Refusal {
        rule: Rule::F6,
        detail,
    }
}

fn reference(detail: String) -> Refusal {
    Refusal {
        rule: Rule::F9,
        detail,
    }
}

fn surface(detail: String) -> Refusal {
    Refusal {
        rule: Rule::F8,
        detail,
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Compaction {
    id: String,
    command: Option<String>,
    turn: Option<u64>,
    start_seq: u64,
    summarized: bool,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Retry {
    turn: Option<u64>,
    step: Option<u64>,
    provider: Option<String>,
    policy: Option<String>,
    id: String,
    retry: Option<u64>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct PtcStart {
    root: String,
    parent: String,
    name: Option<String>,
    arguments: u128,
    settled: bool,
}

/// A `turn/start` or `turn/end` that crossed an open compaction: refused unless a
/// `session/end-seed` later shows the compaction was inherited and left open.
#[derive(serde::Serialize, serde::Deserialize)]
struct Crossing {
    compaction_start: u64,
    at: (u64, u64, Refusal),
}

/// What the check found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The first refusal, as `(seq, line, refusal)`.
    pub refusal: Option<(u64, u64, Refusal)>,
    /// F10 warnings.
    pub warnings: Vec<(u64, u64, Refusal)>,
}

/// The state of the check, event by event.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Relationships {
    /// The generation whose form the events have: 0–2 (as migrated to v3, in the frozen
    /// released view), 3 or 4 (a log read natively).
    generation: u8,
    open_turn: Option<u64>,
    open_step: Option<u64>,
    next_turn: u64,
    next_step: u64,
    provider: Option<String>,
    surface: Vec<u64>,
    compaction: Option<Compaction>,
    crossings: Vec<Crossing>,
    retries: Vec<Retry>,
    retry_starts: HashSet<(String, u64)>,
    fresh_retry_ids: u64,
    ptc_roots: HashMap<String, String>,
    ptc_starts: HashMap<String, PtcStart>,
    tools: Tools,
    commands: HashSet<String>,
    command_events: HashSet<u64>,
    human_messages: HashSet<u64>,
    refusal: Option<(u64, u64, Refusal)>,
    warned: bool,
    warnings: Vec<(u64, u64, Refusal)>,
}

fn text(v: Option<Json<'_>>) -> Option<String> {
    text_ref(v).map(Cow::into_owned)
}

/// [`text`] without a copy (a string without escapes is borrowed from the line).
fn text_ref<'j>(v: Option<Json<'j>>) -> Option<Cow<'j, str>> {
    v.filter(|v| v.kind() == Kind::String)
        .and_then(Json::as_str)
}

fn raw(v: Option<Json<'_>>) -> &str {
    v.map_or("undefined", Json::raw)
}

impl Relationships {
    /// The check of a log of `generation` read natively (3, 4), or of one migrated from an
    /// older generation (0–2).
    pub fn of_generation(generation: u8) -> Relationships {
        Relationships {
            generation,
            ..Relationships::default()
        }
    }

    /// The open turn and step now.
    pub fn step_state(&self) -> StepState {
        StepState {
            turn: self.open_turn,
            step: self.open_step,
        }
    }

    fn fail(&mut self, seq: u64, line: u64, refusal: Refusal) {
        if self.refusal.is_none() {
            self.refusal = Some((seq, line, refusal));
        }
    }

    fn require_step(&self, ty: &str, turn: Option<u64>, step: Option<u64>) -> Result<(), Refusal> {
        if self.open_turn.is_none()
            || self.open_step.is_none()
            || turn != self.open_turn
            || step != self.open_step
        {
            return Err(lifecycle(format!(
                "{ty} does not match an open turn and step"
            )));
        }
        Ok(())
    }

    /// The first advertised call still unresolved at a boundary: a refusal (F10) before v4,
    /// the warning F10 in a v4 log, whose calls are released as the later builds do.
    fn close_tools(&mut self, boundary: &str, seq: u64, line: u64) {
        if let Some(id) = self.tools.first_id() {
            let unresolved = Refusal {
                rule: Rule::F10,
                detail: format!("{boundary} leaves unresolved tool call {id}"),
            };
            if self.generation < 4 {
                self.fail(seq, line, unresolved);
            } else if !self.warned && self.refusal.is_none() {
                self.warned = true;
                self.warnings.push((seq, line, unresolved));
            }
        }
        self.tools.clear();
    }

    fn crossing(&mut self, ty: &str, seq: u64, line: u64) {
        if let Some(open) = &self.compaction {
            self.crossings.push(Crossing {
                compaction_start: open.start_seq,
                at: (
                    seq,
                    line,
                    reference(format!("{ty} crosses an open compaction")),
                ),
            });
        }
    }

    /// Confirms the crossings of the compaction that started at `start`: it was not left
    /// open by an inherited prefix.
    fn confirm_crossings(&mut self, start: u64) {
        let (confirmed, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.crossings)
            .into_iter()
            .partition(|c| c.compaction_start == start);
        self.crossings = kept;
        if let Some(first) = confirmed.into_iter().next() {
            let (seq, line, r) = first.at;
            // Earlier than any refusal found since: DSH would have stopped there.
            if self.refusal.as_ref().is_none_or(|(s, _, _)| seq < *s) {
                self.refusal = Some((seq, line, r));
            }
        }
    }

    /// The `turn/end {interrupted}` the v1→v2 edge inserts before a restart's `turn/start`.
    pub fn interrupted_turn_end(&mut self, turn: u64, seq: u64, line: u64) {
        self.crossing("turn/end", seq, line);
        if self.open_turn == Some(turn) && self.open_step.is_none() {
            self.close_tools("turn/end", seq, line);
            self.open_turn = None;
            self.next_turn = self.next_turn.max(1) + 1;
        }
    }

    /// An `assistant/attempt` the v1→v2 edge inserted after its last chunk.
    pub fn attempt(&mut self, attempt: &Attempt) {
        if !attempt.at.matches(attempt.turn, attempt.step) {
            self.fail(
                attempt.last_seq,
                attempt.last_line,
                lifecycle("assistant/attempt does not match an open turn and step".into()),
            );
        }
    }

    /// One event of the migrated log (stored seq). `supplied_compaction` is the
    /// `compactionId` the v0→v1 edge gave it, if any.
    pub fn event(&mut self, ev: &Source<'_>, supplied_compaction: Option<&str>) {
        if self.next_turn == 0 {
            self.next_turn = 1;
            self.next_step = 1;
        }
        if let Err(r) = self.check(ev, supplied_compaction) {
            self.fail(ev.seq, ev.line, r);
        }
    }

    fn check(&mut self, ev: &Source<'_>, supplied_compaction: Option<&str>) -> Result<(), Refusal> {
        // The types the check has no rule for cost nothing.
        if ROLES.binary_search(&ev.ty).is_err() {
            return Ok(());
        }
        let Some(data) = ev.data.filter(|d| d.is_object()) else {
            return Ok(());
        };
        let fields = ev.fields;
        let get = |k: &str| fields.get(k);
        let seq_of = |k: &str| fields.seq(k);
        let surface_type = match ev.ty {
            "user/message" | "assistant/message" | "tool/result" => true,
            "system/message" => self.generation >= 3,
            "developer/message" => self.generation >= 4,
            _ => false,
        };
        if surface_type {
            self.apply_surface(ev)?;
        }
        if matches!(ev.ty, "turn/start" | "turn/end") {
            self.crossing(ev.ty, ev.seq, ev.line);
        }
        let coordinates = matches!(
            ev.ty,
            "turn/start"
                | "turn/end"
                | "step/start"
                | "step/end"
                | "assistant/attempt"
                | "assistant/message"
                | "tool/call"
                | "tool/result"
                | "llm/retry"
                | "llm/retry-started"
                | "system/message"
                | "developer/message"
        );
        let (turn, step) = if coordinates {
            (seq_of("turn"), seq_of("step"))
        } else {
            (None, None)
        };
        match ev.ty {
            "turn/start" => {
                if self.open_turn.is_some() || turn != Some(self.next_turn) {
                    return Err(lifecycle(format!(
                        "turn/start {} does not open expected turn {}",
                        raw(get("turn")),
                        self.next_turn
                    )));
                }
                self.open_turn = turn;
                self.open_step = None;
                self.tools.clear();
                self.next_step = 1;
            }
            "turn/end" => {
                if self.open_turn.is_none() || turn != self.open_turn {
                    return Err(lifecycle(format!(
                        "turn/end {} has no matching open turn",
                        raw(get("turn"))
                    )));
                }
                if self.open_step.is_some() {
                    return Err(lifecycle(format!(
                        "turn/end {} crosses an open step",
                        raw(get("turn"))
                    )));
                }
                self.close_tools("turn/end", ev.seq, ev.line);
                self.open_turn = None;
                self.next_turn += 1;
            }
            "step/start" => {
                if self.open_turn.is_none()
                    || turn != self.open_turn
                    || self.open_step.is_some()
                    || step != Some(self.next_step)
                {
                    return Err(lifecycle(
                        "step/start does not match the open turn and next step".into(),
                    ));
                }
                self.open_step = step;
            }
            "step/end" => {
                self.require_step(ev.ty, turn, step)?;
                self.close_tools("step/end", ev.seq, ev.line);
                self.open_step = None;
                self.next_step += 1;
            }
            "assistant/attempt" => self.require_step(ev.ty, turn, step)?,
            "system/message" if self.generation >= 3 => self.require_step(ev.ty, turn, step)?,
            "developer/message" if self.generation >= 4 => {
                self.require_step(ev.ty, turn, step)?;
            }
            "assistant/message" => {
                self.require_step(ev.ty, turn, step)?;
                let content = get("message").and_then(|m| m.get("content"));
                for block in content.into_iter().flat_map(Json::elements) {
                    // The block's members, read in one pass.
                    let block = Fields::of(Some(block));
                    if !block.get("type").is_some_and(|t| t.str_eq("tool-call")) {
                        continue;
                    }
                    let id = text_ref(block.get("id")).unwrap_or_default();
                    if self.tools.position(&id).is_some() {
                        return Err(lifecycle(format!(
                            "assistant/message repeats advertised tool call {id}"
                        )));
                    }
                    self.tools.push(
                        &id,
                        text_ref(block.get("name")).as_deref(),
                        text_ref(block.get("arguments")).as_deref(),
                    );
                }
            }
            "tool/call" => {
                self.require_step(ev.ty, turn, step)?;
                let id = text_ref(get("callId")).unwrap_or_default();
                let matches = self.tools.position(&id).filter(|&i| {
                    self.tools.matches_unstarted(
                        i,
                        text_ref(get("name")).as_deref(),
                        text_ref(get("arguments")).as_deref(),
                    )
                });
                match matches {
                    Some(i) => self.tools.start(i),
                    None => {
                        return Err(lifecycle(format!(
                            "tool/call {id} does not match one advertised tool call"
                        )));
                    }
                }
            }
            "tool/result" => self.tool_result(ev, data, turn, step)?,
            "request/header" => {
                self.require_turn(ev.ty)?;
                self.provider = text(
                    get("header")
                        .and_then(|h| h.get("config"))
                        .and_then(|c| c.get("provider")),
                );
            }
            "request/context" => self.require_turn(ev.ty)?,
            "tool/code-dispatch-start" | "tool/code-dispatch" if self.generation < 3 => {
                self.dispatch(ev.ty, data)?;
            }
            "tool/ptc-dispatch-start" | "tool/ptc-dispatch" if self.generation >= 3 => {
                self.dispatch(ev.ty, data)?;
            }
            "llm/retry" => self.retry(data, turn, step)?,
            "llm/retry-started" => self.retry_started(data, turn, step)?,
            "session/title" | "session/title-llm-request" => self.title(ev, data)?,
            "command/run" => {
                let id = text(get("commandId")).unwrap_or_default();
                if !self.commands.insert(id.clone()) {
                    return Err(reference(format!("command/run repeats commandId {id}")));
                }
                self.command_events.insert(ev.seq);
            }
            "command/done" => {
                let id = text(get("commandId")).unwrap_or_default();
                if !self.commands.contains(&id) {
                    return Err(reference(format!(
                        "command/done {id} has no prior command/run"
                    )));
                }
                if let Some(source) = seq_of("sourceEventSeq") {
                    let success = get("kind").is_some_and(|k| k.str_eq("success"));
                    if !success || self.command_events.contains(&source) {
                        return Err(reference(format!(
                            "command/done {id} has invalid sourceEventSeq"
                        )));
                    }
                }
                self.command_events.insert(ev.seq);
            }
            "compaction/start" => {
                if self.compaction.is_some() {
                    let start = self.compaction.as_ref().map_or(0, |c| c.start_seq);
                    self.confirm_crossings(start);
                    return Err(reference(
                        "compaction/start overlaps an open compaction".into(),
                    ));
                }
                let owner = fields.seq("turn");
                self.compaction_turn(owner, "compaction/start")?;
                self.compaction = Some(Compaction {
                    id: supplied_compaction
                        .map(str::to_owned)
                        .or_else(|| text(get("compactionId")))
                        .unwrap_or_default(),
                    command: text(get("sourceCommandId")),
                    turn: owner,
                    start_seq: ev.seq,
                    summarized: false,
                });
            }
            "compaction/summary" => {
                let open = self.owner(data, supplied_compaction, "compaction/summary")?;
                self.compaction_turn(open.turn, "compaction/summary")?;
                if open.summarized {
                    return Err(reference("compaction/summary repeats".into()));
                }
                self.span(data, "compaction/summary")?;
                if let Some(open) = &mut self.compaction {
                    open.summarized = true;
                }
            }
            "compaction/end" => {
                let open = self.owner(data, supplied_compaction, "compaction/end")?;
                let turn = fields.seq("turn");
                if turn != open.turn
                    || get("turn").is_some_and(Json::is_null) != open.turn.is_none()
                {
                    return Err(reference("compaction/end changes its owner turn".into()));
                }
                self.compaction_turn(open.turn, "compaction/end")?;
                if !data.has("error") && !open.summarized {
                    return Err(reference(
                        "successful compaction/end requires one summary".into(),
                    ));
                }
                self.compaction = None;
                self.confirm_crossings(open.start_seq);
            }
            "compaction/prune" => self.span(data, "compaction/prune")?,
            "user/message" => {
                let source = get("source").filter(|s| s.is_object());
                if source
                    .and_then(|s| s.get("kind"))
                    .is_some_and(|k| k.str_eq("user"))
                {
                    self.human_messages.insert(ev.seq);
                }
                let v4 = self.generation >= 4;
                let checkpoint = !ev.surface_op.is_some_and(|op| op.str_eq("append"))
                    && source.is_some_and(|s| {
                        // v4 names the producer as the kind (GENERATIONS §7).
                        if v4 {
                            s.get("kind")
                                .is_some_and(|k| k.str_eq("compact-checkpoint"))
                        } else {
                            s.get("kind").is_some_and(|k| k.str_eq("plugin"))
                                && s.get("plugin").is_some_and(|p| p.str_eq("compact"))
                        }
                    });
                if let (true, Some(source)) = (checkpoint, source) {
                    let what = format!("compaction checkpoint at seq {}", ev.seq);
                    self.owner(source, supplied_compaction, &what)?;
                }
            }
            "session/end-seed" => {
                // A compaction the inherited prefix left open belongs to the parent.
                if let Some(open) = self.compaction.take() {
                    self.crossings
                        .retain(|c| c.compaction_start != open.start_seq);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn require_turn(&self, ty: &str) -> Result<(), Refusal> {
        if self.open_turn.is_none() {
            return Err(lifecycle(format!("{ty} is outside an open turn")));
        }
        Ok(())
    }

    fn apply_surface(&mut self, ev: &Source<'_>) -> Result<(), Refusal> {
        let Some(op) = ev.surface_op else {
            return Err(surface(format!("{} requires a surfaceOp marker", ev.ty)));
        };
        if op.str_eq("append") {
            self.surface.push(ev.seq);
            return Ok(());
        }
        let position = |key: &str| {
            op.get(key)
                .and_then(Json::as_seq)
                .and_then(|s| self.surface.iter().position(|&x| x == s))
        };
        let (start_key, end_key) = if self.generation >= 3 {
            ("startSeq", "endSeq")
        } else {
            ("start", "end")
        };
        let (Some(start), Some(end)) = (position(start_key), position(end_key)) else {
            return Err(surface(format!(
                "{} replacement range is not on the current surface",
                ev.ty
            )));
        };
        if end < start {
            return Err(surface(format!(
                "{} replacement range is not on the current surface",
                ev.ty
            )));
        }
        let cited: HashSet<u64> = seq_list(ev.sources).into_iter().collect();
        if self.surface[start..=end].iter().any(|s| !cited.contains(s)) {
            return Err(surface(format!(
                "{} replacement sourceEventSeqs omit a shadowed surface node",
                ev.ty
            )));
        }
        self.surface.splice(start..=end, [ev.seq]);
        Ok(())
    }

    fn tool_result(
        &mut self,
        ev: &Source<'_>,
        data: Json<'_>,
        turn: Option<u64>,
        step: Option<u64>,
    ) -> Result<(), Refusal> {
        if !ev.surface_op.is_some_and(|op| op.str_eq("append")) {
            if self.open_turn.is_none() {
                return Err(lifecycle(
                    "tool/result replacement is outside an open turn".into(),
                ));
            }
            return Ok(());
        }
        self.require_step(ev.ty, turn, step)?;
        let message = ev.fields.get("message");
        // A v4 result is a tool-role message naming its call; v0–v3 wrap it for the user.
        let call = if self.generation >= 4 {
            message.and_then(|m| m.get("toolCallId"))
        } else {
            message
                .and_then(|m| m.get("source"))
                .and_then(|s| s.get("callId"))
        };
        let id = text_ref(call).unwrap_or_default();
        let Some(index) = self.tools.position(&id) else {
            return Err(lifecycle(format!(
                "tool/result {id} has no advertised tool lifecycle"
            )));
        };
        // Only a result for a call that never started must be the repair.
        let repair = || {
            if self.generation >= 4 {
                v4_not_started_repair(ev, data, &id)
            } else {
                exact_not_started_repair(ev, data)
            }
        };
        if !self.tools.started(index) && !repair() {
            return Err(lifecycle(format!(
                "tool/result {id} is not the exact TOOL_NOT_STARTED repair"
            )));
        }
        self.tools.resolve(index);
        Ok(())
    }

    fn dispatch(&mut self, ty: &str, data: Json<'_>) -> Result<(), Refusal> {
        // v3's PTC names are the frozen validator's code-dispatch names: the v3 read
        // renames them before it checks (S-v23V), and its messages say the old names.
        let ty = match ty {
            "tool/ptc-dispatch-start" => "tool/code-dispatch-start",
            "tool/ptc-dispatch" => "tool/code-dispatch",
            other => other,
        };
        self.require_turn(ty)?;
        let root = text(data.get("rootCallId")).unwrap_or_default();
        let parent = text(data.get("parentCallId")).unwrap_or_default();
        let child = text(data.get("subCallId")).unwrap_or_default();
        if self
            .ptc_roots
            .get(&child)
            .is_some_and(|known| *known != root)
        {
            return Err(reference(format!("{ty} changes its rootCallId")));
        }
        if parent != root && self.ptc_roots.get(&parent) != Some(&root) {
            return Err(reference(format!(
                "{ty} parentCallId does not belong to rootCallId"
            )));
        }
        let arguments = data.get("arguments").map_or(0, |a| canonical_hash(a, &[]));
        if ty == "tool/code-dispatch-start" {
            if self.ptc_starts.contains_key(&child) {
                return Err(reference(
                    "tool/code-dispatch-start repeats subCallId".into(),
                ));
            }
            self.ptc_starts.insert(
                child.clone(),
                PtcStart {
                    root: root.clone(),
                    parent,
                    name: text(data.get("name")),
                    arguments,
                    settled: false,
                },
            );
        } else {
            let Some(start) = self.ptc_starts.get_mut(&child).filter(|s| !s.settled) else {
                return Err(reference("tool/code-dispatch has no unique start".into()));
            };
            if start.root != root
                || start.parent != parent
                || start.name != text(data.get("name"))
                || start.arguments != arguments
            {
                return Err(reference(
                    "tool/code-dispatch does not match its start".into(),
                ));
            }
            start.settled = true;
        }
        self.ptc_roots.insert(child, root);
        Ok(())
    }

    fn retry(
        &mut self,
        data: Json<'_>,
        turn: Option<u64>,
        step: Option<u64>,
    ) -> Result<(), Refusal> {
        let expected_step = self.open_step.or(self.next_step.checked_sub(1));
        if self.open_turn.is_none() || turn != self.open_turn || step != expected_step {
            return Err(reference(
                "llm/retry does not match the current turn and step".into(),
            ));
        }
        let provider = text(data.get("provider"));
        if provider != self.provider {
            return Err(reference(
                "llm/retry provider does not match the open request/header".into(),
            ));
        }
        let policy = text(data.get("policyKey"));
        let prior = self.retries.iter().rev().find(|r| {
            r.turn == turn && r.step == step && r.provider == provider && r.policy == policy
        });
        let retry = data.get("retry").and_then(Json::as_seq);
        let expected = prior.and_then(|p| p.retry).unwrap_or(0) + 1;
        if retry != Some(expected) {
            return Err(reference(format!("llm/retry must use retry {expected}")));
        }
        // A legacy retry without an id gets its chain's id, or a new one (v0→v1 edge).
        let id = match text(data.get("retryId")) {
            Some(id) => id,
            None => match prior {
                Some(p) => p.id.clone(),
                None => {
                    self.fresh_retry_ids += 1;
                    format!("\0legacy-retry {}", self.fresh_retry_ids)
                }
            },
        };
        if let Some(p) = prior
            && p.id != id
        {
            return Err(reference(
                "llm/retry must preserve retryId across one policy chain".into(),
            ));
        }
        if prior.is_none() && self.retries.iter().any(|r| r.id == id) {
            return Err(reference(format!(
                "llm/retry reuses retryId {} across policy chains",
                raw(data.get("retryId"))
            )));
        }
        self.retries.push(Retry {
            turn,
            step,
            provider,
            policy,
            id,
            retry,
        });
        Ok(())
    }

    fn retry_started(
        &mut self,
        data: Json<'_>,
        turn: Option<u64>,
        step: Option<u64>,
    ) -> Result<(), Refusal> {
        let id = text(data.get("retryId")).unwrap_or_default();
        let retry = data.get("retry").and_then(Json::as_seq);
        let Some(scheduled) = self.retries.iter().find(|r| r.id == id && r.retry == retry) else {
            return Err(reference(
                "llm/retry-started pairs no prior scheduled attempt".into(),
            ));
        };
        if scheduled.turn != turn || scheduled.step != step {
            return Err(reference(
                "llm/retry-started does not match its scheduled turn and step".into(),
            ));
        }
        if !self.retry_starts.insert((id, retry.unwrap_or(0))) {
            return Err(reference(
                "llm/retry-started repeats one scheduled attempt".into(),
            ));
        }
        Ok(())
    }

    fn title(&mut self, ev: &Source<'_>, data: Json<'_>) -> Result<(), Refusal> {
        let seqs: Vec<u64> = data
            .get("messageSeqs")
            .into_iter()
            .flat_map(Json::elements)
            .filter_map(Json::as_seq)
            .collect();
        if ev.ty == "session/title" {
            let user = data
                .get("source")
                .and_then(|s| s.get("kind"))
                .is_some_and(|k| k.str_eq("user"));
            if seqs.is_empty() != user {
                return Err(reference(format!(
                    "session/title {} messageSeqs must be empty exactly for a user title",
                    ev.seq
                )));
            }
        }
        if seqs.iter().any(|s| !self.human_messages.contains(s)) {
            return Err(reference(format!(
                "{} {} messageSeqs must cite earlier human user/message events",
                ev.ty, ev.seq
            )));
        }
        if ev.ty == "session/title-llm-request" {
            let messages = data.get("messages");
            let message = messages.and_then(|m| m.elements().next());
            let content = message.and_then(|m| m.get("content"));
            let source = message.and_then(|m| m.get("source"));
            let framed = content.and_then(|c| c.elements().next());
            let ok = messages.is_some_and(|m| m.len() == 1)
                && message
                    .and_then(|m| m.get("role"))
                    .is_some_and(|r| r.str_eq("user"))
                && content.is_some_and(|c| c.len() == 1)
                && source.is_some_and(|s| {
                    // v4 names the producer as the kind (GENERATIONS §7).
                    if self.generation >= 4 {
                        s.get("kind")
                            .is_some_and(|k| k.str_eq("dsh-session-title-llm"))
                    } else {
                        s.get("kind").is_some_and(|k| k.str_eq("plugin"))
                            && s.get("plugin")
                                .is_some_and(|p| p.str_eq("dsh-session-title-llm"))
                    }
                })
                && framed
                    .and_then(|f| f.get("type"))
                    .is_some_and(|t| t.str_eq("text"));
            if !ok {
                return Err(reference(
                    "session/title-llm-request messages do not represent messageSeqs".into(),
                ));
            }
        }
        Ok(())
    }

    fn compaction_turn(&self, owner: Option<u64>, ty: &str) -> Result<(), Refusal> {
        if owner != self.open_turn {
            return Err(reference(format!("{ty} does not match the open turn")));
        }
        Ok(())
    }

    /// `assertCompactionOwner`: the open compaction, by id and source command.
    fn owner(
        &self,
        data: Json<'_>,
        supplied: Option<&str>,
        what: &str,
    ) -> Result<Compaction, Refusal> {
        let id = supplied
            .map(str::to_owned)
            .or_else(|| text(data.get("compactionId")));
        let command = text(data.get("sourceCommandId"));
        match &self.compaction {
            Some(open)
                if Some(&open.id) == id.as_ref()
                    && open.command == command
                    && data
                        .get("sourceCommandId")
                        .is_none_or(|c| c.kind() == Kind::String) =>
            {
                Ok(open.clone())
            }
            _ => Err(reference(format!(
                "{what} has no matching compaction/start"
            ))),
        }
    }

    /// `assertCurrentSurfaceSpan`: `shadowedSeqs` is exactly the surface from
    /// `shadowedRange.start` to `.end`.
    fn span(&self, data: Json<'_>, ty: &str) -> Result<(), Refusal> {
        let range = data.get("shadowedRange");
        let position = |key: &str| {
            range
                .and_then(|r| r.get(key))
                .and_then(Json::as_seq)
                .and_then(|s| self.surface.iter().position(|&x| x == s))
        };
        let expected: &[u64] = match (position("start"), position("end")) {
            (Some(start), Some(end)) if start <= end => &self.surface[start..=end],
            _ => &[],
        };
        let named: Vec<Option<u64>> = data
            .get("shadowedSeqs")
            .into_iter()
            .flat_map(Json::elements)
            .map(Json::as_seq)
            .collect();
        if named.len() != expected.len() || named.iter().zip(expected).any(|(n, e)| *n != Some(*e))
        {
            return Err(surface(format!(
                "{ty} shadowedSeqs do not name an exact current surface span"
            )));
        }
        Ok(())
    }

    /// The outcome, once every event was checked.
    pub fn finish(mut self) -> Outcome {
        if let Some(open) = self.compaction.take() {
            self.confirm_crossings(open.start_seq);
        }
        Outcome {
            refusal: self.refusal,
            warnings: self.warnings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roles_are_sorted_for_binary_search() {
        assert!(ROLES.windows(2).all(|w| w[0] < w[1]));
    }
}
