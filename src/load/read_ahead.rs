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
    /// bytes it found to be UTF-8 (by `std::str::from_utf8`, or by the JSON check's own
    /// UTF-8 check, `Document::index_bytes_into`; [`Prepared::text`] relies on that).
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
        // SAFETY: `parsed` is set only by `read_ahead`, after `std::str::from_utf8` or
        // `Document::index_bytes_into` found exactly these bytes to be UTF-8, and the line travels with this `Prepared` in one
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

/// One item of the input as the scan takes it, borrowed: from a batch of the reader thread
/// ([`ReadAhead`]) or from [`read_inline`].
pub(crate) enum Item<'a> {
    /// As [`ReadAhead::Line`].
    Line(&'a Line, &'a Prepared),
    /// As [`ReadAhead::EmptyLines`].
    EmptyLines(u64),
    /// As [`ReadAhead::Stopped`].
    Stopped(SourceError),
}

/// Works out what the scan needs to know of a line ahead of it: its JSON index (or why it
/// is not JSON) and whether it is a packed row. Keeps the indexes it is given back and its
/// parse scratch space, so that preparing a line allocates nothing.
struct Preparer<'s> {
    /// Lines whose leading seq is not in here (a view's second pass) are not parsed.
    wanted_seqs: Option<&'s HashSet<u64>>,
    packed_rows: bool,
    reuse: Reuse,
}

/// What a [`Preparer`] reuses from line to line.
#[derive(Default)]
struct Reuse {
    skips: Vec<Skips>,
    scratch: ParseScratch,
}

impl Preparer<'_> {
    /// What the scan needs to know of `line` (the index of a SQLite record is taken
    /// from it).
    fn prepare(&mut self, line: &mut Line) -> Prepared {
        let unwanted = self
            .wanted_seqs
            .is_some_and(|want| leading_seq(&line.bytes).is_some_and(|seq| !want.contains(&seq)));
        let wants_parse = line.terminated && !line.too_long && line.defect.is_none() && !unwanted;
        let mut prepared = Prepared::default();
        if !wants_parse {
            return prepared;
        }
        // Decoded with its index (SQLite), or parsed here, with the UTF-8 check in the
        // same pass: `None` when the line is not UTF-8.
        let parsed = if line.index.is_some() {
            // (A record that is not UTF-8 keeps its index, as the line does its bytes.)
            std::str::from_utf8(&line.bytes)
                .is_ok()
                .then(|| line.index.take().map(Ok))
                .flatten()
        } else {
            let mut skips = self.reuse.skips.pop().unwrap_or_default();
            match Document::index_bytes_into(&line.bytes, &mut skips, &mut self.reuse.scratch) {
                Some(verdict) => Some(verdict.map(|()| skips)),
                None => {
                    self.reuse.skips.push(skips);
                    None
                }
            }
        };
        if let Some(parsed) = parsed {
            debug_assert!(std::str::from_utf8(&line.bytes).is_ok());
            // SAFETY: a verdict is given only on bytes found to be UTF-8, just above.
            let text = unsafe { std::str::from_utf8_unchecked(&line.bytes) };
            if let Ok(skips) = &parsed {
                let root = Json::indexed_root(text, skips);
                prepared.packed = match self.packed_rows.then(|| packed_span(root)) {
                    Some(Some(row)) => PackedAhead::Row(row),
                    _ => PackedAhead::NotPacked,
                };
            }
            prepared.parsed = Some(parsed);
        }
        prepared
    }

    /// Keeps the index of a line the scan is done with, unless it is large or enough are
    /// kept already.
    fn take_back(&mut self, prepared: Prepared) {
        if let Some(Ok(skips)) = prepared.parsed
            && skips.capacity_bytes() <= POOLED_INDEX_BYTES
            && self.reuse.skips.len() < POOL_IDLE_INDEXES
        {
            self.reuse.skips.push(skips);
        }
    }
}

