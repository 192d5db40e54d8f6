//! `replacements FILE`: every replace in log order (FORMAT.md §3.1).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use dsh_session::scan::ScanOptions;
use dsh_session::view::replacements::Replacements;

use crate::cli::{ReplacementsArgs, TableFormat};
use crate::cmd::salvage::{self, Shape};
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

/// Runs `replacements`.
pub fn run(args: &ReplacementsArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let options = ScanOptions {
        session: args.session.clone(),
        ..ScanOptions::default()
    };
    let (_, replacements, salvaged) =
        salvage::scan_salvaging(&args.file, &args.file, &options, args.salvage, |path, o| {
            let mut replacements = Replacements::default();
            let report = dsh_session::scan::scan_path_with(path, o, &mut [&mut replacements])?;
            Ok((report, replacements))
        })?;
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
    let shape = match args.format {
        TableFormat::Text => Shape::Text,
        TableFormat::Json => Shape::JsonArray("replacements"),
        TableFormat::Jsonl => Shape::Jsonl,
    };
    if args.salvage {
        salvage::head(out, shape, salvaged.as_ref())?;
    }
    // Rows are printed one at a time: a long chain of replacements can shadow many seqs.
    write_rows(out, args.format, &rows, |out| {
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
    })?;
    if args.salvage {
        salvage::tail(out, shape)?;
    }
    Ok(salvage::exit_code(salvaged.as_ref()))
}
