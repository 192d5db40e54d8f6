//! The one-pass driver: load → check → fold, then the views (FORMAT.md §6.5 for the
//! order of the checks, §5.5 for the torn tail, §5.1 for the closers checked on load).
//!
//! Lines come from the load layer (a reader thread reads and JSON-checks them ahead); each
//! is framed ([`framing`], J2–J7), its event goes through HEAD's stages ([`crate::check`]),
//! the fold ([`crate::replay`]) takes it, and every view the command composed is told of it
//! ([`crate::view`]). The scan knows no view by name: it keeps only what the verdict needs
//! (the stages' findings, §5.2's open-turn state, the torn-tail bookkeeping). The file is
//! read once and never held in memory.

pub mod defect;
pub mod framing;
mod gate;
pub mod live;
pub mod report;
pub mod resume;
pub mod torn;

use std::path::Path;

use crate::check::Logical;
use crate::check::closers::{OpenTurn, closers_for_open_turn};
use crate::check::header::{check_header, seeded_cut_problem, store_path_problem};
use crate::check::stages::{
    BACKEND, LEGACY_DELTA, PER_EVENT, Place, STAGES, Stages, per_event_checks,
};
use crate::derive;
use crate::event::{Dialect, Era, Event};
use crate::header::Header;
use crate::json::Json;
use crate::load::layout::LogPlace;
use crate::load::packed::{PackedSpan, packed_row};
use crate::load::read_ahead::{
    BATCHES_AHEAD, INLINE_BYTES, Item, Prepared, ReadAhead, read_ahead, read_inline,
};
use crate::load::store_file::Opened;
use crate::load::{Backend, Encoding, Input, Line, LineSource, LoadError, SourceError};
use crate::replay::{Keep, Replay};
use crate::rules::{Class, Finding, Rule};
use crate::view::{Checked, PackedChunks, View};
use framing::{FrameContext, Framed, Record, frame_line};
pub use report::{Report, Status, Verdict};
pub use torn::TornTail;
use torn::{TailContext, TornScan};

pub use crate::derive::PREVIEW_CHARS;

/// Bytes of kept messages and previews held in memory before they go to a temporary file,
/// so that memory does not grow with their bytes; reading them back may then fail
/// ([`crate::replay::Replay::iter`]).
pub const SPILL_TEXTS_AFTER: usize = 2 << 20;

/// How the scan drives one pass. What the fold keeps besides the verdict is not set here:
/// the views a command composes ask for it ([`View::keeps`], [`View::on_surface`]).
#[derive(Clone, Default)]
pub struct ScanOptions {
    /// Told the bytes read so far (plain JSONL), for a progress bar.
    pub progress: Option<crate::load::ProgressFn>,
    /// Stop after the header (`version`); zstd framing is still checked first (§6.2).
    pub header_only: bool,
    /// The session to read from a SQLite store (optional when it holds exactly one).
    pub session: Option<String>,
    /// A second pass over a log a first pass already checked (`provenance`'s node
    /// details): only the events with these seqs reach the views, unchecked; the others
    /// are counted, not parsed.
    pub only_seqs: Option<std::collections::HashSet<u64>>,
    /// Compute the closers of an open final turn and check them with the log, as a
    /// repair does before writing (FORMAT.md §5.1); they land in [`Report::closers`], and
    /// the fold and the views keep them as stored events.
    pub append_closers: bool,
    /// With `append_closers`: records to check after the closers, as if appended to the
    /// log (a provider heal, [`crate::heal`]), one compact JSON object each. The views and
    /// the surface take them like stored events.
    pub then_append: Vec<String>,
    /// Which DSH the verdict is that of: DSH 0.1.1, which loads a v0 log as it is, or DSH
    /// 0.1.5 and later, which migrate it through the frozen edges ([`crate::edge`]) first.
    pub dsh: crate::edge::Judge,
    /// Read a damaged log up to its defect (`--salvage`, [`defect::read_up_to_defect`]):
    /// `Some(before)` tells the views of no record after a check failed, nor of any on a
    /// line (SQLite: a row) numbered `before` or later, where the reading stops, so what they
    /// show is what the log held before the defect; [`Report::read_through`] says the last
    /// line they were told of. With `Some(u64::MAX)` the whole log is read and the verdict
    /// is the same as without; with a line, the verdict is that of the lines read.
    pub salvage: Option<u64>,
}

