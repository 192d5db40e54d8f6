//! One recovered session's text, from the records of a branch and what the planner decided
//! about them (records changed, dropped, or cut out as defects): pure but for the closers,
//! which a driver computes as DSH does on load (FORMAT.md §5.2).
//!
//! The records before the first defect are kept as stored, byte for byte. At a defect (a
//! seq that jumps, a record cut out) the open turn is closed as DSH closes it on load
//! (`turn/end {interrupted}` and the closers before it), and what follows is kept from the
//! next `turn/start` that opens the turn DSH expects next: whole turns, their seqs and the
//! seqs they cite renumbered ([`crate::recover::refs`]), nothing else changed. A record that
//! cites an event the session does not hold is a defect too. Records between a defect and
//! that `turn/start` are lost, and said so.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::recover::edit::{Edit, splice};
use crate::recover::refs::{refs_of, renumbered};
use crate::recover::stored::{Item, Record, Stored};
use crate::rules::Rule;

/// What the planner decided about the records of a branch.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Changes made to records (indices into the stored items).
    pub edits: HashMap<usize, Vec<Edit>>,
    /// Records left out of the session without a break (event types no DSH loads).
    pub dropped: HashSet<usize>,
    /// Records cut out as defects: the rule and why.
    pub cut: BTreeMap<usize, (Rule, String)>,
    /// Go on after a defect with the very next record ([`assemble`]), instead of closing
    /// the turn it breaks and going on with the next whole turn.
    pub go_on: bool,
    /// Messages on the surface before the first step (F8: the v2→v3 edge cannot put the
    /// system head before them), each opened with a turn and step of its own as DSH
    /// writes user input (a `turn/start` and a `step/start` right before it, FORMAT.md
    /// §2.6) — or only a step, the turn's next, when a turn is open; with
    /// [`Policy::go_on`] only.
    pub opened: HashSet<usize>,
}

/// Where a line of a recovered session comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The header.
    Header,
    /// A stored record (index into the stored items).
    Record(usize),
    /// A closer written at a defect to end the turn it interrupted, before the record
    /// (index into the stored items) the session goes on with, if any.
    Closer(Option<usize>),
}

/// How a record is in the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// Byte for byte as stored.
    Verbatim,
    /// With new seqs (its own, and those it cites); nothing else changed.
    Renumbered,
    /// Changed where the planner said (and perhaps renumbered).
    Changed,
}

/// Records of the branch not in the session after a defect, together, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lost {
    /// The records (indices into the stored items), in order: the defect's own record when
    /// it is one, then those up to where the session goes on.
    pub items: Vec<usize>,
    /// The rule of the defect, when one is known.
    pub rule: Option<Rule>,
    /// The defect, in one sentence that starts with its line.
    pub cause: String,
    /// The turn the session goes on with, after the defect.
    pub expect: i64,
    /// True when that turn starts later in the branch (else nothing after the defect is
    /// kept).
    pub resumed: bool,
    /// True when only these records are left out and the session goes on with the record
    /// after them ([`Policy::go_on`]).
    pub alone: bool,
}

impl Lost {
    /// Why the records are lost.
    pub fn why(&self) -> String {
        if self.alone {
            format!(
                "{}; it is left out, and the session goes on with the record after it",
                self.cause
            )
        } else if self.resumed {
            format!(
                "{}; what follows it until turn {} starts is not kept (a turn is kept whole, or up to its first defect)",
                self.cause, self.expect
            )
        } else {
            format!(
                "{}; no turn {} starts after it, so nothing after it can be kept in the order DSH checks",
                self.cause, self.expect
            )
        }
    }
}

/// A recovered session's text before the closers of its end (those the final check
/// computes), and what each line is.
#[derive(Debug, Clone, Default)]
pub struct Candidate {
    /// The decoded JSONL text: the header, then one record per line.
    pub text: Vec<u8>,
    /// What each line is (index 0: line 1, the header).
    pub origins: Vec<Origin>,
    /// How each kept record is kept, in order.
    pub kept: Vec<(usize, Kept)>,
    /// The closers written at defects, each after the stored item it follows.
    pub closers: Vec<(usize, Vec<String>)>,
    /// What of the branch is lost.
    pub lost: Vec<Lost>,
    /// Events in the text (its next seq).
    pub events: u64,
    /// The records given a turn and step of their own ([`Policy::opened`]).
    pub opened: Vec<usize>,
}

