//! Recovery, the planning half (`recover FILE --out ROOT`): from a log DSH refuses, new
//! sessions DSH loads, losing nothing it can keep. It writes nothing: [`crate::write`]
//! publishes the sessions a [`Recovery`] holds ([`crate::write::new_session`]).
//!
//! 1. [`stored`] reads every record and defect of the log, on past each defect.
//! 2. [`writers`] tells the branches of two processes that wrote the same log apart (a
//!    seq that starts over where a writer resumes): one session per branch, each the
//!    common history plus its own, never one of them silently.
//! 3. [`branch`] assembles each session ([`assemble`]: the records before the first defect
//!    as stored, then — planned both ways, the one keeping more messages taken — every
//!    record that still loads, or whole turns, renumbered, [`refs`]) and checks it in memory as DSH
//!    0.1.5 and later and DSH 0.1.1 load it, where it would be stored; on each finding it
//!    drops a type no DSH loads, makes the one change the frozen edge admits
//!    ([`shapes`], [`edit`]), or cuts the record out as a defect, and checks again. Then it
//!    is finished as `repair` finishes a log (DSH's closers; with a provider, its heals) and
//!    ends with a [`note`] that cites the original and quotes each message record it
//!    could not hold ([`message_quotes`]); [`Recovery::lines`] says where each line went.
//!
//! A header DSH refuses is rebuilt first ([`header`]), from what it holds; what it had to
//! assume is said in the note and in [`Recovery::lines`].
//!
//! A recovery never invents a tool result or a message: besides the stored records, a
//! session holds only DSH's own closers (FORMAT.md §5.2), the `turn/start` and
//! `step/start` a message before any step is given ([`assemble::Policy::opened`]), heals
//! when asked for (PROVIDERS.md §3), and the note, which quotes every message (and every
//! unreadable line) no session can hold. Every change, drop and loss is in the
//! [`Recovery`]; [`Recovery::keeps_every_message`] says whether anything is lost.

pub mod assemble;
pub mod branch;
pub mod edit;
pub mod header;
pub mod note;
pub mod refs;
pub mod shapes;
pub mod stored;
pub mod writers;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::event::Era;
use crate::json::Json;
use crate::load::Encoding;
use crate::provider::Provider;
use crate::rules::{Finding, Rule};
use crate::scan::{self, ScanError, ScanOptions, Status};
use assemble::{Candidate, Kept, Policy};
use branch::{Recovered, Target, recover_branch};
use edit::{Edit, MemberPath, apply, splice};
use stored::{Item, Stored, Unreadable};

/// What to recover, and where to.
#[derive(Debug, Clone)]
pub struct Options {
    /// The session to recover from a SQLite store (optional when it holds one).
    pub session: Option<String>,
    /// The DSH root the sessions go under (`ROOT/--<project>--/<id>/session[.vN].jsonl`).
    pub root: PathBuf,
    /// The encoding to write (default: the log's; plain JSONL for a SQLite store).
    pub encoding: Option<Encoding>,
    /// Heal each session for this provider, as `repair --provider` does.
    pub provider: Option<Provider>,
}

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
    /// True when `path`, or a session of its id elsewhere under the root, exists.
    pub exists: bool,
}

