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

/// True when the file name ends in one of [`STORE_EXTENSIONS`].
pub fn has_store_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| STORE_EXTENSIONS.contains(&e))
}