impl Candidate {
    /// A candidate holding only `header` (its line 1).
    fn started(header: &str) -> Candidate {
        Candidate {
            text: format!("{header}\n").into_bytes(),
            origins: vec![Origin::Header],
            ..Candidate::default()
        }
    }

    /// Appends `closers` (the records DSH writes on load for the open turn), each marked
    /// `origin`, and notes them as appended after item `after`.
    fn close_turn(&mut self, closers: Vec<String>, origin: Origin, after: usize) {
        for line in &closers {
            self.text.extend_from_slice(line.as_bytes());
            self.text.push(b'\n');
            self.origins.push(origin);
            self.events += 1;
        }
        if !closers.is_empty() {
            self.closers.push((after, closers));
        }
    }

    /// What line `line` (1-based) of the text is.
    pub fn origin(&self, line: u64) -> Option<Origin> {
        usize::try_from(line)
            .ok()?
            .checked_sub(1)
            .and_then(|i| self.origins.get(i))
            .copied()
    }
}

/// Computes the closers DSH appends on load to the log `text` (header and records, a
/// complete JSONL text), one compact record each; none when no turn is open.
pub type ClosersOf<'a> = dyn FnMut(&[u8]) -> Vec<String> + 'a;

/// Old seqs of kept records → their new seqs.
#[derive(Default)]
struct SeqMap(BTreeMap<u64, (u64, u64)>);

impl SeqMap {
    fn insert(&mut self, old: u64, count: u64, new: u64) {
        self.0.insert(old, (count, new));
    }

    fn get(&self, old: u64) -> Option<u64> {
        let (&first, &(count, new)) = self.0.range(..=old).next_back()?;
        (old < first + count).then(|| new + (old - first))
    }
}

/// The record's text in the session at seq `at`, and how it is kept; `Err` with why when
/// it cites an event the session does not hold (or is written so that it cannot be
/// renumbered).
fn placed(
    r: &Record,
    edits: Option<&Vec<Edit>>,
    at: u64,
    map: &SeqMap,
) -> Result<(Vec<u8>, Kept), String> {
    let refs = refs_of(&r.text, &r.ty, r.packed);
    if refs.unreadable {
        return Err("a seq it cites is not a seq".into());
    }
    let edits = edits.map(Vec::as_slice).unwrap_or_default();
    let same = at == r.seq
        && refs.cited.iter().all(|c| map.get(c.seq) == Some(c.seq))
        && refs.cited.iter().all(|c| {
            c.pair_end
                .as_ref()
                .is_none_or(|(_, e)| map.get(*e) == Some(*e))
        });
    if same && edits.is_empty() {
        return Ok((r.bytes().to_vec(), Kept::Verbatim));
    }
    let splices = edits.iter().filter_map(|e| splice(&r.text, e)).collect();
    let lookup = |s: u64| map.get(s);
    match renumbered(&r.text, &refs, at, &lookup, splices) {
        Some(text) => {
            let kept = if edits.is_empty() {
                Kept::Renumbered
            } else {
                Kept::Changed
            };
            Ok((text.into_bytes(), kept))
        }
        None => {
            let missing = refs
                .cited
                .iter()
                .flat_map(|c| std::iter::once(c.seq).chain(c.pair_end.as_ref().map(|(_, e)| *e)))
                .find(|&s| map.get(s).is_none());
            Err(match missing {
                Some(s) => {
                    format!("it cites seq {s}, an event the recovered session does not hold")
                }
                None => "a range of seqs it cites is not whole in the recovered session".into(),
            })
        }
    }
}

/// Where the session is at in the records of its branch.
enum Mode {
    /// Keeping records.
    Keeping,
    /// After a defect, looking for the `turn/start` of turn `expect`.
    Skipping { expect: i64 },
}

/// Assembles the session of the branch `records` (indices into `stored.items`) under
/// `header` (its first line, without newline): by whole turns after a defect, or with
/// [`Policy::go_on`] record by record.
pub fn assemble(
    stored: &Stored,
    records: &[usize],
    policy: &Policy,
    header: &str,
    closers_of: &mut ClosersOf<'_>,
) -> Candidate {
    if policy.go_on {
        assemble_going_on(stored, records, policy, header, closers_of)
    } else {
        assemble_by_turns(stored, records, policy, header, closers_of)
    }
}

