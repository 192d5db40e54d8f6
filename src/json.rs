//! Lazy JSON over validated text, with JavaScript `JSON.parse` semantics (FORMAT.md §1.5).
//!
//! DSH writes its logs with `JSON.stringify` and reads them with `JSON.parse`. To report
//! exactly what DSH would, and to print stored values byte for byte, this module never
//! builds a tree: [`validate`] checks a text once, then [`Json`] navigates the validated
//! text on demand and hands out borrowed sub-slices.
//!
//! Semantics kept from JavaScript:
//! * a repeated object key keeps its **last** value ([`Json::get`]);
//! * numbers are IEEE binary64 (`3.0 == 3`, `1e400` is infinite, integers above 2^53 lose
//!   precision) ([`Json::as_f64`]);
//! * strings are sequences of UTF-16 code units, so lone surrogate escapes such as
//!   `\ud800` are valid and compare exactly ([`Json::str_eq`]);
//! * whitespace is space, tab, `\n` and `\r` only; a byte-order mark is an error.
//!
//! One deliberate limit: nesting deeper than [`MAX_DEPTH`] (10,000 levels, far beyond any
//! real log) is refused, so hostile input cannot overflow the stack of the recursive
//! comparisons (S18) that run on validated values.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

mod blocks;

/// Deepest nesting of arrays and objects accepted, counting the outermost value as 1.
pub const MAX_DEPTH: usize = 10_000;

/// Largest integer JavaScript represents exactly (`Number.MAX_SAFE_INTEGER`, 2^53 − 1).
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Why a text is not JSON, with the byte offset (0-based, into the text given) where
/// the parser stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// Byte offset of the offending byte.
    pub offset: usize,
    /// What was wrong, for example `"expected ',' or '}'"`.
    pub what: &'static str,
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.what, self.offset + 1)
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    i
}

/// Checks that `text` is exactly one JSON value, optionally surrounded by whitespace.
///
/// Iterative (no recursion), linear in the text, no allocation beyond a small stack.
///
/// # Errors
/// [`JsonError`] with the offset of the first offending byte.
pub fn validate(text: &str) -> Result<(), JsonError> {
    validate_into(text, None)
}

/// Where the containers and long strings of a validated text end, by where they start,
/// so that skipping over a value is a look-up instead of a scan. Built by
/// [`Document::parse`] in the same pass that validates.
///
/// The entries are in document order (by start offset). Each also holds the position of
/// the first entry after the value it indexes, so that a navigation walking forward (the
/// members of an object, the elements of an array) steps from entry to entry without
/// searching: a [`Json`] carries the position of the first entry at or after its start.
#[derive(Debug, Default, Clone)]
pub struct Skips {
    entries: Vec<Span>,
    /// Every value of the indexed text has an entry (keys, numbers and literals too), so
    /// the members of an indexed container are read from the entries alone.
    complete: bool,
}

/// One indexed value: byte offsets of its first byte and just past its last, and the
/// position in [`Skips::entries`] of the first entry that starts after it.
#[derive(Debug, Default, Clone, Copy)]
struct Span {
    start: u32,
    end: u32,
    next: u32,
}

/// In texts too long for a complete index, strings shorter than this are scanned rather
/// than indexed.
const INDEXED_STRING: usize = 24;

/// Texts up to this many bytes get a complete index (an entry for every value, 12 bytes
/// each); longer ones (hostile lines of tiny values) only their containers and long
/// strings, so an index stays within a few times the size of the text.
const COMPLETE_INDEX_BYTES: usize = 256 << 10;

impl Skips {
    /// The index of a value whose text, at byte `from` of the text indexed, was copied to
    /// byte `to` of another text (entries before `from` are dropped). Empty when the moved
    /// offsets do not fit in u32: an index only speeds navigation up, so an empty one is
    /// always correct.
    pub(crate) fn moved(mut self, from: usize, to: usize) -> Skips {
        let dropped = self.entries.partition_point(|e| (e.start as usize) < from);
        // Entries before `from` end before it too (the value at `from` is whole), so no
        // kept entry's `next` points before the cut.
        self.entries.drain(..dropped);
        let last = self
            .entries
            .iter()
            .map(|e| e.end)
            .max()
            .map_or(0, |e| e as usize);
        let fits = (last + to)
            .checked_sub(from)
            .is_some_and(|e| u32::try_from(e).is_ok());
        if !fits {
            return Skips::default();
        }
        for e in &mut self.entries {
            e.start = (e.start as usize - from + to) as u32;
            e.end = (e.end as usize - from + to) as u32;
            e.next -= dropped as u32;
        }
        self
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Bytes the index holds allocated.
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Span>()
    }

    /// The entry at position `k` when it indexes the value starting at byte `start`.
    #[inline]
    fn at(&self, k: usize, start: usize) -> Option<Span> {
        self.entries
            .get(k)
            .copied()
            .filter(|e| e.start as usize == start)
    }

    /// The position of the first entry that starts at or after byte `at`, from position
    /// `k`, which must not be past it.
    #[inline]
    fn first_from(&self, mut k: usize, at: usize) -> usize {
        while self.entries.get(k).is_some_and(|e| (e.start as usize) < at) {
            k += 1;
        }
        k
    }
}

/// The complete index of a text assembled from pieces (the SQLite reader's record: an
/// envelope written around a row's `data`), built as the text is written, so that the
/// record needs no second check. Entries must be added in text order; offsets are byte
/// offsets into the assembled text. When a piece has no complete index (a text over
/// 256 KiB), or an offset does not fit in u32, [`RecordIndex::finish`] says so and the
/// caller falls back to [`Skips::moved`].
#[derive(Debug)]
pub(crate) struct RecordIndex {
    skips: Skips,
    ok: bool,
}

impl RecordIndex {
    /// An index for a text whose outermost value is an object or array at byte 0, with
    /// room for `entries` entries.
    pub(crate) fn new(entries: usize) -> Self {
        let mut skips = Skips {
            entries: Vec::with_capacity(entries + 1),
            complete: true,
        };
        skips.entries.push(Span::default());
        RecordIndex { skips, ok: true }
    }

    /// Adds a scalar value or key at `start..end`.
    pub(crate) fn scalar(&mut self, start: usize, end: usize) {
        self.ok &= u32::try_from(end).is_ok();
        push_span(&mut self.skips, start, end);
    }

    /// Opens a container at `start`; returns its slot for [`RecordIndex::close`].
    pub(crate) fn open(&mut self, start: usize) -> usize {
        self.skips.entries.push(Span {
            start: start as u32,
            end: 0,
            next: 0,
        });
        self.skips.entries.len() - 1
    }

    /// Closes the container of `slot`, which ends just before byte `end`.
    pub(crate) fn close(&mut self, slot: usize, end: usize) {
        self.ok &= u32::try_from(end).is_ok();
        close_span(&mut self.skips, slot, end);
    }

    /// Adds the value a [`Document::index_into`] indexed at byte `from` of its text, copied
    /// to byte `to` of the assembled text.
    pub(crate) fn value(&mut self, piece: &Skips, from: usize, to: usize) {
        let first = piece.entries.partition_point(|e| (e.start as usize) < from);
        let base = self.skips.entries.len() as u32;
        // The piece's outermost value, at `first`, ends last.
        let fits = piece.entries.get(first).is_some_and(|e| {
            (e.end as usize + to)
                .checked_sub(from)
                .is_some_and(|end| u32::try_from(end).is_ok())
        });
        if !piece.complete || !fits {
            self.ok = false;
            return;
        }
        let shift = |offset: u32| (offset as usize - from + to) as u32;
        self.skips
            .entries
            .extend(piece.entries[first..].iter().map(|e| Span {
                start: shift(e.start),
                end: shift(e.end),
                next: e.next - first as u32 + base,
            }));
    }

    /// The index of the whole text, `len` bytes long; `None` when it could not be built.
    pub(crate) fn finish(mut self, len: usize) -> Option<Skips> {
        if !self.ok || u32::try_from(len).is_err() {
            return None;
        }
        close_span(&mut self.skips, 0, len);
        Some(self.skips)
    }
}

/// True when navigating `text` with `skips` visits the same values and keys as scanning
/// it: a debug check for indexes built by hand ([`RecordIndex`]).
pub(crate) fn index_agrees(text: &str, skips: &Skips) -> bool {
    fn walk<'a>(v: Json<'a>, depth: usize, out: &mut Vec<&'a str>) {
        out.push(v.raw());
        if depth < 64 {
            for (k, x) in v.members() {
                out.push(k.raw());
                walk(x, depth + 1, out);
            }
            for x in v.elements() {
                walk(x, depth + 1, out);
            }
        }
    }
    let (mut indexed, mut scanned) = (Vec::new(), Vec::new());
    walk(Json::indexed_root(text, skips), 0, &mut indexed);
    walk(Json::from_valid(text), 0, &mut scanned);
    indexed == scanned
}

/// Scratch space kept between calls of [`Document::index_into`].
#[derive(Debug, Default)]
pub(crate) struct ParseScratch {
    stack: Vec<(u8, usize)>,
    /// The token positions of the block stage (`blocks`).
    tokens: Vec<u32>,
}

/// A validated JSON text with its [`Skips`]: the fast way to navigate a large value.
#[derive(Debug)]
pub struct Document<'a> {
    text: &'a str,
    skips: Skips,
}

impl<'a> Document<'a> {
    /// Validates `text` (as [`validate`]) and indexes it.
    ///
    /// # Errors
    /// As [`validate`].
    pub fn parse(text: &'a str) -> Result<Self, JsonError> {
        let mut skips = Skips::default();
        Document::index_into(text, &mut skips, &mut ParseScratch::default())?;
        Ok(Document { text, skips })
    }

    /// Validates `text` (as [`validate`]) into `skips`, reusing its allocation and that
    /// of `scratch`: the reader thread's way to index line after line without
    /// allocating. On an error `skips` holds nothing useful.
    pub(crate) fn index_into(
        text: &str,
        skips: &mut Skips,
        scratch: &mut ParseScratch,
    ) -> Result<(), JsonError> {
        blocks::index(text.as_bytes(), false, skips, scratch)
            .expect("a str is UTF-8, so the check gives a verdict")
    }

    /// [`Document::index_into`] for bytes, checking in the same pass that they are UTF-8:
    /// `None` when they are not (then `skips` holds nothing useful), else the verdict on
    /// them as JSON. The reader thread's check of a line.
    pub(crate) fn index_bytes_into(
        bytes: &[u8],
        skips: &mut Skips,
        scratch: &mut ParseScratch,
    ) -> Option<Result<(), JsonError>> {
        blocks::index(bytes, true, skips, scratch)
    }

    /// The index, to send on and use with [`Json::indexed_root`].
    #[cfg(test)]
    pub(crate) fn into_skips(self) -> Skips {
        self.skips
    }

    /// The value.
    pub fn root(&self) -> Json<'_> {
        Json::indexed_root(self.text, &self.skips)
    }
}

