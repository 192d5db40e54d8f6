//! A scan taken up where an earlier one stopped: a plain JSONL log that only grew is read
//! from the end of what was read before, so a later scan costs O(new bytes), with the
//! verdict, the counts and the surface a scan of the whole log gives (FORMAT.md §6.5: the
//! checks of the new events read the fold's state and the open turn, §3: a replace in the
//! new events shadows old entries, and seqs continue; §5.1: the closers DSH would append
//! are checked against the whole log).
//!
//! [`scan_saving`] scans a log and saves the scan's state at its end ([`Saved`]);
//! [`scan_resuming`] takes that state up, reads only the lines after it and saves the new
//! end. Views are told of the new events only. A state is saved only for a plain JSONL file
//! that ends with a complete record and has no finding that stops a load (a `valid` log,
//! warnings allowed; or one only the frozen edges refuse, whose fold and checks go on): a
//! torn or failing log is scanned whole the next time, as its verdict may depend on every
//! line after the defect. Nor is one saved, or taken up, when the views ask the fold to keep
//! texts or shadowed entries ([`crate::view::View::keeps`]), which the state leaves out.
//!
//! The caller decides that the log only grew (a longer file whose former bytes are
//! unchanged, e.g. by a hash of their end); [`scan_resuming`] also checks that the header
//! line is the one read before. What is saved: the fold ([`crate::replay`]'s entries, next
//! seq, replace count, system head, warnings, models), §5.2's open turn, the event count,
//! the warnings so far, the unknown types already warned about, where the lines stopped,
//! which DSH judges ([`crate::edge::Judge`]) and what the log's path says
//! ([`LogPlace`]), both of which must be the same to take the state up, and the state of
//! the frozen edges of DSH 0.1.5 and later ([`crate::edge::Edges::save`]), whole. Its size
//! is O(surface), about the size of the surface's slots and ids (and, with the edges, of
//! the seqs they keep).

use std::fs::File;
use std::path::Path;

use super::{Scan, ScanError, ScanOptions, State};
use crate::check::closers::{OpenTurn, PendingCall};
use crate::check::stages::{LEGACY_DELTA, STAGES};
use crate::edge::{DshLine, Edges, Judge};
use crate::load::layout::{InRoot, LogPlace};
use crate::load::{Encoding, Input, LoadError};
use crate::replay::Keep;
use crate::saved::{In, Out, fnv1a};
use crate::scan::report::Report;
use crate::scan::torn::TornScan;
use crate::view::View;

/// The first bytes of a saved state.
const MAGIC: &[u8; 4] = b"DSHs";

/// The layout of the saved bytes; a state of another layout, or written by another version
/// of this crate, is not taken up (the scan then reads the whole log).
const LAYOUT: u64 = 3;

/// A scan's state at the end of a plain JSONL log (see the module docs), as bytes that can
/// be stored and read back ([`Saved::as_bytes`], [`Saved::from_bytes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    bytes: Vec<u8>,
    /// Where the next scan reads from: the end of the last record, in bytes.
    offset: u64,
}

impl Saved {
    /// The stored form.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The state stored as `bytes`, if they are one this build wrote (magic, layout,
    /// version and checksum agree); `None` otherwise, and the log is then scanned whole.
    pub fn from_bytes(bytes: Vec<u8>) -> Option<Saved> {
        let body = body(&bytes)?;
        let offset = In::new(body).u64();
        Some(Saved { bytes, offset })
    }

    /// The byte offset the next scan reads from: the size of the log when it was saved.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

/// The body of saved `bytes` after checking their envelope: magic, layout, crate version,
/// checksum of the body.
fn body(bytes: &[u8]) -> Option<&[u8]> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let mut r = In::new(rest);
    let layout = r.u64();
    let version = r.str();
    let sum = r.u64();
    if !r.ok() || layout != LAYOUT || version != env!("CARGO_PKG_VERSION") {
        return None;
    }
    let body = r.rest();
    (fnv1a(body) == sum).then_some(body)
}

/// The options a state can be saved with: those that read every event of a JSONL log and
/// append nothing after it. (What the fold keeps is the views' to ask: see [`save`].)
fn savable(options: &ScanOptions) -> bool {
    !options.header_only
        && !options.append_closers
        && options.then_append.is_empty()
        && options.only_seqs.is_none()
        && options.session.is_none()
}

/// Scans the log at `path` as [`crate::scan::scan_path_with`] does, and saves the scan's
/// state at its end when it can be taken up later (a plain JSONL file whose lines all
/// end in a record and that no finding stopped; `options` as [`scan_resuming`] needs).
///
/// # Errors
/// As [`crate::scan::scan_path_with`].
pub fn scan_saving(
    path: &Path,
    options: &ScanOptions,
    views: &mut [&mut dyn View],
) -> Result<(Report, Option<Saved>), ScanError> {
    let input = Input::open_with_progress(path, options.progress.clone())?;
    let plain_file = input.encoding == Encoding::Plain
        && path != Path::new("-")
        && std::fs::metadata(path).is_ok_and(|m| m.is_file());
    let mut scan = Scan::new(&input, options, views);
    match input.lines(options.session.as_deref()) {
        Ok(mut lines) => scan.run(&mut *lines)?,
        Err(e) => scan.source_stopped(e)?,
    }
    let saved = if plain_file && savable(options) {
        header_hash(path).and_then(|h| save(&scan.state, options.dsh, h))
    } else {
        None
    };
    Ok((scan.finish(), saved))
}

