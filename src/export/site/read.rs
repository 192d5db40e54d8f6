//! Reading the sessions of a site: what the inputs hold (one unit per session: a log, or a
//! session of a SQLite store), each unit's identity (its header, read alone) and, for a
//! page to write, the whole session as the HTML export reads it, up to a damaged log's
//! defect (`--salvage`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::export::Transcript;
use crate::export::redact::Redactor;
use crate::prices::PriceTable;
use crate::scan::{self, Report, ScanOptions, Status};
use crate::view::usage::Counts;

/// One session to export: a log file, or one session of a SQLite store.
#[derive(Debug, Clone)]
pub struct Unit {
    /// The path as the walk found it (shown to the user, redacted).
    pub path: PathBuf,
    /// The session of a store.
    pub session: Option<String>,
    /// What names the unit across runs: the canonical path, and `#id` for a store's session.
    pub key: String,
    /// The file's size, modification time and inode: a changed file has another.
    pub file_fp: String,
    /// Why the unit cannot be read at all (a session directory with no current log).
    pub unreadable: Option<String>,
}

/// What a session's header says of where it came from (FORMAT.md §6.3).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ident {
    /// The session id.
    pub id: Option<String>,
    /// `parentSession`: the session it was forked from, or its parent for a subagent.
    pub parent: Option<String>,
    /// `origin`: `subagent` for a subagent's session.
    pub origin: Option<String>,
}

/// One row of the index (`index.html`): what the session's page sums up, redacted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The page, relative to the site's directory (`s/NAME.html`).
    pub page: String,
    /// The session id.
    pub id: Option<String>,
    /// The latest `session/title`.
    pub title: Option<String>,
    /// The header's `cwd`: the project.
    pub project: Option<String>,
    /// The log as the walk found it.
    pub file: String,
    /// `createdAt`, ms since the Unix epoch.
    pub created: Option<i64>,
    /// The time of the last event read, ms since the Unix epoch.
    pub last: Option<i64>,
    /// Turns read.
    pub turns: u64,
    /// Messages on the surface.
    pub messages: u64,
    /// Every `provider/model` named, most used first.
    pub models: Vec<String>,
    /// Input, output, cache-read and cache-write tokens, summed.
    pub tokens: u64,
    /// The cost at the prices given, when every model with tokens has a price and all are
    /// in one currency ([`Row::currency`]), as `stats` computes it.
    #[serde(default)]
    pub cost: Option<f64>,
    /// The currency of [`Row::cost`] (`CNY`, `USD`, …).
    #[serde(default)]
    pub currency: Option<String>,
    /// `valid`, `torn-tail`, `corrupt`, `refused` or `unreadable`.
    pub status: String,
    /// The rule behind a corrupt, refused or torn-tail verdict, with its line
    /// (`J5 at line 4`); for an unreadable file, why.
    pub rule: Option<String>,
}

/// The files a walk of `inputs` gives ([`crate::load::layout::discover`]) as units, and the
/// notes on what it passed over; stores are opened to list their sessions.
pub fn units(inputs: &[PathBuf]) -> (Vec<Unit>, Vec<String>) {
    let (paths, mut notes) = crate::load::layout::discover(inputs);
    let mut units = Vec::new();
    // A log named twice (a root and a file in it) is one session of the site.
    let mut seen = std::collections::HashSet::new();
    for path in paths {
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let key = canonical.display().to_string();
        if !seen.insert(key.clone()) {
            continue;
        }
        if path.is_dir() {
            let why = match crate::load::layout::current_generation(&path) {
                Ok(_) => "a session directory given whole".to_owned(),
                Err(e) => e.to_string(),
            };
            units.push(Unit {
                file_fp: String::new(),
                unreadable: Some(why),
                session: None,
                key,
                path,
            });
            continue;
        }
        let file_fp = file_fingerprint(&path);
        let ids = if crate::load::store_file::looks_like_store(&path) {
            match crate::load::sqlite::Store::open(&path).map(|s| s.session_ids()) {
                Ok(Ok(ids)) if ids.is_empty() => {
                    notes.push(format!("{}: store holds no sessions", path.display()));
                    continue;
                }
                Ok(Ok(ids)) => ids.into_iter().map(Some).collect(),
                // A refused store is one unit; its page says why.
                _ => vec![None],
            }
        } else {
            vec![None]
        };
        for session in ids {
            units.push(Unit {
                key: match &session {
                    Some(id) => format!("{key}#{id}"),
                    None => key.clone(),
                },
                path: path.clone(),
                session,
                file_fp: file_fp.clone(),
                unreadable: None,
            });
        }
    }
    (units, notes)
}

/// `SIZE:MTIME_NS:INODE` of the file at `path` (empty when it cannot be read).
fn file_fingerprint(path: &Path) -> String {
    let Ok(meta) = std::fs::metadata(path) else {
        return String::new();
    };
    let stat = crate::load::stat::Stat::of(&meta);
    format!("{}:{}:{}", stat.size, stat.mtime_ns, stat.inode)
}

