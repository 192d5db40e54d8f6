//! `sessions STORE`: the sessions of a SQLite store (FORMAT.md §8.4); a JSONL root
//! directory (§7.1) is listed from the search index ([`crate::cmd::sessions_root`]), what
//! DSH left beside its logs named as [`jsonl_sessions`] names it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use dsh_session::header::Header;
use dsh_session::load::sqlite::{Store, StoreError};
use dsh_session::scan::{self, ScanOptions, Status};
use dsh_session::view::stats::Stats;
use serde::Serialize;

use crate::cli::SessionsArgs;
use crate::cmd::Rejected;
use crate::render::{Give, left_out_note, opt, terminal_columns, write_fitted, write_rows};
use dsh_session::wording::utc;

/// `sessions --format json` layout: 2 renamed `id` to `session`.
pub const SCHEMA_VERSION: u32 = 2;

/// One session in `sessions --format json` (schema [`SCHEMA_VERSION`]).
#[derive(Debug, Serialize)]
pub(crate) struct Row {
    pub(crate) schema_version: u32,
    /// The header's session id; `null` for a file whose header is not DSH's (another
    /// harness's log, status `foreign`) or cannot be read.
    #[serde(rename = "session")]
    pub(crate) id: Option<String>,
    /// The latest `session/title`; `null` when the log has none or cannot be read.
    pub(crate) title: Option<String>,
    pub(crate) created_at: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) parent_session: Option<String>,
    pub(crate) seed_length: Option<i64>,
    pub(crate) origin: Option<String>,
    pub(crate) delegation_depth: Option<i64>,
    /// Logical events (packed rows expanded); `null` when the session cannot be read.
    pub(crate) events: Option<u64>,
    pub(crate) turns: Option<u64>,
    /// SQLite schema 17 only.
    pub(crate) revision: Option<i64>,
    pub(crate) status: String,
    /// The file holding the session (JSONL roots only).
    pub(crate) file: Option<String>,
}

fn row(
    header: &Header,
    revision: Option<i64>,
    file: Option<String>,
    report: Option<&(scan::Report, Stats)>,
) -> Row {
    // Another harness's file has no DSH header or events to describe: its row says only
    // what it is (status `foreign`) and where.
    let counted = report.filter(|(r, _)| r.status != Status::Foreign);
    Row {
        schema_version: SCHEMA_VERSION,
        id: (!header.id.is_empty()).then(|| header.id.clone()),
        title: counted.and_then(|(_, s)| s.title.clone()),
        created_at: header.created_at.map(utc),
        cwd: header.cwd.clone(),
        parent_session: header.parent_session.clone(),
        seed_length: header.seed_length,
        origin: header.origin.clone(),
        delegation_depth: header.delegation_depth,
        events: counted.map(|(r, _)| r.events),
        turns: counted.map(|(_, s)| s.turn_count),
        revision,
        status: report
            .map_or("unreadable", |(r, _)| r.status.name())
            .to_owned(),
        file,
    }
}

/// The current log of every session under `dir`, sorted: `dir` may be a JSONL root
/// (`<root>/<project>/<session>/…`), one project directory of it, or one session directory
/// (FORMAT.md §7.1). A session directory is one that holds a canonical log
/// (`session.jsonl[.zstd]`, `session.vN.jsonl[.zstd]`); its current generation is the
/// highest. What DSH left beside a log ([`dsh_session::load::leftovers`]) is named on
/// standard error.
pub fn jsonl_sessions(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut left = Vec::new();
    // The directory itself, its subdirectories, their subdirectories: the first level at
    // which session directories are found is what `dir` is.
    let mut level = vec![dir.to_path_buf()];
    for _ in 0..3 {
        let mut below = Vec::new();
        for d in &level {
            match current_log(d, &mut left)? {
                Some(file) => found.push(file),
                None => {
                    for entry in std::fs::read_dir(d)? {
                        let path = entry?.path();
                        if path.is_dir() {
                            below.push(path);
                        }
                    }
                }
            }
        }
        if !found.is_empty() {
            break;
        }
        level = below;
    }
    found.sort();
    left.sort();
    for note in left {
        stderr!("dsh-session: {note}");
    }
    Ok(found)
}

