//! New sessions made from an existing one that stays as it is: `fork` (the history up to a
//! turn, as DSH's own `SessionStore.fork` makes a child session) and `trim` (the same
//! session with its large tool outputs cut). Planning only, and pure but for reading the
//! source: [`crate::write::new_session`] publishes a [`Derived`] session.
//!
//! Both read the source as [`crate::recover::stored`] does (JSONL, zstd or one session of a
//! SQLite store, every record with its stored bytes), and only a source the judged DSH line
//! loads (`valid` or `torn-tail`; a log DSH refuses goes through `recover` first). The new
//! session gets a new id (`session-<UUID v4>`, DSH's own id form, unless one is given), the
//! source's id as `parentSession` (FORMAT.md §6.3), and a path in DSH's layout under the
//! root given (`ROOT/--<project>--/<id>/session[.vN].jsonl[.zstd]`, FORMAT.md §7.1). Before
//! it is handed out it is checked in memory as the judged DSH line would load it at that
//! path; a session that would not pass is an error, never written.

pub mod fork;
pub mod publish;
pub mod trim;

use std::path::{Path, PathBuf};

use crate::edge::{DshLine, Judge};
use crate::event::Era;
use crate::json::{Json, write_js_string};
use crate::load::Encoding;
use crate::recover::stored::{self, Item, Record, Stored, Unreadable};
use crate::scan::{self, ScanOptions, Status};

/// A new session to publish: where, and what.
#[derive(Debug, Clone)]
pub struct Derived {
    /// Its id.
    pub id: String,
    /// `ROOT/--<project>--/<id>/session[.vN].jsonl[.zstd]`.
    pub path: PathBuf,
    /// Its decoded JSONL text: the header line, then one record per line.
    pub text: Vec<u8>,
    /// The encoding it is written in.
    pub encoding: Encoding,
    /// The events it holds (packed rows count their members).
    pub events: u64,
    /// True when `path`, or a session of this id anywhere under the root, exists: it is
    /// never written over.
    pub exists: bool,
}

/// Why no session can be derived.
#[derive(Debug, thiserror::Error)]
pub enum LineageError {
    /// The source cannot be read at all, or has no intact header.
    #[error(transparent)]
    Unreadable(#[from] Unreadable),
    /// The source is a log the judged DSH line does not load.
    #[error(
        "{0}; only a log DSH loads is forked or trimmed (`dsh-session recover` makes one of it)"
    )]
    NotLoaded(String),
    /// What was asked cannot be done with this log (a seq it does not hold, a turn that
    /// has not ended).
    #[error("{0}")]
    Refused(String),
    /// The new session would not load: a defect of this tool.
    #[error("the new session would not load ({0}); nothing was written (please report this)")]
    WouldNotLoad(String),
}

/// The source of a derived session: its stored records, up to its committed end.
#[derive(Debug)]
pub struct Source {
    /// The records and holes as stored.
    pub stored: Stored,
    /// The records of the committed region, in stored order (a torn tail left out).
    pub records: Vec<Record>,
    /// The DSH lines that load the source: the judged one, and the one that writes its
    /// generation when that loads it too. The new session must load in each.
    pub lines: Vec<DshLine>,
}

