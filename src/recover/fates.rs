//! What became of every record, across the sessions: what was dropped, changed and lost
//! ([`super::Recovery`]'s lists), and where each line of the original went ([`LineFate`]).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use super::assemble::Kept;
use super::branch::Recovered;
use super::edit::Edit;
use super::note::Quotes;
use super::stored::{Item, Stored};
use super::writers;
use super::{Changed, Dropped, Fates, LineFate, MemberChange, Unrecoverable};
use crate::rules::Rule;

/// What was dropped, changed and lost, across the sessions, and where each line went.
pub(super) fn describe(
    stored: &Stored,
    split: &writers::Split,
    results: &[(usize, String, PathBuf, Recovered)],
    quotes: &Quotes<'_>,
) -> Fates {
    let mut out = Fates::default();
    let all: Vec<String> = results.iter().map(|(_, id, _, _)| id.clone()).collect();
    // Defects of the file itself: every session lacks them.
    for item in &stored.items {
        if let Item::Hole(h) = item {
            let torn_tail = matches!(h.rule, Rule::J2 | Rule::Z3);
            out.unrecoverable.push(Unrecoverable {
                lines: h.line.filter(|_| h.lines > 0).map(|l| (l, l + h.lines - 1)),
                bytes: h.bytes,
                rule: Some(h.rule),
                why: h.why.clone(),
                torn_tail,
                copy_of: None,
                sessions: all.clone(),
            });
        }
    }
    for stray in &split.strays {
        let Some(r) = stored.record(stray.item) else {
            continue;
        };
        if stray.copy_of.is_some() {
            out.unrecoverable.push(Unrecoverable {
                lines: Some((r.line, r.line)),
                bytes: None,
                rule: Some(Rule::J4),
                why: stray.why.clone(),
                torn_tail: false,
                copy_of: stray.copy_of,
                sessions: all.clone(),
            });
        } else {
            merge_lost(&mut out.unrecoverable, r.line, None, &stray.why, &all);
        }
    }
    let mut kept: BTreeMap<usize, Kept> = BTreeMap::new();
    for (_, _, _, r) in results {
        for &(i, how) in &r.candidate.kept {
            kept.entry(i).or_insert(how);
        }
    }
    for (&i, &how) in &kept {
        let k = &mut out.kept;
        k.records += 1;
        k.events += stored.record(i).map_or(0, |r| r.count);
        match how {
            Kept::Verbatim => k.verbatim += 1,
            Kept::Renumbered => k.renumbered += 1,
            Kept::Changed => k.changed += 1,
        }
    }
    let mut dropped: BTreeMap<usize, Dropped> = BTreeMap::new();
    let mut changed: BTreeMap<(u64, String), Changed> = BTreeMap::new();
    for (_, id, _, r) in results {
        for lost in &r.candidate.lost {
            let lines: Vec<u64> = lost
                .items
                .iter()
                .filter_map(|&i| stored.record(i).map(|x| x.line))
                .collect();
            if lines.is_empty() {
                out.unrecoverable.push(Unrecoverable {
                    lines: None,
                    bytes: None,
                    rule: lost.rule,
                    why: lost.why(),
                    torn_tail: false,
                    copy_of: None,
                    sessions: vec![id.clone()],
                });
            }
            for line in lines {
                merge_lost(
                    &mut out.unrecoverable,
                    line,
                    lost.rule,
                    &lost.why(),
                    std::slice::from_ref(id),
                );
            }
        }
        for (i, f) in &r.drops {
            let Some(rec) = stored.record(*i) else {
                continue;
            };
            dropped
                .entry(*i)
                .or_insert_with(|| Dropped {
                    record: rec.clone(),
                    why: format!(
                        "{} {}; it is log-only (no surfaceOp): the model never saw it",
                        f.rule.id(),
                        f.message
                    ),
                    sessions: Vec::new(),
                })
                .sessions
                .push(id.clone());
        }
        for c in &r.changes {
            let (line, seq) = match c.item.and_then(|i| stored.record(i)) {
                Some(rec) => (rec.line, Some(rec.seq)),
                None => (1, None),
            };
            let member = c.edit.path().to_string();
            changed
                .entry((line, member.clone()))
                .or_insert_with(|| Changed {
                    line,
                    seq,
                    change: MemberChange {
                        member,
                        before: c.before.clone(),
                        after: match &c.edit {
                            Edit::Set(_, v) => Some(v.clone()),
                            Edit::Remove(_) => None,
                        },
                    },
                    rule: c.finding.rule,
                    why: c.finding.message.clone(),
                    sessions: Vec::new(),
                })
                .sessions
                .push(id.clone());
        }
    }
    out.dropped = dropped.into_values().collect();
    out.changed = changed.into_values().collect();
    out.lines = fates(&out, stored, split, results, quotes);
    out
}

