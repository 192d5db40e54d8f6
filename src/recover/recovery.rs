//! What a recovery is ([`Recovery`]): the sessions it writes ([`NewSession`]), every
//! record it left out, changed or could not hold, and where each line of the original went
//! ([`LineFate`]) — the plan [`super::plan`] makes and [`super::run`] hands to
//! [`crate::write`].

use std::path::PathBuf;

use crate::load::Encoding;
use crate::recover::stored::Record;
use crate::rules::Rule;
use crate::scan::Verdict;

/// A session the recovery writes.
#[derive(Debug, Clone)]
pub struct NewSession {
    /// Its id: `<id>-recovered`, or `<id>-branch-<n>` for the branches of two writers.
    pub id: String,
    /// Where it goes.
    pub path: PathBuf,
    /// The writer's branch it holds (1 for the first writer), when the log has several.
    pub branch: Option<usize>,
    /// Where the branch leaves the first writer's history: `(seq, line)`.
    pub fork: Option<(u64, u64)>,
    /// Its decoded JSONL text.
    pub text: Vec<u8>,
    /// The encoding to write it in.
    pub encoding: Encoding,
    /// Events in it.
    pub events: u64,
    /// Turns in it (`turn/start` records of the original).
    pub turns: u64,
    /// Time of its last record of the original, ms since the Unix epoch.
    pub last_time: Option<i64>,
    /// Line ranges of the original it holds, `(first, last)`.
    pub lines: Vec<(u64, u64)>,
    /// Records kept byte for byte, renumbered, changed.
    pub verbatim: u64,
    /// See `verbatim`.
    pub renumbered: u64,
    /// See `verbatim`.
    pub changed: u64,
    /// Closers written at defects inside it and at its end, verbatim.
    pub closers: Vec<String>,
    /// Heals (with `--provider`).
    pub heals: Vec<crate::heal::Heal>,
    /// With `--provider`: findings no heal fixes.
    pub unhealed: Vec<crate::heal::Unhealed>,
    /// The note at its end, verbatim.
    pub note: Option<String>,
    /// True when `path`, or a session of its id elsewhere under the root, exists (told by
    /// [`super::run`] when it hands the plan to the writer; false in a bare [`super::plan`]).
    pub exists: bool,
}

/// A record left out because no DSH loads its type.
#[derive(Debug, Clone)]
pub struct Dropped {
    /// The record, as stored in the original: its line, seq, type and text.
    pub record: Record,
    /// Why.
    pub why: String,
    /// The sessions it is left out of.
    pub sessions: Vec<String>,
}

/// A change made to a record (or the header).
#[derive(Debug, Clone)]
pub struct Changed {
    /// Its line in the original (1: the header).
    pub line: u64,
    /// Its seq there (`None` for the header).
    pub seq: Option<u64>,
    /// The member changed, and its value before and after.
    pub change: MemberChange,
    /// The rule that refused the record.
    pub rule: Rule,
    /// What the rule said.
    pub why: String,
    /// The sessions it is changed in.
    pub sessions: Vec<String>,
}

/// One member of a record changed: its path and its value before and after.
#[derive(Debug, Clone)]
pub struct MemberChange {
    /// The member's path (`data.origin`).
    pub member: String,
    /// Its value before, raw JSON.
    pub before: Option<String>,
    /// Its value after, raw JSON; `None` when it is taken out.
    pub after: Option<String>,
}

/// Stored lines none of the sessions holds, and why.
#[derive(Debug, Clone)]
pub struct Unrecoverable {
    /// The first and last line, when lines can be told.
    pub lines: Option<(u64, u64)>,
    /// zstd: the bytes `(offset, length)` of a frame that does not decode.
    pub bytes: Option<(u64, u64)>,
    /// The rule of the defect, when there is one.
    pub rule: Option<Rule>,
    /// Why.
    pub why: String,
    /// A torn tail: bytes DSH drops on load too.
    pub torn_tail: bool,
    /// A copy of this line (which the sessions hold): nothing is lost.
    pub copy_of: Option<u64>,
    /// The sessions that lack them (all, for a defect of the file).
    pub sessions: Vec<String>,
}

