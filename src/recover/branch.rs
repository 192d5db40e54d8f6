//! One recovered session, from one writer's branch: assemble the records, check the result
//! as DSH 0.1.5+ and DSH 0.1.1 load it, and act on the first finding (change the record,
//! drop its type, or cut it out as a defect) until it passes; then finish it as `repair`
//! does (DSH's closers, with a provider the heals) and add the note that cites the
//! original. Every check reads the session in memory, as it would be stored at its path,
//! through the [`Check`] the branch is handed.

use crate::edge::{DshLine, Judge};
use crate::event::Era;
use crate::heal::Heal;
use crate::provider::Provider;
use crate::recover::assemble::{Candidate, Origin, Policy, assemble};
use crate::recover::edit::{Edit, Object, value_at};
use crate::recover::shapes::{Decision, decide_in, dropped_by, header_change};
use crate::recover::stored::Stored;
use crate::replay::Keep;
use crate::rules::{Finding, Rule};
use crate::scan::{Report, ScanError, ScanOptions};
use crate::view::View;
use crate::view::stats::Stats;

/// At most this many findings are acted on in one session: a log with more defects is not
/// recovered (each one costs a check of the whole session).
pub const MAX_FINDINGS: usize = 400;

/// A change made to a record, as the report lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The record changed (index into the stored items; `None` for the header).
    pub item: Option<usize>,
    /// The change.
    pub edit: Edit,
    /// The member's value before, as stored (raw JSON).
    pub before: Option<String>,
    /// The finding that asked for it.
    pub finding: Finding,
}

/// A branch recovered: the session's text and what was done to get it.
#[derive(Debug, Clone)]
pub struct Recovered {
    /// The assembled records (and closers at defects), before the end.
    pub candidate: Candidate,
    /// The whole session: the candidate, DSH's closers, the heals, the note.
    pub text: Vec<u8>,
    /// What was decided about the records.
    pub policy: Policy,
    /// Changes made, with the findings behind them.
    pub changes: Vec<Change>,
    /// Records dropped: index into the stored items, and the finding behind the drop.
    pub drops: Vec<(usize, Finding)>,
    /// The closers DSH appends at the end (FORMAT.md §5.2).
    pub closers: Vec<String>,
    /// With a provider: the heals (`repair --provider`).
    pub heals: Vec<Heal>,
    /// With a provider: what no heal fixes.
    pub unhealed: Vec<crate::heal::Unhealed>,
    /// The note that cites the original, when the session can hold one.
    pub note: Option<String>,
    /// Events in the session.
    pub events: u64,
}

/// The in-memory DSH a branch is checked by: one scan of a session's text, as it would be
/// stored at its path (its name decides G2 and H6), with these options, telling these views
/// ([`crate::scan::scan_text_with`]). Planning is handed it, as repair's planning is handed
/// its [`crate::repair::Scan`], and reads nothing else.
pub type Check<'a> =
    dyn Fn(&[u8], &ScanOptions, &mut [&mut dyn View]) -> Result<Report, ScanError> + 'a;

/// What the branch's checks read: the session's header, and how DSH loads it.
pub struct Target<'a> {
    /// The header line, new id in it, read once.
    pub header: Object,
    /// The session checked where it would be stored.
    pub check: &'a Check<'a>,
    /// Check as DSH 0.1.1 loads it too (not for the v0 alpha dialect DSH 0.1.1 refuses).
    pub both_lines: bool,
}

impl Target<'_> {
    /// The session of the branch `records` as `policy` decides it, under this header
    /// ([`assemble`]), the closers at its defects those the check computes.
    fn assembled(&self, stored: &Stored, records: &[usize], policy: &Policy) -> Candidate {
        let check = self.check;
        let mut closers_of = |text: &[u8]| -> Vec<String> {
            check(text, &options(DshLine::Current, true, Vec::new()), &mut [])
                .map(|r| r.closers)
                .unwrap_or_default()
        };
        assemble(stored, records, policy, self.header.text(), &mut closers_of)
    }
}

