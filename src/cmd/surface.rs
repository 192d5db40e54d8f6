//! `surface FILE [--at SEQ]`: the surface after replaying the log (FORMAT.md §3).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::replay::{SurfaceEntry, SurfaceOp};
use dsh_session::scan::ScanOptions;
use serde::Serialize;

use crate::cli::{SurfaceArgs, TableFormat};
use crate::cmd::scan_readable;
use crate::render::{table, write_table};

#[derive(Debug, Serialize)]
struct Row<'a> {
    position: usize,
    seq: u64,
    #[serde(rename = "type")]
    ty: &'a str,
    op: &'static str,
    start: Option<u64>,
    end: Option<u64>,
    shadowed: usize,
    role: Option<&'a str>,
    preview: &'a str,
}

fn row(position: usize, e: &SurfaceEntry) -> Row<'_> {
    let (op, start, end) = match e.op {
        SurfaceOp::Append => ("append", None, None),
        SurfaceOp::Replace { start, end } => ("replace", Some(start), Some(end)),
    };
    Row {
        position,
        seq: e.seq,
        ty: &e.ty,
        op,
        start,
        end,
        shadowed: e.shadowed,
        role: e.role.as_deref(),
        preview: &e.preview,
    }
}

/// Runs `surface`.
pub fn run(args: &SurfaceArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let options = ScanOptions {
        at: args.at,
        session: args.session.clone(),
        ..ScanOptions::default()
    };
    let report = scan_readable(&args.file, &options)?;
    let entries: Vec<SurfaceEntry> = match args.at {
        None => report.replay.entries().into_iter().cloned().collect(),
        Some(at) => match report.surface_at {
            Some(entries) => entries,
            None => bail!(
                "{}: --at {at} is beyond the log: its last replayed seq is {}",
                args.file.display(),
                report
                    .stats
                    .events
                    .checked_sub(1)
                    .map_or("none".into(), |s| s.to_string())
            ),
        },
    };
    let rows: Vec<Row<'_>> = entries.iter().enumerate().map(|(i, e)| row(i, e)).collect();
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
            let mut t = table(&["pos", "seq", "type", "op", "shadowed", "role", "preview"]);
            for (r, e) in rows.iter().zip(&entries) {
                t.add_row(vec![
                    r.position.to_string(),
                    r.seq.to_string(),
                    r.ty.to_owned(),
                    e.op.to_string(),
                    r.shadowed.to_string(),
                    r.role.unwrap_or("-").to_owned(),
                    r.preview.to_owned(),
                ]);
            }
            write_table(out, &t)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
