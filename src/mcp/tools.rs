//! The tools' work, off the async runtime: each takes its arguments (with their JSON
//! Schema, whose doc comments a model reads) and returns the JSON text of its answer, or an
//! error the server turns into a tool error result.

use std::path::PathBuf;

use anyhow::{Context as _, Result, bail};
use dsh_session::index::{Index, Query, SessionFilter, SessionRow};
use dsh_session::period::Period;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use dsh_session::scan::ScanOptions;
use dsh_session::view::message_rows::PartKind;

use crate::cli::{IndexLocation, McpArgs, ProvenanceFormat, ProviderName, SearchRole, TableFormat};
use crate::render::index::{Say, open, update};
use crate::render::search::{Names, hit_rows};
/// Sessions `list_sessions` gives when not told.
const LIST_LIMIT: usize = 50;
/// Hits `search` gives when not told.
const SEARCH_LIMIT: usize = 20;
/// Sessions an error names as candidates.
const CANDIDATES: usize = 10;

/// What every call shares: the roots the server serves and its index.
#[derive(Debug)]
pub struct Context {
    /// The roots as given (`--root`), for the index's update.
    roots: Vec<PathBuf>,
    /// The roots made absolute, to keep answers to their sessions (none: every session
    /// indexed).
    under: Vec<PathBuf>,
    /// `--index`.
    index: Option<PathBuf>,
}

impl Context {
    /// Checks what `mcp` was given before it serves: every root exists, the index opens,
    /// and without roots something was indexed before.
    ///
    /// # Errors
    /// A root that cannot be read, an index that cannot be opened, nothing to serve.
    pub fn new(args: &McpArgs) -> Result<Context> {
        if args.roots.iter().any(|p| p.as_os_str() == "-") {
            bail!("mcp serves indexed files: name them (standard input cannot be indexed)");
        }
        let under = args
            .roots
            .iter()
            .map(|p| std::fs::canonicalize(p).with_context(|| p.display().to_string()))
            .collect::<Result<Vec<PathBuf>>>()?;
        let mut context = Context {
            roots: args.roots.clone(),
            under,
            index: args.index.file.clone(),
        };
        let index = open(&context.location())?;
        // Nothing given and nothing indexed yet: DSH's default root, as every front end
        // of the index reads it.
        let Some(roots) = index.paths_to_update(&context.roots)? else {
            bail!(
                "nothing to serve: no --root given, nothing indexed yet and no ~/.dsh/sessions (DSH's default root): name the JSONL roots, logs or stores with --root (`dsh-session mcp --root ~/.dsh/sessions`)"
            );
        };
        if context.roots.is_empty() && !roots.is_empty() {
            context.under = roots
                .iter()
                .map(|r| std::fs::canonicalize(r).with_context(|| r.display().to_string()))
                .collect::<Result<Vec<PathBuf>>>()?;
            context.roots = roots;
        }
        Ok(context)
    }

    fn location(&self) -> IndexLocation {
        IndexLocation {
            file: self.index.clone(),
        }
    }

    /// The index, brought up to date for the roots (quietly: notes would only reach
    /// standard error, which a client rarely shows).
    pub(super) fn index(&self) -> Result<Index> {
        let mut index = open(&self.location())?;
        update(&mut index, &self.roots, Say::unless(true))?;
        Ok(index)
    }

