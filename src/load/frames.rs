//! zstd JSONL: locating frames without decompressing (Z1–Z4) and decoding them one at a
//! time into lines (FORMAT.md §7.5, §5.5.2).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use zstd::zstd_safe::{DCtx, InBuffer, OutBuffer};

use crate::load::line::{Line, LineSource, MAX_LINE_BYTES, ProgressFn, SourceError, ZSTD_MAGIC};
use crate::rules::{Finding, Rule};

/// Where the frames of a zstd file are (FORMAT.md §7.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameMap {
    /// Byte ranges `[start, end)` of the structurally complete frames.
    pub complete: Vec<(u64, u64)>,
    /// Start offset of a torn final frame (Z3), when the file ends inside one.
    pub torn_at: Option<u64>,
    /// Bytes at the end of the torn frame after its last complete block (all of it when
    /// its frame header is cut): they cannot be decoded. 0 without a torn frame, or when
    /// the file ends at a block boundary or inside the checksum.
    pub torn_undecodable: u64,
    /// File size in bytes.
    pub len: u64,
}

/// Locates every frame without decompressing: magic, header descriptor, block headers and
/// checksum (FORMAT.md §7.5, rules Z1–Z4).
///
/// # Errors
/// Z1, Z2 or Z4 as a finding; I/O errors.
pub fn scan_frames<R: Read + Seek>(reader: &mut R) -> Result<FrameMap, SourceError> {
    let len = reader.seek(SeekFrom::End(0))?;
    reader.seek(SeekFrom::Start(0))?;
    let mut r = BufReader::new(reader);
    let mut map = FrameMap {
        complete: Vec::new(),
        torn_at: None,
        torn_undecodable: 0,
        len,
    };
    let mut at = 0u64;
    let finding = |rule, message: String| {
        Err(SourceError::Finding(Finding::new(
            rule, None, None, message,
        )))
    };
    while at < len {
        let start = at;
        // The file ends inside this frame; the bytes from `decodable_end` on do not decode.
        let torn = |map: &mut FrameMap, decodable_end: u64| {
            map.torn_at = Some(start);
            map.torn_undecodable = len - decodable_end;
        };
        if len - at < 4 {
            torn(&mut map, start);
            break;
        }
        let mut magic = [0u8; 4];
        r.read_exact(&mut magic)?;
        at += 4;
        if magic != ZSTD_MAGIC {
            return finding(
                Rule::Z1,
                format!(
                    "invalid zstd frame magic {:02x} {:02x} {:02x} {:02x} at byte offset {start}",
                    magic[0], magic[1], magic[2], magic[3]
                ),
            );
        }
        if at >= len {
            torn(&mut map, start);
            break;
        }
        let mut d = [0u8; 1];
        r.read_exact(&mut d)?;
        at += 1;
        let desc = d[0];
        if desc & 0x18 != 0 {
            return finding(
                Rule::Z2,
                format!(
                    "zstd frame at byte offset {start} has reserved header bits set (descriptor {desc:#04x})"
                ),
            );
        }
        let single_segment = desc & 0x20 != 0;
        let fcs_bytes = match desc >> 6 {
            0 => u64::from(single_segment),
            1 => 2,
            2 => 4,
            _ => 8,
        };
        let did_bytes = [0u64, 1, 2, 4][usize::from(desc & 3)];
        let rest = u64::from(!single_segment) + did_bytes + fcs_bytes;
        if len - at < rest {
            torn(&mut map, start);
            break;
        }
        r.seek_relative(rest as i64)?;
        at += rest;
        let mut is_torn = false;
        // End of the last complete block: what follows it does not decode.
        let mut blocks_end = at;
        loop {
            if len - at < 3 {
                is_torn = true;
                break;
            }
            let mut h = [0u8; 3];
            r.read_exact(&mut h)?;
            at += 3;
            let header = u32::from(h[0]) | u32::from(h[1]) << 8 | u32::from(h[2]) << 16;
            let last = header & 1 == 1;
            let block_type = (header >> 1) & 3;
            let size = u64::from(header >> 3);
            if block_type == 3 {
                return finding(
                    Rule::Z2,
                    format!("zstd block of reserved type 3 at byte offset {}", at - 3),
                );
            }
            let payload = if block_type == 1 { 1 } else { size };
            if len - at < payload {
                is_torn = true;
                break;
            }
            r.seek_relative(payload as i64)?;
            at += payload;
            blocks_end = at;
            if last {
                break;
            }
        }
        if !is_torn && desc & 4 != 0 {
            if len - at < 4 {
                is_torn = true;
                // Only the checksum is cut: every block decodes.
                blocks_end = len;
            } else {
                r.seek_relative(4)?;
                at += 4;
            }
        }
        if is_torn {
            torn(&mut map, blocks_end);
            break;
        }
        map.complete.push((start, at));
    }
    if map.complete.is_empty() {
        return finding(
            Rule::Z4,
            "no structurally complete zstd frame (empty or header-less log)".into(),
        );
    }
    Ok(map)
}

