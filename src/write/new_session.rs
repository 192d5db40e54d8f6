//! Publishing a new session in a DSH root (`recover`; FORMAT.md §7.1, §7.3): the writer
//! of sessions that did not exist, never of one that does.
//!
//! As DSH creates a session: the session directory and any missing parent are created with
//! mode 0700, the whole content goes to a temporary file in it (mode 0600) that is
//! fsynced, then renamed to its name without replacing anything (`renameat2` with
//! `RENAME_NOREPLACE`, or a hard link, which fails when the name exists), and the
//! directory is fsynced. zstd: the header line alone in the first frame (Z6), then the
//! records in checksummed frames of at most [`FRAME_BYTES`] of text each, split at line
//! ends (§7.5). A crash leaves either nothing at the name or the whole file; the
//! temporary file a crash may leave is one DSH ignores (`*.tmp`).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::load::Encoding;
use crate::write::durable::{crash_point, sync_dir};
use crate::write::plan::WriteError;
use crate::write::zstd_frame;

/// Text of one zstd frame at most (a batch of lines; a longer line gets a frame alone).
pub const FRAME_BYTES: usize = 1 << 20;

/// A session to publish.
#[derive(Debug, Clone)]
pub struct NewFile<'a> {
    /// Where: `ROOT/--<project>--/<session>/session[.vN].jsonl[.zstd]`.
    pub path: &'a Path,
    /// Its decoded JSONL text: the header line, then one record per line.
    pub text: &'a [u8],
    /// Plain JSONL or zstd.
    pub encoding: Encoding,
}

/// The bytes of `text` as stored in `encoding`.
///
/// # Errors
/// zstd encoding errors.
pub fn encoded(text: &[u8], encoding: Encoding) -> std::io::Result<Vec<u8>> {
    if encoding != Encoding::Zstd {
        return Ok(text.to_vec());
    }
    let header_end = memchr::memchr(b'\n', text).map_or(text.len(), |i| i + 1);
    let mut out = zstd_frame(&text[..header_end])?;
    let mut start = header_end;
    while start < text.len() {
        let mut end = start;
        while end < text.len() {
            let line_end = memchr::memchr(b'\n', &text[end..]).map_or(text.len(), |i| end + i + 1);
            if end > start && line_end - start > FRAME_BYTES {
                break;
            }
            end = line_end;
        }
        out.extend(zstd_frame(&text[start..end])?);
        start = end;
    }
    Ok(out)
}

/// Creates `dir` and its missing parents with mode 0700, fsyncing each parent a directory
/// was created in.
fn create_dirs(dir: &Path) -> std::io::Result<()> {
    let mut missing = Vec::new();
    let mut at = Some(dir);
    while let Some(d) = at.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        missing.push(d.to_path_buf());
        at = d.parent();
    }
    for d in missing.iter().rev() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new().mode(0o700).create(d)?;
        }
        #[cfg(not(unix))]
        std::fs::create_dir(d)?;
        sync_dir(d)?;
    }
    Ok(())
}

/// Whether `file` may not be published under the DSH `root`: its path exists, or its session
/// id names a session directory that holds a log in another project of the root (DSH
/// refuses a root that holds one id twice, FORMAT.md §7.1;
/// [`crate::load::layout::taken`]). A new session is never written over one.
pub fn taken(file: &NewFile<'_>, root: &Path) -> bool {
    crate::load::layout::taken(file.path, root)
}

/// A session log under the DSH `root` (`ROOT/<project>/<session>/session.*`) of the other
/// encoding than `encoding`, if any: DSH reads one encoding per root (FORMAT.md §7.1), so
/// sessions in `encoding` cannot be published beside it.
pub fn other_encoding(root: &Path, encoding: Encoding) -> Option<PathBuf> {
    let other = match encoding {
        Encoding::Zstd => ".jsonl",
        _ => ".jsonl.zstd",
    };
    let dirs = |dir: &Path| {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
    };
    dirs(root)
        .flat_map(|project| dirs(&project).collect::<Vec<_>>())
        .flat_map(|session| dirs(&session).collect::<Vec<_>>())
        .find(|file| {
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            name.starts_with("session.") && name.ends_with(other)
        })
}

