//! LEB128 unsigned varints: the byte layout of the fold's compact surface records
//! ([`crate::replay`]) and of packed tool-call ids ([`crate::provider::CallIds`]).
//!
//! A value takes 1 byte below 128, 2 below 16,384, and at most 10 bytes for a `u64`.

/// Appends `value` to `out`: seven bits per byte, low bits first, the high bit set on every
/// byte but the last.
pub fn write(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads the varint at `*pos` in `bytes` and moves `*pos` past it. Bytes that end inside a
/// varint, or a varint longer than a `u64`, read as what was decoded so far (the layouts
/// that use this module only read what [`write()`] wrote).
pub fn read(bytes: &[u8], pos: &mut usize) -> u64 {
    let mut value = 0u64;
    let mut shift = 0u32;
    while let Some(&b) = bytes.get(*pos) {
        *pos += 1;
        if shift < 64 {
            value |= u64::from(b & 0x7f) << shift;
        }
        shift += 7;
        if b & 0x80 == 0 {
            break;
        }
    }
    value
}

/// Appends a length-prefixed byte string.
pub fn write_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    write(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Reads a byte string written by [`write_bytes`] and moves `*pos` past it; a length past
/// the end of `bytes` reads as the bytes that are there.
pub fn read_bytes<'a>(bytes: &'a [u8], pos: &mut usize) -> &'a [u8] {
    let len = read(bytes, pos) as usize;
    let start = (*pos).min(bytes.len());
    let end = start.saturating_add(len).min(bytes.len());
    *pos = end;
    &bytes[start..end]
}

/// Reads a byte string written by [`write_bytes`] as UTF-8 text (empty when it is not
/// UTF-8, which the layouts that use this module never write) and moves `*pos` past it.
pub fn read_str<'a>(bytes: &'a [u8], pos: &mut usize) -> &'a str {
    std::str::from_utf8(read_bytes(bytes, pos)).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_edges() {
        let values = [
            0,
            1,
            127,
            128,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ];
        let mut out = Vec::new();
        for v in values {
            write(&mut out, v);
        }
        assert_eq!(out.len(), 1 + 1 + 1 + 2 + 2 + 3 + 5 + 10);
        let mut pos = 0;
        let back: Vec<u64> = values.iter().map(|_| read(&out, &mut pos)).collect();
        assert_eq!(back, values);
        assert_eq!(pos, out.len());
    }

    #[test]
    fn byte_strings_round_trip_and_truncation_is_safe() {
        let mut out = Vec::new();
        write_bytes(&mut out, b"call_1");
        write_bytes(&mut out, b"");
        let mut pos = 0;
        assert_eq!(read_bytes(&out, &mut pos), b"call_1");
        assert_eq!(read_bytes(&out, &mut pos), b"");
        assert_eq!(pos, out.len());
        let mut pos = 0;
        assert_eq!(read_bytes(&out[..4], &mut pos), b"cal");
    }
}
