//! What a recovery does with a record DSH refuses (GENERATIONS §4–§7 for the F rules):
//! drop it when its type is one no DSH loads (a plugin's own type), change it when the
//! frozen edge's own rules admit exactly one smallest change, else cut it out as a defect,
//! saying why. The candidates proposed here are only candidates: the planner keeps one only
//! when it is the one change among them that makes the record pass the checks.
//!
//! The changes a rule admits:
//!
//! * F2 `has unexpected member "X"`: take out the member `X` (the frozen payload rules list
//!   exactly the members of each type; one more is never needed by DSH);
//! * F4 a `subagent/descriptor` of version 2: version 3, when its members are those of a
//!   version-3 descriptor (DSH's descriptor module: "supporting another composition input
//!   is a deliberate version change, never an implicit extra field",
//!   tenyi/deepseek-harness @ `77afa3438160c9b45d81277b1fa64e9edcd9416d`,
//!   `packages/subagent/subagent/src/descriptor.ts`);
//! * F3 on a number written as negative zero (`-0`): `0`, the same number to JSON.parse;
//! * H5 and F2 on the header: take out the retired or unexpected header member;
//! * E8 on a `turn/start` or `step/start` whose `data` is null or absent: the `data` DSH
//!   writes for it, `{turn}` or `{turn, step}`, numbered from the records before it (the
//!   turn after the last one started; the step after the last one of its turn) — what
//!   DSH's own lifecycle makes of it, not content;
//! * L4 on a pre-react-loop `turn/start` whose `trigger` DSH cannot convert: take out the
//!   `trigger` (§9.3.2 converts a valid one to `{turn}` alone).
//!
//! Nothing else is changed: a missing member, a value outside its list, a content kind the
//! edge cannot classify, events out of their lifecycle, a broken reference would each need
//! content the log does not hold.

use crate::event::Era;
use crate::json::Json;
use crate::recover::edit::{Edit, MemberPath, Object, members_named, negative_zeros, value_at};
use crate::recover::stored::{Record, Stored};
use crate::rules::{Finding, Rule};

/// What to do with a record a check refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Try each change; keep the one that makes the record pass, if exactly one does.
    Change(Vec<Edit>),
    /// Leave every record of this type out (with `required_only`: those without
    /// `ignorable: true`), without a break: DSH refuses the type, and such records are
    /// log-only (S2: no plugin type carries a `surfaceOp`).
    Drop {
        /// The event type.
        ty: String,
        /// Only records not marked `ignorable: true`.
        required_only: bool,
    },
    /// Cut the record out as a defect; why.
    Cut(String),
}

/// The member an F2 message names as unexpected: `… has unexpected member "origin"`.
fn unexpected_member(message: &str) -> Option<String> {
    let rest = message.split("unexpected member \"").nth(1)?;
    let end = rest.find('"')?;
    Some(rest[..end].to_owned())
}

/// What to do with record `r`, which the check behind `finding` refuses, in a log of `era`.
pub fn decide(finding: &Finding, r: &Record, era: Era) -> Decision {
    let message = finding.message.as_str();
    match finding.rule {
        Rule::F1 | Rule::W3 => Decision::Drop {
            ty: r.ty.clone(),
            required_only: false,
        },
        // A v3 log refuses an unknown type without `ignorable` only (v4 namespaces it).
        Rule::U1 => Decision::Drop {
            ty: r.ty.clone(),
            required_only: matches!(era, Era::V3 | Era::V4),
        },
        Rule::F2 => match unexpected_member(message) {
            Some(member) => {
                let found = members_named(&r.text, &MemberPath::of(&["data"]), &member);
                if found.is_empty() {
                    Decision::Cut(why(
                        finding,
                        "the member it names is not one recover can find in the record",
                    ))
                } else {
                    Decision::Change(found.into_iter().map(Edit::Remove).collect())
                }
            }
            None => Decision::Cut(why(
                finding,
                "the member it lacks is not in the log, and recover does not invent content",
            )),
        },
        Rule::F4 => {
            let version = MemberPath::of(&["data", "version"]);
            if value_at(&r.text, &version).and_then(|v| Json::parse(v).ok()?.as_f64()) == Some(2.0)
            {
                Decision::Change(vec![Edit::Set(version, "3".into())])
            } else {
                Decision::Cut(why(
                    finding,
                    "only version 2 has a version-3 form (the same members), and this is not version 2",
                ))
            }
        }
        Rule::F3 => {
            let zeros = negative_zeros(&r.text);
            if zeros.is_empty() {
                Decision::Cut(why(
                    finding,
                    "the edge admits other values only, and which one was meant cannot be told",
                ))
            } else {
                Decision::Change(
                    zeros
                        .into_iter()
                        .map(|p| Edit::Set(p, "0".into()))
                        .collect(),
                )
            }
        }
        rule => Decision::Cut(why(finding, class_why(rule))),
    }
}

