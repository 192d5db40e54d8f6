//! The last leg of a recovery ([`super::run`]): what became of the plan ([`Done`]), and
//! how each session [`crate::write::new_session::publish_read_back`] published is read back
//! from where it was written, as DSH 0.1.5+ and DSH 0.1.1 load it ([`read_back`]).

use std::path::Path;

use crate::edge::{DshLine, Judge};
use crate::event::Era;
use crate::scan::{ScanOptions, Status, scan_path};

/// What a recovery did with its plan (`recover --format json`, `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// The log needs no recovery.
    Valid,
    /// No session could be made.
    NothingRecoverable,
    /// A session's path (or its id elsewhere under the root) exists: nothing was written.
    NotWritten,
    /// A dry run: the sessions were planned, not written.
    WouldRecover,
    /// The sessions were written and read back.
    Recovered,
}

impl Done {
    /// `valid`, `nothing recoverable`, `not written`, `would recover`, `recovered`.
    pub fn name(self) -> &'static str {
        match self {
            Done::Valid => "valid",
            Done::NothingRecoverable => "nothing recoverable",
            Done::NotWritten => "not written",
            Done::WouldRecover => "would recover",
            Done::Recovered => "recovered",
        }
    }
}

/// What is wrong with the session written at `path` as the newest DSH and the DSH that
/// writes its generation (DSH 0.1.1 for v0) load it; `None` when both load it: what
/// [`crate::write::new_session::publish_read_back`] reads each session back with.
pub fn read_back(path: &Path) -> Option<String> {
    for line in [DshLine::Current, DshLine::Writer] {
        let options = ScanOptions {
            dsh: Judge {
                line,
                both_lines: false,
            },
            ..ScanOptions::default()
        };
        match scan_path(path, &options) {
            Err(e) => return Some(e.to_string()),
            Ok(report) if report.status == Status::Valid => {}
            // A v0-alpha log is not one DSH 0.1.1 loads, recovered or not.
            Ok(report) if line == DshLine::Writer && report.era == Some(Era::V0Alpha) => {}
            Ok(report) => {
                return Some(format!(
                    "as {} reads it, the written session is {}{}",
                    line.name(),
                    report.status.name(),
                    report.finding.map(|f| format!(": {f}")).unwrap_or_default()
                ));
            }
        }
    }
    None
}