fn validate_into(text: &str, skips: Option<&mut Skips>) -> Result<(), JsonError> {
    validate_with(text, skips, &mut Vec::new())
}

/// [`validate`], recording into `skips` (cleared first) where values end. `stack` is
/// scratch space for the open containers, kept between calls to save allocations.
fn validate_with(
    text: &str,
    mut skips: Option<&mut Skips>,
    stack: &mut Vec<(u8, usize)>,
) -> Result<(), JsonError> {
    if text.len() > u32::MAX as usize {
        skips = None;
    }
    // Every value when the text is small enough, else containers and long strings only.
    let complete = text.len() <= COMPLETE_INDEX_BYTES;
    let min_string = if complete { 0 } else { INDEXED_STRING };
    if let Some(sk) = skips.as_deref_mut() {
        sk.entries.clear();
        sk.complete = complete;
    }
    let b = text.as_bytes();
    let err = |offset, what| Err(JsonError { offset, what });
    // Stack of open containers: b'[' or b'{', with their slot in `skips`.
    stack.clear();
    let mut i = skip_ws(b, 0);
    loop {
        // Expect a value at i.
        if i >= b.len() {
            return err(i, "unexpected end of JSON input");
        }
        let start = i;
        match b[i] {
            b'{' | b'[' => {
                if stack.len() >= MAX_DEPTH {
                    return err(i, "nesting deeper than 10000 levels");
                }
                let open = b[i];
                let slot = match skips.as_deref_mut() {
                    Some(sk) => {
                        sk.entries.push(Span {
                            start: i as u32,
                            end: 0,
                            next: 0,
                        });
                        sk.entries.len() - 1
                    }
                    None => 0,
                };
                stack.push((open, slot));
                i = skip_ws(b, i + 1);
                let close = if open == b'{' { b'}' } else { b']' };
                if i < b.len() && b[i] == close {
                    stack.pop();
                    i += 1;
                    if let Some(sk) = skips.as_deref_mut() {
                        close_span(sk, slot, i);
                    }
                } else {
                    if open == b'{' {
                        i = object_key(b, i, skips.as_deref_mut(), min_string)?;
                    }
                    continue;
                }
            }
            b'"' => {
                i = string_end(b, i)?;
                if i - start >= min_string
                    && let Some(sk) = skips.as_deref_mut()
                {
                    push_span(sk, start, i);
                }
            }
            b't' | b'f' | b'n' | b'-' | b'0'..=b'9' => {
                i = match b[i] {
                    b't' => literal(b, i, b"true")?,
                    b'f' => literal(b, i, b"false")?,
                    b'n' => literal(b, i, b"null")?,
                    _ => number_end(b, i)?,
                };
                if complete && let Some(sk) = skips.as_deref_mut() {
                    push_span(sk, start, i);
                }
            }
            _ => return err(i, "unexpected token"),
        }
        // After a value: close containers or move to the next member.
        loop {
            i = skip_ws(b, i);
            let Some(&(top, slot)) = stack.last() else {
                return if i == b.len() {
                    Ok(())
                } else {
                    err(i, "unexpected data after the JSON value")
                };
            };
            let close = if top == b'{' { b'}' } else { b']' };
            if i >= b.len() {
                return err(i, "unexpected end of JSON input");
            }
            if b[i] == close {
                stack.pop();
                i += 1;
                if let Some(sk) = skips.as_deref_mut() {
                    close_span(sk, slot, i);
                }
                continue;
            }
            if b[i] != b',' {
                return err(
                    i,
                    if top == b'{' {
                        "expected ',' or '}'"
                    } else {
                        "expected ',' or ']'"
                    },
                );
            }
            i = skip_ws(b, i + 1);
            if top == b'{' {
                i = object_key(b, i, skips.as_deref_mut(), min_string)?;
            }
            break;
        }
    }
}

/// Indexes the scalar value or key at `start..end`.
#[inline]
fn push_span(sk: &mut Skips, start: usize, end: usize) {
    let next = sk.entries.len() as u32 + 1;
    sk.entries.push(Span {
        start: start as u32,
        end: end as u32,
        next,
    });
}

/// Parses `"key" :` at `i` (whitespace already skipped), indexes the key in `skips` when
/// it is at least `min_string` bytes long, and returns the index after the colon and any
/// whitespace.
fn object_key(
    b: &[u8],
    i: usize,
    skips: Option<&mut Skips>,
    min_string: usize,
) -> Result<usize, JsonError> {
    if i >= b.len() || b[i] != b'"' {
        return Err(JsonError {
            offset: i,
            what: "expected a string key",
        });
    }
    let end = string_end(b, i)?;
    if end - i >= min_string
        && let Some(sk) = skips
    {
        push_span(sk, i, end);
    }
    let i = skip_ws(b, end);
    if i >= b.len() || b[i] != b':' {
        return Err(JsonError {
            offset: i,
            what: "expected ':'",
        });
    }
    Ok(skip_ws(b, i + 1))
}

/// Records where the container indexed at `slot` ends (`end`, just past its closing
/// bracket): every entry pushed since lies inside it.
#[inline]
fn close_span(sk: &mut Skips, slot: usize, end: usize) {
    let next = sk.entries.len() as u32;
    let span = &mut sk.entries[slot];
    span.end = end as u32;
    span.next = next;
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Result<usize, JsonError> {
    if b[i..].starts_with(word) {
        Ok(i + word.len())
    } else {
        Err(JsonError {
            offset: i,
            what: "unexpected token",
        })
    }
}

/// Validates a string starting at the opening quote `b[i]` and returns the index after
/// the closing quote.
fn string_end(b: &[u8], mut i: usize) -> Result<usize, JsonError> {
    let err = |offset, what| Err(JsonError { offset, what });
    i += 1;
    loop {
        i = plain_run_end(b, i);
        let Some(&c) = b.get(i) else {
            return err(i, "unterminated string");
        };
        match c {
            b'"' => return Ok(i + 1),
            b'\\' => match b.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u') => {
                    let hex = b.get(i + 2..i + 6);
                    if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                        return err(i, "bad unicode escape");
                    }
                    i += 6;
                }
                _ => return err(i, "bad escaped character"),
            },
            0..=0x1f => return err(i, "bad control character in string"),
            _ => i += 1,
        }
    }
}

/// The index of the first byte at or after `i` that a string cannot hold as it is: `"`,
/// `\\` or a control character (below 0x20); `b.len()` when there is none.
///
/// Sixteen bytes at a time with SSE2 on x86-64 (part of the architecture), else
/// eight at a time in a `u64` ([`plain_run_end_words`]); a test checks both against a
/// byte-by-byte scan on every byte value at every position.
#[inline]
fn plain_run_end(b: &[u8], i: usize) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: compiled only where SSE2 is enabled for the whole program.
        unsafe { plain_run_end_sse2(b, i) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        plain_run_end_words(b, i)
    }
}

/// [`plain_run_end`] with SSE2: per 16 bytes, compare with `"` and `\\`, and find the
/// bytes at most 0x1f as those equal to their unsigned minimum with 0x1f; the lowest bit
/// of the mask is the first such byte. The last bytes (under 16) go to the word scan.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn plain_run_end_sse2(b: &[u8], mut i: usize) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // With SSE2 enabled these intrinsics are safe to call; only the load, which takes a
    // pointer, needs `unsafe`.
    let quote = _mm_set1_epi8(b'"' as i8);
    let backslash = _mm_set1_epi8(b'\\' as i8);
    let control = _mm_set1_epi8(0x1f);
    while let Some(chunk) = b.get(i..i + 16) {
        let chunk: &[u8; 16] = chunk.try_into().expect("16 bytes");
        // SAFETY: `chunk` is 16 readable bytes; `_mm_loadu_si128` allows any alignment.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
        let special = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
            _mm_cmpeq_epi8(_mm_min_epu8(v, control), v),
        );
        let mask = _mm_movemask_epi8(special) as u32;
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    plain_run_end_words(b, i)
}

/// [`plain_run_end`] without SIMD instructions: eight bytes at a time (SWAR): a byte is flagged in a word when it equals `"` or `\\` or
/// is below 0x20. The borrows of the subtraction can only flag bytes *after* a truly flagged
/// byte, so the lowest flagged byte of a word is always a true one.
#[inline]
fn plain_run_end_words(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const QUOTES: u64 = u64::from_ne_bytes([b'"'; 8]);
    const BACKSLASHES: u64 = u64::from_ne_bytes([b'\\'; 8]);
    const SPACES: u64 = u64::from_ne_bytes([0x20; 8]);
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let flagged =
            (zero_byte(w ^ QUOTES) | zero_byte(w ^ BACKSLASHES) | (w.wrapping_sub(SPACES) & !w))
                & HIGHS;
        if flagged != 0 {
            return i + (flagged.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while b
        .get(i)
        .is_some_and(|&c| c >= 0x20 && c != b'"' && c != b'\\')
    {
        i += 1;
    }
    i
}

fn number_end(b: &[u8], mut i: usize) -> Result<usize, JsonError> {
    let start = i;
    let err = |offset| {
        Err(JsonError {
            offset,
            what: "bad number",
        })
    };
    if b[i] == b'-' {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        _ => return err(start),
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return err(i);
        }
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return err(i);
        }
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    Ok(i)
}

/// Where the value at byte `i` of `b` (a validated text) ends, and the position of the
/// first index entry after it: looked up when the entry at position `k` of `skips` indexes
/// the value (`base` is the offset of `b` in the indexed text), scanned otherwise.
#[inline]
fn skip_value(b: &[u8], i: usize, skips: Option<&Skips>, base: usize, k: usize) -> (usize, usize) {
    match skips {
        Some(sk) => match sk.at(k, base + i) {
            Some(span) => (span.end as usize - base, span.next as usize),
            None => {
                let end = value_end(b, i);
                (end, sk.first_from(k, base + end))
            }
        },
        None => (value_end(b, i), k),
    }
}

/// Returns the index just past the value that starts at `b[i]`, for text already validated.
fn value_end(b: &[u8], i: usize) -> usize {
    match b[i] {
        b'"' => string_token_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = string_token_end(b, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            b.len()
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']') && !is_ws(b[j]) {
                j += 1;
            }
            j
        }
    }
}

/// The index just past the closing quote of the validated string token at `b[i]`: an
/// escape is a backslash and at least one more byte, none of them a quote that ends it.
#[inline]
fn string_token_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    // Short strings (most keys) byte by byte; then a quote or backslash at a time.
    let short = b.len().min(j + 32);
    while j < short {
        match b[j] {
            b'"' => return j + 1,
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
    while j < b.len() {
        match memchr::memchr2(b'"', b'\\', &b[j..]) {
            Some(k) if b[j + k] == b'"' => return j + k + 1,
            Some(k) => j += k + 2,
            None => return b.len(),
        }
    }
    b.len()
}

/// The JSON type of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `null`
    Null,
    /// `true` or `false`
    Bool,
    /// any number
    Number,
    /// a string
    String,
    /// an array
    Array,
    /// an object
    Object,
}