    /// The session `name` names: its id, or a unique prefix of it. When one id is in
    /// several files (a session copied, or exported from a store), the most recently
    /// active is taken.
    ///
    /// # Errors
    /// No session or several match: the error lists candidates.
    pub(super) fn find(&self, index: &Index, name: &str) -> Result<SessionRow> {
        let name = name.trim();
        if name.is_empty() {
            bail!("no session named: give a session id or a unique prefix of one");
        }
        let matching: Vec<SessionRow> = index
            .sessions(&SessionFilter {
                under: self.under.clone(),
                session: Some(name.to_owned()),
                ..SessionFilter::default()
            })?
            .into_iter()
            .filter(|s| !s.session.id.is_empty())
            .collect();
        if let Some(exact) = matching.iter().find(|s| s.session.id == name) {
            return Ok(exact.clone());
        }
        let mut ids: Vec<&str> = matching.iter().map(|s| s.session.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        match ids.len() {
            1 => Ok(matching[0].clone()),
            0 => {
                let recent = index.sessions(&SessionFilter {
                    under: self.under.clone(),
                    limit: Some(CANDIDATES),
                    ..SessionFilter::default()
                })?;
                bail!(
                    "no session has an id starting with {name:?}; the most recently active are:\n{}",
                    listed(&recent)
                )
            }
            n => bail!(
                "{name:?} starts {n} session ids; give more of the id. Candidates:\n{}",
                listed(&matching[..matching.len().min(CANDIDATES)])
            ),
        }
    }
}

/// Sessions as an error lists them: one per line, id, title and file.
fn listed(sessions: &[SessionRow]) -> String {
    let lines: Vec<String> = sessions
        .iter()
        .map(|s| &s.session)
        .filter(|s| !s.id.is_empty())
        .map(|s| {
            let title = s.title.as_deref().unwrap_or("(no title)");
            format!("  {}  {title}  ({})", s.id, s.file.display())
        })
        .collect();
    if lines.is_empty() {
        "  (none)".to_owned()
    } else {
        lines.join("\n")
    }
}

/// The `--session` a command needs for `row`: its id for a session of a SQLite store.
pub(super) fn store_session(row: &SessionRow) -> Option<String> {
    (row.session.encoding == "sqlite").then(|| row.session.id.clone())
}

/// Runs a command into a buffer and returns what it printed; an error is the tool's.
fn printed(run: impl FnOnce(&mut Vec<u8>) -> Result<()>) -> Result<String> {
    let mut out = Vec::new();
    run(&mut out)?;
    String::from_utf8(out).context("internal error: a command printed text that is not UTF-8")
}

/// The period a tool's `since` and `until` ask for, in UTC, as `search --since` reads them.
fn period(since: Option<&str>, until: Option<&str>, flags: [&str; 2]) -> Result<Period> {
    let utc = jiff::tz::TimeZone::UTC;
    Ok(dsh_session::stats::parse_period(since, until, flags, &utc)?)
}

/// A session's verdict, as `list_sessions` filters by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Read without a finding.
    Valid,
    /// Valid, but a crash left an unfinished record at the end (left out).
    TornTail,
    /// A record breaks a rule DSH checks on load.
    Corrupt,
    /// Intact, but written by a newer harness or with an unknown required event type.
    Refused,
    /// The file could not be read.
    Unreadable,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Valid => "valid",
            Status::TornTail => "torn-tail",
            Status::Corrupt => "corrupt",
            Status::Refused => "refused",
            Status::Unreadable => "unreadable",
        }
    }
}

/// Arguments of `list_sessions`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ListSessions {
    /// Only sessions whose project (the working directory they ran in) contains this text.
    pub project: Option<String>,
    /// Only sessions active at or after this time: a date (2026-11-30), a date and time
    /// (2026-11-30T14:00), both UTC, or a time with an offset (2026-11-30T14:00:00+01:00).
    pub since: Option<String>,
    /// Only sessions created before this time (as `since`; a date includes that whole day).
    pub until: Option<String>,
    /// Only sessions with this verdict.
    pub status: Option<Status>,
    /// At most this many sessions, the most recently active first (default 50).
    pub limit: Option<usize>,
}

#[derive(Debug, Serialize)]
struct SessionsJson {
    /// `sessions ROOT --format json` rows.
    sessions: Vec<dsh_session::sessions::Row>,
    /// Sessions that matched but were left out by the limit.
    more: usize,
}

/// `list_sessions`: the rows `sessions ROOT --format json` prints, filtered.
pub fn list_sessions(cx: &Context, p: ListSessions) -> Result<String> {
    let period = period(p.since.as_deref(), p.until.as_deref(), ["since", "until"])?;
    let index = cx.index()?;
    let rows = index.sessions(&SessionFilter {
        under: cx.under.clone(),
        project: p.project,
        period,
        ..SessionFilter::default()
    })?;
    let rows: Vec<&SessionRow> = rows
        .iter()
        .filter(|r| p.status.is_none_or(|s| r.session.status == s.name()))
        .collect();
    let limit = p.limit.unwrap_or(LIST_LIMIT);
    let json = SessionsJson {
        sessions: rows.iter().take(limit).map(|r| (*r).into()).collect(),
        more: rows.len().saturating_sub(limit),
    };
    Ok(serde_json::to_string(&json)?)
}

/// Arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Search {
    /// What to find: plain words (each must occur, as a substring, case-insensitively, in
    /// one message part), or FTS5 syntax: "a phrase", AND, OR, NOT, NEAR(a b), prefix*.
    pub query: String,
    /// Only sessions whose project (the working directory they ran in) contains this text.
    pub project: Option<String>,
    /// Only the session with this id, or whose id starts with it.
    pub session: Option<String>,
    /// Only messages at or after this time (as `list_sessions`' `since`).
    pub since: Option<String>,
    /// Only messages before this time (a date includes that whole day).
    pub until: Option<String>,
    /// Only these kinds of text; all when absent.
    pub roles: Option<Vec<SearchRole>>,
    /// Only the calls and results of this tool (its name, as `bash`).
    pub tool: Option<String>,
    /// Also search messages a replace took off the history (compacted or pruned).
    pub include_shadowed: Option<bool>,
    /// At most this many hits, the best first (default 20).
    pub limit: Option<usize>,
}

