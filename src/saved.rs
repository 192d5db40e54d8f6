//! The byte layout of a saved scan state ([`crate::scan::resume`]): LEB128 varints
//! ([`crate::varint`]), zigzag for signed numbers, length-prefixed UTF-8 strings, a presence
//! byte before each optional value.
//!
//! A saved state is derived data kept outside the log (the search index keeps one per log,
//! issue 28), so reading one must never trust it: [`In`] reads past its end as a failure,
//! never a panic, and remembers the first failure, which the caller checks once at the end
//! ([`In::finish`]).

use crate::rules::{Class, Finding, Rule};
use crate::varint;

/// A saved state being written.
#[derive(Debug, Default)]
pub struct Out {
    /// The bytes so far.
    pub bytes: Vec<u8>,
}

impl Out {
    /// An unsigned number.
    pub fn u64(&mut self, v: u64) {
        varint::write(&mut self.bytes, v);
    }

    /// A signed number (zigzag).
    pub fn i64(&mut self, v: i64) {
        self.u64(((v << 1) ^ (v >> 63)) as u64);
    }

    /// A flag.
    pub fn bool(&mut self, v: bool) {
        self.bytes.push(u8::from(v));
    }

    /// A string.
    pub fn str(&mut self, v: &str) {
        varint::write_bytes(&mut self.bytes, v.as_bytes());
    }

    /// An optional unsigned number.
    pub fn opt_u64(&mut self, v: Option<u64>) {
        self.bool(v.is_some());
        if let Some(v) = v {
            self.u64(v);
        }
    }

    /// An optional signed number.
    pub fn opt_i64(&mut self, v: Option<i64>) {
        self.bool(v.is_some());
        if let Some(v) = v {
            self.i64(v);
        }
    }

    /// An optional string.
    pub fn opt_str(&mut self, v: Option<&str>) {
        self.bool(v.is_some());
        if let Some(v) = v {
            self.str(v);
        }
    }

    /// A finding without provider details; false (nothing written) for one with them,
    /// which a saved state does not hold.
    pub fn finding(&mut self, f: &Finding) -> bool {
        if f.provider.is_some() {
            return false;
        }
        self.str(f.rule.id());
        self.u64(match f.class {
            Class::Corrupt => 0,
            Class::Refused => 1,
            Class::TornTail => 2,
            Class::Warning => 3,
            Class::Foreign => 4,
        });
        self.opt_u64(f.seq);
        self.opt_u64(f.line);
        self.opt_u64(f.row);
        self.str(&f.message);
        true
    }

    /// A list of findings; false when one of them cannot be saved.
    pub fn findings(&mut self, list: &[Finding]) -> bool {
        self.u64(list.len() as u64);
        list.iter().all(|f| self.finding(f))
    }
}

/// A saved state being read. Every read past the end or of a malformed value gives a
/// default and marks the reader failed.
#[derive(Debug)]
pub struct In<'a> {
    bytes: &'a [u8],
    pos: usize,
    failed: bool,
}

