//! Usage over many logs (`stats`, `statusline`): each log read by one scan with a
//! [`UsageView`], in parallel, its rows summed as they come, so memory holds rows, not logs
//! or events. [`read`] gives the [`Totals`]: rows by day, session, model, project, price
//! band or hour, their total, and notes on every log not counted in full.

pub mod statusline;
pub mod when;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use rayon::prelude::*;
use serde_json::{Value, json};

use crate::prices::PriceTable;
use crate::scan::{self, Report, ScanOptions, Status, defect};
use crate::view::View;
use crate::view::usage::{Counts, LogUsage, RowKey, UsageOptions, UsageView};
use crate::wording::{count, lines_and_events, log_name};

pub use when::{WhenError, parse_period, parse_when, zone};

/// A log that was not counted in full: not valid (counted up to its defect) or torn
/// (its committed part counted).
#[derive(Debug, Clone)]
pub struct Note {
    /// The log, as given or found by the walk.
    pub file: String,
    /// A SQLite store's session.
    pub session: Option<String>,
    /// The log's status (`corrupt`, `refused`, `foreign`, `ok` with a torn tail …).
    pub status: &'static str,
    /// The rule broken (FORMAT.md's rule id).
    pub rule: Option<&'static str>,
    /// Where: the line of a JSONL log, the row of a store, the seq.
    pub line: Option<u64>,
    /// The row of a SQLite store.
    pub row: Option<u64>,
    /// The event's seq.
    pub seq: Option<u64>,
    /// What is wrong, in words.
    pub message: String,
    /// A log read up to its defect: the lines counted (`scan::defect::read_text`, JSON).
    pub read: Option<(String, Value)>,
}

impl Note {
    /// The note on the log `file` of `report`: `None` when it was counted in full.
    pub fn of(file: &str, report: &Report) -> Option<Note> {
        let base = |rule, line, row, seq, message| Note {
            file: file.to_owned(),
            session: report.session.clone(),
            status: report.status.name(),
            rule,
            line,
            row,
            seq,
            message,
            read: None,
        };
        if let (false, Some(f)) = (report.is_ok(), &report.finding) {
            let mut note = base(Some(f.rule.id()), f.line, f.row, f.seq, f.message.clone());
            if let defect::Reach::UpTo(_) = defect::reach(report) {
                note.read = Some((defect::read_text(report), defect::read_json(report)));
            }
            return Some(note);
        }
        let t = report.torn.as_ref()?;
        let loss = match t.counted() {
            Some((lines, events)) => lines_and_events(lines, events),
            None => format!("{} ({})", count(t.bytes, "byte"), t.uncounted()),
        };
        let (line, row) = match report.session {
            Some(_) => (None, Some(t.line)),
            None => (Some(t.line), None),
        };
        Some(base(
            Some(t.rule.id()),
            line,
            row,
            None,
            format!(
                "torn tail: {loss} after byte offset {} left out, as DSH drops them",
                t.offset
            ),
        ))
    }

    /// The note as one line: `FILE: STATUS RULE at line L (seq S): MESSAGE (counted: …)`.
    pub fn text(&self) -> String {
        let place = crate::wording::place(self.line, self.row, self.seq);
        let read = match &self.read {
            Some((text, _)) => format!(" (counted: {text})"),
            None => String::new(),
        };
        format!(
            "{}: {} {}{place}: {}{read}",
            log_name(&self.file, self.session.as_deref()),
            self.status,
            self.rule.unwrap_or("-"),
            self.message
        )
    }

    /// The note as `stats --format json` writes it.
    pub fn json(&self) -> Value {
        json!({
            "file": self.file,
            "session": self.session,
            "status": self.status,
            "rule": self.rule,
            "line": self.line,
            "row": self.row,
            "seq": self.seq,
            "message": self.message,
            "read": self.read.as_ref().map_or(Value::Null, |(_, json)| json.clone()),
        })
    }
}

/// Everything read so far: the rows, the total and the notes. Sums of logs are sums of
/// these, so the parallel reads fold into a few of them.
#[derive(Debug, Default)]
pub struct Totals {
    /// The rows, by their key.
    pub rows: BTreeMap<RowKey, Counts>,
    /// Every row summed, each log counted once in `sessions`.
    pub total: Counts,
    /// Sessions read (a file, or a session of a store), counted or not.
    pub sessions_read: u64,
    /// Corrupt or refused logs, counted up to their defect.
    pub not_valid: Vec<Note>,
    /// Other harnesses' logs (pi, Claude Code, Codex …): not counted.
    pub foreign: Vec<Note>,
    /// Logs with a torn tail, their committed part counted.
    pub torn: Vec<Note>,
    /// Paths that could not be read, with the reason.
    pub unreadable: Vec<(String, String)>,
    /// Stores that hold no session.
    pub empty_stores: Vec<String>,
    /// Forks whose inherited history was left to their parent: the log, the parent's id and
    /// the events inherited.
    pub inherited: Vec<(String, String, u64)>,
    /// Session id -> its parent's id, for each subagent read.
    pub subagents: BTreeMap<String, String>,
}

impl Totals {
    fn add_log(&mut self, usage: LogUsage) {
        self.sessions_read += 1;
        // A log counts once in the total, however many rows it adds to.
        let sessions = self.total.sessions + u64::from(usage.counted);
        for (key, counts) in usage.rows {
            self.total.add(&counts);
            self.rows.entry(key).or_default().add(&counts);
        }
        self.total.sessions = sessions;
    }

