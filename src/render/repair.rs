//! `repair`'s output: what a [`Repair`] cut, appended and healed, and the provider
//! findings that stay, as text (closers and heals verbatim) or as one JSON object
//! (`repair --format json`, README "repair").

use std::io::Write;
use std::path::Path;

use dsh_session::heal::Unhealed;
use dsh_session::provider::providers_of;
use dsh_session::repair::Repair;
use dsh_session::repair::apply::Done;
use dsh_session::repair::stays::Staying;
use dsh_session::wording::{count, lines_and_events};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::cli::{ProviderName, RepairFormat};
use crate::render::{TornTailJson, log_name, write_list};

/// Writes what `repair` did (`done`) with the plan `planned` of the log named `shown`, in
/// `format`; `provider` is `--provider`'s.
///
/// # Errors
/// Writing to `out` failed.
pub fn write(
    out: &mut dyn Write,
    planned: &Repair,
    done: Done,
    provider: Option<ProviderName>,
    shown: &Path,
    format: RepairFormat,
) -> anyhow::Result<()> {
    let o = outcome(planned, done.name(), provider, shown);
    match format {
        RepairFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &o)?;
            writeln!(out)?;
        }
        RepairFormat::Text => write_text(out, &o, done != Done::Repaired)?,
    }
    Ok(())
}

#[derive(Debug, Serialize)]
struct Cut {
    #[serde(flatten)]
    tail: TornTailJson,
    /// What is known of the loss when it cannot be counted ([`dsh_session::scan::TornTail::uncounted`]).
    #[serde(skip)]
    uncounted: Option<String>,
}

#[derive(Debug, Serialize)]
struct Outcome<'a> {
    schema_version: u32,
    file: String,
    session: Option<&'a str>,
    /// `repaired`, `would repair` (dry run) or `nothing to repair`.
    status: &'static str,
    cut: Option<Cut>,
    closers: Vec<&'a RawValue>,
    backup: Option<String>,
    /// True when an interrupted zstd repair was completed from its journal.
    resumed: bool,
    /// Provider findings the repaired history still has (PROVIDERS.md §3), each with why
    /// DSH's closers leave it: a history a provider refuses even after the repair.
    stays: Vec<StaysJson>,
    /// With `--provider`: the provider healed for.
    provider: Option<&'static str>,
    /// The heal records appended after the closers, in order.
    heals: Vec<HealJson<'a>>,
    /// Findings of that provider no heal fixes, and why.
    unhealed: Vec<UnhealedJson>,
}

#[derive(Debug, Serialize)]
struct HealJson<'a> {
    seq: u64,
    shadowed: &'a [u64],
    rules: Vec<&'static str>,
    change: &'a str,
    record: &'a RawValue,
}

#[derive(Debug, Serialize)]
struct UnhealedJson {
    rule: &'static str,
    seq: Option<u64>,
    line: Option<u64>,
    row: Option<u64>,
    message: String,
    why: String,
}

impl From<&Unhealed> for UnhealedJson {
    fn from(u: &Unhealed) -> Self {
        let f = &u.finding;
        UnhealedJson {
            rule: f.rule.id(),
            seq: f.seq,
            line: f.line,
            row: f.row,
            message: f.message.clone(),
            why: u.why.clone(),
        }
    }
}

#[derive(Debug, Serialize)]
struct StaysJson {
    rule: &'static str,
    seq: Option<u64>,
    line: Option<u64>,
    row: Option<u64>,
    message_index: Option<u64>,
    anthropic_index: Option<u64>,
    call_id: Option<String>,
    refused_by: Vec<&'static str>,
    message: String,
    why: String,
}

impl From<&Staying> for StaysJson {
    fn from(s: &Staying) -> Self {
        let f = &s.finding;
        let d = f.provider.as_deref();
        StaysJson {
            rule: f.rule.id(),
            seq: f.seq,
            line: f.line,
            row: f.row,
            message_index: d.map(|d| d.message_index),
            anthropic_index: d.map(|d| d.anthropic_index),
            call_id: d.and_then(|d| d.call_id.clone()),
            refused_by: providers_of(f.rule).iter().map(|p| p.name()).collect(),
            message: f.message.clone(),
            why: s.why.clone(),
        }
    }
}

fn outcome<'a>(
    planned: &'a Repair,
    status: &'static str,
    provider: Option<ProviderName>,
    shown: &Path,
) -> Outcome<'a> {
    let plan = &planned.plan;
    Outcome {
        schema_version: 1,
        file: shown.display().to_string(),
        session: plan.session.as_deref(),
        status,
        cut: planned.cut.as_ref().map(|t| Cut {
            tail: TornTailJson::from(t),
            uncounted: t.counted().is_none().then(|| t.uncounted()),
        }),
        closers: plan
            .closers
            .iter()
            .map(|c| serde_json::from_str::<&RawValue>(c).expect("closers are JSON"))
            .collect(),
        backup: plan.backup.as_ref().map(|b| b.display().to_string()),
        resumed: planned.resumed(),
        stays: planned.stays.iter().map(StaysJson::from).collect(),
        provider: provider.map(|p| p.profile().name()),
        heals: planned
            .heals
            .iter()
            .map(|h| HealJson {
                seq: h.seq,
                shadowed: &h.shadowed,
                rules: h.rules.iter().map(|r| r.id()).collect(),
                change: &h.change,
                record: serde_json::from_str::<&RawValue>(&h.record).expect("heals are JSON"),
            })
            .collect(),
        unhealed: planned.unhealed.iter().map(UnhealedJson::from).collect(),
    }
}

