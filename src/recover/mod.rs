//! Recovery, the planning half (`recover FILE --out ROOT`): from a log DSH refuses, new
//! sessions DSH loads, losing nothing it can keep. [`plan`] writes nothing; [`run`] hands
//! the [`Recovery`] ([`recovery`]) to [`crate::write::new_session`], which publishes its
//! sessions.
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
//!    could not hold ([`note::message_quotes`]); [`fates`] says where each line went
//!    ([`Recovery::lines`]), [`session`] what each session holds.
//! 4. [`run`] hands the finished plan to [`crate::write`] ([`publish`]) and reads each
//!    session back from where it was written.
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
pub mod fates;
pub mod header;
pub mod note;
pub mod publish;
pub mod recovery;
pub mod refs;
pub mod session;
pub mod shapes;
pub mod stored;
pub mod writers;

use std::path::{Path, PathBuf};

use crate::event::Era;
use crate::load::Encoding;
use crate::provider::Provider;
use crate::rules::Rule;
use crate::scan::{self, ScanError, ScanOptions, Status};
use crate::view::View;
use assemble::{Candidate, Policy};
use branch::{Target, recover_branch};
use stored::Unreadable;

pub use publish::Done;
pub use recovery::show_ranges;
pub use recovery::{Changed, Dropped, KeptCount, LineFate, NewSession, Recovery, Unrecoverable};

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
    /// The root holds sessions of the other encoding (DSH reads one per root, FORMAT.md
    /// §7.1): one sentence naming the root, a session of it, and `--as`.
    #[error("{0}")]
    OtherEncoding(String),
    /// Publishing failed ([`crate::write::WriteError::Exists`]: nothing was written).
    #[error(transparent)]
    Write(crate::write::WriteError),
    /// A written session does not load as read back from its path (a bug: the same
    /// session passed in memory); it was removed again.
    #[error("{}: {problem}; the file was removed again (please report this)", path.display())]
    ReadBack {
        /// The session's path.
        path: PathBuf,
        /// What the DSH that read it back said.
        problem: String,
    },
}

/// Plans the recovery of the log at `path` ([`plan`]) and, unless `dry_run`, writes
/// its sessions under `options.root`, each read back as DSH loads it: what `recover` does.
///
/// # Errors
/// As [`plan`]; [`RecoverError::OtherEncoding`] when the root holds sessions of the
/// other encoding; [`RecoverError::Write`] ([`crate::write::WriteError::Exists`]: a path
/// was taken meanwhile, nothing written); [`RecoverError::ReadBack`] when a written session
/// does not load (it is removed again).
pub fn run(
    path: &Path,
    options: &Options,
    dry_run: bool,
) -> Result<(Recovery, Done), RecoverError> {
    let mut recovery = plan(path, options)?;
    publish::mark_taken(&mut recovery, &options.root);
    if let Some(why) = publish::other_encoding(&recovery, &options.root) {
        return Err(RecoverError::OtherEncoding(why));
    }
    let done = if recovery.valid() {
        Done::Valid
    } else if recovery.sessions.is_empty() {
        Done::NothingRecoverable
    } else if recovery.sessions.iter().any(|s| s.exists) {
        Done::NotWritten
    } else if dry_run {
        Done::WouldRecover
    } else {
        publish::write_sessions(&recovery)?;
        Done::Recovered
    };
    Ok((recovery, done))
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
    let quotes = note::Quotes::new(&stored);
    let mut results = Vec::new();
    for (k, branch) in split.branches.iter().enumerate() {
        let suffix = if several {
            format!("-branch-{}", k + 1)
        } else {
            "-recovered".to_owned()
        };
        let Some((header, id, path)) =
            session::new_identity(&stored, &suffix, &options.root, encoding)
        else {
            return Err(RecoverError::Nothing(
                "the header's id is not a JSON string: no new id can be derived from it".into(),
            ));
        };
        // The session is checked in memory as it would be stored at its path.
        let check = |text: &[u8], o: &ScanOptions, views: &mut [&mut dyn View]| {
            scan::scan_text_with(&path, text.to_vec(), o, views)
        };
        let mut target = Target {
            header,
            check: &check,
            both_lines: stored.era != Era::V0Alpha,
        };
        let note = |c: &Candidate, p: &Policy| {
            Some(note::note_text(
                &stored,
                &report.finding,
                &split.strays,
                branch,
                k,
                split.branches.len(),
                c,
                p,
                &quotes,
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
        recovery.sessions.push(session::new_session(
            &stored,
            id,
            path,
            several.then_some(k + 1),
            branch.fork,
            recovered,
            encoding,
        ));
    }
    fates::describe(&mut recovery, &stored, &split, &results, &quotes);
    Ok(recovery)
}
