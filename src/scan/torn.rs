//! The torn tail (FORMAT.md §5.5): what a crash left after the last complete record, and
//! the bookkeeping that tells a torn tail from committed damage while lines stream past.

use crate::load::Line;
use crate::rules::{Finding, Rule};
use crate::wording::count;

/// The torn tail a repair would cut (FORMAT.md §5.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// J2 (a final line without newline), J6 (a defect with no `turn/end` after it) or
    /// Z3 (a torn final zstd frame).
    pub rule: Rule,
    /// Where the cut starts, in bytes from the start of the file (for zstd: the torn
    /// frame's start).
    pub offset: u64,
    /// Bytes that would be removed from the file.
    pub bytes: u64,
    /// First dropped line (1-based, decoded text).
    pub line: u64,
    /// Lines dropped, a final partial line included.
    pub lines: u64,
    /// Events in the dropped lines that decode (packed rows count their members).
    pub events: u64,
    /// zstd only: complete lines of the torn frame that are kept (a repair writes them
    /// again in its new frame, FORMAT.md §5.4).
    pub recovered_lines: u64,
    /// zstd only: bytes at the end of the torn frame that do not decode (the file ends
    /// inside a block or the frame header, or the decoder fails on the frame). When not 0,
    /// `lines` and `events` count only the decodable part: what these bytes held is unknown.
    pub undecodable: u64,
    /// Why the tail is torn, in one line.
    pub message: String,
}

impl TornTail {
    /// The lines and events the cut drops, `(lines, events)`; `None` when that cannot be
    /// counted because part of the tail does not decode (`undecodable` > 0, FORMAT.md §5.5.2).
    pub fn counted(&self) -> Option<(u64, u64)> {
        (self.undecodable == 0).then_some((self.lines, self.events))
    }

    /// For messages when [`TornTail::counted`] is `None`: what is known of the loss, e.g.
    /// `3 lines recovered from the torn frame's decodable part; what its last 295 bytes
    /// held cannot be counted (they do not decode)`, with the decoded lines dropped, if any.
    pub fn uncounted(&self) -> String {
        let dropped = if self.lines > 0 {
            format!(
                ", {} with {} dropped",
                count(self.lines, "decoded line"),
                count(self.events, "event")
            )
        } else {
            String::new()
        };
        format!(
            "{} recovered from the torn frame's decodable part{dropped}; what its last {} held cannot be counted (they do not decode)",
            count(self.recovered_lines, "line"),
            count(self.undecodable, "byte")
        )
    }
}

/// Bookkeeping for the torn-tail rules while lines stream past.
#[derive(Debug, Default)]
pub(crate) struct TornScan {
    pub(crate) first: Option<Defect>,
    /// Lines after the first defect.
    pub(crate) lines: u64,
    /// Decodable events after the first defect.
    pub(crate) events: u64,
    /// End of the last good line, in decoded bytes.
    pub(crate) committed_end: u64,
    /// Number of the line after the last one read.
    pub(crate) next_line: u64,
    /// Lines of a torn zstd frame accepted before any defect.
    pub(crate) recovered_lines: u64,
}

#[derive(Debug)]
pub(crate) struct Defect {
    pub(crate) rule: Rule,
    pub(crate) line: u64,
    pub(crate) seq: Option<u64>,
    pub(crate) events: u64,
    pub(crate) message: String,
    pub(crate) from_torn_frame: bool,
    /// `(expected, found)` for a J4 seq gap.
    pub(crate) seq_gap: Option<(u64, String)>,
}

/// What deciding a torn tail needs to know of the log.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TailContext {
    /// The file's size in bytes, when known.
    pub(crate) size: Option<u64>,
    /// The log is zstd JSONL.
    pub(crate) zstd: bool,
    /// The log is a SQLite session (rows, not lines).
    pub(crate) sqlite: bool,
    /// zstd: where a torn final frame starts.
    pub(crate) torn_frame: Option<u64>,
    /// zstd: bytes of the torn frame that do not decode.
    pub(crate) torn_frame_undecodable: u64,
}

impl TornScan {
    /// What the first defect, if any, means once every line was read (§5.5): nothing, a
    /// torn tail (J2, J6, Z3, Z8, Q8), or corruption inside complete zstd frames (Z7).
    pub(crate) fn decide(self, context: TailContext) -> Result<Option<TornTail>, Finding> {
        let torn = self;
        let size = context.size.unwrap_or(torn.committed_end);
        let tail = match (torn.first, context.torn_frame) {
            (None, None) => return Ok(None),
            (None, Some(at)) => TornTail {
                rule: Rule::Z3,
                offset: at,
                bytes: size.saturating_sub(at),
                line: torn.next_line,
                lines: 0,
                events: 0,
                recovered_lines: torn.recovered_lines,
                undecodable: context.torn_frame_undecodable,
                message: format!(
                    "file ends inside the zstd frame at byte offset {at}; the frame's complete lines are kept"
                ),
            },
            (Some(first), _) if context.zstd && !first.from_torn_frame => {
                // Z7: a defect inside complete frames is corruption even with no turn/end after it.
                let message = format!(
                    "complete frame contains a torn JSONL record: {}",
                    first.message
                );
                return Err(Finding::new(Rule::Z7, first.seq, Some(first.line), message));
            }
            (Some(first), at) => {
                let partial_only = first.rule == Rule::J2 && torn.lines == 0;
                let (rule, offset) = match at {
                    Some(at) => (if partial_only { Rule::Z3 } else { Rule::Z8 }, at),
                    None if context.sqlite => (Rule::Q8, first.line),
                    None => (
                        if partial_only { Rule::J2 } else { Rule::J6 },
                        torn.committed_end,
                    ),
                };
                TornTail {
                    rule,
                    offset,
                    bytes: if rule == Rule::Q8 {
                        0
                    } else {
                        size.saturating_sub(offset)
                    },
                    line: first.line,
                    lines: torn.lines + 1,
                    events: torn.events + first.events,
                    recovered_lines: torn.recovered_lines,
                    undecodable: if at.is_some() {
                        context.torn_frame_undecodable
                    } else {
                        0
                    },
                    message: first.message,
                }
            }
        };
        Ok(Some(tail))
    }

    pub(crate) fn defect(&mut self, line: &Line, events: u64, rule: Rule, message: String) {
        if self.first.is_none() {
            self.first = Some(Defect {
                rule,
                line: line.number,
                seq: None,
                events,
                message,
                from_torn_frame: line.from_torn_frame,
                seq_gap: None,
            });
        }
    }
}

impl Defect {
    /// The J5 (or, for SQLite, Q7) finding for this first defect, once a `turn/end`
    /// shows it is committed.
    pub(crate) fn j5(&self, turn_end_line: u64, sqlite: bool) -> Finding {
        if sqlite {
            let message = format!(
                "invalid committed physical row at seq {}: {}; a turn/end follows at row {turn_end_line}",
                self.line, self.message
            );
            return Finding::new(Rule::Q7, None, Some(self.line), message);
        }
        // The finding names the line; the message says what is there and where the
        // turn/end that commits it is.
        let follows = if turn_end_line == self.line {
            "the line is itself a turn/end".to_owned()
        } else {
            format!("a turn/end follows at line {turn_end_line}")
        };
        let message = match &self.seq_gap {
            Some(_) => format!("{} in the committed region; {follows}", self.message),
            None => format!("unparsable committed event; {follows}"),
        };
        Finding::new(Rule::J5, None, Some(self.line), message)
    }
}
