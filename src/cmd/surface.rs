//! `surface FILE [--at SEQ]`: the surface after replaying the log (FORMAT.md §3).

use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use dsh_session::replay::{Keep, SurfaceEntry, SurfaceOp};
use dsh_session::scan::ScanOptions;
use dsh_session::view::View;
use dsh_session::view::replacements::Replacements;
use dsh_session::view::surface_at::SurfaceAt;
use serde::Serialize;

use crate::cli::{SurfaceArgs, TableFormat};
use crate::cmd::salvage::{self, Shape};
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

/// One listed entry: its position on the surface (`None`: shadowed), the replace that
/// shadowed it, and the entry.
type Listed = (Option<usize>, Option<u64>, SurfaceEntry);

/// Entries read back from the scan's kept texts.
fn read_back<T>(name: &str, e: std::io::Result<T>) -> Result<T> {
    e.with_context(|| format!("{name}: cannot read back the previews from a temporary file"))
}

/// A listed entry as its JSON row.
struct ListedRow(Listed);

impl Serialize for ListedRow {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (position, shadowed_by, entry) = &self.0;
        row(*position, *shadowed_by, entry).serialize(s)
    }
}

/// Runs `surface`.
pub fn run(args: &SurfaceArgs, out: &mut dyn Write) -> Result<ExitCode> {
    // Previews of the whole surface wait in a temporary file past 2 MiB; rows are printed
    // one at a time, so memory does not grow with the surface's text.
    let options = ScanOptions {
        session: args.session.clone(),
        ..ScanOptions::default()
    };
    let (report, (snapshot, replacements), salvaged) =
        salvage::scan_salvaging(&args.file, &args.file, &options, args.salvage, |path, o| {
            let mut keep = Keep {
                shadowed: args.all,
                ..Keep::PREVIEWS
            };
            let mut snapshot = SurfaceAt::new(args.at.unwrap_or_default(), keep);
            let mut replacements = Replacements::default();
            // With --all, the replaces' details say which replace shadowed each entry.
            let mut views: Vec<&mut dyn View> = match args.at {
                Some(_) => vec![&mut snapshot],
                None => vec![&mut keep],
            };
            if args.all {
                views.push(&mut replacements);
            }
            let report = dsh_session::scan::scan_path_with(path, o, &mut views)?;
            Ok((report, (snapshot, replacements)))
        })?;
    let name = args.file.display().to_string();
    let replay = &report.replay;
    // A node leaves the surface once, so each shadowed seq has one replacement.
    let at = args.at.unwrap_or(u64::MAX);
    let shadowed_by: HashMap<u64, u64> = match args.all {
        true => (replacements.list.iter())
            .filter(|r| r.seq <= at)
            .flat_map(|r| r.shadowed.iter().map(move |s| (*s, r.seq)))
            .collect(),
        false => HashMap::new(),
    };
    // With --at, the snapshot the scan took; with --all, the entries in seq order, listed
    // by seq and read back one at a time.
    let snapshot: Option<Vec<Listed>> = match args.at {
        None => None,
        Some(at) => {
            let Some(entries) = snapshot.entries else {
                bail!(
                    "{name}: --at {at} is beyond the log: its last replayed seq is {}",
                    report
                        .events
                        .checked_sub(1)
                        .map_or("none".into(), |s| s.to_string())
                );
            };
            let mut listed: Vec<Listed> = read_back(&name, entries)?
                .into_iter()
                .enumerate()
                .map(|(i, e)| (Some(i), None, e))
                .collect();
            if args.all {
                for e in read_back(&name, replay.shadowed_entries())? {
                    if let Some(by) = shadowed_by.get(&e.seq) {
                        listed.push((None, Some(*by), e));
                    }
                }
                listed.sort_by_key(|(_, _, e)| e.seq);
            }
            Some(listed)
        }
    };
    let by_seq: Vec<(u64, Option<usize>, Option<u64>)> = match (&snapshot, args.all) {
        (None, true) => {
            let mut order: Vec<_> = (replay.seqs().into_iter().enumerate())
                .map(|(i, seq)| (seq, Some(i), None))
                .chain(
                    (replay.shadowed_seqs())
                        .filter_map(|seq| shadowed_by.get(&seq).map(|by| (seq, None, Some(*by)))),
                )
                .collect();
            order.sort_unstable_by_key(|(seq, _, _)| *seq);
            order
        }
        _ => Vec::new(),
    };
    let listing = || -> Box<dyn Iterator<Item = Result<Listed>> + '_> {
        match (&snapshot, args.all) {
            (Some(listed), _) => Box::new(listed.iter().cloned().map(Ok)),
            (None, false) => Box::new(
                (replay.iter().enumerate()).map(|(i, e)| Ok((Some(i), None, read_back(&name, e)?))),
            ),
            (None, true) => Box::new(by_seq.iter().map(|&(seq, p, by)| {
                let e = replay.entry_by_seq(seq).unwrap_or_else(|| {
                    Err(std::io::Error::other(format!("seq {seq} is not kept")))
                });
                Ok((p, by, read_back(&name, e)?))
            })),
        }
    };
    let rows = listing().map(|l| l.map(ListedRow));
    let shape = match args.format {
        TableFormat::Text => Shape::Text,
        TableFormat::Json => Shape::JsonArray("surface"),
        TableFormat::Jsonl => Shape::Jsonl,
    };
    if args.salvage {
        salvage::head(out, shape, salvaged.as_ref())?;
    }
    write_row_stream(out, args.format, rows, |out| {
        let first = if args.all { "status" } else { "pos" };
        let header = [first, "seq", "type", "op", "shadowed", "role", "preview"];
        let cells = |(p, by, e): Listed| {
            let place = match (p, by) {
                (Some(p), _) if args.all => format!("pos {p}"),
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
        write_streamed(out, &header, layout, || listing().map(|l| l.map(cells)))
    })?;
    if args.salvage {
        salvage::tail(out, shape)?;
    }
    Ok(salvage::exit_code(salvaged.as_ref()))
}
