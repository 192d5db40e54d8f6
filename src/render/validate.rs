//! `validate`'s output: one verdict per log (text, `json`, `jsonl`, GitHub annotations),
//! then the tally in one line (README "validate").

use std::io::Write;

use dsh_session::provider::Provider;
use dsh_session::scan::{Report, TornTail};
use dsh_session::validate::{Checked, Gate, Tally};
use dsh_session::wording::{count, lines_and_events};
use serde::Serialize;

use crate::cli::ListFormat;
use crate::render::{FindingJson, TornTailJson, log_name, paint, place_for};

/// Version of the JSON object layout below; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// Writes the verdicts of the `checked` logs in `format` (with `quiet`, a valid log without
/// warnings is left out, and so is the tally); `tally` and `gate` are the gate's.
///
/// # Errors
/// Writing to `out` failed.
pub fn write(
    out: &mut dyn Write,
    checked: &[(String, Checked)],
    tally: &Tally,
    gate: Gate,
    format: ListFormat,
    quiet: bool,
    color: bool,
) -> anyhow::Result<()> {
    let verdicts = verdicts(checked, gate);
    let shown: Vec<&Verdict> = verdicts
        .iter()
        .filter(|v| !(quiet && v.status == "valid" && v.warnings.is_empty()))
        .collect();
    match format {
        ListFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &shown)?;
            writeln!(out)?;
        }
        ListFormat::Jsonl => {
            for v in &shown {
                serde_json::to_writer(&mut *out, v)?;
                writeln!(out)?;
            }
        }
        ListFormat::Github => {
            for v in &shown {
                write_github(out, v)?;
            }
            // A step that passes says what it checked, in the step's log and summary.
            if !quiet {
                writeln!(
                    out,
                    "::notice title=dsh-session validate::{}",
                    gh_escape(&summary(tally, gate), false)
                )?;
            }
        }
        ListFormat::Text => {
            for v in shown.iter().filter(|v| v.status != "error") {
                write_text(out, v, color)?;
            }
            if !quiet {
                writeln!(out, "{}", summary(tally, gate))?;
            }
        }
    }
    Ok(())
}

/// The verdicts of the `checked` logs under `gate`, as `--format json` lists them: one per
/// session read, one of status `error` per input that could not be read.
pub fn verdicts(checked: &[(String, Checked)], gate: Gate) -> Vec<Verdict> {
    (checked.iter())
        .flat_map(|(file, c)| match c {
            Checked::Reports(reports) => (reports.iter())
                .map(|v| verdict(file.clone(), &v.report, v.surface_len, gate))
                .collect(),
            Checked::NoSessions => Vec::new(),
            Checked::Unreadable(why) => vec![io_error(file.clone(), why.clone())],
        })
        .collect()
}

/// `N valid, M torn-tail, K corrupt, R refused`, with the gates and the unreadable.
fn summary(t: &Tally, gate: Gate) -> String {
    let unreadable = if t.unreadable > 0 {
        format!(", {} unreadable", t.unreadable)
    } else {
        String::new()
    };
    let foreign = match t.foreign {
        0 => String::new(),
        n => format!(", {n} foreign"),
    };
    let mut gates = String::new();
    if let Some(p) = gate.provider {
        gates.push_str(&format!(", {} refused by {}", t.provider_refused, p.name()));
    }
    if gate.strict {
        gates.push_str(&format!(", {} failed --strict", t.strict_failed));
    }
    format!(
        "{} valid, {} torn-tail, {} corrupt, {} refused{foreign}{gates}{unreadable}",
        t.valid, t.torn_tail, t.corrupt, t.refused,
    )
}

/// One line of `validate --format json|jsonl`.
#[derive(Debug, Serialize)]
pub struct Verdict {
    schema_version: u32,
    file: String,
    /// The session id, for a SQLite store.
    session: Option<String>,
    /// `valid`, `torn-tail`, `corrupt`, `refused`, or `error` (the file could not be read).
    pub status: &'static str,
    rule: Option<&'static str>,
    seq: Option<u64>,
    line: Option<u64>,
    /// SQLite only: the `seq` column of the physical row concerned.
    row: Option<u64>,
    /// The finding's or torn tail's message, or why the file could not be read.
    pub message: Option<String>,
    /// Events replayed (the torn tail excluded); `null` for a path that could not be read
    /// (not known, not zero).
    events: Option<u64>,
    /// `null` for a path that could not be read.
    surface_len: Option<usize>,
    era: Option<&'static str>,
    encoding: Option<&'static str>,
    torn_tail: Option<TornJson>,
    warnings: Vec<FindingJson>,
    /// What DSH itself does on load that is no finding (an open final turn it closes).
    notes: Vec<String>,
    /// With `--provider`: that provider's answer on the derived history.
    #[serde(skip_serializing_if = "Option::is_none")]
    provider: Option<ProviderJson>,
    /// With `--strict`: true when a warning fails the gate.
    #[serde(skip_serializing_if = "Option::is_none")]
    strict_failed: Option<bool>,
}

