//! The block-structural JSON check (issue 43, step 2): the reader thread's way to check and
//! index a line, with its UTF-8 check in the same pass.
//!
//! Stage 1 reads the text 64 bytes at a time and makes one bit per byte for each class
//! that matters: quotes, backslashes, the six structural characters, whitespace, control
//! characters and bytes above 0x7f. From those it works out which bytes a backslash
//! escapes (a run of backslashes escapes the byte after it when the run is odd), which
//! quotes delimit strings (the unescaped ones), which bytes lie inside a string (a running
//! parity of those quotes, carried from block to block), and so the positions where a
//! token starts: every delimiting quote, every structural character outside a string, and
//! the first byte of every other run of non-whitespace outside a string (a number or a
//! literal). A block of ASCII is past the UTF-8 check in one test; a block with other bytes
//! is checked byte by byte from its first such byte. Every escape is checked where it is
//! found; a control character inside a string, or anywhere but as whitespace, stops the
//! stage.
//!
//! Stage 2 walks the token positions with the same grammar as [`super::validate_with`]
//! and fills the same [`Skips`]: numbers and literals are read where they start, a string
//! ends at the quote after its opening one.
//!
//! Anything either stage does not accept (a rare event in a log) is handed to
//! [`super::validate_with`], the scalar validator, which gives the verdict and the error
//! with its byte offset: the block stage only ever says "valid, and here is the index".
//! A test compares both on generated and mutated texts.

use super::{
    COMPLETE_INDEX_BYTES, JsonError, MAX_DEPTH, ParseScratch, Skips, Span, close_span, literal,
    number_end, push_span, validate_with,
};

/// One bit per byte of a 64-byte block (bit `k` is byte `k`) for each class of byte.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Masks {
    quote: u64,
    /// `{ } [ ] : ,`.
    ops: u64,
    /// What ends a number or literal: the structural characters, quotes, spaces and
    /// control characters (tab, `\n` and `\r` among them: the few other control bytes
    /// make the stage refer the text to the scalar validator anyway).
    separators: u64,
    /// The rare classes, zero in most blocks: backslashes, bytes below 0x20 and bytes
    /// above 0x7f.
    backslash: u64,
    control: u64,
    non_ascii: u64,
}

/// [`Masks`] of a block, or `None` when `skip_plain` and the block is plain (none of `"`,
/// `\\`, a control character or a byte above 0x7f: in the middle of a string such a block
/// changes nothing). With SSE2 (16 bytes at a time) on x86-64, where it is part of the
/// architecture, else byte by byte.
#[inline]
fn masks(block: &[u8; 64], skip_plain: bool) -> Option<Masks> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: compiled only where SSE2 is enabled for the whole program.
        unsafe { (!skip_plain || !plain_block_sse2(block)).then(|| masks_sse2(block)) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let m = masks_bytes(block);
        let plain = m.quote | m.backslash | m.control | m.non_ascii == 0;
        (!skip_plain || !plain).then_some(m)
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use std::arch::x86_64::{
    __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
    _mm_set1_epi8, _mm_setzero_si128,
};

/// The four 16-byte vectors of a block.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn vectors(block: &[u8; 64]) -> [__m128i; 4] {
    let mut vs = [_mm_setzero_si128(); 4];
    for (k, slot) in vs.iter_mut().enumerate() {
        let chunk: &[u8; 16] = block[16 * k..16 * k + 16].try_into().expect("16 bytes");
        // SAFETY: `chunk` is 16 readable bytes; `_mm_loadu_si128` allows any alignment.
        *slot = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
    }
    vs
}

/// The bytes of `v` below 0x20: those equal to their unsigned minimum with 0x1f.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn control_bytes(v: __m128i) -> __m128i {
    _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v)
}

