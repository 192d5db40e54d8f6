//! Durable file steps for the JSONL backends: truncate, append, fsync of file and
//! directory, and the crash hook tests use to stop between steps (FORMAT.md §5.4).

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

use crate::write::plan::{CRASH_EXIT, CRASH_HOOK, Plan};

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

pub fn truncate(plan: &Plan, at: u64) -> io::Result<File> {
    let file = OpenOptions::new().write(true).open(&plan.path)?;
    file.set_len(at)?;
    file.sync_all()?;
    sync_dir(&plan.path)?;
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
