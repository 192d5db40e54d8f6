//! `--salvage` on `show`, `surface`, `messages`, `provenance`, `replacements` and
//! `export` (issue 27): a corrupt or refused log is read up to its defect by the one rule
//! every command follows ([`dsh_session::scan::defect`]: the lines before the line its
//! verdict names; a log only the frozen edges refuse is read whole, as DSH 0.1.1 loads it),
//! and what it held there is printed, with the defect and the lines read named at
//! the top (text), in a `salvaged` field (JSON; an array output becomes an object that
//! holds it), or on standard error (`jsonl`, as one JSON line). The exit code stays 1, so a
//! script cannot take a salvaged read for a healthy log. A log whose header is broken, and
//! another harness's file, have nothing to salvage: they are refused as without the flag.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use dsh_session::rules::Finding;
use dsh_session::scan::defect::{self, Reach};
use dsh_session::scan::{Report, ScanError, ScanOptions, Status};
use serde_json::{Value, json};

use crate::cmd::{readable, spool_stdin};

/// The defect a salvaged read stopped at.
#[derive(Debug, Clone)]
pub struct Salvaged {
    /// `corrupt` or `refused`.
    pub status: Status,
    /// The finding, as `validate` reports it.
    pub finding: Finding,
    /// What was read, in words ([`defect::read_text`]).
    pub read: String,
    /// What was read, as JSON ([`defect::read_json`]).
    pub read_json: Value,
}

impl Salvaged {
    /// `{status, rule, line, row, seq, message, read}` (`read`: [`defect::read_json`]).
    pub fn json(&self) -> Value {
        let f = &self.finding;
        json!({
            "status": self.status.name(),
            "rule": f.rule.id(),
            "line": f.line,
            "row": f.row,
            "seq": f.seq,
            "message": f.message,
            "read": self.read_json,
        })
    }

    /// The line that names the defect above a salvaged read.
    pub fn text(&self) -> String {
        format!(
            "salvaged: {} {}; what follows is what the log held before it ({} read)",
            self.status.name(),
            self.finding,
            self.read
        )
    }
}

/// The exit code of a command that read `salvaged`: 1 after a salvaged read.
pub fn exit_code(salvaged: Option<&Salvaged>) -> ExitCode {
    if salvaged.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The scan `read` makes of `path` (its views made anew at each call, handed back), as
/// [`scan_readable_as`] reads it; with `salvage` a corrupt or refused log read up to its defect
/// instead of refused ([`defect`]: the one rule every command follows): the report then
/// holds what the log held before it, and the defect comes back beside it. A log only the
/// frozen edges refuse is read whole, as DSH 0.1.1 loads it, as without the flag.
///
/// # Errors
/// As [`scan_readable_as`], for a log with nothing to salvage (a broken header, another
/// harness's file).
pub fn scan_salvaging<V>(
    path: &Path,
    shown: &Path,
    options: &ScanOptions,
    salvage: bool,
    mut read: impl FnMut(&Path, &ScanOptions) -> Result<(Report, V), ScanError>,
) -> Result<(Report, V, Option<Salvaged>)> {
    let context = || shown.display().to_string();
    if !salvage {
        let (report, views) = read(path, options).with_context(context)?;
        return Ok((readable(report, shown)?, views, None));
    }
    // A second pass reads the log again when its defect was found after later lines:
    // standard input is kept in a temporary file.
    let spooled = spool_stdin(path)?;
    let path = spooled.as_ref().map_or(path, |s| s.path());
    let (report, views) =
        defect::read_up_to_defect(options, |options| read(path, options)).with_context(context)?;
    let salvaged = match (defect::reach(&report), &report.finding) {
        (Reach::UpTo(_), Some(f)) => Some(Salvaged {
            status: report.status,
            finding: f.clone(),
            read: defect::read_text(&report),
            read_json: defect::read_json(&report),
        }),
        _ => None,
    };
    match salvaged {
        Some(s) => Ok((report, views, Some(s))),
        None => Ok((readable(report, shown)?, views, None)),
    }
}

/// How a command prints, for where the defect goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Text: a `salvaged:` line at the top.
    Text,
    /// Graphviz: a `// salvaged:` comment at the top.
    Dot,
    /// One JSON array, which becomes the member `name` of an object holding `salvaged`.
    JsonArray(&'static str),
    /// One JSON object per line: the defect goes to standard error as one JSON line.
    Jsonl,
}

impl Shape {
    /// The shape of a table command's `format`: its JSON array is the member `name`.
    pub fn of_table(format: crate::cli::TableFormat, name: &'static str) -> Shape {
        match format {
            crate::cli::TableFormat::Text => Shape::Text,
            crate::cli::TableFormat::Json => Shape::JsonArray(name),
            crate::cli::TableFormat::Jsonl => Shape::Jsonl,
        }
    }
}

/// What goes before the output of a command run with `--salvage` (`salvaged`: the defect,
/// `None` for a healthy log).
pub fn head(out: &mut dyn Write, shape: Shape, salvaged: Option<&Salvaged>) -> std::io::Result<()> {
    match (shape, salvaged) {
        (Shape::Text, Some(s)) => writeln!(out, "{}", s.text()),
        (Shape::Dot, Some(s)) => writeln!(out, "// {}", s.text()),
        (Shape::Jsonl, Some(s)) => {
            out.flush()?;
            // Standard error that cannot be written loses the line, not the read.
            stderr!("{}", json!({ "salvaged": s.json() }));
            Ok(())
        }
        (Shape::JsonArray(name), s) => {
            let salvaged = s.map_or(Value::Null, Salvaged::json);
            write!(
                out,
                "{{\n\"schema_version\": 1,\n\"salvaged\": {salvaged},\n\"{name}\": "
            )
        }
        _ => Ok(()),
    }
}

/// What goes after the output (closes the object of [`Shape::JsonArray`]).
pub fn tail(out: &mut dyn Write, shape: Shape) -> std::io::Result<()> {
    if let Shape::JsonArray(_) = shape {
        writeln!(out, "}}")?;
    }
    Ok(())
}
