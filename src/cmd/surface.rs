//! `surface FILE [--at SEQ]`: the surface after replaying the log (FORMAT.md §3).

use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::replay::{SurfaceEntry, SurfaceOp};
use dsh_session::scan::ScanOptions;
use dsh_session::view::surface_at::SurfaceAt;
use serde::Serialize;

use crate::cli::SurfaceArgs;
use crate::cmd::scan_readable;
use crate::render::{table, write_rows, write_table};

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

/// Runs `surface`.
pub fn run(args: &SurfaceArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let options = ScanOptions {
        keep_shadowed: args.all,
        replacements: args.all,
        previews: true,
        session: args.session.clone(),
        ..ScanOptions::default()
    };
    let mut snapshot = SurfaceAt::new(args.at.unwrap_or_default());
    let report = match args.at {
        Some(_) => scan_readable(&args.file, &options, &mut [&mut snapshot])?,
        None => scan_readable(&args.file, &options, &mut [])?,
    };
    let entries: Vec<&SurfaceEntry> = match args.at {
        None => report.replay.entries(),
        Some(at) => match &snapshot.entries {
            Some(entries) => entries.iter().collect(),
            None => bail!(
                "{}: --at {at} is beyond the log: its last replayed seq is {}",
                args.file.display(),
                report
                    .events
                    .checked_sub(1)
                    .map_or("none".into(), |s| s.to_string())
            ),
        },
    };
    let mut entries: Vec<(Option<usize>, Option<u64>, &SurfaceEntry)> = entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| (Some(i), None, e))
        .collect();
    if args.all {
        // A node leaves the surface once, so each shadowed seq has one replacement.
        let at = args.at.unwrap_or(u64::MAX);
        let shadowed_by: HashMap<u64, u64> = report
            .replay
            .replacements()
            .iter()
            .filter(|r| r.seq <= at)
            .flat_map(|r| r.shadowed.iter().map(move |s| (*s, r.seq)))
            .collect();
        for e in report.replay.shadowed_entries() {
            if let Some(by) = shadowed_by.get(&e.seq) {
                entries.push((None, Some(*by), e));
            }
        }
        entries.sort_by_key(|(_, _, e)| e.seq);
    }
    let rows: Vec<Row<'_>> = entries.iter().map(|(p, by, e)| row(*p, *by, e)).collect();
    write_rows(out, args.format, &rows, |out| {
        let first = if args.all { "status" } else { "pos" };
        let mut t = table(&[first, "seq", "type", "op", "shadowed", "role", "preview"]);
        for (r, (_, _, e)) in rows.iter().zip(&entries) {
            let place = match (r.position, r.shadowed_by) {
                (Some(p), _) if args.all => format!("pos {p}"),
                (Some(p), _) => p.to_string(),
                (None, by) => format!("shadowed by {}", by.unwrap_or_default()),
            };
            t.add_row(vec![
                place,
                r.seq.to_string(),
                r.ty.to_owned(),
                e.op.to_string(),
                r.shadowed.to_string(),
                r.role.unwrap_or("-").to_owned(),
                r.preview.to_owned(),
            ]);
        }
        write_table(out, &t)?;
        Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
