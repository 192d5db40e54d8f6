//! The tools' work, off the async runtime: each takes its arguments (with their JSON
//! Schema, whose doc comments a model reads) and returns the JSON text of its answer, or an
//! error the server turns into a tool error result.

use std::path::PathBuf;

use anyhow::{Context as _, Result, bail};
use dsh_session::index::{Index, SessionFilter, SessionRow};
use dsh_session::replay::Keep;
use dsh_session::replay::window::{self, Item};
use dsh_session::scan::ScanOptions;
use dsh_session::view::stats::Stats;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::cli::{
    IndexLocation, ListFormat, McpArgs, ProvenanceArgs, ProvenanceFormat, ProviderName, SearchArgs,
    SearchRole, ShowArgs, TableFormat, ValidateArgs,
};

/// `messages`' default cap on the messages of one answer, in bytes.
pub const MAX_BYTES: usize = 100_000;
/// The largest cap a `messages` call may ask for.
const MAX_BYTES_LIMIT: usize = 1_000_000;
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
        let index = crate::cmd::index::open(&context.location())?;
        if context.roots.is_empty() && index.roots()?.is_empty() {
            // Nothing given and nothing indexed yet: DSH's default root, as `tui` reads it.
            let Some(root) = crate::cmd::default_root() else {
                bail!(
                    "nothing to serve: no --root given, nothing indexed yet and no ~/.dsh/sessions (DSH's default root): name the JSONL roots, logs or stores with --root (`dsh-session mcp --root ~/.dsh/sessions`)"
                );
            };
            context.under =
                vec![std::fs::canonicalize(&root).with_context(|| root.display().to_string())?];
            context.roots = vec![root];
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
    fn index(&self) -> Result<Index> {
        let mut index = crate::cmd::index::open(&self.location())?;
        let say = crate::cmd::index::Say {
            progress: false,
            notes: false,
            as_is_when_busy: true,
        };
        crate::cmd::index::update(&mut index, &self.roots, say)?;
        Ok(index)
    }

    /// The session `name` names: its id, or a unique prefix of it. When one id is in
    /// several files (a session copied, or exported from a store), the most recently
    /// active is taken.
    ///
    /// # Errors
    /// No session or several match: the error lists candidates.
    fn find(&self, index: &Index, name: &str) -> Result<SessionRow> {
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
            .filter(|s| !s.session.is_empty())
            .collect();
        if let Some(exact) = matching.iter().find(|s| s.session == name) {
            return Ok(exact.clone());
        }
        let mut ids: Vec<&str> = matching.iter().map(|s| s.session.as_str()).collect();
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
        .filter(|s| !s.session.is_empty())
        .map(|s| {
            let title = s.title.as_deref().unwrap_or("(no title)");
            format!("  {}  {title}  ({})", s.session, s.file.display())
        })
        .collect();
    if lines.is_empty() {
        "  (none)".to_owned()
    } else {
        lines.join("\n")
    }
}

/// The `--session` a command needs for `row`: its id for a session of a SQLite store.
fn store_session(row: &SessionRow) -> Option<String> {
    (row.encoding == "sqlite").then(|| row.session.clone())
}

/// Runs a command into a buffer and returns what it printed; an error is the tool's.
fn printed(run: impl FnOnce(&mut Vec<u8>) -> Result<std::process::ExitCode>) -> Result<String> {
    let mut out = Vec::new();
    run(&mut out)?;
    String::from_utf8(out).context("internal error: a command printed text that is not UTF-8")
}

/// A `since`/`until` time in UTC, as `search --since` reads it.
fn when(flag: &str, text: Option<&str>, end_of_day: bool) -> Result<Option<i64>> {
    text.map(|t| crate::cmd::stats::parse_when(flag, t, &jiff::tz::TimeZone::UTC, end_of_day))
        .transpose()
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
    sessions: Vec<crate::cmd::sessions_root::Row>,
    /// Sessions that matched but were left out by the limit.
    more: usize,
}

/// `list_sessions`: the rows `sessions ROOT --format json` prints, filtered.
pub fn list_sessions(cx: &Context, p: ListSessions) -> Result<String> {
    let since = when("since", p.since.as_deref(), false)?;
    let until = when("until", p.until.as_deref(), true)?;
    let index = cx.index()?;
    let rows = index.sessions(&SessionFilter {
        under: cx.under.clone(),
        project: p.project,
        since,
        until,
        ..SessionFilter::default()
    })?;
    let rows: Vec<&SessionRow> = rows
        .iter()
        .filter(|r| p.status.is_none_or(|s| r.status == s.name()))
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

/// `search`: the hits `search --format json` prints.
pub fn search(cx: &Context, p: Search) -> Result<String> {
    let args = SearchArgs {
        query: p.query,
        paths: cx.roots.clone(),
        index: cx.location(),
        no_update: false,
        project: p.project,
        session: p.session,
        since: p.since,
        until: p.until,
        tz: "UTC".into(),
        role: p.roles.unwrap_or_default(),
        tool: p.tool,
        include_shadowed: p.include_shadowed.unwrap_or(false),
        sessions_only: false,
        limit: p.limit.unwrap_or(SEARCH_LIMIT).max(1),
        format: TableFormat::Json,
        quiet: true,
    };
    let text = printed(|out| crate::cmd::search::run(&args, false, out))?;
    let hits: Value = serde_json::from_str(&text)?;
    Ok(serde_json::json!({ "hits": hits }).to_string())
}

/// Arguments of a tool that reads one session.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionName {
    /// The session: its id, or a unique prefix of it (as list_sessions and search give it).
    pub session: String,
}

/// `show`: what `show --format json` prints.
pub fn show(cx: &Context, p: SessionName) -> Result<String> {
    let row = cx.find(&cx.index()?, &p.session)?;
    let args = ShowArgs {
        file: row.file.clone(),
        format: TableFormat::Json,
        session: store_session(&row),
        salvage: false,
        seq: None,
    };
    printed(|out| crate::cmd::show::run(&args, out))
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
    let one = crate::cmd::messages::one_message(&row.file, session.as_deref(), p.seq)?;
    let message: Value = serde_json::from_str(&one.message)?;
    Ok(serde_json::json!({
        "session": row.session,
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
    let row = cx.find(&cx.index()?, &p.session)?;
    let args = ValidateArgs {
        files: vec![row.file.clone()],
        format: ListFormat::Json,
        quiet: false,
        session: store_session(&row),
        provider: p.provider,
        strict: false,
    };
    let text = printed(|out| crate::cmd::validate::run(&args, false, out))?;
    let verdicts: Vec<Value> = serde_json::from_str(&text)?;
    let Some(verdict) = verdicts.into_iter().next() else {
        bail!("{}: holds no session {}", row.file.display(), row.session);
    };
    if verdict["status"] == "error" {
        let why = verdict["message"].as_str().unwrap_or("cannot be read");
        bail!("{}: {why}", row.file.display());
    }
    Ok(verdict.to_string())
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
    let row = cx.find(&cx.index()?, &p.session)?;
    let args = ProvenanceArgs {
        file: row.file.clone(),
        seq: p.seq,
        session: store_session(&row),
        depth: p.depth,
        format: ProvenanceFormat::Json,
        salvage: false,
    };
    printed(|out| crate::cmd::provenance::run(&args, out))
}

/// Arguments of `messages`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Messages {
    /// The session: its id, or a unique prefix of it.
    pub session: String,
    /// Only messages of events at or after this seq.
    pub from_seq: Option<u64>,
    /// Only messages of events at or before this seq.
    pub to_seq: Option<u64>,
    /// Only messages from this turn on (the turn numbers of show's per_turn); not with
    /// from_seq.
    pub from_turn: Option<i64>,
    /// Only messages up to the end of this turn; not with to_seq.
    pub to_turn: Option<i64>,
    /// At most about this many bytes of messages (default 100000, at most 1000000); the
    /// answer's `next` gives the range to ask for next.
    pub max_bytes: Option<usize>,
    /// The `revision` of the answer whose `next` range this asks for (`next` carries it):
    /// when the log changed since, the answer is the error `source_changed` instead of a
    /// page that may not follow the one before.
    pub revision: Option<String>,
}

/// The revision of the log a page was read from: its size and modification time
/// (`SIZE-MTIME_NS`); any write to the log changes it.
fn revision(file: &std::path::Path) -> Result<String> {
    let meta = std::fs::metadata(file).with_context(|| file.display().to_string())?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Ok(format!("{}-{mtime}", meta.len()))
}

#[derive(Debug, Serialize)]
struct MessageJson {
    /// The event's seq.
    seq: u64,
    /// The derived message, as stored.
    message: Box<RawValue>,
}

#[derive(Debug, Serialize)]
struct SeqRange {
    from_seq: u64,
    to_seq: u64,
    /// The revision of the log this range belongs to (give it back with the range).
    revision: String,
}

/// The `messages` tool's layout (README "JSON outputs").
const MESSAGES_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
struct MessagesJson<'a> {
    schema_version: u32,
    session: &'a str,
    file: String,
    /// The range the messages shown cover.
    from_seq: u64,
    to_seq: u64,
    /// Messages in the whole derived history.
    history_messages: usize,
    messages: Vec<MessageJson>,
    bytes: usize,
    /// The revision of the log read ([`revision`]).
    revision: String,
    /// The range holding the rest, when the answer was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    next: Option<SeqRange>,
    /// What was widened or cut, and why.
    notes: Vec<String>,
}

/// The seqs turns `from..=to` span, from `show`'s turn rows.
fn turn_seqs(
    turns: &[dsh_session::view::stats::TurnRow],
    from: Option<i64>,
    to: Option<i64>,
) -> Result<(u64, u64)> {
    let known = || match (turns.first(), turns.last()) {
        (Some(a), Some(b)) => format!("its turns are {} to {}", a.turn, b.turn),
        _ => "it has no turns".to_owned(),
    };
    let start = match from {
        None => 0,
        Some(t) => match turns.iter().find(|r| r.turn == t) {
            Some(r) => r.start_seq,
            None => bail!("the session has no turn {t}: {}", known()),
        },
    };
    let end = match to {
        None => u64::MAX,
        Some(t) => match turns.iter().rposition(|r| r.turn == t) {
            Some(i) => match (turns[i].end_seq, turns.get(i + 1)) {
                (Some(end), _) => end,
                (None, Some(next)) => next.start_seq.saturating_sub(1),
                (None, None) => u64::MAX,
            },
            None => bail!("the session has no turn {t}: {}", known()),
        },
    };
    Ok((start, end))
}

/// `messages`: a window of the derived history (what `messages --format json` prints,
/// each message with its seq), cut at `max_bytes` without parting a tool call from its
/// results ([`window::window`]).
pub fn messages(cx: &Context, p: Messages) -> Result<String> {
    if p.from_seq.is_some() && p.from_turn.is_some() || p.to_seq.is_some() && p.to_turn.is_some() {
        bail!(
            "give a range by seqs (from_seq, to_seq) or by turns (from_turn, to_turn), not both at one end"
        );
    }
    let max_bytes = p.max_bytes.unwrap_or(MAX_BYTES);
    if !(1..=MAX_BYTES_LIMIT).contains(&max_bytes) {
        bail!("max_bytes is {max_bytes}: give 1 to {MAX_BYTES_LIMIT}");
    }
    let row = cx.find(&cx.index()?, &p.session)?;
    let now = revision(&row.file)?;
    if let Some(asked) = &p.revision
        && *asked != now
    {
        bail!(
            "source_changed: the log of {} changed since the page that gave revision {asked} (now {now}); ask again without a revision, from the start or from a seq",
            row.session
        );
    }
    // As `messages` scans (every derived message kept, past 2 MiB in a temporary file),
    // with the turn rows `show` reads for a range by turns.
    let mut keep = Keep::MESSAGES;
    let mut stats = Stats::with_turn_rows();
    let options = ScanOptions {
        session: store_session(&row),
        ..ScanOptions::default()
    };
    let report =
        crate::cmd::scan_readable_as(&row.file, &row.file, &options, &mut [&mut keep, &mut stats])?;
    let (turn_from, turn_to) = turn_seqs(&stats.turns, p.from_turn, p.to_turn)?;
    let from = p.from_seq.unwrap_or(turn_from);
    let to = p.to_seq.unwrap_or(turn_to);
    if from > to {
        bail!("the range is empty: from seq {from} to seq {to}");
    }
    // First the sizes and call ids alone (the texts are read back one at a time, never
    // all held), then the texts of the window.
    let cannot_read = || {
        format!(
            "{}: cannot read back the derived messages from a temporary file",
            row.file.display()
        )
    };
    let mut metas: Vec<(u64, usize, Vec<String>, Vec<String>)> = Vec::new();
    for entry in report.replay.iter() {
        let entry = entry.with_context(cannot_read)?;
        if let Some(m) = &entry.message {
            metas.push((entry.seq, m.len(), entry.calls, entry.results));
        }
    }
    let items: Vec<Item<'_>> = metas
        .iter()
        .map(|(seq, bytes, calls, results)| Item {
            seq: *seq,
            bytes: *bytes,
            calls,
            results,
        })
        .collect();
    let w = window::window(&items, from, to, max_bytes);
    let mut wanted = w.take.iter().peekable();
    let mut shown = Vec::with_capacity(w.take.len());
    let with_message = report
        .replay
        .iter()
        .filter(|e| !matches!(e, Ok(e) if e.message.is_none()));
    for (at, entry) in with_message.enumerate() {
        if wanted.peek().is_none() {
            break;
        }
        let entry = entry.with_context(cannot_read)?;
        if wanted.next_if(|&&i| i == at).is_some() {
            let text = entry.message.unwrap_or_default();
            let message = RawValue::from_string(text).with_context(|| {
                format!(
                    "{}: seq {}: the derived message is not JSON",
                    row.file.display(),
                    entry.seq
                )
            })?;
            shown.push(MessageJson {
                seq: entry.seq,
                message,
            });
        }
    }
    let mut notes = Vec::new();
    if let Some((a, b)) = w.widened_from {
        notes.push(format!(
            "the range asked for (seq {a} to {}) was widened to seq {} to {} so that tool calls stay with their results",
            shown_end(b),
            w.range.0,
            w.range.1
        ));
    }
    if w.over_cap {
        notes.push(format!(
            "the first messages that can be shown together (a tool call with its results, or a compaction with what it kept) are {} bytes, over max_bytes {max_bytes}: shown whole",
            w.bytes
        ));
    }
    if w.take.is_empty() {
        notes.push(format!(
            "no message of the derived history lies in seq {from} to {}: a replace (a compaction, a pruned result) may have taken it off; search with include_shadowed finds such text, provenance tells what replaced a seq",
            shown_end(to)
        ));
    }
    if let Some((a, b)) = w.next {
        notes.push(format!(
            "cut at max_bytes {max_bytes}: the rest is from_seq {a} to_seq {b}"
        ));
    }
    let json = MessagesJson {
        schema_version: MESSAGES_SCHEMA_VERSION,
        session: &row.session,
        file: row.file.display().to_string(),
        from_seq: w.from_seq,
        to_seq: w.to_seq,
        history_messages: items.len(),
        messages: shown,
        bytes: w.bytes,
        revision: now.clone(),
        next: w.next.map(|(from_seq, to_seq)| SeqRange {
            from_seq,
            to_seq,
            revision: now.clone(),
        }),
        notes,
    };
    Ok(serde_json::to_string(&json)?)
}

/// A range's end as a note says it: "the end" for an open one.
fn shown_end(seq: u64) -> String {
    if seq == u64::MAX {
        "the end".to_owned()
    } else {
        seq.to_string()
    }
}