impl<'a> In<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        In {
            bytes,
            pos: 0,
            failed: false,
        }
    }

    /// Marks the reader failed (a value read well but out of its range).
    pub fn fail(&mut self) {
        self.failed = true;
    }

    /// True while every read so far succeeded.
    pub fn ok(&self) -> bool {
        !self.failed
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos.min(self.bytes.len())..]
    }

    /// True when every read succeeded and every byte was read.
    pub fn finish(&self) -> bool {
        !self.failed && self.pos == self.bytes.len()
    }

    /// An unsigned number.
    pub fn u64(&mut self) -> u64 {
        if self.pos >= self.bytes.len() {
            self.failed = true;
            return 0;
        }
        let start = self.pos;
        let v = varint::read(self.bytes, &mut self.pos);
        // A varint cut by the end, or longer than ten bytes, is damage.
        if self.pos - start > 10 || self.bytes[self.pos - 1] & 0x80 != 0 {
            self.failed = true;
        }
        v
    }

    /// A count of items that each take at least one byte: larger than the bytes left is
    /// damage (read as 0), so that a damaged count never sizes an allocation.
    pub fn count(&mut self) -> usize {
        let n = self.u64();
        if n > (self.bytes.len() - self.pos.min(self.bytes.len())) as u64 {
            self.failed = true;
            return 0;
        }
        n as usize
    }

    /// A signed number.
    pub fn i64(&mut self) -> i64 {
        let v = self.u64();
        ((v >> 1) as i64) ^ -((v & 1) as i64)
    }

    /// A flag.
    pub fn bool(&mut self) -> bool {
        match self.bytes.get(self.pos) {
            Some(&b) if b <= 1 => {
                self.pos += 1;
                b == 1
            }
            _ => {
                self.failed = true;
                false
            }
        }
    }

    /// A string.
    pub fn str(&mut self) -> &'a str {
        let len = self.count();
        let body = &self.bytes[self.pos..self.pos + len];
        self.pos += len;
        std::str::from_utf8(body).unwrap_or_else(|_| {
            self.failed = true;
            ""
        })
    }

    /// An optional unsigned number.
    pub fn opt_u64(&mut self) -> Option<u64> {
        self.bool().then(|| self.u64())
    }

    /// An optional signed number.
    pub fn opt_i64(&mut self) -> Option<i64> {
        self.bool().then(|| self.i64())
    }

    /// An optional string.
    pub fn opt_str(&mut self) -> Option<&'a str> {
        self.bool().then(|| self.str())
    }

    /// A finding written by [`Out::finding`].
    pub fn finding(&mut self) -> Finding {
        let rule = Rule::from_id(self.str());
        let class = match self.u64() {
            0 => Class::Corrupt,
            1 => Class::Refused,
            2 => Class::TornTail,
            3 => Class::Warning,
            4 => Class::Foreign,
            _ => {
                self.failed = true;
                Class::Warning
            }
        };
        let (seq, line, row) = (self.opt_u64(), self.opt_u64(), self.opt_u64());
        let message = self.str().to_owned();
        let rule = rule.unwrap_or_else(|| {
            self.failed = true;
            Rule::E1
        });
        Finding {
            rule,
            class,
            seq,
            line,
            row,
            message,
            provider: None,
        }
    }

    /// A list of findings written by [`Out::findings`].
    pub fn findings(&mut self) -> Vec<Finding> {
        let n = self.count();
        (0..n).map(|_| self.finding()).collect()
    }
}

/// FNV-1a over `bytes`, 64 bits: the checksum of a saved state and of a log's indexed
/// prefix (a check against accident, not against an adversary). Stable across builds and
/// platforms, unlike `std`'s hasher.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_damage() {
        let mut out = Out::default();
        out.u64(300);
        out.i64(-5);
        out.i64(i64::MIN);
        out.bool(true);
        out.str("héllo");
        out.opt_u64(None);
        out.opt_i64(Some(7));
        out.opt_str(Some("x"));
        let f = Finding::new(Rule::S4, Some(3), Some(5), "m");
        assert!(out.finding(&f));
        let mut r = In::new(&out.bytes);
        assert_eq!(r.u64(), 300);
        assert_eq!(r.i64(), -5);
        assert_eq!(r.i64(), i64::MIN);
        assert!(r.bool());
        assert_eq!(r.str(), "héllo");
        assert_eq!(r.opt_u64(), None);
        assert_eq!(r.opt_i64(), Some(7));
        assert_eq!(r.opt_str(), Some("x"));
        assert_eq!(r.finding(), f);
        assert!(r.finish());
        // Every cut of the bytes reads as a failure, never a panic.
        for cut in 0..out.bytes.len() {
            let mut r = In::new(&out.bytes[..cut]);
            let _ = (r.u64(), r.i64(), r.i64(), r.bool(), r.str(), r.opt_u64());
            let _ = (r.opt_i64(), r.opt_str(), r.finding());
            assert!(!r.finish(), "cut at {cut}");
        }
        // A count larger than what is left is damage, not an allocation.
        let mut big = Out::default();
        big.u64(u64::MAX);
        let mut r = In::new(&big.bytes);
        assert_eq!(r.count(), 0);
        assert!(!r.ok());
    }

    #[test]
    fn fnv1a_is_the_published_function() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