impl std::fmt::Debug for ScanOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanOptions")
            .field("header_only", &self.header_only)
            .field("session", &self.session)
            .field("append_closers", &self.append_closers)
            .field("then_append", &self.then_append.len())
            .field("dsh", &self.dsh)
            .field("salvage", &self.salvage)
            .finish_non_exhaustive()
    }
}

/// Errors that prevent a verdict (the file cannot be read at all).
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// Opening or reading failed, or the input is of a kind this build cannot read.
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// Scans every session at `path`: one report for a JSONL log; one per session for a
/// SQLite store (none for a store without sessions; one refused report when the store
/// itself is refused). With [`ScanOptions::salvage`], each is read up to its defect
/// ([`defect`]): `views` then makes the views of a second pass too, after a first whose
/// views were told of records past the defect ([`defect::read_again`] tells them so).
///
/// # Errors
/// As [`scan_path`].
pub fn scan_all(
    path: &Path,
    options: &ScanOptions,
    views: &dyn Fn() -> Vec<Box<dyn View>>,
) -> Result<Vec<Report>, ScanError> {
    // A file is opened once: the look for a SQLite header and the scan's read share the
    // open file, its `stat` and its first bytes (a second pass opens it again).
    let opened = if path == Path::new("-") {
        None
    } else {
        Some(Opened::open(path).map_err(LoadError::Io)?)
    };
    let is_store = opened.as_ref().is_some_and(|o| o.is_store(path));
    let first = std::cell::RefCell::new(opened);
    let read = |options: &ScanOptions| {
        let mut owned = views();
        let mut borrowed: Vec<&mut dyn View> = owned
            .iter_mut()
            .map(|v| &mut **v as &mut dyn View)
            .collect();
        let taken = first.borrow_mut().take();
        let input = match taken {
            Some(opened) => Input::from_opened(path, opened, options.progress.clone()),
            None => Input::open_with_progress(path, options.progress.clone()),
        };
        input
            .map_err(ScanError::from)
            .and_then(|input| scan_input_with(input, options, &mut borrowed))
            .map(|report| (report, ()))
    };
    // With `salvage`, a damaged session is read up to its defect, anew when the views were
    // told of what came after it ([`defect::read_up_to_defect`]).
    let scan_one = |options: &ScanOptions| match options.salvage {
        Some(_) => defect::read_up_to_defect(options, read).map(|(report, ())| report),
        None => read(options).map(|(report, ())| report),
    };
    if options.session.is_some() || !is_store {
        return Ok(vec![scan_one(options)?]);
    }
    // A store is read through SQLite's own open.
    first.borrow_mut().take();
    let ids = match crate::load::sqlite::Store::open(path) {
        Ok(store) => store
            .session_ids()
            .map_err(|e| LoadError::Store(e.into()))?,
        Err(crate::load::sqlite::StoreError::Refused(_)) => {
            return Ok(vec![scan_one(options)?]);
        }
        Err(e) => return Err(LoadError::Store(e).into()),
    };
    ids.into_iter()
        .map(|id| {
            let options = ScanOptions {
                session: Some(id),
                ..options.clone()
            };
            scan_one(&options)
        })
        .collect()
}

/// Scans the log at `path` (`-` for standard input) with no view: the verdict, the fold
/// and the load-time state only.
///
/// # Errors
/// [`ScanError`] when the file cannot be opened or read; every problem with its content
/// is a [`Finding`] in the [`Report`] instead.
pub fn scan_path(path: &Path, options: &ScanOptions) -> Result<Report, ScanError> {
    scan_path_with(path, options, &mut [])
}

/// Scans the log at `path` and tells `views` of every stored event, in seq order, and of
/// the finished report (FORMAT.md §6.5 for the order of the checks).
///
/// # Errors
/// As [`scan_path`].
pub fn scan_path_with(
    path: &Path,
    options: &ScanOptions,
    views: &mut [&mut dyn View],
) -> Result<Report, ScanError> {
    let input = Input::open_with_progress(path, options.progress.clone())?;
    scan_input_with(input, options, views)
}

/// Scans a log held in memory ([`Input::from_text`]: its decoded text, judged as if stored
/// at `name`) and tells `views`, as [`scan_path_with`] does.
///
/// # Errors
/// As [`scan_path`] (reading memory does not fail; a SQLite session cannot be given).
pub fn scan_text_with(
    name: &Path,
    text: Vec<u8>,
    options: &ScanOptions,
    views: &mut [&mut dyn View],
) -> Result<Report, ScanError> {
    scan_input_with(Input::from_text(name, text), options, views)
}

