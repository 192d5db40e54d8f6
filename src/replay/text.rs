//! The texts a fold keeps for its entries (derived messages for `messages`, previews for
//! `surface`): appended once, read back by reference. In memory up to a limit; past it,
//! spilled to an anonymous temporary file (deleted when closed, never named), so that
//! memory stays flat however many messages the surface ends with (issue 19).

use std::borrow::Cow;
use std::fs::File;
use std::io;

/// Where a text is: its byte offset among every text stored, and its length in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRef {
    /// Byte offset of the text's first byte.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
}

/// Bytes written to the spill file at once.
const FLUSH_AT: usize = 1 << 20;

/// Append-only text storage; see the module docs.
#[derive(Debug, Default)]
pub struct TextStore {
    /// Texts not spilled: every text, or (spilled) those after `spilled`.
    memory: Vec<u8>,
    /// Keep at most this many bytes in memory before spilling; `None`: never spill.
    limit: Option<usize>,
    file: Option<File>,
    /// Bytes in the spill file.
    spilled: u64,
    /// Set by [`TextStore::mark`]: texts stay in memory until [`TextStore::back_to`].
    held: bool,
}

/// Where a [`TextStore`] stood ([`TextStore::mark`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextMark {
    memory: usize,
}

impl Clone for TextStore {
    /// A copy of the texts held in memory; a spilled store's copy reads and writes its file
    /// through a second handle, at its own offsets (a copy that goes on past the other's
    /// end overwrites what the other wrote there: keep using one of them).
    fn clone(&self) -> Self {
        TextStore {
            memory: self.memory.clone(),
            limit: self.limit,
            file: self.file.as_ref().and_then(|f| f.try_clone().ok()),
            spilled: self.spilled,
            held: self.held,
        }
    }
}

impl TextStore {
    /// A store that keeps everything in memory.
    pub fn in_memory() -> Self {
        TextStore::default()
    }

    /// A store that spills to a temporary file once it holds `limit` bytes.
    pub fn spilling_after(limit: usize) -> Self {
        TextStore {
            limit: Some(limit),
            ..TextStore::default()
        }
    }

    /// Appends `text`; returns where it is.
    pub fn push(&mut self, text: &str) -> TextRef {
        let at = TextRef {
            offset: self.spilled + self.memory.len() as u64,
            len: text.len() as u64,
        };
        self.memory.extend_from_slice(text.as_bytes());
        if self.held {
            return at;
        }
        match (&mut self.file, self.limit) {
            (None, Some(limit)) if self.memory.len() > limit => {
                // A store that cannot spill (no temporary directory) keeps its texts.
                match tempfile::tempfile() {
                    Ok(file) => {
                        self.file = Some(file);
                        self.flush();
                    }
                    Err(_) => self.limit = None,
                }
            }
            (Some(_), Some(_)) if self.memory.len() >= FLUSH_AT => self.flush(),
            _ => {}
        }
        at
    }

    /// Moves the texts in memory to the spill file; on a write error they stay in memory
    /// and nothing more is spilled (`limit` becomes `None`).
    fn flush(&mut self) {
        let Some(file) = &self.file else { return };
        // At this store's own offset, not the file's cursor: a clone shares the cursor.
        match write_all_at(file, &self.memory, self.spilled) {
            Ok(()) => {
                self.spilled += self.memory.len() as u64;
                self.memory.clear();
            }
            Err(_) => self.limit = None,
        }
    }

    /// Where the store stands; until [`TextStore::back_to`], new texts stay in memory.
    pub(crate) fn mark(&mut self) -> TextMark {
        self.held = true;
        TextMark {
            memory: self.memory.len(),
        }
    }

    /// Forgets the texts pushed since `mark` (`forget`), or keeps them; spilling resumes
    /// either way.
    pub(crate) fn back_to(&mut self, mark: TextMark, forget: bool) {
        if forget {
            self.memory.truncate(mark.memory);
        }
        self.held = false;
    }

    /// The text at `at`.
    ///
    /// # Errors
    /// Reading the spill file failed; a text that is not UTF-8 (only a failing disk could
    /// make one) is an `InvalidData` error.
    pub fn get(&self, at: TextRef) -> io::Result<Cow<'_, str>> {
        let len = usize::try_from(at.len).map_err(|_| io::ErrorKind::InvalidData)?;
        if at.offset >= self.spilled {
            let start = (at.offset - self.spilled) as usize;
            let bytes = self
                .memory
                .get(start..start + len)
                .ok_or(io::ErrorKind::UnexpectedEof)?;
            return std::str::from_utf8(bytes)
                .map(Cow::Borrowed)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e));
        }
        let file = self.file.as_ref().ok_or(io::ErrorKind::NotFound)?;
        let mut bytes = vec![0; len];
        read_exact_at(file, &mut bytes, at.offset)?;
        String::from_utf8(bytes)
            .map(Cow::Owned)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

#[cfg(unix)]
fn write_all_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
}

#[cfg(windows)]
fn write_all_at(file: &File, mut buf: &[u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_write(file, buf, offset)? {
            0 => return Err(io::ErrorKind::WriteZero.into()),
            n => {
                buf = &buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, offset)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_read_back_from_memory_and_from_the_spill_file() {
        let mut store = TextStore::spilling_after(100);
        let texts: Vec<String> = (0..3_000).map(|i| format!("message {i} é")).collect();
        let refs: Vec<TextRef> = texts.iter().map(|t| store.push(t)).collect();
        assert!(store.spilled > 0, "past the limit, texts go to the file");
        assert!(
            !store.memory.is_empty(),
            "the last texts are still in memory"
        );
        for (t, r) in texts.iter().zip(&refs) {
            assert_eq!(store.get(*r).expect("read"), t.as_str());
        }
        let copy = store.clone();
        assert_eq!(copy.get(refs[5]).expect("read"), "message 5 é");
        let empty = store.push("");
        assert_eq!(store.get(empty).expect("read"), "");
    }

    #[test]
    fn an_in_memory_store_never_spills() {
        let mut store = TextStore::in_memory();
        let r = store.push(&"x".repeat(3 << 20));
        assert_eq!((store.spilled, store.file.is_none()), (0, true));
        assert_eq!(store.get(r).expect("read").len(), 3 << 20);
    }
}