impl Kind {
    /// The name JavaScript programmers use for the kind, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "a boolean",
            Kind::Number => "a number",
            Kind::String => "a string",
            Kind::Array => "an array",
            Kind::Object => "an object",
        }
    }
}

/// A borrowed, already validated JSON value: exactly the bytes of the value, without
/// surrounding whitespace.
///
/// Construct one with [`Json::parse`]; navigation never fails because the text is valid.
#[derive(Clone, Copy)]
pub struct Json<'a> {
    raw: &'a str,
    /// The skip index of the document this value is part of, if any.
    skips: Option<&'a Skips>,
    /// Offset of `raw` in the indexed document.
    base: usize,
    /// Position in `skips` of the first entry that starts at or after `base`.
    cursor: usize,
}

impl PartialEq for Json<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl Eq for Json<'_> {}

impl std::fmt::Debug for Json<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.raw)
    }
}

impl<'a> Json<'a> {
    /// Validates `text` (one value, whitespace around it allowed) and returns the value.
    ///
    /// # Errors
    /// [`JsonError`] when `text` is not JSON as `JSON.parse` reads it, or nests deeper
    /// than [`MAX_DEPTH`].
    pub fn parse(text: &'a str) -> Result<Self, JsonError> {
        validate(text)?;
        Ok(Json {
            raw: text.trim_matches(|c| [' ', '\t', '\n', '\r'].contains(&c)),
            skips: None,
            base: 0,
            cursor: 0,
        })
    }

    /// The value of a text [`Document::parse`] validated and indexed (the index kept apart
    /// from the text, for example handed over by another thread).
    pub(crate) fn indexed_root(text: &'a str, skips: &'a Skips) -> Self {
        debug_assert!(validate(text).is_ok(), "indexed_root on invalid JSON");
        let start = text.len()
            - text
                .trim_start_matches(|c| [' ', '\t', '\n', '\r'].contains(&c))
                .len();
        let raw = text[start..].trim_end_matches(|c| [' ', '\t', '\n', '\r'].contains(&c));
        Json {
            raw,
            skips: Some(skips),
            base: start,
            cursor: 0,
        }
    }

    /// Wraps text the caller built from valid JSON pieces, without validating it again.
    /// For this crate's own constructions (legacy conversions, expanded rows, derived
    /// messages); debug builds check the promise.
    pub fn from_valid(text: &'a str) -> Self {
        debug_assert!(validate(text).is_ok(), "from_valid on invalid JSON: {text}");
        Json {
            raw: text.trim_matches(|c| [' ', '\t', '\n', '\r'].contains(&c)),
            skips: None,
            base: 0,
            cursor: 0,
        }
    }

    /// Looks up several keys of an object in one pass over its members, with the
    /// last-one-wins rule of [`Json::get`]. `[None; N]` for a non-object.
    pub fn lookup<const N: usize>(self, keys: [&str; N]) -> [Option<Json<'a>>; N] {
        let mut found = [None; N];
        if let Some(names) = self.indexed_keys() {
            for (name, at) in names {
                if let Some(i) = keys.iter().position(|key| body_eq(name, key)) {
                    found[i] = Some(self.indexed_at(at));
                }
            }
            return found;
        }
        for (k, v) in self.members() {
            if let Some(i) = key_index(k, &keys) {
                found[i] = Some(v);
            }
        }
        found
    }

    /// The values of an object whose distinct keys are exactly `keys` (in any order, last
    /// duplicate wins), in the order of `keys`; `None` when a key is missing or another key
    /// is present, or for a non-object. One pass, no allocation. `keys`: distinct, fewer
    /// than 64.
    pub fn exact_keys<const N: usize>(self, keys: [&str; N]) -> Option<[Json<'a>; N]> {
        debug_assert!(N < 64, "a bit per key");
        if self.kind() != Kind::Object {
            return None;
        }
        let mut found = [self; N];
        let mut seen = 0u64;
        for (k, v) in self.members() {
            let i = key_index(k, &keys)?;
            found[i] = v;
            seen |= 1 << i;
        }
        (seen == (1u64 << N) - 1).then_some(found)
    }

    /// The exact bytes of the value as stored.
    pub fn raw(self) -> &'a str {
        self.raw
    }

    /// The value's JSON type.
    pub fn kind(self) -> Kind {
        match self.raw.as_bytes()[0] {
            b'n' => Kind::Null,
            b't' | b'f' => Kind::Bool,
            b'"' => Kind::String,
            b'[' => Kind::Array,
            b'{' => Kind::Object,
            _ => Kind::Number,
        }
    }

    /// True for `null`.
    pub fn is_null(self) -> bool {
        self.kind() == Kind::Null
    }

    /// True for an object (what JavaScript calls a non-null, non-array object).
    pub fn is_object(self) -> bool {
        self.kind() == Kind::Object
    }

    /// True for an array.
    pub fn is_array(self) -> bool {
        self.kind() == Kind::Array
    }

    /// The boolean, for `true`/`false`.
    pub fn as_bool(self) -> Option<bool> {
        match self.raw {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    /// The number as JavaScript reads it (binary64; may be infinite), for numbers.
    pub fn as_f64(self) -> Option<f64> {
        if self.kind() != Kind::Number {
            return None;
        }
        self.raw.parse::<f64>().ok()
    }

    /// The value as a safe integer (`Number.isSafeInteger`), so `3.0` gives 3 and `-0`
    /// gives 0.
    pub fn as_safe_integer(self) -> Option<i64> {
        if let Some(n) = self.small_integer() {
            return Some(n);
        }
        let n = self.as_f64()?;
        (n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER).then_some(n as i64)
    }

    /// The fast path of reading a number: a number written as plain digits, at most 15
    /// of them (below 2^53, so exact in binary64), read without a float parse; `None` for
    /// any other spelling (`1.0`, `1e3`, longer), which the float parse reads.
    #[inline]
    fn small_integer(self) -> Option<i64> {
        let raw = self.raw.as_bytes();
        let negative = raw[0] == b'-';
        let digits = &raw[usize::from(negative)..];
        if digits.is_empty() || digits.len() > 15 || (digits[0] == b'0' && digits.len() > 1) {
            return None;
        }
        // One pass: each byte is tested and added in the same step.
        let mut n = 0i64;
        for &b in digits {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            n = n * 10 + i64::from(d);
        }
        Some(if negative { -n } else { n })
    }

    /// The value as a non-negative safe integer.
    pub fn as_seq(self) -> Option<u64> {
        self.as_safe_integer().and_then(|n| u64::try_from(n).ok())
    }

    /// True when the number is written as negative zero (`-0`, `-0.0`, `-0e5`).
    pub fn is_negative_zero(self) -> bool {
        // Only a number written with a minus can be one: no float parse for the others
        // (the counts every event carries).
        self.raw.starts_with('-')
            && self
                .as_f64()
                .is_some_and(|n| n == 0.0 && n.is_sign_negative())
    }

    /// Iterates over an object's members in stored order, duplicates included, as
    /// `(key, value)` where `key` is the raw string token including quotes.
    /// Empty for anything but an object.
    pub fn members(self) -> Members<'a> {
        Members(self.children(Kind::Object))
    }

    /// The cursor over this value's children when it is a container of `kind`; one at
    /// its end (no children) otherwise.
    fn children(self, kind: Kind) -> Children<'a> {
        Children {
            raw: self.raw,
            pos: if self.kind() == kind {
                1
            } else {
                self.raw.len()
            },
            skips: self.skips,
            base: self.base,
            k: self.inner_cursor(),
            tape_end: self.tape_end(kind),
        }
    }

    /// The index position of the first entry inside this value: past its own entry.
    fn inner_cursor(self) -> usize {
        match self.skips {
            Some(sk) if sk.at(self.cursor, self.base).is_some() => self.cursor + 1,
            _ => self.cursor,
        }
    }

    /// For a container of a complete index: the position of the first entry after it
    /// (its children are the entries before), so they are read without scanning.
    #[inline]
    fn tape_end(self, kind: Kind) -> Option<usize> {
        if self.kind() != kind {
            return None;
        }
        let sk = self.skips.filter(|sk| sk.complete)?;
        sk.at(self.cursor, self.base).map(|span| span.next as usize)
    }

    /// Iterates over an array's elements. Empty for anything but an array.
    pub fn elements(self) -> Elements<'a> {
        Elements(self.children(Kind::Array))
    }

    /// The value of `key` in an object, with `JSON.parse`'s last-one-wins rule for
    /// repeated keys. `None` when absent or when `self` is not an object.
    pub fn get(self, key: &str) -> Option<Json<'a>> {
        if let Some(keys) = self.indexed_keys() {
            // Every name the checks look up is plain: its backslash test is done once here,
            // not for each key of the same length.
            let at = if has_backslash(key.as_bytes()) {
                keys.filter(|&(name, _)| body_eq(name, key)).last()?.1
            } else {
                keys.filter(|&(name, _)| plain_body_eq(name, key)).last()?.1
            };
            return Some(self.indexed_at(at));
        }
        let mut found = None;
        for (k, v) in self.members() {
            if k.str_eq(key) {
                found = Some(v);
            }
        }
        found
    }

    /// The keys of an object in stored order, duplicates included, each as the inside of
    /// its string token (escapes kept), to compare with [`key_is`]: read from the index
    /// without building a value per member when the object has a complete one (checking
    /// an object's member names costs a few instructions a member). Empty for anything
    /// but an object.
    pub fn key_bodies(self) -> impl Iterator<Item = &'a [u8]> {
        /// The keys from the index, or from a scan of the members: one branch a key
        /// rather than a chain of optional iterators.
        enum Keys<I, M> {
            Indexed(I),
            Scanned(M),
        }
        impl<'a, I, M> Iterator for Keys<I, M>
        where
            I: Iterator<Item = (&'a [u8], usize)>,
            M: Iterator<Item = (Json<'a>, Json<'a>)>,
        {
            type Item = &'a [u8];
            #[inline]
            fn next(&mut self) -> Option<&'a [u8]> {
                match self {
                    Keys::Indexed(keys) => keys.next().map(|(name, _)| name),
                    Keys::Scanned(members) => members
                        .by_ref()
                        .find_map(|(k, _)| k.raw_str_body().map(str::as_bytes)),
                }
            }
        }
        match self.indexed_keys() {
            Some(keys) => Keys::Indexed(keys),
            None => Keys::Scanned(self.members()),
        }
    }

    /// For an object of a complete index: its keys, each as the inside of its string token,
    /// with the index position of its value (a key is a scalar, so its value is the next
    /// entry); read from the index and compared as bytes, without building a value for each
    /// key. `None` for anything else.
    #[inline]
    fn indexed_keys(self) -> Option<impl Iterator<Item = (&'a [u8], usize)>> {
        let (end, sk) = self.tape_end(Kind::Object).zip(self.skips)?;
        let (text, base) = (self.raw.as_bytes(), self.base);
        let mut k = self.cursor + 1;
        Some(std::iter::from_fn(move || {
            if k >= end {
                return None;
            }
            let span = sk.entries[k];
            let token = &text[span.start as usize - base..span.end as usize - base];
            let at = span.next as usize;
            k = sk.entries[at].next as usize;
            Some((&token[1..token.len() - 1], at))
        }))
    }

    /// The value at index position `at`, inside this indexed value.
    #[inline]
    fn indexed_at(self, at: usize) -> Json<'a> {
        let sk = self.skips.expect("an indexed value");
        indexed(self.raw, self.base, sk, at).0
    }

    /// True when an object has `key` (any value, `null` included).
    pub fn has(self, key: &str) -> bool {
        if let Some(mut keys) = self.indexed_keys() {
            return keys.any(|(name, _)| body_eq(name, key));
        }
        self.members().any(|(k, _)| k.str_eq(key))
    }

    /// The distinct keys of an object, each once, in first-appearance order (the order
    /// JavaScript gives them after `JSON.parse`).
    pub fn keys(self) -> Vec<Json<'a>> {
        let mut keys: Vec<Json<'a>> = Vec::new();
        for (k, _) in self.members() {
            if !keys.iter().any(|seen| seen.same_string(k)) {
                keys.push(k);
            }
        }
        keys
    }

    /// Number of elements of an array (0 for anything else).
    pub fn len(self) -> usize {
        self.elements().count()
    }

    /// True for an empty array or object, or a non-container.
    pub fn is_empty(self) -> bool {
        self.members().next().is_none() && self.elements().next().is_none()
    }

    /// UTF-16 code units of a string value (escapes decoded). Empty for non-strings.
    pub fn code_units(self) -> CodeUnits<'a> {
        let inner = if self.kind() == Kind::String {
            &self.raw[1..self.raw.len() - 1]
        } else {
            ""
        };
        CodeUnits {
            rest: inner.as_bytes(),
            pending: None,
        }
    }

    /// The string's inner text exactly as stored (escapes kept, quotes removed).
    pub fn raw_str_body(self) -> Option<&'a str> {
        (self.kind() == Kind::String).then(|| &self.raw[1..self.raw.len() - 1])
    }

    /// True when `self` is a string equal, code unit for code unit, to `s`.
    #[inline]
    pub fn str_eq(self, s: &str) -> bool {
        if self.kind() != Kind::String {
            return false;
        }
        body_eq(&self.raw.as_bytes()[1..self.raw.len() - 1], s)
    }

    /// True when both are strings with the same code units.
    pub fn same_string(self, other: Json<'_>) -> bool {
        self.kind() == Kind::String
            && other.kind() == Kind::String
            && (self.raw == other.raw || self.code_units().eq(other.code_units()))
    }

    /// The decoded string, with lone surrogates shown as U+FFFD (for display and
    /// look-ups; use [`Json::str_eq`] or [`Json::same_string`] for exact comparison).
    pub fn as_str(self) -> Option<Cow<'a, str>> {
        let body = self.raw_str_body()?;
        if !body.contains('\\') {
            return Some(Cow::Borrowed(body));
        }
        Some(Cow::Owned(
            char::decode_utf16(self.code_units())
                .map(|r| r.unwrap_or('\u{FFFD}'))
                .collect(),
        ))
    }

    /// The value of the member whose key is the same string as `key` (a key token of this
    /// or another object; last duplicate wins). `None` when absent or not an object.
    pub fn get_by_key(self, key: Json<'_>) -> Option<Json<'a>> {
        let mut found = None;
        for (k, v) in self.members() {
            if k.same_string(key) {
                found = Some(v);
            }
        }
        found
    }

    /// True when the object's distinct keys are exactly `keys` (in any order).
    pub fn has_exactly_keys(self, keys: &[&str]) -> bool {
        debug_assert!(keys.len() < 64, "a bit per key");
        let mut seen = 0u64;
        let all_known = self.kind() == Kind::Object
            && self
                .members()
                .all(|(k, _)| key_index(k, keys).map(|i| seen |= 1 << i).is_some());
        all_known && seen == (1u64 << keys.len()) - 1
    }

    /// True for a string with at least one code unit.
    pub fn is_nonempty_string(self) -> bool {
        self.kind() == Kind::String && self.raw.len() > 2
    }

    /// JavaScript-style deep equality: objects compare by key set (order ignored, last
    /// duplicate wins), arrays element-wise, numbers by value, strings by code units.
    ///
    /// `null_at`, when given, is a path of keys and indices (as strings) whose value is
    /// treated as `null` on both sides, as FORMAT.md §3.2 S18 prescribes for
    /// `message.content[0].content`. The reference [`canonical_hash`] is tested against;
    /// the checks themselves compare hashes.
    #[cfg(test)]
    pub fn deep_eq(self, other: Json<'_>, null_at: &[&str]) -> bool {
        deep_eq_inner(self, other, top_path(null_at))
    }
}

