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
use crate::render::{opt, table, write_rows, write_table};
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

/// The current log of every session of a JSONL root, `<root>/<project>/<session>/…`: the
/// highest generation among `session.jsonl[.zstd]` and `session.vN.jsonl[.zstd]`, sorted.
/// What DSH left beside a log ([`dsh_session::load::leftovers`]) is named on standard
/// error.
pub fn jsonl_sessions(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut left = Vec::new();
    for project in std::fs::read_dir(root)? {
        let project = project?.path();
        if !project.is_dir() {
            continue;
        }
        for session in std::fs::read_dir(&project)? {
            let session = session?.path();
            if !session.is_dir() {
                continue;
            }
            let files: Vec<PathBuf> = std::fs::read_dir(&session)?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect();
            // What DSH left beside the log is said, not listed as a session.
            for file in &files {
                let name = file.file_name().map(|n| n.to_string_lossy());
                if let Some(kind) = name.and_then(|n| dsh_session::load::leftovers::leftover(&n)) {
                    left.push(kind.note(file));
                }
            }
            // The current generation of the session: the highest canonical file name.
            let current = files
                .into_iter()
                .filter_map(|p| dsh_session::load::layout::generation_of_path(&p).map(|n| (n, p)))
                .max();
            if let Some((_, file)) = current {
                found.push(file);
            }
        }
    }
    found.sort();
    left.sort();
    for note in left {
        eprintln!("dsh-session: {note}");
    }
    Ok(found)
}

/// Scans one session with the counts view (turns, title); `None` when it cannot be read.
fn scan_counting(path: &std::path::Path, options: &ScanOptions) -> Option<(scan::Report, Stats)> {
    let mut stats = Stats::default();
    let report = scan::scan_path_with(path, options, &mut [&mut stats]).ok()?;
    Some((report, stats))
}

/// Runs `sessions`.
pub fn run(args: &SessionsArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let path = &args.store;
    if path.is_dir() {
        return crate::cmd::sessions_root::run(args, out);
    }
    let mut rows = Vec::new();
    if path.is_file() && !dsh_session::load::store_file::looks_like_store(path) {
        bail!(
            "{}: not a SQLite store (no SQLite header) nor a directory; `sessions` lists a store or a JSONL root, `show` describes one log",
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
            Err(f) => eprintln!("dsh-session: {}: {f}", path.display()),
        }
    }
    let Some(format) = crate::cmd::sessions_root::table_format(args.format) else {
        return crate::cmd::sessions_root::write_csv(out, &rows).map(|()| ExitCode::SUCCESS);
    };
    write_rows(out, format, &rows, |out| {
        let mut t = table(&[
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
        ]);
        for r in &rows {
            t.add_row(vec![
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
            ]);
        }
        write_table(out, &t)?;
        Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
