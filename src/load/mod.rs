//! Loading: open a log by path or standard input, detect its encoding, and yield its
//! decoded lines (FORMAT.md §7.2, §7.5, §5.5.2).
//!
//! This module knows bytes, frames and lines; it knows nothing about events or surfaces.
//! Plain JSONL is read line by line from a buffered reader. A `.jsonl.zstd` file is first
//! scanned frame by frame without decompressing (Z1–Z4), then its frames are decoded one
//! at a time into lines. Memory is bounded by the longest line, never by the file.

pub mod frames;
pub mod layout;
pub mod leftovers;
pub mod line;
pub mod log_name;
pub mod packed;
pub mod read_ahead;
pub mod resume;
pub mod sqlite;
pub mod sqlite_rows;
pub mod stat;
pub mod store_file;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

pub use frames::{FrameMap, decode_torn_frame, scan_frames};
pub use line::{
    Backend, Encoding, Line, LineSource, MAX_LINE_BYTES, ProgressFn, SQLITE_MAGIC, SourceError,
    ZSTD_MAGIC,
};

/// Errors that stop a load before any rule can be judged.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The input is a SQLite store that cannot be read.
    #[error(transparent)]
    Store(#[from] crate::load::sqlite::StoreError),
    /// A store holds no session of that id, or several and none was named.
    #[error("{0}")]
    Session(String),
}

/// A reader that reports the bytes read through it.
struct Counting<R> {
    inner: R,
    read: u64,
    report: ProgressFn,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        (self.report)(self.read);
        Ok(n)
    }
}

/// An opened log: where it came from, its encoding and its bytes.
pub struct Input {
    /// The path given (`-` for standard input).
    pub path: PathBuf,
    /// What the path says: the generation its name stands for, its place in a DSH root.
    pub place: layout::LogPlace,
    /// The encoding detected.
    pub encoding: Encoding,
    /// Size in bytes of the stored file (for standard input, of what was read so far).
    pub size: Option<u64>,
    reader: InputReader,
    /// Reported to as a zstd log's frames are decoded (plain JSONL reports as it reads).
    progress: Option<ProgressFn>,
}

enum InputReader {
    Plain(Box<dyn BufRead + Send>),
    Zstd(File),
    Sqlite,
}

impl Input {
    /// Opens `path` (`-` reads standard input) and detects the encoding: a SQLite header,
    /// or an empty file named `.db`, `.sqlite` or `.sqlite3` (a pristine store), means a store; a `.zstd` name or a zstd magic at byte 0 means zstd JSONL; anything
    /// else is plain JSONL. Standard input in zstd is spooled to a temporary file, since
    /// frames are located before they are decoded.
    ///
    /// # Errors
    /// I/O errors opening or reading; [`LoadError::Store`] for a SQLite store.
    pub fn open(path: &Path) -> Result<Self, LoadError> {
        Self::open_with_progress(path, None)
    }

    /// As [`Input::open`], reporting the bytes of the stored file read so far to
    /// `progress`: plain JSONL as it is read, zstd as each frame starts; SQLite reports
    /// nothing.
    ///
    /// # Errors
    /// As [`Input::open`].
    pub fn open_with_progress(
        path: &Path,
        progress: Option<ProgressFn>,
    ) -> Result<Self, LoadError> {
        if path == Path::new("-") {
            return Self::from_source(path, None, progress);
        }
        Self::from_opened(path, store_file::Opened::open(path)?, progress)
    }

    /// As [`Input::open_with_progress`], on a file [`Opened`](store_file::Opened) at `path`
    /// already: its metadata and first bytes are not read again.
    ///
    /// # Errors
    /// As [`Input::open`].
    pub fn from_opened(
        path: &Path,
        opened: store_file::Opened,
        progress: Option<ProgressFn>,
    ) -> Result<Self, LoadError> {
        if opened.meta.is_dir() {
            return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory").into());
        }
        Self::from_source(path, Some(opened), progress)
    }

