//! The reader thread: reads lines, JSON-checks them and works out packed rows ahead of
//! the scan, in bounded batches (FORMAT.md §7.2, §7.4). The scan folds in order on its own
//! thread and hands each line back here to be freed.

use std::collections::HashSet;
use std::sync::mpsc::{Receiver, SyncSender};

use crate::json::{Document, Json, JsonError, ParseScratch, Skips};
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
    /// index, or why it is not JSON. Set only by [`read_ahead`], and only for a line whose
    /// bytes it found to be UTF-8 ([`Prepared::text`] relies on that).
    parsed: Option<Result<Skips, JsonError>>,
    /// Whether the line is a packed row.
    pub(crate) packed: PackedAhead,
}

impl Prepared {
    /// The index of the line, or why it is not JSON, when the reader parsed it.
    pub(crate) fn parsed(&self) -> Option<&Result<Skips, JsonError>> {
        self.parsed.as_ref()
    }

    /// The text of `line`, the line this was prepared for, when the reader checked that it
    /// is UTF-8: the scan does not check it a second time.
    pub(crate) fn text<'a>(&self, line: &'a Line) -> Option<&'a str> {
        self.parsed.as_ref()?;
        debug_assert!(std::str::from_utf8(&line.bytes).is_ok());
        // SAFETY: `parsed` is set only by `read_ahead`, after `std::str::from_utf8`
        // accepted exactly these bytes, and the line travels with this `Prepared` in one
        // `ReadAhead::Line` to the scan, which only reads it.
        Some(unsafe { std::str::from_utf8_unchecked(&line.bytes) })
    }
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
    // Lines are read into one buffer that grows once, and handed over in a copy into a
    // buffer the scan gave back (allocating a buffer for every line cost more than the
    // copy); indexes are reused the same way.
    let mut read = Line::default();
    let mut pool = Pool::default();
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
            bytes: if read.bytes.len() <= POOLED_BYTES {
                pool.copy(&read.bytes)
            } else if fits || read.bytes.len() > BATCH_BYTES {
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
                None => {
                    let mut skips = pool.skips.pop().unwrap_or_default();
                    Document::index_into(text, &mut skips, &mut pool.scratch).map(|()| skips)
                }
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
            for done in processed.try_iter() {
                in_flight -= 1;
                pool.take_back(done);
            }
            if bytes >= BIG_BATCH_BYTES {
                // Wait until the scan is done with every batch sent, the long lines
                // included, before reading more.
                while in_flight > 0 {
                    let Ok(done) = processed.recv() else {
                        return;
                    };
                    in_flight -= 1;
                    pool.take_back(done);
                }
            }
            bytes = 0;
        }
    }

    let _ = batches.send(batch);
}

/// Lines up to this many bytes are copied into pooled buffers.
const POOLED_BYTES: usize = 64 << 10;
/// The smallest pooled buffer, in bytes (a power of two, as every pooled size is).
const POOL_MIN: usize = 64;
/// Size classes of pooled buffers: `POOL_MIN << c` bytes for class `c`.
const POOL_CLASSES: usize = (POOLED_BYTES / POOL_MIN).trailing_zeros() as usize + 1;
/// Idle bytes kept per size class, and idle indexes kept.
const POOL_IDLE_BYTES: usize = 1 << 20;
const POOL_IDLE_INDEXES: usize = 4 * BATCH_LINES;
/// Indexes larger than this are freed rather than kept.
const POOLED_INDEX_BYTES: usize = 64 << 10;

/// Buffers and indexes the scan handed back, for the next lines. Each line buffer holds a
/// power-of-two capacity and goes back to its size class, so a buffer never grows and
/// memory stays within twice the bytes in flight plus a bounded idle reserve.
#[derive(Default)]
struct Pool {
    bytes: [Vec<Vec<u8>>; POOL_CLASSES],
    skips: Vec<Skips>,
    scratch: ParseScratch,
}

impl Pool {
    /// The size class of a buffer for `len` bytes (at most [`POOLED_BYTES`]).
    fn class(len: usize) -> usize {
        len.max(POOL_MIN).next_power_of_two().trailing_zeros() as usize
            - POOL_MIN.trailing_zeros() as usize
    }

    /// A copy of `bytes` (at most [`POOLED_BYTES`]) in a pooled buffer.
    fn copy(&mut self, bytes: &[u8]) -> Vec<u8> {
        let class = Self::class(bytes.len());
        let mut buf = self.bytes[class]
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(POOL_MIN << class));
        buf.extend_from_slice(bytes);
        buf
    }

    /// Keeps the buffers and indexes of lines the scan is done with.
    fn take_back(&mut self, done: Vec<(Line, Prepared)>) {
        for (line, prepared) in done {
            let mut buf = line.bytes;
            let cap = buf.capacity();
            if cap.is_power_of_two() && (POOL_MIN..=POOLED_BYTES).contains(&cap) {
                let class = Self::class(cap);
                if self.bytes[class].len() * cap < POOL_IDLE_BYTES {
                    buf.clear();
                    self.bytes[class].push(buf);
                }
            }
            if let Some(Ok(skips)) = prepared.parsed
                && skips.capacity_bytes() <= POOLED_INDEX_BYTES
                && self.skips.len() < POOL_IDLE_INDEXES
            {
                self.skips.push(skips);
            }
        }
    }
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
