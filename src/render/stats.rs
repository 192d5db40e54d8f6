//! How `stats` shows its [`Totals`]: a text table fitted to the terminal, one JSON
//! document, JSON lines or CSV, and the notes on what was not counted in full.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::Path;

use anyhow::Result;
use dsh_session::period::Period;
use dsh_session::prices::PriceTable;
use dsh_session::prices::money::{self as cost, thousands};
use dsh_session::stats::{Note, Totals};
use dsh_session::view::usage::{Counts, GroupBy, RowKey};
use dsh_session::wording::{count, utc};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::cli::StatsFormat;
use crate::render::{Give, log_name};

/// Version of the JSON layout of `stats` (the object, and each row of `jsonl`).
pub const SCHEMA_VERSION: u32 = 2;

/// What the command was asked, as the output repeats it.
pub struct Asked<'a> {
    /// `--by`.
    pub by: GroupBy,
    /// `--format`.
    pub format: StatsFormat,
    /// `--tz`, as given.
    pub tz: &'a str,
    /// `--since` and `--until`.
    pub period: Period,
    /// `--prices FILE`.
    pub prices_file: Option<&'a Path>,
    /// The price table used.
    pub table: &'a PriceTable,
}

/// Writes `totals` as `asked`; the notes go after the text table, or to standard error
/// beside JSON lines and CSV (inside the JSON document they are fields).
///
/// # Errors
/// A write error.
pub fn write(out: &mut dyn Write, totals: &Totals, asked: &Asked<'_>) -> Result<()> {
    // The models without a price, with why (their tokens are in no cost).
    let unpriced = totals.total.unpriced.clone();
    let currencies: Vec<String> = totals.total.cost.keys().cloned().collect();
    let total = object(count_fields(&totals.total));
    let rows = Rows { rows: &totals.rows };

    let mut notes: Vec<String> = Vec::new();
    // A log only the frozen edges of DSH 0.1.5 and later refuse is intact: read in full.
    let (edge_refused, damaged): (Vec<&Note>, Vec<&Note>) =
        totals.not_valid.iter().partition(|n| {
            n.rule
                .and_then(dsh_session::rules::Rule::from_id)
                .is_some_and(|r| r.is_edge())
        });
    if !damaged.is_empty() {
        notes.push(format!(
            "{} not valid, counted up to {} defect:",
            count(damaged.len() as u64, "log"),
            if damaged.len() == 1 { "its" } else { "their" }
        ));
        notes.extend(damaged.iter().map(|n| format!("  {}", n.text())));
    }
    if !edge_refused.is_empty() {
        notes.push(format!(
            "{} refused by DSH 0.1.5 and later, counted in full as DSH 0.1.1 loads {}:",
            count(edge_refused.len() as u64, "log"),
            if edge_refused.len() == 1 {
                "it"
            } else {
                "them"
            }
        ));
        notes.extend(edge_refused.iter().map(|n| format!("  {}", n.text())));
    }
    if !totals.foreign.is_empty() {
        notes.push(format!(
            "{} not DSH's, not counted:",
            count(totals.foreign.len() as u64, "log")
        ));
        notes.extend(totals.foreign.iter().map(|n| format!("  {}", n.text())));
    }
    if !totals.torn.is_empty() {
        notes.push(format!(
            "{} with a torn tail, {} committed part counted:",
            count(totals.torn.len() as u64, "log"),
            if totals.torn.len() == 1 {
                "its"
            } else {
                "their"
            }
        ));
        notes.extend(totals.torn.iter().map(|n| format!("  {}", n.text())));
    }
    if !totals.inherited.is_empty() {
        notes.push(format!(
            "{}: what {} inherited from its parent is counted in the parent, not again:",
            match totals.inherited.len() {
                1 => "1 log is a fork".to_owned(),
                n => format!("{n} logs are forks"),
            },
            if totals.inherited.len() == 1 {
                "it"
            } else {
                "each"
            },
        ));
        for (log, parent, events) in &totals.inherited {
            notes.push(format!(
                "  {log}: the first {} of {parent}",
                count(*events, "event")
            ));
        }
    }
    if !unpriced.is_empty() {
        notes.push(format!(
            "{} no price, {} tokens are in no cost (a cost marked * is the known part):",
            match unpriced.len() {
                1 => "1 model has".to_owned(),
                n => format!("{n} models have"),
            },
            if unpriced.len() == 1 { "its" } else { "their" }
        ));
        for (model, why) in &unpriced {
            let tokens = totals
                .total
                .usage
                .iter()
                .filter(|(k, _)| &k.name() == model)
                .fold(
                    dsh_session::view::stats::Usage::default(),
                    |mut a, (_, u)| {
                        dsh_session::view::usage::add_usage(&mut a, u);
                        a
                    },
                );
            let what = if model == "-/-" {
                // June 2026 logs name no model; a price cannot apply to what names none.
                "assistant messages that name no model".to_owned()
            } else if asked.prices_file.is_some() {
                format!("{why} in the built-in table or --prices")
            } else {
                format!("{why} in the built-in table (add one with --prices)")
            };
            notes.push(format!(
                "  {model}: {what}; {} input ({} uncached), {} output",
                thousands(tokens.input + tokens.cache_read + tokens.cache_write),
                thousands(tokens.input),
                thousands(tokens.output)
            ));
        }
    }
    if !currencies.is_empty() && asked.format == StatsFormat::Text {
        notes.push(cost::sources_line(asked.table));
    }

    match asked.format {
        StatsFormat::Json => {
            let doc = Document {
                schema_version: SCHEMA_VERSION,
                by: by_name(asked.by),
                time_zone: asked.tz,
                since: asked.period.since.map(utc),
                until: asked.period.until.map(utc),
                prices: json!({
                    "file": asked.prices_file.map(|p| p.display().to_string()),
                    "sources": cost::sources_json(asked.table),
                }),
                sessions_read: totals.sessions_read,
                rows: &rows,
                total,
                not_valid: totals.not_valid.iter().map(Note::json).collect(),
                foreign: totals.foreign.iter().map(Note::json).collect(),
                torn_tails: totals.torn.iter().map(Note::json).collect(),
                unpriced: unpriced
                    .iter()
                    .map(|(m, why)| json!({"model": m, "reason": why}))
                    .collect(),
                inherited: totals
                    .inherited
                    .iter()
                    .map(|(f, p, n)| json!({"file": f, "parent": p, "events": n}))
                    .collect(),
                unreadable: totals
                    .unreadable
                    .iter()
                    .map(|(f, m)| json!({"file": f, "message": m}))
                    .collect(),
            };
            serde_json::to_writer_pretty(&mut *out, &doc)?;
            writeln!(out)?;
        }
        StatsFormat::Jsonl => {
            for row in rows.iter() {
                let mut line = Map::new();
                line.insert("schema_version".into(), json!(SCHEMA_VERSION));
                line.extend(row);
                serde_json::to_writer(&mut *out, &line)?;
                writeln!(out)?;
            }
            for n in &notes {
                stderr!("dsh-session: {n}");
            }
        }
        StatsFormat::Csv => {
            let mut names: Vec<String> = key_fields(&key_example(asked.by))
                .into_iter()
                .map(|(k, _)| k.to_owned())
                .collect();
            names.extend(
                csv_fields(count_fields(&Counts::default()), &currencies)
                    .into_iter()
                    .map(|(k, _)| k),
            );
            writeln!(out, "{}", names.join(","))?;
            for (key, counts) in rows.rows {
                let mut cells: Vec<String> =
                    key_fields(key).iter().map(|(_, v)| csv_field(v)).collect();
                cells.extend(
                    csv_fields(count_fields(counts), &currencies)
                        .iter()
                        .map(|(_, v)| csv_field(v)),
                );
                writeln!(out, "{}", cells.join(","))?;
            }
            for n in &notes {
                stderr!("dsh-session: {n}");
            }
        }
        StatsFormat::Text => {
            write_text(out, asked.by, totals, &currencies)?;
            if !notes.is_empty() {
                writeln!(out)?;
                for n in &notes {
                    writeln!(out, "{n}")?;
                }
            }
        }
    }
    Ok(())
}

