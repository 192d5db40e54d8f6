//! `recover`'s output: the [`Recovery`] and what was done with it, as text (what each
//! session holds, every line left out, changed or lost) or as one JSON object
//! (`recover --format json`, README "recover").

use std::io::Write;
use std::path::Path;

use dsh_session::edge::DshLine;
use dsh_session::recover::{Done, KeptCount, NewSession, Recovery, show_ranges};
use dsh_session::scan::Status;
use dsh_session::wording::{count, utc};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::cli::RepairFormat;
use crate::render::write_list;

/// Writes what `recover` did (`done`) with the [`Recovery`] of a log, in `format`; `root`
/// is the DSH root the sessions go under.
///
/// # Errors
/// Writing to `out` failed.
pub fn write(
    out: &mut dyn Write,
    r: &Recovery,
    done: Done,
    format: RepairFormat,
    root: &Path,
) -> anyhow::Result<()> {
    let o = outcome(r, done.name());
    match format {
        RepairFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &o)?;
            writeln!(out)?;
        }
        RepairFormat::Text => write_text(out, r, &o, root)?,
    }
    Ok(())
}

#[derive(Serialize)]
struct Outcome<'a> {
    schema_version: u32,
    file: String,
    session: &'a str,
    store_session: Option<&'a str>,
    /// `recovered`, `would recover`, `valid` (nothing to recover), `not written` (a
    /// session's path exists), `nothing recoverable`.
    status: &'static str,
    defect: Option<Defect>,
    sessions: Vec<SessionJson<'a>>,
    kept: KeptCount,
    dropped: Vec<DroppedJson<'a>>,
    changed: Vec<ChangedJson<'a>>,
    unrecoverable: Vec<LostJson<'a>>,
    /// Branches for which no session could be made, and why.
    failed: &'a [String],
    /// Where each line of the original went.
    lines: Vec<LineJson<'a>>,
}

#[derive(Serialize)]
struct LineJson<'a> {
    line: Option<u64>,
    seq: Option<u64>,
    went: &'static str,
    sessions: &'a [String],
    why: Option<&'a str>,
}

#[derive(Serialize)]
struct Defect {
    status: &'static str,
    rule: &'static str,
    line: Option<u64>,
    row: Option<u64>,
    seq: Option<u64>,
    message: String,
}

#[derive(Serialize)]
struct SessionJson<'a> {
    session: &'a str,
    path: String,
    exists: bool,
    branch: Option<usize>,
    fork_seq: Option<u64>,
    fork_line: Option<u64>,
    encoding: &'static str,
    events: u64,
    turns: u64,
    more_turns: bool,
    last_time: Option<i64>,
    last_time_utc: Option<String>,
    lines: Vec<[u64; 2]>,
    verbatim: u64,
    renumbered: u64,
    changed: u64,
    closers: Vec<&'a RawValue>,
    heals: Vec<&'a RawValue>,
    unhealed: Vec<String>,
    note: Option<&'a RawValue>,
}

#[derive(Serialize)]
struct DroppedJson<'a> {
    line: u64,
    seq: u64,
    #[serde(rename = "type")]
    ty: &'a str,
    on_surface: bool,
    why: &'a str,
    sessions: &'a [String],
    record: Option<&'a RawValue>,
}

#[derive(Serialize)]
struct ChangedJson<'a> {
    line: u64,
    seq: Option<u64>,
    member: &'a str,
    before: Option<&'a RawValue>,
    after: Option<&'a RawValue>,
    rule: &'static str,
    why: &'a str,
    sessions: &'a [String],
}

#[derive(Serialize)]
struct LostJson<'a> {
    from_line: Option<u64>,
    to_line: Option<u64>,
    offset: Option<u64>,
    bytes: Option<u64>,
    rule: Option<&'static str>,
    torn_tail: bool,
    copy_of: Option<u64>,
    why: &'a str,
    sessions: &'a [String],
}

fn raw(text: &str) -> Option<&RawValue> {
    serde_json::from_str::<&RawValue>(text).ok()
}