/// The current generation of a session directory: its highest canonical file; `None` when
/// it holds none. What DSH left beside the log is added to `left` as a note, not listed as
/// a session.
fn current_log(dir: &Path, left: &mut Vec<String>) -> std::io::Result<Option<PathBuf>> {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    for file in &files {
        let name = file.file_name().map(|n| n.to_string_lossy());
        if let Some(kind) = name.and_then(|n| dsh_session::load::leftovers::leftover(&n)) {
            left.push(kind.note(file));
        }
    }
    Ok(files
        .into_iter()
        .filter_map(|p| dsh_session::load::layout::generation_of_path(&p).map(|n| (n, p)))
        .max()
        .map(|(_, p)| p))
}

/// The JSONL root a log found by the walk would sit in: `ROOT/PROJECT/SESSION/FILE`.
pub(crate) fn root_of(log: &Path) -> &Path {
    log.ancestors().nth(3).unwrap_or(log)
}

/// Scans one session with the counts view (turns, title); `None` when it cannot be read.
fn scan_counting(path: &std::path::Path, options: &ScanOptions) -> Option<(scan::Report, Stats)> {
    let mut stats = Stats::default();
    let report = scan::scan_path_with(path, options, &mut [&mut stats]).ok()?;
    Some((report, stats))
}

/// Runs `sessions`.
pub fn run(args: &SessionsArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let given = args.store.iter().cloned().collect::<Vec<_>>();
    let path = &crate::cmd::paths_or_default_root(&given, "sessions")?[0];
    // A JSONL root, or one DSH log (a loose log is listed as a root of one): from the index.
    if path.is_dir() || (path.is_file() && dsh_session::load::layout::has_dsh_header(path)) {
        return crate::cmd::sessions_root::run(args, path, out);
    }
    let mut rows = Vec::new();
    if path.is_file() && !dsh_session::load::store_file::looks_like_store(path) {
        bail!(
            "{}: not a SQLite store (no SQLite header), a DSH log nor a directory; `sessions` lists a store, a JSONL root or a log, `show` describes one log",
            path.display()
        );
    }
    let store = match Store::open(path) {
        Ok(store) => store,
        Err(StoreError::Refused(f)) => {
            return Err(Rejected(format!("{}: refused {f}", path.display())).into());
        }
        Err(e) => return Err(anyhow::Error::new(e).context(path.display().to_string())),
    };
    for (_, session) in store
        .sessions()
        .with_context(|| path.display().to_string())?
    {
        match session {
            Ok(s) => {
                let options = ScanOptions {
                    session: Some(s.header.id.clone()),
                    ..ScanOptions::default()
                };
                let report = scan_counting(path, &options);
                rows.push(row(&s.header, s.revision, None, report.as_ref()));
            }
            Err(f) => stderr!("dsh-session: {}: {f}", path.display()),
        }
    }
    let Some(format) = crate::cmd::sessions_root::table_format(args.format) else {
        return crate::cmd::sessions_root::write_csv(out, &rows).map(|()| ExitCode::SUCCESS);
    };
    write_rows(out, format, &rows, |out| {
        // On a terminal, ids and dates stay whole: the title and cwd are cut first, then
        // the columns of least use are left out, and the note under the table says which
        // (at 80 columns a session id and its status are what always fits).
        let header = [
            "session",
            "title",
            "created at",
            "cwd",
            "parent",
            "seed",
            "origin",
            "depth",
            "events",
            "turns",
            "revision",
            "status",
        ];
        let gives = [
            Give::Never,   // session
            Give::Squeeze, // title: stays, cut to fit
            Give::Drop(5), // created at
            Give::Squeeze, // cwd: stays, cut to fit
            Give::Drop(2), // parent
            Give::Drop(0), // seed
            Give::Drop(0), // origin
            Give::Drop(1), // depth
            Give::Drop(3), // events
            Give::Drop(3), // turns
            Give::Drop(0), // revision
            Give::Never,   // status
        ];
        let cells: Vec<Vec<String>> = rows
            .iter()
            .map(|r| {
                vec![
                    opt(r.id.as_deref()),
                    opt(r.title.as_deref()),
                    opt(r.created_at.as_deref()),
                    opt(r.cwd.as_deref()),
                    opt(r.parent_session.as_deref()),
                    opt(r.seed_length),
                    opt(r.origin.as_deref()),
                    opt(r.delegation_depth),
                    opt(r.events),
                    opt(r.turns),
                    opt(r.revision),
                    r.status.to_owned(),
                ]
            })
            .collect();
        let columns = terminal_columns();
        let left_out = write_fitted(out, &header, &gives, usize::MAX, &cells, columns)?;
        if let Some(note) = left_out_note(&left_out, columns) {
            writeln!(out, "\n{note}")?;
        }
        Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
