//! Which files are SQLite stores, told before one is opened: by name (the extensions a
//! directory walk looks at) and by the SQLite header (FORMAT.md §8). Below both the store
//! reader ([`crate::load::sqlite`]) and the JSONL layout ([`crate::load::layout`]), which
//! each ask it.

use std::io::Read;
use std::path::Path;

use crate::load::line::SQLITE_MAGIC;

/// Extensions of files checked for a SQLite header when a directory is walked.
pub const STORE_EXTENSIONS: [&str; 3] = ["db", "sqlite", "sqlite3"];

/// True when `path` is a regular file that starts with the SQLite header, or an empty
/// (0-byte) regular file named as a store (`.db`, `.sqlite`, `.sqlite3`): SQLite opens an
/// empty file as a database with no objects, a pristine store with no sessions (§8, D4).
pub fn looks_like_store(path: &Path) -> bool {
    // Only a regular file can be a store; reading a pipe here would eat its first bytes.
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    if meta.len() == 0 {
        return has_store_extension(path);
    }
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == SQLITE_MAGIC)
}

/// A file opened once for a scan: its metadata and, for a regular file, its first 16
/// bytes, so that telling a store from a log ([`Opened::is_store`]), detecting the
/// encoding and reading the log cost one `open` and one `stat` (a walk over thousands of
/// small sessions paid three of each a file). The file is left at offset 16 (at 0 for
/// anything but a regular file, which is not read here).
pub struct Opened {
    /// The open file.
    pub file: std::fs::File,
    /// Its metadata, from the open file.
    pub meta: std::fs::Metadata,
    /// Up to its first 16 bytes (empty for anything but a regular file).
    pub head: Vec<u8>,
}

impl Opened {
    /// Opens `path` and reads its metadata and, when it is a regular file, its first bytes.
    ///
    /// # Errors
    /// Opening, `stat` or reading failed.
    pub fn open(path: &Path) -> std::io::Result<Opened> {
        let mut file = std::fs::File::open(path)?;
        let meta = file.metadata()?;
        let mut head = Vec::with_capacity(16);
        if meta.is_file() {
            (&mut file).take(16).read_to_end(&mut head)?;
        }
        Ok(Opened { file, meta, head })
    }

    /// [`looks_like_store`] of the file opened at `path`, from what was read.
    pub fn is_store(&self, path: &Path) -> bool {
        self.meta.is_file()
            && if self.meta.len() == 0 {
                has_store_extension(path)
            } else {
                self.head.as_slice() == SQLITE_MAGIC
            }
    }
}

/// True when the file name ends in one of [`STORE_EXTENSIONS`].
pub fn has_store_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| STORE_EXTENSIONS.contains(&e))
}