/// After a defect the session goes on with the next record: a seq that jumps or repeats
/// is renumbered (the record is kept, [`Kept::Renumbered`]), a record cut out or one that
/// cites an event the session does not hold is left out alone (a [`Lost`] of that one
/// record), and the planner's next check says whether what follows still loads. A
/// `turn/start` that comes while a turn is still open (its end was left out) is preceded by
/// the closers DSH writes on load for the open turn.
fn assemble_going_on(
    stored: &Stored,
    records: &[usize],
    policy: &Policy,
    header: &str,
    closers_of: &mut ClosersOf<'_>,
) -> Candidate {
    let mut c = Candidate::started(header);
    let mut map = SeqMap::default();
    let lost = |i: usize, rule: Option<Rule>, cause: String| Lost {
        items: vec![i],
        rule,
        cause,
        expect: 0,
        resumed: true,
        alone: true,
    };
    // The last turn started, and whether it is still open (openers go only between turns).
    let mut last_turn = 0i64;
    let mut in_turn = false;
    // Whether a step of the open turn is open, and how many it has started.
    let (mut in_step, mut steps) = (false, 0i64);
    for &i in records {
        let Some(r) = stored.record(i) else { continue };
        if policy.dropped.contains(&i) {
            continue;
        }
        // A turn/start refused because the turn before it is still open (F6) is kept, the
        // open turn closed before it as DSH closes it on load.
        let reopens =
            r.ty == "turn/start" && (policy.cut.get(&i)).is_some_and(|(rule, _)| *rule == Rule::F6);
        if let Some((rule, why)) = policy.cut.get(&i).filter(|_| !reopens) {
            c.lost
                .push(lost(i, Some(*rule), format!("line {}: {why}", r.line)));
            continue;
        }
        if r.ty == "turn/start" && (reopens || c.kept.last().is_some_and(|(k, _)| *k + 1 != i)) {
            // Something was left out before it: the turn it leaves open is closed first.
            let closers = closers_of(&c.text);
            let after = c.kept.last().map_or(i, |(k, _)| *k);
            c.close_turn(closers, Origin::Closer(Some(i)), after);
        }
        if policy.opened.contains(&i) && !in_turn {
            let turn = last_turn + 1;
            let time = r.time.unwrap_or_default();
            let at = c.events;
            let openers = vec![
                format!(
                    r#"{{"type":"turn/start","seq":{at},"time":{time},"data":{{"turn":{turn}}}}}"#
                ),
                format!(
                    r#"{{"type":"step/start","seq":{},"time":{time},"data":{{"turn":{turn},"step":1}}}}"#,
                    at + 1
                ),
            ];
            let after = c.kept.last().map_or(i, |(k, _)| *k);
            c.close_turn(openers, Origin::Closer(Some(i)), after);
            last_turn = turn;
            in_turn = true;
            (in_step, steps) = (true, 1);
            c.opened.push(i);
        } else if policy.opened.contains(&i) && !in_step {
            // In a turn but between its steps: a step of its own, the next of the turn.
            let step = steps + 1;
            let opener = format!(
                r#"{{"type":"step/start","seq":{},"time":{},"data":{{"turn":{last_turn},"step":{step}}}}}"#,
                c.events,
                r.time.unwrap_or_default()
            );
            let after = c.kept.last().map_or(i, |(k, _)| *k);
            c.close_turn(vec![opener], Origin::Closer(Some(i)), after);
            (in_step, steps) = (true, step);
            c.opened.push(i);
        }
        match placed(r, policy.edits.get(&i), c.events, &map) {
            Ok(p) => {
                match r.ty.as_str() {
                    "turn/start" => {
                        last_turn = r.turn.unwrap_or(last_turn + 1);
                        (in_turn, in_step, steps) = (true, false, 0);
                    }
                    "turn/end" => (in_turn, in_step) = (false, false),
                    "step/start" => (in_step, steps) = (true, steps + 1),
                    "step/end" => in_step = false,
                    _ => {}
                }
                keep(&mut c, &mut map, r, i, p)
            }
            Err(why) => c
                .lost
                .push(lost(i, None, format!("line {}: {why}", r.line))),
        }
    }
    c
}

