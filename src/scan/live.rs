//! The push-based scan `follow` feeds (FORMAT.md §5.5, §6.5): the one-pass driver's state
//! kept across polls, taking complete lines as they arrive, so each poll costs O(new lines)
//! and nothing is ever read twice.
//!
//! [`Live`] owns what the one-pass `Scan` borrows for one pass except the views, which a caller
//! hands to every [`Live::push`]: between pushes the caller reads them (the happenings a
//! view collected) without any shared ownership. The lines must be complete: a final line
//! without its newline is the caller's to hold back (a torn line in flight, FORMAT.md
//! §5.5.1 J2) until it completes or the caller gives up waiting. What the scan only decides
//! once every line is read (the torn-tail verdict, G8, the closers DSH appends on load) is
//! not decided here: a live log has no end yet.

use std::path::Path;

use super::{Scan, ScanOptions, State};
use crate::check::stages::STAGES;
use crate::load::layout::LogPlace;
use crate::load::read_ahead::Prepared;
use crate::load::{Backend, Encoding, Line};
use crate::rules::{Finding, Rule};
use crate::scan::report::Report;
use crate::scan::torn::TornScan;
use crate::view::View;

/// An incremental scan of one log (see the module docs). Memory is what the fold keeps:
/// O(surface), never O(log), since a live scan is built before any view could ask the
/// fold to keep messages, previews or shadowed entries.
pub struct Live {
    options: ScanOptions,
    /// The scan's state between pushes (taken while a push runs).
    state: Option<State>,
    torn: TornScan,
    header_read: bool,
    finding: Option<Finding>,
}

/// The first uncommitted defect of a live log (FORMAT.md §5.5.1): DSH drops it and every
/// line after it on load (J6) unless a `turn/end` follows, which makes it J5.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defect {
    /// J3 (not JSON, or a bad packed row), J4 (seq does not continue) or Q8 (a row that
    /// fails to decode).
    pub rule: Rule,
    /// Its 1-based line (for SQLite, the row's seq).
    pub line: u64,
    /// What is wrong with it, in one line.
    pub message: String,
}

impl Live {
    /// A live scan of the JSONL log at `path` (plain or zstd: `encoding`), before its
    /// header line. The fold keeps what its rules read and nothing more (no view asks at
    /// construction), so memory stays O(surface).
    pub fn new(path: &Path, encoding: Encoding, options: ScanOptions) -> Self {
        let scan = Scan::for_source(
            path.to_path_buf(),
            LogPlace::of(path),
            encoding,
            None,
            &options,
            &mut [],
        );
        let state = scan.state;
        Live {
            options,
            state: Some(state),
            torn: TornScan {
                committed_end: 0,
                next_line: 1,
                ..TornScan::default()
            },
            header_read: false,
            finding: None,
        }
    }

    /// A live scan of one SQLite session: `backend` is what its row source reports
    /// ([`crate::load::LineSource::backend`]); the `sessions` row stands for the header,
    /// so the rows pushed are events from the first.
    pub fn sqlite(path: &Path, options: ScanOptions, backend: Backend) -> Self {
        let mut live = Live::new(path, Encoding::Sqlite, options);
        if let Backend::Sqlite {
            era,
            header,
            session,
        } = backend
        {
            live.with_scan(&mut [], |scan, _| {
                scan.sqlite_header(era, *header, session);
            });
            live.header_read = true;
        }
        live
    }

    fn with_scan<R>(
        &mut self,
        views: &mut [&mut dyn View],
        f: impl FnOnce(&mut Scan<'_, '_, '_>, &mut TornScan) -> R,
    ) -> R {
        let state = self
            .state
            .take()
            .expect("the state is put back after every push");
        let mut scan = Scan {
            options: &self.options,
            views,
            state,
        };
        let result = f(&mut scan, &mut self.torn);
        self.state = Some(scan.state);
        result
    }

    /// Takes complete lines (header first for JSONL) and tells `views` of every event
    /// they hold. Returns false once the load has stopped: the first corrupt or refused
    /// finding ([`Live::finding`]) ends it as it ends a scan, and later lines are ignored.
    pub fn push(&mut self, lines: &[Line], views: &mut [&mut dyn View]) -> bool {
        if self.finding.is_some() {
            return false;
        }
        let mut header_read = self.header_read;
        let finding = self.with_scan(views, |scan, torn| {
            for line in lines {
                if !header_read {
                    header_read = true;
                    if !scan.read_header(line) {
                        break;
                    }
                    scan.check_store_path();
                    torn.committed_end = line.offset + line.bytes.len() as u64 + 1;
                    torn.next_line = line.number + 1;
                    continue;
                }
                if !scan.record_line(line, &Prepared::default(), torn) {
                    break;
                }
                if scan.state.stages.decided_before(STAGES) {
                    // The first finding ends the live load at once: what follows it is
                    // not told to the views (a scan reads on only to rank the stages).
                    break;
                }
            }
            scan.state.stages.first()
        });
        self.header_read = header_read;
        self.finding = finding;
        self.finding.is_none()
    }

    /// The report so far: events, surface, open turn, warnings (the verdict fields are
    /// not decided on a live log).
    pub fn report(&self) -> &Report {
        &self
            .state
            .as_ref()
            .expect("the state is put back after every push")
            .report
    }

    /// The corrupt or refused finding that stopped the load, once one did.
    pub fn finding(&self) -> Option<&Finding> {
        self.finding.as_ref()
    }

    /// The first uncommitted defect, once a line had one (see [`Defect`]).
    pub fn defect(&self) -> Option<Defect> {
        self.torn.first.as_ref().map(|d| Defect {
            rule: d.rule,
            line: d.line,
            message: d.message.clone(),
        })
    }

    /// True once the header (or, for SQLite, the `sessions` row) was read.
    pub fn header_read(&self) -> bool {
        self.header_read
    }
}