/// How many member names a [`Fields`] record keeps.
const FIELDS: usize = 36;

/// The member names a [`Fields`] record keeps, by slot: the members the stage checks, the
/// frozen edges, the message shapes and the fold read of an event's `data`, its message,
/// a message's `source` and content blocks.
const FIELD_NAMES: [&str; FIELDS] = [
    "turn",
    "step",
    "message",
    "content",
    "role",
    "id",
    "source",
    "type",
    "text",
    "kind",
    "callId",
    "name",
    "arguments",
    "toolCallId",
    "isError",
    "usage",
    "chunk",
    "reason",
    "header",
    "provider",
    "model",
    "interrupted",
    "error",
    "commandId",
    "compactionId",
    "sourceCommandId",
    "inherited",
    "target",
    "inserted",
    "messages",
    "retryId",
    "retry",
    "plugin",
    "trigger",
    "version",
    "config",
];

/// Where a member name's slot is looked up in [`FIELD_SLOTS`]: from its length and its
/// first and last bytes, distinct for every name of [`FIELD_NAMES`] (checked when this
/// crate is compiled).
#[inline(always)]
const fn field_hash(name: &[u8]) -> usize {
    (name.len() + name[0] as usize * 7 + name[name.len() - 1] as usize * 30) & 127
}

/// By [`field_hash`], the slot of the name there plus one (0: no name).
const FIELD_SLOTS: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut i = 0;
    while i < FIELDS {
        let at = field_hash(FIELD_NAMES[i].as_bytes());
        assert!(table[at] == 0, "two field names share a hash");
        table[at] = i as u8 + 1;
        i += 1;
    }
    table
};

/// [`field_slot`] in a constant: for the member lists whose masks are made when this crate
/// is compiled ([`SlotMask::of`]).
const fn const_field_slot(name: &[u8]) -> Option<usize> {
    if name.is_empty() {
        return None;
    }
    let at = FIELD_SLOTS[field_hash(name)];
    if at == 0 {
        return None;
    }
    let slot = (at - 1) as usize;
    let want = FIELD_NAMES[slot].as_bytes();
    if want.len() != name.len() {
        return None;
    }
    let mut i = 0;
    while i < name.len() {
        if want[i] != name[i] {
            return None;
        }
        i += 1;
    }
    Some(slot)
}

/// The slots of a list of member names, a bit each, made when this crate is compiled: an
/// exact member list as [`Fields::has_exactly`] checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotMask {
    /// A bit per slot of a name of the list.
    bits: u64,
    /// Some name of the list has no slot.
    unslotted: bool,
}

impl SlotMask {
    /// The mask of `names` (a constant: `const { SlotMask::of(&["type", "text"]) }`).
    pub const fn of(names: &[&str]) -> SlotMask {
        let mut mask = SlotMask {
            bits: 0,
            unslotted: false,
        };
        let mut i = 0;
        while i < names.len() {
            match const_field_slot(names[i].as_bytes()) {
                Some(slot) => mask.bits |= 1 << slot,
                None => mask.unslotted = true,
            }
            i += 1;
        }
        mask
    }
}

/// The slot of a member name of [`FIELD_NAMES`], compared as bytes (a name with an escape
/// never matches: the record leaves such objects to [`Json::get`]): one table look-up and
/// one comparison. Always inlined so that a look-up by a constant name folds to its slot.
#[inline(always)]
fn field_slot(name: &[u8]) -> Option<usize> {
    if name.is_empty() {
        return None;
    }
    let slot = usize::from(FIELD_SLOTS[field_hash(name)].checked_sub(1)?);
    bytes_eq(name, FIELD_NAMES[slot].as_bytes()).then_some(slot)
}

/// The members of one object that the checks and the fold read, found in one pass over
/// the object's index: the fixed record of an event's `data` or message, so that the
/// stages after the first read a member by its slot instead of walking the object's keys
/// again for each name.
///
/// [`Fields::get`] is exactly [`Json::get`] (last repeated key wins, keys compared code
/// unit by code unit): a name the record does not keep, an object without a complete index
/// (a value this crate built, a line over 256 KiB) or one with an escaped key is looked up
/// by [`Json::get`] itself.
#[derive(Clone, Copy, Default)]
pub struct Fields<'a> {
    object: Option<Json<'a>>,
    /// By slot, the index position of the member's value (0: absent; no value of a member
    /// sits at position 0, the first entry of a document); `None`: every look-up goes to
    /// [`Json::get`] (as for a value past position 65,535 of its document).
    slots: Option<[u16; FIELDS]>,
    /// With `slots`: a bit per slot whose name is present, so that an exact member list
    /// is checked as two masks ([`Fields::has_exactly`]).
    present: u64,
    /// With `slots`: some member's name has no slot.
    others: bool,
    /// With `slots`: `turn` and `step` as [`Json::as_safe_integer`] reads them, read once
    /// for every stage ([`NO_INTEGER`]: absent or not a safe integer).
    integers: [i64; 2],
}

/// In [`Fields`]' integers: no safe integer (below -2^53, so never a value).
const NO_INTEGER: i64 = i64::MIN;

impl std::fmt::Debug for Fields<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fields")
            .field("object", &self.object)
            .field("recorded", &self.slots.is_some())
            .finish()
    }
}

impl<'a> Fields<'a> {
    /// The record of `value` (any value or none; only an object has members): one pass
    /// over its keys in the index. Inlined, so that a record is written where it is kept
    /// (an event's `Logical`) rather than copied there.
    #[inline]
    pub fn of(value: Option<Json<'a>>) -> Self {
        let mut present = 0u64;
        let mut others = false;
        let slots = value.and_then(|v| {
            let mut slots = [0u16; FIELDS];
            if v.kind() != Kind::Object {
                return Some(slots);
            }
            for (name, at) in v.indexed_keys()? {
                match field_slot(name) {
                    // A later repeat overwrites: the last one wins, as in `JSON.parse`.
                    Some(i) => {
                        slots[i] = u16::try_from(at).ok()?;
                        present |= 1 << i;
                    }
                    // An escaped key may spell a kept name: leave the object to `get`.
                    None if has_backslash(name) => return None,
                    None => others = true,
                }
            }
            Some(slots)
        });
        let mut integers = [NO_INTEGER; 2];
        if let (Some(slots), Some(object)) = (slots, value) {
            for (slot, integer) in integers.iter_mut().enumerate() {
                if slots[slot] != 0 {
                    *integer = object
                        .indexed_at(usize::from(slots[slot]))
                        .as_safe_integer()
                        .unwrap_or(NO_INTEGER);
                }
            }
        }
        Fields {
            object: value,
            slots,
            present,
            others,
            integers,
        }
    }

