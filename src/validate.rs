//! `validate PATH...`: every log checked, in parallel, and what the gate counts — DSH's
//! verdict ([`crate::scan::Status`]), and with it a provider's P-rules (`--provider`) and
//! warnings (`--strict`). The verdicts' layout (text, JSON, GitHub annotations) is the
//! renderer's.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::load::ProgressFn;
use crate::provider::Provider;
use crate::scan::{self, Report, ScanOptions, Status};
use crate::view::provider::ProviderRules;

/// What fails the gate besides DSH's verdict.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gate {
    /// `--provider`: a finding of one of its P-rules fails the log.
    pub provider: Option<Provider>,
    /// `--strict`: a warning fails the log.
    pub strict: bool,
}

impl Gate {
    /// The findings of `report` the provider refuses (empty without `--provider`, or for a
    /// log DSH does not load).
    pub fn refused<'r>(&self, report: &'r Report) -> Vec<&'r crate::rules::Finding> {
        match self.provider.filter(|_| report.is_ok()) {
            Some(p) => report
                .warnings
                .iter()
                .filter(|w| p.enforces(w.rule))
                .collect(),
            None => Vec::new(),
        }
    }

    /// `Some(true)` when `--strict` fails a loaded log with warnings; `None` without it.
    pub fn strict_failed(&self, report: &Report) -> Option<bool> {
        self.strict
            .then(|| report.is_ok() && !report.warnings.is_empty())
    }
}

/// One session's verdict as the gate keeps it: the report with its surface let go of (a
/// walk over many logs holds every verdict until it prints them, never their surfaces:
/// [`Report::replay`] is an empty fold), and the surface's length.
#[derive(Debug)]
pub struct Verdict {
    /// The scan's report; its `replay` is empty.
    pub report: Report,
    /// Entries on the surface when the log ended.
    pub surface_len: usize,
}

impl Verdict {
    fn of(mut report: Report) -> Verdict {
        let surface_len = report.replay.len();
        report.replay = report.replay.emptied();
        Verdict {
            report,
            surface_len,
        }
    }
}

/// One input's result: a verdict per session (one for a JSONL log), or why it could not be
/// read.
#[derive(Debug)]
pub enum Checked {
    /// The verdicts (a SQLite store: one per session).
    Reports(Vec<Verdict>),
    /// A store without sessions.
    NoSessions,
    /// The input could not be read: why, in words.
    Unreadable(String),
}

/// A progress display for one large input: what the scan calls with the bytes read, and
/// what clears it when the input is done.
pub type Progress = (ProgressFn, Box<dyn FnOnce() + Send>);

/// Checks every log at `paths` in parallel (of `session` in a store), each scanned with
/// the provider rules' view; `progress` may give an input a progress display. Results
/// come back in `paths`' order, each with the log's path (a session directory's current
/// generation, [`crate::load::layout::current_generation`]).
pub fn check_all(
    paths: &[PathBuf],
    session: Option<&String>,
    progress: &(dyn Fn(&Path) -> Option<Progress> + Sync),
) -> Vec<(String, Checked)> {
    paths
        .par_iter()
        .map(|p| check(p, session, progress))
        .collect()
}

fn check(
    path: &Path,
    session: Option<&String>,
    progress: &(dyn Fn(&Path) -> Option<Progress> + Sync),
) -> (String, Checked) {
    let file = path.display().to_string();
    // A session directory the walk gave as a whole: its current generation, or why none is.
    // Told from a failed scan (which opens the file once) rather than by a `stat` of every
    // file first.
    let directory = |file: String| match crate::load::layout::current_generation(path) {
        Ok(log) => check(&log, session, progress),
        Err(e) => (file, Checked::Unreadable(e.to_string())),
    };
    let (shown, done) = match progress(path) {
        Some((shown, done)) => (Some(shown), Some(done)),
        None => (None, None),
    };
    let options = ScanOptions {
        session: session.cloned(),
        progress: shown,
        ..ScanOptions::default()
    };
    let result = scan::scan_all(path, &options, &|| vec![Box::new(ProviderRules::default())]);
    if let Some(done) = done {
        done();
    }
    if result.is_err() && path.is_dir() {
        return directory(file);
    }
    let checked = match result {
        Ok(reports) if reports.is_empty() => Checked::NoSessions,
        Ok(reports) => Checked::Reports(reports.into_iter().map(Verdict::of).collect()),
        Err(e) => Checked::Unreadable(crate::wording::error_text(&e)),
    };
    (file, checked)
}

/// What the checked logs count to at the gate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Reports per verdict.
    pub valid: usize,
    /// See `valid`.
    pub torn_tail: usize,
    /// See `valid`.
    pub corrupt: usize,
    /// See `valid`.
    pub refused: usize,
    /// See `valid`.
    pub foreign: usize,
    /// Inputs that could not be read.
    pub unreadable: usize,
    /// Logs the `--provider` refuses.
    pub provider_refused: usize,
    /// Logs `--strict` fails.
    pub strict_failed: usize,
    /// Another harness's files that were named (not met by a walk).
    pub foreign_named: usize,
}

impl Tally {
    /// Counts `checked` at `gate`; `named` are the files given by name (another harness's
    /// file fails the gate when it was named, not when a walk came upon it).
    pub fn of(checked: &[(String, Checked)], gate: Gate, named: &[PathBuf]) -> Tally {
        let named: std::collections::HashSet<String> = (named.iter())
            .filter(|f| !f.is_dir())
            .map(|f| f.display().to_string())
            .collect();
        let mut t = Tally::default();
        for (file, c) in checked {
            let reports = match c {
                Checked::Reports(r) => r,
                Checked::NoSessions => continue,
                Checked::Unreadable(_) => {
                    t.unreadable += 1;
                    continue;
                }
            };
            for r in reports.iter().map(|v| &v.report) {
                match r.status {
                    Status::Valid => t.valid += 1,
                    Status::TornTail => t.torn_tail += 1,
                    Status::Corrupt => t.corrupt += 1,
                    Status::Refused => t.refused += 1,
                    Status::Foreign => {
                        t.foreign += 1;
                        t.foreign_named += usize::from(named.contains(file));
                    }
                }
                if gate.provider.is_some() && r.is_ok() && !gate.refused(r).is_empty() {
                    t.provider_refused += 1;
                }
                if gate.strict_failed(r) == Some(true) {
                    t.strict_failed += 1;
                }
            }
        }
        t
    }

    /// True when a log fails the gate (exit 1).
    pub fn failed(&self) -> bool {
        self.corrupt
            + self.refused
            + self.provider_refused
            + self.strict_failed
            + self.foreign_named
            > 0
    }
}