/// What a recovery does, or would do.
#[derive(Debug, Clone)]
pub struct Recovery {
    /// The log.
    pub file: PathBuf,
    /// For a SQLite store, the session.
    pub store_session: Option<String>,
    /// The original session id.
    pub original: String,
    /// The log's verdict, as the DSH judged as (`--dsh`) loads it; its finding is `None`
    /// for a log that loads (nothing to recover).
    pub verdict: Verdict,
    /// The sessions to write; empty for a valid log.
    pub sessions: Vec<NewSession>,
    /// Branches for which no session could be made, and why.
    pub failed: Vec<String>,
    /// What became of the original's records and lines, across the sessions.
    pub fates: Fates,
}

/// What became of the original's records and lines, across the sessions (told by
/// [`super::fates`] once the sessions are made; empty for a valid log).
#[derive(Debug, Clone, Default)]
pub struct Fates {
    /// Records left out (types no DSH loads).
    pub dropped: Vec<Dropped>,
    /// Changes made.
    pub changed: Vec<Changed>,
    /// What could not be recovered.
    pub unrecoverable: Vec<Unrecoverable>,
    /// The stored records the sessions hold.
    pub kept: KeptCount,
    /// Where each line of the original went, in order (the header first).
    pub lines: Vec<LineFate>,
}

/// Where one line of the original went (`recover --format json`, `lines[]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineFate {
    /// Its line in the original (1: the header); `None` for bytes whose line cannot be
    /// told (a zstd frame that does not decode).
    pub line: Option<u64>,
    /// Its seq there, for a record.
    pub seq: Option<u64>,
    /// What became of it: `kept` (byte for byte), `renumbered` (new seqs only), `changed`
    /// (see `changed[]`), `rebuilt` (a header DSH refuses, written anew from what it
    /// holds; `why` says what was assumed), `noted` (left out, its messages — or an
    /// unreadable line's text — quoted in the note), `left out` (a type no DSH loads, see
    /// `dropped[]`, or a record that holds no message, cut out as `why` says), `copy` (a
    /// retried write of a line the sessions hold), `torn tail` (DSH drops it on load too),
    /// `lost` (nothing of it is in the sessions or the note).
    pub went: &'static str,
    /// The sessions that hold it (for `kept`, `renumbered`, `changed`) or lack it.
    pub sessions: Vec<String>,
    /// Why, when it is not kept as it is.
    pub why: Option<String>,
}

impl Recovery {
    /// True when the log needs no recovery.
    pub fn valid(&self) -> bool {
        self.verdict.finding.is_none()
    }

    /// True when the sessions keep every message of the log: no branch failed, and no
    /// line went `lost` (each is kept, renumbered, changed, rebuilt, quoted in the note,
    /// left out as a record that holds no message, a copy, or a torn tail).
    pub fn keeps_every_message(&self) -> bool {
        self.failed.is_empty() && self.fates.lines.iter().all(|l| l.went != "lost")
    }

    /// The branch with the most turns, when the log has several branches and one has more
    /// turns than every other.
    pub fn most_turns(&self) -> Option<&NewSession> {
        if self.sessions.len() < 2 {
            return None;
        }
        let max = self.sessions.iter().map(|s| s.turns).max()?;
        let mut top = self.sessions.iter().filter(|s| s.turns == max);
        let first = top.next()?;
        top.next().is_none().then_some(first)
    }
}

/// The stored records some recovered session holds (each counted once, however many
/// sessions hold it): `recover --format json`'s `kept`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct KeptCount {
    /// Records (lines; for SQLite, rows).
    pub records: u64,
    /// Events in them (a packed row holds several).
    pub events: u64,
    /// Records kept byte for byte.
    pub verbatim: u64,
    /// Records kept with new seqs only.
    pub renumbered: u64,
    /// Records kept with a change (`changed[]`).
    pub changed: u64,
}

/// Consecutive line numbers as `(first, last)` ranges.
pub fn ranges(lines: impl Iterator<Item = u64>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for l in lines {
        match out.last_mut() {
            Some((_, last)) if *last + 1 == l => *last = l,
            _ => out.push((l, l)),
        }
    }
    out
}

/// Line ranges in words: `line 14`, `lines 2–13, 15`.
pub fn show_ranges(ranges: &[(u64, u64)]) -> String {
    let list = ranges
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    match ranges {
        [(a, b)] if a == b => format!("line {list}"),
        _ => format!("lines {list}"),
    }
}