fn options(line: DshLine, append_closers: bool, then_append: Vec<String>) -> ScanOptions {
    ScanOptions {
        dsh: Judge {
            line,
            both_lines: false,
        },
        append_closers,
        then_append,
        ..ScanOptions::default()
    }
}

/// The first finding on `text` with the closers DSH appends (and `then_append` after them),
/// as DSH 0.1.5+ loads it, then as the DSH that writes its generation does (DSH 0.1.1 for
/// v0).
fn first_finding(
    target: &Target<'_>,
    text: &[u8],
    then_append: &[String],
) -> Result<Option<Finding>, ScanError> {
    let lines: &[DshLine] = if target.both_lines {
        // The writing DSH: DSH 0.1.1 for a v0 log (a v3 or v4 one it does not read at all).
        &[DshLine::Current, DshLine::Writer]
    } else {
        &[DshLine::Current]
    };
    for &line in lines {
        let report = (target.check)(text, &options(line, true, then_append.to_vec()), &mut [])?;
        if report.finding.is_some() {
            return Ok(report.finding);
        }
    }
    Ok(None)
}

/// Recovers the branch `records` of `stored` as the session `target` names.
///
/// # Errors
/// Why nothing of the branch can be recovered, in one sentence; a scan error as such.
///
/// Two sessions are planned: one that goes on after a defect with the next whole turn, one
/// that goes on with the very next record ([`Policy::go_on`]); the one that keeps more
/// messages (user, assistant, system messages and tool results) is taken, then the one
/// that keeps more records, then the one by whole turns.
pub fn recover_branch(
    stored: &Stored,
    records: &[usize],
    target: &mut Target<'_>,
    provider: Option<Provider>,
    note: &dyn Fn(&Candidate, &Policy) -> Option<String>,
) -> Result<Result<Recovered, String>, ScanError> {
    let header = target.header.clone();
    let by_turns = recover_branch_with(stored, records, target, provider, note, false)?;
    let turns_header = std::mem::replace(&mut target.header, header);
    let going_on = recover_branch_with(stored, records, target, provider, note, true)?;
    let score = |r: &Recovered| {
        let messages = (r.candidate.kept.iter())
            .filter(|(i, _)| {
                stored
                    .record(*i)
                    .is_some_and(|x| x.ty.ends_with("/message") || x.ty == "tool/result")
            })
            .count();
        (messages, r.candidate.kept.len())
    };
    Ok(match (by_turns, going_on) {
        (Ok(a), Ok(b)) if score(&b) > score(&a) => Ok(b),
        (Ok(a), _) => {
            target.header = turns_header;
            Ok(a)
        }
        (Err(_), Ok(b)) => Ok(b),
        (Err(why), Err(_)) => {
            target.header = turns_header;
            Err(why)
        }
    })
}