/// Streams the decoded lines of a zstd JSONL file, frame by frame, decoding only as far
/// as the next newline, so memory stays bounded by the longest line.
pub(crate) struct ZstdLines {
    file: BufReader<File>,
    /// Offset in the file of the next byte `file` yields; `u64::MAX` when unknown.
    file_at: u64,
    /// Told the stored offset of each frame as it starts (bytes of the compressed file).
    progress: Option<ProgressFn>,
    map: FrameMap,
    /// Index of the next complete frame to start.
    next_frame: usize,
    /// Start offset of the frame being decoded, and its input bytes not yet fed.
    frame: Option<(u64, u64)>,
    /// The decoder's last hint: 0 when the current frame is finished.
    hint: usize,
    dctx: DCtx<'static>,
    out: Vec<u8>,
    /// Decoded bytes; `pending[cursor..]` is not yet returned as lines.
    pending: Vec<u8>,
    cursor: usize,
    /// `pending[cursor..scanned]` is known to hold no newline.
    scanned: usize,
    /// Decoded-text offset of `pending[cursor]`.
    offset: u64,
    number: u64,
    /// True once the torn frame's plaintext has been loaded.
    in_torn: bool,
    /// Bytes of the torn frame that do not decode (see [`FrameMap::torn_undecodable`]),
    /// the whole frame when the decoder fails on it.
    torn_undecodable: u64,
    done: bool,
    /// Inside a line longer than [`MAX_LINE_BYTES`]: its bytes are being dropped.
    skipping: bool,
    /// The next line returned is such a line.
    too_long: bool,
    /// Bytes of it dropped so far.
    skipped: u64,
}

const OUT_CHUNK: usize = 1 << 17;

impl ZstdLines {
    pub(crate) fn new(mut file: File, progress: Option<ProgressFn>) -> Result<Self, SourceError> {
        let map = scan_frames(&mut file)?;
        let mut lines = ZstdLines {
            file: BufReader::with_capacity(1 << 17, file),
            file_at: u64::MAX,
            progress,
            map,
            next_frame: 0,
            frame: None,
            hint: 0,
            dctx: DCtx::create(),
            out: vec![0u8; OUT_CHUNK],
            pending: Vec::new(),
            cursor: 0,
            scanned: 0,
            offset: 0,
            number: 0,
            in_torn: false,
            torn_undecodable: 0,
            done: false,
            skipping: false,
            too_long: false,
            skipped: 0,
        };
        // Z5/Z6 for the header frame run before any line is read (FORMAT.md §6.2).
        lines.start_frame()?;
        while lines.frame.is_some() {
            lines.step()?;
        }
        let one_line = lines.pending.last() == Some(&b'\n')
            && memchr::memchr(b'\n', &lines.pending) == Some(lines.pending.len() - 1);
        if !one_line {
            // A whole log compressed by the `zstd` tool is one frame of many lines: DSH
            // writes the header in a frame of its own (§7.5), so say how to read it.
            let many_lines = memchr::memchr(b'\n', &lines.pending)
                .is_some_and(|at| at + 1 < lines.pending.len())
                && lines.pending.starts_with(b"{\"type\":\"session\"");
            let hint = if many_lines {
                "; the file holds a whole log in one zstd frame, as the zstd tool writes it, not in DSH's frames: read it with `zstdcat FILE | dsh-session validate -`"
            } else {
                ""
            };
            return Err(SourceError::Finding(Finding::new(
                Rule::Z6,
                None,
                Some(1),
                format!(
                    "first zstd frame is not exactly one header line ending in a newline{hint}"
                ),
            )));
        }
        Ok(lines)
    }

    fn start_frame(&mut self) -> Result<(), SourceError> {
        let (start, end) = self.map.complete[self.next_frame];
        self.next_frame += 1;
        if let Some(report) = &self.progress {
            report(start);
        }
        // Frames follow one another: the next one starts where the last one ended, in the
        // bytes already buffered. A seek would drop the buffer and read it again, once per
        // frame, and DSH writes a frame for every append of one or two events.
        if self.file_at != start {
            self.file.seek(SeekFrom::Start(start))?;
            self.file_at = start;
        }
        self.dctx
            .reset(zstd::zstd_safe::ResetDirective::SessionOnly)
            .map_err(|c| z5(start, zstd::zstd_safe::get_error_name(c)))?;
        self.frame = Some((start, end - start));
        self.hint = 1;
        Ok(())
    }

