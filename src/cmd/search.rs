//! `search QUERY [PATH]...`: full-text search over every indexed session (issue 28), exit
//! codes as grep's: 0 with hits, 1 with none, 2 on error.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use dsh_session::index::{Field, Hit, Query, SessionFilter, SessionHits, Snippet};
use dsh_session::view::message_rows::PartKind;
use dsh_session::wording::utc;
use serde::Serialize;

use crate::cli::{SearchArgs, SearchRole, TableFormat};
use crate::render::paint;

/// `search --format json|jsonl` layout: 2 added `field`, `lineage` and `grouped`, and
/// `open` prints the one message (`messages FILE --seq N`).
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Serialize)]
struct HitJson {
    schema_version: u32,
    session: String,
    title: Option<String>,
    file: String,
    project: Option<String>,
    /// The session's `validate` status and the rule of its finding (`refused`, `F2`).
    status: String,
    rule: Option<String>,
    /// What matched: `message` (a part's text or its tool's name), `title` or `project`.
    field: &'static str,
    /// `subagent` or `fork` for a session made by another (ranked below its parent's).
    lineage: Option<&'static str>,
    turn: Option<i64>,
    /// The message's seq; `null` for a title or project hit.
    seq: Option<u64>,
    /// The seqs of the other hits of the same run of assistant messages, grouped here.
    grouped: Vec<u64>,
    role: &'static str,
    message_role: String,
    source: Option<String>,
    tool: Option<String>,
    time: Option<String>,
    shadowed_by: Option<u64>,
    snippet: String,
    /// Byte ranges of `snippet` that matched, `[start, end)`.
    matches: Vec<[usize; 2]>,
    /// BM25 over the candidates; higher is better.
    score: f64,
    /// The command that prints the hit's message (a title or project hit: the session).
    open: String,
}

#[derive(Debug, Serialize)]
struct SessionJson {
    schema_version: u32,
    session: String,
    title: Option<String>,
    file: String,
    project: Option<String>,
    /// The session's `validate` status and the rule of its finding (`refused`, `F2`).
    status: String,
    rule: Option<String>,
    last_activity: Option<String>,
    /// The newest hit: its seq, time and snippet.
    seq: Option<u64>,
    time: Option<String>,
    snippet: String,
    open: String,
}

/// A path as a shell word: as it is when it holds only characters no shell treats
/// specially, else in single quotes.
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || "/._-+=:,@%~".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// The paths given on the command line, each with its canonical form (as the index keeps
/// files), so that every output names a file as the user named its root.
static GIVEN: std::sync::OnceLock<Vec<(PathBuf, PathBuf)>> = std::sync::OnceLock::new();

/// `file` (canonical, as the index keeps it) as every output of `search` names it: below a
/// path given on the command line, that path joined with the rest (`fixtures/a/session.jsonl`
/// for `search … fixtures`); else absolute (DSH's default root when none was given).
fn shown(file: &Path) -> String {
    GIVEN
        .get()
        .into_iter()
        .flatten()
        .find_map(|(canonical, given)| {
            file.strip_prefix(canonical)
                .ok()
                .map(|rest| given.join(rest))
        })
        .unwrap_or_else(|| file.to_path_buf())
        .display()
        .to_string()
}

/// The command that prints message `seq` of a session (`messages FILE --seq N`), or with no
/// seq the session itself (`show FILE`), naming the file as every output names it
/// ([`shown`]).
fn open_command(file: &str, encoding: &str, session: &str, seq: Option<u64>) -> String {
    let mut cmd = match seq {
        Some(_) => format!("dsh-session messages {}", shell_word(file)),
        None => format!("dsh-session show {}", shell_word(file)),
    };
    if encoding == "sqlite" {
        cmd.push_str(&format!(" --session {}", shell_word(session)));
    }
    if let Some(seq) = seq {
        cmd.push_str(&format!(" --seq {seq}"));
    }
    cmd
}

/// The seq a hit opens at: its message's, none for a title or project hit.
fn hit_seq(hit: &Hit) -> Option<u64> {
    (hit.field == Field::Message).then_some(hit.part.seq)
}

fn kind(role: SearchRole) -> PartKind {
    match role {
        SearchRole::User => PartKind::User,
        SearchRole::Assistant => PartKind::Assistant,
        SearchRole::Reasoning => PartKind::Reasoning,
        SearchRole::Tool => PartKind::Tool,
        SearchRole::System => PartKind::System,
    }
}

/// The snippet, cut to `columns` terminal columns (`None`: whole) so that its first match
/// shows, with its matches in bold red on a terminal.
fn painted(s: &Snippet, color: bool, columns: Option<usize>) -> String {
    let s = match columns {
        Some(c) => fit_snippet(s, c),
        None => s.clone(),
    };
    if !color {
        return s.text;
    }
    let mut out = String::new();
    let mut last = 0;
    for m in &s.matches {
        out.push_str(&s.text[last..m.start]);
        out.push_str(&paint(true, "1;31", &s.text[m.clone()]));
        last = m.end;
    }
    out.push_str(&s.text[last..]);
    out
}