/// What is wrong with a published file as its readers load it from its path (`None`: it
/// loads); the planner that made the file hands it to [`publish_read_back`].
pub type ReadBack<'a> = dyn FnMut(&Path) -> Option<String> + 'a;

/// [`publish`]es `files`, then reads each back from where it was written with `read_back`:
/// the first that does not load is removed again ([`withdraw`]; a defect of the planner,
/// since the same text passed in memory) and named in [`WriteError::NotLoaded`].
///
/// # Errors
/// As [`publish`]; [`WriteError::NotLoaded`].
pub fn publish_read_back(
    files: &[NewFile<'_>],
    read_back: &mut ReadBack<'_>,
) -> Result<(), WriteError> {
    publish(files)?;
    for f in files {
        if let Some(problem) = read_back(f.path) {
            withdraw(f.path);
            return Err(WriteError::NotLoaded {
                path: f.path.to_path_buf(),
                problem,
            });
        }
    }
    Ok(())
}

/// Publishes each file; a path that exists is never written over. Checks every path
/// first, so that nothing is written when one of them exists. Returns the paths written.
///
/// # Errors
/// [`WriteError::Exists`] (nothing written); I/O errors (the files published before the
/// failing one stay, whole).
pub fn publish(files: &[NewFile<'_>]) -> Result<Vec<PathBuf>, WriteError> {
    if let Some(f) = files.iter().find(|f| f.path.exists()) {
        return Err(WriteError::Exists(f.path.to_path_buf()));
    }
    let mut written = Vec::new();
    for f in files {
        publish_one(f)?;
        written.push(f.path.to_path_buf());
    }
    Ok(written)
}

/// Removes a session [`publish`] wrote that must not stay (it did not load when read back).
/// A file that cannot be removed is left as it is.
pub fn withdraw(path: &Path) {
    let _ = std::fs::remove_file(path);
}

fn publish_one(f: &NewFile<'_>) -> Result<(), WriteError> {
    let dir = f.path.parent().unwrap_or(Path::new("."));
    create_dirs(dir)?;
    let name = f
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut temp = tempfile::Builder::new()
        .prefix(&format!("{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)?;
    temp.write_all(&encoded(f.text, f.encoding)?)?;
    temp.as_file().sync_all()?;
    crash_point("recover-temp");
    match temp.persist_noclobber(f.path) {
        Ok(_) => {}
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(WriteError::Exists(f.path.to_path_buf()));
        }
        Err(e) => return Err(e.error.into()),
    }
    File::open(dir)?.sync_all()?;
    crash_point("recover-publish");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zstd_puts_the_header_alone_in_the_first_frame() {
        let text = b"{\"h\":1}\n{\"a\":1}\n{\"b\":2}\n";
        let bytes = encoded(text, Encoding::Zstd).expect("encodes");
        let first = zstd::zstd_safe::find_frame_compressed_size(&bytes).expect("a frame");
        assert_eq!(
            zstd::stream::decode_all(&bytes[..first]).expect("decodes"),
            b"{\"h\":1}\n"
        );
        assert_eq!(zstd::stream::decode_all(&bytes[..]).expect("decodes"), text);
    }

    #[test]
    fn an_existing_file_is_never_written_over() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("--p--").join("s").join("session.jsonl");
        let file = NewFile {
            path: &path,
            text: b"{}\n",
            encoding: Encoding::Plain,
        };
        publish(std::slice::from_ref(&file)).expect("first write");
        let again = NewFile {
            text: b"other\n",
            ..file
        };
        assert!(matches!(publish(&[again]), Err(WriteError::Exists(_))));
        assert_eq!(std::fs::read(&path).expect("reads"), b"{}\n");
    }
}
