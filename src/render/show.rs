//! `show`'s output: a summary of one session (aligned fields, then a table of its turns;
//! or one JSON object), and `show --seq N`'s one message (README "show").

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Result;
use dsh_session::event::Era;
use dsh_session::header::{Lineage, agent_preset_shown};
use dsh_session::scan::Report;
use dsh_session::view::stats::{ModelUse, TurnRow, Usage};
use dsh_session::view::{self, derived::Derived};
use dsh_session::wording::{count, lines_and_events, utc};
use serde::Serialize;

use crate::cli::TableFormat;
use crate::render::salvage::Salvaged;
use crate::render::{FindingJson, opt, place, write_aligned, write_one};
use dsh_session::view::message_at::OneMessage;

/// Writes the summary of the session `report` read (`salvaged`: the defect a `--salvage`
/// read stopped at, `Some(None)` for a healthy log read with `--salvage`).
///
/// # Errors
/// Writing to `out` failed.
pub fn write(
    out: &mut dyn Write,
    report: &Report,
    views: &view::summary::Summary,
    salvaged: Option<Option<&Salvaged>>,
    format: TableFormat,
) -> Result<()> {
    let cost_text = dsh_session::prices::money::cost_text(&views.cost);
    let sum = summary(report, views);
    let Some(salvaged) = salvaged else {
        write_one(out, format, &sum, |out| {
            write_text(out, report, &sum, &cost_text)
        })?;
        return Ok(());
    };
    // With --salvage: the defect at the top, or in a `salvaged` member.
    let mut value = serde_json::to_value(&sum)?;
    if let Some(object) = value.as_object_mut() {
        let defect = salvaged.map_or(serde_json::Value::Null, |s| s.json());
        object.insert("salvaged".into(), defect);
    }
    write_one(out, format, &value, |out| {
        if let Some(s) = salvaged {
            writeln!(out, "{}", s.text())?;
        }
        write_text(out, report, &sum, &cost_text)
    })?;
    Ok(())
}

/// `show FILE --seq N`: a line naming the event (seq, type, role, on the surface or
/// shadowed), then the stored message pretty-printed; json: one object.
///
/// # Errors
/// The stored message is no JSON (a bug: the scan checked it); writing to `out` failed.
pub fn write_message(out: &mut dyn Write, one: &OneMessage, format: TableFormat) -> Result<()> {
    let json = OneJson {
        seq: one.seq,
        ty: one.ty.clone(),
        role: one.role.clone(),
        on_surface: one.on_surface,
        message: serde_json::value::RawValue::from_string(one.message.clone())?,
    };
    let value: serde_json::Value = serde_json::from_str(&one.message)?;
    let pretty = serde_json::to_string_pretty(&value)?;
    write_one(out, format, &json, |out| {
        let role = one.role.as_deref().unwrap_or("-");
        let place = if one.on_surface {
            "on the surface"
        } else {
            "shadowed by a replace"
        };
        writeln!(out, "seq {}  {}  {role}  {place}", one.seq, one.ty)?;
        for line in pretty.lines() {
            writeln!(out, "  {line}")?;
        }
        Ok(())
    })?;
    Ok(())
}