/// Takes up `saved` for the log at `path`, which grew since: reads only the lines after
/// [`Saved::offset`], tells `views` of their events, and returns the report a scan of the
/// whole log gives with the state at its new end. `Ok(None)` when `saved` does not apply
/// (the file is shorter, its header line differs, `options` or `views` keep what a saved
/// state leaves out, another DSH judges, the path says another generation or place): scan
/// the whole log instead.
///
/// # Errors
/// As [`crate::scan::scan_path_with`].
pub fn scan_resuming(
    path: &Path,
    saved: &Saved,
    options: &ScanOptions,
    views: &mut [&mut dyn View],
) -> Result<Option<(Report, Option<Saved>)>, ScanError> {
    if !savable(options) {
        return Ok(None);
    }
    let Some(body) = body(&saved.bytes) else {
        return Ok(None);
    };
    let mut file = File::open(path).map_err(LoadError::Io)?;
    let meta = file.metadata().map_err(LoadError::Io)?;
    if !meta.is_file() || meta.len() < saved.offset {
        return Ok(None);
    }
    let header = crate::load::resume::first_line(&mut file).map_err(LoadError::Io)?;
    let mut r = In::new(body);
    let offset = r.u64();
    let next_line = r.u64();
    let header_sum = r.u64();
    let era = r.str();
    let judge = read_judge(&mut r);
    let place = read_place(&mut r);
    if !r.ok()
        || !header.terminated
        || fnv1a(&header.bytes) != header_sum
        || next_line < 2
        || judge != options.dsh
    {
        return Ok(None);
    }
    let here = LogPlace::of(path);
    if place != here {
        return Ok(None);
    }
    let mut scan = Scan::for_source(
        path.to_path_buf(),
        here,
        Encoding::Plain,
        Some(meta.len()),
        options,
        views,
    );
    if scan.state.keep != Keep::NOTHING
        || !scan.read_header(&header)
        || scan.state.report.era.map(|e| e.name()) != Some(era)
        || scan.state.stages.decided_before(STAGES)
        || !restore(&mut scan.state, &mut r)
        || !r.finish()
    {
        return Ok(None);
    }
    let mut lines =
        crate::load::resume::plain_lines_from(file, offset, next_line, options.progress.clone())
            .map_err(LoadError::Io)?;
    let torn = TornScan {
        committed_end: offset,
        next_line,
        ..TornScan::default()
    };
    scan.read_records(&mut *lines, torn)?;
    // As `Scan::run` ends a JSONL scan.
    if !scan.state.stages.decided_before(LEGACY_DELTA) {
        scan.check_store_path();
    }
    let saved = save(&scan.state, options.dsh, header_sum);
    Ok(Some((scan.finish(), saved)))
}

/// FNV-1a of the header line of the plain JSONL file at `path`.
fn header_hash(path: &Path) -> Option<u64> {
    let mut file = File::open(path).ok()?;
    let line = crate::load::resume::first_line(&mut file).ok()?;
    line.terminated.then(|| fnv1a(&line.bytes))
}

/// The saved form of a finished read judged by `judge`, when it can be taken up (see
/// [`scan_saving`]).
fn save(state: &State, judge: Judge, header_sum: u64) -> Option<Saved> {
    let (offset, next_line) = state.read_to?;
    let report = &state.report;
    if report.size != Some(offset)
        || state.keep != Keep::NOTHING
        || report.header.is_none()
        || state.sqlite_session.is_some()
        || state.stages.decided_before(STAGES)
        || state.stages.per_event_failed
        || !state.telling
    {
        return None;
    }
    let era = report.era?;
    // The closers DSH would append were checked after the stored events and rolled back,
    // all but the seq count and the last seq folded: the stored log ends before them.
    let stored = state.stored_events.unwrap_or(state.next_index);
    let last_folded = state.last_folded.map(|s| s.min(stored.saturating_sub(1)));
    let mut out = Out::default();
    out.u64(offset);
    out.u64(next_line);
    out.u64(header_sum);
    out.str(era.name());
    save_judge(&mut out, judge);
    save_place(&mut out, &state.place);
    out.opt_u64(last_folded);
    out.u64(state.tagged_end_seeds);
    out.bool(state.alpha_types);
    out.u64(report.events);
    out.u64(stored);
    if !out.findings(&report.warnings) {
        return None;
    }
    save_open_turn(&mut out, &report.open_turn);
    let mut unknown: Vec<&String> = state.stages.unknown_seen.iter().collect();
    unknown.sort();
    out.u64(unknown.len() as u64);
    for ty in unknown {
        out.str(ty);
    }
    if !report.replay.save(&mut out) {
        return None;
    }
    out.bool(state.edges.is_some());
    if let Some(edges) = &state.edges {
        out.str(&edges.save()?);
    }
    let mut bytes = MAGIC.to_vec();
    let mut envelope = Out::default();
    envelope.u64(LAYOUT);
    envelope.str(env!("CARGO_PKG_VERSION"));
    envelope.u64(fnv1a(&out.bytes));
    bytes.extend_from_slice(&envelope.bytes);
    bytes.extend_from_slice(&out.bytes);
    Some(Saved { bytes, offset })
}