/// Inputs up to this many bytes are read by [`read_inline`]: for them, starting a reader
/// thread and handing batches over costs more than the two threads save (a directory of
/// thousands of small sessions is read in parallel by file instead).
pub(crate) const INLINE_BYTES: u64 = 256 << 10;

thread_local! {
    /// The line buffer and the indexes [`read_inline`] reuses, kept from one input to the
    /// next one read on the same thread.
    static INLINE: std::cell::RefCell<(Line, Reuse)> = std::cell::RefCell::default();
}

/// Reads `lines` on the calling thread, preparing each line as [`read_ahead`] does, and
/// tells `each` of every item in input order until it returns false: for small inputs
/// ([`INLINE_BYTES`]). The line buffer and indexes are reused, also across inputs.
pub(crate) fn read_inline(
    lines: &mut dyn LineSource,
    wanted_seqs: Option<&HashSet<u64>>,
    packed_rows: bool,
    each: &mut dyn FnMut(Item<'_>) -> bool,
) {
    let (mut line, reuse) = INLINE.with_borrow_mut(std::mem::take);
    let mut preparer = Preparer {
        wanted_seqs,
        packed_rows,
        reuse,
    };
    loop {
        // Only a SQLite row sets these: what the last line had must not stay.
        line.defect = None;
        line.index = None;
        match lines.next_line(&mut line) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                each(Item::Stopped(e));
                break;
            }
        }
        let prepared = preparer.prepare(&mut line);
        let go_on = each(Item::Line(&line, &prepared));
        preparer.take_back(prepared);
        if !go_on {
            break;
        }
        if line.terminated && line.bytes.is_empty() {
            match lines.skip_empty_lines() {
                Ok(0) => {}
                Ok(n) => {
                    if !each(Item::EmptyLines(n)) {
                        break;
                    }
                }
                Err(e) => {
                    each(Item::Stopped(e));
                    break;
                }
            }
        }
    }
    if line.bytes.capacity() > POOLED_BYTES {
        line.bytes = Vec::new();
    }
    line.index = None;
    INLINE.with_borrow_mut(|kept| *kept = (line, preparer.reuse));
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
    let mut preparer = Preparer {
        wanted_seqs,
        packed_rows,
        reuse: Reuse::default(),
    };
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
        let prepared = preparer.prepare(&mut line);
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
                pool.take_back(done, &mut preparer);
            }
            if bytes >= BIG_BATCH_BYTES {
                // Wait until the scan is done with every batch sent, the long lines
                // included, before reading more.
                while in_flight > 0 {
                    let Ok(done) = processed.recv() else {
                        return;
                    };
                    in_flight -= 1;
                    pool.take_back(done, &mut preparer);
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

/// Line buffers the scan handed back, for the next lines. Each line buffer holds a
/// power-of-two capacity and goes back to its size class, so a buffer never grows and
/// memory stays within twice the bytes in flight plus a bounded idle reserve.
#[derive(Default)]
struct Pool {
    bytes: [Vec<Vec<u8>>; POOL_CLASSES],
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
    fn take_back(&mut self, done: Vec<(Line, Prepared)>, preparer: &mut Preparer<'_>) {
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
            preparer.take_back(prepared);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::Input;

    /// What a scan is told of one item, owned, to compare the two readers.
    fn describe(item: Item<'_>, out: &mut Vec<String>) {
        out.push(match item {
            Item::Line(line, prepared) => {
                let parsed = match prepared.parsed() {
                    None => "unparsed".to_owned(),
                    Some(Ok(skips)) => format!("{} entries", skips.len()),
                    Some(Err(e)) => e.to_string(),
                };
                let packed = match &prepared.packed {
                    PackedAhead::NotRead => "not read".to_owned(),
                    PackedAhead::NotPacked => "not packed".to_owned(),
                    PackedAhead::Row(row) => format!("{:?}", row.as_ref().map(|r| r.seq0)),
                };
                format!(
                    "line {} at {} {:?} terminated {} text {:?}: {parsed}, {packed}",
                    line.number,
                    line.offset,
                    line.bytes,
                    line.terminated,
                    prepared.text(line),
                )
            }
            Item::EmptyLines(n) => format!("{n} empty lines"),
            Item::Stopped(e) => format!("stopped: {e:?}"),
        });
    }

    fn inline(path: &std::path::Path, wanted: Option<&HashSet<u64>>) -> Vec<String> {
        let mut lines = Input::open(path).unwrap().lines(None).unwrap();
        let mut out = Vec::new();
        read_inline(&mut *lines, wanted, true, &mut |item| {
            describe(item, &mut out);
            true
        });
        out
    }

    fn threaded(path: &std::path::Path, wanted: Option<&HashSet<u64>>) -> Vec<String> {
        let mut lines = Input::open(path).unwrap().lines(None).unwrap();
        let (batches, batches_in) = std::sync::mpsc::sync_channel(BATCHES_AHEAD);
        let (processed, processed_in) = std::sync::mpsc::channel();
        let mut out = Vec::new();
        let reader = &mut *lines;
        std::thread::scope(|threads| {
            threads.spawn(move || read_ahead(reader, wanted, true, &batches, &processed_in));
            for batch in batches_in {
                let mut done = Vec::new();
                for item in batch {
                    match item {
                        ReadAhead::Line(line, prepared) => {
                            describe(Item::Line(&line, &prepared), &mut out);
                            done.push((line, prepared));
                        }
                        ReadAhead::EmptyLines(n) => describe(Item::EmptyLines(n), &mut out),
                        ReadAhead::Stopped(e) => describe(Item::Stopped(e), &mut out),
                    }
                }
                let _ = processed.send(done);
            }
        });
        out
    }

    #[test]
    fn small_inputs_read_inline_give_what_the_reader_thread_gives() {
        // Every kind of line: events, a packed row and a broken one, runs of empty lines,
        // invalid UTF-8, text that is not JSON, a CR, and a torn final line; read twice on
        // one thread so that the second read reuses the first one's buffers.
        let mut text = b"{\"type\":\"session\",\"version\":0,\"id\":\"s\"}\n".to_vec();
        text.extend_from_slice(
            b"{\"type\":\"turn/start\",\"seq\":0,\"time\":1,\"data\":{\"turn\":1}}\n",
        );
        text.extend_from_slice(b"{\"type\":\"text-chunks\",\"seq0\":1,\"time0\":2,\"data\":{\"turn\":1,\"step\":1,\"index\":0,\"dt\":[1],\"texts\":[\"a\",\"b\"]}}\n");
        text.extend_from_slice(b"{\"type\":\"text-chunks\",\"seq0\":3}\n\n\n\n");
        text.extend_from_slice(b"{\"type\":\"x\",\"seq\":4,\"data\":\"\xff\xfe\"}\n");
        text.extend_from_slice(b"not json\r\n[1,2]\n\n{\"type\":\"turn/end\",\"seq\":5,");
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("session.jsonl");
        std::fs::write(&path, &text).unwrap();
        let expected = threaded(&path, None);
        assert_eq!(expected.len(), 11, "{expected:#?}");
        assert_eq!(inline(&path, None), expected);
        assert_eq!(inline(&path, None), expected);
        // A second pass that wants one seq parses only that line.
        let wanted = HashSet::from([0]);
        assert_eq!(inline(&path, Some(&wanted)), threaded(&path, Some(&wanted)));
        // zstd: lines of a torn final frame are read the same way too.
        let zpath = tmp.path().join("session.jsonl.zstd");
        let frame = |t: &[u8]| zstd::bulk::compress(t, 3).unwrap();
        let header_end = text.iter().position(|&b| b == b'\n').unwrap() + 1;
        let body = frame(&text[header_end..]);
        let bytes = [frame(&text[..header_end]), body[..body.len() - 3].to_vec()].concat();
        std::fs::write(&zpath, bytes).unwrap();
        assert_eq!(inline(&zpath, None), threaded(&zpath, None));
    }
}