    /// The value of `key` as [`Json::as_safe_integer`] reads it; `turn` and `step` (slots
    /// 0 and 1) read once when the record was made.
    #[inline(always)]
    pub fn safe_integer(&self, key: &str) -> Option<i64> {
        match (self.slots.is_some(), field_slot(key.as_bytes())) {
            (true, Some(slot @ (0 | 1))) => {
                let n = self.integers[slot];
                (n != NO_INTEGER).then_some(n)
            }
            _ => self.get(key).and_then(Json::as_safe_integer),
        }
    }

    /// The value of `key` as [`Json::as_seq`] reads it (a non-negative safe integer), from
    /// [`Fields::safe_integer`].
    #[inline(always)]
    pub fn seq(&self, key: &str) -> Option<u64> {
        self.safe_integer(key).and_then(|n| u64::try_from(n).ok())
    }

    /// Whether the object's distinct member names are exactly those of `required` and any
    /// of `optional`, decided from the record's mask of present slots without comparing a
    /// key (the lists' masks made when this crate was compiled): `Some(true)` or
    /// `Some(false)` when every member's name has a slot, `None` when the record cannot tell
    /// (a name without a slot, an object left to [`Json::get`], a value not an object).
    #[inline]
    pub fn has_exactly(&self, required: SlotMask, optional: SlotMask) -> Option<bool> {
        if self.slots.is_none() || self.others || !self.object?.is_object() {
            return None;
        }
        // Every member has a slot: a required name without one is missing.
        Some(
            !required.unslotted
                && self.present & required.bits == required.bits
                && self.present & !(required.bits | optional.bits) == 0,
        )
    }

    /// The value the record is of.
    pub fn value(&self) -> Option<Json<'a>> {
        self.object
    }

    /// The value of `key`, as [`Json::get`] gives it on [`Fields::value`]; `None` without a
    /// value.
    #[inline(always)]
    pub fn get(&self, key: &str) -> Option<Json<'a>> {
        let object = self.object?;
        match (self.slots, field_slot(key.as_bytes())) {
            (Some(slots), Some(i)) => {
                let at = slots[i];
                (at != 0).then(|| object.indexed_at(usize::from(at)))
            }
            _ => object.get(key),
        }
    }
}

impl<'a> Json<'a> {
    /// For an object of a complete index: its members in stored order, duplicates
    /// included, each as the inside of its key's string token (escapes kept) and its value,
    /// read from the index without scanning the text; `None` for anything else.
    #[inline]
    pub fn indexed_members(self) -> Option<impl Iterator<Item = (&'a [u8], Json<'a>)>> {
        let keys = self.indexed_keys()?;
        Some(keys.map(move |(name, at)| (name, self.indexed_at(at))))
    }
}

/// `None`: not on the nulled path; `Some(rest)`: on it with `rest` to go, `Some([])`: this
/// value counts as `null`.
type NullPath<'p> = Option<&'p [&'p str]>;

fn top_path<'p>(null_at: &'p [&'p str]) -> NullPath<'p> {
    (!null_at.is_empty()).then_some(null_at)
}

#[cfg(test)]
fn deep_eq_inner(a: Json<'_>, b: Json<'_>, path: NullPath<'_>) -> bool {
    if path == Some(&[][..]) {
        return true;
    }
    if a.kind() != b.kind() {
        return false;
    }
    match a.kind() {
        Kind::Null => true,
        Kind::Bool => a.raw == b.raw,
        Kind::Number => a.as_f64() == b.as_f64(),
        Kind::String => a.same_string(b),
        Kind::Array => {
            a.len() == b.len()
                && a.elements()
                    .zip(b.elements())
                    .enumerate()
                    .all(|(i, (x, y))| {
                        deep_eq_inner(x, y, path.and_then(|p| sub_path(p, &i.to_string())))
                    })
        }
        Kind::Object => {
            let ka = a.keys();
            let kb = b.keys();
            ka.len() == kb.len()
                && ka.iter().all(|k| {
                    let (Some(x), Some(y)) = (a.get_by_key(*k), b.get_by_key(*k)) else {
                        return false;
                    };
                    let name = k.as_str().unwrap_or_default();
                    deep_eq_inner(x, y, path.and_then(|p| sub_path(p, &name)))
                })
        }
    }
}

/// Follows `null_at` one step: `Some(rest)` when `step` is the next path element.
fn sub_path<'p>(null_at: &'p [&'p str], step: &str) -> Option<&'p [&'p str]> {
    match null_at.split_first() {
        Some((first, rest)) if *first == step => Some(rest),
        _ => None,
    }
}

/// A 128-bit hash of a value's canonical form, so that two values are deep-equal (in the
/// sense of `deep_eq`, with the same `null_at`) exactly when, barring a 2^-128
/// collision, their hashes are equal. Lets the surface fold remember a shadowable
/// `tool/result` in 16 bytes instead of its whole payload (FORMAT.md §3.2 S18).
///
/// The hashes are compared within one run only (never stored), so the canonical form
/// may change between versions.
pub fn canonical_hash(v: Json<'_>, null_at: &[&str]) -> u128 {
    CANONICAL.with_borrow_mut(|canonical| {
        canonical.clear();
        write_canonical(v, top_path(null_at), canonical, &mut Vec::with_capacity(16));
        let mut h1 = std::hash::DefaultHasher::new();
        let mut h2 = std::hash::DefaultHasher::new();
        0x5eed_u32.hash(&mut h2);
        h1.write(canonical);
        h2.write(canonical);
        if canonical.capacity() > 1 << 20 {
            // A large value: its buffer is not kept for the rest of the run.
            *canonical = Vec::new();
        }
        (u128::from(h1.finish()) << 64) | u128::from(h2.finish())
    })
}

thread_local! {
    /// The buffer [`canonical_hash`] writes a canonical form into, kept between calls (one
    /// per `tool/result`) so that hashing does not allocate it each time.
    static CANONICAL: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// An object member as [`write_canonical`] sorts it: the key's WTF-8 bytes (borrowed from
/// the text unless the key holds escapes), and the value.
type CanonicalMember<'a> = (Cow<'a, [u8]>, Json<'a>);

/// Appends the canonical form of `v` to `out`: a self-delimiting encoding (each value starts
/// with a tag byte, strings and keys with their length) in which two values are the same
/// bytes exactly when they are deep-equal. Strings and keys are written as their WTF-8
/// bytes (UTF-8, with a lone surrogate as its own 3-byte form), which stand one to one for
/// their UTF-16 code units, so escaped and raw spellings are the same bytes; an object's
/// distinct keys are sorted by those bytes (any fixed order of the strings would do).
/// `members` is scratch space shared by the nested objects (each sorts its members in its
/// own stretch at the end).
fn write_canonical<'a>(
    v: Json<'a>,
    null_at: NullPath<'_>,
    out: &mut Vec<u8>,
    members: &mut Vec<CanonicalMember<'a>>,
) {
    if null_at == Some(&[][..]) {
        out.push(b'n');
        return;
    }
    match v.kind() {
        Kind::Null => out.push(b'n'),
        Kind::Bool => out.push(if v.raw == "true" { b't' } else { b'f' }),
        Kind::Number => {
            // Plain integers (most numbers in a log) are read without a float parse: below
            // 2^53 they are exact in binary64, as the parse gives them.
            let n = match v.small_integer() {
                Some(n) => n as f64,
                None => v.as_f64().unwrap_or(f64::NAN),
            };
            // -0 and 0 are equal for deep equality.
            let n = if n == 0.0 { 0.0 } else { n };
            out.push(b'#');
            out.extend_from_slice(&n.to_bits().to_le_bytes());
        }
        Kind::String => {
            out.push(b's');
            write_sized(&string_wtf8(v), out);
        }
        Kind::Array => {
            out.push(b'[');
            for (i, e) in v.elements().enumerate() {
                let sub = null_at.and_then(|p| sub_path(p, &i.to_string()));
                write_canonical(e, sub, out, members);
            }
            out.push(b']');
        }
        Kind::Object => {
            // Distinct keys sorted, the last of repeated keys winning: a stable sort keeps
            // repeats in stored order, so each run's last is the winner.
            let own = members.len();
            members.extend(v.members().map(|(k, x)| (string_wtf8(k), x)));
            members[own..].sort_by(|a, b| a.0.cmp(&b.0));
            out.push(b'{');
            for k in own..members.len() {
                if members
                    .get(k + 1)
                    .is_some_and(|next| next.0 == members[k].0)
                {
                    continue;
                }
                let (key, value) = (members[k].0.clone(), members[k].1);
                out.push(b'k');
                write_sized(&key, out);
                let sub = null_at.and_then(|p| {
                    p.first()
                        .is_some_and(|step| step.as_bytes() == &*key)
                        .then(|| &p[1..])
                });
                write_canonical(value, sub, out, members);
            }
            members.truncate(own);
            out.push(b'}');
        }
    }
}

/// Writes `bytes` after their length.
fn write_sized(bytes: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// The WTF-8 bytes of a string token: its stored bytes when it holds no escape (UTF-8
/// text, whose code units are exactly the string's), else decoded ([`wtf8`]).
fn string_wtf8(v: Json<'_>) -> Cow<'_, [u8]> {
    let body = v.raw_str_body().unwrap_or_default().as_bytes();
    if has_backslash(body) {
        Cow::Owned(wtf8(v))
    } else {
        Cow::Borrowed(body)
    }
}

/// The WTF-8 bytes of a string value: UTF-8, with each lone surrogate encoded on its own.
fn wtf8(v: Json<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.raw.len());
    let mut units = v.code_units().peekable();
    while let Some(u) = units.next() {
        let code = match u {
            0xD800..=0xDBFF => match units.peek() {
                Some(&low @ 0xDC00..=0xDFFF) => {
                    units.next();
                    0x10000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(low) - 0xDC00)
                }
                _ => u32::from(u),
            },
            _ => u32::from(u),
        };
        match char::from_u32(code) {
            Some(c) => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            // A lone surrogate: the generalised UTF-8 encoding of its value.
            None => out.extend_from_slice(&[
                0xE0 | (code >> 12) as u8,
                0x80 | ((code >> 6) & 0x3F) as u8,
                0x80 | (code & 0x3F) as u8,
            ]),
        }
    }
    out
}

/// The position in `keys` of the key token `k` (compared as code units).
fn key_index(k: Json<'_>, keys: &[&str]) -> Option<usize> {
    let body = k.raw_str_body()?.as_bytes();
    if has_backslash(body) {
        keys.iter().position(|key| k.str_eq(key))
    } else {
        keys.iter().position(|key| bytes_eq(body, key.as_bytes()))
    }
}

/// True when `body`, the inside of a string token of valid JSON, is `s` code unit for code
/// unit ([`Json::str_eq`]).
///
/// Always inlined: it runs for every member an object look-up passes (a third of the
/// frozen edges' instructions went to calling it), and nearly every call is told by the
/// lengths and a first byte; what needs more is [`escaped_body_eq`], out of line.
#[inline(always)]
fn body_eq(body: &[u8], s: &str) -> bool {
    // Same bytes are equal unless they are escapes (then the body says less than `s`).
    plain_body_eq(body, s) && !(body.len() == s.len() && has_backslash(s.as_bytes()))
}

/// [`body_eq`] for an `s` without a backslash (the names the checks look up): same
/// bytes are then the same string.
#[inline(always)]
fn plain_body_eq(body: &[u8], s: &str) -> bool {
    let text = s.as_bytes();
    // An escape is longer than the UTF-8 of what it stands for (`\n` 2 bytes for 1,
    // `\u00e9` 6 for 2, a surrogate pair 12 for 4), and `s`, a Rust string, holds no
    // lone surrogate: a body that spells `s` is longer than `s` exactly when it holds
    // an escape. So most mismatches (the other keys of an object) are told by length
    // and first byte, without looking for a backslash.
    match body.len().cmp(&text.len()) {
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => bytes_eq(body, text),
        std::cmp::Ordering::Greater => {
            // Up to its first escape the body is `s` byte for byte, so a body whose first
            // byte is neither `s`'s nor a backslash is not `s`.
            !text
                .first()
                .is_some_and(|&c| body[0] != c && body[0] != b'\\')
                && escaped_body_eq(body, s)
        }
    }
}

/// [`body_eq`] for a body longer than `s`, which is `s` only if it holds an escape.
#[inline(never)]
fn escaped_body_eq(body: &[u8], s: &str) -> bool {
    let text = s.as_bytes();
    // When `s` holds no backslash (every name the checks look up), body and `s` first
    // differ exactly at the body's first escape, so a body that differs first elsewhere
    // is not `s`, told without scanning the rest. A text with a backslash may match the
    // escape's own bytes (`\u005cu005c` is `\u005c`).
    let same = body.iter().zip(text).take_while(|(a, b)| a == b).count();
    (body[same] == b'\\' || has_backslash(text) && has_backslash(body))
        && CodeUnits {
            rest: body,
            pending: None,
        }
        .eq(s.encode_utf16())
}

/// True when `body`, a key as [`Json::key_bodies`] gives it, is `s` code unit for code
/// unit ([`Json::str_eq`] of the key).
#[inline]
pub fn key_is(body: &[u8], s: &str) -> bool {
    body_eq(body, s)
}

/// The position in `names` of the first name that `body`, a key as [`Json::key_bodies`]
/// gives it, is ([`key_is`]): the key is looked at for an escape once, then compared as
/// bytes with each name (by length first) when it has none.
#[inline]
pub fn key_position(body: &[u8], names: &[&str]) -> Option<usize> {
    if has_backslash(body) {
        names.iter().position(|name| body_eq(body, name))
    } else {
        names
            .iter()
            .position(|name| bytes_eq(body, name.as_bytes()))
    }
}

/// True when `b` holds a backslash: the slice's own search for short texts such as keys
/// (inlined), memchr's vector search for longer ones.
#[inline]
fn has_backslash(b: &[u8]) -> bool {
    if b.len() <= 32 {
        b.contains(&b'\\')
    } else {
        memchr::memchr(b'\\', b).is_some()
    }
}

/// `a == b`, inline for short slices such as keys (most comparisons of keys of equal
/// length differ in their first bytes, and a call to `memcmp` costs more than that).
#[inline(always)]
fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // Two overlapping words cover 4 to 16 bytes: no loop over the bytes of a key.
    let w8 = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let w4 = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().expect("4 bytes"));
    match n {
        0..4 => a.iter().zip(b).all(|(x, y)| x == y),
        4..8 => w4(a, 0) == w4(b, 0) && w4(a, n - 4) == w4(b, n - 4),
        8..=16 => w8(a, 0) == w8(b, 0) && w8(a, n - 8) == w8(b, n - 8),
        _ => a == b,
    }
}

/// Where an iteration over a container's children stands: shared by [`Members`] (which
/// reads two values a member, the key and the value) and [`Elements`] (one).
struct Children<'a> {
    /// The container's text.
    raw: &'a str,
    /// The byte of `raw` after the last child read (1 before the first: past the bracket).
    pos: usize,
    skips: Option<&'a Skips>,
    base: usize,
    /// Position in `skips` of the first entry at or after `pos`.
    k: usize,
    /// In a complete index: the position of the first entry after the container; the
    /// children are then read from the entries `k..tape_end`.
    tape_end: Option<usize>,
}