/// Whether a block is plain (see [`masks`]), with SSE2: the comparisons' results and the
/// bytes themselves are ORed together, and a set top bit anywhere means a byte that is not
/// plain.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn plain_block_sse2(block: &[u8; 64]) -> bool {
    let (quote, backslash) = (_mm_set1_epi8(b'"' as i8), _mm_set1_epi8(b'\\' as i8));
    let mut any = _mm_setzero_si128();
    for v in vectors(block) {
        let special = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
            _mm_or_si128(control_bytes(v), v),
        );
        any = _mm_or_si128(any, special);
    }
    _mm_movemask_epi8(any) == 0
}

/// [`masks`] with SSE2. `{`/`[` and `}`/`]` differ only in bit 0x20 (no other byte does
/// equal one of them with that bit set), so brackets and braces take two comparisons;
/// `_mm_movemask_epi8` of the bytes themselves gives their top bits, the non-ASCII ones.
/// The rare classes are first tested for the whole block at once, and only worked out when
/// present.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn masks_sse2(block: &[u8; 64]) -> Masks {
    let quote = _mm_set1_epi8(b'"' as i8);
    let backslash = _mm_set1_epi8(b'\\' as i8);
    let space = _mm_set1_epi8(0x20);
    let (open, close) = (_mm_set1_epi8(b'{' as i8), _mm_set1_epi8(b'}' as i8));
    let (colon, comma) = (_mm_set1_epi8(b':' as i8), _mm_set1_epi8(b',' as i8));
    let mut m = Masks::default();
    let mut rare = _mm_setzero_si128();
    let vs = vectors(block);
    for (k, &v) in vs.iter().enumerate() {
        let folded = _mm_or_si128(v, space);
        let ops = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)),
            _mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, comma)),
        );
        let quotes = _mm_cmpeq_epi8(v, quote);
        let control = control_bytes(v);
        let separators = _mm_or_si128(
            _mm_or_si128(ops, quotes),
            _mm_or_si128(control, _mm_cmpeq_epi8(v, space)),
        );
        rare = _mm_or_si128(
            rare,
            _mm_or_si128(_mm_or_si128(control, v), _mm_cmpeq_epi8(v, backslash)),
        );
        let shift = 16 * k;
        let bits = |x: i32| u64::from(x as u16) << shift;
        m.quote |= bits(_mm_movemask_epi8(quotes));
        m.ops |= bits(_mm_movemask_epi8(ops));
        m.separators |= bits(_mm_movemask_epi8(separators));
    }
    if _mm_movemask_epi8(rare) != 0 {
        for (k, &v) in vs.iter().enumerate() {
            let shift = 16 * k;
            let bits = |x: i32| u64::from(x as u16) << shift;
            let control = control_bytes(v);
            m.backslash |= bits(_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)));
            m.control |= bits(_mm_movemask_epi8(control));
            m.non_ascii |= bits(_mm_movemask_epi8(v));
        }
    }
    m
}

/// [`masks`] byte by byte: the portable definition, which a test holds the SSE2 one to.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn masks_bytes(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (k, &c) in block.iter().enumerate() {
        let bit = 1u64 << k;
        let set = |mask: &mut u64, on: bool| *mask |= if on { bit } else { 0 };
        let ops = matches!(c | 0x20, b'{' | b'}') || matches!(c, b':' | b',');
        set(&mut m.quote, c == b'"');
        set(&mut m.ops, ops);
        set(&mut m.separators, ops || c <= 0x20 || c == b'"');
        set(&mut m.backslash, c == b'\\');
        set(&mut m.control, c < 0x20);
        set(&mut m.non_ascii, c >= 0x80);
    }
    m
}

/// The bytes of a block escaped by a backslash: the byte after each backslash that is not
/// itself escaped. `carry` says whether the previous block's last byte escapes this
/// block's first, and is set to whether this block's last byte escapes the next block's.
#[inline]
fn escaped_bits(backslash: u64, carry: &mut bool) -> u64 {
    let mut escaped = u64::from(*carry);
    let mut rest = backslash & !escaped;
    *carry = false;
    while rest != 0 {
        let at = rest.trailing_zeros();
        if at == 63 {
            *carry = true;
            break;
        }
        escaped |= 1 << (at + 1);
        // The escaping backslash and the byte it escapes (perhaps another backslash).
        rest &= !(3 << at);
    }
    escaped
}

