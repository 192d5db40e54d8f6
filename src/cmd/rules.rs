//! `rules`: every rule id with its class, FORMAT.md section and meaning.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use dsh_session::rules::{Class, Rule};
use serde::Serialize;

use crate::cli::{RulesArgs, TableFormat};
use crate::render::{table, write_table};

#[derive(Debug, Serialize)]
struct Row {
    id: &'static str,
    class: &'static str,
    section: &'static str,
    summary: &'static str,
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
            id: r.id(),
            class: class_name(r.class()),
            section: r.section(),
            summary: r.summary(),
        })
        .collect();
    match args.format {
        TableFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &rows)?;
            writeln!(out)?;
        }
        TableFormat::Jsonl => {
            for r in &rows {
                serde_json::to_writer(&mut *out, r)?;
                writeln!(out)?;
            }
        }
        TableFormat::Table => {
            let mut t = table(&["rule", "class", "section", "meaning"]);
            for r in &rows {
                t.add_row(vec![r.id, r.class, r.section, r.summary]);
            }
            write_table(out, &t)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
