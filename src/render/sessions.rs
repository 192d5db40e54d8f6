//! `sessions` as text, JSON or CSV: ONE renderer for the rows of a store and of a JSONL
//! root ([`dsh_session::sessions::Row`]), each listing with its table spec ([`STORE`],
//! [`ROOT`]): which columns, how each gives way on a narrow terminal, what each cell shows.

use std::io::Write;

use anyhow::{Result, bail};
use dsh_session::sessions::Row;
use serde::Serialize;

use crate::cli::{SessionsFormat, TableFormat};
use crate::render::{Give, left_out_note, opt, terminal_columns, write_fitted, write_rows};

/// One column of a `sessions` table.
pub struct Column {
    /// The header.
    header: &'static str,
    /// How it gives way when the table is wider than the terminal.
    give: Give,
    /// The cell of a row.
    cell: fn(&Row) -> String,
}

/// A [`Column`], as the table specs below write one per line.
const fn column(header: &'static str, give: Give, cell: fn(&Row) -> String) -> Column {
    Column { header, give, cell }
}

/// A store's sessions (FORMAT.md §8.4): on a terminal, ids and dates stay whole; the title
/// and cwd are cut first, then the columns of least use are left out, and the note under
/// the table says which (at 80 columns a session id and its status are what always fits).
pub const STORE: &[Column] = &[
    column("session", Give::Never, |r| opt(r.id.as_deref())),
    column("title", Give::Squeeze, |r| opt(r.title.as_deref())),
    column("created at", Give::Drop(5), |r| {
        opt(r.created_at.as_deref())
    }),
    column("cwd", Give::Squeeze, |r| opt(r.cwd.as_deref())),
    column("parent", Give::Drop(2), |r| {
        opt(r.lineage.parent_session.as_deref())
    }),
    column("seed", Give::Drop(0), |r| opt(r.lineage.seed_length)),
    column("origin", Give::Drop(0), |r| {
        opt(r.lineage.origin.as_deref())
    }),
    column("depth", Give::Drop(1), |r| opt(r.lineage.delegation_depth)),
    column("events", Give::Drop(3), |r| opt(r.events)),
    column("turns", Give::Drop(3), |r| opt(r.turns)),
    column("revision", Give::Drop(0), |r| opt(r.revision)),
    column("status", Give::Never, |r| r.status.clone()),
];

/// A JSONL root's sessions (FORMAT.md §7.1), from the index: on a terminal, ids, dates and
/// counts stay whole; the title and project are cut first, then the columns of least use
/// are left out (the note under the table says which), and the title and project, which
/// stay, are cut further.
pub const ROOT: &[Column] = &[
    column("session", Give::Never, |r| opt(r.id.as_deref())),
    column("title", Give::Squeeze, |r| opt(r.title.as_deref())),
    column("project", Give::Squeeze, |r| opt(r.cwd.as_deref())),
    column("created", Give::Drop(1), |r| {
        opt(r.created_at.as_deref().map(minute))
    }),
    column("last activity", Give::Drop(5), |r| {
        opt(indexed(r, |i| i.last_activity.as_deref().map(minute)))
    }),
    column("turns", Give::Drop(3), |r| opt(r.turns)),
    column("model", Give::Drop(2), |r| {
        opt(indexed(r, |i| i.model.clone()))
    }),
    column("status", Give::Never, |r| r.status.clone()),
    column("size", Give::Drop(0), |r| {
        crate::render::index::bytes(r.indexed.as_ref().map_or(0, |i| i.size))
    }),
];

/// What the index adds to a row, when it does.
fn indexed<T>(
    r: &Row,
    get: impl FnOnce(&dsh_session::sessions::Indexed) -> Option<T>,
) -> Option<T> {
    r.indexed.as_ref().and_then(get)
}

/// `2026-11-30T14:02Z`: an RFC 3339 time in a table, to the minute, without a space to
/// wrap at.
fn minute(t: &str) -> String {
    match t.get(..16) {
        Some(m) => format!("{m}Z"),
        None => t.to_owned(),
    }
}

/// Writes `rows` in `format`: a table of `columns` fitted to the terminal, JSON rows, or
/// CSV.
///
/// # Errors
/// Writing failed.
pub fn write(
    out: &mut dyn Write,
    format: SessionsFormat,
    rows: &[Row],
    columns: &[Column],
) -> Result<()> {
    let format = match format {
        SessionsFormat::Text => TableFormat::Text,
        SessionsFormat::Json => TableFormat::Json,
        SessionsFormat::Jsonl => TableFormat::Jsonl,
        SessionsFormat::Csv => return write_csv(out, rows),
    };
    write_rows(out, format, rows, |out| {
        let header: Vec<&str> = columns.iter().map(|c| c.header).collect();
        let gives: Vec<Give> = columns.iter().map(|c| c.give).collect();
        let cells: Vec<Vec<String>> = rows
            .iter()
            .map(|r| columns.iter().map(|c| (c.cell)(r)).collect())
            .collect();
        let width = terminal_columns();
        let left_out = write_fitted(out, &header, &gives, usize::MAX, &cells, width)?;
        if let Some(note) = left_out_note(&left_out, width) {
            writeln!(out, "\n{note}")?;
        }
        Ok(())
    })
}

/// Rows as CSV (RFC 4180): a header line of the field names, then a line per row; arrays
/// and objects as their JSON text. Nothing for no rows.
fn write_csv<T: Serialize>(out: &mut dyn Write, rows: &[T]) -> Result<()> {
    for (i, row) in rows.iter().enumerate() {
        let serde_json::Value::Object(fields) = serde_json::to_value(row)? else {
            bail!("internal error: a row is not an object");
        };
        if i == 0 {
            let names: Vec<&str> = fields.keys().map(String::as_str).collect();
            writeln!(out, "{}", names.join(","))?;
        }
        let cells: Vec<String> = fields
            .values()
            .map(crate::render::stats::csv_field)
            .collect();
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}