fn recover_branch_with(
    stored: &Stored,
    records: &[usize],
    target: &mut Target<'_>,
    provider: Option<Provider>,
    note: &dyn Fn(&Candidate, &Policy) -> Option<String>,
    go_on: bool,
) -> Result<Result<Recovered, String>, ScanError> {
    let mut policy = Policy {
        go_on,
        ..Policy::default()
    };
    let mut changes: Vec<Change> = Vec::new();
    let mut drops: Vec<(usize, Finding)> = Vec::new();
    let mut acted = 0;
    let candidate = loop {
        let candidate = target.assembled(stored, records, &policy);
        let Some(finding) = first_finding(target, &candidate.text, &[])? else {
            break candidate;
        };
        acted += 1;
        if acted > MAX_FINDINGS {
            return Ok(Err(format!(
                "more than {MAX_FINDINGS} records would have to be changed, dropped or cut out; the last: {} {}",
                finding.rule.id(),
                finding.message
            )));
        }
        let origin = finding.line.and_then(|l| candidate.origin(l));
        match origin {
            Some(Origin::Header) => {
                let Some(edits) = header_change(&finding, &target.header) else {
                    return Ok(Err(format!(
                        "its header is refused: {} {}",
                        finding.rule.id(),
                        finding.message
                    )));
                };
                let (header, before) = target.header.changed(&edits);
                for (edit, before) in edits.into_iter().zip(before) {
                    changes.push(Change {
                        item: None,
                        before,
                        edit,
                        finding: finding.clone(),
                    });
                }
                target.header = header;
            }
            Some(Origin::Record(i)) => {
                let Some(r) = stored.record(i) else {
                    unreachable!("origins are records")
                };
                match decide_in(&finding, stored, records, i) {
                    Decision::Drop { ty, required_only } => {
                        for &k in records {
                            if let Some(other) = stored.record(k)
                                && dropped_by(other, &ty, required_only)
                                && policy.dropped.insert(k)
                            {
                                drops.push((k, finding.clone()));
                            }
                        }
                        if !policy.dropped.contains(&i) {
                            policy.cut.insert(
                                i,
                                (
                                    finding.rule,
                                    format!("{} {}", finding.rule.id(), finding.message),
                                ),
                            );
                        }
                    }
                    Decision::Change(mut candidates) => {
                        // A member already changed is not changed again.
                        let done = policy.edits.get(&i).cloned().unwrap_or_default();
                        candidates.retain(|c| done.iter().all(|d| d.path() != c.path()));
                        match the_one_change(
                            stored,
                            records,
                            &policy,
                            target,
                            &finding,
                            i,
                            &candidates,
                        )? {
                            Ok(edit) => {
                                for k in same_change(stored, records, i, &edit) {
                                    let text = &stored.record(k).expect("a record").text;
                                    changes.push(Change {
                                        item: Some(k),
                                        before: value_at(text, edit.path()).map(str::to_owned),
                                        edit: edit.clone(),
                                        finding: finding.clone(),
                                    });
                                    policy.edits.entry(k).or_default().push(edit.clone());
                                }
                            }
                            Err(why) => {
                                policy.cut.insert(i, (finding.rule, why));
                            }
                        }
                    }
                    Decision::Cut(_)
                        if finding.rule == Rule::F8
                            && policy.go_on
                            && r.ty == "user/message"
                            && policy.opened.insert(i) => {}
                    Decision::Cut(why) => {
                        if policy.cut.insert(i, (finding.rule, why)).is_some() {
                            return Ok(Err(format!(
                                "line {} stays refused after it was cut out: {} {}",
                                r.line,
                                finding.rule.id(),
                                finding.message
                            )));
                        }
                    }
                }
            }
            Some(Origin::Closer(Some(next))) => {
                // The closers written at a defect fail: the session ends at that defect.
                let why = format!(
                    "the closers DSH would write before it fail: {} {}",
                    finding.rule.id(),
                    finding.message
                );
                if policy.cut.insert(next, (finding.rule, why)).is_some() {
                    return Ok(Err(format!("{} {}", finding.rule.id(), finding.message)));
                }
            }
            _ => {
                return Ok(Err(format!(
                    "{} {} (recover cannot change what it concerns)",
                    finding.rule.id(),
                    finding.message
                )));
            }
        }
    };
    finish(
        stored, target, candidate, policy, changes, drops, provider, note,
    )
}

/// The one change among `candidates` after which record `i` is no longer the record the
/// checks refuse first (`finding` refused it), or why there is none.
fn the_one_change(
    stored: &Stored,
    records: &[usize],
    policy: &Policy,
    target: &Target<'_>,
    finding: &Finding,
    i: usize,
    candidates: &[Edit],
) -> Result<Result<Edit, String>, ScanError> {
    let mut passing = Vec::new();
    for edit in candidates {
        let mut trial = policy.clone();
        trial.edits.entry(i).or_default().push(edit.clone());
        let c = target.assembled(stored, records, &trial);
        // The change passes when the record is no longer the one refused first.
        let after = first_finding(target, &c.text, &[])?;
        let still = after
            .as_ref()
            .is_some_and(|f| f.line.and_then(|l| c.origin(l)) == Some(Origin::Record(i)));
        if !still {
            passing.push(edit.clone());
        }
    }
    let what = format!("{} {}", finding.rule.id(), finding.message);
    Ok(match passing.len() {
        1 => Ok(passing.remove(0)),
        0 => Err(format!(
            "{what}; no change the edge's rules admit makes it pass"
        )),
        n => Err(format!(
            "{what}; {n} different changes would each make it pass, and which one is meant cannot be told"
        )),
    })
}

