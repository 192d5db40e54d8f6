//! Durable file steps for the JSONL backends: truncate, append, fsync of file and
//! directory, and the crash hook tests use to stop between steps (FORMAT.md §5.4).

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

/// Environment variable that makes a repair stop right after the named step, for tests
/// that prove a crash at any point is recoverable: `backup`, `truncate`, `append-half`,
/// `append`, `transaction` (SQLite: before `COMMIT`).
pub const CRASH_HOOK: &str = "DSH_SESSION_REPAIR_CRASH_AFTER";

/// Exit code of a process stopped by [`CRASH_HOOK`].
pub const CRASH_EXIT: i32 = 75;

pub fn crash_point(step: &str) {
    if std::env::var(CRASH_HOOK).is_ok_and(|v| v == step) {
        std::process::exit(CRASH_EXIT);
    }
}

pub fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

pub fn truncate(path: &Path, at: u64) -> io::Result<File> {
    let file = OpenOptions::new().write(true).open(path)?;
    file.set_len(at)?;
    file.sync_all()?;
    sync_dir(path)?;
    crash_point("truncate");
    Ok(file)
}

pub fn append(mut file: File, bytes: &[u8], path: &Path) -> io::Result<()> {
    file.seek(SeekFrom::End(0))?;
    if std::env::var(CRASH_HOOK).is_ok_and(|v| v == "append-half") {
        file.write_all(&bytes[..bytes.len() / 2])?;
        file.sync_all()?;
        crash_point("append-half");
    }
    file.write_all(bytes)?;
    file.sync_all()?;
    sync_dir(path)?;
    crash_point("append");
    Ok(())
}
