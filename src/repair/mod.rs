//! Crash repair, the planning half (FORMAT.md §5): from a finished scan, what a repair cuts
//! and appends, the heals for a provider, the in-memory check of stored events + closers +
//! heals, whether an interrupted repair is completed instead, and why findings stay. It
//! writes nothing: [`crate::write`] applies the [`write::Plan`] a [`Repair`] holds.
//!
//! Planning reads the log through a driver it is handed ([`Scan`]: one pass of the scan
//! with the options and views it asks for), three passes at most: the log with DSH's closers
//! ([`plan::planned`]), then, to heal, the messages the heals are built from and the healed
//! log ([`healing::heals_for`]). Besides the scans it reads only what the writer must find again:
//! the fingerprint of the bytes to cut, a torn zstd frame's complete lines, a SQLite
//! session's row set. The closers themselves are a load-time check
//! ([`crate::check::closers`]).

pub mod apply;
pub mod healing;
pub mod plan;
pub mod stays;

use std::io;
use std::path::Path;

use crate::heal::{Heal, Unhealed};
use crate::provider::Provider;
use crate::rules::Finding;
use crate::scan::{self, Report, ScanError, ScanOptions, TornTail};
use crate::view::View;
use crate::write::{self, WriteError};
use stays::Staying;

/// One pass over the log being repaired: the scan with these options, telling these views
/// ([`scan::scan_path_with`] on the log's path, for [`plan()`]).
pub type Scan<'a> = dyn FnMut(&ScanOptions, &mut [&mut dyn View]) -> Result<Report, ScanError> + 'a;

/// What a repair would do or did: the plan the writer applies, and what it means.
#[derive(Debug, Clone)]
pub struct Repair {
    /// What [`crate::write::apply`] writes.
    pub plan: write::Plan,
    /// The torn tail cut, as the scan found it (`None`: nothing is cut, or a journal is
    /// completed).
    pub cut: Option<TornTail>,
    /// Heal records appended after the closers (`repair --provider`, [`crate::heal`]), with
    /// what each changes; their records are also in the plan.
    pub heals: Vec<Heal>,
    /// Provider findings the repaired history still has, and why DSH's closers leave them
    /// (PROVIDERS.md §3; empty when resuming a journal).
    pub stays: Vec<Staying>,
    /// Provider findings no heal fixes, and why.
    pub unhealed: Vec<Unhealed>,
}

impl Repair {
    /// True when there is nothing to cut, nothing to append and no journal to complete.
    pub fn is_empty(&self) -> bool {
        self.plan.is_empty()
    }

    /// True when an interrupted repair is completed from its journal.
    pub fn resumed(&self) -> bool {
        self.plan.resume.is_some()
    }
}

/// Why a repair cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum RepairError {
    /// The log is corrupt or refused: repair would guess; nothing was written.
    #[error("{status} {finding}; nothing was written")]
    Refused {
        /// `corrupt` or `refused`.
        status: &'static str,
        /// The finding, as `validate` reports it.
        finding: Finding,
    },
    /// The healed log would not validate: a heal this build wrote wrongly. Nothing is
    /// written.
    #[error("the healed log would not validate ({0}); nothing was written (please report this)")]
    Heal(String),
    /// The log changed between two passes of the planning (a live writer?).
    #[error("the log changed since it was scanned ({0}); is DSH writing it? nothing was written")]
    Changed(String),
    /// Reading or scanning failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// Reading what the writer must find again failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Reading the torn frame failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Plans the repair of the log at `path` (one session of a SQLite store), and with
/// `provider` the heals that make its derived history pass that provider's P-rules: the log
/// with closers and heals is validated in memory (DSH's rules and the provider's) before
/// the plan is returned. A log whose repair journal waits gets the plan that completes it.
///
/// # Errors
/// [`RepairError::Refused`] for a corrupt or refused log (including one whose closers
/// would not validate); [`RepairError::Heal`] when the healed log would not validate;
/// scan and read errors.
pub fn plan(
    path: &Path,
    session: Option<&str>,
    provider: Option<Provider>,
) -> Result<Repair, RepairError> {
    plan_with(path, session, provider, false).map(|(repair, _)| repair)
}

/// Repairs the log at `path` (one `session` of a SQLite store; with `provider`, healed for
/// it): plans it ([`plan()`]) and, unless `dry_run`, writes the plan, the original
/// first copied beside it with `backup`.
///
/// # Errors
/// [`apply::ApplyError`]: no plan, an unwritable log or directory, a log that changed, a write
/// that failed (what is left, and how to complete it, in the sentence).
pub fn run(
    path: &Path,
    session: Option<&str>,
    provider: Option<Provider>,
    dry_run: bool,
    backup: bool,
) -> Result<(Repair, apply::Done), apply::ApplyError> {
    let mut planned = plan(path, session, provider)?;
    if planned.is_empty() {
        return Ok((planned, apply::Done::NothingToRepair));
    }
    if dry_run {
        return Ok((planned, apply::Done::WouldRepair));
    }
    apply::preflight(&planned.plan, backup)?;
    let stamp = |p: &Path| {
        std::fs::metadata(p)
            .ok()
            .map(|m| (m.len(), m.modified().ok()))
    };
    let before = stamp(path);
    match write::apply(&mut planned.plan, backup) {
        Ok(()) => Ok((planned, apply::Done::Repaired)),
        Err(e @ WriteError::Changed(_)) => Err(apply::ApplyError::Changed(e)),
        Err(e) => {
            let why = crate::wording::error_text(&e);
            let log = path.display();
            Err(match &planned.plan.backup {
                // Nothing of the log changed: the backup is a copy of it, not needed.
                Some(_) if stamp(path) == before => {
                    write::discard_backup(&planned.plan);
                    apply::ApplyError::Stopped(format!(
                        "{log}: cannot repair: {why}; nothing was written (the backup made first is removed)"
                    ))
                }
                Some(b) => apply::ApplyError::Stopped(format!(
                    "{log}: the repair stopped part way: {why}; the original is kept in {}, and `dsh-session repair` run again completes it",
                    b.display()
                )),
                None => apply::ApplyError::Write(e),
            })
        }
    }
}

/// [`plan()`] for `provider`, and the history the log would then derive: the report of the
/// scan that validated stored events + closers + heals, with its messages kept (spilled to
/// a temporary file past 2 MiB). `None` for a log whose repair journal is waiting to be
/// completed (its plan resumes it; nothing was scanned).
///
/// # Errors
/// As [`plan()`].
pub fn healed_history(
    path: &Path,
    session: Option<&str>,
    provider: Provider,
) -> Result<(Repair, Option<Report>), RepairError> {
    plan_with(path, session, Some(provider), true)
}

/// [`plan()`]; `keep_messages`: also the report of the last scan, keeping messages.
fn plan_with(
    path: &Path,
    session: Option<&str>,
    provider: Option<Provider>,
    keep_messages: bool,
) -> Result<(Repair, Option<Report>), RepairError> {
    // An interrupted repair is completed to the bytes it planned, never planned again.
    if let Some(journal) = write::journal::read_journal(path)? {
        let repair = Repair {
            plan: write::Plan::resuming(path, journal)?,
            cut: None,
            heals: Vec::new(),
            stays: Vec::new(),
            unhealed: Vec::new(),
        };
        return Ok((repair, None));
    }
    let mut scan = |options: &ScanOptions, views: &mut [&mut dyn View]| {
        scan::scan_path_with(path, options, views)
    };
    plan::planned(path, session, provider, keep_messages, &mut scan)
}