/// What to do with the record at index `i` of `stored` (of the branch `records`), which the
/// check behind `finding` refuses: [`decide`], and for E8 on a `turn/start` or
/// `step/start` the `data` its place in the lifecycle says.
pub fn decide_in(finding: &Finding, stored: &Stored, records: &[usize], i: usize) -> Decision {
    let Some(r) = stored.record(i) else {
        return Decision::Cut(why(finding, "it is not a record"));
    };
    match (finding.rule, r.ty.as_str()) {
        (Rule::E8, "turn/start" | "step/start") if !r.packed => {
            let (turn, step) = lifecycle_before(stored, records, i);
            let data = if r.ty == "turn/start" {
                format!(r#"{{"turn":{}}}"#, turn + 1)
            } else if turn == 0 {
                return Decision::Cut(why(finding, "no turn is started before it"));
            } else {
                format!(r#"{{"turn":{turn},"step":{}}}"#, step + 1)
            };
            Decision::Change(vec![Edit::Set(MemberPath::of(&["data"]), data)])
        }
        (Rule::L4, "turn/start") => {
            let trigger = MemberPath::of(&["data", "trigger"]);
            if value_at(&r.text, &trigger).is_some() {
                Decision::Change(vec![Edit::Remove(trigger)])
            } else {
                decide(finding, r, stored.era)
            }
        }
        _ => decide(finding, r, stored.era),
    }
}

/// The turn last started before record `i` of the branch (0 for none) and the last step
/// started in it (0 for none), as the records before it number them: each `turn/start` says
/// its turn or counts one on, each `step/start` its step or counts one on, and a turn starts
/// its steps over. Read backwards from `i`: the turns back to the last one that says its
/// number, the steps back to the turn's start — only those `step/start` records are parsed.
fn lifecycle_before(stored: &Stored, records: &[usize], i: usize) -> (i64, i64) {
    let end = records
        .iter()
        .position(|&k| k == i)
        .unwrap_or(records.len());
    let before = || {
        records[..end]
            .iter()
            .rev()
            .filter_map(|&k| stored.record(k))
    };
    let mut counted = 0;
    let mut turn = None;
    for r in before().filter(|r| r.ty == "turn/start") {
        match r.turn {
            Some(t) => {
                turn = Some(t + counted);
                break;
            }
            None => counted += 1,
        }
    }
    let turn = turn.unwrap_or(counted);
    let mut counted = 0;
    let mut step = None;
    for r in before().take_while(|r| r.ty != "turn/start") {
        if r.ty != "step/start" {
            continue;
        }
        let said = Json::parse(&r.text).ok().and_then(|j| {
            j.get("data")
                .and_then(|d| d.get("step"))
                .and_then(Json::as_safe_integer)
        });
        match said {
            Some(s) => {
                step = Some(s + counted);
                break;
            }
            None => counted += 1,
        }
    }
    (turn, step.unwrap_or(counted))
}

/// Why a record of this rule cannot be changed into one DSH loads.
fn class_why(rule: Rule) -> &'static str {
    match rule {
        Rule::F5 => "the v2→v3 edge cannot classify it, and no kind it admits means the same",
        Rule::F6 => {
            "its turn, step or tool call is out of the lifecycle the edge checks; putting it in order would move or invent events"
        }
        Rule::F7 => {
            "its chunks cannot be embedded in one message, and recover does not rebuild streams"
        }
        Rule::F8 => {
            "the surface cannot take the system head there without changing the order of the conversation"
        }
        Rule::F9 => "the event it refers to is not in the log as the edge needs it",
        _ => "DSH refuses the record, and recover does not change what a record says",
    }
}

/// `<rule> <message>; <why>`: a cut record's reason.
fn why(finding: &Finding, because: &str) -> String {
    format!("{} {}; {because}", finding.rule.id(), finding.message)
}

/// The change that could make the header pass, for a finding on it: taking out the retired
/// policy members (H5), or the unexpected member an F2 names; `None` for any other finding.
pub fn header_change(finding: &Finding, header: &Object) -> Option<Vec<Edit>> {
    let names: &[&str] = match finding.rule {
        Rule::H5 => &["sandboxMode", "approvalPolicy"],
        Rule::F2 => &[],
        _ => return None,
    };
    let named = unexpected_member(&finding.message);
    let names: Vec<&str> = match &named {
        Some(n) if finding.rule == Rule::F2 => vec![n.as_str()],
        _ => names.to_vec(),
    };
    let edits: Vec<Edit> = names
        .iter()
        .filter(|n| header.get(n).is_some())
        .map(|n| Edit::Remove(MemberPath::of(&[n])))
        .collect();
    (!edits.is_empty()).then_some(edits)
}

/// Whether record `r` is one of those a [`Decision::Drop`] of `ty` leaves out.
pub fn dropped_by(r: &Record, ty: &str, required_only: bool) -> bool {
    r.ty == ty
        && !r.packed
        && (!required_only
            || Json::parse(&r.text)
                .ok()
                .and_then(|j| j.get("ignorable"))
                .is_none_or(|v| v.as_bool() != Some(true)))
}