fn outcome<'a>(r: &'a Recovery, status: &'static str) -> Outcome<'a> {
    let top = r.most_turns().map(|s| s.id.as_str());
    Outcome {
        schema_version: 1,
        file: r.file.display().to_string(),
        session: &r.original,
        store_session: r.store_session.as_deref(),
        status,
        defect: r.verdict.finding.as_ref().map(|f| Defect {
            status: r.verdict.status.name(),
            rule: f.rule.id(),
            line: f.line,
            row: f.row,
            seq: f.seq,
            message: f.message.clone(),
        }),
        sessions: r
            .sessions
            .iter()
            .map(|s| SessionJson {
                session: &s.id,
                path: s.path.display().to_string(),
                exists: s.exists,
                branch: s.branch,
                fork_seq: s.fork.map(|f| f.0),
                fork_line: s.fork.map(|f| f.1),
                encoding: s.encoding.name(),
                events: s.events,
                turns: s.turns,
                more_turns: top == Some(s.id.as_str()),
                last_time: s.last_time,
                last_time_utc: s.last_time.map(utc),
                lines: s.lines.iter().map(|&(a, b)| [a, b]).collect(),
                verbatim: s.verbatim,
                renumbered: s.renumbered,
                changed: s.changed,
                closers: s.closers.iter().filter_map(|c| raw(c)).collect(),
                heals: s.heals.iter().filter_map(|h| raw(&h.record)).collect(),
                unhealed: s
                    .unhealed
                    .iter()
                    .map(|u| format!("{} {}: {}", u.finding.rule.id(), u.finding.message, u.why))
                    .collect(),
                note: s.note.as_deref().and_then(raw),
            })
            .collect(),
        kept: r.fates.kept,
        dropped: r
            .fates
            .dropped
            .iter()
            .map(|d| DroppedJson {
                line: d.record.line,
                seq: d.record.seq,
                ty: &d.record.ty,
                on_surface: false,
                why: &d.why,
                sessions: &d.sessions,
                record: raw(&d.record.text),
            })
            .collect(),
        changed: r
            .fates
            .changed
            .iter()
            .map(|c| ChangedJson {
                line: c.line,
                seq: c.seq,
                member: &c.change.member,
                before: c.change.before.as_deref().and_then(raw),
                after: c.change.after.as_deref().and_then(raw),
                rule: c.rule.id(),
                why: &c.why,
                sessions: &c.sessions,
            })
            .collect(),
        unrecoverable: r
            .fates
            .unrecoverable
            .iter()
            .map(|u| LostJson {
                from_line: u.lines.map(|l| l.0),
                to_line: u.lines.map(|l| l.1),
                offset: u.bytes.map(|b| b.0),
                bytes: u.bytes.map(|b| b.1),
                rule: u.rule.map(|r| r.id()),
                torn_tail: u.torn_tail,
                copy_of: u.copy_of,
                why: &u.why,
                sessions: &u.sessions,
            })
            .collect(),
        failed: &r.failed,
        lines: (r.fates.lines.iter())
            .map(|l| LineJson {
                line: l.line,
                seq: l.seq,
                went: l.went,
                sessions: &l.sessions,
                why: l.why.as_deref(),
            })
            .collect(),
    }
}