    /// Detects the encoding of standard input (`opened` `None`) or of an opened file, and
    /// makes the reader.
    fn from_source(
        path: &Path,
        opened: Option<store_file::Opened>,
        progress: Option<ProgressFn>,
    ) -> Result<Self, LoadError> {
        let detect = |head: &[u8]| Encoding::detect(head, path);
        // Standard input, and a path that is a pipe (`<(zcat …)`), are read as streams:
        // detected by peeking, never by seeking.
        enum Source {
            Stream(Box<dyn Read + Send>),
            File(File, Vec<u8>),
        }
        let (source, size) = match opened {
            None => (Source::Stream(Box::new(io::stdin())), None),
            Some(o) if o.meta.is_file() => (Source::File(o.file, o.head), Some(o.meta.len())),
            Some(o) => (Source::Stream(Box::new(o.file)), Some(o.meta.len())),
        };
        let (encoding, reader) = match source {
            Source::Stream(stream) => {
                let mut reader: Box<dyn BufRead + Send> =
                    Box::new(BufReader::with_capacity(1 << 16, stream));
                let encoding = detect(&peek(&mut reader, 16)?);
                let reader = match encoding {
                    Encoding::Sqlite => {
                        let why = "a SQLite store cannot be read from standard input or a pipe";
                        return Err(LoadError::Session(format!("{why}; give its path")));
                    }
                    Encoding::Plain => InputReader::Plain(reader),
                    Encoding::Zstd => {
                        // Frames are located by seeking: keep the stream in a temporary file.
                        let mut spool = tempfile::tempfile()?;
                        io::copy(&mut reader, &mut spool)?;
                        spool.seek(SeekFrom::Start(0))?;
                        InputReader::Zstd(spool)
                    }
                };
                (encoding, reader)
            }
            Source::File(mut file, head) => {
                // A regular file whose first bytes were read (the file is past them).
                // An empty file named as a store is a pristine store (no sessions).
                let encoding =
                    if head.is_empty() && crate::load::store_file::has_store_extension(path) {
                        Encoding::Sqlite
                    } else {
                        detect(&head)
                    };
                // A buffer of 1 MiB, or as large as a smaller file (with a byte to spare to
                // see its end): a directory of small sessions opens thousands of files.
                let buffer = size
                    .and_then(|len| usize::try_from(len.saturating_add(1)).ok())
                    .map_or(1 << 20, |len| len.clamp(8 << 10, 1 << 20));
                let reader = match (encoding, &progress) {
                    (Encoding::Sqlite, _) => InputReader::Sqlite,
                    (Encoding::Zstd, _) => {
                        // Frames are located by seeking from the start.
                        file.seek(SeekFrom::Start(0))?;
                        InputReader::Zstd(file)
                    }
                    // Plain JSONL is read on from the first bytes: no seek back.
                    (Encoding::Plain, Some(report)) => {
                        let counting = Counting {
                            inner: io::Cursor::new(head).chain(file),
                            read: 0,
                            report: report.clone(),
                        };
                        InputReader::Plain(Box::new(BufReader::with_capacity(buffer, counting)))
                    }
                    (Encoding::Plain, None) => {
                        let rest = io::Cursor::new(head).chain(file);
                        InputReader::Plain(Box::new(BufReader::with_capacity(buffer, rest)))
                    }
                };
                (encoding, reader)
            }
        };
        Ok(Input {
            path: path.to_path_buf(),
            place: layout::LogPlace::of(path),
            encoding,
            size,
            reader,
            progress,
        })
    }

    /// A log held in memory: `text` is its decoded JSONL text (a zstd log's plaintext), read
    /// as plain JSONL; `name` says where it would be stored, so the checks that read a path
    /// (G2's generation, H6's place in a DSH root) judge it as if it were there. For a check
    /// before anything is written (`recover` validates the sessions it plans this way).
    pub fn from_text(name: &Path, text: Vec<u8>) -> Input {
        Input {
            path: name.to_path_buf(),
            place: layout::LogPlace::of(name),
            encoding: Encoding::Plain,
            size: Some(text.len() as u64),
            reader: InputReader::Plain(Box::new(io::Cursor::new(text))),
            progress: None,
        }
    }

    /// The decoded lines of the log.
    ///
    /// # Errors
    /// For zstd, the structural frame scan (Z1–Z4) and the header frame checks (Z5, Z6)
    /// run here, before any line is returned, as upstream does (FORMAT.md §6.2).
    pub fn lines(self, session: Option<&str>) -> Result<Box<dyn LineSource>, SourceError> {
        // A JSONL log holds one session: `--session` must name it (or a prefix of its id).
        let named = |lines: Box<dyn LineSource>| -> Box<dyn LineSource> {
            match session {
                Some(want) => Box::new(NamedSession {
                    inner: lines,
                    want: want.to_owned(),
                    checked: false,
                }),
                None => lines,
            }
        };
        match self.reader {
            InputReader::Plain(reader) => Ok(named(Box::new(PlainLines {
                reader,
                number: 0,
                offset: 0,
            }))),
            InputReader::Zstd(file) => Ok(named(Box::new(frames::ZstdLines::new(
                file,
                self.progress,
            )?))),
            InputReader::Sqlite => Ok(Box::new(crate::load::sqlite_rows::open_session(
                &self.path, session,
            )?)),
        }
    }
}

fn peek(reader: &mut Box<dyn BufRead + Send>, n: usize) -> io::Result<Vec<u8>> {
    // fill_buf may return fewer bytes than available; for 16 bytes one call is enough
    // unless the input arrives in tiny pieces, which only costs detection of a magic.
    let buf = reader.fill_buf()?;
    Ok(buf[..buf.len().min(n)].to_vec())
}

