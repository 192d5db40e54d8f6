//! Recovery, the planning half (`recover FILE --out ROOT`): from a log DSH refuses, new
//! sessions DSH loads, losing nothing it can keep. [`run`] goes down once: it reads the log
//! ([`read`]: the scan's verdict and every record as stored), plans on what was read
//! ([`plan_read`], which writes nothing and reads no file: each session is checked in
//! memory through the [`CheckAt`] it is handed), hands the [`Recovery`]'s sessions
//! ([`recovery`]) to [`crate::write::new_session`], which publishes them and reads each
//! back ([`publish::read_back`]), and returns what it did for a front end to render.
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
//! 4. [`run`] hands the finished plan to [`crate::write::new_session`], which publishes
//!    each session and reads it back from where it was written ([`publish`]).
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
use crate::repair::Scan;
use crate::rules::Rule;
use crate::scan::{self, Report, ScanError, ScanOptions, Status};
use crate::view::View;
use crate::write::WriteError;
use crate::write::new_session::{self, NewFile, ReadBack};
use assemble::{Candidate, Policy};
use branch::{Target, recover_branch};
use stored::{Stored, Unreadable};

pub use publish::Done;
pub use recovery::show_ranges;
pub use recovery::{
    Changed, Dropped, Fates, KeptCount, LineFate, MemberChange, NewSession, Recovery, Unrecoverable,
};

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

/// Recovers the log at `path`: reads it once ([`read`]: the scan's verdict and every record
/// as stored), plans its sessions on what was read ([`plan_read`]), and, unless `dry_run`,
/// hands them to [`crate::write::new_session`], which publishes each under `options.root`
/// and reads it back as DSH loads it ([`publish::read_back`]): what `recover` does.
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
    let mut scan =
        |o: &ScanOptions, views: &mut [&mut dyn View]| scan::scan_path_with(path, o, views);
    let (report, stored) = read(path, options, &mut scan)?;
    let mut recovery = plan_read(path, &report, &stored, options, &in_memory)?;
    let unwritten = if recovery.valid() {
        Some(Done::Valid)
    } else if recovery.sessions.is_empty() {
        Some(Done::NothingRecoverable)
    } else {
        None
    };
    let mut read_back = |written: &Path| publish::read_back(written);
    let (done, taken) =
        write_sessions(&recovery, &options.root, unwritten, dry_run, &mut read_back)?;
    for (s, taken) in recovery.sessions.iter_mut().zip(taken) {
        s.exists = taken;
    }
    Ok((recovery, done))
}

/// Hands the planned sessions to [`crate::write::new_session`]: tells which of them have a
/// path (or an id elsewhere under `root`) that is taken, refuses a root of the other
/// encoding, and, unless `unwritten` says why nothing is to be written, a session is taken
/// or `dry_run`, publishes them, each read back with `read_back`. Returns what it did and,
/// per session, whether it was taken ([`NewSession::exists`]).
fn write_sessions(
    recovery: &Recovery,
    root: &Path,
    unwritten: Option<Done>,
    dry_run: bool,
    read_back: &mut ReadBack<'_>,
) -> Result<(Done, Vec<bool>), RecoverError> {
    let files: Vec<NewFile<'_>> = (recovery.sessions.iter())
        .map(|s| NewFile {
            path: &s.path,
            text: &s.text,
            encoding: s.encoding,
        })
        .collect();
    let taken: Vec<bool> = files.iter().map(|f| new_session::taken(f, root)).collect();
    let encoding = files.iter().map(|f| f.encoding).next();
    if let Some(file) = encoding.and_then(|e| new_session::other_encoding(root, e)) {
        let kind = if encoding == Some(Encoding::Zstd) {
            "plain"
        } else {
            "zstd"
        };
        return Err(RecoverError::OtherEncoding(format!(
            "{}: the root holds {kind} sessions ({}), and DSH reads one encoding per root: write them with --as {kind}",
            root.display(),
            file.display(),
        )));
    }
    let done = if let Some(done) = unwritten {
        done
    } else if taken.contains(&true) {
        Done::NotWritten
    } else if dry_run {
        Done::WouldRecover
    } else {
        match new_session::publish_read_back(&files, read_back) {
            Ok(()) => Done::Recovered,
            Err(WriteError::NotLoaded { path, problem }) => {
                return Err(RecoverError::ReadBack { path, problem });
            }
            Err(e) => return Err(RecoverError::Write(e)),
        }
    };
    Ok((done, taken))
}