/// A snippet in at most `columns` terminal columns (CJK characters take two): at most a
/// quarter of them before its first match, `…` where it is cut; its matches moved with it.
fn fit_snippet(s: &Snippet, columns: usize) -> Snippet {
    use unicode_width::UnicodeWidthStr;
    if s.text.width() <= columns {
        return s.clone();
    }
    let first = s.matches.first().map_or(0, |m| m.start);
    // Start where at most a quarter of the columns precede the first match.
    let mut start = first;
    let mut before = 0;
    for (i, c) in s.text[..first].char_indices().rev() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if before + w > columns / 4 {
            break;
        }
        before += w;
        start = i;
    }
    let lead = if start > 0 { "…" } else { "" };
    let room = columns.saturating_sub(lead.width());
    let body = crate::render::cut_end(&s.text[start..], room);
    let text = format!("{lead}{body}");
    let shift = lead.len() as isize - start as isize;
    let matches = s
        .matches
        .iter()
        .filter(|m| m.start >= start)
        .map(|m| {
            let a = (m.start as isize + shift) as usize;
            let b = ((m.end as isize + shift) as usize).min(text.len());
            a..b
        })
        .filter(|m| {
            m.start < m.end && text.is_char_boundary(m.start) && text.is_char_boundary(m.end)
        })
        .collect();
    Snippet { text, matches }
}

/// `2026-11-30 14:02 UTC`: a hit's time, to the minute.
fn minute(ms: i64) -> String {
    let t = utc(ms);
    // utc() gives RFC 3339 with milliseconds: keep the date and the minute.
    match (t.get(..10), t.get(11..16)) {
        (Some(d), Some(m)) => format!("{d} {m} UTC"),
        _ => t,
    }
}

/// One hit in text: a line saying where (seq, turn, part, time, file), the session (its
/// id, title and project), the snippet, and the command that opens it; on a terminal each
/// line but the command is cut to its width (the file from its start, the rest at the end).
fn write_hit(
    out: &mut dyn Write,
    hit: &Hit,
    color: bool,
    columns: Option<usize>,
) -> std::io::Result<()> {
    use unicode_width::UnicodeWidthStr;
    let mut head = Vec::new();
    match hit.field {
        Field::Message => {
            head.push(format!("seq {}", hit.part.seq));
            if let Some(t) = hit.part.turn {
                head.push(format!("turn {t}"));
            }
            let mut what = hit.part.kind.name().to_owned();
            if let Some(tool) = &hit.part.tool {
                what.push_str(&format!(" ({tool})"));
            }
            head.push(what);
            if let Some(t) = hit.part.time {
                head.push(minute(t));
            }
        }
        field => head.push(field.name().to_owned()),
    }
    if let Some(by) = hit.part.shadowed_by {
        head.push(format!("shadowed by seq {by}"));
    }
    if let Some(lineage) = hit.lineage {
        head.push(lineage.to_owned());
    }
    if !hit.grouped.is_empty() {
        let seqs: Vec<String> = hit.grouped.iter().map(u64::to_string).collect();
        head.push(format!("with seq {}", seqs.join(", ")));
    }
    let mut head = head.join("  ");
    let mut file = shown(&hit.file);
    if let Some(c) = columns {
        // The file keeps at least its last 24 columns (its name); the rest is cut.
        let room = c.saturating_sub(head.width() + 2).max(24.min(file.width()));
        file = crate::render::cut_start(&file, room);
        head = crate::render::cut_end(&head, c.saturating_sub(file.width() + 2));
    }
    writeln!(out, "{head}  {}", paint(color, "35", &file))?;
    let mut session = format!("session {}", hit.session);
    if let Some(title) = &hit.title {
        session.push_str(&format!(": {title}"));
    }
    if let Some(project) = &hit.project {
        session.push_str(&format!("  ({project})"));
    }
    let fit = |text: String| match columns {
        Some(c) => crate::render::cut_end(&text, c.saturating_sub(2)),
        None => text,
    };
    writeln!(out, "  {}", fit(session))?;
    writeln!(
        out,
        "  {}",
        painted(&hit.snippet, color, columns.map(|c| c.saturating_sub(2)))
    )?;
    let open = open_command(&shown(&hit.file), &hit.encoding, &hit.session, hit_seq(hit));
    writeln!(out, "  {}", paint(color, "2", &open))?;
    writeln!(out)
}