/// Bit `k` is the parity of the set bits at or below `k`: within a block, the bytes from
/// an opening quote (included) to its closing quote (excluded).
#[inline]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Whether the escape whose escaped byte is `b[at]` is one JSON allows: `\"`, `\\`, `\/`,
/// `\b`, `\f`, `\n`, `\r`, `\t`, or `\u` and four hex digits.
#[inline]
fn escape_ok(b: &[u8], at: usize) -> bool {
    match b.get(at) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => true,
        Some(b'u') => b
            .get(at + 1..at + 5)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)),
        _ => false,
    }
}

/// Checks the UTF-8 of `b` from `i` (at the start of a character) until at least `to`;
/// returns where it stopped (the end of the character that crosses `to`, if one does), or
/// `None` when the bytes are not UTF-8 (as `std::str::from_utf8` decides: no overlong
/// forms, no surrogates, nothing above U+10FFFF, no character cut off by the end).
fn utf8_until(b: &[u8], mut i: usize, to: usize) -> Option<usize> {
    while i < to {
        let c = b[i];
        if c < 0x80 {
            i += 1;
            continue;
        }
        // The length of the character, and the range of its second byte.
        let (n, lo, hi) = match c {
            0xc2..=0xdf => (2, 0x80, 0xbf),
            0xe0 => (3, 0xa0, 0xbf),
            0xe1..=0xec | 0xee..=0xef => (3, 0x80, 0xbf),
            0xed => (3, 0x80, 0x9f),
            0xf0 => (4, 0x90, 0xbf),
            0xf1..=0xf3 => (4, 0x80, 0xbf),
            0xf4 => (4, 0x80, 0x8f),
            _ => return None,
        };
        let rest = b.get(i + 1..i + n)?;
        if !(lo..=hi).contains(&rest[0]) || rest[1..].iter().any(|&x| x & 0xc0 != 0x80) {
            return None;
        }
        i += n;
    }
    Some(i)
}

/// What stage 1 found.
enum Stage1 {
    /// The text is UTF-8 and its token positions are the first this many of the scratch
    /// space.
    Tokens(usize),
    /// The text is not UTF-8.
    NotUtf8,
    /// Something stage 1 does not accept (a control character, a bad escape, an
    /// unterminated string): the scalar validator decides.
    Refer,
}

