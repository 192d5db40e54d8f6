//! `sessions ROOT`: every session of a JSONL root directory (FORMAT.md §7.1), served from
//! the search index (issue 28), brought up to date first: the most recently active first.
//! The sessions listed are those the index holds under the root: what the walk of
//! `validate ROOT` takes (the current generation of each session, also logs outside
//! DSH's `<root>/<project>/<session>/` directories); what DSH left beside a log and each
//! file of another harness (status `foreign`) are named on standard error.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use dsh_session::index::{SessionFilter, SessionRow};
use dsh_session::wording::utc;
use serde::Serialize;

use crate::cli::{SessionsArgs, SessionsFormat, TableFormat};
use crate::render::{Give, left_out_note, opt, terminal_columns, write_fitted, write_rows};

/// The table format of a `sessions` format; `None` for CSV.
pub fn table_format(format: SessionsFormat) -> Option<TableFormat> {
    match format {
        SessionsFormat::Text => Some(TableFormat::Text),
        SessionsFormat::Json => Some(TableFormat::Json),
        SessionsFormat::Jsonl => Some(TableFormat::Jsonl),
        SessionsFormat::Csv => None,
    }
}

/// Rows as CSV (RFC 4180): a header line of the field names, then a line per row; arrays
/// and objects as their JSON text. Nothing for no rows.
pub fn write_csv<T: Serialize>(out: &mut dyn Write, rows: &[T]) -> Result<()> {
    for (i, row) in rows.iter().enumerate() {
        let serde_json::Value::Object(fields) = serde_json::to_value(row)? else {
            bail!("internal error: a row is not an object");
        };
        if i == 0 {
            let names: Vec<&str> = fields.keys().map(String::as_str).collect();
            writeln!(out, "{}", names.join(","))?;
        }
        let cells: Vec<String> = fields.values().map(crate::cmd::stats::csv_field).collect();
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}

/// One session of a JSONL root: the fields of `sessions STORE` (schema 2), then what the
/// index adds.
#[derive(Debug, Serialize)]
pub(crate) struct Row {
    #[serde(flatten)]
    base: crate::cmd::sessions::Row,
    last_activity: Option<String>,
    /// `provider/model` most assistant messages named.
    model: Option<String>,
    /// Every `provider/model` named, in the order first named.
    models: Vec<String>,
    tool_calls: u64,
    generation: Option<String>,
    rule: Option<String>,
    /// Bytes of the log file.
    size: u64,
    input_tokens: u64,
    output_tokens: u64,
}

impl From<&SessionRow> for Row {
    fn from(s: &SessionRow) -> Self {
        // Another harness's file has no DSH header or events to describe: its row says only
        // what it is (status `foreign`) and where.
        let counted = !matches!(s.status.as_str(), "unreadable" | "foreign");
        let name = |m: &dsh_session::index::ModelUse| format!("{}/{}", m.provider, m.model);
        Row {
            base: crate::cmd::sessions::Row {
                schema_version: crate::cmd::sessions::SCHEMA_VERSION,
                id: (!s.session.is_empty()).then(|| s.session.clone()),
                title: s.title.clone().filter(|_| counted),
                created_at: s.created_at.map(utc),
                cwd: s.cwd.clone(),
                parent_session: s.parent_session.clone(),
                seed_length: s.seed_length,
                origin: s.origin.clone(),
                delegation_depth: s.delegation_depth,
                events: counted.then_some(s.events),
                turns: counted.then_some(s.turns),
                revision: s.revision,
                status: s.status.clone(),
                file: Some(s.file.display().to_string()),
            },
            last_activity: s.last_time.map(utc),
            model: s.main_model().map(name),
            models: s.models.iter().map(name).collect(),
            tool_calls: s.tool_calls,
            generation: s.generation.clone(),
            rule: s.rule.clone(),
            size: s.size,
            input_tokens: s.tokens.input,
            output_tokens: s.tokens.output,
        }
    }
}

/// `2026-11-30T14:02Z`: a time in a table, to the minute, without a space to wrap at.
fn minute(ms: i64) -> String {
    let t = utc(ms);
    match t.get(..16) {
        Some(m) => format!("{m}Z"),
        None => t,
    }
}

/// Runs `sessions ROOT` for the root `path` (given, or DSH's default root).
pub fn run(args: &SessionsArgs, path: &Path, out: &mut dyn Write) -> Result<ExitCode> {
    let owned = path.to_path_buf();
    let mut index = crate::cmd::index::open(&args.index)?;
    if !args.no_update {
        // Logs that cannot be read are rows of the listing: no notes for them.
        let say = crate::cmd::index::Say {
            progress: true,
            notes: false,
            as_is_when_busy: true,
        };
        let s = crate::cmd::index::update(&mut index, std::slice::from_ref(&owned), say)?;
        // What the walk passed over, as `validate` says it (the same walk).
        crate::cmd::say_passed_over(s.passed_over.clone());
        if !s.empty_dirs.is_empty() {
            return Ok(ExitCode::from(2));
        }
    }
    let root = std::fs::canonicalize(path).with_context(|| path.display().to_string())?;
    // What DSH left beside its logs is named on standard error, as a walk of the root
    // names it (the walk that updated the index said it already; with --no-update there
    // was none).
    if args.no_update && path.is_dir() {
        crate::cmd::sessions::jsonl_sessions(path).with_context(|| path.display().to_string())?;
    }
    let sessions = index.sessions(&SessionFilter {
        under: vec![root.clone()],
        jsonl_only: true,
        ..SessionFilter::default()
    })?;
    // The index keeps files under the canonical root; notes name them as given.
    let given = |file: &PathBuf| match file.strip_prefix(&root) {
        Ok(rel) => path.join(rel),
        Err(_) => file.clone(),
    };
    let mut foreign: Vec<(PathBuf, &SessionRow)> = sessions
        .iter()
        .filter(|s| s.status == "foreign")
        .map(|s| (given(&s.file), s))
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
    if sessions.is_empty() {
        let (found, _) =
            dsh_session::load::layout::discover(std::slice::from_ref(&owned), "sessions");
        let stores: Vec<_> = found
            .iter()
            .filter(|p| dsh_session::load::store_file::looks_like_store(p))
            .collect();
        match stores.first() {
            None if found.is_empty() => bail!(crate::cmd::no_logs_in(path)),
            // Logs deeper than a root's sessions, or under other names.
            None => bail!(
                "{}: no JSONL root, project or session directory here (ROOT/PROJECT/SESSION/session.jsonl), but {} below it: list a root (`dsh-session sessions {}`), or describe one log with `show`",
                path.display(),
                dsh_session::wording::count(found.len() as u64, "log"),
                crate::cmd::sessions::root_of(&found[0]).display()
            ),
            Some(first) => bail!(
                "{}: no JSONL session directories here, but {}: `sessions` lists one store at a time (`dsh-session sessions {}`)",
                path.display(),
                dsh_session::wording::count(stores.len() as u64, "SQLite store"),
                first.display()
            ),
        }
    }
    let rows: Vec<Row> = sessions.iter().map(Row::from).collect();
    let Some(format) = table_format(args.format) else {
        write_csv(out, &rows)?;
        return Ok(ExitCode::SUCCESS);
    };
    write_rows(out, format, &rows, |out| {
        // On a terminal, ids, dates and counts stay whole: the title and project are cut
        // first, then the columns of least use are left out (the note under the table says
        // which), and the title and project, which stay, are cut further.
        let header = [
            "session",
            "title",
            "project",
            "created",
            "last activity",
            "turns",
            "model",
            "status",
            "size",
        ];
        let gives = [
            Give::Never,   // session
            Give::Squeeze, // title: stays, cut to fit
            Give::Squeeze, // project: stays, cut to fit
            Give::Drop(1), // created
            Give::Drop(5), // last activity
            Give::Drop(3), // turns
            Give::Drop(2), // model
            Give::Never,   // status
            Give::Drop(0), // size
        ];
        let cells: Vec<Vec<String>> = rows
            .iter()
            .zip(&sessions)
            .map(|(r, s)| {
                vec![
                    opt(r.base.id.as_deref()),
                    opt(r.base.title.as_deref()),
                    opt(r.base.cwd.as_deref()),
                    opt(s.created_at.map(minute)),
                    opt(s.last_time.map(minute)),
                    opt(r.base.turns),
                    opt(r.model.as_deref()),
                    r.base.status.clone(),
                    crate::cmd::index::bytes(r.size),
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