/// A record left out because no DSH loads its type.
#[derive(Debug, Clone)]
pub struct Dropped {
    /// Its line in the original.
    pub line: u64,
    /// Its seq there.
    pub seq: u64,
    /// Its type.
    pub ty: String,
    /// The record, verbatim.
    pub record: String,
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
    /// The member changed (`data.origin`).
    pub member: String,
    /// Its value before, raw JSON.
    pub before: Option<String>,
    /// Its value after, raw JSON; `None` when it is taken out.
    pub after: Option<String>,
    /// The rule that refused the record.
    pub rule: Rule,
    /// What the rule said.
    pub why: String,
    /// The sessions it is changed in.
    pub sessions: Vec<String>,
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
    /// The log's verdict, as the DSH judged as (`--dsh`) loads it.
    pub status: Status,
    /// The finding behind it; `None` for a valid log (nothing to recover).
    pub finding: Option<Finding>,
    /// The sessions to write; empty for a valid log.
    pub sessions: Vec<NewSession>,
    /// Records left out (types no DSH loads).
    pub dropped: Vec<Dropped>,
    /// Changes made.
    pub changed: Vec<Changed>,
    /// What could not be recovered.
    pub unrecoverable: Vec<Unrecoverable>,
    /// Branches for which no session could be made, and why.
    pub failed: Vec<String>,
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
        self.finding.is_none()
    }

    /// True when the sessions keep every message of the log: no branch failed, and no
    /// line went `lost` (each is kept, renumbered, changed, rebuilt, quoted in the note,
    /// left out as a record that holds no message, a copy, or a torn tail).
    pub fn keeps_every_message(&self) -> bool {
        self.failed.is_empty() && self.lines.iter().all(|l| l.went != "lost")
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
/// sessions hold it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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

/// Why nothing can be recovered.
#[derive(Debug, thiserror::Error)]
pub enum RecoverError {
    /// Nothing of the log can be recovered (no intact header, not a DSH log, a refused
    /// store): one sentence naming the rule.
    #[error("nothing recoverable: {0}")]
    Nothing(String),
    /// Reading failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// Reading failed.
    #[error(transparent)]
    Load(#[from] crate::load::LoadError),
}

/// Plans the recovery of the log at `path` (one session of a SQLite store) under
/// `options.root`, checking each session in memory as DSH 0.1.5+ and DSH 0.1.1 load it.
/// A log valid as the process's DSH line loads it (`--dsh`) needs none: its recovery holds
/// no session.
///
/// # Errors
/// [`RecoverError::Nothing`] when nothing can be recovered; read errors.
pub fn plan(path: &Path, options: &Options) -> Result<Recovery, RecoverError> {
    let report = scan::scan_path(
        path,
        &ScanOptions {
            session: options.session.clone(),
            ..ScanOptions::default()
        },
    )?;
    if let (Status::Foreign, Some(f)) = (report.status, &report.finding) {
        return Err(RecoverError::Nothing(f.message.clone()));
    }
    let stored = match stored::read(path, options.session.as_deref()) {
        Ok(s) => s,
        Err(Unreadable::NoHeader(f)) => {
            let why = match f.rule {
                // A newer format is not rebuilt as an older one (see `header`).
                Rule::G1 => {
                    "a format newer than this build reads: its records cannot be told apart from what an older DSH would take them for, so they are not written as a session; upgrade dsh-session"
                }
                _ => "no intact session header: nothing says which session the records are",
            };
            return Err(RecoverError::Nothing(format!(
                "{} {} ({why})",
                f.rule.id(),
                f.message
            )));
        }
        Err(Unreadable::Load(e)) => return Err(e.into()),
    };
    let mut recovery = Recovery {
        file: path.to_path_buf(),
        store_session: stored.session.clone(),
        original: stored.header.id.clone(),
        status: report.status,
        finding: report.finding.clone().filter(|_| !report.is_ok()),
        sessions: Vec::new(),
        dropped: Vec::new(),
        changed: Vec::new(),
        unrecoverable: Vec::new(),
        failed: Vec::new(),
        kept: KeptCount::default(),
        lines: Vec::new(),
    };
    if recovery.valid() {
        return Ok(recovery);
    }
    let split = writers::split(&stored);
    let several = split.branches.len() > 1;
    let encoding = options.encoding.unwrap_or(match stored.encoding {
        Encoding::Zstd => Encoding::Zstd,
        _ => Encoding::Plain,
    });
    let mut results = Vec::new();
    for (k, branch) in split.branches.iter().enumerate() {
        let suffix = if several {
            format!("-branch-{}", k + 1)
        } else {
            "-recovered".to_owned()
        };
        let Some((header, id, path)) = new_identity(&stored, &suffix, &options.root, encoding)
        else {
            return Err(RecoverError::Nothing(
                "the header's id is not a JSON string: no new id can be derived from it".into(),
            ));
        };
        let mut target = Target {
            header,
            path: &path,
            both_lines: stored.era != Era::V0Alpha,
        };
        let note = |c: &Candidate, p: &Policy| {
            Some(note_text(
                &stored,
                &report.finding,
                &split.strays,
                branch,
                k,
                split.branches.len(),
                c,
                p,
            ))
        };
        match recover_branch(
            &stored,
            &branch.records,
            &mut target,
            options.provider,
            &note,
        )? {
            Ok(recovered) => results.push((k, id, path.clone(), recovered)),
            Err(why) => recovery.failed.push(format!("{id}: {why}")),
        }
    }
    for (k, id, path, recovered) in &results {
        let branch = &split.branches[*k];
        recovery.sessions.push(new_session(
            &stored,
            id,
            path,
            several.then_some(k + 1),
            branch.fork,
            recovered,
            encoding,
            &options.root,
        ));
    }
    describe(&mut recovery, &stored, &split, &results);
    Ok(recovery)
}

/// The header with the new id, the id, and where the session goes.
fn new_identity(
    stored: &Stored,
    suffix: &str,
    root: &Path,
    encoding: Encoding,
) -> Option<(String, String, PathBuf)> {
    let json = Json::parse(&stored.header_text).ok()?;
    let id = json.get("id")?;
    let raw = id.raw();
    let token = format!("{}{suffix}\"", raw.strip_suffix('"')?);
    let edit = Edit::Set(MemberPath::of(&["id"]), token.clone());
    let header = apply(
        &stored.header_text,
        vec![splice(&stored.header_text, &edit)?],
    );
    let new = Json::parse(&token).ok()?;
    let text_id = new.as_str()?.into_owned();
    let path = crate::lineage::session_path(
        root,
        json.get("cwd"),
        new,
        stored.header.version.unwrap_or(0),
        encoding,
    );
    Some((header, text_id, path))
}

#[allow(clippy::too_many_arguments)]
fn new_session(
    stored: &Stored,
    id: &str,
    path: &Path,
    branch: Option<usize>,
    fork: Option<(u64, u64)>,
    r: &Recovered,
    encoding: Encoding,
    root: &Path,
) -> NewSession {
    let records: Vec<&stored::Record> = (r.candidate.kept.iter())
        .filter_map(|(i, _)| stored.record(*i))
        .collect();
    let count = |want: Kept| r.candidate.kept.iter().filter(|(_, k)| *k == want).count() as u64;
    let mut closers: Vec<String> = (r.candidate.closers.iter())
        .flat_map(|(_, c)| c.iter().cloned())
        .collect();
    closers.extend(r.closers.iter().cloned());
    NewSession {
        id: id.to_owned(),
        path: path.to_path_buf(),
        branch,
        fork,
        text: r.text.clone(),
        encoding,
        events: r.events,
        turns: records.iter().filter(|x| x.ty == "turn/start").count() as u64,
        last_time: records.iter().rev().find_map(|x| x.time),
        lines: ranges(records.iter().map(|x| x.line)),
        verbatim: count(Kept::Verbatim),
        renumbered: count(Kept::Renumbered),
        changed: count(Kept::Changed),
        closers,
        heals: r.heals.clone(),
        unhealed: r.unhealed.clone(),
        note: r.note.clone(),
        exists: crate::lineage::taken(path, root),
    }
}

/// Consecutive line numbers as `(first, last)` ranges.
fn ranges(lines: impl Iterator<Item = u64>) -> Vec<(u64, u64)> {
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

/// The note's text for branch `k` of `n` (see [`note`]).
#[allow(clippy::too_many_arguments)]
fn note_text(
    stored: &Stored,
    finding: &Option<Finding>,
    strays: &[writers::Stray],
    branch: &writers::Branch,
    k: usize,
    n: usize,
    candidate: &Candidate,
    policy: &Policy,
) -> String {
    let mut text = format!(
        "This session was recovered by dsh-session from session {}, whose log DSH refuses",
        stored.header.id
    );
    if let Some(f) = finding {
        let at = f
            .line
            .or(f.row)
            .map(|l| format!(" at line {l}"))
            .unwrap_or_default();
        text.push_str(&format!(" ({}{at}: {})", f.rule.id(), f.message));
    }
    text.push('.');
    if let Some(r) = &stored.rebuilt {
        text.push_str(&format!(" Its header was rebuilt ({})", r.why));
        if !r.assumed.is_empty() {
            text.push_str(&format!(": {}", r.assumed.join("; ")));
        }
        text.push('.');
    }
    if n > 1 {
        text.push_str(&format!(
            " {n} processes wrote that log at the same time; this is the history of writer {} of {n}",
            k + 1
        ));
        if let Some((seq, _)) = branch.fork {
            text.push_str(&format!(", which leaves the first writer's at seq {seq}"));
        }
        text.push('.');
    }
    let lost: Vec<u64> = candidate
        .lost
        .iter()
        .flat_map(|l| l.items.iter())
        .filter_map(|&i| stored.record(i).map(|r| r.line))
        .chain(stored.items.iter().filter_map(|it| match it {
            Item::Hole(h) if h.rule != Rule::J2 && h.rule != Rule::Z3 => h.line,
            _ => None,
        }))
        .collect::<BTreeSet<u64>>()
        .into_iter()
        .collect();
    if !lost.is_empty() {
        text.push_str(&format!(
            " The original log's {} could not be recovered; the conversation here may miss what they held.",
            show_ranges(&ranges(lost.into_iter()))
        ));
    }
    let mut quoted = String::new();
    let stray = strays
        .iter()
        .filter(|x| x.copy_of.is_none())
        .map(|x| &x.item);
    // A record of a type no DSH loads that held a message (June 2026's context/message)
    // is quoted too.
    let mut quoting: Vec<usize> = (candidate.lost.iter())
        .flat_map(|l| l.items.iter().copied())
        .chain(stray.copied())
        .chain(policy.dropped.iter().copied())
        .collect();
    quoting.sort_unstable();
    quoting.dedup();
    for i in quoting {
        let Some(r) = stored.record(i) else { continue };
        let quotes = message_quotes(r);
        if !quotes.is_empty() {
            quoted.push_str(&format!(
                " Line {} ({}) is not here; it said: {}.",
                r.line,
                r.ty,
                quotes.join("; ")
            ));
        }
    }
    for item in &stored.items {
        if let Item::Hole(h) = item
            && let (Some(line), Some(held)) = (h.line, &h.text)
        {
            quoted.push_str(&format!(
                " Line {line} could not be read ({} {}); it held: {held}.",
                h.rule.id(),
                h.why
            ));
        }
    }
    text.push_str(&quoted);
    let log_only: Vec<&stored::Record> = (policy.dropped.iter())
        .filter_map(|&i| stored.record(i))
        .filter(|r| message_quotes(r).is_empty())
        .collect();
    if !log_only.is_empty() {
        let types: BTreeSet<&str> = log_only.iter().map(|r| r.ty.as_str()).collect();
        text.push_str(&format!(
            " {} log-only record(s) of types no DSH release loads ({}) were left out; the model never saw them.",
            log_only.len(),
            types.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    if !candidate.opened.is_empty() {
        text.push_str(&format!(
            " {} message(s) on the surface before any step (which DSH's migration cannot put after the system prompt) were each given a step of their own (and a turn, where none was open), as DSH writes user input.",
            candidate.opened.len()
        ));
    }
    if !policy.edits.is_empty() {
        text.push_str(&format!(
            " {} record(s) were changed where DSH's migration refuses them.",
            policy.edits.len()
        ));
    }
    text
}

/// What a record of a message type (`*/message`, `tool/result`) says, for the note that
/// quotes a record the session cannot hold: each text (a message's, a reasoning's, a tool
/// result's) and each tool call as `call ID NAME ARGUMENTS`, in order; empty for any
/// other record.
pub fn message_quotes(r: &stored::Record) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(map) => {
                if let (Some(serde_json::Value::String(name)), Some(args)) =
                    (map.get("name"), map.get("arguments"))
                {
                    let id = map.get("id").and_then(|i| i.as_str()).unwrap_or("");
                    let args = match args {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    out.push(format!("call {id} {name} {args}"));
                }
                for key in ["text", "reasoning", "thinking"] {
                    if let Some(serde_json::Value::String(t)) = map.get(key) {
                        out.push(t.clone());
                    }
                }
                for (k, x) in map {
                    if k != "text" && k != "arguments" {
                        walk(x, out);
                    }
                }
            }
            serde_json::Value::Array(list) => list.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if (r.ty.ends_with("/message") || r.ty == "tool/result")
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(&r.text)
    {
        walk(&v["data"], &mut out);
    }
    out
}

/// Fills in what was dropped, changed and lost, across the sessions.
fn describe(
    recovery: &mut Recovery,
    stored: &Stored,
    split: &writers::Split,
    results: &[(usize, String, PathBuf, Recovered)],
) {
    let all: Vec<String> = results.iter().map(|(_, id, _, _)| id.clone()).collect();
    // Defects of the file itself: every session lacks them.
    for item in &stored.items {
        if let Item::Hole(h) = item {
            let torn_tail = matches!(h.rule, Rule::J2 | Rule::Z3);
            recovery.unrecoverable.push(Unrecoverable {
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
            recovery.unrecoverable.push(Unrecoverable {
                lines: Some((r.line, r.line)),
                bytes: None,
                rule: Some(Rule::J4),
                why: stray.why.clone(),
                torn_tail: false,
                copy_of: stray.copy_of,
                sessions: all.clone(),
            });
        } else {
            merge_lost(&mut recovery.unrecoverable, r.line, None, &stray.why, &all);
        }
    }
    let mut kept: BTreeMap<usize, Kept> = BTreeMap::new();
    for (_, _, _, r) in results {
        for &(i, how) in &r.candidate.kept {
            kept.entry(i).or_insert(how);
        }
    }
    for (&i, &how) in &kept {
        let k = &mut recovery.kept;
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
                recovery.unrecoverable.push(Unrecoverable {
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
                    &mut recovery.unrecoverable,
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
                    line: rec.line,
                    seq: rec.seq,
                    ty: rec.ty.clone(),
                    record: rec.text.clone(),
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
                    member,
                    before: c.before.clone(),
                    after: match &c.edit {
                        Edit::Set(_, v) => Some(v.clone()),
                        Edit::Remove(_) => None,
                    },
                    rule: c.finding.rule,
                    why: c.finding.message.clone(),
                    sessions: Vec::new(),
                })
                .sessions
                .push(id.clone());
        }
    }
    recovery.dropped = dropped.into_values().collect();
    recovery.changed = changed.into_values().collect();
    recovery.lines = fates(recovery, stored, split, results);
}

/// Where each line of the original went ([`LineFate`]).
fn fates(
    recovery: &Recovery,
    stored: &Stored,
    split: &writers::Split,
    results: &[(usize, String, PathBuf, Recovered)],
) -> Vec<LineFate> {
    let all: Vec<String> = results.iter().map(|(_, id, _, _)| id.clone()).collect();
    let header_changed = recovery.changed.iter().any(|c| c.seq.is_none());
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
        let holders: Vec<(&String, Kept)> = results
            .iter()
            .filter_map(|(_, id, _, rec)| {
                (rec.candidate.kept.iter())
                    .find(|(k, _)| *k == i)
                    .map(|(_, how)| (id, *how))
            })
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
        if let Some(d) = recovery.dropped.iter().find(|d| d.line == r.line) {
            let went = if message_quotes(r).is_empty() || !noted_everywhere(results) {
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
            } else if message_quotes(r).is_empty() {
                "left out"
            } else if noted_everywhere(results) {
                "noted"
            } else {
                "lost"
            };
            out.push(fate(went, all.clone(), Some(stray.why.clone())));
            continue;
        }
        let lost: Vec<(&String, &Recovered, String)> = results
            .iter()
            .filter_map(|(_, id, _, rec)| {
                (rec.candidate.lost.iter())
                    .find(|l| l.items.contains(&i))
                    .map(|l| (id, rec, l.why()))
            })
            .collect();
        let why = lost.first().map(|(_, _, why)| why.clone());
        let message = !message_quotes(r).is_empty();
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
