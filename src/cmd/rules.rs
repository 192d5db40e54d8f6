//! `rules [ID]`: every rule id with its class, FORMAT.md section and meaning; one rule with
//! an example message and what to do; and the ids no file makes this reader report.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::provider::providers_of;
use dsh_session::rules::{NOT_REPORTED, Rule};
use serde::Serialize;

use crate::cli::{RulesArgs, TableFormat};
use crate::render::{table, write_rows, write_table};

/// `rules --format json` layout: 2 renamed `id` to `rule` and `summary` to `meaning`, the
/// names `validate` and the table use.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Serialize)]
struct Row {
    schema_version: u32,
    rule: &'static str,
    class: &'static str,
    section: &'static str,
    meaning: &'static str,
    /// A real message of the rule as `validate` prints it; `null` when no file produces it.
    example: Option<&'static str>,
    /// What to do about it.
    advice: &'static str,
    /// Why no file makes this reader report it, when none does.
    not_reported: Option<&'static str>,
    /// Provider rules: the profiles (`validate --provider NAME`) that refuse a history
    /// breaking it; empty for the others.
    providers: Vec<&'static str>,
}

/// A rule's row, as listed and as explained.
fn row(r: Rule) -> Row {
    Row {
        schema_version: SCHEMA_VERSION,
        rule: r.id(),
        class: r.class().name(),
        section: r.section(),
        meaning: r.summary(),
        example: r.example(),
        advice: r.advice(),
        not_reported: r.not_reported(),
        providers: providers_of(r).iter().map(|p| p.name()).collect(),
    }
}

/// Runs `rules`.
pub fn run(args: &RulesArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if let Some(id) = &args.id {
        return explain(id, args.format, out);
    }
    let rows: Vec<Row> = Rule::ALL.iter().map(|r| row(*r)).collect();
    write_rows(out, args.format, &rows, |out| {
        let mut t = table(&["rule", "class", "section", "providers", "meaning"]);
        for r in &rows {
            let providers = r.providers.join(", ");
            t.add_row(vec![
                r.rule,
                r.class,
                r.section,
                providers.as_str(),
                r.meaning,
            ]);
        }
        write_table(out, &t)?;
        let never: Vec<&str> = NOT_REPORTED.iter().map(|(id, _)| *id).collect();
        writeln!(
            out,
            "\nNever reported from a file: {} (`dsh-session rules ID` says why).",
            never.join(", ")
        )?;
        Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// `rules ID`: one rule, or why an id FORMAT.md names is never reported.
fn explain(id: &str, format: TableFormat, out: &mut dyn Write) -> Result<ExitCode> {
    let wanted = id.to_ascii_uppercase();
    let Some(rule) = Rule::from_id(&wanted) else {
        let Some((id, why)) = NOT_REPORTED.iter().find(|(i, _)| *i == wanted) else {
            bail!("no rule {id:?}; `dsh-session rules` lists them");
        };
        match format {
            TableFormat::Text => {
                writeln!(out, "{id}: never reported from a file\nwhy:        {why}")?
            }
            TableFormat::Json | TableFormat::Jsonl => {
                let v = serde_json::json!({"schema_version": SCHEMA_VERSION, "rule": id, "not_reported": why});
                writeln!(out, "{v}")?;
            }
        }
        return Ok(ExitCode::SUCCESS);
    };
    let row = row(rule);
    match format {
        TableFormat::Json | TableFormat::Jsonl => {
            serde_json::to_writer(&mut *out, &row)?;
            writeln!(out)?;
        }
        TableFormat::Text => {
            let section = if row.section.starts_with('§') {
                format!("FORMAT.md {}", row.section)
            } else {
                row.section.to_owned()
            };
            writeln!(out, "{}: {} ({section})", row.rule, row.class)?;
            writeln!(out, "meaning:    {}", row.meaning)?;
            if !row.providers.is_empty() {
                writeln!(out, "refused by: {}", row.providers.join(", "))?;
            }
            match (row.example, row.not_reported) {
                (_, Some(why)) => writeln!(out, "never reported from a file: {why}")?,
                (Some(example), None) => writeln!(out, "example:    {example}")?,
                (None, None) => {}
            }
            writeln!(out, "what to do: {}", row.advice)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
