//! The files of a site export ([`crate::export::site`]): each page is written whole or not
//! at all (a temporary file beside it, synced, renamed over it), so a reader of the site
//! never sees half a page; a page of a session no longer exported is removed.

use std::io::Write as _;
use std::path::Path;

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, synced,
/// then renamed over `path` (mode 0644 on Unix). Used for a site's pages and for a
/// transcript `export -o FILE` writes.
///
/// # Errors
/// The directory cannot be written, or the rename fails.
pub fn replace_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".dsh-session-site.")
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        temp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `bytes` to `path` as [`replace_file`] does, unless `path` already holds exactly
/// these bytes; true when it wrote.
///
/// # Errors
/// As [`replace_file`].
pub fn replace_if_changed(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    replace_file(path, bytes)?;
    Ok(true)
}

/// Removes the file at `path`; a file already gone is not an error.
///
/// # Errors
/// The file exists and cannot be removed.
pub fn remove_file(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// [`replace_file`], then the directory synced so that the rename is durable: a transcript
/// `export -o FILE` writes.
///
/// # Errors
/// As [`replace_file`] and [`sync_dir`].
pub fn replace_file_durably(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace_file(path, bytes)?;
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => sync_dir(dir),
        _ => sync_dir(Path::new(".")),
    }
}

/// Syncs the directory `dir`, so the renames in it are durable.
///
/// # Errors
/// The directory cannot be opened or synced.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}