fn scan_input_with(
    input: Input,
    options: &ScanOptions,
    views: &mut [&mut dyn View],
) -> Result<Report, ScanError> {
    let mut scan = Scan::new(&input, options, views);
    match input.lines(options.session.as_deref()) {
        Ok(mut lines) => scan.run(&mut *lines)?,
        Err(e) => scan.source_stopped(e)?,
    }
    Ok(scan.finish())
}

struct Scan<'o, 'v, 'w> {
    options: &'o ScanOptions,
    /// The views the command composed, told of every stored event.
    views: &'v mut [&'w mut dyn View],
    /// What the scan knows so far: everything but what it borrows, so that a live scan
    /// ([`live::Live`]) can keep it between pushes.
    state: State,
}

/// The state of a [`Scan`] between lines.
pub(crate) struct State {
    /// Views are told of events (off while DSH's closers are checked but not kept).
    telling: bool,
    /// The seq the fold last took without a finding.
    last_folded: Option<u64>,
    /// `session/end-seed` events with `data.inherited: true` (the v2+ seeded cut, G8).
    tagged_end_seeds: u64,
    /// An event type of the v0 alpha dialect was seen (era detection).
    alpha_types: bool,
    /// A packed chunk row was read (a known defect of DSH 0.1.5-rc.1, [`verdict_notes`]).
    packed_seen: bool,
    report: Report,
    dialect: &'static Dialect,
    /// Header id as stored inside its quotes, for legacy ids.
    id_body: String,
    stages: Stages,
    /// Events accepted so far (their seqs are 0..next_index).
    next_index: u64,
    /// The session id, when reading a SQLite store.
    sqlite_session: Option<String>,
    /// When closers were checked: how many events the stored log holds.
    stored_events: Option<u64>,
    /// When records were appended after the closers: the seq of the first one.
    appended_from: Option<u64>,
    /// Once every line was read, with no defect and no torn frame: the end of the last
    /// record (decoded bytes) and the number of the line after it ([`resume`]).
    read_to: Option<(u64, u64)>,
    /// What the log's path says (G2's generation, H6's place in a DSH root).
    place: LogPlace,
    /// What the fold keeps of each surface entry: what the views asked for.
    keep: Keep,
    /// The frozen edges of DSH 0.1.5 and later, when the options ask for them.
    edges: Option<Box<crate::edge::Edges>>,
}

impl<'o, 'v, 'w> Scan<'o, 'v, 'w> {
    fn new(input: &Input, options: &'o ScanOptions, views: &'v mut [&'w mut dyn View]) -> Self {
        Self::for_source(
            input.path.clone(),
            input.place.clone(),
            input.encoding,
            input.size,
            options,
            views,
        )
    }

    /// A scan of the log at `path` (which says `place`), before its first line
    /// ([`live::Live`] builds one without an opened [`Input`]).
    fn for_source(
        path: std::path::PathBuf,
        place: LogPlace,
        encoding: Encoding,
        size: Option<u64>,
        options: &'o ScanOptions,
        views: &'v mut [&'w mut dyn View],
    ) -> Self {
        let keep = (views.iter()).fold(Keep::NOTHING, |keep, view| keep.and(view.keeps()));
        Scan {
            options,
            views,
            state: State {
                telling: true,
                last_folded: None,
                tagged_end_seeds: 0,
                alpha_types: false,
                packed_seen: false,
                report: Report {
                    path,
                    session: None,
                    encoding,
                    size,
                    era: None,
                    header: None,
                    status: Status::Valid,
                    finding: None,
                    warnings: Vec::new(),
                    torn: None,
                    replay: Replay::new(&crate::event::HEAD),
                    events: 0,
                    open_turn: OpenTurn::default(),
                    closers: Vec::new(),
                    edge: None,
                    dsh: options.dsh.line,
                    notes: Vec::new(),
                    read_through: None,
                },
                dialect: &crate::event::HEAD,
                id_body: String::new(),
                // A second pass re-reads a log the first pass checked: no fold needed.
                stages: Stages::new(options.only_seqs.is_some()),
                next_index: 0,
                sqlite_session: None,
                stored_events: None,
                appended_from: None,
                read_to: None,
                place,
                keep,
                edges: None,
            },
        }
    }

    /// Why the line source stopped: an I/O or session error ends the scan with an error; a
    /// finding (Z1–Z7, Q rules) is recorded and ends the reading.
    fn source_stopped(&mut self, e: SourceError) -> Result<(), ScanError> {
        match e {
            SourceError::Io(e) => Err(ScanError::Load(LoadError::Io(e))),
            SourceError::Session(what) => Err(ScanError::Load(LoadError::Session(what))),
            SourceError::Finding(f) => {
                self.state.stages.fail(BACKEND, f);
                Ok(())
            }
        }
    }