fn write_text(out: &mut dyn Write, o: &Outcome<'_>, dry_run: bool) -> std::io::Result<()> {
    let name = log_name(&o.file, o.session);
    if o.status == "nothing to repair" {
        match o.provider {
            Some(p) if o.unhealed.is_empty() => writeln!(
                out,
                "{name}: nothing to repair; the history passes {p}'s provider rules"
            )?,
            _ => writeln!(out, "{name}: nothing to repair")?,
        }
        write_unhealed(out, o, &name)?;
        return write_stays(out, o, &name);
    }
    if o.resumed {
        let verb = if dry_run {
            "would complete"
        } else {
            "completed"
        };
        writeln!(
            out,
            "{name}: {verb} an interrupted repair from its journal {}.repair",
            o.file
        )?;
    }
    let (cut_verb, append_verb) = if dry_run {
        ("would cut", "would append")
    } else {
        ("cut", "appended")
    };
    if let Some(c) = &o.cut {
        let what = if o.session.is_some() {
            format!("rows from seq {}", c.tail.offset)
        } else {
            format!(
                "{} at offset {}",
                count(c.tail.bytes, "byte"),
                c.tail.offset
            )
        };
        let t = &c.tail;
        match (&c.uncounted, t.lines, t.events) {
            (None, Some(lines), Some(events)) => writeln!(
                out,
                "{name}: {cut_verb} {what} ({}: from line {}, {} lost)",
                t.rule,
                t.line,
                lines_and_events(lines, events)
            )?,
            (uncounted, ..) => writeln!(
                out,
                "{name}: {cut_verb} {what} ({}: from line {}; {})",
                t.rule,
                t.line,
                uncounted
                    .as_deref()
                    .unwrap_or("what it held cannot be counted")
            )?,
        }
        if t.recovered_lines > 0 {
            writeln!(
                out,
                "{name}: {} of the torn frame {} written again",
                count(t.recovered_lines, "complete line"),
                if t.recovered_lines == 1 { "is" } else { "are" }
            )?;
        }
    }
    write_list(
        out,
        &o.closers,
        |n| format!("{name}: {append_verb} {}:", count(n, "closer record")),
        |out, c| writeln!(out, "{}", c.get()),
    )?;
    if !o.heals.is_empty() {
        writeln!(
            out,
            "{name}: {append_verb} {} for {}:",
            count(o.heals.len() as u64, "heal record"),
            o.provider.unwrap_or_default()
        )?;
        for h in &o.heals {
            writeln!(out, "  seq {}: {}", h.seq, h.change)?;
        }
        for h in &o.heals {
            writeln!(out, "{}", h.record.get())?;
        }
    }
    if let Some(b) = &o.backup {
        writeln!(out, "{name}: backup of the original: {b}")?;
    }
    write_unhealed(out, o, &name)?;
    write_stays(out, o, &name)
}

/// The findings of `--provider` that no heal fixes, each with why.
fn write_unhealed(out: &mut dyn Write, o: &Outcome<'_>, name: &str) -> std::io::Result<()> {
    if o.unhealed.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "{name}: {} no heal fixes; nothing is written for {}:",
        count(o.unhealed.len() as u64, "finding"),
        if o.unhealed.len() == 1 { "it" } else { "them" }
    )?;
    for u in &o.unhealed {
        let at = u
            .line
            .map(|l| format!(" at line {l}"))
            .or(u.row.map(|r| format!(" at row {r}")))
            .unwrap_or_default();
        writeln!(
            out,
            "  {}{at} (seq {}): {}\n    why: {}",
            u.rule,
            u.seq.unwrap_or_default(),
            u.message,
            u.why
        )?;
    }
    Ok(())
}

/// The provider findings a repair leaves, each with why DSH's rules do not close it.
fn write_stays(out: &mut dyn Write, o: &Outcome<'_>, name: &str) -> std::io::Result<()> {
    if o.stays.is_empty() {
        return Ok(());
    }
    match o.provider {
        None => writeln!(
            out,
            "{name}: the history stays unsendable: {} that DSH's repair does not close:",
            count(o.stays.len() as u64, "provider finding")
        )?,
        Some(p) => writeln!(
            out,
            "{name}: {} of other providers {} (healed for {p} only):",
            count(o.stays.len() as u64, "finding"),
            if o.stays.len() == 1 { "stays" } else { "stay" }
        )?,
    }
    // Findings that stay for the same reason are listed together, the reason said once
    // after them, in the order each reason first comes.
    let mut whys: Vec<&str> = Vec::new();
    for s in &o.stays {
        if !whys.contains(&s.why.as_str()) {
            whys.push(&s.why);
        }
    }
    for why in whys {
        let group: Vec<&StaysJson> = o.stays.iter().filter(|s| s.why == why).collect();
        for s in &group {
            let at = dsh_session::wording::place(s.line, s.row, None);
            let index = s
                .message_index
                .map(|i| format!(", message index {i}"))
                .unwrap_or_default();
            writeln!(
                out,
                "  {}{at} (seq {}{index}): {} [refused by {}]",
                s.rule,
                s.seq.unwrap_or_default(),
                s.message,
                s.refused_by.join(", "),
            )?;
        }
        let they = if group.len() == 1 {
            "it stays"
        } else {
            "they stay"
        };
        writeln!(out, "    why {they}: {why}")?;
    }
    if o.provider.is_none() {
        writeln!(
            out,
            "  `dsh-session repair --provider NAME` heals them append-only (README: \"Healing for a provider\")"
        )?;
    }
    Ok(())
}