/// The records of the branch the same change applies to: `i`, and every later record of
/// its type whose member at the same path holds the same value.
fn same_change(stored: &Stored, records: &[usize], i: usize, edit: &Edit) -> Vec<usize> {
    let Some(r) = stored.record(i) else {
        return Vec::new();
    };
    // A whole `data` rebuilt (E8) is numbered for its own place in the lifecycle.
    if edit.path().0.len() == 1 {
        return vec![i];
    }
    let value = value_at(&r.text, edit.path());
    records
        .iter()
        .copied()
        .filter(|&k| {
            k == i
                || (k > i
                    && stored.record(k).is_some_and(|o| {
                        o.ty == r.ty && value.is_some() && value_at(&o.text, edit.path()) == value
                    }))
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn finish(
    stored: &Stored,
    target: &Target<'_>,
    candidate: Candidate,
    policy: Policy,
    changes: Vec<Change>,
    drops: Vec<(usize, Finding)>,
    provider: Option<Provider>,
    note: &dyn Fn(&Candidate, &Policy) -> Option<String>,
) -> Result<Result<Recovered, String>, ScanError> {
    if candidate.kept.is_empty() {
        return Ok(Err(
            "no record comes before its first defect: there is nothing to put in a session".into(),
        ));
    }
    let check = target.check;
    let base = candidate.text.clone();
    let closed = options(DshLine::Current, true, Vec::new());
    let mut turns = Stats::with_turn_rows();
    let mut rules = crate::view::provider::ProviderRules::default();
    let report = check(&base, &closed, &mut [&mut turns, &mut rules])?;
    let mut heals = Vec::new();
    let mut unhealed = Vec::new();
    if let Some(provider) = provider {
        let mut driver = |o: &ScanOptions, views: &mut [&mut dyn View]| check(&base, o, views);
        match crate::repair::healing::heals_for(
            &report,
            &turns,
            &closed,
            Keep::NOTHING,
            provider,
            &mut driver,
        ) {
            Ok(healed) => {
                heals = healed.heals;
                unhealed = healed.unhealed;
            }
            Err(e) => return Ok(Err(format!("the heals for {} fail: {e}", provider.name()))),
        }
    }
    let mut appended: Vec<String> = heals.iter().map(|h| h.record.clone()).collect();
    let events = report.events + appended.len() as u64;
    let time = report.open_turn.last_time.unwrap_or_default();
    let note = (turns.steps > 0 && stored.era != Era::June2026)
        .then(|| note(&candidate, &policy))
        .flatten()
        .map(|text| crate::recover::note::note_record(stored.era, events, time, &text));
    if let Some(n) = &note {
        appended.push(n.clone());
    }
    let mut note = note;
    if first_finding(target, &base, &appended)?.is_some() && note.is_some() {
        // The session cannot hold the note where it would go: it goes without.
        appended.pop();
        note = None;
    }
    if let Some(f) = first_finding(target, &base, &appended)? {
        return Ok(Err(format!(
            "the session DSH would finish fails: {} {}",
            f.rule.id(),
            f.message
        )));
    }
    let mut text = base;
    for line in report.closers.iter().chain(&appended) {
        text.extend_from_slice(line.as_bytes());
        text.push(b'\n');
    }
    // The whole session, read as DSH reads it where it would be stored.
    for line in [DshLine::Current, DshLine::Writer] {
        if line == DshLine::Writer && !target.both_lines {
            continue;
        }
        let read = check(&text, &options(line, false, Vec::new()), &mut [])?;
        if let Some(f) = read
            .finding
            .filter(|_| read.status != crate::scan::Status::Valid)
        {
            return Ok(Err(format!(
                "the recovered session would not validate as {} loads it ({} {}; please report this)",
                line.name(),
                f.rule.id(),
                f.message
            )));
        }
    }
    let events = events + u64::from(note.is_some());
    Ok(Ok(Recovered {
        candidate,
        text,
        policy,
        changes,
        drops,
        closers: report.closers,
        heals,
        unhealed,
        note,
        events,
    }))
}