/// Stage 1 over `b`: the token positions into the start of `tokens` (which only grows),
/// with the UTF-8 check when `check_utf8`.
fn stage1(b: &[u8], check_utf8: bool, tokens: &mut Vec<u32>) -> Stage1 {
    let (mut escape_carry, mut in_string, mut scalar_carry) = (false, 0u64, 0u64);
    // The UTF-8 check has reached this byte, at the start of a character.
    let mut utf8_to = 0;
    let mut start = 0;
    // Every byte is at most one token; the buffer only grows.
    if tokens.len() < b.len() {
        tokens.resize(b.len(), 0);
    }
    let mut n = 0;
    let mut last = [b' '; 64];
    while start < b.len() {
        let block: &[u8; 64] = match b.get(start..start + 64) {
            Some(full) => full.try_into().expect("64 bytes"),
            None => {
                // The last, partial block, made whole with spaces (whitespace, so that
                // they start no token).
                last[..b.len() - start].copy_from_slice(&b[start..]);
                &last
            }
        };
        // The middle of a long string (no escape pending: a block that starts with an
        // escaped byte is worked out in full).
        let Some(m) = masks(block, in_string != 0 && !escape_carry) else {
            start += 64;
            continue;
        };
        if check_utf8 && m.non_ascii != 0 {
            let from = utf8_to.max(start + m.non_ascii.trailing_zeros() as usize);
            let to = b.len().min(start + 64);
            if from < to {
                match utf8_until(b, from, to) {
                    Some(end) => utf8_to = end,
                    None => return Stage1::NotUtf8,
                }
            }
        }
        let escaped = if m.backslash == 0 && !escape_carry {
            0
        } else {
            escaped_bits(m.backslash, &mut escape_carry)
        };
        let mut each = escaped;
        while each != 0 {
            if !escape_ok(b, start + each.trailing_zeros() as usize) {
                return Stage1::Refer;
            }
            each &= each - 1;
        }
        let quotes = m.quote & !escaped;
        let inside = prefix_xor(quotes) ^ in_string;
        in_string = ((inside as i64) >> 63) as u64;
        // A control character inside a string, or outside one anything but whitespace.
        if m.control != 0 {
            if m.control & inside != 0 {
                return Stage1::Refer;
            }
            let mut each = m.control;
            while each != 0 {
                if !matches!(block[each.trailing_zeros() as usize], b'\t' | b'\n' | b'\r') {
                    return Stage1::Refer;
                }
                each &= each - 1;
            }
        }
        let outside = !inside;
        let scalar = !m.separators & outside;
        let scalar_starts = scalar & !((scalar << 1) | scalar_carry);
        scalar_carry = scalar >> 63;
        let mut found = quotes | (m.ops & outside) | scalar_starts;
        while found != 0 {
            tokens[n] = (start + found.trailing_zeros() as usize) as u32;
            n += 1;
            found &= found - 1;
        }
        start += 64;
    }
    if in_string != 0 || escape_carry {
        return Stage1::Refer;
    }
    Stage1::Tokens(n)
}

/// Whether a number or literal may end before `b[e]`: at the end, or at whitespace, a
/// structural character or a quote (anything else would continue the token).
#[inline]
fn token_ends(b: &[u8], e: usize) -> bool {
    b.get(e).is_none_or(|&c| {
        matches!(
            c,
            b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' | b'{' | b'}' | b'[' | b']' | b'"'
        )
    })
}

/// Stage 2: the grammar of [`super::validate_with`] over the token positions, filling
/// `sk` as it does (a complete index). False for anything it does not accept.
fn stage2(b: &[u8], tokens: &[u32], sk: &mut Skips, stack: &mut Vec<(u8, usize)>) -> bool {
    sk.entries.clear();
    sk.complete = true;
    stack.clear();
    let at = |t: usize| tokens.get(t).map(|&p| p as usize);
    let mut t = 0;
    loop {
        // Expect a value at token t.
        let Some(i) = at(t) else { return false };
        match b[i] {
            open @ (b'{' | b'[') => {
                if stack.len() >= MAX_DEPTH {
                    return false;
                }
                sk.entries.push(Span {
                    start: i as u32,
                    end: 0,
                    next: 0,
                });
                let slot = sk.entries.len() - 1;
                t += 1;
                let close = if open == b'{' { b'}' } else { b']' };
                match at(t) {
                    Some(j) if b[j] == close => {
                        close_span(sk, slot, j + 1);
                        t += 1;
                    }
                    _ => {
                        stack.push((open, slot));
                        if open == b'{' {
                            let Some(next) = key(b, tokens, t, sk) else {
                                return false;
                            };
                            t = next;
                        }
                        continue;
                    }
                }
            }
            b'"' => {
                let Some(end) = at(t + 1) else { return false };
                push_span(sk, i, end + 1);
                t += 2;
            }
            c => {
                let end = match c {
                    b't' => literal(b, i, b"true"),
                    b'f' => literal(b, i, b"false"),
                    b'n' => literal(b, i, b"null"),
                    b'1'..=b'9' => {
                        // Most numbers are integers without a sign: their digits here,
                        // anything longer by the scalar rule.
                        let mut e = i + 1;
                        while b.get(e).is_some_and(u8::is_ascii_digit) {
                            e += 1;
                        }
                        match b.get(e) {
                            Some(b'.' | b'e' | b'E') => number_end(b, i),
                            _ => Ok(e),
                        }
                    }
                    b'-' | b'0' => number_end(b, i),
                    _ => return false,
                };
                match end {
                    Ok(e) if token_ends(b, e) => push_span(sk, i, e),
                    _ => return false,
                }
                t += 1;
            }
        }
        // After a value: close containers or move to the next member.
        loop {
            let Some(&(top, slot)) = stack.last() else {
                return t == tokens.len();
            };
            let Some(i) = at(t) else { return false };
            let close = if top == b'{' { b'}' } else { b']' };
            if b[i] == close {
                stack.pop();
                close_span(sk, slot, i + 1);
                t += 1;
                continue;
            }
            if b[i] != b',' {
                return false;
            }
            t += 1;
            if top == b'{' {
                let Some(next) = key(b, tokens, t, sk) else {
                    return false;
                };
                t = next;
            }
            break;
        }
    }
}

