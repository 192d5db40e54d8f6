//! Reading a plain JSONL log from a byte offset, for a scan taken up where an earlier one
//! stopped ([`crate::scan::resume`]): the lines after the offset, numbered and placed as a
//! read from the start would number and place them.

use std::fs::File;
use std::io::{self, BufReader, Seek, SeekFrom};

use super::{Counting, Line, LineSource, PlainLines, ProgressFn, read_line_bounded};

/// The lines of the plain JSONL `file` from byte `offset`, which must be the start of a
/// line: the first is numbered `number` (1-based, as the header is line 1). `progress` is
/// told the file offset reached, as a read from the start tells it.
///
/// # Errors
/// Seeking fails.
pub fn plain_lines_from(
    mut file: File,
    offset: u64,
    number: u64,
    progress: Option<ProgressFn>,
) -> io::Result<Box<dyn LineSource>> {
    file.seek(SeekFrom::Start(offset))?;
    let reader: Box<dyn io::BufRead + Send> = match progress {
        Some(report) => Box::new(BufReader::with_capacity(
            1 << 20,
            Counting {
                inner: file,
                read: offset,
                report,
            },
        )),
        None => Box::new(BufReader::with_capacity(1 << 20, file)),
    };
    Ok(Box::new(PlainLines {
        reader,
        number: number.saturating_sub(1),
        offset,
    }))
}

/// The first line of a plain JSONL file (the header), as the line reader gives it: its
/// bytes without the newline, line 1 at offset 0, and whether a newline ended it.
///
/// # Errors
/// Reading fails.
pub fn first_line(file: &mut File) -> io::Result<Line> {
    file.seek(SeekFrom::Start(0))?;
    let mut reader = BufReader::with_capacity(1 << 16, &mut *file);
    let mut line = Line {
        number: 1,
        ..Line::default()
    };
    let (_, terminated, too_long) = read_line_bounded(&mut reader, &mut line.bytes)?;
    line.terminated = terminated;
    line.too_long = too_long;
    Ok(line)
}