/// Reads up to and including the next `\n` into `out` (without the `\n`). A line longer
/// than [`MAX_LINE_BYTES`] is skipped to its end instead of kept (`out` is then empty).
/// Returns `(bytes consumed, terminated, too long)`.
fn read_line_bounded(reader: &mut dyn BufRead, out: &mut Vec<u8>) -> io::Result<(u64, bool, bool)> {
    let mut consumed = 0u64;
    let mut too_long = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok((consumed, false, too_long));
        }
        let (take, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let body = if done { take - 1 } else { take };
        if !too_long && out.len() + body > MAX_LINE_BYTES {
            too_long = true;
            *out = Vec::new();
        }
        if !too_long {
            out.extend_from_slice(&buf[..body]);
        }
        reader.consume(take);
        consumed += take as u64;
        if done {
            return Ok((consumed, true, too_long));
        }
    }
}

struct PlainLines {
    reader: Box<dyn BufRead + Send>,
    number: u64,
    offset: u64,
}

impl LineSource for PlainLines {
    fn skip_empty_lines(&mut self) -> Result<u64, SourceError> {
        let mut skipped = 0u64;
        loop {
            let buf = self.reader.fill_buf()?;
            let n = buf.iter().take_while(|&&b| b == b'\n').count();
            if n == 0 {
                break;
            }
            // The last newline of the input is a line like any other only if nothing follows;
            // keeping it in the count is harmless: it is empty either way.
            self.reader.consume(n);
            skipped += n as u64;
        }
        self.number += skipped;
        self.offset += skipped;
        Ok(skipped)
    }

    fn next_line(&mut self, line: &mut Line) -> Result<bool, SourceError> {
        line.bytes.clear();
        let (consumed, terminated, too_long) =
            read_line_bounded(&mut *self.reader, &mut line.bytes)?;
        if consumed == 0 {
            return Ok(false);
        }
        line.too_long = too_long;
        self.number += 1;
        line.number = self.number;
        line.offset = self.offset;
        line.terminated = terminated;
        line.from_torn_frame = false;
        self.offset += consumed;
        Ok(true)
    }
}

/// The lines of a JSONL log read with `--session`: the header's `id` must be the session
/// named, or begin with it, as a store's session is picked by a unique prefix; another
/// session is an error ([`SourceError::Session`]), never ignored. A header that is not JSON
/// is left to the header checks.
struct NamedSession {
    inner: Box<dyn LineSource>,
    want: String,
    checked: bool,
}

impl LineSource for NamedSession {
    fn next_line(&mut self, line: &mut Line) -> Result<bool, SourceError> {
        let more = self.inner.next_line(line)?;
        if !std::mem::replace(&mut self.checked, true) && more {
            let text = String::from_utf8_lossy(&line.bytes);
            let id = crate::json::Json::parse(&text)
                .ok()
                .and_then(|h| h.get("id"))
                .and_then(|id| id.as_str().map(std::borrow::Cow::into_owned));
            if let Some(id) = id.filter(|id| !id.starts_with(&self.want)) {
                return Err(SourceError::Session(format!(
                    "--session {}: this log holds session {id}; a JSONL log holds one session (--session picks one of a SQLite store's)",
                    self.want
                )));
            }
        }
        Ok(more)
    }

    fn torn_frame(&self) -> Option<u64> {
        self.inner.torn_frame()
    }

    fn torn_frame_undecodable(&self) -> u64 {
        self.inner.torn_frame_undecodable()
    }

    fn backend(&self) -> Backend {
        self.inner.backend()
    }

    fn skip_empty_lines(&mut self) -> Result<u64, SourceError> {
        self.inner.skip_empty_lines()
    }
}

/// A start of file DSH never writes, said with how to read the log: a compression
/// recognised by its magic number (gzip `1f 8b`, xz `fd 37 7a 58 5a 00`, bzip2 `BZh` and a
/// block size digit: `the file is gzip-compressed, …: read it with `zcat FILE | …``), or a
/// UTF-8 byte order mark (`ef bb bf`, as Notepad writes it), which `JSON.parse` refuses
/// before the header. A `.jsonl.zstd` that is not in DSH's frames is told apart by its own
/// rule (Z6).
pub fn foreign_compression(head: &[u8]) -> Option<String> {
    if head.starts_with(&[0xef, 0xbb, 0xbf]) {
        return Some(
            "the file starts with a UTF-8 byte order mark (as Notepad saves a file), which DSH never writes and cannot read: remove it (`sed -i '1s/^\\xEF\\xBB\\xBF//' FILE`) or read it with `tail -c +4 FILE | dsh-session validate -`"
                .to_owned(),
        );
    }
    let (format, reader) = if head.starts_with(&[0x1f, 0x8b]) {
        ("gzip", "zcat")
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
        ("xz", "xzcat")
    } else if head.len() >= 4 && head.starts_with(b"BZh") && head[3].is_ascii_digit() {
        ("bzip2", "bzcat")
    } else {
        return None;
    };
    Some(format!(
        "the file is {format}-compressed, which DSH never writes: read it with `{reader} FILE | dsh-session validate -`"
    ))
}
