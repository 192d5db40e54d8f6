//! `export STORE --format dsh-jsonl --out ROOT`: the sessions of a SQLite store written as
//! DSH JSONL session directories (FORMAT.md §7), for users of stores now that DSH removed
//! its SQLite backend.
//!
//! Each schema-17 session becomes `ROOT/--<project key>--/<encoded id>/session.jsonl`
//! (`ROOT/_no-cwd/…` without a cwd; §7.1). Line 1 is the header written from the
//! `sessions` row with DSH's key order (§7.2, §8.4; `delegationDepth` 0 when the row has
//! none); every other line is one stored row as a JSONL record: a scalar row is rebuilt
//! as §8.3 reads it (`type, seq, time, data, sourceEventSeqs?, surfaceOp?, ignorable?`,
//! `data` byte for byte as stored), a packed row (§7.4) stays one packed line
//! (`type, seq0, time0, data`), as the JSONL writer stores a run.
//!
//! Writing follows §7.3: the whole content goes to a temporary file (mode 0600) in the
//! session directory (created with mode 0700), which is fsynced, published with a hard
//! link to the final name (which fails when the name exists: an existing file is never
//! overwritten) and the directory fsynced. The written file is then read back: it must
//! be valid (H6 included) and its derived messages and surface must equal the store
//! session's, or it is removed again and the session reported as failed.
//!
//! June 2026 stores (schema 4) are refused: their events are June-era records that HEAD
//! reads only through its load conversions (§9.3), and HEAD's JSONL backend never held
//! June records (the June JSONL layout is refused, §7.1), so no file DSH writes or reads
//! natively can hold them byte-faithfully. A session that is corrupt, refused or has a
//! torn tail is refused too (repair the store first).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::header::Header;
use crate::json::write_js_string;
use crate::load::layout::{encode_segment, project_key};
use crate::load::sqlite::{Schema, Store, StoreError, resolve_session};
use crate::load::{Input, Line, LoadError, SourceError};
use crate::replay::Keep;
use crate::scan::{ScanError, ScanOptions, Status, scan_path_with};

/// What happened to one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Written and checked.
    Written {
        /// The session id.
        session: String,
        /// The file written.
        path: PathBuf,
        /// Events in it.
        events: u64,
        /// Lines after the header (packed rows count once).
        records: u64,
    },
    /// Not written, and why (names the rule or the existing file).
    Refused {
        /// The session id.
        session: String,
        /// Why.
        reason: String,
    },
}

/// Why nothing could be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The input is not a SQLite store.
    #[error("not a SQLite store (dsh-jsonl export reads a DSH SQLite store)")]
    NotAStore,
    /// A June 2026 (schema 4) store.
    #[error(
        "a June 2026 store (schema 4): not exported. Its events are June-era records that DSH reads only through its load conversions (FORMAT.md §9.3), and no DSH JSONL log holds June records, so they cannot be written byte for byte as a session DSH reads natively; export with `--format markdown` or `html` to read them"
    )]
    JuneStore,
    /// The store holds no sessions.
    #[error("the store holds no sessions")]
    NoSessions,
    /// `--session` named no session, or several.
    #[error("{0}")]
    Session(String),
    /// The store cannot be opened or read, or is refused (D rules).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Reading failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// The output root cannot be created.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
}

/// Exports the sessions of the store at `store` (all, or the one `session` names by id or
/// unique prefix) under `root`.
///
/// # Errors
/// [`ExportError`] when nothing can be exported at all; a session that cannot be written is
/// an [`Outcome::Refused`] instead, and the others are still written.
pub fn export_store(
    store: &Path,
    session: Option<&str>,
    root: &Path,
) -> Result<Vec<Outcome>, ExportError> {
    if !crate::load::store_file::looks_like_store(store) {
        return Err(ExportError::NotAStore);
    }
    let opened = Store::open(store)?;
    if opened.schema == Schema::V4 {
        return Err(ExportError::JuneStore);
    }
    let mut ids = opened
        .session_ids()
        .map_err(|e| ExportError::Store(e.into()))?;
    drop(opened);
    if let Some(want) = session {
        let i = resolve_session(&ids, want).map_err(ExportError::Session)?;
        ids = vec![ids.swap_remove(i)];
    }
    if ids.is_empty() {
        return Err(ExportError::NoSessions);
    }
    std::fs::create_dir_all(root).map_err(|e| ExportError::Io(root.to_owned(), e))?;
    ids.into_iter()
        .map(|id| export_session(store, &id, root))
        .collect()
}

/// The header line DSH writes for `h` (FORMAT.md §7.2 key order, §8.4 mapping).
pub fn header_line(h: &Header) -> String {
    let mut out = String::from("{\"type\":\"session\",\"version\":");
    out.push_str(&h.version.unwrap_or(0).to_string());
    out.push_str(",\"id\":");
    write_js_string(&mut out, &h.id);
    out.push_str(&format!(",\"createdAt\":{}", h.created_at.unwrap_or(0)));
    let text = |out: &mut String, key: &str, v: &Option<String>| {
        if let Some(v) = v {
            out.push_str(&format!(",\"{key}\":"));
            write_js_string(out, v);
        }
    };
    text(&mut out, "cwd", &h.cwd);
    text(&mut out, "parentSession", &h.lineage.parent_session);
    if let Some(n) = h.lineage.seed_length {
        out.push_str(&format!(",\"seedLength\":{n}"));
    }
    text(&mut out, "origin", &h.lineage.origin);
    out.push_str(&format!(
        ",\"delegationDepth\":{}",
        h.lineage.delegation_depth.unwrap_or(0)
    ));
    text(&mut out, "agentPreset", &h.agent_preset);
    out.push('}');
    out
}

