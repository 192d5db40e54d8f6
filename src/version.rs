//! What format version a log or a SQLite store is: the `version` command's verdict, read
//! from the header (FORMAT.md §7, GENERATIONS.md §1) or the store's `user_version` and
//! `application_id` (FORMAT.md §11), with what each DSH release line does with a v0 log.
//!
//! [`of_log`] and [`of_store`] gather; [`LogVersion::write_text`] and
//! [`StoreVersion::write_text`] render the text form; the JSON form is the structs'
//! serialisation (`schema_version` [`SCHEMA_VERSION`]).

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use crate::event::Era;
use crate::load::sqlite::{Schema, Store, StoreError};
use crate::scan::{self, ScanError, ScanOptions, Status};

/// `version --format json` layout: 2 renamed `session_id` (and a store's `sessions[].id`)
/// to `session`.
pub const SCHEMA_VERSION: u32 = 2;

/// A log's format version and what reads it.
#[derive(Debug, Serialize)]
pub struct LogVersion {
    schema_version: u32,
    file: String,
    #[serde(rename = "session")]
    session_id: Option<String>,
    format_version: Option<i64>,
    supported: bool,
    era: Option<&'static str>,
    encoding: &'static str,
    status: &'static str,
    rule: Option<&'static str>,
    message: Option<String>,
    /// What DSH 0.1.1 and DSH 0.1.5+ each do with a v0 log (`null` for other logs).
    dsh: Option<String>,
    /// Another harness's file: it has no DSH format version, whatever its header says.
    #[serde(skip)]
    foreign: bool,
    /// The other generations beside the log: (version, path, how they relate).
    #[serde(skip)]
    siblings: Vec<String>,
    /// The exit code: 0 when the log is valid or torn-tail, else 1.
    #[serde(skip)]
    pub ok: bool,
}

/// A SQLite store's schema and its sessions' format versions.
#[derive(Debug, Serialize)]
pub struct StoreVersion {
    schema_version: u32,
    file: String,
    user_version: i64,
    application_id: i64,
    application_id_hex: String,
    schema: &'static str,
    era: &'static str,
    store_id: Option<String>,
    supported: bool,
    rule: Option<&'static str>,
    message: Option<String>,
    sessions: Vec<StoreSession>,
    /// Sessions whose header could not be read, as `"<file>: <finding>"` lines for standard
    /// error.
    #[serde(skip)]
    pub unreadable: Vec<String>,
    /// The exit code: 0 when every session listed is of a supported version, else 1.
    #[serde(skip)]
    pub ok: bool,
}

#[derive(Debug, Serialize)]
struct StoreSession {
    #[serde(rename = "session")]
    id: String,
    format_version: Option<i64>,
    supported: bool,
}

/// Why [`of_store`] gave no verdict.
#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    /// The store could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `--session` named no session, or more than one.
    #[error("{0}")]
    Session(String),
    /// The log could not be read.
    #[error(transparent)]
    Scan(#[from] ScanError),
}

/// The version of the store at `path`, of all its sessions or of the one `session` names
/// (an id or a unique prefix). A store the schema rules refuse is a verdict, not an error.
///
/// # Errors
/// The store cannot be opened or read, or `session` matches no session or several.
pub fn of_store(path: &Path, session: Option<&str>) -> Result<StoreVersion, VersionError> {
    let file = path.display().to_string();
    let store = match Store::open(path) {
        Ok(store) => store,
        Err(StoreError::Refused(f)) => {
            return Ok(StoreVersion {
                schema_version: SCHEMA_VERSION,
                file,
                user_version: 0,
                application_id: 0,
                application_id_hex: String::new(),
                schema: "refused",
                era: "-",
                store_id: None,
                supported: false,
                rule: Some(f.rule.id()),
                message: Some(f.message),
                sessions: Vec::new(),
                unreadable: Vec::new(),
                ok: false,
            });
        }
        Err(e) => return Err(e.into()),
    };
    let rows = store.sessions()?;
    let wanted = match session {
        Some(want) => {
            let ids: Vec<String> = rows.iter().map(|(id, _)| id.clone()).collect();
            let index = crate::load::sqlite::resolve_session(&ids, want)
                .map_err(|why| VersionError::Session(format!("{file}: {why}")))?;
            Some(index)
        }
        None => None,
    };
    let mut sessions = Vec::new();
    let mut unreadable = Vec::new();
    for (i, (_, s)) in rows.into_iter().enumerate() {
        if wanted.is_some_and(|w| w != i) {
            continue;
        }
        match s {
            Ok(s) => sessions.push(StoreSession {
                supported: s.header.version == Some(0),
                id: s.header.id,
                format_version: s.header.version,
            }),
            Err(f) => unreadable.push(format!("{file}: {f}")),
        }
    }
    Ok(StoreVersion {
        schema_version: SCHEMA_VERSION,
        file,
        user_version: store.user_version,
        application_id: store.application_id,
        application_id_hex: format!("{:#010x}", store.application_id),
        schema: match store.schema {
            Schema::V17 => "17",
            Schema::V4 => "4 (June 2026)",
            Schema::Empty => "none (pristine file)",
        },
        era: store.schema.era().name(),
        store_id: store.store_id.clone(),
        supported: true,
        rule: None,
        message: None,
        ok: sessions.iter().all(|s| s.supported),
        sessions,
        unreadable,
    })
}