/// `validate --provider NAME`: whether that provider accepts the derived history.
#[derive(Debug, Serialize)]
struct ProviderJson {
    name: &'static str,
    #[serde(skip)]
    profile: Provider,
    /// False when a finding of one of its P-rules stands (the log fails the gate).
    accepted: bool,
    /// The P-findings that provider refuses, as `warnings` lists them.
    findings: Vec<FindingJson>,
}

#[derive(Debug, Serialize)]
struct TornJson {
    #[serde(flatten)]
    tail: TornTailJson,
    message: String,
    /// What is known of the loss when it cannot be counted ([`dsh_session::scan::TornTail::uncounted`]).
    #[serde(skip)]
    uncounted: Option<String>,
}

impl From<&TornTail> for TornJson {
    fn from(t: &TornTail) -> Self {
        TornJson {
            tail: TornTailJson::from(t),
            message: t.message.clone(),
            uncounted: t.counted().is_none().then(|| t.uncounted()),
        }
    }
}

fn verdict(file: String, report: &Report, surface_len: usize, gate: Gate) -> Verdict {
    let finding = report.finding.as_ref();
    let warnings: Vec<FindingJson> = report.warnings.iter().map(FindingJson::from).collect();
    let provider = gate.provider.filter(|_| report.is_ok()).map(|p| {
        let findings: Vec<FindingJson> = gate
            .refused(report)
            .into_iter()
            .map(FindingJson::from)
            .collect();
        ProviderJson {
            name: p.name(),
            profile: p,
            accepted: findings.is_empty(),
            findings,
        }
    });
    let strict_failed = gate.strict_failed(report);
    let torn = report.torn.as_ref();
    let sqlite = report.session.is_some();
    Verdict {
        schema_version: SCHEMA_VERSION,
        file,
        session: report.session.clone(),
        status: report.status.name(),
        rule: finding.map(|f| f.rule.id()).or(torn.map(|t| t.rule.id())),
        seq: finding.and_then(|f| f.seq),
        line: finding
            .and_then(|f| f.line)
            .or(torn.filter(|_| !sqlite).map(|t| t.line)),
        row: finding
            .and_then(|f| f.row)
            .or(torn.filter(|_| sqlite).map(|t| t.line)),
        message: finding
            .map(|f| f.message.clone())
            .or(torn.map(|t| t.message.clone())),
        events: Some(report.events),
        surface_len: Some(surface_len),
        era: report.era.map(|e| e.name()),
        encoding: Some(report.encoding.name()),
        torn_tail: torn.map(TornJson::from),
        warnings,
        notes: report
            .is_ok()
            .then(|| report.open_turn.load_note())
            .flatten()
            .into_iter()
            .chain(report.notes.iter().cloned())
            .collect(),
        provider,
        strict_failed,
    }
}

fn io_error(file: String, message: String) -> Verdict {
    Verdict {
        schema_version: SCHEMA_VERSION,
        file,
        session: None,
        status: "error",
        rule: None,
        seq: None,
        line: None,
        row: None,
        message: Some(message),
        events: None,
        surface_len: None,
        era: None,
        encoding: None,
        torn_tail: None,
        warnings: Vec::new(),
        notes: Vec::new(),
        provider: None,
        strict_failed: None,
    }
}

