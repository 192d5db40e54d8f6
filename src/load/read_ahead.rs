//! The reader thread: reads lines, JSON-checks them and works out packed rows ahead of
//! the scan, in bounded batches (FORMAT.md §7.2, §7.4). The scan folds in order on its own
//! thread and hands each line back here to be freed.

use std::collections::HashSet;
use std::sync::mpsc::{Receiver, SyncSender};

use crate::json::{Document, Json, JsonError, Skips};
use crate::load::line::{Line, LineSource, SourceError};
use crate::load::packed::{PackedSpan, packed_span};

/// Batches in the channel from the reader thread to the scan.
pub(crate) const BATCHES_AHEAD: usize = 2;
/// Lines per batch, and bytes after which a batch is sent early.
pub(crate) const BATCH_LINES: usize = 256;
pub(crate) const BATCH_BYTES: usize = 1 << 20;
/// A batch of at least this many bytes (long lines) is processed before the reader reads
/// on, so that long lines are not held twice: memory stays within one long line.
pub(crate) const BIG_BATCH_BYTES: usize = 16 << 20;

/// What the reader thread works out about a line ahead of the scan.
#[derive(Default)]
pub(crate) struct Prepared {
    /// When the scan will parse the line (a complete line of valid UTF-8): its skip
    /// index, or why it is not JSON.
    pub(crate) parsed: Option<Result<Skips, JsonError>>,
    /// Whether the line is a packed row.
    pub(crate) packed: PackedAhead,
}

/// Whether a line is a packed row, as the reader thread found out.
#[derive(Default)]
pub(crate) enum PackedAhead {
    /// Not looked at (the line was not parsed ahead): the scan looks itself.
    #[default]
    NotRead,
    /// Any other record, or any record in a dialect without packed rows.
    NotPacked,
    /// A packed row: its span, or why it is invalid.
    Row(Result<PackedSpan, String>),
}

/// What the reader thread hands the scan, in input order.
pub(crate) enum ReadAhead {
    /// A line, with what was worked out about it ahead.
    Line(Line, Prepared),
    /// A run of empty lines after an empty line, skipped in bulk
    /// ([`LineSource::skip_empty_lines`]): the first empty line is already a defect, so the
    /// scan only counts the rest.
    EmptyLines(u64),
    /// The source failed; nothing follows.
    Stopped(SourceError),
}

/// The reader thread: reads `lines` and checks each line's JSON, in batches, until the
/// input ends, the source fails, or the scan hangs up. Lines whose leading seq is not in
/// `wanted_seqs` (a view's second pass) are not parsed: the scan counts them unparsed.
pub(crate) fn read_ahead(
    lines: &mut dyn LineSource,
    wanted_seqs: Option<&HashSet<u64>>,
    packed_rows: bool,
    batches: &SyncSender<Vec<ReadAhead>>,
    processed: &Receiver<Vec<(Line, Prepared)>>,
) {
    let mut batch = Vec::new();
    let mut bytes = 0;
    // Batches sent and not yet processed.
    let mut in_flight = 0usize;
    // Lines are read into one buffer that grows once, and handed over in an exact-size
    // copy (growing a new buffer for every line cost more than the copy).
    let mut read = Line::default();
    loop {
        match lines.next_line(&mut read) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                batch.push(ReadAhead::Stopped(e));
                break;
            }
        }
        let fits = read.bytes.capacity() <= 2 * read.bytes.len() + 64;
        let mut line = Line {
            // A long line, or a buffer the source filled exactly, moves instead.
            bytes: if fits || read.bytes.len() > BATCH_BYTES {
                std::mem::take(&mut read.bytes)
            } else {
                read.bytes.as_slice().to_vec()
            },
            defect: read.defect.take(),
            index: read.index.take(),
            ..read
        };
        let unwanted = wanted_seqs
            .is_some_and(|want| leading_seq(&line.bytes).is_some_and(|seq| !want.contains(&seq)));
        let wants_parse = line.terminated && !line.too_long && line.defect.is_none() && !unwanted;
        let mut prepared = Prepared::default();
        if let Some(text) = wants_parse
            .then(|| std::str::from_utf8(&line.bytes).ok())
            .flatten()
        {
            // Decoded with its index (SQLite), or parsed here.
            let parsed = match line.index.take() {
                Some(index) => Ok(index),
                None => Document::parse(text).map(Document::into_skips),
            };
            if let Ok(skips) = &parsed {
                let root = Json::indexed_root(text, skips);
                prepared.packed = match packed_rows.then(|| packed_span(root)) {
                    Some(Some(row)) => PackedAhead::Row(row),
                    _ => PackedAhead::NotPacked,
                };
            }
            prepared.parsed = Some(parsed);
        }
        let empty = line.terminated && line.bytes.is_empty();
        bytes += line.bytes.len();
        batch.push(ReadAhead::Line(line, prepared));
        if empty {
            match lines.skip_empty_lines() {
                Ok(0) => {}
                Ok(n) => batch.push(ReadAhead::EmptyLines(n)),
                Err(e) => {
                    batch.push(ReadAhead::Stopped(e));
                    break;
                }
            }
        }
        if batch.len() >= BATCH_LINES || bytes >= BATCH_BYTES {
            if batches.send(std::mem::take(&mut batch)).is_err() {
                return;
            }
            in_flight += 1;
            in_flight -= processed.try_iter().count();
            if bytes >= BIG_BATCH_BYTES {
                // Wait until the scan is done with every batch sent, the long lines
                // included, before reading more.
                while in_flight > 0 {
                    if processed.recv().is_err() {
                        return;
                    }
                    in_flight -= 1;
                }
            }
            bytes = 0;
        }
    }

    let _ = batches.send(batch);
}

/// The seq of a line written in DSH's own key order, `{"type":"…","seq":N,…`, read without
/// parsing the line; `None` for anything else (packed rows, other key orders, escapes).
pub(crate) fn leading_seq(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(b"{\"type\":\"")?;
    let close = memchr::memchr2(b'"', b'\\', rest)?;
    if rest[close] != b'"' {
        return None;
    }
    let rest = rest[close + 1..].strip_prefix(b",\"seq\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 15 || rest.get(digits) != Some(&b',') {
        return None;
    }
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}