/// The version of the log at `path` (`-`: standard input, judged by its header only; a
/// store's session with `session`). A v0 log is read whole for what the release lines do
/// with it (the frozen edges read every event), and an edge refusal is the verdict.
///
/// # Errors
/// The log cannot be read.
pub fn of_log(path: &Path, session: Option<&str>) -> Result<LogVersion, VersionError> {
    let options = ScanOptions {
        header_only: true,
        session: session.map(str::to_owned),
        ..ScanOptions::default()
    };
    let mut report = scan::scan_path(path, &options)?;
    let mut dsh = None;
    if report.is_ok()
        && matches!(report.era, Some(Era::Head | Era::V0Alpha | Era::June2026))
        && path.as_os_str() != "-"
    {
        let whole = ScanOptions {
            dsh: crate::edge::Judge::default().with_both_lines(),
            ..ScanOptions::default()
        };
        let full = scan::scan_path(path, &whole)?;
        dsh = full.dsh_lines();
        if full.finding.as_ref().is_some_and(|f| f.rule.is_edge()) {
            report.status = full.status;
            report.finding = full.finding;
        }
    }
    let header = report.header.as_ref();
    let siblings = crate::load::layout::siblings(path)
        .into_iter()
        .map(|(n, other, relation)| format!("v{n} {} ({})", other.display(), relation.describe()))
        .collect();
    Ok(LogVersion {
        file: path.display().to_string(),
        schema_version: SCHEMA_VERSION,
        session_id: header.map(|h| h.id.clone()),
        format_version: header.and_then(|h| h.version),
        supported: (report.status != Status::Refused
            || report.finding.as_ref().is_some_and(|f| f.rule.is_edge()))
            && header
                .and_then(|h| h.version)
                .is_some_and(|v| v == 0 || Era::of_version(v).is_some()),
        era: report.era.map(|e| e.name()),
        encoding: report.encoding.name(),
        status: report.status.name(),
        rule: report.finding.as_ref().map(|f| f.rule.id()),
        message: report.finding.as_ref().map(|f| f.message.clone()),
        dsh,
        foreign: report.status == Status::Foreign,
        siblings,
        ok: report.is_ok(),
    })
}

/// "supported" or "not supported".
fn support(supported: bool) -> &'static str {
    if supported {
        "supported"
    } else {
        "not supported"
    }
}

impl LogVersion {
    /// The text form: `name:  value` lines, aligned at column 17.
    ///
    /// # Errors
    /// A write error of `out`.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        let (version, support) = if self.foreign {
            ("none".to_owned(), "not a DSH session log")
        } else {
            let version = self
                .format_version
                .map_or("unknown".into(), |v| format!("v{v}"));
            (version, support(self.supported))
        };
        writeln!(out, "file:           {}", self.file)?;
        writeln!(
            out,
            "session id:     {}",
            self.session_id.as_deref().unwrap_or("-")
        )?;
        writeln!(out, "format version: {version} ({support})")?;
        writeln!(out, "era:            {}", self.era.unwrap_or("-"))?;
        writeln!(out, "compression:    {}", self.encoding)?;
        if let Some(lines) = &self.dsh {
            writeln!(out, "dsh:            {lines}")?;
        }
        for sibling in &self.siblings {
            writeln!(out, "other file:     {sibling}")?;
        }
        if let (Some(rule), Some(message)) = (self.rule, &self.message) {
            writeln!(out, "{:<16}{rule}: {message}", format!("{}:", self.status))?;
        }
        Ok(())
    }
}

impl StoreVersion {
    /// The text form: `name:  value` lines, a line per session.
    ///
    /// # Errors
    /// A write error of `out`.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "file:           {}", self.file)?;
        if let (Some(rule), Some(message)) = (self.rule, &self.message) {
            return writeln!(out, "refused:        {rule}: {message}");
        }
        writeln!(out, "user_version:   {}", self.user_version)?;
        let id = &self.application_id_hex;
        writeln!(out, "application_id: {id} ({})", self.application_id)?;
        writeln!(out, "schema:         {}", self.schema)?;
        writeln!(out, "era:            {}", self.era)?;
        writeln!(
            out,
            "store id:       {}",
            self.store_id.as_deref().unwrap_or("-")
        )?;
        writeln!(out, "sessions:       {}", self.sessions.len())?;
        for s in &self.sessions {
            let v = s.format_version.map_or("?".into(), |v| format!("v{v}"));
            writeln!(out, "  {}  format {v} ({})", s.id, support(s.supported))?;
        }
        Ok(())
    }
}
