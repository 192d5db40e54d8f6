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
        Stat {
            size: meta.len(),
            mtime_ns: meta.modified().map_or(0, ns_since_epoch),
            inode: inode(meta),
        }
    }

    /// The stat of the file at `path`, links followed.
    ///
    /// # Errors
    /// As [`std::fs::metadata`].
    pub fn of_path(path: &std::path::Path) -> std::io::Result<Stat> {
        std::fs::metadata(path).map(|meta| Stat::of(&meta))
    }
}

/// `t` in ns since the Unix epoch; 0 before it (unknown), saturating far after it.
pub fn ns_since_epoch(t: std::time::SystemTime) -> i64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// `sec` seconds and `nsec` ns since the Unix epoch, in ns, read as
/// [`ns_since_epoch`] reads a time: 0 before the epoch.
#[cfg(unix)]
fn ns(sec: i64, nsec: i64) -> i64 {
    if sec < 0 {
        0
    } else {
        sec.saturating_mul(1_000_000_000).saturating_add(nsec)
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

/// A directory whose files are stat'ed by their paths below it: the kernel looks up the
/// directory's own path once, not again for every file (on a root of 10,000 sessions, most
/// of the time of a `stat` is the lookup of each component of its path).
pub struct Below {
    root: std::path::PathBuf,
    #[cfg(target_os = "linux")]
    fd: Option<rustix::fd::OwnedFd>,
}

impl Below {
    /// `root`, opened for lookups only (`O_PATH`); where it cannot be, each `stat` takes
    /// the whole path.
    pub fn open(root: &std::path::Path) -> Below {
        Below {
            root: root.to_path_buf(),
            #[cfg(target_os = "linux")]
            fd: {
                use rustix::fs::{Mode, OFlags};
                rustix::fs::open(
                    root,
                    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .ok()
            },
        }
    }

    /// The [`Stat`] of `rel` below the root (`""`: the root itself), links followed, and
    /// its change time in ns since the Unix epoch (0 where unknown).
    ///
    /// # Errors
    /// As `stat(2)`: the path is gone, or cannot be reached.
    pub fn stat(&self, rel: &str) -> std::io::Result<(Stat, i64)> {
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.fd {
            let at = if rel.is_empty() { "." } else { rel };
            let s = rustix::fs::statat(fd, at, rustix::fs::AtFlags::empty())?;
            let stat = Stat {
                size: s.st_size as u64,
                mtime_ns: ns(s.st_mtime as i64, s.st_mtime_nsec as i64),
                inode: s.st_ino as u64,
            };
            return Ok((stat, ns(s.st_ctime as i64, s.st_ctime_nsec as i64)));
        }
        let path = if rel.is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        };
        let meta = std::fs::metadata(path)?;
        Ok((Stat::of(&meta), ctime_ns(&meta)))
    }
}

#[cfg(unix)]
fn ctime_ns(meta: &Metadata) -> i64 {
    use std::os::unix::fs::MetadataExt;
    ns(meta.ctime(), meta.ctime_nsec())
}

#[cfg(not(unix))]
fn ctime_ns(_meta: &Metadata) -> i64 {
    0
}
