//! What tells that a file changed without opening it: its size, modification time and
//! inode, as the search index and the site export's manifest keep them.

use std::fs::Metadata;

/// What tells that a file changed without opening it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// Bytes.
    pub size: u64,
    /// Modification time, ns since the Unix epoch (0 when unknown).
    pub mtime_ns: i64,
    /// The inode (0 where std gives no stable file id).
    pub inode: u64,
}

impl Stat {
    /// The stat of a file's metadata.
    pub fn of(meta: &Metadata) -> Stat {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        Stat {
            size: meta.len(),
            mtime_ns,
            inode: inode(meta),
        }
    }
}

#[cfg(unix)]
fn inode(meta: &Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_meta: &Metadata) -> u64 {
    // No stable file id through std: a replaced file is told by its size and mtime.
    0
}
