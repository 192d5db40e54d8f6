//! Reading what was appended to a log since the last poll, per encoding (FORMAT.md §5.5,
//! §7.5, §8): complete lines only, O(new bytes) per poll, O(1) when nothing changed.
//!
//! * plain JSONL: the bytes after the last one read; a final line without its newline is
//!   held back (a line in flight) and completed by the next poll;
//! * zstd JSONL: the frames after the last complete one; a frame in flight is waited for
//!   and only complete frames are decoded;
//! * SQLite: the rows of one session whose seq is greater than the last one read, in a
//!   fresh read-only query.
//!
//! A file that shrank below what was read, or that was replaced (a new inode, or for zstd
//! a changed prefix), is reported as [`Polled::Reread`]: the caller starts over.

use std::fs::File;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::load::sqlite_rows::open_session;
use crate::load::{Backend, Line, LineSource, SourceError, scan_frames};
use crate::rules::{Finding, Rule};

/// What a poll returns: an I/O error other than the file being absent for a moment, or a
/// store that no longer holds the session (an error of kind `Other` saying so).
pub type Result<T> = std::io::Result<T>;

/// What a poll found.
#[derive(Debug)]
pub enum Polled {
    /// Nothing new (or only part of a line or frame in flight).
    Same,
    /// Complete lines were appended to the output.
    New,
    /// The file must be read again from the start; why, in words.
    Reread(String),
    /// The new bytes break a framing rule (Z1, Z2, Z5, Z6, Z7, Q1–Q5): reading stops.
    Finding(Finding),
}

/// A line or frame in flight: what is held back, and what it is called once the wait
/// is over (FORMAT.md §5.5: J2 for a torn final line, Z3 for a torn final frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InFlight {
    /// J2 or Z3.
    pub rule: Rule,
    /// The line the held-back bytes would start.
    pub line: u64,
    /// Byte offset where they start in the stored file.
    pub offset: u64,
    /// How many bytes are held back.
    pub bytes: u64,
}

/// A log being read as it grows.
pub trait Tail {
    /// Reads what arrived since the last poll: complete lines are pushed to `out`.
    ///
    /// # Errors
    /// I/O errors other than the file being absent for a moment (then [`Polled::Same`]).
    fn poll(&mut self, out: &mut Vec<Line>) -> Result<Polled>;

    /// The line or frame in flight, if any.
    fn in_flight(&self) -> Option<InFlight>;

    /// More has arrived than the last poll read: poll again before waiting. Each poll reads
    /// a bounded amount ([`CHUNK_BYTES`], [`CHUNK_ROWS`]), so that catching up with a large
    /// log holds one chunk of it, never all of it.
    fn behind(&self) -> bool;

    /// SQLite: the session's backend (its header row), once read.
    fn backend(&self) -> Option<Backend> {
        None
    }
}

/// Bytes of a plain or zstd log read by one poll, at most (more when a single zstd frame
/// is larger).
pub const CHUNK_BYTES: u64 = 1 << 20;

/// SQLite rows read by one poll, at most.
pub const CHUNK_ROWS: usize = 4096;