/// `show --format json` layout: 2 renamed `session_id` to `session`.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Serialize)]
struct Summary<'a> {
    /// The JSON layout's version (README "JSON outputs").
    schema_version: u32,
    file: String,
    #[serde(rename = "session")]
    session_id: &'a str,
    format_version: Option<i64>,
    era: Option<&'static str>,
    encoding: &'static str,
    created_at: Option<String>,
    cwd: Option<&'a str>,
    /// The header's `parent_session`, `seed_length`, `origin` and `delegation_depth`.
    #[serde(flatten)]
    lineage: Lineage,
    /// Where a session dsh-session wrote came from, as its own events say (`null` for
    /// any other session).
    derived_from: Option<DerivedJson<'a>>,
    /// The latest `session/title`.
    title: Option<&'a str>,
    /// Every provider/model named, with its assistant messages.
    models: &'a [ModelUse],
    /// The agent preset in force at the end: the last `agent-preset/selected`, else the
    /// header's `agentPreset`.
    agent_preset: Option<&'a str>,
    /// The header's `agentPreset`.
    header_agent_preset: Option<&'a str>,
    /// The last `permission/preset`.
    permission_preset: Option<&'a str>,
    /// The last `sandbox/mode`.
    sandbox_mode: Option<&'a str>,
    /// The last `approval/policy`.
    approval_policy: Option<&'a str>,
    /// Child sessions named by `subagent/catalog` events; `null` when none are.
    child_sessions: Option<usize>,
    status: &'static str,
    /// What DSH 0.1.1 and DSH 0.1.5+ each do with a v0 log (`null` for other logs).
    dsh: Option<String>,
    events: u64,
    first_event_at: Option<String>,
    last_event_at: Option<String>,
    turns: u64,
    turns_by_reason: BTreeMap<String, u64>,
    steps: u64,
    surface_len: usize,
    replacements: u64,
    tool_calls: u64,
    tool_results: u64,
    unanswered_calls: usize,
    open_turn: Option<i64>,
    usage: UsageJson,
    /// The cost of the session's own events at the built-in prices, per currency
    /// (`stats`' `cost`); a fork's inherited history is its parent's.
    cost: serde_json::Value,
    /// The models whose tokens have no price (not in `cost`).
    unpriced: Vec<String>,
    /// Findings that do not fail the log (W1, W2, June-era rules).
    warnings: Vec<FindingJson>,
    per_turn: PerTurn<'a>,
}

/// The turn rows, serialized one at a time from the scan's rows (no second list of them).
#[derive(Debug)]
struct PerTurn<'a>(&'a [TurnRow]);

impl Serialize for PerTurn<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(TurnJson::from))
    }
}

#[derive(Debug, Serialize)]
struct DerivedJson<'a> {
    /// The original (`recover`) or source (`trim`) session's id.
    session: &'a str,
    /// `dsh-session recover` or `dsh-session trim`.
    by: &'static str,
    /// `recover`: the note's text; `trim`: how many tool results were cut.
    note: Option<&'a str>,
    trimmed_results: Option<u64>,
}

impl<'a> DerivedJson<'a> {
    fn of(d: &'a Derived, parent: Option<&'a str>) -> Option<Self> {
        if let Some((session, note)) = &d.recovered_from {
            return Some(DerivedJson {
                session,
                by: "dsh-session recover",
                note: Some(note),
                trimmed_results: None,
            });
        }
        (d.trimmed_results > 0).then_some(())?;
        Some(DerivedJson {
            session: parent?,
            by: "dsh-session trim",
            note: None,
            trimmed_results: Some(d.trimmed_results),
        })
    }
}

#[derive(Debug, Serialize)]
struct UsageJson {
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    /// `null` when unknown ([`Usage::reasoning_tokens`]).
    reasoning_tokens: Option<u64>,
}

impl From<Usage> for UsageJson {
    fn from(u: Usage) -> Self {
        UsageJson {
            input_tokens: u.input,
            output_tokens: u.output,
            cache_read_tokens: u.cache_read,
            cache_write_tokens: u.cache_write,
            reasoning_tokens: u.reasoning_tokens(),
        }
    }
}

#[derive(Debug, Serialize)]
struct TurnJson<'a> {
    turn: i64,
    start_seq: u64,
    end_seq: Option<u64>,
    reason: &'a str,
    steps: u64,
    tool_calls: u64,
    usage: UsageJson,
    /// v2 and later: records in the turn's embedded assistant streams.
    stream_records: u64,
    duration_ms: Option<i64>,
}

impl<'a> From<&'a TurnRow> for TurnJson<'a> {
    fn from(t: &'a TurnRow) -> Self {
        TurnJson {
            turn: t.turn,
            start_seq: t.start_seq,
            end_seq: t.end_seq,
            reason: &t.reason,
            steps: t.steps,
            tool_calls: t.tool_calls,
            usage: t.usage.into(),
            stream_records: t.stream_records,
            duration_ms: t.duration_ms(),
        }
    }
}

