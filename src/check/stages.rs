//! HEAD's load pipeline in order (FORMAT.md §6.5): the stages P1–P7, the first finding of
//! each, and the checks of one stored event in stage order: legacy records (L1–L3), the
//! conversions and message shapes (§9.3, M1–M8), unknown types (U1, W3), the closer scan's
//! data (E8), then the per-event checks before the fold (E0–E7, R1–R4, G7).
//!
//! An L-rule event anywhere beats an M-rule event anywhere, which beats an unknown type,
//! which beats E8, which beats every E, R and S rule: each event runs through every stage
//! as it streams past, each stage keeps its first finding, and the verdict is the first
//! finding of the earliest stage. So the verdict is HEAD's while the log is read once.

use std::collections::HashSet;

use crate::check::{self, Logical};
use crate::event::{Dialect, Event, UnknownTypes};
use crate::json::Json;
use crate::rules::{Class, Finding, Rule};

// HEAD's check stages (FORMAT.md §6.5), earliest first.
pub const BACKEND: usize = 0;
pub const LEGACY_DELTA: usize = 1;
pub const LEGACY_MODE: usize = 2;
pub const LEGACY_FALLBACK: usize = 3;
pub const CONVERT: usize = 4;
pub const UNKNOWN: usize = 5;
pub const CLOSER_SCAN: usize = 6;
pub const PER_EVENT: usize = 7;
pub const STAGES: usize = 8;

/// Where an event is: its seq and its 1-based line (for SQLite, the row's seq).
#[derive(Debug, Clone, Copy)]
pub struct Place {
    /// The event's seq.
    pub seq: u64,
    /// Its line.
    pub line: u64,
}

/// The first finding of each stage, and what the per-event stage still does.
#[derive(Debug, Default)]
pub struct Stages {
    found: [Option<Finding>; STAGES],
    /// The per-event stage stopped at its first failure, as upstream does (no more folds).
    pub per_event_failed: bool,
    /// Unknown types already warned about (W3), once each.
    pub(crate) unknown_seen: HashSet<String>,
}

impl Stages {
    /// Stages with nothing found; `no_fold` for a second pass over a log a first pass
    /// already checked.
    pub fn new(no_fold: bool) -> Self {
        Stages {
            per_event_failed: no_fold,
            ..Stages::default()
        }
    }

    /// Records the first finding of a stage.
    pub fn fail(&mut self, stage: usize, finding: Finding) {
        self.found[stage].get_or_insert(finding);
    }

    /// True when a stage before `stage` already failed, so its checks can be skipped.
    pub fn decided_before(&self, stage: usize) -> bool {
        self.found[..stage].iter().any(Option::is_some)
    }

    /// True when any stage failed so far.
    pub fn any_failed(&self) -> bool {
        self.found.iter().any(Option::is_some)
    }

    /// The verdict's finding: the first finding of the earliest stage that failed.
    pub fn first(&mut self) -> Option<Finding> {
        self.found.iter_mut().find_map(Option::take)
    }

