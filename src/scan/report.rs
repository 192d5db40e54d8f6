//! What a scan found out about one log: the verdict, the findings, the fold and the
//! load-time state (FORMAT.md §6.2).

use std::path::PathBuf;

use crate::check::closers::OpenTurn;
use crate::event::Era;
use crate::header::Header;
use crate::load::Encoding;
use crate::replay::Replay;
use crate::rules::Finding;
use crate::scan::torn::TornTail;

/// The verdict on a log (FORMAT.md §6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    /// Every check passed.
    Valid,
    /// Valid, but uncommitted bytes follow the committed region; a repair cuts them.
    TornTail,
    /// Damaged or malformed.
    Corrupt,
    /// Intact but not to be interpreted by this reader.
    Refused,
    /// Not a DSH log: another harness's session file (rule X1).
    Foreign,
}

impl Status {
    /// `valid`, `torn-tail`, `corrupt`, `refused` or `foreign`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Valid => "valid",
            Status::TornTail => "torn-tail",
            Status::Corrupt => "corrupt",
            Status::Refused => "refused",
            Status::Foreign => "foreign",
        }
    }
}

/// Everything a scan found out about one log.
#[derive(Debug, Clone)]
pub struct Report {
    /// The path given.
    pub path: PathBuf,
    /// The session id, for a SQLite store.
    pub session: Option<String>,
    /// The encoding detected.
    pub encoding: Encoding,
    /// File size in bytes (unknown for standard input).
    pub size: Option<u64>,
    /// The era detected from the header.
    pub era: Option<Era>,
    /// The header, when its first line was JSON.
    pub header: Option<Header>,
    /// The verdict.
    pub status: Status,
    /// The finding behind a `corrupt` or `refused` verdict.
    pub finding: Option<Finding>,
    /// Findings that do not fail the log.
    pub warnings: Vec<Finding>,
    /// The torn tail, for `torn-tail`.
    pub torn: Option<TornTail>,
    /// The fold, when the log was read far enough to replay it.
    pub replay: Replay,
    /// Events read and replayed (the torn tail excluded; packed rows count their members).
    pub events: u64,
    /// §5.2's state at the end of the stored log: the open turn and its unanswered calls.
    pub open_turn: OpenTurn,
    /// With `ScanOptions::append_closers`: the closer records a repair appends, already
    /// checked together with the log.
    pub closers: Vec<String>,
    /// When the frozen edges of DSH 0.1.5 and later ran ([`crate::edge`]): their first
    /// refusal, whichever line the verdict is that of (`show` and `version` say both).
    pub edge: Option<crate::rules::Finding>,
    /// The DSH line whose verdict `status` and `finding` are (resolved for a log: never
    /// [`crate::edge::DshLine::Writer`] once the header was read).
    pub dsh: crate::edge::DshLine,
    /// What the verdict depends on beyond the judged line, one sentence each: the platform
    /// a Windows log loads on, known defects of single DSH builds that refuse a log of this
    /// shape (`validate` prints them as notes).
    pub notes: Vec<String>,
    /// A salvaged read only ([`crate::scan::ScanOptions::salvage`]): the last line (SQLite:
    /// the row's `seq` column) whose record the views were told of; `None` when none was.
    pub read_through: Option<u64>,
}

/// A log's verdict, with the finding behind it when the verdict fails the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `valid`, `torn-tail`, `corrupt`, `refused` or `foreign`.
    pub status: Status,
    /// The finding behind a failing verdict; `None` for `valid` and `torn-tail`.
    pub finding: Option<Finding>,
}

impl Report {
    /// True for `valid` and `torn-tail`.
    pub fn is_ok(&self) -> bool {
        matches!(self.status, Status::Valid | Status::TornTail)
    }

    /// The verdict, with its finding only when it fails the log.
    pub fn verdict(&self) -> Verdict {
        Verdict {
            status: self.status,
            finding: self.finding.clone().filter(|_| !self.is_ok()),
        }
    }

    /// What each DSH release line does with the log, for `show` and `version`
    /// (GENERATIONS.md §4–§7): "DSH 0.1.1 loads it; DSH 0.1.5+ migrates it", or "… refuses
    /// to migrate it (EDGE, RULE at line N, seq S): WHAT". `None` when the frozen edges did
    /// not run (SQLite, v3, v4) or DSH 0.1.1 does not load it either.
    pub fn dsh_lines(&self) -> Option<String> {
        let edge_refusal = self.finding.as_ref().filter(|f| f.rule.is_edge());
        let loads_011 = self.is_ok() || edge_refusal.is_some();
        // DSH 0.1.1 reads only v0 (a v1-v4 header is newer than it).
        let v0 = matches!(self.era, Some(Era::Head | Era::V0Alpha | Era::June2026));
        if !loads_011 || !v0 || self.session.is_some() {
            return None;
        }
        Some(match self.edge.as_ref() {
            Some(f) => {
                // The finding says "DSH 0.1.5 and later refuse to migrate it (<edge>): <what>".
                let (edge, what) = f
                    .message
                    .split_once(" (")
                    .and_then(|(_, rest)| rest.split_once("): "))
                    .unwrap_or(("", &f.message));
                let mut place = f.rule.id().to_owned();
                if let Some(line) = f.line {
                    place.push_str(&format!(" at line {line}"));
                }
                if let Some(seq) = f.seq {
                    place.push_str(&format!(", seq {seq}"));
                }
                format!(
                    "DSH 0.1.1 loads it; DSH 0.1.5+ refuses to migrate it ({edge}, {place}): {what}"
                )
            }
            None => "DSH 0.1.1 loads it; DSH 0.1.5+ migrates it".to_owned(),
        })
    }
}