/// The JSON object of `show --format json` for the session `report` read, with the views'
/// [`view::summary::Summary`].
fn summary<'a>(report: &'a Report, v: &'a view::summary::Summary) -> Summary<'a> {
    let (s, d, cost) = (&v.stats, &v.derived, &v.cost);
    let h = report.header.as_ref();
    let open = &report.open_turn;
    let mut by_reason = s.end_reasons.clone();
    if open.open_turn.is_some() {
        by_reason.insert("still open".to_owned(), 1);
    }
    Summary {
        file: report.path.display().to_string(),
        schema_version: SCHEMA_VERSION,
        session_id: h.map_or("", |h| h.id.as_str()),
        format_version: h.and_then(|h| h.version),
        era: report.era.map(|e| e.name()),
        encoding: report.encoding.name(),
        created_at: h.and_then(|h| h.created_at).map(utc),
        cwd: h.and_then(|h| h.cwd.as_deref()),
        lineage: h.map(|h| h.lineage.clone()).unwrap_or_default(),
        derived_from: DerivedJson::of(d, h.and_then(|h| h.lineage.parent_session.as_deref())),
        title: s.title.as_deref(),
        models: &s.models,
        agent_preset: s
            .selected_agent_preset
            .as_deref()
            .or_else(|| h.and_then(|h| h.agent_preset.as_deref())),
        header_agent_preset: h.and_then(|h| h.agent_preset.as_deref()),
        permission_preset: s.permission_preset.as_deref(),
        sandbox_mode: s.sandbox_mode.as_deref(),
        approval_policy: s.approval_policy.as_deref(),
        child_sessions: (!s.child_sessions.is_empty()).then_some(s.child_sessions.len()),
        status: report.status.name(),
        dsh: report.dsh_lines(),
        events: s.events,
        first_event_at: s.first_time.map(utc),
        last_event_at: s.last_time.map(utc),
        turns: s.turn_count,
        turns_by_reason: by_reason,
        steps: s.steps,
        surface_len: report.replay.len(),
        replacements: report.replay.replacement_count(),
        tool_calls: s.tool_calls,
        tool_results: s.tool_results,
        unanswered_calls: open.pending.len() + open.orphans.len(),
        open_turn: open.open_turn,
        usage: s.usage.into(),
        cost: dsh_session::prices::money::cost_json(&cost.cost),
        unpriced: cost.unpriced.keys().cloned().collect(),
        warnings: report.warnings.iter().map(FindingJson::from).collect(),
        per_turn: PerTurn(&s.turns),
    }
}

#[derive(Debug, Serialize)]
struct OneJson {
    seq: u64,
    #[serde(rename = "type")]
    ty: String,
    role: Option<String>,
    on_surface: bool,
    message: Box<serde_json::value::RawValue>,
}