    /// Stages P4–P6 on one stored event of a strict dialect: L1–L3, HEAD's conversions and
    /// the message shapes, U1 (or W3, pushed to `warnings`), E8. Returns the event as HEAD
    /// sees it after conversion (the stored one when its conversion fails). `id_body` is
    /// the header id as stored; `message_id` gives the message id of a surface seq, which
    /// legacy conversions read.
    pub fn check_event<'e>(
        &mut self,
        ev: Event<'e>,
        place: Place,
        dialect: &Dialect,
        id_body: &str,
        message_id: &dyn Fn(u64) -> Option<String>,
        warnings: &mut Vec<Finding>,
    ) -> Logical<'e> {
        let at =
            |rule, message: String| Finding::new(rule, Some(place.seq), Some(place.line), message);
        let stored_ty = ev.type_name();
        let stored_ty = stored_ty.as_deref().unwrap_or("");
        // P4: L1–L3 over the whole list, each its own scan.
        if stored_ty == "request/header-delta" {
            self.fail(
                LEGACY_DELTA,
                at(
                    Rule::L1,
                    "legacy request/header-delta event (delta header format unsupported)".into(),
                ),
            );
        }
        if stored_ty == "mode/set" {
            self.fail(LEGACY_MODE, at(Rule::L2, "legacy mode/set event".into()));
        }
        if stored_ty == "request/header" {
            if ev.data.is_none_or(Json::is_null) {
                self.fail(LEGACY_FALLBACK, at(Rule::L3, "request/header data is null or absent (upstream's fallback scan fails with an internal type error)".into()));
            } else if check::envelope::is_fallback_reason(ev.data) {
                self.fail(
                    LEGACY_FALLBACK,
                    at(
                        Rule::L3,
                        "request/header with the retired reason \"fallback\"".into(),
                    ),
                );
            }
        }
        // P4: conversions, then M1–M8.
        // Built once, where it is returned from, and converted in place.
        let mut logical = Logical::stored(ev);
        if dialect.legacy_conversions
            && let Err((rule, message)) =
                check::legacy::convert_in(&mut logical, id_body, message_id)
        {
            self.fail(CONVERT, at(rule, message));
            logical = Logical::stored(ev);
        }
        let is_message = matches!(
            logical.type_str(),
            "user/message"
                | "assistant/message"
                | "tool/result"
                | "system/message"
                | "developer/message"
        ) && dialect.is_surface_type(logical.type_str());
        // Messages are checked here, in HEAD's conversion stage (§6.5), and only here: a
        // failure decides that stage, so the per-event stage never sees a broken message.
        if is_message
            && !self.decided_before(CONVERT + 1)
            && let Err((rule, message)) = check::message::check_message_in(&logical, dialect)
        {
            self.fail(CONVERT, at(rule, message));
        }
        // P5: U1.
        if !self.decided_before(UNKNOWN) && check::envelope::is_unknown_required(&logical, dialect)
        {
            let ty = logical.ev.ty.map_or("absent", Json::raw);
            match dialect.unknown_types {
                    UnknownTypes::Refuse if dialect.generation > 0 => self.fail(
                        UNKNOWN,
                        at(Rule::U1, format!("unknown event type {ty} without ignorable: true: it is not in the released {} vocabulary, and DSH refuses it", dialect.era.name())),
                    ),
                UnknownTypes::Refuse => self.fail(
                    UNKNOWN,
                    at(
                        Rule::U1,
                        crate::event::unknown_type_message(ty, logical.type_str()),
                    ),
                ),
                UnknownTypes::Warn => {
                    if self.unknown_seen.insert(ty.to_owned()) {
                        let mut w = at(
                            Rule::W3,
                            format!(
                                "event type {ty} is not in this reader's {} vocabulary and not marked ignorable; it is read as opaque",
                                dialect.era.name()
                            ),
                        );
                        w.class = Class::Warning;
                        warnings.push(w);
                    }
                }
                UnknownTypes::Accept => {}
            }
        }
        // P6: the closer scan dereferences data of three types.
        if check::envelope::breaks_closer_scan(&logical) {
            self.fail(
                CLOSER_SCAN,
                at(
                    Rule::E8,
                    format!(
                        "{} has null or absent data (the closer scan fails on it)",
                        logical.type_str()
                    ),
                ),
            );
        }
        logical
    }
}

/// P7's checks of one event before the fold (FORMAT.md §6.5): the envelope (E0–E6), the
/// request header (R1–R4, G7) and the contiguous seq (E7); `index` is its place in the log.
///
/// # Errors
/// The rule broken and what was found.
pub fn per_event_checks(
    logical: &Logical<'_>,
    index: u64,
    dialect: &Dialect,
) -> Result<(), check::Broken> {
    check::envelope::check_envelope(logical)?;
    let ty = logical.type_str();
    if ty == "request/header" {
        check::envelope::check_request_header(logical.data())?;
    }
    if ty == "request/header"
        && dialect.system_head
        && logical
            .data()
            .and_then(|d| d.get("header"))
            .is_some_and(|h| h.has("system"))
    {
        return Err((Rule::G7, "request/header.header.system is forbidden from v3 on: the system prompt is a system/message".into()));
    }
    if ty == "request/header" && check::envelope::is_fallback_reason(logical.data()) {
        return Err((
            Rule::R4,
            "request/header reason \"fallback\" is retired".into(),
        ));
    }
    let seq = logical.ev.seq_value().unwrap_or(index);
    if seq != index {
        return Err((
            Rule::E7,
            format!("seed must be contiguous from 0: seq {seq} at index {index}"),
        ));
    }
    Ok(())
}
