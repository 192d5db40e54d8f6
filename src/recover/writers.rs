//! Two writers in one log (FORMAT.md §7.3: DSH takes no lock, so a second process that
//! resumes a session appends to the same file): the seqs start over where the second
//! writer's history left the first's, and both go on. Each record is given to the writer
//! whose next seq it continues; a record that goes back to a seq the log already holds,
//! right after a `turn/end` or a `session/end-seed` of the first writer (or being itself the
//! `session/end-seed` a resume writes, GENERATIONS §12.4), starts a new branch whose history
//! is the first writer's events before that seq. Nothing is chosen silently: every branch
//! becomes a session. A record that two branches could both continue goes to the branch of
//! the record just before it (a writer appends its records in batches of consecutive
//! lines); when neither wrote the record before, the assignment ends there.

use crate::recover::stored::{Item, Record, Stored};

/// The records one writer's session holds, in order (indices into [`Stored::items`]).
#[derive(Debug, Clone, Default)]
pub struct Branch {
    /// The records, in order: for a branch after the first, the first writer's records
    /// before the fork, then its own.
    pub records: Vec<usize>,
    /// Where the branch leaves the first writer's history: the seq it starts over at and
    /// the line of its first record. `None` for the first writer.
    pub fork: Option<(u64, u64)>,
    /// The seq its next record must have.
    next: u64,
}

/// A record no branch takes, and why.
#[derive(Debug, Clone)]
pub struct Stray {
    /// Index into [`Stored::items`].
    pub item: usize,
    /// Why.
    pub why: String,
    /// When it is a byte-for-byte copy of a record a branch holds: that record's line.
    pub copy_of: Option<u64>,
}

/// The branches of a log and the records none of them takes.
#[derive(Debug, Clone, Default)]
pub struct Split {
    /// The first writer's branch first.
    pub branches: Vec<Branch>,
    /// Records no branch takes.
    pub strays: Vec<Stray>,
}

/// Splits the records of `stored` into the branches of its writers (one branch when only
/// one writer wrote it). A seq that jumps forward in a log of one writer stays in its
/// branch (the events between were lost: a later step keeps what can be renumbered).
pub fn split(stored: &Stored) -> Split {
    let mut split = Split {
        branches: vec![Branch::default()],
        strays: Vec::new(),
    };
    let mut ambiguous: Option<String> = None;
    // The branch of the record before: a writer appends its records in batches of
    // consecutive lines, so a record that continues the line before continues its writer.
    let mut last: Option<usize> = None;
    for (i, item) in stored.items.iter().enumerate() {
        let Item::Record(r) = item else { continue };
        if let Some(why) = &ambiguous {
            split.strays.push(Stray {
                item: i,
                why: why.clone(),
                copy_of: None,
            });
            continue;
        }
        let takers: Vec<usize> = (0..split.branches.len())
            .filter(|&b| split.branches[b].next == r.seq)
            .collect();
        match takers[..] {
            [b] => {
                take(&mut split.branches[b], i, r);
                last = Some(b);
            }
            [_, _, ..] if last.is_some_and(|b| takers.contains(&b)) => {
                let b = last.expect("checked");
                take(&mut split.branches[b], i, r);
            }
            [_, _, ..] => {
                let why = format!(
                    "from line {} on, {} writers could each have written the next record (seq {}): which one wrote it cannot be told",
                    r.line,
                    takers.len(),
                    r.seq
                );
                split.strays.push(Stray {
                    item: i,
                    why: why.clone(),
                    copy_of: None,
                });
                ambiguous = Some(why);
            }
            [] => last = place_elsewhere(stored, &mut split, i, r).or(last),
        }
    }
    split
}

fn take(branch: &mut Branch, i: usize, r: &Record) {
    branch.records.push(i);
    branch.next = r.end();
}

/// A record that continues no branch: a second writer starting over, a forward gap in a
/// log of one writer, or a record no writer explains. Returns the branch that took it.
fn place_elsewhere(stored: &Stored, split: &mut Split, i: usize, r: &Record) -> Option<usize> {
    let first = &split.branches[0];
    if r.seq > first.next {
        if split.branches.len() == 1 {
            // Events were lost between: the branch goes on after a gap.
            let branch = &mut split.branches[0];
            take(branch, i, r);
            return Some(0);
        } else {
            split.strays.push(Stray {
                item: i,
                why: format!(
                    "it skips to seq {r_seq}, which continues none of the {} writers",
                    split.branches.len(),
                    r_seq = r.seq
                ),
                copy_of: None,
            });
        }
        return None;
    }
    // A record written twice (a retried write): the first copy is kept.
    if let Some(copy) = first
        .records
        .iter()
        .filter_map(|&k| stored.record(k))
        .find(|p| p.seq == r.seq && p.count == r.count && p.bytes() == r.bytes())
    {
        split.strays.push(Stray {
            item: i,
            why: format!(
                "a copy of line {} (seq {}), which the sessions hold: nothing is lost",
                copy.line, r.seq
            ),
            copy_of: Some(copy.line),
        });
        return None;
    }
    // Back to a seq the first writer already wrote: a second writer, if it starts where a
    // writer resumes (after a turn end or an end seed, or with the end seed a resume
    // writes).
    let before = first
        .records
        .iter()
        .filter_map(|&k| stored.record(k))
        .find(|p| r.seq > 0 && p.holds(r.seq - 1));
    let at_boundary = r.seq == 0
        || r.ty == "session/end-seed"
        || before.is_some_and(|p| matches!(p.ty.as_str(), "turn/end" | "session/end-seed"));
    let whole_prefix = first
        .records
        .iter()
        .filter_map(|&k| stored.record(k))
        .filter(|p| p.seq < r.seq)
        .map(|p| p.count)
        .sum::<u64>()
        == r.seq;
    if !at_boundary || !whole_prefix {
        let why = if at_boundary {
            "the first writer's events before it are not all in the log"
        } else {
            "it does not start where a writer resumes (after a turn/end or a session/end-seed)"
        };
        split.strays.push(Stray {
            item: i,
            why: format!(
                "it goes back to seq {}, which the log already holds; {why}, so it is not a second writer's",
                r.seq
            ),
            copy_of: None,
        });
        return None;
    }
    let mut records: Vec<usize> = first
        .records
        .iter()
        .copied()
        .filter(|&k| stored.record(k).is_some_and(|p| p.end() <= r.seq))
        .collect();
    records.push(i);
    split.branches.push(Branch {
        records,
        fork: Some((r.seq, r.line)),
        next: r.end(),
    });
    Some(split.branches.len() - 1)
}
