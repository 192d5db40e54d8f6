//! What a command shows of a damaged log: the one rule of "up to the defect" (issue 44),
//! for `--salvage` (`show`, `surface`, `messages`, `provenance`, `replacements`),
//! `export`'s transcript and `stats`.
//!
//! * A log that is corrupt, or refused for anything but the frozen migration edges, is
//!   read **up to its defect**: the records on the lines (SQLite: rows) before the line
//!   its verdict names, and none after a record that failed a check.
//! * A log refused only by the edges of DSH 0.1.5 and later (F1–F10) is intact, and is read
//!   **whole**, as DSH 0.1.1 loads it (`--dsh 0.1.1` judges it valid).
//! * Another harness's file and a log whose header is broken have **nothing** to read.
//! * A log whose only fault is its place under a DSH root (H6) or its seeded cut (G8),
//!   judged once every record was read, has no record at fault: every one is read.
//!
//! Most defects are found at their own line, and one pass stops there. Some are found
//! after the line they name: a v3/v4 lifecycle rule checked when the log ends (G9), a seq
//! that starts over (J5, known at a later `turn/end`). The views
//! were then told of later records, so the log is read a second time, stopping at the line
//! ([`ScanOptions::salvage`]); the verdict stays that of the whole log.

use super::{Report, ScanOptions, Status};

/// How much of a log a command that shows what it held reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Every record: a valid log, a torn-tail one (its committed part), or one only the
    /// frozen edges refuse (intact, read as DSH 0.1.1 loads it).
    Whole,
    /// Nothing: another harness's file, or a log whose header is broken.
    Nothing,
    /// The records before the defect: those on lines (SQLite: rows) before the given one
    /// when the finding names one, and none after a record that failed a check.
    UpTo(Option<u64>),
}

/// What a command reads of the log `report` judged (the rule in the module docs).
pub fn reach(report: &Report) -> Reach {
    match (report.status, &report.finding) {
        (Status::Foreign, _) => Reach::Nothing,
        (Status::Corrupt | Status::Refused, Some(f)) if f.rule.is_edge() => Reach::Whole,
        // The log's place under a DSH root (H6) and its seeded cut (G8), judged once every
        // record was read: no record is at fault, so every one is read (line 1 is named,
        // not read to).
        (Status::Corrupt | Status::Refused, Some(f))
            if matches!(f.rule, crate::rules::Rule::H6 | crate::rules::Rule::G8) =>
        {
            Reach::UpTo(None)
        }
        // The header is line 1 of a JSONL log (a store's header is its sessions row, which
        // has no line: its findings name neither a line nor a seq).
        (Status::Corrupt | Status::Refused, Some(f))
            if f.line == Some(1) && f.seq.is_none() && f.row.is_none() =>
        {
            Reach::Nothing
        }
        (Status::Corrupt | Status::Refused, Some(f)) => Reach::UpTo(f.line.or(f.row)),
        _ => Reach::Whole,
    }
}

/// Reads a log as a command that shows what it held ([`reach`]): `read` scans it with the
/// views it composes, fresh at each call, and hands back the report and what it needs of
/// them. It is called once, and a second time when the first pass told its views of records
/// on or after the line of the defect; the report returned then holds the verdict of the
/// whole log (status, finding, warnings, torn tail, edge refusal, notes) and the reading of
/// the second pass.
///
/// # Errors
/// Whatever `read` returns.
pub fn read_up_to_defect<T, E>(
    options: &ScanOptions,
    mut read: impl FnMut(&ScanOptions) -> Result<(Report, T), E>,
) -> Result<(Report, T), E> {
    let whole = ScanOptions {
        salvage: Some(u64::MAX),
        ..options.clone()
    };
    let (report, out) = read(&whole)?;
    match second_pass(&report) {
        None => Ok((report, out)),
        Some(line) => {
            let bounded = ScanOptions {
                salvage: Some(line),
                ..options.clone()
            };
            let (mut again, out) = read(&bounded)?;
            keep_verdict(&mut again, report);
            Ok((again, out))
        }
    }
}

/// True when [`read_up_to_defect`] reads `report`'s log again: the views of this pass
/// were told of records on or after the line of the defect, and what they hold is to be
/// dropped (a view that hands its result out in [`crate::view::View::finish`] asks this first).
pub fn read_again(report: &Report) -> bool {
    second_pass(report).is_some()
}

/// The line a second pass stops at: the defect's, when the first pass told its views of
/// records on or after it.
fn second_pass(first: &Report) -> Option<u64> {
    match reach(first) {
        Reach::UpTo(Some(line)) if first.read_through.is_some_and(|r| r >= line) => Some(line),
        _ => None,
    }
}

/// `read` takes the verdict of the whole log from `whole`.
fn keep_verdict(read: &mut Report, whole: Report) {
    read.status = whole.status;
    read.finding = whole.finding;
    read.warnings = whole.warnings;
    read.torn = whole.torn;
    read.edge = whole.edge;
    read.notes = whole.notes;
}

/// What a read up to the defect read ([`Report::read_through`]), in words: `lines 1–13`,
/// `rows through seq 12` (a SQLite session), `no record` (the defect came first).
pub fn read_text(report: &Report) -> String {
    match (report.read_through, report.session.is_some()) {
        (None, _) => "no record".to_owned(),
        (Some(n), false) => format!("lines 1–{n}"),
        (Some(n), true) => format!("rows through seq {n}"),
    }
}

/// [`read_text`] as JSON: `{"lines": [1, 13]}`, `{"rows_through": 12}`, or `null`.
pub fn read_json(report: &Report) -> serde_json::Value {
    match (report.read_through, report.session.is_some()) {
        (None, _) => serde_json::Value::Null,
        (Some(n), false) => serde_json::json!({ "lines": [1, n] }),
        (Some(n), true) => serde_json::json!({ "rows_through": n }),
    }
}