    /// One decoder call on the current frame: at most [`OUT_CHUNK`] bytes of output.
    fn step(&mut self) -> Result<(), SourceError> {
        let Some((start, left)) = self.frame else {
            return Ok(());
        };
        let err = |c| z5(start, zstd::zstd_safe::get_error_name(c));
        let mut output = OutBuffer::around(&mut self.out[..]);
        let used = if left > 0 {
            let chunk = self.file.fill_buf()?;
            if chunk.is_empty() {
                return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into());
            }
            let take = (chunk.len() as u64).min(left) as usize;
            let mut input = InBuffer::around(&chunk[..take]);
            self.hint = self
                .dctx
                .decompress_stream(&mut output, &mut input)
                .map_err(err)?;
            input.pos()
        } else {
            let mut input = InBuffer::around(&[]);
            self.hint = self
                .dctx
                .decompress_stream(&mut output, &mut input)
                .map_err(err)?;
            0
        };
        let produced = output.pos();
        self.file.consume(used);
        self.file_at += used as u64;
        let left = left - used as u64;
        if self.hint == 0 && left > 0 {
            return Err(z5(start, "data after the end of the frame"));
        }
        if left == 0 && produced == 0 && used == 0 && self.hint != 0 {
            return Err(z5(start, "frame ends before its last block"));
        }
        self.frame = (self.hint != 0 || left > 0).then_some((start, left));
        self.append(produced)
    }

    fn append(&mut self, produced: usize) -> Result<(), SourceError> {
        if self.cursor > (1 << 20) && self.cursor * 2 > self.pending.len() {
            self.pending.drain(..self.cursor);
            self.scanned -= self.cursor;
            self.cursor = 0;
        }
        let out = &self.out[..produced];
        if self.skipping {
            // Inside an over-long line: drop bytes up to its newline.
            match memchr::memchr(b'\n', out) {
                Some(i) => {
                    self.skipping = false;
                    self.skipped += i as u64;
                    self.pending.extend_from_slice(&out[i..]);
                }
                None => self.skipped += produced as u64,
            }
            return Ok(());
        }
        self.pending.extend_from_slice(out);
        if self.pending.len() - self.cursor > MAX_LINE_BYTES
            && memchr::memchr(b'\n', &self.pending[self.scanned.max(self.cursor)..]).is_none()
        {
            self.skipping = true;
            self.too_long = true;
            self.skipped = (self.pending.len() - self.cursor) as u64;
            self.pending.truncate(self.cursor);
            self.pending.shrink_to(OUT_CHUNK);
            self.scanned = self.cursor;
        }
        Ok(())
    }

    fn decode_torn_frame(&mut self, start: u64) -> io::Result<Vec<u8>> {
        self.file.seek(SeekFrom::Start(start))?;
        self.file_at = u64::MAX;
        let mut bytes = Vec::new();
        (&mut self.file)
            .take(self.map.len - start)
            .read_to_end(&mut bytes)?;
        Ok(match try_decode_torn_frame(&bytes) {
            Some(plain) => {
                self.torn_undecodable = self.map.torn_undecodable;
                plain
            }
            None => {
                self.torn_undecodable = bytes.len() as u64;
                Vec::new()
            }
        })
    }
}

/// Decodes whatever the bytes of a torn final frame yield (FORMAT.md §5.5.2 Z8): a
/// streaming decode without the checksum; all of the plaintext or, on any decoder error
/// (or past [`MAX_LINE_BYTES`]), nothing.
pub fn decode_torn_frame(bytes: &[u8]) -> Vec<u8> {
    try_decode_torn_frame(bytes).unwrap_or_default()
}

/// [`decode_torn_frame`], with `None` for a decoder error or plaintext past
/// [`MAX_LINE_BYTES`] (then none of the frame counts as decoded).
fn try_decode_torn_frame(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut dctx = DCtx::create();
    let mut input = InBuffer::around(bytes);
    let mut plain = Vec::new();
    let mut out = vec![0u8; OUT_CHUNK];
    loop {
        let mut output = OutBuffer::around(&mut out[..]);
        dctx.decompress_stream(&mut output, &mut input).ok()?;
        let produced = output.pos();
        plain.extend_from_slice(&out[..produced]);
        if plain.len() > MAX_LINE_BYTES {
            return None;
        }
        if produced == 0 && input.pos() == bytes.len() {
            return Some(plain);
        }
    }
}

fn z5(start: u64, what: &str) -> SourceError {
    SourceError::Finding(Finding::new(
        Rule::Z5,
        None,
        None,
        format!("zstd frame at byte offset {start} fails decompression: {what}"),
    ))
}