/// The key columns of a grouping, with their JSON/CSV names.
fn key_fields(key: &RowKey) -> Vec<(&'static str, Value)> {
    match key {
        RowKey::Session { file, session } => {
            vec![("file", json!(file)), ("session", json!(session))]
        }
        RowKey::Day(day) => vec![("day", json!(day))],
        RowKey::Model(m) => vec![("provider", json!(m.provider)), ("model", json!(m.model))],
        RowKey::Project(cwd) => vec![("project", json!(cwd))],
        RowKey::Band(band) => vec![("band", json!(band))],
        RowKey::Hour(hour) => vec![("hour", json!(hour))],
    }
}

/// The count columns, with their JSON names (the token names are `show`'s `usage`):
/// `input_tokens` is DSH's `inputTokens` (the uncached input), `input_total_tokens` adds the
/// cache reads and writes; `reasoning_tokens` is `null` when not known; `cost` holds one
/// object per currency, `unpriced` the models whose tokens have no price (not in `cost`).
fn count_fields(c: &Counts) -> Vec<(&'static str, Value)> {
    let t = c.tokens();
    vec![
        ("sessions", json!(c.sessions)),
        ("turns", json!(c.turns)),
        ("steps", json!(c.steps)),
        ("tool_calls", json!(c.tool_calls)),
        ("tool_errors", json!(c.tool_errors)),
        ("turns_interrupted", json!(c.interrupted)),
        ("turns_failed", json!(c.failed)),
        (
            "input_total_tokens",
            json!(t.input + t.cache_read + t.cache_write),
        ),
        ("input_tokens", json!(t.input)),
        ("output_tokens", json!(t.output)),
        ("cache_read_tokens", json!(t.cache_read)),
        ("cache_write_tokens", json!(t.cache_write)),
        ("reasoning_tokens", json!(t.reasoning_tokens())),
        ("turn_wall_ms", json!(c.wall_ms)),
        ("cost", cost::cost_json(&c.cost)),
        ("unpriced", json!(c.unpriced.keys().collect::<Vec<_>>())),
    ]
}