/// Escapes a GitHub workflow command's message (`%`, CR, LF) or property (also `:`, `,`).
fn gh_escape(text: &str, property: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

fn write_github(out: &mut dyn Write, v: &Verdict) -> std::io::Result<()> {
    let file = gh_escape(&v.file, true);
    let line = |l: Option<u64>| l.map(|l| format!(",line={l}")).unwrap_or_default();
    let level = match v.status {
        "corrupt" | "refused" | "error" => Some("error"),
        "foreign" => Some("notice"),
        "torn-tail" => Some("warning"),
        _ => None,
    };
    if let Some(level) = level {
        let title = v
            .rule
            .map_or_else(|| v.status.to_owned(), |r| format!("{r} {}", v.status));
        let mut message = v.message.clone().unwrap_or_default();
        if let Some(seq) = v.seq {
            message = format!("seq {seq}: {message}");
        }
        if let Some(session) = &v.session {
            message = format!("session {session}: {message}");
        }
        writeln!(
            out,
            "::{level} file={file}{},title={}::{}",
            line(v.line),
            gh_escape(&title, true),
            gh_escape(&message, false)
        )?;
    }
    for w in &v.warnings {
        let seq = w.seq.map(|s| format!("seq {s}: ")).unwrap_or_default();
        let refused_by = v
            .provider
            .as_ref()
            .filter(|p| w.refused_by.as_ref().is_some_and(|r| r.contains(&p.name)))
            .map(|p| p.name);
        let (level, title) = match refused_by {
            Some(name) => ("error", format!("{} refused by {name}", w.rule)),
            None if v.strict_failed == Some(true) => ("error", format!("{} (--strict)", w.rule)),
            None => ("warning", w.rule.to_owned()),
        };
        writeln!(
            out,
            "::{level} file={file}{},title={}::{}",
            line(w.line.or(w.row)),
            gh_escape(&title, true),
            gh_escape(&format!("{seq}{}", w.message), false)
        )?;
    }
    for note in &v.notes {
        writeln!(
            out,
            "::notice file={file},title=open turn::{}",
            gh_escape(note, false)
        )?;
    }
    Ok(())
}

fn write_text(out: &mut dyn Write, v: &Verdict, color: bool) -> std::io::Result<()> {
    let code = match v.status {
        "valid" => "32",
        "torn-tail" => "33",
        _ => "31",
    };
    let status = paint(color, code, v.status);
    let era = v.era.map(|e| format!(", {e}")).unwrap_or_default();
    let name = log_name(&v.file, v.session.as_deref());
    let refused_by = v.provider.as_ref().filter(|p| !p.accepted);
    match (v.status, v.rule) {
        ("valid", _) | (_, None) => {
            let gate = match (refused_by, v.strict_failed) {
                (Some(p), _) => {
                    format!(" for DSH, {} by {}", paint(color, "31", "refused"), p.name)
                }
                (None, Some(true)) => format!(", {} --strict", paint(color, "31", "failed")),
                _ => String::new(),
            };
            writeln!(
                out,
                "{name}: {status}{gate} ({} events, surface {}{era})",
                v.events.unwrap_or_default(),
                v.surface_len.unwrap_or_default()
            )?
        }
        (_, Some(rule)) => {
            let place = dsh_session::wording::place(v.line, v.row, v.seq);
            let message = v.message.as_deref().unwrap_or_default();
            writeln!(out, "{name}: {status} {rule}{place}: {message}")?;
            if let Some(TornJson {
                tail: t, uncounted, ..
            }) = &v.torn_tail
            {
                let loss = match (uncounted, t.lines, t.events) {
                    (None, Some(lines), Some(events)) => lines_and_events(lines, events),
                    (uncounted, ..) => uncounted
                        .clone()
                        .unwrap_or_else(|| "what it held cannot be counted".into()),
                };
                writeln!(
                    out,
                    "  a repair cuts {} at offset {}: {loss}; {} before it {} kept",
                    count(t.bytes, "byte"),
                    t.offset,
                    count(v.events.unwrap_or_default(), "event"),
                    if v.events == Some(1) { "is" } else { "are" }
                )?;
            }
        }
    }
    let profile = v.provider.as_ref().map(|p| p.profile);
    for w in &v.warnings {
        // Only a rule the profile enforces has an error text; its placeholder takes the
        // index that profile counts.
        let refusal = refused_by.and_then(|p| {
            let rule = dsh_session::rules::Rule::from_id(w.rule)?;
            let index = w
                .message_index
                .zip(w.anthropic_index)
                .map(|(openai, anthropic)| p.profile.counted_index(openai, anthropic));
            p.profile.answer(rule, index).map(|text| (p.name, text))
        });
        let level = match refusal {
            Some(_) => paint(color, "31", "error"),
            None if v.strict_failed == Some(true) => paint(color, "31", "error"),
            None => paint(color, "33", "warning"),
        };
        let answer = refusal
            .map(|(name, text)| format!("; {name} answers: {text}"))
            .unwrap_or_default();
        writeln!(
            out,
            "  {level} {}{}: {}{answer}",
            w.rule,
            place_for(w, profile),
            w.message
        )?;
    }
    for note in &v.notes {
        writeln!(out, "  note: {note}")?;
    }
    Ok(())
}
