//! `rules`: every rule id with its class, FORMAT.md section and meaning.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use dsh_session::provider::providers_of;
use dsh_session::rules::{Class, Rule};
use serde::Serialize;

use crate::cli::RulesArgs;
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
    /// Provider rules: the profiles (`validate --provider NAME`) that refuse a history
    /// breaking it; empty for the others.
    providers: Vec<&'static str>,
}

/// The class as printed: `corrupt`, `refused`, `torn-tail` or `warning`.
pub fn class_name(class: Class) -> &'static str {
    match class {
        Class::Corrupt => "corrupt",
        Class::Refused => "refused",
        Class::TornTail => "torn-tail",
        Class::Warning => "warning",
    }
}

/// Runs `rules`.
pub fn run(args: &RulesArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let rows: Vec<Row> = Rule::ALL
        .iter()
        .map(|r| Row {
            schema_version: SCHEMA_VERSION,
            rule: r.id(),
            class: class_name(r.class()),
            section: r.section(),
            meaning: r.summary(),
            providers: providers_of(*r).iter().map(|p| p.name()).collect(),
        })
        .collect();
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
        Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