/// The CSV cells of a row: the JSON fields, with `cost` spread over `cost_<cur>`,
/// `cost_<cur>_cache_hit`, `_cache_miss`, `_cache_write` and `_output` for each of
/// `currencies`, and `unpriced` as the models joined by spaces.
fn csv_fields(fields: Vec<(&'static str, Value)>, currencies: &[String]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (name, value) in fields {
        match name {
            "cost" => {
                for cur in currencies {
                    let c = &value[cur.as_str()];
                    let lower = cur.to_lowercase();
                    out.push((format!("cost_{lower}"), c["total"].clone()));
                    for part in ["cache_hit", "cache_miss", "cache_write", "output"] {
                        out.push((format!("cost_{lower}_{part}"), c[part].clone()));
                    }
                }
            }
            "unpriced" => {
                let names: Vec<&str> = value
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                out.push(("unpriced".to_owned(), json!(names.join(" "))));
            }
            _ => out.push((name.to_owned(), value)),
        }
    }
    out
}

fn object(fields: Vec<(&'static str, Value)>) -> Map<String, Value> {
    fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
pub fn csv_field(v: &Value) -> String {
    let text = match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// `H:MM:SS` of a duration in ms.
fn clock(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// `stats --format json`.
#[derive(Serialize)]
struct Document<'a> {
    schema_version: u32,
    by: &'static str,
    time_zone: &'a str,
    /// The bounds, as UTC times.
    since: Option<String>,
    until: Option<String>,
    /// The `--prices` file and the sources of the table.
    prices: Value,
    sessions_read: u64,
    rows: &'a Rows<'a>,
    total: Map<String, Value>,
    not_valid: Vec<Value>,
    /// Other harnesses' logs, not counted (`status` `foreign`).
    foreign: Vec<Value>,
    torn_tails: Vec<Value>,
    unpriced: Vec<Value>,
    /// Forks whose inherited history is counted in their parent (`file`, `parent`,
    /// `events`).
    inherited: Vec<Value>,
    unreadable: Vec<Value>,
}

/// The rows, made into JSON objects one at a time as they are written.
struct Rows<'a> {
    rows: &'a BTreeMap<RowKey, Counts>,
}

impl Rows<'_> {
    fn iter(&self) -> impl Iterator<Item = Map<String, Value>> + '_ {
        self.rows.iter().map(|(key, counts)| {
            let mut fields = key_fields(key);
            fields.extend(count_fields(counts));
            object(fields)
        })
    }
}

impl Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// How the text table names a row.
fn key_name(key: &RowKey) -> String {
    match key {
        // A JSONL log is named by its file (its header's id is in the JSON rows); a store's
        // session by the store and the session.
        RowKey::Session { file, session } => {
            let store = dsh_session::load::store_file::has_store_extension(Path::new(file));
            log_name(file, session.as_deref().filter(|_| store))
        }
        RowKey::Day(day) => day.clone().unwrap_or_else(|| "-".into()),
        RowKey::Model(m) => m.name(),
        RowKey::Project(cwd) => cwd.clone().unwrap_or_else(|| "-".into()),
        RowKey::Band(band) => band.clone(),
        RowKey::Hour(hour) => hour
            .as_ref()
            .map_or_else(|| "-".into(), |h| format!("{h}:00")),
    }
}

/// A key of the grouping, for the CSV header when there are no rows.
fn key_example(by: GroupBy) -> RowKey {
    match by {
        GroupBy::Day => RowKey::Day(None),
        GroupBy::Session => RowKey::Session {
            file: String::new(),
            session: None,
        },
        GroupBy::Model => RowKey::Model(Default::default()),
        GroupBy::Project => RowKey::Project(None),
        GroupBy::Band => RowKey::Band(String::new()),
        GroupBy::Hour => RowKey::Hour(None),
    }
}

/// The grouping's name, as `--by` spells it.
fn by_name(by: GroupBy) -> &'static str {
    match by {
        GroupBy::Day => "day",
        GroupBy::Session => "session",
        GroupBy::Model => "model",
        GroupBy::Project => "project",
        GroupBy::Band => "band",
        GroupBy::Hour => "hour",
    }
}

