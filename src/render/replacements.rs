//! `replacements`' output: every replace in log order, as a table (the shadowed seqs cut
//! to fit a terminal), one JSON array, or one JSON object a line (README "replacements").

use std::io::Write;

use anyhow::Result;
use dsh_session::view::replacements::Replacements;

use crate::cli::TableFormat;
use crate::render::{Layout, fit_terminal, write_rows, write_streamed};

#[derive(Debug, serde::Serialize)]
struct Row<'a> {
    schema_version: u32,
    generation: u64,
    seq: u64,
    #[serde(rename = "type")]
    ty: &'a str,
    start: u64,
    end: u64,
    shadowed: &'a [u64],
    surface_len_before: usize,
    surface_len_after: usize,
}

/// Writes the replaces in `format`.
///
/// # Errors
/// Writing to `out` failed.
pub fn write(out: &mut dyn Write, replacements: &Replacements, format: TableFormat) -> Result<()> {
    let rows: Vec<Row<'_>> = (replacements.list.iter())
        .map(|r| Row {
            schema_version: 1,
            generation: r.generation,
            seq: r.seq,
            ty: &r.ty,
            start: r.start,
            end: r.end,
            shadowed: &r.shadowed,
            surface_len_before: r.len_before,
            surface_len_after: r.len_after,
        })
        .collect();
    // Rows are printed one at a time: a long chain of replacements can shadow many seqs.
    write_rows(out, format, &rows, |out| {
        let header = ["gen", "seq", "type", "range", "shadowed", "surface"];
        let cells = |r: &Row<'_>| {
            let shadowed: Vec<String> = r.shadowed.iter().map(u64::to_string).collect();
            Ok(vec![
                r.generation.to_string(),
                r.seq.to_string(),
                r.ty.to_owned(),
                format!("{}..{}", r.start, r.end),
                shadowed.join(","),
                format!("{} -> {}", r.surface_len_before, r.surface_len_after),
            ])
        };
        // On a terminal the list of shadowed seqs is cut to fit; piped it stays whole.
        let layout = Layout {
            fit: fit_terminal(4),
            ..Layout::default()
        };
        write_streamed(out, &header, layout, || rows.iter().map(cells))
            .map_err(std::io::Error::other)
    })
}