/// The unit's header facts, read alone; `None` when its file cannot be read or is not a
/// DSH log.
pub fn ident(unit: &Unit) -> Option<Ident> {
    if unit.unreadable.is_some() {
        return Some(Ident::default());
    }
    let options = ScanOptions {
        header_only: true,
        session: unit.session.clone(),
        ..ScanOptions::default()
    };
    let report = scan::scan_path(&unit.path, &options).ok()?;
    if report.status == Status::Foreign {
        return None;
    }
    Some(ident_of(&report))
}

fn ident_of(report: &Report) -> Ident {
    let h = report.header.as_ref();
    Ident {
        id: h.map(|h| h.id.clone()).or_else(|| report.session.clone()),
        parent: h.and_then(|h| h.lineage.parent_session.clone()),
        origin: h.and_then(|h| h.lineage.origin.clone()),
    }
}

/// One session read whole.
pub struct Read {
    /// The transcript the page shows.
    pub transcript: Transcript,
    /// Its row in the index (the page is set by the caller).
    pub row: Row,
    /// Its verdict.
    pub status: Status,
    /// The finding behind a corrupt or refused verdict, as text.
    pub finding: Option<String>,
    /// What the page shows of a corrupt or refused log, one sentence
    /// ([`scan::defect`]: up to the defect, or whole for an edge refusal).
    pub reading: String,
}

/// What reading a unit whole gives.
pub enum Outcome {
    /// A DSH session, read (up to its defect when damaged).
    Read(Box<Read>),
    /// Another harness's file: not a session of the site.
    Foreign(String),
    /// The file could not be read at all: why.
    Unreadable(String),
}

/// Reads `unit` as `export --salvage` does, redacting with `redact`, its cost at `prices`.
pub fn read(unit: &Unit, redact: bool, prices: &Arc<PriceTable>) -> Outcome {
    if let Some(why) = &unit.unreadable {
        return Outcome::Unreadable(why.clone());
    }
    // Up to the defect, as every command reads a damaged log (`scan::defect`).
    let mut read =
        match crate::export::read_session(&unit.path, unit.session.clone(), Arc::clone(prices)) {
            Ok(r) => r,
            Err(e) => return Outcome::Unreadable(crate::wording::error_text(&e)),
        };
    let report = &read.report;
    if let (Status::Foreign, Some(f)) = (report.status, &report.finding) {
        return Outcome::Foreign(f.message.clone());
    }
    let mut file = unit.path.display().to_string();
    if let Some(s) = &unit.session {
        file.push_str(&format!(" (session {s})"));
    }
    let mut redactor = Redactor::new(redact);
    let shown_file = redactor.text(&file).into_owned();
    let cost = cost(std::mem::take(&mut read.usage));
    let cost_line = cost
        .as_ref()
        .map(|(amount, currency)| format!("{amount:.4} {currency}"));
    let transcript = match read.transcript(&file, cost_line.as_deref(), redact) {
        Ok(t) => t,
        Err(e) => return Outcome::Unreadable(crate::wording::io_error(&e)),
    };
    let s = &read.stats;
    let h = report.header.as_ref();
    let mut models: Vec<_> = s.models.iter().collect();
    models.sort_by_key(|m| std::cmp::Reverse(m.assistant_messages));
    // The rule and where, without the message (the page's banner has it).
    let rule = report
        .finding
        .as_ref()
        .map(|f| {
            let mut s = f.rule.to_string();
            if let Some(line) = f.line {
                s.push_str(&format!(" at line {line}"));
            }
            s
        })
        .or_else(|| {
            report
                .torn
                .as_ref()
                .map(|t| format!("{} at line {}", t.rule, t.line))
        });
    let row = Row {
        page: String::new(),
        id: ident_of(report).id,
        title: transcript.title.clone(),
        project: h
            .and_then(|h| h.cwd.as_deref())
            .map(|c| redactor.text(c).into_owned()),
        file: shown_file,
        created: h.and_then(|h| h.created_at),
        last: s.last_time,
        turns: s.turn_count,
        messages: transcript.messages().count() as u64,
        models: models
            .iter()
            .map(|m| format!("{}/{}", m.provider, m.model))
            .collect(),
        tokens: s.usage.input + s.usage.output + s.usage.cache_read + s.usage.cache_write,
        cost: cost.as_ref().map(|c| c.0),
        currency: cost.map(|c| c.1),
        status: report.status.name().to_owned(),
        rule,
    };
    let reading = match scan::defect::reach(report) {
        scan::defect::Reach::Whole => {
            "DSH 0.1.1 loads it: this page shows the whole log, as it loads it.".to_owned()
        }
        _ => format!(
            "This page shows what could be read before the defect ({}), as export --salvage reads it.",
            scan::defect::read_text(report)
        ),
    };
    Outcome::Read(Box::new(Read {
        finding: report.finding.as_ref().map(ToString::to_string),
        reading,
        status: report.status,
        transcript,
        row,
    }))
}

/// A session's cost from its priced usage: the amount and its currency, when every model
/// with tokens has a price and all bill in one currency.
fn cost(total: Counts) -> Option<(f64, String)> {
    if !total.unpriced.is_empty() || total.cost.len() != 1 {
        return None;
    }
    let (currency, cost) = total.cost.into_iter().next()?;
    Some((crate::prices::amount(cost.total()), currency))
}