/// Where each line of the original went ([`LineFate`]).
fn fates(
    told: &Fates,
    stored: &Stored,
    split: &writers::Split,
    results: &[(usize, String, PathBuf, Recovered)],
    quotes: &Quotes<'_>,
) -> Vec<LineFate> {
    let all: Vec<String> = results.iter().map(|(_, id, _, _)| id.clone()).collect();
    // Each session's kept records and lost ones, by item: the first entry of each, as a
    // search of the session's lists in order finds it.
    let kept_by: Vec<HashMap<usize, Kept>> = (results.iter())
        .map(|(_, _, _, rec)| {
            let mut by = HashMap::new();
            for &(k, how) in &rec.candidate.kept {
                by.entry(k).or_insert(how);
            }
            by
        })
        .collect();
    let lost_by: Vec<HashMap<usize, usize>> = (results.iter())
        .map(|(_, _, _, rec)| {
            let mut by = HashMap::new();
            for (n, l) in rec.candidate.lost.iter().enumerate() {
                for &k in &l.items {
                    by.entry(k).or_insert(n);
                }
            }
            by
        })
        .collect();
    let header_changed = told.changed.iter().any(|c| c.seq.is_none());
    let headless = stored.rebuilt.as_ref().is_some_and(|r| r.first_is_record);
    let mut out = vec![match &stored.rebuilt {
        Some(r) => LineFate {
            line: Some(1),
            seq: None,
            went: "rebuilt",
            sessions: all.clone(),
            why: Some(if r.assumed.is_empty() {
                r.why.clone()
            } else {
                format!("{}; {}", r.why, r.assumed.join("; "))
            }),
        },
        None => LineFate {
            line: Some(1),
            seq: None,
            went: if header_changed { "changed" } else { "kept" },
            sessions: all.clone(),
            why: header_changed.then(|| "its new id, and the changes in changed[]".to_owned()),
        },
    }];
    if headless {
        // Line 1 is a record, told below; the header it lacked is in the note.
        out.clear();
    }
    for (i, item) in stored.items.iter().enumerate() {
        let r = match item {
            Item::Hole(h) => {
                let torn = matches!(h.rule, Rule::J2 | Rule::Z3);
                let noted = h.text.is_some() && noted_everywhere(results);
                out.push(LineFate {
                    line: h.line,
                    seq: None,
                    went: match (torn, noted) {
                        (true, _) => "torn tail",
                        (false, true) => "noted",
                        (false, false) => "lost",
                    },
                    sessions: all.clone(),
                    why: Some(format!(
                        "{} {}{}",
                        h.rule.id(),
                        h.why,
                        if noted { "; the note quotes it" } else { "" }
                    )),
                });
                continue;
            }
            Item::Record(r) => r,
        };
        let holders: Vec<(&String, Kept)> = (results.iter().zip(&kept_by))
            .filter_map(|((_, id, _, _), kept)| kept.get(&i).map(|how| (id, *how)))
            .collect();
        let fate = |went, sessions, why| LineFate {
            line: Some(r.line),
            seq: Some(r.seq),
            went,
            sessions,
            why,
        };
        if let Some(&(_, how)) = holders.first() {
            let went = if holders.iter().any(|(_, h)| *h == Kept::Changed) {
                "changed"
            } else if holders.iter().any(|(_, h)| *h == Kept::Renumbered) {
                "renumbered"
            } else {
                match how {
                    Kept::Verbatim => "kept",
                    Kept::Renumbered => "renumbered",
                    Kept::Changed => "changed",
                }
            };
            out.push(fate(
                went,
                holders.iter().map(|(id, _)| (*id).clone()).collect(),
                None,
            ));
            continue;
        }
        if let Some(d) = told.dropped.iter().find(|d| d.record.line == r.line) {
            let went = if quotes.of(i).is_empty() || !noted_everywhere(results) {
                "left out"
            } else {
                "noted"
            };
            out.push(fate(went, d.sessions.clone(), Some(d.why.clone())));
            continue;
        }
        if let Some(stray) = split.strays.iter().find(|x| x.item == i) {
            // A stray's messages are quoted in every note; a stray without one holds
            // nothing of the conversation.
            let went = if stray.copy_of.is_some() {
                "copy"
            } else if quotes.of(i).is_empty() {
                "left out"
            } else if noted_everywhere(results) {
                "noted"
            } else {
                "lost"
            };
            out.push(fate(went, all.clone(), Some(stray.why.clone())));
            continue;
        }
        let lost: Vec<(&String, &Recovered, String)> = (results.iter().zip(&lost_by))
            .filter_map(|((_, id, _, rec), lost)| {
                lost.get(&i)
                    .map(|&k| (id, rec, rec.candidate.lost[k].why()))
            })
            .collect();
        let why = lost.first().map(|(_, _, why)| why.clone());
        let message = !quotes.of(i).is_empty();
        let noted =
            message && !lost.is_empty() && lost.iter().all(|(_, rec, _)| rec.note.is_some());
        // A record that holds no message (a lifecycle record, a call DSH also keeps in
        // the assistant message, a chunk) is left out without a loss to the conversation.
        let went = match (message, noted, lost.is_empty()) {
            (true, true, _) => "noted",
            (false, _, false) => "left out",
            _ => "lost",
        };
        out.push(fate(
            went,
            if lost.is_empty() {
                all.clone()
            } else {
                lost.iter().map(|(id, _, _)| (*id).clone()).collect()
            },
            why.or_else(|| Some("no session holds it".to_owned())),
        ));
    }
    out
}