impl Source {
    /// Reads the log at `path` (one session of a SQLite store) and checks that the judged
    /// DSH line loads it.
    ///
    /// # Errors
    /// [`LineageError::Unreadable`], [`LineageError::NotLoaded`] with the verdict.
    pub fn read(path: &Path, session: Option<&str>) -> Result<Source, LineageError> {
        let options = ScanOptions {
            session: session.map(str::to_owned),
            ..ScanOptions::default()
        };
        let report = scan::scan_path(path, &options)
            .map_err(|scan::ScanError::Load(e)| LineageError::Unreadable(e.into()))?;
        let session = session.map(str::to_owned).or(report.session.clone());
        match report.status {
            Status::Valid | Status::TornTail => {}
            status => {
                let what = report.finding.as_ref().map_or_else(
                    || status.name().to_owned(),
                    |f| format!("{} {f}", status.name()),
                );
                return Err(LineageError::NotLoaded(format!(
                    "{}: {what}",
                    path.display()
                )));
            }
        }
        let stored = stored::read(path, session.as_deref())?;
        let records: Vec<Record> = (stored.items.iter())
            .map_while(|item| match item {
                Item::Record(r) if r.end() <= report.events => Some(r.clone()),
                _ => None,
            })
            .collect();
        // What fork and trim write is a JSONL log: the lines that must load the new session
        // are those that load the source in that form (a SQLite store is judged without the
        // edges DSH 0.1.5+ run on files, its JSONL form with them).
        let mut text = format!("{}\n", stored.header_text).into_bytes();
        for r in &records {
            text.extend_from_slice(r.bytes());
            text.push(b'\n');
        }
        let at = Json::parse(&stored.header_text).ok().and_then(|h| {
            Some(session_path(
                Path::new("/"),
                h.get("cwd"),
                h.get("id")?,
                stored.header.version.unwrap_or(0),
                Encoding::Plain,
            ))
        });
        let at = at.unwrap_or_else(|| PathBuf::from("session.jsonl"));
        let judged = DshLine::process_default();
        if let Some(why) = would_not_load(&at, &text, &[judged]) {
            return Err(LineageError::NotLoaded(format!(
                "{}: its JSONL form (what fork and trim write) would not load: {why}",
                path.display()
            )));
        }
        let mut lines = vec![judged];
        if judged != DshLine::Writer && would_not_load(&at, &text, &[DshLine::Writer]).is_none() {
            lines.push(DshLine::Writer);
        }
        Ok(Source {
            stored,
            records,
            lines,
        })
    }

    /// The session id of the source.
    pub fn id(&self) -> &str {
        &self.stored.header.id
    }

    /// The index in [`Source::records`] of the record that holds `seq`.
    pub fn record_of(&self, seq: u64) -> Option<usize> {
        self.records.iter().position(|r| r.holds(seq))
    }

    /// The seq after the last event of the committed region.
    pub fn end(&self) -> u64 {
        self.records.last().map_or(0, Record::end)
    }
}

/// A new session id as DSH's `SessionStore` makes one: `session-` and a random UUID v4.
pub fn new_id() -> String {
    format!("session-{}", uuid::Uuid::new_v4())
}

pub use crate::load::layout::{session_path, taken};

/// How the new session's header marks where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lineage {
    /// A fork holding `inherited` events of the parent: v0/v1 `seedLength` (as DSH
    /// 0.1.1-rc.2's `SessionStore.fork` writes it), v2+ `isSeeded: true` with a tagged
    /// `session/end-seed` (GENERATIONS.md §5).
    Seeded {
        /// The events inherited.
        inherited: u64,
    },
    /// The same history, changed (`trim`): `parentSession` only; a seed the source had
    /// stays as it was.
    Derived,
}

/// The header of the new session `id`, made from the source's `header` (a JSON object
/// text) at `created_at` (ms since the Unix epoch).
///
/// A fork's header is the one DSH 0.1.1-rc.2's `SessionStore.fork` writes: `type, version,
/// id, createdAt, cwd?, parentSession, seedLength, delegationDepth: 0` (v0, v1); from v2
/// on, `seedLength` is `isSeeded: true` in the v2 order, and `agentPreset` stays
/// (`origin` goes: a fork is no subagent child). A derived header is the source's with
/// `id` and `parentSession` set and every other member as stored.
pub fn child_header(
    header: &str,
    version: i64,
    id: &str,
    created_at: i64,
    lineage: Lineage,
) -> String {
    let json = Json::parse(header).ok();
    let raw = |key: &str| {
        json.as_ref()
            .and_then(|j| j.get(key))
            .map(|v| v.raw().to_owned())
    };
    let mut id_text = String::new();
    write_js_string(&mut id_text, id);
    // The parent's id as stored (its escapes and any lone surrogate kept).
    let parent = raw("id").unwrap_or_else(|| "\"\"".to_owned());
    let mut out = String::from("{");
    let member = |out: &mut String, key: &str, value: &str| {
        if out.len() > 1 {
            out.push(',');
        }
        out.push('"');
        out.push_str(key);
        out.push_str("\":");
        out.push_str(value);
    };
    match lineage {
        Lineage::Seeded { inherited } => {
            member(&mut out, "type", "\"session\"");
            member(&mut out, "version", &version.to_string());
            member(&mut out, "id", &id_text);
            member(&mut out, "createdAt", &created_at.to_string());
            if let Some(cwd) = raw("cwd") {
                member(&mut out, "cwd", &cwd);
            }
            member(&mut out, "parentSession", &parent);
            if version <= 1 {
                member(&mut out, "seedLength", &inherited.to_string());
                member(&mut out, "delegationDepth", "0");
            } else {
                member(&mut out, "isSeeded", "true");
                member(&mut out, "delegationDepth", "0");
                if let Some(preset) = raw("agentPreset") {
                    member(&mut out, "agentPreset", &preset);
                }
            }
        }
        Lineage::Derived => {
            // `parentSession` replaces the source's, or comes after `cwd` (else last).
            let has_parent = raw("parentSession").is_some();
            let has_cwd = raw("cwd").is_some();
            for (name, value) in json.iter().flat_map(|j| j.members()) {
                let key = name.as_str().map(|k| k.into_owned()).unwrap_or_default();
                match key.as_str() {
                    "id" => member(&mut out, "id", &id_text),
                    "parentSession" => member(&mut out, "parentSession", &parent),
                    _ => member(&mut out, &key, value.raw()),
                }
                if key == "cwd" && !has_parent {
                    member(&mut out, "parentSession", &parent);
                }
            }
            if !has_parent && !has_cwd {
                member(&mut out, "parentSession", &parent);
            }
        }
    }
    out.push('}');
    out
}

