//! `search`'s hits and sessions with hits as text (one hit in four lines, fitted to the
//! terminal) or JSON rows (`search --format json|jsonl`, also the MCP server's `search`
//! answer), each naming its file as the user named the root it is under ([`Names`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use dsh_session::index::{Field, Hit, SessionHits, SessionRef, Snippet};
use dsh_session::wording::utc;
use serde::Serialize;

use crate::cli::TableFormat;
use crate::render::paint;

/// `search --format json|jsonl` layout: 2 added `field`, `lineage` and `grouped`, and
/// `open` prints the one message (`messages FILE --seq N`).
pub const SCHEMA_VERSION: u32 = 2;

/// The paths a search was given, each with its canonical form (as the index keeps files),
/// so that every output names a file as the user named its root.
#[derive(Debug, Clone, Default)]
pub struct Names {
    /// `(canonical, as given)`.
    given: Vec<(PathBuf, PathBuf)>,
}

impl Names {
    /// The names of `paths` as given.
    ///
    /// # Errors
    /// A path that cannot be made canonical (it does not exist).
    pub fn given(paths: &[PathBuf]) -> Result<Names> {
        let given = paths
            .iter()
            .map(|p| {
                let canonical =
                    std::fs::canonicalize(p).with_context(|| p.display().to_string())?;
                Ok((canonical, p.clone()))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Names { given })
    }

    /// The canonical paths, as a [`dsh_session::index::SessionFilter`] takes them.
    pub fn canonical(&self) -> Vec<PathBuf> {
        self.given.iter().map(|(c, _)| c.clone()).collect()
    }

    /// `file` (canonical, as the index keeps it) as every output of `search` names it:
    /// below a path given, that path joined with the rest (`fixtures/a/session.jsonl` for
    /// `search … fixtures`); else absolute (DSH's default root when none was given).
    fn shown(&self, file: &Path) -> String {
        self.given
            .iter()
            .find_map(|(canonical, given)| {
                file.strip_prefix(canonical)
                    .ok()
                    .map(|rest| given.join(rest))
            })
            .unwrap_or_else(|| file.to_path_buf())
            .display()
            .to_string()
    }
}

/// One hit in `search --format json` (schema [`SCHEMA_VERSION`]).
#[derive(Debug, Serialize)]
pub struct HitJson {
    #[serde(flatten)]
    named: Named,
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

/// What every row of `search --format json` begins with: the layout's version and the
/// session (its id, title, file, project, verdict and rule).
#[derive(Debug, Serialize)]
struct Named {
    schema_version: u32,
    session: String,
    title: Option<String>,
    file: String,
    project: Option<String>,
    /// The session's `validate` status and the rule of its finding (`refused`, `F2`).
    status: String,
    rule: Option<String>,
}

impl Named {
    /// The row's start for `session`, as `names` names its file.
    fn new(names: &Names, session: &SessionRef) -> Named {
        Named {
            schema_version: SCHEMA_VERSION,
            session: session.id.clone(),
            title: session.title.clone(),
            file: names.shown(&session.file),
            project: session.cwd.clone(),
            status: session.status.clone(),
            rule: session.rule.clone(),
        }
    }
}

/// One session with hits in `search -l --format json`.
#[derive(Debug, Serialize)]
struct SessionJson {
    #[serde(flatten)]
    named: Named,
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

/// The command that prints message `seq` of a session (`messages FILE --seq N`), or with no
/// seq the session itself (`show FILE`), naming the file as every output names it
/// ([`Names`]).
fn open_command(names: &Names, session: &SessionRef, seq: Option<u64>) -> String {
    let file = names.shown(&session.file);
    let mut cmd = match seq {
        Some(_) => format!("dsh-session messages {}", shell_word(&file)),
        None => format!("dsh-session show {}", shell_word(&file)),
    };
    if session.encoding == "sqlite" {
        cmd.push_str(&format!(" --session {}", shell_word(&session.id)));
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
    names: &Names,
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
    if let Some(lineage) = hit.session.lineage.kind() {
        head.push(lineage.to_owned());
    }
    if !hit.grouped.is_empty() {
        let seqs: Vec<String> = hit.grouped.iter().map(u64::to_string).collect();
        head.push(format!("with seq {}", seqs.join(", ")));
    }
    let mut head = head.join("  ");
    let mut file = names.shown(&hit.session.file);
    if let Some(c) = columns {
        // The file keeps at least its last 24 columns (its name); the rest is cut.
        let room = c.saturating_sub(head.width() + 2).max(24.min(file.width()));
        file = crate::render::cut_start(&file, room);
        head = crate::render::cut_end(&head, c.saturating_sub(file.width() + 2));
    }
    writeln!(out, "{head}  {}", paint(color, "35", &file))?;
    let mut session = format!("session {}", hit.session.id);
    if let Some(title) = &hit.session.title {
        session.push_str(&format!(": {title}"));
    }
    if let Some(project) = &hit.session.cwd {
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
    let open = open_command(names, &hit.session, hit_seq(hit));
    writeln!(out, "  {}", paint(color, "2", &open))?;
    writeln!(out)
}

/// The hits as `search --format json` rows (and the MCP server's `search` answer).
pub fn hit_rows(hits: &[Hit], names: &Names) -> Vec<HitJson> {
    hits.iter()
        .map(|h| HitJson {
            named: Named::new(names, &h.session),
            field: h.field.name(),
            lineage: h.session.lineage.kind(),
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
            open: open_command(names, &h.session, hit_seq(h)),
        })
        .collect()
}

/// Writes the hits: four lines each in text (fitted to a terminal), else JSON rows.
///
/// # Errors
/// Writing failed.
pub fn write_hits(
    out: &mut dyn Write,
    format: TableFormat,
    hits: &[Hit],
    names: &Names,
    color: bool,
) -> Result<()> {
    if format == TableFormat::Text {
        let columns = crate::render::terminal_columns();
        for hit in hits {
            write_hit(out, hit, names, color, columns)?;
        }
        return Ok(());
    }
    crate::render::write_rows(out, format, &hit_rows(hits, names), |_| Ok(()))
}

/// Writes the sessions with hits (`search -l`): a line each in text (`FILE`, `FILE
/// [session ID]` for a store), else JSON rows.
///
/// # Errors
/// Writing failed.
pub fn write_sessions(
    out: &mut dyn Write,
    format: TableFormat,
    found: &[SessionHits],
    names: &Names,
) -> Result<()> {
    let rows: Vec<SessionJson> = found
        .iter()
        .map(|f| {
            let s = &f.session;
            SessionJson {
                named: Named::new(names, &s.session),
                last_activity: s.times.last_time.map(utc),
                seq: hit_seq(&f.newest),
                time: f.newest.part.time.map(utc),
                snippet: f.newest.snippet.text.clone(),
                open: open_command(names, &s.session, hit_seq(&f.newest)),
            }
        })
        .collect();
    crate::render::write_rows(out, format, &rows, |out| {
        for (r, f) in rows.iter().zip(found) {
            // One line each, like `grep -l`: the file (and session, for a store).
            let file = names.shown(&f.session.session.file);
            let name = if f.session.session.encoding == "sqlite" {
                crate::render::log_name(&file, Some(&r.named.session))
            } else {
                file
            };
            writeln!(out, "{name}")?;
        }
        Ok(())
    })
}
