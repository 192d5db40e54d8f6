//! `sessions [STORE|ROOT|LOG]`: the sessions of a SQLite store (FORMAT.md §8.4), or of a
//! JSONL root directory (§7.1) or one loose log, served from the search index (issue 28),
//! brought up to date first, the most recently active first. The rows are
//! [`dsh_session::sessions::Row`]s, written by [`crate::render::sessions`]. The sessions of
//! a root are those the index holds under it: what the walk of `validate ROOT` takes; what
//! DSH left beside a log and each file of another harness (status `foreign`) are named on
//! standard error.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use dsh_session::index::{SessionFilter, SessionRow};
use dsh_session::load::sqlite::{Store, StoreError};
use dsh_session::sessions::{self, Row};

use crate::cli::SessionsArgs;
use crate::cmd::Rejected;
use crate::render::index::{Say, open, update};
use crate::render::sessions::{ROOT, STORE, write};

/// Runs `sessions`.
pub fn run(args: &SessionsArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let given = args.store.iter().cloned().collect::<Vec<_>>();
    let path = &crate::cmd::paths_or_default_root(&given, "sessions")?[0];
    // A JSONL root, or one DSH log (a loose log is listed as a root of one): from the index.
    if path.is_dir() || (path.is_file() && dsh_session::load::layout::has_dsh_header(path)) {
        return match root_rows(args, path)? {
            Ok(rows) => write(out, args.format, &rows, ROOT).map(|()| ExitCode::SUCCESS),
            Err(code) => Ok(code),
        };
    }
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
    let (rows, notes) =
        sessions::of_store(path, &store).with_context(|| path.display().to_string())?;
    for note in notes {
        stderr!("dsh-session: {note}");
    }
    write(out, args.format, &rows, STORE)?;
    Ok(ExitCode::SUCCESS)
}

/// The rows of the JSONL root (or log) `path`, from the index brought up to date; the exit
/// code instead when a directory given holds no logs.
///
/// # Errors
/// The index cannot be used; nothing under `path` is a JSONL root's session (the error
/// says what is there instead).
fn root_rows(args: &SessionsArgs, path: &Path) -> Result<Result<Vec<Row>, ExitCode>> {
    let owned = path.to_path_buf();
    let mut index = open(&args.index)?;
    if !args.no_update {
        // Logs that cannot be read are rows of the listing: no notes for them.
        let s = update(
            &mut index,
            std::slice::from_ref(&owned),
            Say::progress_only(),
        )?;
        // What the walk passed over, as `validate` says it (the same walk).
        crate::render::say_passed_over(s.passed_over.clone());
        if !s.empty_dirs.is_empty() {
            return Ok(Err(ExitCode::from(2)));
        }
    }
    let root = std::fs::canonicalize(path).with_context(|| path.display().to_string())?;
    // What DSH left beside its logs is named on standard error, as a walk of the root
    // names it (the walk that updated the index said it already; with --no-update there
    // was none).
    if args.no_update && path.is_dir() {
        let (_, left) =
            sessions::jsonl_sessions(path).with_context(|| path.display().to_string())?;
        for note in left {
            stderr!("dsh-session: {note}");
        }
    }
    let found = index.sessions(&SessionFilter {
        under: vec![root.clone()],
        jsonl_only: true,
        ..SessionFilter::default()
    })?;
    // The index keeps files under the canonical root; notes name them as given.
    let given = |file: &PathBuf| match file.strip_prefix(&root) {
        Ok(rel) => path.join(rel),
        Err(_) => file.clone(),
    };
    let mut foreign: Vec<(PathBuf, &SessionRow)> = found
        .iter()
        .filter(|s| s.session.status == "foreign")
        .map(|s| (given(&s.session.file), s))
        .collect();
    foreign.sort_by(|a, b| a.0.cmp(&b.0));
    for (given, s) in foreign {
        // The table's row says `foreign`; this says which file and why.
        stderr!(
            "dsh-session: {}: {}",
            given.display(),
            s.message.as_deref().unwrap_or("not a DSH session log")
        );
    }
    if found.is_empty() {
        let (logs, _) = dsh_session::load::layout::discover(std::slice::from_ref(&owned));
        let stores: Vec<_> = logs
            .iter()
            .filter(|p| dsh_session::load::store_file::looks_like_store(p))
            .collect();
        match stores.first() {
            None if logs.is_empty() => bail!(crate::render::no_logs_in(path)),
            // Logs deeper than a root's sessions, or under other names.
            None => bail!(
                "{}: no JSONL root, project or session directory here (ROOT/PROJECT/SESSION/session.jsonl), but {} below it: list a root (`dsh-session sessions {}`), or describe one log with `show`",
                path.display(),
                dsh_session::wording::count(logs.len() as u64, "log"),
                sessions::root_of(&logs[0]).display()
            ),
            Some(first) => bail!(
                "{}: no JSONL session directories here, but {}: `sessions` lists one store at a time (`dsh-session sessions {}`)",
                path.display(),
                dsh_session::wording::count(stores.len() as u64, "SQLite store"),
                first.display()
            ),
        }
    }
    Ok(Ok(found.iter().map(Row::from).collect()))
}
