//! How a salvaged read is said (`--salvage`, [`crate::cmd::salvage`]): the defect it
//! stopped at, named above the output in text, in a `salvaged` member in JSON, or on
//! standard error beside JSON lines.

use std::io::Write;

use dsh_session::rules::Finding;
use dsh_session::scan::Status;
use serde_json::{Value, json};

/// The defect a salvaged read stopped at.
#[derive(Debug, Clone)]
pub struct Salvaged {
    /// `corrupt` or `refused`.
    pub status: Status,
    /// The finding, as `validate` reports it.
    pub finding: Finding,
    /// What was read, in words ([`dsh_session::scan::defect::read_text`]).
    pub read: String,
    /// What was read, as JSON ([`dsh_session::scan::defect::read_json`]).
    pub read_json: Value,
}

impl Salvaged {
    /// `{status, rule, line, row, seq, message, read}` (`read`: [`dsh_session::scan::defect::read_json`]).
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