impl LineSource for ZstdLines {
    fn skip_empty_lines(&mut self) -> Result<u64, SourceError> {
        let mut skipped = 0u64;
        loop {
            let n = self.pending[self.cursor..]
                .iter()
                .take_while(|&&b| b == b'\n')
                .count();
            self.cursor += n;
            self.scanned = self.scanned.max(self.cursor);
            skipped += n as u64;
            if self.cursor < self.pending.len() || self.frame.is_none() || self.too_long {
                break;
            }
            // Everything decoded so far was newlines: drop it and decode more.
            self.pending.clear();
            self.cursor = 0;
            self.scanned = 0;
            self.step()?;
        }
        self.number += skipped;
        self.offset += skipped;
        Ok(skipped)
    }

    fn torn_frame(&self) -> Option<u64> {
        self.map.torn_at
    }

    fn torn_frame_undecodable(&self) -> u64 {
        self.torn_undecodable
    }

    fn next_line(&mut self, line: &mut Line) -> Result<bool, SourceError> {
        loop {
            let from = self.scanned.max(self.cursor);
            if let Some(i) = memchr::memchr(b'\n', &self.pending[from..]) {
                let end = from + i;
                line.bytes.clear();
                line.bytes
                    .extend_from_slice(&self.pending[self.cursor..end]);
                self.number += 1;
                line.number = self.number;
                line.offset = self.offset;
                line.terminated = true;
                line.from_torn_frame = self.in_torn;
                line.too_long = std::mem::take(&mut self.too_long);
                self.offset += (end + 1 - self.cursor) as u64 + std::mem::take(&mut self.skipped);
                self.cursor = end + 1;
                self.scanned = self.cursor;
                return Ok(true);
            }
            self.scanned = self.pending.len();
            if self.frame.is_some() {
                self.step()?;
                continue;
            }
            if self.done {
                if self.cursor == self.pending.len() {
                    return Ok(false);
                }
                // The partial last line of a torn frame.
                line.bytes.clear();
                line.bytes.extend_from_slice(&self.pending[self.cursor..]);
                self.cursor = self.pending.len();
                self.number += 1;
                line.number = self.number;
                line.offset = self.offset;
                line.terminated = false;
                line.from_torn_frame = true;
                line.too_long = false;
                return Ok(true);
            }
            if self.next_frame < self.map.complete.len() {
                self.start_frame()?;
                continue;
            }
            if self.cursor < self.pending.len() || self.skipping {
                return Err(SourceError::Finding(Finding::new(
                    Rule::Z7,
                    None,
                    Some(self.number + 1),
                    "complete frame contains a torn JSONL record: the decoded text does not end at a line boundary",
                )));
            }
            self.done = true;
            if let Some(start) = self.map.torn_at {
                self.pending = self.decode_torn_frame(start)?;
                self.cursor = 0;
                self.scanned = 0;
                self.in_torn = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn frame(text: &str) -> Vec<u8> {
        let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        enc.include_checksum(true).unwrap();
        io::Write::write_all(&mut enc, text.as_bytes()).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn frames_are_located_exactly_and_a_torn_tail_is_found() {
        let a = frame("header\n");
        let b = frame("one\ntwo\n");
        let mut bytes = [a.clone(), b.clone()].concat();
        let map = scan_frames(&mut Cursor::new(&bytes)).unwrap();
        let (la, lb) = (a.len() as u64, b.len() as u64);
        assert_eq!(map.complete, vec![(0, la), (la, la + lb)]);
        assert_eq!(map.torn_at, None);
        bytes.truncate(bytes.len() - 2);
        let map = scan_frames(&mut Cursor::new(&bytes)).unwrap();
        assert_eq!(map.complete, vec![(0, la)]);
        assert_eq!(map.torn_at, Some(la));
        bytes.truncate(la as usize + 3);
        assert_eq!(
            scan_frames(&mut Cursor::new(&bytes)).unwrap().torn_at,
            Some(la)
        );
    }

    #[test]
    fn bad_magic_reserved_bits_and_no_frame() {
        let rule = |bytes: &[u8]| match scan_frames(&mut Cursor::new(bytes)) {
            Err(SourceError::Finding(f)) => f.rule,
            other => panic!("{other:?}"),
        };
        let a = frame("header\n");
        assert_eq!(
            rule(&[a.clone(), b"\x00\x00\x00\x00".to_vec()].concat()),
            Rule::Z1
        );
        // Skippable frames are refused too.
        assert_eq!(
            rule(&[a.clone(), vec![0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]].concat()),
            Rule::Z1
        );
        let mut reserved = a.clone();
        reserved[4] |= 0x08;
        assert_eq!(rule(&reserved), Rule::Z2);
        assert_eq!(rule(&a[..3]), Rule::Z4);
        assert_eq!(rule(b""), Rule::Z4);
    }
}
