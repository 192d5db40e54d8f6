//! The sessions `sessions` lists, of a SQLite store (FORMAT.md §8.4) or of a JSONL root
//! (§7.1), as ONE row model ([`Row`]): the header's fields, the counts and the verdict, and
//! for a root's session (served from the search index) what the index adds ([`Indexed`]).
//! The CLI, the MCP server's `list_sessions` and any other front end print these rows.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::header::{Header, Lineage};
use crate::index::{ModelUse, SessionRow};
use crate::load::sqlite::{Store, StoreError};
use crate::scan::{self, ScanOptions, Status};
use crate::view::stats::Stats;
use crate::wording::utc;

/// `sessions --format json` layout: 2 renamed `id` to `session`.
pub const SCHEMA_VERSION: u32 = 2;

/// One session in `sessions --format json` (schema [`SCHEMA_VERSION`]): a store's session
/// has the header's fields, counts and verdict; a JSONL root's adds [`Indexed`] after them.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The header's session id; `null` for a file whose header is not DSH's (another
    /// harness's log, status `foreign`) or cannot be read.
    #[serde(rename = "session")]
    pub id: Option<String>,
    /// The latest `session/title`; `null` when the log has none or cannot be read.
    pub title: Option<String>,
    /// The header's `createdAt`, RFC 3339 UTC.
    pub created_at: Option<String>,
    /// The header's `cwd`: the project.
    pub cwd: Option<String>,
    /// The header's `parentSession`, `seedLength`, `origin` and `delegationDepth`.
    #[serde(flatten)]
    pub lineage: Lineage,
    /// Logical events (packed rows expanded); `null` when the session cannot be read.
    pub events: Option<u64>,
    /// `turn/start` events; `null` when the session cannot be read.
    pub turns: Option<u64>,
    /// SQLite schema 17 only.
    pub revision: Option<i64>,
    /// The verdict: `valid`, `torn-tail`, `corrupt`, `refused`, `foreign`, `unreadable`.
    pub status: String,
    /// The file holding the session (JSONL roots only).
    pub file: Option<String>,
    /// What the search index adds for a JSONL root's session; absent for a store's.
    #[serde(flatten)]
    pub indexed: Option<Indexed>,
}

/// What the search index adds to a JSONL root's [`Row`].
#[derive(Debug, Clone, Serialize)]
pub struct Indexed {
    /// The last event's time, RFC 3339 UTC.
    pub last_activity: Option<String>,
    /// `provider/model` most assistant messages named.
    pub model: Option<String>,
    /// Every `provider/model` named, in the order first named.
    pub models: Vec<String>,
    /// `tool/call` events.
    pub tool_calls: u64,
    /// The format generation (`head`, `june-2026`, `v1` … `v4`).
    pub generation: Option<String>,
    /// The rule behind a verdict other than `valid`.
    pub rule: Option<String>,
    /// Bytes of the log file.
    pub size: u64,
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Output tokens (reasoning included).
    pub output_tokens: u64,
}

impl Row {
    /// A store's session: its header (and schema 17 `revision`) and what a scan with the
    /// counts view found (`None`: it could not be read, status `unreadable`).
    pub fn of_store(
        header: &Header,
        revision: Option<i64>,
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
            lineage: header.lineage.clone(),
            events: counted.map(|(r, _)| r.events),
            turns: counted.map(|(_, s)| s.turn_count),
            revision,
            status: report
                .map_or("unreadable", |(r, _)| r.status.name())
                .to_owned(),
            file: None,
            indexed: None,
        }
    }
}

impl From<&SessionRow> for Row {
    /// A JSONL root's session as the index keeps it.
    fn from(s: &SessionRow) -> Self {
        // Another harness's file has no DSH header or events to describe: its row says only
        // what it is (status `foreign`) and where.
        let counted = !matches!(s.session.status.as_str(), "unreadable" | "foreign");
        let name = |m: &ModelUse| format!("{}/{}", m.provider, m.model);
        Row {
            schema_version: SCHEMA_VERSION,
            id: (!s.session.id.is_empty()).then(|| s.session.id.clone()),
            title: s.session.title.clone().filter(|_| counted),
            created_at: s.times.created_at.map(utc),
            cwd: s.session.cwd.clone(),
            lineage: s.session.lineage.clone(),
            events: counted.then_some(s.events),
            turns: counted.then_some(s.turns),
            revision: s.revision,
            status: s.session.status.clone(),
            file: Some(s.session.file.display().to_string()),
            indexed: Some(Indexed {
                last_activity: s.times.last_time.map(utc),
                model: s.main_model().map(name),
                models: s.models.iter().map(name).collect(),
                tool_calls: s.tool_calls,
                generation: s.generation.clone(),
                rule: s.session.rule.clone(),
                size: s.size,
                input_tokens: s.tokens.input,
                output_tokens: s.tokens.output,
            }),
        }
    }
}

/// The rows of every session of the store at `path`, each scanned with the counts view;
/// beside them, one note per session the store cannot list (`FILE: finding`).
///
/// # Errors
/// The store's sessions cannot be listed.
pub fn of_store(path: &Path, store: &Store) -> Result<(Vec<Row>, Vec<String>), StoreError> {
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for (_, session) in store.sessions()? {
        match session {
            Ok(s) => {
                let options = ScanOptions {
                    session: Some(s.header.id.clone()),
                    ..ScanOptions::default()
                };
                let mut stats = Stats::default();
                let scanned = scan::scan_path_with(path, &options, &mut [&mut stats]);
                let report = scanned.ok().map(|r| (r, stats));
                rows.push(Row::of_store(&s.header, s.revision, report.as_ref()));
            }
            Err(f) => notes.push(format!("{}: {f}", path.display())),
        }
    }
    Ok((rows, notes))
}

/// The current log of every session under `dir`, sorted, and the notes for what DSH left
/// beside a log ([`crate::load::leftovers`]), sorted: `dir` may be a JSONL root
/// (`<root>/<project>/<session>/…`), one project directory of it, or one session directory
/// (FORMAT.md §7.1). A session directory is one that holds a canonical log
/// (`session.jsonl[.zstd]`, `session.vN.jsonl[.zstd]`); its current generation is the
/// highest.
///
/// # Errors
/// A directory cannot be read.
pub fn jsonl_sessions(dir: &Path) -> std::io::Result<(Vec<PathBuf>, Vec<String>)> {
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
    Ok((found, left))
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
        if let Some(kind) = name.and_then(|n| crate::load::leftovers::leftover(&n)) {
            left.push(kind.note(file));
        }
    }
    Ok(files
        .into_iter()
        .filter_map(|p| crate::load::layout::generation_of_path(&p).map(|n| (n, p)))
        .max()
        .map(|(_, p)| p))
}

/// The JSONL root a log found by a walk would sit in: `ROOT/PROJECT/SESSION/FILE`.
pub fn root_of(log: &Path) -> &Path {
    log.ancestors().nth(3).unwrap_or(log)
}