/// The `session/end-seed` record that ends a fork's inherited events (FORMAT.md §2.3;
/// tagged `inherited: true` from v2 on, GENERATIONS.md §5).
pub fn end_seed_record(era: Era, seq: u64, time: i64) -> String {
    let data = if matches!(era, Era::V2 | Era::V3 | Era::V4) {
        "{\"inherited\":true}"
    } else {
        "{}"
    };
    format!("{{\"type\":\"session/end-seed\",\"seq\":{seq},\"time\":{time},\"data\":{data}}}")
}

/// Now, in ms since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Why `text`, stored at `path`, is not a session each of `lines` loads; `None` when it is.
pub fn would_not_load(path: &Path, text: &[u8], lines: &[DshLine]) -> Option<String> {
    not_loaded_by(lines, |options| {
        scan::scan_text_with(path, text.to_vec(), options, &mut [])
    })
}

/// Why the session written at `path` is not one each of `lines` loads; `None` when it is.
pub fn file_would_not_load(path: &Path, lines: &[DshLine]) -> Option<String> {
    not_loaded_by(lines, |options| scan::scan_path(path, options))
}

/// The first of `lines` under which `scan` does not give a valid session, and why.
fn not_loaded_by(
    lines: &[DshLine],
    scan: impl Fn(&ScanOptions) -> Result<scan::Report, scan::ScanError>,
) -> Option<String> {
    lines.iter().find_map(|&line| {
        let options = ScanOptions {
            dsh: Judge {
                line,
                both_lines: false,
            },
            ..ScanOptions::default()
        };
        match scan(&options) {
            Err(e) => Some(e.to_string()),
            Ok(r) if r.status == Status::Valid => None,
            Ok(r) => Some(format!(
                "as {} reads it, it is {}{}",
                line.name(),
                r.status.name(),
                r.finding.map(|f| format!(": {f}")).unwrap_or_default()
            )),
        }
    })
}

/// The session `id` made of `header` and `records` (one JSON text each), checked, with
/// where it goes under `root`.
///
/// # Errors
/// [`LineageError::WouldNotLoad`].
pub fn derived(
    source: &Source,
    id: &str,
    header: &str,
    records: &[Vec<u8>],
    events: u64,
    root: &Path,
    encoding: Encoding,
) -> Result<Derived, LineageError> {
    let version = source.stored.header.version.unwrap_or(0);
    let source_header = Json::parse(&source.stored.header_text).ok();
    let mut id_token = String::new();
    write_js_string(&mut id_token, id);
    let path = session_path(
        root,
        source_header.as_ref().and_then(|h| h.get("cwd")),
        Json::from_valid(&id_token),
        version,
        encoding,
    );
    let mut text =
        Vec::with_capacity(records.iter().map(|r| r.len() + 1).sum::<usize>() + header.len() + 1);
    text.extend_from_slice(header.as_bytes());
    text.push(b'\n');
    for r in records {
        text.extend_from_slice(r);
        text.push(b'\n');
    }
    if let Some(why) = would_not_load(&path, &text, &source.lines) {
        return Err(LineageError::WouldNotLoad(why));
    }
    Ok(Derived {
        id: id.to_owned(),
        exists: taken(&path, root),
        path,
        text,
        encoding,
        events,
    })
}