    fn merge(mut self, other: Totals) -> Totals {
        for (key, counts) in other.rows {
            self.rows.entry(key).or_default().add(&counts);
        }
        self.total.add(&other.total);
        self.sessions_read += other.sessions_read;
        self.not_valid.extend(other.not_valid);
        self.foreign.extend(other.foreign);
        self.torn.extend(other.torn);
        self.unreadable.extend(other.unreadable);
        self.empty_stores.extend(other.empty_stores);
        self.inherited.extend(other.inherited);
        self.subagents.extend(other.subagents);
        self
    }

    /// Reads one path (every session of a store) into the totals.
    fn read(mut self, path: &Path, options: &UsageOptions) -> Totals {
        let file = path.display().to_string();
        // A session directory the walk gave as a whole: its current generation, or why none is.
        if path.is_dir() {
            return match crate::load::layout::current_generation(path) {
                Ok(log) => self.read(&log, options),
                Err(e) => {
                    self.unreadable.push((file, e.to_string()));
                    self
                }
            };
        }
        let sink = Rc::new(RefCell::new(Vec::new()));
        let views = || -> Vec<Box<dyn View>> {
            vec![Box::new(UsageView::new(options.clone(), Rc::clone(&sink)))]
        };
        // A damaged log is counted up to its defect, as every command reads one.
        let up_to_defect = ScanOptions {
            salvage: Some(u64::MAX),
            ..ScanOptions::default()
        };
        match scan::scan_all(path, &up_to_defect, &views) {
            Ok(reports) if reports.is_empty() => self.empty_stores.push(file),
            Ok(reports) => {
                let logs = std::mem::take(&mut *sink.borrow_mut());
                for (report, usage) in reports.iter().zip(logs) {
                    if let Some(note) = Note::of(&file, report) {
                        match report.status {
                            // Not a DSH log: nothing in it is counted.
                            Status::Foreign => {
                                self.foreign.push(note);
                                continue;
                            }
                            Status::Corrupt | Status::Refused => self.not_valid.push(note),
                            _ => self.torn.push(note),
                        }
                    }
                    if let (Some(parent), Some(id)) = (
                        &usage.subagent_of,
                        report
                            .session
                            .clone()
                            .or_else(|| report.header.as_ref().map(|h| h.id.clone())),
                    ) {
                        self.subagents.insert(id, parent.clone());
                    }
                    if let Some((parent, events)) = &usage.inherited {
                        let name = log_name(&file, report.session.as_deref());
                        self.inherited.push((name, parent.clone(), *events));
                    }
                    self.add_log(usage);
                }
            }
            Err(e) => self.unreadable.push((file, crate::wording::error_text(&e))),
        }
        self
    }
}

/// Reads `paths` (logs, stores, session directories, as a walk gives them) in parallel into
/// [`Totals`], notes and unreadable paths sorted by file. With `roll_up` (`--by session`
/// without `--subagents-apart`) each subagent's row is added to its parent's.
pub fn read(paths: &[PathBuf], options: &UsageOptions, roll_up: bool) -> Totals {
    let mut totals = paths
        .par_iter()
        .fold(Totals::default, |t, p| t.read(p, options))
        .reduce(Totals::default, Totals::merge);
    for notes in [&mut totals.not_valid, &mut totals.foreign, &mut totals.torn] {
        notes.sort_by(|a, b| (&a.file, &a.session).cmp(&(&b.file, &b.session)));
    }
    if roll_up {
        roll_up_subagents(&mut totals);
    }
    totals.unreadable.sort();
    totals.empty_stores.sort();
    totals.inherited.sort();
    totals
}

/// Under `--by session`: each subagent's row added to its parent's (its parent's parent's,
/// when the parent is a subagent too), when that parent is among the rows; the row then
/// counts the sessions in it.
fn roll_up_subagents(totals: &mut Totals) {
    let row_of: BTreeMap<String, RowKey> = totals
        .rows
        .keys()
        .filter_map(|k| match k {
            RowKey::Session {
                session: Some(id), ..
            } => Some((id.clone(), k.clone())),
            _ => None,
        })
        .collect();
    let keys: Vec<RowKey> = totals.rows.keys().cloned().collect();
    for key in keys {
        let RowKey::Session {
            session: Some(id), ..
        } = &key
        else {
            continue;
        };
        // The topmost ancestor read, through subagents only (a chain is at most as long as
        // the subagents read).
        let mut target = None;
        let mut at = id.clone();
        for _ in 0..=totals.subagents.len() {
            match totals.subagents.get(&at) {
                Some(parent) if row_of.contains_key(parent) => {
                    target = row_of.get(parent).cloned();
                    at = parent.clone();
                }
                _ => break,
            }
        }
        if let Some(target) = target.filter(|t| *t != key)
            && let Some(counts) = totals.rows.remove(&key)
        {
            totals.rows.entry(target).or_default().add(&counts);
        }
    }
}

/// A [`crate::view::usage::session_view`] at the built-in price table: one session's
/// counts and cost (`show`, `export`).
pub fn session_view() -> (UsageView, Rc<RefCell<Vec<LogUsage>>>) {
    crate::view::usage::session_view(Arc::new(PriceTable::built_in().clone()))
}

/// The counts a [`session_view`] handed to its sink, summed.
pub fn session_total(sink: &RefCell<Vec<LogUsage>>) -> Counts {
    crate::view::usage::total(sink)
}