/// Restores what [`save`] wrote after the era into a scan that has just read the header.
fn restore(state: &mut State, r: &mut In<'_>) -> bool {
    state.last_folded = r.opt_u64();
    state.tagged_end_seeds = r.u64();
    state.alpha_types = r.bool();
    state.report.events = r.u64();
    state.next_index = r.u64();
    state.report.warnings = r.findings();
    state.report.open_turn = restore_open_turn(r);
    let n = r.count();
    for _ in 0..n {
        state.stages.unknown_seen.insert(r.str().to_owned());
    }
    if !r.ok()
        || !state.report.replay.restore(r)
        || state.report.replay.next_seq() > state.next_index
    {
        return false;
    }
    // The edges were set up from the header just read, for this era and judge: the saved
    // state takes their place, and there must be one exactly when they run.
    let edges = r.bool().then(|| Edges::restore(r.str()));
    match (edges, &mut state.edges) {
        (None, None) => true,
        (Some(Some(saved)), Some(now)) => {
            **now = saved;
            true
        }
        _ => false,
    }
}

fn save_judge(out: &mut Out, judge: Judge) {
    out.u64(u64::from(judge.line.code()));
    out.bool(judge.both_lines);
    // The platform a Windows `cwd` is judged on (H8) is the process's `--platform`: a state
    // saved under another is not taken up.
    out.u64(platform_code());
}

fn read_judge(r: &mut In<'_>) -> Judge {
    let line = DshLine::from_code(u8::try_from(r.u64()).unwrap_or(u8::MAX));
    let both_lines = r.bool();
    if r.u64() != platform_code() {
        r.fail();
    }
    Judge { line, both_lines }
}

fn platform_code() -> u64 {
    match crate::edge::Platform::process_override() {
        None => 0,
        Some(crate::edge::Platform::Posix) => 1,
        Some(crate::edge::Platform::Windows) => 2,
    }
}

fn save_place(out: &mut Out, place: &LogPlace) {
    out.opt_u64(place.generation);
    out.bool(place.in_root.is_some());
    if let Some(at) = &place.in_root {
        out.str(&at.project);
        out.str(&at.session);
        out.str(&at.name);
    }
}

fn read_place(r: &mut In<'_>) -> LogPlace {
    LogPlace {
        generation: r.opt_u64(),
        in_root: r.bool().then(|| InRoot {
            project: r.str().to_owned(),
            session: r.str().to_owned(),
            name: r.str().to_owned(),
        }),
    }
}

fn save_open_turn(out: &mut Out, t: &OpenTurn) {
    out.opt_i64(t.open_turn);
    out.opt_i64(t.open_step);
    for calls in [&t.pending, &t.orphans] {
        out.u64(calls.len() as u64);
        for c in calls {
            out.str(&c.call_id);
            out.str(&c.call_id_raw);
            out.str(&c.call_id_in_text);
            out.opt_str(c.step_raw.as_deref());
            out.u64(c.announced_seq);
            out.opt_u64(c.call_seq);
            out.opt_i64(c.step);
        }
    }
    out.opt_str(t.open_turn_raw.as_deref());
    out.opt_str(t.open_step_raw.as_deref());
    out.opt_i64(t.last_time);
}

fn restore_open_turn(r: &mut In<'_>) -> OpenTurn {
    let open_turn = r.opt_i64();
    let open_step = r.opt_i64();
    let mut calls = || {
        let n = r.count();
        (0..n)
            .map(|_| PendingCall {
                call_id: r.str().to_owned(),
                call_id_raw: r.str().to_owned(),
                call_id_in_text: r.str().to_owned(),
                step_raw: r.opt_str().map(str::to_owned),
                announced_seq: r.u64(),
                call_seq: r.opt_u64(),
                step: r.opt_i64(),
            })
            .collect::<Vec<_>>()
    };
    let (pending, orphans) = (calls(), calls());
    OpenTurn {
        open_turn,
        open_step,
        pending,
        orphans,
        open_turn_raw: r.opt_str().map(str::to_owned),
        open_step_raw: r.opt_str().map(str::to_owned),
        last_time: r.opt_i64(),
    }
}