/// A key and its colon at token `t`: indexes the key and returns the token after the
/// colon.
#[inline]
fn key(b: &[u8], tokens: &[u32], t: usize, sk: &mut Skips) -> Option<usize> {
    let (&open, &close, &colon) = (tokens.get(t)?, tokens.get(t + 1)?, tokens.get(t + 2)?);
    if b[open as usize] != b'"' || b[colon as usize] != b':' {
        return None;
    }
    push_span(sk, open as usize, close as usize + 1);
    Some(t + 3)
}

/// Checks and indexes `b` as [`super::Document::index_into`] does, checking in the same
/// pass that it is UTF-8 when `check_utf8` (else it must be): `None` when it is not UTF-8,
/// else what [`super::validate_with`] gives, with the same index.
pub(super) fn index(
    b: &[u8],
    check_utf8: bool,
    skips: &mut Skips,
    scratch: &mut ParseScratch,
) -> Option<Result<(), JsonError>> {
    if b.len() <= COMPLETE_INDEX_BYTES {
        match stage1(b, check_utf8, &mut scratch.tokens) {
            Stage1::NotUtf8 => return None,
            Stage1::Tokens(n) if stage2(b, &scratch.tokens[..n], skips, &mut scratch.stack) => {
                return Some(Ok(()));
            }
            _ => {}
        }
    }
    // Long texts (their index is not complete), and whatever the stages did not accept.
    let text = std::str::from_utf8(b).ok()?;
    Some(validate_with(text, Some(skips), &mut scratch.stack))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*), so that a failure repeats.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
            &from[self.below(from.len())]
        }
        /// One of the words of `words`, parted by spaces.
        fn word<'a>(&mut self, words: &'a str) -> &'a [u8] {
            let all: Vec<&str> = words.split(' ').collect();
            all[self.below(all.len())].as_bytes()
        }
        fn bytes<'a>(&mut self, from: &[&'a [u8]]) -> &'a [u8] {
            from[self.below(from.len())]
        }
    }

    fn spans(sk: &Skips) -> (bool, Vec<(u32, u32, u32)>) {
        let entries = sk.entries.iter().map(|e| (e.start, e.end, e.next));
        (sk.complete, entries.collect())
    }

    /// The block stage against the scalar validator (the reference) on `b`: the same
    /// verdict (not UTF-8, or valid, or the same error at the same byte) and, when valid,
    /// the same index; and the stages alone (without falling back) accept exactly the
    /// valid texts. Returns whether `b` is valid JSON.
    fn same_as_reference(b: &[u8]) -> bool {
        let what = String::from_utf8_lossy(b);
        let reference = std::str::from_utf8(b).ok().map(|text| {
            let mut sk = Skips::default();
            (validate_with(text, Some(&mut sk), &mut Vec::new()), sk)
        });
        let mut scratch = ParseScratch::default();
        // Indexes left from another text must not matter.
        let mut sk = Skips::default();
        let _ = index(b"[1,{\"a\":2}]", true, &mut sk, &mut scratch);
        let got = index(b, true, &mut sk, &mut scratch);
        match (&got, &reference) {
            (None, None) => return false,
            (Some(got), Some((want, want_sk))) => {
                assert_eq!(got, want, "verdict on {what:?}");
                if got.is_ok() {
                    assert_eq!(spans(&sk), spans(want_sk), "index of {what:?}");
                }
            }
            _ => panic!("UTF-8 verdict on {what:?}: {got:?}, reference {reference:?}"),
        }
        let valid = matches!(reference, Some((Ok(()), _)));
        if let Some((_, want_sk)) = &reference {
            // A text known to be UTF-8 (a `str`) gets the same.
            let mut sk = Skips::default();
            let got_str = index(b, false, &mut sk, &mut scratch);
            assert_eq!(got_str, got, "verdict on {what:?} as a str");
            if valid {
                assert_eq!(spans(&sk), spans(want_sk), "index of {what:?} as a str");
            }
        }
        if b.len() <= COMPLETE_INDEX_BYTES {
            let mut sk = Skips::default();
            let fast = match stage1(b, true, &mut scratch.tokens) {
                Stage1::Tokens(n) => stage2(b, &scratch.tokens[..n], &mut sk, &mut scratch.stack),
                _ => false,
            };
            assert_eq!(fast, valid, "the stages alone on {what:?}");
        }
        valid
    }

    /// A random JSON value of about `budget` tokens, with whitespace between tokens,
    /// strings of every kind (escapes, backslash runs, characters of 1 to 4 bytes, lone
    /// surrogate escapes) and numbers of every form.
    fn value(r: &mut Rng, budget: &mut i32, depth: usize, out: &mut Vec<u8>) {
        *budget -= 1;
        let ws = |r: &mut Rng, out: &mut Vec<u8>| {
            for _ in 0..[0, 0, 0, 1, 2, 70][r.below(6)] {
                out.push(*r.pick(b" \t\n\r"));
            }
        };
        ws(r, out);
        match r.below(if depth > 40 || *budget <= 0 { 4 } else { 6 }) {
            0 => string(r, out),
            1 => out.extend_from_slice(r.word(
                "0 -0 12 -3.25 1e400 6.02E+23 9007199254740993 0.5e-7 123456789012345678901234567890",
            )),
            2 => out.extend_from_slice(r.bytes(&[&b"true"[..], b"false", b"null"])),
            3 => string(r, out),
            open => {
                let object = open == 4;
                out.push(if object { b'{' } else { b'[' });
                let n = r.below(6);
                for k in 0..n {
                    if k > 0 {
                        ws(r, out);
                        out.push(b',');
                    }
                    if object {
                        ws(r, out);
                        string(r, out);
                        ws(r, out);
                        out.push(b':');
                    }
                    value(r, budget, depth + 1, out);
                }
                ws(r, out);
                out.push(if object { b'}' } else { b']' });
            }
        }
        ws(r, out);
    }

    fn string(r: &mut Rng, out: &mut Vec<u8>) {
        out.push(b'"');
        for _ in 0..[0, 1, 3, 10, 40, 130][r.below(6)] {
            match r.below(12) {
                0 => out.extend_from_slice(
                    r.word(r#"\" \\ \/ \b \f \n \r \t \u00e9 \uD800 \udfff \\\\\""#),
                ),
                1 => out.extend_from_slice(
                    r.pick(&["é", "€", "𝄞", "\u{7ff}", "\u{10ffff}"]).as_bytes(),
                ),
                2 => out.extend_from_slice(r.bytes(&[&b"{}[]:,"[..], b"true", b"12", b" \x7f"])),
                _ => out.push(b'a' + r.below(26) as u8),
            }
        }
        out.push(b'"');
    }

    /// Bytes that matter to the stages, to put into texts.
    const SHARP: &[u8] =
        b"\"\\{}[]:, \t\n\r\x00\x01\x0c\x1a\x1f\x7f\x80\xbf\xc3\xe2\xed\xf0\xf4\xf5\xffu0e-.a";

    fn mutate(r: &mut Rng, text: &[u8]) -> Vec<u8> {
        let mut t = text.to_vec();
        for _ in 0..1 + r.below(3) {
            let at = r.below(t.len() + 1);
            match r.below(5) {
                0 if at < t.len() => t[at] = *r.pick(SHARP),
                1 if at < t.len() => {
                    t.remove(at);
                }
                2 => t.truncate(at),
                3 => {
                    let run = vec![*r.pick(b"\\\" \xe2"); 1 + r.below(4)];
                    t.splice(at..at, run);
                }
                _ => t.insert(at, *r.pick(SHARP)),
            }
        }
        t
    }

    #[test]
    fn the_sse2_masks_are_the_byte_masks() {
        let mut r = Rng(7);
        for c in 0..=255u8 {
            for at in 0..64 {
                let mut block = [b'a'; 64];
                block[at] = c;
                let m = masks_bytes(&block);
                assert_eq!(masks(&block, false), Some(m), "byte {c:#x} at {at}");
                let special = m.quote | m.backslash | m.control | m.non_ascii;
                assert_eq!(
                    masks(&block, true).is_none(),
                    special == 0,
                    "{c:#x} at {at}"
                );
            }
        }
        for _ in 0..2000 {
            let block: [u8; 64] = std::array::from_fn(|_| *r.pick(SHARP));
            assert_eq!(masks(&block, false), Some(masks_bytes(&block)), "{block:?}");
        }
    }

    #[test]
    fn escapes_are_the_bytes_after_odd_runs_of_backslashes() {
        let mut r = Rng(11);
        for _ in 0..5000 {
            // Two blocks, so that a run crosses from one to the next.
            let text: Vec<u8> = (0..128).map(|_| *r.pick(b"\\\\\\a")).collect();
            let mut want = vec![false; 129];
            let mut k = 0;
            while k < text.len() {
                if text[k] == b'\\' {
                    want[k + 1] = true;
                    k += 2;
                } else {
                    k += 1;
                }
            }
            let mut carry = false;
            let mut got = vec![false; 129];
            for (half, chunk) in text.chunks(64).enumerate() {
                let bs = masks_bytes(chunk.try_into().expect("64")).backslash;
                let escaped = escaped_bits(bs, &mut carry);
                for (bit, slot) in got[64 * half..64 * half + 64].iter_mut().enumerate() {
                    *slot = escaped >> bit & 1 == 1;
                }
            }
            got[128] = carry;
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&text));
        }
    }

    #[test]
    fn utf8_is_decided_as_std_decides() {
        let mut r = Rng(5);
        for _ in 0..20_000 {
            let n = r.below(12);
            let b: Vec<u8> = (0..n)
                .map(|_| *r.pick(b"a\x7f\x80\x8f\x90\x9f\xa0\xbf\xc0\xc1\xc2\xdf\xe0\xe1\xec\xed\xee\xef\xf0\xf1\xf3\xf4\xf5\xff"))
                .collect();
            assert_eq!(
                utf8_until(&b, 0, b.len()).is_some(),
                std::str::from_utf8(&b).is_ok(),
                "{b:x?}"
            );
        }
    }

    #[test]
    fn the_block_stage_gives_the_scalar_verdict_error_and_index() {
        // The scalar validator's own cases, and texts that stop the stages at each rule.
        let listed = r#"0
-0
1e400
"\ud800"
[]
{}
true
"a\/b"

{"a":1,}
[1,]
01
"\x"
{} x
nul
1.
[1 2]
{"a" 1}
{1:2}
[tru]
[truex]
[1x]
["a"x]
"a\
"a
[\"a"]"#;
        let mut seeds: Vec<Vec<u8>> = listed.lines().map(|l| l.as_bytes().to_vec()).collect();
        for odd in [
            "\u{feff}{}",
            "\"a\u{1}\"",
            " {\"a\":[1,{}]}\r",
            "[\"tab\there\"]",
        ] {
            seeds.push(odd.as_bytes().to_vec());
        }
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus/jsonl_line");
        for entry in std::fs::read_dir(corpus).expect("the fuzz corpus") {
            seeds.push(std::fs::read(entry.expect("entry").path()).expect("readable"));
        }
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..300 {
            let mut text = Vec::new();
            let mut budget = r.below(60) as i32;
            value(&mut r, &mut budget, 0, &mut text);
            seeds.push(text);
        }
        let (mut valid, mut invalid) = (0, 0);
        for seed in &seeds {
            if same_as_reference(seed) {
                valid += 1;
            } else {
                invalid += 1;
            }
            for _ in 0..40 {
                if same_as_reference(&mutate(&mut r, seed)) {
                    valid += 1;
                } else {
                    invalid += 1;
                }
            }
        }
        // Both sides are well represented.
        assert!(
            valid > 1000 && invalid > 5000,
            "{valid} valid, {invalid} invalid"
        );
    }

    #[test]
    fn every_way_of_crossing_a_block_boundary_gives_the_scalar_verdict() {
        // Strings that put a quote, a backslash run, a multi-byte character (whole, cut
        // short or bad) or a control character at every byte around 64 and 128, in texts
        // ending at every position of a block, and shorter than one.
        let middles: [&[u8]; 16] = [
            b"\\\"",
            b"\\\\\"",
            b"\\\\\\\"",
            b"\\\\",
            b"\\\\\\",
            b"\\u12ab",
            b"\\u12a",
            "é".as_bytes(),
            "€".as_bytes(),
            "𝄞".as_bytes(),
            b"\xe2\x82",
            b"\xf0\x9d\x84",
            b"\xc3",
            b"\xed\xa0\x80",
            b"\x01",
            b"\t",
        ];
        let mut valid = 0;
        for pad in 0..140 {
            for middle in middles {
                for tail in [&b"\""[..], b"\",1]", b"\"   ", b"", b"\"x"] {
                    let mut text = b"[".to_vec();
                    text.extend(std::iter::repeat_n(b'a', pad));
                    text[0] = b'[';
                    text.insert(1, b'"');
                    text.extend_from_slice(middle);
                    text.extend_from_slice(tail);
                    text.push(b']');
                    valid += usize::from(same_as_reference(&text));
                    text.pop();
                    same_as_reference(&text);
                    same_as_reference(&text[1..]);
                }
            }
            // Structure and scalars at every offset: whitespace before a value, a number
            // or literal ending at the block's end.
            for value in [&b"{\"k\":[true,-1.5e3,null,\"\"]}"[..], b"12345", b"false"] {
                let mut text = vec![b' '; pad];
                text.extend_from_slice(value);
                valid += usize::from(same_as_reference(&text));
                text.extend_from_slice(b"  ");
                valid += usize::from(same_as_reference(&text));
            }
        }
        assert!(valid > 2000, "{valid} valid texts");
    }

    #[test]
    fn real_logs_give_the_scalar_verdict_and_index() {
        let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/samples");
        let mut lines = 0;
        for dir in ["jsonl", "crashed", "real"] {
            let Ok(entries) = std::fs::read_dir(format!("{samples}/{dir}")) else {
                continue;
            };
            for entry in entries {
                let path = entry.expect("entry").path();
                if path.extension().is_none_or(|e| e != "jsonl") {
                    continue;
                }
                let bytes = std::fs::read(&path).expect("readable");
                for line in bytes.split(|&c| c == b'\n') {
                    same_as_reference(line);
                    lines += 1;
                }
            }
        }
        if lines == 0 {
            // As tests/common's `require`: required in CI, a one-line skip elsewhere.
            assert!(
                std::env::var_os("DSH_SESSION_REQUIRE_ALL").is_none_or(|v| v != "1"),
                "no samples under {samples} (DSH_SESSION_REQUIRE_ALL=1)"
            );
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "skipped: no samples under {samples}");
        }
    }
}