    fn run(&mut self, lines: &mut dyn LineSource) -> Result<(), ScanError> {
        let mut line = Line::default();
        let mut torn = TornScan {
            committed_end: 0,
            next_line: 1,
            ..TornScan::default()
        };
        if let Backend::Sqlite {
            era,
            header,
            session,
        } = lines.backend()
        {
            self.sqlite_header(era, *header, session);
            if self.options.header_only {
                return Ok(());
            }
            return self.read_records(lines, torn);
        }
        match lines.next_line(&mut line) {
            Ok(true) if line.terminated => {}
            Ok(_) => {
                let what = if line.bytes.is_empty() {
                    "file is empty"
                } else {
                    "file contains no newline: the header line is incomplete"
                };
                // A small compressed file can hold no newline byte at all.
                let hint = crate::load::foreign_compression(&line.bytes)
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                self.state.stages.fail(
                    BACKEND,
                    Finding::new(
                        Rule::J1,
                        None,
                        Some(1),
                        format!("{what} (empty or header-less log){hint}"),
                    ),
                );
                return Ok(());
            }
            Err(e) => return self.source_stopped(e),
        }
        if !self.read_header(&line) || self.options.header_only {
            return Ok(());
        }
        torn.committed_end = line.offset + line.bytes.len() as u64 + 1;
        torn.next_line = 2;
        self.read_records(lines, torn)?;
        if !self.state.stages.decided_before(LEGACY_DELTA) {
            self.check_store_path();
        }
        Ok(())
    }

    /// A SQLite session's header: the `sessions` row stands where JSONL has a first line.
    fn sqlite_header(&mut self, era: Era, header: crate::header::Header, session: String) {
        self.state.report.session = Some(session.clone());
        self.state.sqlite_session = Some(session);
        let mut body = String::new();
        crate::json::write_js_string(&mut body, &header.id);
        self.state.id_body = body[1..body.len() - 1].to_owned();
        self.state.report.header = Some(header);
        self.set_era(era);
    }

    fn set_era(&mut self, era: Era) {
        self.state.report.era = Some(era);
        let line = self.options.dsh.line.resolve(era);
        self.state.report.dsh = line;
        self.state.dialect =
            if self.options.dsh.line == crate::edge::DshLine::V0_1_1 && era == Era::Head {
                // DSH 0.1.1's store reads no v0-alpha form (GENERATIONS §3).
                &crate::event::HEAD_0_1_1
            } else {
                era.dialect()
            };
        let mut replay = Replay::new(self.state.dialect);
        if self.state.keep.shadowed {
            replay = replay.keeping_shadowed();
        }
        if self.state.keep.texts() {
            replay = replay.spilling_texts_after(SPILL_TEXTS_AFTER);
        }
        self.state.report.replay = replay;
        // DSH 0.1.5 and later do not open SQLite stores at all: the edges read files. A v3
        // or v4 log gets its own generation's check whichever line judges.
        let native = matches!(era, Era::V3 | Era::V4);
        let runs_edges = line.migrates() || self.options.dsh.both_lines;
        if (runs_edges || native) && self.state.sqlite_session.is_none() {
            self.state.edges =
                crate::edge::Edges::for_log(era, self.state.report.header.as_ref()).map(Box::new);
        }
    }