fn write_text(
    out: &mut dyn Write,
    report: &Report,
    s: &Summary<'_>,
    cost: &str,
) -> std::io::Result<()> {
    let mut field = |name: &str, value: String| writeln!(out, "{:<14}{value}", format!("{name}:"));
    field("file", s.file.clone())?;
    field("session id", s.session_id.to_owned())?;
    if let Some(title) = s.title {
        field("title", title.to_owned())?;
    }
    if !s.models.is_empty() {
        let models: Vec<String> = s
            .models
            .iter()
            .map(|m| {
                format!(
                    "{}/{} ({})",
                    m.provider,
                    m.model,
                    count(m.assistant_messages, "assistant message")
                )
            })
            .collect();
        field("models", models.join(", "))?;
    }
    field(
        "format",
        format!(
            "v{} ({} era), {}",
            opt(s.format_version),
            s.era.unwrap_or("?"),
            match s.encoding {
                "sqlite" => "SQLite store".to_owned(),
                other => format!("compression {other}"),
            }
        ),
    )?;
    field("status", s.status.to_owned())?;
    if let Some(lines) = &s.dsh {
        field("dsh", lines.clone())?;
    }
    field("created at", opt(s.created_at.as_deref()))?;
    field("cwd", opt(s.cwd))?;
    field("parent", opt(s.lineage.parent_session.as_deref()))?;
    field("seed length", opt(s.lineage.seed_length))?;
    if let Some(d) = &s.derived_from {
        let what = match d.trimmed_results {
            Some(n) => format!(
                "session {}, by {} ({} cut)",
                d.session,
                d.by,
                count(n, "tool result")
            ),
            None => format!("session {}, by {} (see its last message)", d.session, d.by),
        };
        field("derived from", what)?;
    }
    field("origin", opt(s.lineage.origin.as_deref()))?;
    field("delegation", opt(s.lineage.delegation_depth))?;
    field(
        "agent preset",
        match (s.agent_preset, s.header_agent_preset) {
            (Some(now), Some(header)) if now != header => format!(
                "{} (header: {})",
                agent_preset_shown(now),
                agent_preset_shown(header)
            ),
            (now, _) => opt(now.map(agent_preset_shown)),
        },
    )?;
    for (name, value) in [
        ("permission", s.permission_preset),
        ("sandbox", s.sandbox_mode),
        ("approval", s.approval_policy),
    ] {
        if let Some(value) = value {
            field(name, value.to_owned())?;
        }
    }
    if let Some(n) = s.child_sessions {
        field(
            "subagents",
            format!("{} named", count(n as u64, "child session")),
        )?;
    }
    field(
        "events",
        format!(
            "{} (first {}, last {})",
            s.events,
            opt(s.first_event_at.as_deref()),
            opt(s.last_event_at.as_deref())
        ),
    )?;
    let reasons: Vec<String> = s
        .turns_by_reason
        .iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
    let reasons = if reasons.is_empty() {
        String::new()
    } else {
        format!(" ({})", reasons.join(", "))
    };
    field("turns", format!("{}{reasons}", s.turns))?;
    field("steps", s.steps.to_string())?;
    field(
        "surface",
        format!(
            "{}, {}",
            count(s.surface_len as u64, "entry"),
            count(s.replacements, "replacement")
        ),
    )?;
    field(
        "tool calls",
        format!(
            "{}, {}, {} unanswered",
            count(s.tool_calls, "call"),
            count(s.tool_results, "result"),
            s.unanswered_calls
        ),
    )?;
    let u = &s.usage;
    field(
        "tokens",
        format!(
            "input {}, output {}, cache read {}, cache write {}, reasoning {}",
            u.input_tokens,
            u.output_tokens,
            u.cache_read_tokens,
            u.cache_write_tokens,
            u.reasoning_tokens
                .map_or_else(|| "-".to_owned(), |n| n.to_string())
        ),
    )?;
    field("cost", cost.to_owned())?;
    if let Some(t) = &report.torn {
        let loss = match t.counted() {
            Some((lines, events)) => lines_and_events(lines, events),
            None => count(t.bytes, "byte"),
        };
        let mut text = format!(
            "{} from line {}: {loss} after byte offset {}",
            t.rule, t.line, t.offset
        );
        if t.counted().is_none() {
            text = format!("{text}; {}", t.uncounted());
        }
        field("torn tail", text)?;
    }
    for (n, other, relation) in dsh_session::load::layout::siblings(&report.path) {
        let what = relation.describe();
        field("generation", format!("v{n} {} ({what})", other.display()))?;
    }
    for w in &s.warnings {
        field("warning", format!("{}{}: {}", w.rule, place(w), w.message))?;
    }
    for p in &report.open_turn.pending {
        field(
            "unanswered",
            format!(
                "call {} announced at seq {} (turn still open: DSH will close it on load)",
                p.call_id, p.announced_seq
            ),
        )?;
    }
    for p in &report.open_turn.orphans {
        field(
            "unanswered",
            format!(
                "call {} announced at seq {} has no result",
                p.call_id, p.announced_seq
            ),
        )?;
    }
    if !s.per_turn.0.is_empty() {
        writeln!(out)?;
        // From v2 on, assistant streams are embedded: show how many records each turn holds.
        let streams = matches!(report.era, Some(Era::V2 | Era::V3 | Era::V4));
        let mut header = vec![
            "turn",
            "seqs",
            "steps",
            "tool calls",
            "input",
            "output",
            "reason",
            "duration",
        ];
        if streams {
            header.push("stream records");
        }
        write_aligned(out, &header, s.per_turn.0, |turn| {
            let turn = TurnJson::from(turn);
            let mut cells = vec![
                turn.turn.to_string(),
                format!("{}..{}", turn.start_seq, opt(turn.end_seq)),
                turn.steps.to_string(),
                turn.tool_calls.to_string(),
                turn.usage.input_tokens.to_string(),
                turn.usage.output_tokens.to_string(),
                turn.reason.to_owned(),
                turn.duration_ms
                    .map_or("-".into(), |d| format!("{:.1}s", d as f64 / 1000.0)),
            ];
            if streams {
                cells.push(turn.stream_records.to_string());
            }
            cells
        })?;
    }
    Ok(())
}