/// Where DSH keeps the session of header `h` under `root` (FORMAT.md §7.1).
pub fn session_path(root: &Path, h: &Header) -> PathBuf {
    let project = match h.cwd.as_deref() {
        Some(cwd) if !cwd.is_empty() => project_key(cwd),
        _ => "_no-cwd".to_owned(),
    };
    root.join(project)
        .join(encode_segment(&h.id))
        .join("session.jsonl")
}

fn export_session(store: &Path, id: &str, root: &Path) -> Result<Outcome, ExportError> {
    let refused = |reason: String| {
        Ok(Outcome::Refused {
            session: id.to_owned(),
            reason,
        })
    };
    let options = ScanOptions {
        session: Some(id.to_owned()),
        ..ScanOptions::default()
    };
    let mut keep = Keep::MESSAGES;
    let original = scan_path_with(store, &options, &mut [&mut keep])?;
    match (original.status, &original.finding) {
        (Status::Valid, _) => {}
        (Status::TornTail, _) => {
            return refused(
                "it has a torn tail: run `dsh-session repair --session ID STORE` first".into(),
            );
        }
        (status, Some(f)) => return refused(format!("{} {f}", status.name())),
        (status, None) => return refused(status.name().to_owned()),
    }
    let Some(header) = original.header.clone() else {
        return refused("the store gave no header for it".into());
    };
    let path = session_path(root, &header);
    if path.exists() {
        return refused(format!(
            "{} exists; an existing file is never overwritten",
            path.display()
        ));
    }
    let records = match write_session(store, id, &header, &path) {
        Ok(n) => n,
        Err(e) => return refused(format!("{}: {e}", path.display())),
    };
    // Read the file back as DSH would: valid (H6 included), same messages, same surface.
    // A store holds DSH 0.1.1's sessions, so the file is checked as DSH 0.1.1 loads it
    // (the DSH 0.1.5+ line would judge the SQLite session and the file alike, but does not
    // open stores at all).
    let check = ScanOptions {
        dsh: crate::edge::Judge {
            line: crate::edge::DshLine::V0_1_1,
            both_lines: false,
        },
        ..ScanOptions::default()
    };
    let problem = match scan_path_with(&path, &check, &mut [&mut keep]) {
        Err(e) => Some(e.to_string()),
        Ok(written) if written.status != Status::Valid => Some(format!(
            "the written file is {}: {}",
            written.status.name(),
            written.finding.map(|f| f.to_string()).unwrap_or_default()
        )),
        Ok(written) if !same_history(&original, &written) => {
            Some("the written file's messages or surface differ from the store's".into())
        }
        Ok(_) => None,
    };
    if let Some(problem) = problem {
        let _ = std::fs::remove_file(&path);
        return refused(format!("{problem}; {} was removed", path.display()));
    }
    Ok(Outcome::Written {
        session: id.to_owned(),
        path,
        events: original.events,
        records,
    })
}

fn same_history(a: &crate::scan::Report, b: &crate::scan::Report) -> bool {
    // Both scans keep their messages in memory, where reading them back cannot fail.
    let view = |r: &crate::scan::Report| -> Option<Vec<(u64, Option<String>)>> {
        r.replay
            .iter()
            .map(|e| e.ok().map(|e| (e.seq, e.message)))
            .collect()
    };
    let history = view(a);
    a.events == b.events && history.is_some() && history == view(b)
}

/// Writes the header and every record of session `id` to `path` (FORMAT.md §7.3); returns
/// the number of records after the header.
fn write_session(store: &Path, id: &str, header: &Header, path: &Path) -> std::io::Result<u64> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dirs(dir)?;
    let mut temp = tempfile::Builder::new()
        .prefix("session.jsonl.")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    let mut records = 0;
    {
        let mut out = std::io::BufWriter::new(temp.as_file_mut());
        out.write_all(header_line(header).as_bytes())?;
        out.write_all(b"\n")?;
        let input = Input::open(store).map_err(io_error)?;
        let mut lines = input.lines(Some(id)).map_err(source_error)?;
        let mut line = Line::default();
        while lines.next_line(&mut line).map_err(source_error)? {
            if let Some(why) = &line.defect {
                return Err(std::io::Error::other(format!(
                    "row seq {}: {why}",
                    line.number
                )));
            }
            out.write_all(&line.bytes)?;
            out.write_all(b"\n")?;
            records += 1;
        }
        out.flush()?;
    }
    temp.as_file().sync_all()?;
    // A hard link publishes the complete file and fails when the name exists (§7.3).
    std::fs::hard_link(temp.path(), path)?;
    std::fs::File::open(dir)?.sync_all()?;
    temp.close()?;
    Ok(records)
}

#[cfg(unix)]
fn create_private_dirs(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dirs(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

fn io_error(e: LoadError) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

fn source_error(e: SourceError) -> std::io::Error {
    match e {
        SourceError::Io(e) => e,
        SourceError::Session(what) => std::io::Error::other(what),
        SourceError::Finding(f) => std::io::Error::other(f.to_string()),
    }
}