/// Runs `search`.
pub fn run(args: &SearchArgs, color: bool, out: &mut dyn Write) -> Result<ExitCode> {
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        bail!("search reads indexed files: name them (standard input cannot be indexed)");
    }
    let tz = jiff::tz::TimeZone::get(&args.tz).with_context(|| format!("--tz {:?}", args.tz))?;
    let when = |flag, text: &Option<String>, end| {
        text.as_deref()
            .map(|t| crate::cmd::stats::parse_when(flag, t, &tz, end))
            .transpose()
    };
    let (since, until) = (
        when("--since", &args.since, false)?,
        when("--until", &args.until, true)?,
    );
    if args.query.trim().is_empty() {
        bail!("the query is empty: give the words to find");
    }
    let mut index = crate::cmd::index::open(&args.index)?;
    let mut empty = false;
    if !args.no_update {
        let say = crate::cmd::index::Say::unless(args.quiet);
        let s = crate::cmd::index::update(&mut index, &args.paths, say)?;
        empty = !s.empty_dirs.is_empty();
    }
    let under = args
        .paths
        .iter()
        .map(|p| std::fs::canonicalize(p).with_context(|| p.display().to_string()))
        .collect::<Result<Vec<PathBuf>>>()?;
    let _ = GIVEN.set(
        under
            .iter()
            .cloned()
            .zip(args.paths.iter().cloned())
            .collect(),
    );
    let query = Query {
        text: args.query.clone(),
        sessions: SessionFilter {
            under,
            project: args.project.clone(),
            session: args.session.clone(),
            ..SessionFilter::default()
        },
        since,
        until,
        kinds: args.role.iter().map(|r| kind(*r)).collect(),
        tool: args.tool.clone(),
        include_shadowed: args.include_shadowed,
        limit: (args.limit > 0).then_some(args.limit),
    };
    let found = if args.sessions_only {
        let sessions = index.search_sessions(&query)?;
        write_sessions(out, args.format, &sessions)?;
        !sessions.is_empty()
    } else {
        let hits = index.search(&query)?;
        write_hits(out, args.format, &hits, color)?;
        !hits.is_empty()
    };
    Ok(ExitCode::from(match (empty, found) {
        (true, _) => 2,
        (false, true) => 0,
        (false, false) => 1,
    }))
}

fn write_hits(out: &mut dyn Write, format: TableFormat, hits: &[Hit], color: bool) -> Result<()> {
    if format == TableFormat::Text {
        let columns = crate::render::terminal_columns();
        for hit in hits {
            write_hit(out, hit, color, columns)?;
        }
        return Ok(());
    }
    let rows: Vec<HitJson> = hits
        .iter()
        .map(|h| HitJson {
            schema_version: SCHEMA_VERSION,
            session: h.session.clone(),
            title: h.title.clone(),
            file: shown(&h.file),
            project: h.project.clone(),
            status: h.status.clone(),
            rule: h.rule.clone(),
            field: h.field.name(),
            lineage: h.lineage,
            turn: h.part.turn,
            seq: hit_seq(h),
            grouped: h.grouped.clone(),
            role: h.part.kind.name(),
            message_role: h.part.role.clone(),
            source: h.part.source.clone(),
            tool: h.part.tool.clone(),
            time: h.part.time.map(utc),
            shadowed_by: h.part.shadowed_by,
            snippet: h.snippet.text.clone(),
            matches: h.snippet.matches.iter().map(|m| [m.start, m.end]).collect(),
            score: h.score,
            open: open_command(&shown(&h.file), &h.encoding, &h.session, hit_seq(h)),
        })
        .collect();
    crate::render::write_rows(out, format, &rows, |_| Ok(()))
}

fn write_sessions(out: &mut dyn Write, format: TableFormat, found: &[SessionHits]) -> Result<()> {
    let rows: Vec<SessionJson> = found
        .iter()
        .map(|f| {
            let s = &f.session;
            SessionJson {
                schema_version: SCHEMA_VERSION,
                session: s.session.clone(),
                title: s.title.clone(),
                file: shown(&s.file),
                project: s.cwd.clone(),
                status: s.status.clone(),
                rule: s.rule.clone(),
                last_activity: s.last_time.map(utc),
                seq: hit_seq(&f.newest),
                time: f.newest.part.time.map(utc),
                snippet: f.newest.snippet.text.clone(),
                open: open_command(&shown(&s.file), &s.encoding, &s.session, hit_seq(&f.newest)),
            }
        })
        .collect();
    crate::render::write_rows(out, format, &rows, |out| {
        for (r, f) in rows.iter().zip(found) {
            // One line each, like `grep -l`: the file (and session, for a store).
            let file = shown(&f.session.file);
            let name = if f.session.encoding == "sqlite" {
                crate::render::log_name(&file, Some(&r.session))
            } else {
                file
            };
            writeln!(out, "{name}")?;
        }
        Ok(())
    })
}