/// The in-memory DSH every planned session is checked by: one scan of a session's `text`
/// as it would be stored at `at` (its name decides G2 and H6), with these options, telling
/// these views. Planning is handed it ([`plan_read`]), as repair's planning is handed its
/// [`Scan`] of the log.
pub type CheckAt<'a> =
    dyn Fn(&Path, &[u8], &ScanOptions, &mut [&mut dyn View]) -> Result<Report, ScanError> + 'a;

/// [`CheckAt`] as DSH loads a log: [`scan::scan_text_with`].
fn in_memory(
    at: &Path,
    text: &[u8],
    options: &ScanOptions,
    views: &mut [&mut dyn View],
) -> Result<Report, ScanError> {
    scan::scan_text_with(at, text.to_vec(), options, views)
}

/// Plans the recovery of the log at `path` (one session of a SQLite store) under
/// `options.root`: reads it ([`read`]) and plans on what was read ([`plan_read`]). A log
/// valid as the process's DSH line loads it (`--dsh`) needs none: its recovery holds no
/// session.
///
/// # Errors
/// [`RecoverError::Nothing`] when nothing can be recovered; read errors.
pub fn plan(path: &Path, options: &Options) -> Result<Recovery, RecoverError> {
    let mut scan =
        |o: &ScanOptions, views: &mut [&mut dyn View]| scan::scan_path_with(path, o, views);
    let (report, stored) = read(path, options, &mut scan)?;
    plan_read(path, &report, &stored, options, &in_memory)
}

/// The log read once, through the scan `scan` drives over it: the finished scan's report
/// (the verdict DSH gives it) and every record and hole as stored ([`stored::read`], which
/// reads on past each defect).
///
/// # Errors
/// [`RecoverError::Nothing`] for a log that is not DSH's, or has no header to rebuild a
/// session from; read errors.
pub fn read(
    path: &Path,
    options: &Options,
    scan: &mut Scan<'_>,
) -> Result<(Report, Stored), RecoverError> {
    let report = scan(
        &ScanOptions {
            session: options.session.clone(),
            ..ScanOptions::default()
        },
        &mut [],
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
    Ok((report, stored))
}

/// Plans the sessions the log at `path` becomes, on what [`read`] read of it (`report`,
/// `stored`): the writers' branches, each assembled and checked in memory as DSH 0.1.5+
/// and DSH 0.1.1 load it where it would be stored ([`branch`]), its identity, note and
/// account. Writes nothing, reads no file.
///
/// # Errors
/// [`RecoverError::Nothing`] when no new id can be derived; in-memory scan errors.
pub fn plan_read(
    path: &Path,
    report: &Report,
    stored: &Stored,
    options: &Options,
    check_at: &CheckAt<'_>,
) -> Result<Recovery, RecoverError> {
    let mut recovery = Recovery {
        file: path.to_path_buf(),
        store_session: stored.session.clone(),
        original: stored.header.id.clone(),
        verdict: report.verdict(),
        sessions: Vec::new(),
        failed: Vec::new(),
        fates: Fates::default(),
    };
    if recovery.valid() {
        return Ok(recovery);
    }
    let split = writers::split(stored);
    let several = split.branches.len() > 1;
    let encoding = options.encoding.unwrap_or(match stored.encoding {
        Encoding::Zstd => Encoding::Zstd,
        _ => Encoding::Plain,
    });
    let quotes = note::Quotes::new(stored);
    let mut results = Vec::new();
    for (k, branch) in split.branches.iter().enumerate() {
        let suffix = if several {
            format!("-branch-{}", k + 1)
        } else {
            "-recovered".to_owned()
        };
        let Some((header, id, path)) =
            session::new_identity(stored, &suffix, &options.root, encoding)
        else {
            return Err(RecoverError::Nothing(
                "the header's id is not a JSON string: no new id can be derived from it".into(),
            ));
        };
        // The session is checked in memory as it would be stored at its path.
        let check = |text: &[u8], o: &ScanOptions, views: &mut [&mut dyn View]| {
            check_at(&path, text, o, views)
        };
        let mut target = Target {
            header,
            check: &check,
            both_lines: stored.era != Era::V0Alpha,
        };
        let note = |c: &Candidate, p: &Policy| {
            Some(note::note_text(
                stored,
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
            stored,
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
            stored,
            id,
            path,
            several.then_some(k + 1),
            branch.fork,
            recovered,
            encoding,
        ));
    }
    recovery.fates = fates::describe(stored, &split, &results, &quotes);
    Ok(recovery)
}