impl<'a> Children<'a> {
    /// With a complete index: the index itself, and whether children are left to read from
    /// it; `None` when the children must be read from the text.
    #[inline]
    fn tape(&self) -> Option<(&'a Skips, bool)> {
        match (self.tape_end, self.skips) {
            (Some(end), Some(sk)) => Some((sk, self.k < end)),
            _ => None,
        }
    }

    /// The next value from the index (see [`Children::tape`]).
    #[inline]
    fn next_indexed(&mut self, sk: &'a Skips) -> Json<'a> {
        let (value, next) = indexed(self.raw, self.base, sk, self.k);
        self.k = next;
        value
    }

    /// Reading the text: the byte where the next child starts, past white space and a
    /// comma; `None` at the closing bracket `close` (or the text's end).
    #[inline]
    fn next_start(&mut self, close: u8) -> Option<usize> {
        let b = self.raw.as_bytes();
        let mut i = skip_ws(b, self.pos);
        if i >= b.len() || b[i] == close {
            self.pos = b.len();
            return None;
        }
        if b[i] == b',' {
            i = skip_ws(b, i + 1);
        }
        Some(i)
    }

    /// Reading the text: the value that starts at byte `i`; the cursor moves past it.
    #[inline]
    fn value_at(&mut self, i: usize) -> Json<'a> {
        let cursor = self.k;
        let (end, next) = skip_value(self.raw.as_bytes(), i, self.skips, self.base, self.k);
        self.pos = end;
        self.k = next;
        Json {
            raw: &self.raw[i..end],
            skips: self.skips,
            base: self.base + i,
            cursor,
        }
    }
}

/// The value indexed at position `k` of `sk`, the index of the text `raw` that starts at
/// byte `base` of the line; with the position of the entry after it.
#[inline]
fn indexed<'a>(raw: &'a str, base: usize, sk: &'a Skips, k: usize) -> (Json<'a>, usize) {
    let span = sk.entries[k];
    let value = Json {
        raw: &raw[span.start as usize - base..span.end as usize - base],
        skips: Some(sk),
        base: span.start as usize,
        cursor: k,
    };
    (value, span.next as usize)
}

/// Iterator over an object's members; see [`Json::members`].
pub struct Members<'a>(Children<'a>);

impl<'a> Iterator for Members<'a> {
    type Item = (Json<'a>, Json<'a>);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let c = &mut self.0;
        if let Some((sk, left)) = c.tape() {
            if !left {
                return None;
            }
            let key = c.next_indexed(sk);
            return Some((key, c.next_indexed(sk)));
        }
        let i = c.next_start(b'}')?;
        let key = c.value_at(i);
        let b = c.raw.as_bytes();
        let colon = skip_ws(b, c.pos);
        let value = c.value_at(skip_ws(b, colon + 1));
        Some((key, value))
    }
}

/// Iterator over an array's elements; see [`Json::elements`].
pub struct Elements<'a>(Children<'a>);

impl<'a> Iterator for Elements<'a> {
    type Item = Json<'a>;
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let c = &mut self.0;
        if let Some((sk, left)) = c.tape() {
            return left.then(|| c.next_indexed(sk));
        }
        let i = c.next_start(b']')?;
        Some(c.value_at(i))
    }
}

/// Iterator over the UTF-16 code units of a string value; see [`Json::code_units`].
pub struct CodeUnits<'a> {
    rest: &'a [u8],
    pending: Option<u16>,
}

impl Iterator for CodeUnits<'_> {
    type Item = u16;
    fn next(&mut self) -> Option<u16> {
        if let Some(u) = self.pending.take() {
            return Some(u);
        }
        let (&c, tail) = self.rest.split_first()?;
        if c == b'\\' {
            let (&e, tail) = tail.split_first()?;
            self.rest = tail;
            return Some(match e {
                b'b' => 0x08,
                b'f' => 0x0c,
                b'n' => 0x0a,
                b'r' => 0x0d,
                b't' => 0x09,
                b'u' => {
                    let hex = std::str::from_utf8(&tail[..4]).unwrap_or("0");
                    self.rest = &tail[4..];
                    u16::from_str_radix(hex, 16).unwrap_or(0xfffd)
                }
                other => u16::from(other),
            });
        }
        if c < 0x80 {
            self.rest = tail;
            return Some(u16::from(c));
        }
        // One UTF-8 character: decode it and yield its UTF-16 units.
        let len = match c {
            0..=0x7f => 1,
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            _ => 4,
        }
        .min(self.rest.len());
        let ch = std::str::from_utf8(&self.rest[..len])
            .ok()
            .and_then(|s| s.chars().next())
            .unwrap_or('\u{FFFD}');
        self.rest = &self.rest[len..];
        let mut buf = [0u16; 2];
        let units = ch.encode_utf16(&mut buf);
        if units.len() == 2 {
            self.pending = Some(units[1]);
        }
        Some(units[0])
    }
}

/// The value as `JSON.stringify` would print it after `JSON.parse`, for the scalars repair
/// copies into closers: safe integers in plain decimal (`3.0` → `3`), strings re-escaped
/// canonically; anything else (and strings holding lone surrogates) as stored.
pub fn js_token(v: Json<'_>) -> String {
    if let Some(n) = v.as_safe_integer() {
        return n.to_string();
    }
    if v.kind() == Kind::String
        && let Ok(decoded) = String::from_utf16(&v.code_units().collect::<Vec<u16>>())
    {
        let mut out = String::new();
        write_js_string(&mut out, &decoded);
        return out;
    }
    v.raw().to_owned()
}

