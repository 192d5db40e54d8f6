//! The units a backend yields: decoded lines and what went wrong reading them
//! (FORMAT.md §7.2, §5.5). Shared by the plain, zstd and SQLite readers.

use std::io;

use crate::rules::Finding;

/// Longest line kept, in bytes (224 MiB). A longer line is not buffered: its bytes are
/// skipped up to its newline and it counts as an unparsable record (J3), so a hostile
/// frame that decompresses to gigabytes cannot exhaust memory.
pub const MAX_LINE_BYTES: usize = 224 << 20;

/// The zstd frame magic, little-endian bytes `28 B5 2F FD` (FORMAT.md §7.5).
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The first 16 bytes of every SQLite database file.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// How a log file is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Plain JSONL text.
    Plain,
    /// Concatenated zstd frames holding JSONL text.
    Zstd,
    /// A SQLite database.
    Sqlite,
}

impl Encoding {
    /// The encoding of a log from its first bytes (16 are enough) and its name: a SQLite
    /// header, a zstd frame magic or a `.zstd` name, else plain JSONL.
    pub fn detect(head: &[u8], path: &std::path::Path) -> Encoding {
        if head.starts_with(SQLITE_MAGIC) {
            Encoding::Sqlite
        } else if path.to_string_lossy().ends_with(".zstd") || head.starts_with(&ZSTD_MAGIC) {
            Encoding::Zstd
        } else {
            Encoding::Plain
        }
    }

    /// `none`, `zstd` or `sqlite`, as `version` and `show` print it.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Plain => "none",
            Encoding::Zstd => "zstd",
            Encoding::Sqlite => "sqlite",
        }
    }
}

/// One decoded line.
#[derive(Debug, Default)]
pub struct Line {
    /// The bytes of the line without its `\n`.
    pub bytes: Vec<u8>,
    /// 1-based line number in the decoded text (the header is line 1).
    pub number: u64,
    /// Byte offset of the line's first byte in the decoded text.
    pub offset: u64,
    /// True when a `\n` ended the line; false for the final bytes of the text.
    pub terminated: bool,
    /// zstd only: true for lines recovered from a torn final frame (FORMAT.md §5.5.2 Z8).
    pub from_torn_frame: bool,
    /// SQLite only: why the row failed to decode (the line then holds no bytes).
    pub defect: Option<String>,
    /// True when the line was longer than [`MAX_LINE_BYTES`]: its bytes were skipped, not
    /// kept, and it cannot be parsed.
    pub too_long: bool,
    /// SQLite only: the skip index of the record, built while the row was decoded (the
    /// record is then known to be JSON), so that the scan does not parse it again.
    pub index: Option<crate::json::Skips>,
}

/// Where lines come from, and what that changes for the scan.
#[derive(Debug, Clone)]
pub enum Backend {
    /// A JSONL file: the first line is the header.
    Jsonl,
    /// A SQLite session: the header is the `sessions` row, already checked.
    Sqlite {
        /// The era of the store's schema.
        era: crate::event::Era,
        /// The `sessions` row.
        header: Box<crate::header::Header>,
        /// `seq` column numbers stand where JSONL has line numbers.
        session: String,
    },
}

/// A source of decoded lines.
pub trait LineSource: Send {
    /// Reads the next line into `line`. Returns `Ok(false)` at the end.
    ///
    /// # Errors
    /// I/O errors, or a finding (Z1–Z7, or a line over [`MAX_LINE_BYTES`]) that makes
    /// the rest of the input unreadable.
    fn next_line(&mut self, line: &mut Line) -> Result<bool, SourceError>;

    /// zstd only: the start offset of a torn final frame (FORMAT.md §5.5.2 Z3).
    fn torn_frame(&self) -> Option<u64> {
        None
    }

    /// zstd only: bytes at the end of a torn final frame that do not decode (an incomplete
    /// frame header or block, or the whole frame when the decoder fails on it), so what they
    /// held cannot be counted; 0 when everything the file holds of the frame decodes (only
    /// its checksum, or whole blocks, are missing). Known once [`LineSource::next_line`]
    /// has returned `Ok(false)`.
    fn torn_frame_undecodable(&self) -> u64 {
        0
    }

    /// The backend the lines come from.
    fn backend(&self) -> Backend {
        Backend::Jsonl
    }

    /// Skips a run of empty lines (`\n` alone) at the current position and returns how
    /// many: after the first defect they hold nothing to look at, and a hostile input
    /// can hold billions of them.
    ///
    /// # Errors
    /// As [`LineSource::next_line`].
    fn skip_empty_lines(&mut self) -> Result<u64, SourceError> {
        Ok(0)
    }
}

/// Why a line source stopped.
#[derive(Debug)]
pub enum SourceError {
    /// Reading failed.
    Io(io::Error),
    /// The bytes break a framing rule.
    Finding(Finding),
    /// A store holds no session of that id, or several and none was named.
    Session(String),
}

impl From<io::Error> for SourceError {
    fn from(e: io::Error) -> Self {
        SourceError::Io(e)
    }
}

/// Called with the number of bytes read so far, for a progress bar.
pub type ProgressFn = std::sync::Arc<dyn Fn(u64) + Send + Sync>;