/// The table: one line per row and a total line, numbers aligned right. On a terminal it is
/// fitted to its width ([`crate::render::write_fitted`]: the headers take two lines, row
/// names and numbers stay whole, the least used columns are left out with a note); in a
/// pipe it keeps its full width and is written a line at a time after a first pass for the
/// widths, so no table of every row is built.
fn write_text(
    out: &mut dyn Write,
    by: GroupBy,
    totals: &Totals,
    currencies: &[String],
) -> std::io::Result<()> {
    let mut header: Vec<String> = [
        by_name(by),
        "sessions",
        "turns",
        "steps",
        "tool calls",
        "tool errors",
        "interrupted",
        "failed",
        "input",
        "uncached",
        "output",
        "cache read",
        "cache write",
        "reasoning",
        "turn time",
    ]
    .map(str::to_owned)
    .to_vec();
    let mut gives = vec![
        Give::Never,   // the row name
        Give::Never,   // sessions
        Give::Never,   // turns
        Give::Drop(2), // steps
        Give::Never,   // tool calls
        Give::Drop(1), // tool errors
        Give::Drop(1), // interrupted
        Give::Drop(1), // failed
        Give::Never,   // input
        Give::Drop(3), // uncached
        Give::Never,   // output
        Give::Drop(3), // cache read
        Give::Drop(0), // cache write
        Give::Drop(2), // reasoning
        Give::Drop(3), // turn time
    ];
    // A cache-write cost column only where a price of its own gave one.
    let writes: Vec<bool> = currencies
        .iter()
        .map(|c| totals.total.cost.get(c).is_some_and(|c| c.cache_write > 0))
        .collect();
    for (cur, write) in currencies.iter().zip(&writes) {
        header.push(format!("hit {cur}"));
        header.push(format!("miss {cur}"));
        gives.extend([Give::Drop(4), Give::Drop(4)]);
        if *write {
            header.push(format!("write {cur}"));
            gives.push(Give::Drop(4));
        }
        header.push(format!("output {cur}"));
        header.push(format!("cost {cur}"));
        gives.extend([Give::Drop(4), Give::Never]);
    }
    let line = |name: String, c: &Counts| -> Vec<String> {
        let t = c.tokens();
        let mut cells = vec![
            name,
            thousands(c.sessions),
            thousands(c.turns),
            thousands(c.steps),
            thousands(c.tool_calls),
            thousands(c.tool_errors),
            thousands(c.interrupted),
            thousands(c.failed),
            thousands(t.input + t.cache_read + t.cache_write),
            thousands(t.input),
            thousands(t.output),
            thousands(t.cache_read),
            thousands(t.cache_write),
            t.reasoning_tokens()
                .map_or_else(|| "-".to_owned(), thousands),
            clock(c.wall_ms),
        ];
        let partial = !c.unpriced.is_empty();
        for (cur, write) in currencies.iter().zip(&writes) {
            let cost = c.cost.get(cur);
            let part = |f: fn(&dsh_session::prices::Cost) -> u128| {
                cost.map_or_else(|| "-".to_owned(), |c| cost::money(f(c)))
            };
            cells.push(part(|c| c.cache_hit));
            cells.push(part(|c| c.cache_miss));
            if *write {
                cells.push(part(|c| c.cache_write));
            }
            cells.push(part(|c| c.output));
            cells.push(cost::cost_cell(cost.map(|c| c.total()), partial));
        }
        cells
    };
    let lines = || {
        totals
            .rows
            .iter()
            .map(|(key, counts)| line(key_name(key), counts))
            .chain(std::iter::once(line("total".into(), &totals.total)))
    };
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    if !std::io::stdout().is_terminal() {
        // The row name aligned left, the numbers right.
        let layout = crate::render::Layout {
            right_from: 1,
            fit: None,
        };
        return crate::render::write_streamed(out, &header, layout, || lines().map(Ok))
            .map_err(std::io::Error::other);
    }
    // On a terminal the headers take two lines; the row names (dates, models, files) and
    // the numbers stay whole, and the columns of least use are left out, saying so, when the
    // table is still too wide.
    let stacked: Vec<String> = header.iter().map(|h| h.replace(' ', "\n")).collect();
    let stacked: Vec<&str> = stacked.iter().map(String::as_str).collect();
    let rows: Vec<Vec<String>> = lines().collect();
    let columns = crate::render::terminal_columns();
    let left_out = crate::render::write_fitted(out, &stacked, &gives, 1, &rows, columns)?;
    if let Some(note) = crate::render::left_out_note(&left_out, columns) {
        writeln!(out, "\n{note}")?;
    }
    Ok(())
}