/// True when every session made ends with a note (which quotes what none holds).
fn noted_everywhere(results: &[(usize, String, PathBuf, Recovered)]) -> bool {
    !results.is_empty() && results.iter().all(|(_, _, _, r)| r.note.is_some())
}

/// Adds `line` to the unrecoverable entry just before it with the same reason and
/// sessions, or starts one.
fn merge_lost(
    list: &mut Vec<Unrecoverable>,
    line: u64,
    rule: Option<Rule>,
    why: &str,
    sessions: &[String],
) {
    for entry in list.iter_mut().rev() {
        if entry.why == why && entry.rule == rule {
            if let Some((_, last)) = entry.lines.as_mut()
                && *last + 1 == line
            {
                *last = line;
                for s in sessions {
                    if !entry.sessions.contains(s) {
                        entry.sessions.push(s.clone());
                    }
                }
                return;
            }
            if entry.lines.is_some_and(|(a, b)| (a..=b).contains(&line)) {
                for s in sessions {
                    if !entry.sessions.contains(s) {
                        entry.sessions.push(s.clone());
                    }
                }
                return;
            }
        }
    }
    list.push(Unrecoverable {
        lines: Some((line, line)),
        bytes: None,
        rule,
        why: why.to_owned(),
        torn_tail: false,
        copy_of: None,
        sessions: sessions.to_vec(),
    });
}