fn write_text(
    out: &mut dyn Write,
    r: &Recovery,
    o: &Outcome<'_>,
    root: &Path,
) -> std::io::Result<()> {
    let name = match &r.store_session {
        Some(s) => format!("{} (session {s})", o.file),
        None => o.file.clone(),
    };
    let Some(f) = &r.verdict.finding else {
        writeln!(
            out,
            "{name}: {} as {} loads it; nothing to recover{}",
            r.verdict.status.name(),
            DshLine::process_default().name(),
            if r.verdict.status == Status::TornTail {
                " (DSH cuts its torn tail on load; `dsh-session repair` does it now)"
            } else {
                ""
            }
        )?;
        return Ok(());
    };
    writeln!(out, "{name}: {} {f}", r.verdict.status.name())?;
    let written = matches!(o.status, "recovered");
    let verb = if written {
        "recovered"
    } else {
        "would recover"
    };
    if r.sessions.len() > 1 {
        let fork = r.sessions.iter().find_map(|s| s.fork);
        writeln!(
            out,
            "{name}: {verb} {} under {}: {} processes wrote the log at the same time{}",
            count(r.sessions.len() as u64, "session"),
            root.display(),
            r.sessions.len(),
            fork.map(|(seq, line)| format!(" (the second starts over at seq {seq}, line {line})"))
                .unwrap_or_default()
        )?;
    } else if !r.sessions.is_empty() {
        writeln!(out, "{name}: {verb} 1 session under {}:", root.display())?;
    }
    for s in &r.sessions {
        write_session(out, s)?;
    }
    if r.sessions.len() > 1 {
        match r.most_turns() {
            Some(top) => writeln!(
                out,
                "  {} has the most turns ({}); every branch is written, none is preferred",
                top.id,
                r.sessions
                    .iter()
                    .map(|s| format!("{} in {}", s.turns, s.id))
                    .collect::<Vec<_>>()
                    .join(", ")
            )?,
            None => writeln!(
                out,
                "  the branches have as many turns ({}); every branch is written",
                r.sessions
                    .iter()
                    .map(|s| s.turns.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )?,
        }
    }
    write_list(
        out,
        &r.fates.dropped,
        |n| {
            format!(
                "{name}: left out {} of types no DSH loads (log-only: nothing the model saw):",
                count(n, "record")
            )
        },
        |out, d| {
            let r = &d.record;
            writeln!(out, "  line {} (seq {}) {}: {}", r.line, r.seq, r.ty, d.why)?;
            writeln!(out, "    {}", r.text)
        },
    )?;
    write_list(
        out,
        &r.fates.changed,
        |n| format!("{name}: changed {}:", count(n, "member")),
        |out, c| {
            let seq = c.seq.map(|s| format!(" (seq {s})")).unwrap_or_default();
            writeln!(
                out,
                "  line {}{seq} {}: {} → {} ({} {})",
                c.line,
                c.change.member,
                c.change.before.as_deref().unwrap_or("(absent)"),
                c.change.after.as_deref().unwrap_or("(taken out)"),
                c.rule.id(),
                c.why
            )
        },
    )?;
    if !r.fates.unrecoverable.is_empty() {
        writeln!(out, "{name}: left out of the new sessions:")?;
        for u in &r.fates.unrecoverable {
            let at = match (u.lines, u.bytes) {
                (Some((a, b)), _) if a == b => format!("line {a}"),
                (Some((a, b)), _) => format!("lines {a}–{b}"),
                (None, Some((offset, bytes))) => {
                    format!("{} at byte offset {offset}", count(bytes, "byte"))
                }
                (None, None) => "events".to_owned(),
            };
            let only = if u.sessions.len() < r.sessions.len() {
                format!(" [{}]", u.sessions.join(", "))
            } else {
                String::new()
            };
            writeln!(out, "  {at}{only}: {}", u.why)?;
        }
    }
    for why in &r.failed {
        writeln!(out, "{name}: no session for {why}")?;
    }
    if o.status == "not written" {
        for s in r.sessions.iter().filter(|s| s.exists) {
            writeln!(
                out,
                "{name}: {} (or session {} elsewhere under the root) exists: recover never writes over a session; nothing was written",
                s.path.display(),
                s.id
            )?;
        }
    }
    Ok(())
}

fn write_session(out: &mut dyn Write, s: &NewSession) -> std::io::Result<()> {
    writeln!(out, "  {}", s.path.display())?;
    let branch = match (s.branch, s.fork) {
        (Some(b), Some((seq, _))) => format!(" (writer {b}: leaves writer 1 at seq {seq})"),
        (Some(b), None) => format!(" (writer {b})"),
        _ => String::new(),
    };
    let last = s
        .last_time
        .map(|t| format!(", last event {}", utc(t)))
        .unwrap_or_default();
    writeln!(
        out,
        "    session {}{branch}: {}, {}{last}",
        s.id,
        count(s.turns, "turn"),
        count(s.events, "event")
    )?;
    let mut held = vec![format!("{} of the log", show_ranges(&s.lines))];
    if s.renumbered > 0 {
        held.push(format!("{} renumbered", count(s.renumbered, "record")));
    }
    if s.changed > 0 {
        held.push(format!("{} changed", count(s.changed, "record")));
    }
    writeln!(
        out,
        "    holds {}; every other record as stored",
        held.join(", ")
    )?;
    write_list(
        out,
        &s.closers,
        |n| {
            format!(
                "    {} DSH writes to end interrupted turns:",
                count(n, "closer")
            )
        },
        |out, c| writeln!(out, "      {c}"),
    )?;
    write_list(
        out,
        &s.heals,
        |n| format!("    {} (repair --provider):", count(n, "heal")),
        |out, h| writeln!(out, "      seq {}: {}", h.seq, h.change),
    )?;
    for u in &s.unhealed {
        writeln!(
            out,
            "    no heal fixes {} {}: {}",
            u.finding.rule.id(),
            u.finding.message,
            u.why
        )?;
    }
    if let Some(n) = &s.note {
        writeln!(out, "    ends with a note that cites the original:")?;
        writeln!(out, "      {n}")?;
    }
    Ok(())
}