    /// Reads the records after the header. A second thread reads the lines and checks their
    /// JSON ([`read_ahead`]) while this one runs the checks and the fold, which must see the
    /// events in order.
    fn read_records(
        &mut self,
        lines: &mut dyn LineSource,
        mut torn: TornScan,
    ) -> Result<(), ScanError> {
        let options = self.options;
        let mut last_number = 0;
        let skip = options.only_seqs.as_ref();
        let packed_rows = self.state.dialect.packed_rows;
        // What an item of the input means; `Some` when the reading stops there.
        let mut take = |scan: &mut Self, item: Item<'_>| match item {
            Item::Line(line, prepared) => {
                last_number = line.number;
                (!scan.record_line(line, prepared, &mut torn)).then_some(Ok(()))
            }
            Item::EmptyLines(n) => {
                torn.lines += n;
                None
            }
            Item::Stopped(e) => Some(scan.source_stopped(e)),
        };
        let stopped = if self.state.report.size.is_some_and(|s| s <= INLINE_BYTES) {
            // A small input is read on this thread.
            let mut stopped = None;
            read_inline(lines, skip, packed_rows, &mut |item| {
                stopped = take(self, item);
                stopped.is_none()
            });
            stopped
        } else {
            let reader = &mut *lines;
            std::thread::scope(|threads| {
                let (batches, batches_in) = std::sync::mpsc::sync_channel(BATCHES_AHEAD);
                // Unbounded, so that the scan never waits on it (one message per batch).
                let (processed, processed_in) = std::sync::mpsc::channel();
                threads.spawn(move || {
                    read_ahead(reader, skip, packed_rows, &batches, &processed_in);
                });
                for batch in batches_in {
                    let mut done = Vec::with_capacity(batch.len());
                    for item in batch {
                        let stopped = match item {
                            ReadAhead::Line(line, prepared) => {
                                let stopped = take(self, Item::Line(&line, &prepared));
                                done.push((line, prepared));
                                stopped
                            }
                            ReadAhead::EmptyLines(n) => take(self, Item::EmptyLines(n)),
                            ReadAhead::Stopped(e) => take(self, Item::Stopped(e)),
                        };
                        if stopped.is_some() {
                            return stopped;
                        }
                    }
                    // The lines and their indexes go back to be freed by the thread that
                    // allocated them (much cheaper for the allocator); after a batch of long
                    // lines the reader waits for this before it reads on (memory bound).
                    let _ = processed.send(done);
                }
                None
            })
        };
        if let Some(result) = stopped {
            return result;
        }
        self.close_torn_tail(torn, lines);
        // DSH validates the stored events followed by the closers it would append (§5.1,
        // §6.5 P7), on every load: so does every scan of a log DSH checks that strictly.
        let checks_closers = self.options.append_closers
            || (self.options.only_seqs.is_none()
                && (self.state.dialect.strict
                    || self.views.iter().any(|v| v.needs_closed_history())));
        if checks_closers && !self.state.stages.decided_before(STAGES) {
            self.append_closers(last_number + 1);
        }
        Ok(())
    }

    /// Computes the closers (§5.2) and feeds them through every check, as DSH validates
    /// "stored events + closers" on load. The counts and the surface keep describing the
    /// stored log unless `ScanOptions::append_closers` (repair) asks for the closed one.
    fn append_closers(&mut self, mut line: u64) {
        let era = self.state.report.era.unwrap_or(Era::Head);
        let closers =
            closers_for_open_turn(&self.state.report.open_turn, era, self.state.next_index);
        let appended = if self.options.append_closers {
            self.options.then_append.as_slice()
        } else {
            &[]
        };
        if closers.is_empty() && appended.is_empty() {
            return;
        }
        self.state.stored_events = Some(self.state.next_index);
        // Checked and then forgotten: the closers only append (closers.rs writes nothing
        // else), so the fold goes back to a mark afterwards.
        let saved = (!self.options.append_closers).then(|| {
            (
                self.state.report.open_turn.clone(),
                self.state.report.events,
                self.state.report.replay.mark(),
                self.state.report.warnings.len(),
            )
        });
        // Unless a repair keeps them, the closers are checked, not shown.
        self.state.telling = self.options.append_closers;
        for (k, record) in closers.iter().chain(appended).enumerate() {
            if k == closers.len() {
                self.state.appended_from = Some(self.state.next_index);
            }
            let Some(ev) = Json::parse(record).ok().and_then(Event::from_object) else {
                // Built by this crate from validated tokens; never expected.
                let what =
                    format!("internal error: a computed record is not a JSON object: {record}");
                self.state
                    .stages
                    .fail(PER_EVENT, Finding::new(Rule::E1, None, None, what));
                break;
            };
            self.process(ev, line);
            line += 1;
        }
        self.state.telling = true;
        // The history DSH sends after its own load, for the views that judge it.
        for view in self.views.iter_mut() {
            view.on_closed_history(&self.state.report.replay);
        }
        if let Some((open_turn, events, fold, warnings)) = saved {
            self.state.report.open_turn = open_turn;
            self.state.report.events = events;
            let back = self.state.report.replay.back_to(fold);
            debug_assert!(back, "closers that only append can be undone");
            self.state.report.warnings.truncate(warnings);
        }
        self.state.report.closers = closers;
    }

    /// H1–H5 and era detection. Returns false when the header stops the load.
    fn read_header(&mut self, line: &Line) -> bool {
        let text = String::from_utf8_lossy(&line.bytes);
        let checked = check_header(&text, self.state.place.generation);
        self.state.report.header = checked.header;
        self.state.id_body = checked.id_body;
        let era = match checked.verdict {
            Err((rule, mut message)) => {
                if let Some(hint) = crate::load::foreign_compression(&line.bytes) {
                    message.push_str(&format!("; {hint}"));
                }
                let finding = Finding::new(rule, None, Some(1), message);
                self.state.stages.fail(BACKEND, finding);
                return false;
            }
            Ok(era) => era,
        };
        self.set_era(era);
        if let Some(finding) = gate::generation_gate(
            &self.state.report,
            self.options.dsh.line,
            era,
            self.state.sqlite_session.is_some(),
        ) {
            self.state.stages.fail(BACKEND, finding);
            return false;
        }
        // H7 and H8 are checked at P7, before the first event (§6.5).
        let h8 = || {
            let cwd = self.state.report.header.as_ref()?.cwd.as_deref()?;
            gate::platform_problem(cwd)
        };
        if let Some((rule, what)) = checked
            .h7
            .map(|what| (Rule::H7, what))
            .or_else(|| h8().map(|w| (Rule::H8, w)))
        {
            self.state
                .stages
                .fail(PER_EVENT, Finding::new(rule, None, Some(1), what));
            self.state.stages.per_event_failed = true;
        }
        true
    }

    /// One record line after the header (§5.5.1 J2–J7). Returns false when the load stops.
    fn record_line(&mut self, line: &Line, prepared: &Prepared, torn: &mut TornScan) -> bool {
        let options = self.options;
        if options.salvage.is_some_and(|before| line.number >= before) {
            // A salvaged read stops at the line of its defect.
            return false;
        }
        let context = FrameContext {
            recoverable: self.state.report.dsh.migrates(),
            expected: self.state.next_index,
            packed_rows: self.state.dialect.packed_rows,
            sqlite: self.state.sqlite_session.is_some(),
            only_seqs: options.only_seqs.as_ref(),
        };
        let framed = frame_line(line, prepared, torn, &context, &mut |record| match record {
            Record::Event(ev, number) => self.process(ev, number),
            Record::Packed(json, row, number) => self.process_packed(json, row, number),
        });
        match framed {
            Framed::Next => true,
            Framed::Skipped => {
                self.state.next_index += 1;
                true
            }
            Framed::Stop(finding) => {
                self.state.stages.fail(BACKEND, finding);
                false
            }
        }
    }

    /// The members of a packed row. They are valid `assistant/chunk` events by
    /// construction (§7.4 validation covers every envelope and shape rule that applies to
    /// them), so only the seq bookkeeping, the fold and the counts run, unless a view asked
    /// about one of them.
    fn process_packed(&mut self, json: Json<'_>, row: &PackedSpan, line: u64) {
        self.state.packed_seen = true;
        let wanted =
            self.options.only_seqs.as_ref().is_some_and(|want| {
                (row.seq0..row.seq0 + row.len() as u64).any(|s| want.contains(&s))
            });
        if !wanted && self.options.only_seqs.is_some() {
            // A view's second pass: nothing to collect here, and nothing to check again.
            self.state.next_index += row.len() as u64;
            return;
        }
        if self.options.salvage.is_some() && self.state.stages.any_failed() {
            // A salvaged read ends at the first defect.
            self.state.next_index += row.len() as u64;
            return;
        }
        if self.options.salvage.is_some() {
            self.state.report.read_through = Some(line);
        }
        if wanted {
            let Some(Ok(members)) = packed_row(json) else {
                unreachable!("the span was read from this valid row")
            };
            for k in 0..members.len() {
                let text = members.member_json(k);
                let ev = Event::from_object(Json::from_valid(&text)).expect("members are objects");
                self.process(ev, line);
            }
            return;
        }
        for _ in &row.times {
            let seq = self.state.next_index;
            self.state.next_index += 1;
            if !self.state.stages.per_event_failed && !self.state.stages.decided_before(PER_EVENT) {
                let result =
                    self.state
                        .report
                        .replay
                        .push_log_only(seq, "assistant/chunk", false, false);
                self.after_fold(seq, line, result);
            }
        }
        self.state.report.events += row.times.len() as u64;
        self.state.report.open_turn.record_chunks(&row.times);
        if let Some(edges) = &mut self.state.edges {
            edges.packed(json, row, line);
        }
        if self.state.telling {
            let chunks = PackedChunks {
                first_seq: row.seq0,
                times: &row.times,
                folded: self
                    .state
                    .last_folded
                    .is_some_and(|s| s + 1 == self.state.next_index),
                replay: &self.state.report.replay,
            };
            for view in self.views.iter_mut() {
                view.on_packed_chunks(&chunks);
            }
        }
    }

    /// Every stage's checks on one stored event, then the fold.
    fn process(&mut self, ev: Event<'_>, line: u64) {
        let seq = self.state.next_index;
        self.state.next_index += 1;
        if let Some(wanted) = &self.options.only_seqs
            && !self.state.dialect.legacy_conversions
        {
            // A view's second pass over a log the first pass checked: only collect. (Legacy
            // conversions read the fold's state, so those dialects take the full path.)
            if wanted.contains(&seq) {
                let logical = Logical::stored(ev);
                self.tell(seq, line, &logical);
            }
            return;
        }
        if !self.state.dialect.strict {
            let logical = Logical::stored(ev);
            self.fold(seq, line, &logical);
            self.record(seq, line, &logical);
            return;
        }
        let replay = &self.state.report.replay;
        let logical = self.state.stages.check_event(
            ev,
            Place { seq, line },
            self.state.dialect,
            &self.state.id_body,
            &|s| replay.message_id(s).map(str::to_owned),
            &mut self.state.report.warnings,
        );
        // P7: envelope, request header, messages, E7, surface.
        if !self.state.stages.per_event_failed && !self.state.stages.decided_before(PER_EVENT) {
            if let Err((rule, message)) = per_event_checks(&logical, seq, self.state.dialect) {
                let finding = Finding::new(rule, Some(seq), Some(line), message);
                self.state.stages.fail(PER_EVENT, finding);
                self.state.stages.per_event_failed = true;
            } else {
                self.fold(seq, line, &logical);
            }
        }
        self.record(seq, line, &logical);
    }

    /// The scan's own bookkeeping of an event (its count, §5.2's state, G8's end seeds),
    /// then the views are told of it.
    fn record(&mut self, seq: u64, line: u64, logical: &Logical<'_>) {
        if self.options.salvage.is_some() {
            if self.state.stages.any_failed() {
                // A salvaged read ends at the first defect: nothing after it is counted or told.
                return;
            }
            self.state.report.read_through = Some(line);
        }
        self.state.report.events += 1;
        self.state
            .report
            .open_turn
            .record(seq, logical, self.state.dialect);
        let ty = logical.type_str();
        if ty == "session/end-seed"
            && logical
                .data()
                .and_then(|d| d.get("inherited"))
                .and_then(Json::as_bool)
                == Some(true)
        {
            self.state.tagged_end_seeds += 1;
        }
        if !self.state.alpha_types
            && self.state.report.era == Some(Era::Head)
            && crate::event::V0_ALPHA_TYPES.contains(&ty)
        {
            self.state.alpha_types = true;
        }
        // The edges judge the stored log (and what a repair would append to it), never the
        // closers DSH appends after it migrated the log.
        if let Some(edges) = &mut self.state.edges
            && (self.state.stored_events.is_none() || self.options.append_closers)
            && self.options.only_seqs.is_none()
        {
            crate::edge::Source::with(logical, seq, line, |source| edges.event(source));
        }
        if self
            .options
            .only_seqs
            .as_ref()
            .is_none_or(|wanted| wanted.contains(&seq))
        {
            self.tell(seq, line, logical);
        }
    }

    /// Hands one event to every view.
    fn tell(&mut self, seq: u64, line: u64, logical: &Logical<'_>) {
        if !self.state.telling {
            return;
        }
        let folded = self.state.last_folded == Some(seq);
        let replay = &self.state.report.replay;
        if let Some(change) = replay.change().filter(|c| folded && c.seq == seq) {
            for view in self.views.iter_mut() {
                view.on_surface(&change);
            }
        }
        let event = Checked {
            seq,
            line,
            event: logical,
            dialect: self.state.dialect,
            folded,
            replay,
        };
        for view in self.views.iter_mut() {
            view.on_event(&event);
        }
    }

    /// Feeds the surface fold (S1–S18).
    fn fold(&mut self, seq: u64, line: u64, logical: &Logical<'_>) {
        if self.state.stages.per_event_failed {
            return;
        }
        let result = derive::fold_event(
            &mut self.state.report.replay,
            seq,
            logical,
            self.state.dialect,
            Some(line),
            self.state.keep,
        );
        self.after_fold(seq, line, result);
    }

    /// Records a fold failure (the per-event stage stops there, as upstream does), or that
    /// the fold took the event.
    fn after_fold(&mut self, seq: u64, line: u64, result: Result<(), (Rule, String)>) {
        if let Err((rule, message)) = result {
            self.state.stages.fail(
                PER_EVENT,
                Finding::new(rule, Some(seq), Some(line), message),
            );
            self.state.stages.per_event_failed = true;
        } else {
            self.state.last_folded = Some(seq);
        }
    }

    /// Decides what the first defect, if any, means once every line was read.
    fn close_torn_tail(&mut self, torn: TornScan, lines: &dyn LineSource) {
        self.state.read_to = (torn.first.is_none() && lines.torn_frame().is_none())
            .then_some((torn.committed_end, torn.next_line));
        let tail = torn.decide(TailContext {
            size: self.state.report.size,
            zstd: self.state.report.encoding == Encoding::Zstd,
            sqlite: self.state.sqlite_session.is_some(),
            torn_frame: lines.torn_frame(),
            torn_frame_undecodable: lines.torn_frame_undecodable(),
        });
        match tail {
            Ok(tail) => self.state.report.torn = tail,
            Err(finding) => self.state.stages.fail(BACKEND, finding),
        }
    }

    /// G8 (v2+): the header's `isSeeded` and a tagged `session/end-seed` agree.
    fn check_seeded_cut(&mut self) {
        if !matches!(self.state.report.era, Some(Era::V2 | Era::V3 | Era::V4))
            || self.state.report.torn.is_some()
        {
            return;
        }
        let seeded = self.state.tagged_end_seeds > 0;
        self.fail_on_header(Rule::G8, |h| {
            seeded_cut_problem(h, seeded).map(String::from)
        });
    }

    /// H6: the header must name this file's path when it sits in a DSH store (§7.1).
    fn check_store_path(&mut self) {
        if matches!(self.state.report.era, None | Some(Era::June2026)) {
            return;
        }
        let in_root = self.state.place.in_root.clone();
        self.fail_on_header(Rule::H6, |h| store_path_problem(h, in_root.as_ref()));
    }

    /// A check of the header that only the whole log decides: `problem` of the header, if
    /// any, fails `rule` at line 1 in the backend stage.
    fn fail_on_header(&mut self, rule: Rule, problem: impl FnOnce(&Header) -> Option<String>) {
        let problem = self.state.report.header.as_ref().and_then(problem);
        if let Some(problem) = problem {
            self.state
                .stages
                .fail(BACKEND, Finding::new(rule, None, Some(1), problem));
        }
    }

    fn finish(mut self) -> Report {
        self.check_seeded_cut();
        let mut chosen = self.state.stages.first();
        if let (Some(stored), Some(f)) = (self.state.stored_events, chosen.as_mut())
            && f.seq.is_some_and(|s| s >= stored)
        {
            // The finding is about a closer DSH would append on load, or a record a repair
            // would append after it, not a stored line.
            f.line = None;
            f.message = if self
                .state
                .appended_from
                .is_some_and(|from| f.seq >= Some(from))
            {
                format!("a record the repair would append fails: {}", f.message)
            } else {
                format!(
                    "the closer DSH appends on load to end the open turn fails: {}",
                    f.message
                )
            };
        }
        if self.state.sqlite_session.is_some()
            && let Some(f) = chosen.as_mut()
        {
            f.line_to_row();
        }
        self.state
            .report
            .warnings
            .extend(self.state.report.replay.warnings().iter().cloned());
        if self.state.report.era == Some(Era::Head)
            && (self.state.report.replay.alpha_dialect() || self.state.alpha_types)
        {
            self.state.report.era = Some(Era::V0Alpha);
        }
        if let Some(edges) = self.state.edges.take() {
            let verdict = edges.finish();
            self.state.report.edge = verdict.refusal.clone();
            let native = matches!(self.state.report.era, Some(Era::V3 | Era::V4));
            if self.state.report.dsh.migrates() || native {
                chosen = chosen.or(verdict.refusal);
                self.state.report.warnings.extend(verdict.warnings);
            }
        }
        match chosen {
            Some(finding) => {
                self.state.report.status = match finding.class {
                    Class::Refused => Status::Refused,
                    Class::Foreign => Status::Foreign,
                    _ => Status::Corrupt,
                };
                self.state.report.finding = Some(finding);
            }
            None if self.state.report.torn.is_some() => self.state.report.status = Status::TornTail,
            None => self.state.report.status = Status::Valid,
        }
        if self.state.report.is_ok() {
            self.state.report.notes =
                gate::verdict_notes(&self.state.report, self.state.packed_seen);
        }
        for view in self.views.iter_mut() {
            view.finish(&mut self.state.report);
        }
        self.state.report
    }
}