/// At a defect, the turn it breaks is closed and the session goes on with the next whole
/// turn.
fn assemble_by_turns(
    stored: &Stored,
    records: &[usize],
    policy: &Policy,
    header: &str,
    closers_of: &mut ClosersOf<'_>,
) -> Candidate {
    let mut c = Candidate::started(header);
    let mut map = SeqMap::default();
    let mut mode = Mode::Keeping;
    let mut ends = 0i64;
    let mut prev_end: Option<u64> = None;
    let mut prev_item: Option<usize> = None;
    let mut last_kept: Option<usize> = None;
    for &i in records {
        let Some(r) = stored.record(i) else { continue };
        let expected = prev_end;
        prev_end = Some(r.end());
        // A hole between this record and the one before explains a seq gap here.
        let hole_before = prev_item.is_some_and(|p| {
            (p + 1..i).any(|k| matches!(stored.items.get(k), Some(Item::Hole(_))))
        });
        prev_item = Some(i);
        if policy.dropped.contains(&i) {
            continue;
        }
        // Why the record breaks the session here, if it does.
        let mut defect: Option<(Option<Rule>, String)> = None;
        if let Some((rule, why)) = policy.cut.get(&i) {
            defect = Some((Some(*rule), why.clone()));
        } else if let Some(e) = expected.filter(|&e| e != r.seq) {
            let why = if hole_before {
                format!(
                    "after the defect before it, the log goes on at seq {} where seq {e} was expected",
                    r.seq
                )
            } else {
                format!(
                    "at line {}, the log goes on at seq {} where seq {e} was expected: events are missing",
                    r.line, r.seq
                )
            };
            defect = Some((None, why));
        }
        let placement = if defect.is_none() && matches!(mode, Mode::Keeping) {
            match placed(r, policy.edits.get(&i), c.events, &map) {
                Ok(p) => Some(p),
                Err(why) => {
                    defect = Some((None, why));
                    None
                }
            }
        } else {
            None
        };
        if let Some((rule, why)) = defect.clone()
            && matches!(mode, Mode::Keeping)
        {
            // The turn the defect interrupts ends here, as DSH ends it on load.
            let closers = closers_of(&c.text);
            if closers
                .last()
                .is_some_and(|l| l.contains("\"type\":\"turn/end\""))
            {
                ends += 1;
            }
            c.close_turn(closers, Origin::Closer(None), last_kept.unwrap_or(i));
            mode = Mode::Skipping { expect: ends + 1 };
            c.lost.push(Lost {
                items: Vec::new(),
                rule,
                cause: why,
                expect: ends + 1,
                resumed: false,
                alone: false,
            });
        }
        if let Mode::Skipping { expect } = mode {
            let resumes =
                !policy.cut.contains_key(&i) && r.ty == "turn/start" && r.turn == Some(expect);
            if !resumes {
                if let Some(lost) = c.lost.last_mut() {
                    lost.items.push(i);
                }
                continue;
            }
            match placed(r, policy.edits.get(&i), c.events, &map) {
                Ok(p) => {
                    mode = Mode::Keeping;
                    if let Some(lost) = c.lost.last_mut() {
                        lost.resumed = true;
                    }
                    // A gap the hole before it explains loses nothing more than the hole.
                    if hole_before
                        && c.lost
                            .last()
                            .is_some_and(|l| l.items.is_empty() && l.rule.is_none())
                    {
                        c.lost.pop();
                    }
                    for o in c.origins.iter_mut().rev() {
                        match o {
                            Origin::Closer(next @ None) => *next = Some(i),
                            Origin::Closer(_) => {}
                            _ => break,
                        }
                    }
                    keep(&mut c, &mut map, r, i, p);
                    last_kept = Some(i);
                }
                Err(why) => {
                    if let Some(lost) = c.lost.last_mut() {
                        lost.items.push(i);
                        lost.cause.push_str(&format!(
                            "; line {}, where turn {expect} starts: {why}",
                            r.line
                        ));
                    }
                }
            }
            continue;
        }
        if let Some(p) = placement {
            if r.ty == "turn/end" {
                ends += 1;
            }
            keep(&mut c, &mut map, r, i, p);
            last_kept = Some(i);
        }
    }
    c
}

fn keep(c: &mut Candidate, map: &mut SeqMap, r: &Record, i: usize, (bytes, kept): (Vec<u8>, Kept)) {
    map.insert(r.seq, r.count, c.events);
    c.events += r.count;
    c.text.extend_from_slice(&bytes);
    c.text.push(b'\n');
    c.origins.push(Origin::Record(i));
    c.kept.push((i, kept));
}