/// `String(value)` in JavaScript, as a template literal would insert it: strings as they
/// are, safe integers in decimal, `[object Object]` for objects, arrays joined by commas
/// (`null` elements empty). Used for ids built from a stored value (repair's
/// `interrupted-tool-result-<callId>-<seq>`).
pub fn js_string_conversion(v: Json<'_>) -> String {
    match v.kind() {
        Kind::String => v.as_str().unwrap_or_default().into_owned(),
        Kind::Number => v
            .as_safe_integer()
            .map_or_else(|| v.raw().to_owned(), |n| n.to_string()),
        Kind::Object => "[object Object]".to_owned(),
        Kind::Array => v
            .elements()
            .map(|e| {
                if e.is_null() {
                    String::new()
                } else {
                    js_string_conversion(e)
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        Kind::Bool | Kind::Null => v.raw().to_owned(),
    }
}

/// Appends `s` to `out` as a JSON string literal the way `JSON.stringify` writes it:
/// quotes, `\"`, `\\`, the short escapes `\b \f \n \r \t`, other control characters as
/// lowercase `\u00xx`, everything else raw UTF-8 (FORMAT.md §1.4).
pub fn write_js_string(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Json<'_> {
        Json::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn a_fields_record_gives_what_get_gives() {
        for (i, name) in FIELD_NAMES.iter().enumerate() {
            assert_eq!(field_slot(name.as_bytes()), Some(i), "{name}");
        }
        let long = "y".repeat(300_000);
        let texts = [
            r#"{"turn":1,"step":2,"message":{"role":"user"},"turn":3,"other":4}"#.to_owned(),
            r#"{"tu\u0072n":5,"turn":1}"#.to_owned(),
            r#"{"turn":1,"tu\u0072n":5,"x\n":0}"#.to_owned(),
            r#"{"a\"b":1,"id":"x","id":"y","content":[1,{"type":"text"}]}"#.to_owned(),
            r#"{}"#.to_owned(),
            r#"[{"turn":1}]"#.to_owned(),
            r#""turn""#.to_owned(),
            r#"{"turn":{"turn":2},"kind":null,"type":false,"\ud800":1}"#.to_owned(),
            // Integers as `turn` and `step`, read once by the record.
            r#"{"turn":-0,"step":3.0,"turn":-0.0}"#.to_owned(),
            r#"{"turn":9007199254740993,"step":"1"}"#.to_owned(),
            r#"{"turn":1e3,"step":-7,"step":-9007199254740991}"#.to_owned(),
            r#"{"turn":0,"step":123456789012345}"#.to_owned(),
            r#"{"turn":1234567890123456,"step":-1.5}"#.to_owned(),
            format!(r#"{{"turn":1,"text":"{long}","turn":2,"kind":"k"}}"#),
            // A member past index position 65,535: the record gives way to `get`.
            format!(
                r#"{{"turn":1,"a":[{}0],"turn":2,"kind":"k"}}"#,
                "0,".repeat(70_000)
            ),
        ];
        let mut names: Vec<&str> = FIELD_NAMES.to_vec();
        names.extend(["other", "a\"b", "tu\\u0072n", "x\n", "x\\n", "", "turns"]);
        for text in &texts {
            let doc = Document::parse(text).unwrap();
            let unindexed = ok(text);
            for value in [doc.root(), unindexed] {
                let fields = Fields::of(Some(value));
                for name in &names {
                    let (want, got) = (value.get(name), fields.get(name));
                    assert_eq!(want, got, "{text} {name}");
                    assert_eq!(
                        fields.safe_integer(name),
                        want.and_then(Json::as_safe_integer),
                        "{text} {name}"
                    );
                    assert_eq!(
                        fields.seq(name),
                        want.and_then(Json::as_seq),
                        "{text} {name}"
                    );
                    assert_eq!(want.map(|v| v.raw.as_ptr()), got.map(|v| v.raw.as_ptr()));
                    // The value found navigates as the one `get` finds.
                    assert_eq!(
                        want.and_then(|v| v.get("turn")),
                        got.and_then(|v| v.get("turn")),
                        "{text} {name}"
                    );
                }
            }
        }
        // Whether a record is kept: an indexed object without escaped keys.
        let doc = Document::parse(&texts[0]).unwrap();
        assert!(Fields::of(Some(doc.root())).slots.is_some());
        assert!(Fields::of(Some(ok(&texts[0]))).slots.is_none());
        let doc = Document::parse(&texts[1]).unwrap();
        assert!(Fields::of(Some(doc.root())).slots.is_none());
        assert_eq!(Fields::of(None).get("turn"), None);
    }

    #[test]
    fn a_fields_record_decides_exact_members_as_the_keys_do() {
        let texts = [
            r#"{"type":"text","text":"a"}"#,
            r#"{"type":"text","text":"a","type":"text"}"#,
            r#"{"type":"text"}"#,
            r#"{"type":"text","text":"a","id":"x"}"#,
            r#"{"type":"text","text":"a","index":0}"#,
            r#"{"kind":"model","provider":"p","model":"m"}"#,
            r#"{"kind":"model","provider":"p","model":"m","replayState":{}}"#,
            r#"{"retryId":"r","turn":1}"#,
            r#"{"turn":1}"#,
            r#"{"t\u0079pe":"text","text":"a"}"#,
            r#"{}"#,
            r#"[1]"#,
        ];
        let lists: [(&[&str], &[&str]); 7] = [
            (&["type", "text"], &[]),
            (&["type"], &["text"]),
            (&["type", "text", "index"], &[]),
            (&["kind", "provider", "model"], &["replayState"]),
            (&["retryId", "turn"], &[]),
            (&["turn"], &["retryId", "isError"]),
            (&[], &[]),
        ];
        // The reference: every member named, every required one present.
        let reference = |v: Json<'_>, required: &[&str], optional: &[&str]| {
            v.is_object()
                && v.members()
                    .all(|(k, _)| required.iter().chain(optional).any(|n| k.str_eq(n)))
                && required.iter().all(|n| v.has(n))
        };
        let mut decided = 0;
        for text in texts {
            let doc = Document::parse(text).unwrap();
            for value in [doc.root(), ok(text)] {
                let fields = Fields::of(Some(value));
                for (required, optional) in lists {
                    let want = reference(value, required, optional);
                    let masks = (SlotMask::of(required), SlotMask::of(optional));
                    if let Some(got) = fields.has_exactly(masks.0, masks.1) {
                        assert_eq!(got, want, "{text} {required:?} {optional:?}");
                        decided += 1;
                    }
                }
            }
        }
        // Indexed objects whose names all have slots are decided by the record; the others
        // (not indexed, an escaped key, `index`, `replayState`) are not.
        assert_eq!(decided, 8 * 7);
    }

    #[test]
    fn bytes_eq_is_slice_equality() {
        let text = b"abcdefghijklmnopqrstuvwxyz";
        for n in 0..=20 {
            for i in 0..n {
                let a = &text[..n];
                let mut b = a.to_vec();
                assert!(bytes_eq(a, &b));
                b[i] ^= 1;
                assert!(!bytes_eq(a, &b), "{n} {i}");
            }
            assert!(!bytes_eq(&text[..n], &text[1..=n]) || n == 0);
        }
    }

    #[test]
    fn navigating_with_the_skip_index_gives_the_same_values_as_scanning() {
        let long = "x".repeat(40);
        for text in [
            format!(
                r#"{{"a":[{{}},[],{{"{long}":"{long}","b":[1,"{long}",{{"c":[[[]]]}}]}}],"d":"{long}","a":2}}"#
            ),
            format!(
                r#"[[{{"k":"{long}"}},{{"k":"s"}}],"{long}",[],{{}},-0.5e3,{{"{long}":{{"{long}":[]}}}}]"#
            ),
            format!(r#" {{ "e" : [ "{long}" , {{ "f" : "\\"{long}\\\\" }} ] , "g" : null }} "#),
            format!(r#""{long}""#),
        ] {
            // Asserts that every value and key, in every order it visits them, is the same.
            crate::fuzz::jsonl_line(text.as_bytes());
        }
    }

    #[test]
    fn a_text_too_long_for_a_complete_index_navigates_the_same() {
        // Past COMPLETE_INDEX_BYTES only containers and long strings are indexed: the
        // members between them are scanned, and must come out the same.
        let long = "z".repeat(30);
        let unit = format!(
            r#"{{"k":[1,-2.5e3,true,null,"s","{long}",{{"{long}":[[]],"x":{{}}}}],"e\"s":"a\\"}}"#
        );
        let mut text = String::from("[");
        while text.len() <= COMPLETE_INDEX_BYTES {
            text.push_str(&unit);
            text.push(',');
        }
        text.push_str(&unit);
        text.push(']');
        let doc = Document::parse(&text).unwrap();
        assert!(!doc.skips.complete);
        crate::fuzz::jsonl_line(text.as_bytes());
        let short = format!("[{unit}]");
        assert!(Document::parse(&short).unwrap().skips.complete);
        crate::fuzz::jsonl_line(short.as_bytes());
    }

    #[test]
    fn the_word_scan_stops_at_the_same_byte_as_a_byte_scan() {
        let naive = |b: &[u8], i: usize| {
            (i..b.len())
                .find(|&j| b[j] < 0x20 || b[j] == b'"' || b[j] == b'\\')
                .unwrap_or(b.len())
        };
        // Every byte value at every position of a word, after plain and high bytes (the
        // ones that could make a borrow or a sign bit lie).
        for special in 0..=255u8 {
            for pos in 0..40 {
                for filler in [b'a', 0x7f, 0x80, 0xff, 0x21, 0x20, b'#', b']'] {
                    let mut b = vec![filler; 40];
                    b[pos] = special;
                    for start in 0..b.len() {
                        let want = naive(&b, start);
                        let what = format!(
                            "special {special:#x} at {pos}, filler {filler:#x}, from {start}"
                        );
                        assert_eq!(plain_run_end_words(&b, start), want, "words: {what}");
                        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                        // SAFETY: SSE2 is enabled for the whole program.
                        assert_eq!(
                            unsafe { plain_run_end_sse2(&b, start) },
                            want,
                            "SSE2: {what}"
                        );
                        assert_eq!(plain_run_end(&b, start), want, "{what}");
                    }
                }
            }
        }
    }

    #[test]
    fn validates_what_json_parse_accepts() {
        for s in [
            "0",
            "-0",
            "1e400",
            "3.0",
            "\"\\ud800\"",
            " {\"a\":[1,{}]}\r",
            "[]",
            "{}",
            "true",
            "\"a\\/b\"",
        ] {
            ok(s);
        }
        for (s, at) in [
            ("", 0),
            ("\u{feff}{}", 0),
            ("{\"a\":1,}", 7),
            ("[1,]", 3),
            ("01", 1),
            ("\"a\u{1}\"", 2),
            ("\"\\x\"", 1),
            ("{} x", 3),
            ("nul", 0),
            ("1.", 2),
        ] {
            let e = Json::parse(s).expect_err(s);
            assert_eq!(e.offset, at, "{s}: {e}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        let e = Json::parse(&deep).unwrap_err();
        assert_eq!(e.what, "nesting deeper than 10000 levels");
        let fine = "[".repeat(10_000) + &"]".repeat(10_000);
        ok(&fine);
    }

    #[test]
    fn last_duplicate_key_wins_and_keys_keep_first_position() {
        let v = ok(r#"{"a":1,"b":2,"a":3}"#);
        assert_eq!(v.get("a").unwrap().raw(), "3");
        let keys: Vec<_> = v.keys().iter().map(|k| k.raw()).collect();
        assert_eq!(keys, ["\"a\"", "\"b\""]);
    }

    #[test]
    fn numbers_follow_binary64() {
        assert_eq!(ok("3.0").as_safe_integer(), Some(3));
        assert_eq!(ok("-0").as_seq(), Some(0));
        assert!(ok("-0").is_negative_zero());
        assert_eq!(ok("1e400").as_safe_integer(), None);
        assert_eq!(ok("9007199254740991").as_seq(), Some(9_007_199_254_740_991));
        assert_eq!(ok("9007199254740992").as_seq(), None);
        assert_eq!(ok("-1").as_seq(), None);
    }

    #[test]
    fn str_eq_agrees_with_comparing_code_units() {
        // Bodies spelled raw and with every kind of escape, against texts of every length
        // around them: the length and first-byte shortcuts must never change the answer.
        let bodies = [
            "",
            "a",
            "ab",
            "abc",
            "type",
            "t\\u0079pe",
            "\\u0074ype",
            "\\n",
            "a\\nb",
            "\\\\",
            "\\/",
            "é",
            "\\u00e9",
            "\\u00E9x",
            "😀",
            "\\ud83d\\ude00",
            "\\ud800",
            "x\\ud800",
            "\\\"",
            "a\\\"b",
            "\\u0000",
            "日本",
            "\\u65e5本",
            // A text that holds a backslash: the body spells it with an escape, and then
            // holds the text's own bytes beyond where the escape begins.
            "\\u005cu005c",
        ];
        let texts = [
            "",
            "a",
            "ab",
            "abc",
            "type",
            "typ",
            "types",
            "\n",
            "a\nb",
            "\\",
            "/",
            "é",
            "éx",
            "😀",
            "\u{fffd}",
            "x\u{fffd}",
            "\"",
            "a\"b",
            "\0",
            "日本",
            "t\\u0079pe",
            "\\n",
            "\\u005c",
        ];
        for body in bodies {
            let token = format!("\"{body}\"");
            let v = ok(&token);
            for text in texts {
                let expected = v.code_units().eq(text.encode_utf16());
                assert_eq!(v.str_eq(text), expected, "{token} vs {text:?}");
            }
        }
    }

    #[test]
    fn strings_compare_by_code_units() {
        assert!(ok(r#""a\u0062""#).str_eq("ab"));
        assert!(ok(r#""\ud800""#).same_string(ok(r#""\uD800""#)));
        assert!(!ok(r#""\ud800""#).same_string(ok(r#""\ud801""#)));
        assert!(ok(r#""\ud83d\ude00""#).str_eq("😀"));
        assert_eq!(ok(r#""x\ud800""#).as_str().unwrap(), "x\u{FFFD}");
    }

    #[test]
    fn deep_equality_ignores_key_order_and_honours_the_null_path() {
        let a = ok(r#"{"m":{"c":[{"content":[1],"t":"x"}]},"z":1.0}"#);
        let b = ok(r#"{"z":1,"m":{"c":[{"t":"x","content":[2,3]}]}}"#);
        assert!(!a.deep_eq(b, &[]));
        assert!(a.deep_eq(b, &["m", "c", "0", "content"]));
        let c = ok(r#"{"z":1,"m":{"c":[{"t":"y","content":[2,3]}]}}"#);
        assert!(!a.deep_eq(c, &["m", "c", "0", "content"]));
        let d = ok(r#"{"z":1,"m":{"c":[{"t":"x","content":[2,3]}]},"extra":null}"#);
        assert!(!a.deep_eq(d, &["m", "c", "0", "content"]));
    }

    #[test]
    fn hashes_are_equal_exactly_when_values_are_deep_equal() {
        let values = [
            r#"{"a":1,"b":[true,null,"x"]}"#,
            r#"{"b":[true,null,"x"],"a":1.0}"#,
            r#"{"a":1,"b":[true,null,"x"],"a":1}"#,
            r#"{"a":2,"b":[true,null,"x"],"a":1}"#,
            r#"{"a":1,"b":[true,null,"x"],"a":2}"#,
            r#"{"\u0061":1,"b":[true,null,"\u0078"]}"#,
            r#"{"a":1,"b":[true,null,"x"],"c":null}"#,
            r#"{"a":1,"b":[true,null]}"#,
            r#"{"a":1,"b":[true,"x",null]}"#,
            r#"{"a":-0,"b":[]}"#,
            r#"{"a":0,"b":[]}"#,
            r#"{"a":"0","b":[]}"#,
            r#"{"ab":"","b":[]}"#,
            r#"{"a":"b","b":[]}"#,
            r#"{"\ud800":1}"#,
            r#"{"\ufffd":1}"#,
            r#"{"\uffff":1,"\ud83d\ude00":2}"#,
            r#"{"😀":2,"\uffff":1}"#,
            r#"{"m":{"c":[{"content":[1],"t":"x"}]}}"#,
            r#"{"m":{"c":[{"t":"x","content":"other"}]}}"#,
            r#"{"m":{"c":[{"t":"x","content":"other"},1]}}"#,
            r#"[[],{}]"#,
            r#"[{},[]]"#,
            r#"["",""]"#,
            r#"[""]"#,
            r#"{"a":1,"\u0061":2}"#,
            r#"{"a":2}"#,
            r#"{"a":1e0,"b":[100,-0.0]}"#,
            r#"{"a":1,"b":[1e2,0]}"#,
            r#"{"a":1,"b":[1e2,0.5]}"#,
            r#"{"\u006d":{"c":[{"content":[2],"t":"x"}]}}"#,
            r#"{"m":{"c":[{"t":"x","cont\u0065nt":"other"}]}}"#,
            r#"{"m":{"c":[{"t":"\u0078","content":null,"content":3}]}}"#,
        ];
        for null_at in [&[][..], &["m", "c", "0", "content"][..]] {
            for a in values {
                for b in values {
                    let (x, y) = (ok(a), ok(b));
                    assert_eq!(
                        canonical_hash(x, null_at) == canonical_hash(y, null_at),
                        x.deep_eq(y, null_at),
                        "{a} vs {b} with {null_at:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn hashes_agree_for_escaped_and_raw_spellings() {
        let a = ok(r#"{"t":"é\n😀","n":1}"#);
        let b = ok(r#"{"n":1.0,"t":"\u00e9\u000a\ud83d\ude00"}"#);
        assert_eq!(canonical_hash(a, &[]), canonical_hash(b, &[]));
        assert!(a.deep_eq(b, &[]));
        let lone = ok(r#""\ud800""#);
        assert_ne!(
            canonical_hash(lone, &[]),
            canonical_hash(ok(r#""\ufffd""#), &[])
        );
    }

    #[test]
    fn documents_navigate_like_plain_values() {
        let text = r#" {"a":[1,{"b":"a string long enough to be indexed, surely"}],"c":{"d":[]},"e":"x\"y"} "#;
        let doc = Document::parse(text).unwrap();
        let (plain, indexed) = (ok(text), doc.root());
        assert_eq!(plain.raw(), indexed.raw());
        let walk = |v: Json<'_>| -> Vec<String> {
            let mut out = Vec::new();
            for (k, v) in v.members() {
                out.push(format!("{}={}", k.raw(), v.raw()));
                for e in v.elements() {
                    out.push(e.raw().to_owned());
                    out.extend(e.members().map(|(k, v)| format!("{}={}", k.raw(), v.raw())));
                }
            }
            out
        };
        assert_eq!(walk(plain), walk(indexed));
        assert_eq!(indexed.get("c").unwrap().get("d").unwrap().raw(), "[]");
        assert!(Document::parse("[1,").is_err());
    }

    #[test]
    fn a_moved_index_navigates_the_text_it_was_copied_into() {
        fn all(v: Json<'_>, out: &mut Vec<String>) {
            out.push(v.raw().to_owned());
            for (k, x) in v.members() {
                out.push(k.raw().to_owned());
                all(x, out);
            }
            for x in v.elements() {
                all(x, out);
            }
        }
        let long = "y".repeat(30);
        let data = format!(
            "  \n{{\"a\":[{{\"{long}\":\"{long}\"}},[[]],\"{long}\"],\"b\":{{\"c\":{{}}}}}} \t"
        );
        let doc = Document::parse(&data).unwrap();
        let raw = doc.root().raw();
        let from = raw.as_ptr() as usize - data.as_ptr() as usize;
        let line = format!(r#"{{"type":"t","seq":1,"data":{raw},"x":["{long}"]}}"#);
        let to = line.find(raw).unwrap();
        let moved = doc.into_skips().moved(from, to);
        let (mut indexed, mut scanned) = (Vec::new(), Vec::new());
        all(Json::indexed_root(&line, &moved), &mut indexed);
        all(ok(&line), &mut scanned);
        assert_eq!(indexed, scanned);
        assert!(indexed.len() > 20);
    }

    #[test]
    fn exact_keys_takes_each_key_once_in_any_order() {
        let v = ok(r#"{"b":1,"\u0061":2,"b":3}"#);
        fn raws(found: Option<[Json<'_>; 2]>) -> Option<[&str; 2]> {
            found.map(|f| f.map(Json::raw))
        }
        assert_eq!(raws(v.exact_keys(["a", "b"])), Some(["2", "3"]));
        assert_eq!(raws(v.exact_keys(["b", "a"])), Some(["3", "2"]));
        assert!(v.exact_keys(["a"]).is_none());
        assert!(v.exact_keys(["a", "b", "c"]).is_none());
        assert!(ok("[1]").exact_keys(["a"]).is_none());
        assert!(v.has_exactly_keys(&["b", "a"]));
        assert!(!v.has_exactly_keys(&["a"]));
        assert!(!v.has_exactly_keys(&["a", "b", "c"]));
        assert!(ok("{}").has_exactly_keys(&[]));
        assert!(!ok("[]").has_exactly_keys(&[]));
    }

    #[test]
    fn safe_integers_read_the_same_with_or_without_the_digit_fast_path() {
        for (text, want) in [
            ("0", Some(0)),
            ("-0", Some(0)),
            ("-15", Some(-15)),
            ("999999999999999", Some(999_999_999_999_999)),
            ("9007199254740991", Some(9_007_199_254_740_991)),
            ("-9007199254740991", Some(-9_007_199_254_740_991)),
            ("9007199254740992", None),
            ("1.0", Some(1)),
            ("1.5", None),
            ("1e2", Some(100)),
            ("-0.0", Some(0)),
            ("\"1\"", None),
            ("true", None),
        ] {
            assert_eq!(ok(text).as_safe_integer(), want, "{text}");
        }
    }

    #[test]
    fn lookup_finds_several_keys_in_one_pass() {
        let v = ok(r#"{"a":1,"b":2,"a":3,"c\u0064":4}"#);
        let [a, b, cd, z] = v.lookup(["a", "b", "cd", "z"]);
        assert_eq!(
            (a.unwrap().raw(), b.unwrap().raw(), cd.unwrap().raw(), z),
            ("3", "2", "4", None)
        );
    }

    #[test]
    fn js_string_escapes() {
        let mut s = String::new();
        write_js_string(&mut s, "a\"\\\n\u{1}/é\u{2028}");
        assert_eq!(s, "\"a\\\"\\\\\\n\\u0001/é\u{2028}\"");
    }
}