/// `search`: the hits `search --format json` prints (as `search` over the roots, with
/// `--tz UTC`).
pub fn search(cx: &Context, p: Search) -> Result<String> {
    let period = period(
        p.since.as_deref(),
        p.until.as_deref(),
        ["--since", "--until"],
    )?;
    if p.query.trim().is_empty() {
        bail!("the query is empty: give the words to find");
    }
    let index = cx.index()?;
    let names = Names::given(&cx.roots)?;
    let query = Query {
        text: p.query,
        sessions: SessionFilter {
            under: names.canonical(),
            project: p.project,
            session: p.session,
            ..SessionFilter::default()
        },
        period,
        kinds: p
            .roles
            .unwrap_or_default()
            .into_iter()
            .map(PartKind::from)
            .collect(),
        tool: p.tool,
        include_shadowed: p.include_shadowed.unwrap_or(false),
        limit: Some(p.limit.unwrap_or(SEARCH_LIMIT).max(1)),
    };
    let hits = index.search(&query)?;
    Ok(serde_json::json!({ "hits": hit_rows(&hits, &names) }).to_string())
}

/// Arguments of a tool that reads one session.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionName {
    /// The session: its id, or a unique prefix of it (as list_sessions and search give it).
    pub session: String,
}

/// `show`: what `show --format json` prints.
pub fn show(cx: &Context, p: SessionName) -> Result<String> {
    use dsh_session::view::summary;
    let row = cx.find(&cx.index()?, &p.session)?;
    let options = summary::options(store_session(&row));
    let (report, views) = crate::reading::read_readable(
        &row.session.file,
        &row.session.file,
        &options,
        summary::scan,
    )?;
    printed(|out| crate::render::show::write(out, &report, &views, None, TableFormat::Json))
}

/// Arguments of `get_message`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetMessage {
    /// The session: its id, or a unique prefix of it.
    pub session: String,
    /// The seq of the event whose message to read (a search hit's seq, a messages entry's).
    pub seq: u64,
}

/// `get_message`: the one message event `seq` derives, on the history or shadowed, with
/// where it stands (what `show FILE --seq N --format json` prints, and the session).
pub fn get_message(cx: &Context, p: GetMessage) -> Result<String> {
    let row = cx.find(&cx.index()?, &p.session)?;
    let session = store_session(&row);
    let one = crate::reading::one_message(&row.session.file, session.as_deref(), p.seq)?;
    let message: Value = serde_json::from_str(&one.message)?;
    Ok(serde_json::json!({
        "session": row.session.id,
        "seq": one.seq,
        "type": one.ty,
        "role": one.role,
        "on_surface": one.on_surface,
        "message": message,
    })
    .to_string())
}

/// Arguments of `validate`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Validate {
    /// The session: its id, or a unique prefix of it.
    pub session: String,
    /// Also say whether this provider would accept the derived history (its P-rules).
    pub provider: Option<ProviderName>,
}

/// `validate`: the verdict `validate --format json` prints for the session.
pub fn validate(cx: &Context, p: Validate) -> Result<String> {
    use dsh_session::validate::{Gate, check_all};
    let row = cx.find(&cx.index()?, &p.session)?;
    let gate = Gate {
        provider: p.provider.map(ProviderName::profile),
        strict: false,
    };
    let checked = check_all(
        std::slice::from_ref(&row.session.file),
        store_session(&row).as_ref(),
        &|_| None,
    );
    let Some(verdict) = crate::render::validate::verdicts(&checked, gate)
        .into_iter()
        .next()
    else {
        bail!(
            "{}: holds no session {}",
            row.session.file.display(),
            row.session.id
        );
    };
    if verdict.status == "error" {
        let why = verdict.message.as_deref().unwrap_or("cannot be read");
        bail!("{}: {why}", row.session.file.display());
    }
    Ok(serde_json::to_string(&verdict)?)
}

/// Arguments of `provenance`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Provenance {
    /// The session: its id, or a unique prefix of it.
    pub session: String,
    /// The event to explain (a seq, as messages and search give them).
    pub seq: u64,
    /// Cut both trees after this many levels.
    pub depth: Option<usize>,
}

/// `provenance`: what `provenance --format json` prints.
pub fn provenance(cx: &Context, p: Provenance) -> Result<String> {
    use dsh_session::provenance::trace;
    let row = cx.find(&cx.index()?, &p.session)?;
    let session = store_session(&row);
    let options = ScanOptions {
        session: session.clone(),
        ..ScanOptions::default()
    };
    let file = &row.session.file;
    let (report, index) = crate::reading::read_readable(file, file, &options, trace::scan_index)?;
    let t = trace::trace(file, session.as_ref(), p.seq, p.depth, &report, index)
        .map_err(|e| crate::reading::trace_error(file, e))?;
    printed(|out| crate::render::provenance::write(out, &t, ProvenanceFormat::Json, None))
}
