//! `surface`'s output: the listed entries as a table fitted to the terminal, one JSON
//! array, or one JSON object a line (README "surface").

use std::io::Write;

use anyhow::{Context, Result};
use dsh_session::replay::{SurfaceEntry, SurfaceOp};
use dsh_session::view::surface_list::{Listed, Listing};
use serde::Serialize;

use crate::cli::TableFormat;
use crate::render::{Layout, fit_terminal, write_row_stream, write_streamed};

/// `surface --format json` layout: 2 renamed the count `shadowed` to `shadowed_count`
/// (`shadowed` is a list of seqs in `replacements`).
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Serialize)]
struct Row<'a> {
    schema_version: u32,
    /// Position on the surface; `null` for a shadowed entry (`--all`).
    position: Option<usize>,
    seq: u64,
    #[serde(rename = "type")]
    ty: &'a str,
    op: &'static str,
    start: Option<u64>,
    end: Option<u64>,
    /// How many entries this one shadowed (`replacements` lists their seqs as `shadowed`).
    #[serde(rename = "shadowed_count")]
    shadowed: usize,
    role: Option<&'a str>,
    preview: &'a str,
    /// With `--all`: the seq of the replace that shadowed the entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    shadowed_by: Option<u64>,
}

fn row(position: Option<usize>, shadowed_by: Option<u64>, e: &SurfaceEntry) -> Row<'_> {
    let (op, start, end) = match e.op {
        SurfaceOp::Append => ("append", None, None),
        SurfaceOp::Replace { start, end } => ("replace", Some(start), Some(end)),
    };
    Row {
        schema_version: SCHEMA_VERSION,
        position,
        seq: e.seq,
        ty: &e.ty,
        op,
        start,
        end,
        shadowed: e.shadowed,
        role: e.role.as_deref(),
        preview: &e.preview,
        shadowed_by,
    }
}

/// A listed entry as its JSON row.
struct ListedRow(Listed);

impl Serialize for ListedRow {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (position, shadowed_by, entry) = &self.0;
        row(*position, *shadowed_by, entry).serialize(s)
    }
}

/// Writes the entries of `listing` of the log `name` in `format`, one row at a time (with
/// `all`, the first column says whether each is on the surface).
///
/// # Errors
/// An entry cannot be read back (naming `name`); writing to `out` failed.
pub fn write(
    out: &mut dyn Write,
    listing: &Listing<'_>,
    name: &str,
    format: TableFormat,
    all: bool,
) -> Result<()> {
    let read_back = |e: std::io::Result<Listed>| {
        e.with_context(|| format!("{name}: cannot read back the previews from a temporary file"))
    };
    let rows = listing.entries().map(|l| read_back(l).map(ListedRow));
    write_row_stream(out, format, rows, |out| {
        let first = if all { "status" } else { "pos" };
        let header = [first, "seq", "type", "op", "shadowed", "role", "preview"];
        let cells = |(p, by, e): Listed| {
            let place = match (p, by) {
                (Some(p), _) if all => format!("pos {p}"),
                (Some(p), _) => p.to_string(),
                (None, by) => format!("shadowed by {}", by.unwrap_or_default()),
            };
            vec![
                place,
                e.seq.to_string(),
                e.ty.to_string(),
                e.op.to_string(),
                e.shadowed.to_string(),
                e.role.as_deref().unwrap_or("-").to_owned(),
                e.preview,
            ]
        };
        let layout = Layout {
            fit: fit_terminal(header.len() - 1),
            ..Layout::default()
        };
        write_streamed(out, &header, layout, || {
            listing.entries().map(|l| read_back(l).map(cells))
        })
    })
}