/// `(device, inode)` of a file, where the platform has them.
fn identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The file's metadata, `None` while it does not exist (a rotation renames over it).
fn metadata(path: &Path) -> Result<Option<std::fs::Metadata>> {
    match std::fs::metadata(path) {
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads `[from, to)` of the file at `path`.
fn read_range(path: &Path, from: u64, to: u64) -> Result<Vec<u8>> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::with_capacity((to - from) as usize);
    file.take(to - from).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Splits decoded text into lines: complete lines go to `out`, the rest stays in `pending`.
struct Splitter {
    /// Decoded bytes after the last newline.
    pending: Vec<u8>,
    /// Lines emitted so far.
    number: u64,
    /// Decoded-text offset of `pending[0]`.
    offset: u64,
}

impl Splitter {
    fn new() -> Self {
        Splitter {
            pending: Vec::new(),
            number: 0,
            offset: 0,
        }
    }

    fn feed(&mut self, bytes: &[u8], out: &mut Vec<Line>) -> bool {
        let mut rest = bytes;
        let mut any = false;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            let mut line = std::mem::take(&mut self.pending);
            line.extend_from_slice(&rest[..i]);
            self.number += 1;
            let len = line.len() as u64;
            out.push(Line {
                bytes: line,
                number: self.number,
                offset: self.offset,
                terminated: true,
                ..Line::default()
            });
            self.offset += len + 1;
            rest = &rest[i + 1..];
            any = true;
        }
        self.pending.extend_from_slice(rest);
        any
    }
}

/// Plain JSONL.
pub struct PlainTail {
    path: PathBuf,
    identity: Option<(u64, u64)>,
    /// Bytes of the file read so far (the held-back partial line included).
    read_to: u64,
    /// The last bytes before `read_to`, to tell a file rewritten in place.
    prefix: Vec<u8>,
    lines: Splitter,
    /// The last poll stopped before the end of the file.
    behind: bool,
}

impl PlainTail {
    /// A tail of the plain JSONL log at `path`, from its first byte.
    pub fn new(path: &Path) -> Self {
        PlainTail {
            path: path.to_path_buf(),
            identity: None,
            read_to: 0,
            prefix: Vec::new(),
            lines: Splitter::new(),
            behind: false,
        }
    }
}

/// The first checks of every file poll: gone, replaced, shrunk (below `read_to`), the same
/// size as `seen` (nothing new), or its new size.
fn changed(
    path: &Path,
    known: &mut Option<(u64, u64)>,
    read_to: u64,
    seen: u64,
) -> Result<std::result::Result<u64, Polled>> {
    let Some(meta) = metadata(path)? else {
        return Ok(Err(Polled::Same));
    };
    let id = identity(&meta);
    if known.is_some() && id != *known {
        return Ok(Err(Polled::Reread(
            "the file was replaced (a new inode)".into(),
        )));
    }
    *known = id;
    let len = meta.len();
    if len < read_to {
        return Ok(Err(Polled::Reread(format!(
            "the file shrank from {read_to} to {len} bytes (a repair cut it)"
        ))));
    }
    if len == seen {
        return Ok(Err(Polled::Same));
    }
    Ok(Ok(len))
}

impl Tail for PlainTail {
    fn poll(&mut self, out: &mut Vec<Line>) -> Result<Polled> {
        let len = match changed(&self.path, &mut self.identity, self.read_to, self.read_to)? {
            Ok(len) => len,
            Err(polled) => return Ok(polled),
        };
        let from = self.read_to.saturating_sub(PREFIX_BYTES);
        let to = len.min(self.read_to + CHUNK_BYTES);
        self.behind = to < len;
        let bytes = read_range(&self.path, from, to)?;
        let (prefix, bytes) = bytes.split_at((self.read_to - from) as usize);
        if prefix != self.prefix.as_slice() {
            // Rewritten in place (cut and appended between two polls).
            return Ok(Polled::Reread(format!(
                "the file's bytes before offset {} changed (it was rewritten)",
                self.read_to
            )));
        }
        self.prefix = last_bytes(&self.prefix, bytes);
        self.read_to += bytes.len() as u64;
        Ok(if self.lines.feed(bytes, out) {
            Polled::New
        } else {
            Polled::Same
        })
    }

    fn in_flight(&self) -> Option<InFlight> {
        let held = self.lines.pending.len() as u64;
        (held > 0 && !self.behind).then(|| InFlight {
            rule: if self.lines.number == 0 {
                Rule::J1
            } else {
                Rule::J2
            },
            line: self.lines.number + 1,
            offset: self.read_to - held,
            bytes: held,
        })
    }

    fn behind(&self) -> bool {
        self.behind
    }
}

/// zstd JSONL, in DSH's frames (FORMAT.md §7.5).
pub struct ZstdTail {
    path: PathBuf,
    identity: Option<(u64, u64)>,
    /// End of the last complete frame read.
    frames_end: u64,
    /// The last bytes before `frames_end`, to tell a replaced file by its content.
    prefix: Vec<u8>,
    /// The file's size at the last poll.
    size: u64,
    lines: Splitter,
    /// Start of a frame in flight.
    torn_at: Option<u64>,
    /// The last poll stopped before the end of the file.
    behind: bool,
}

impl ZstdTail {
    /// A tail of the zstd JSONL log at `path`, from its first frame.
    pub fn new(path: &Path) -> Self {
        ZstdTail {
            path: path.to_path_buf(),
            identity: None,
            frames_end: 0,
            prefix: Vec::new(),
            size: 0,
            lines: Splitter::new(),
            torn_at: None,
            behind: false,
        }
    }
}

/// Bytes before the read position checked on each poll that finds the size changed.
const PREFIX_BYTES: u64 = 32;

/// The last [`PREFIX_BYTES`] of `before` followed by `after`.
fn last_bytes(before: &[u8], after: &[u8]) -> Vec<u8> {
    let keep = PREFIX_BYTES as usize;
    if after.len() >= keep {
        return after[after.len() - keep..].to_vec();
    }
    let mut joined = before.to_vec();
    joined.extend_from_slice(after);
    joined[joined.len().saturating_sub(keep)..].to_vec()
}

impl Tail for ZstdTail {
    fn poll(&mut self, out: &mut Vec<Line>) -> Result<Polled> {
        let len = match changed(&self.path, &mut self.identity, self.frames_end, self.size)? {
            Ok(len) => len,
            Err(polled) => return Ok(polled),
        };
        // A file rewritten in place with other frames: the bytes before the frames read
        // are no longer the ones read.
        let from = self.frames_end.saturating_sub(PREFIX_BYTES);
        let base = self.frames_end;
        let mut want = CHUNK_BYTES;
        let (bytes, to, scanned) = loop {
            let to = len.min(base + want);
            let bytes = read_range(&self.path, from, to)?;
            let scanned = scan_frames(&mut Cursor::new(&bytes[(base - from) as usize..]));
            let none_complete =
                matches!(&scanned, Err(SourceError::Finding(f)) if f.rule == Rule::Z4);
            if none_complete && to < len {
                // A frame larger than a chunk: read more of it.
                want *= 2;
                continue;
            }
            break (bytes, to, scanned);
        };
        let (prefix, new) = bytes.split_at((base - from) as usize);
        if prefix != self.prefix.as_slice() {
            return Ok(Polled::Reread(format!(
                "the file's bytes before offset {} changed (it was rewritten)",
                self.frames_end
            )));
        }
        self.size = to;
        self.behind = to < len;
        let map = match scanned {
            Ok(map) => map,
            // No complete frame yet: a frame in flight.
            Err(SourceError::Finding(f)) if f.rule == Rule::Z4 => {
                self.torn_at = (!new.is_empty()).then_some(base);
                return Ok(Polled::Same);
            }
            Err(SourceError::Finding(mut f)) => {
                f.message = format!("{} (offsets counted from byte {base})", f.message);
                return Ok(Polled::Finding(f));
            }
            Err(SourceError::Io(e)) => return Err(e),
            Err(SourceError::Session(what)) => return Err(std::io::Error::other(what)),
        };
        // A frame cut by the chunk's end is not in flight: the file holds more of it.
        self.torn_at = map.torn_at.filter(|_| !self.behind).map(|at| base + at);
        let mut any = false;
        for &(start, end) in &map.complete {
            let frame = &new[start as usize..end as usize];
            let text = match zstd::stream::decode_all(frame) {
                Ok(text) => text,
                Err(e) => {
                    let message = format!(
                        "zstd frame at byte offset {} fails decompression: {e}",
                        base + start
                    );
                    return Ok(Polled::Finding(Finding::new(Rule::Z5, None, None, message)));
                }
            };
            if self.frames_end == 0 {
                // §7.5: DSH writes the header in a frame of its own.
                let one_line = text.last() == Some(&b'\n')
                    && memchr::memchr(b'\n', &text) == Some(text.len() - 1);
                if !one_line {
                    let message =
                        "first zstd frame is not exactly one header line ending in a newline";
                    return Ok(Polled::Finding(Finding::new(
                        Rule::Z6,
                        None,
                        Some(1),
                        message,
                    )));
                }
            }
            any |= self.lines.feed(&text, out);
            self.frames_end = base + end;
        }
        if !self.lines.pending.is_empty() {
            let message = "complete frame contains a torn JSONL record: the decoded text does not end at a line boundary";
            let line = Some(self.lines.number + 1);
            return Ok(Polled::Finding(Finding::new(Rule::Z7, None, line, message)));
        }
        let keep = (self.frames_end - base) as usize;
        self.prefix = last_bytes(&self.prefix, &new[..keep]);
        Ok(if any { Polled::New } else { Polled::Same })
    }

    fn in_flight(&self) -> Option<InFlight> {
        self.torn_at.map(|at| InFlight {
            rule: Rule::Z3,
            line: self.lines.number + 1,
            offset: at,
            bytes: self.size - at,
        })
    }

    fn behind(&self) -> bool {
        self.behind
    }
}

/// One session of a SQLite store (FORMAT.md §8), read-only.
pub struct SqliteTail {
    path: PathBuf,
    session: Option<String>,
    /// The last row's seq read.
    after: Option<i64>,
    /// Size and modification time of the store and its WAL at the last poll.
    stamp: Option<Stamp>,
    backend: Option<Backend>,
    /// The last poll stopped after [`CHUNK_ROWS`] rows.
    behind: bool,
}

type Stamp = [(u64, Option<std::time::SystemTime>); 2];

impl SqliteTail {
    /// A tail of `session` (or the store's only session) in the store at `path`.
    pub fn new(path: &Path, session: Option<String>) -> Self {
        SqliteTail {
            path: path.to_path_buf(),
            session,
            after: None,
            stamp: None,
            backend: None,
            behind: false,
        }
    }

    fn stamp(&self) -> Stamp {
        let of =
            |p: &Path| std::fs::metadata(p).map_or((0, None), |m| (m.len(), m.modified().ok()));
        let mut wal = self.path.as_os_str().to_owned();
        wal.push("-wal");
        [of(&self.path), of(Path::new(&wal))]
    }
}

impl Tail for SqliteTail {
    fn poll(&mut self, out: &mut Vec<Line>) -> Result<Polled> {
        let stamp = self.stamp();
        if self.stamp == Some(stamp) && !self.behind {
            return Ok(Polled::Same);
        }
        self.stamp = Some(stamp);
        let source = match open_session(&self.path, self.session.as_deref()) {
            Ok(source) => source,
            Err(SourceError::Finding(f)) => return Ok(Polled::Finding(f)),
            Err(SourceError::Io(e)) => return Err(e),
            Err(SourceError::Session(what)) => return Err(std::io::Error::other(what)),
        };
        if self.backend.is_none() {
            let backend = source.backend();
            if let Backend::Sqlite { session, .. } = &backend {
                // Later polls read the same session, even if another one is added.
                self.session = Some(session.clone());
            }
            self.backend = Some(backend);
        }
        let mut source = match self.after {
            Some(seq) => source.after(seq),
            None => source,
        };
        let before = out.len();
        self.behind = false;
        loop {
            let mut line = Line::default();
            match source.next_line(&mut line) {
                Ok(true) => {
                    self.after = i64::try_from(line.number).ok();
                    out.push(line);
                    if out.len() - before >= CHUNK_ROWS {
                        break;
                    }
                }
                Ok(false) => break,
                Err(SourceError::Finding(f)) => return Ok(Polled::Finding(f)),
                Err(SourceError::Io(e)) => return Err(e),
                Err(SourceError::Session(what)) => return Err(std::io::Error::other(what)),
            }
        }
        self.behind = out.len() - before >= CHUNK_ROWS;
        Ok(if out.len() > before {
            Polled::New
        } else {
            Polled::Same
        })
    }

    fn in_flight(&self) -> Option<InFlight> {
        // A row is committed whole or not at all.
        None
    }

    fn backend(&self) -> Option<Backend> {
        self.backend.clone()
    }

    fn behind(&self) -> bool {
        self.behind
    }
}
