//! What the damaged log holds, line by line: its header, every record that parses (with
//! its seqs), and every defect between them (FORMAT.md §5.5). Unlike a scan, reading goes
//! on past a defect: past a line that is not JSON, a seq that jumps or repeats, a zstd
//! frame that does not decode (Z5: the frames after it are located and decoded one by
//! one), a SQLite row that does not decode (Q7). Each record keeps its stored bytes, so a
//! recovered session can hold it byte for byte.
//!
//! The whole log is held in memory (a recovery reads it several times).

use std::path::Path;

use crate::check::header::check_header;
use crate::event::Era;
use crate::header::Header;
use crate::json::Json;
use crate::load::line::{Backend, Line, LineSource, SourceError};
use crate::load::packed::packed_span;
use crate::load::{Encoding, Input, LoadError, ZSTD_MAGIC, decode_torn_frame};
use crate::recover::header::{Rebuilt, rebuild_checked};
use crate::rules::{Finding, Rule};

/// One stored record: an event line, or a packed chunk row (v0, v1) standing for several.
#[derive(Debug, Clone)]
pub struct Record {
    /// Its line in the decoded text (the header is line 1); for SQLite, the row's `seq`.
    pub line: u64,
    /// The record as stored; for a line that is not valid UTF-8, as DSH decodes it
    /// (U+FFFD), with the stored bytes in `raw`.
    pub text: String,
    /// The stored bytes, when they are not valid UTF-8.
    pub raw: Option<Vec<u8>>,
    /// `type` (a packed row's tag).
    pub ty: String,
    /// Its (first) seq.
    pub seq: u64,
    /// Events it holds: 1, or a packed row's members.
    pub count: u64,
    /// `time` (a packed row's last member's), ms since the Unix epoch.
    pub time: Option<i64>,
    /// `data.turn` of a `turn/start` or `turn/end`.
    pub turn: Option<i64>,
    /// True for a packed chunk row.
    pub packed: bool,
}

impl Record {
    /// The stored bytes.
    pub fn bytes(&self) -> &[u8] {
        self.raw.as_deref().unwrap_or(self.text.as_bytes())
    }

    /// The seq after its last event.
    pub fn end(&self) -> u64 {
        self.seq + self.count
    }

    /// True when the record holds the event with this seq.
    pub fn holds(&self, seq: u64) -> bool {
        (self.seq..self.end()).contains(&seq)
    }
}

/// Stored bytes that hold no record: a line that is not an event, a zstd frame that does
/// not decode, a row that does not decode, a torn end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hole {
    /// The first line it spans, when lines can be told (for SQLite, the row's `seq`).
    pub line: Option<u64>,
    /// How many lines it spans (0 when that cannot be told: a frame that does not decode).
    pub lines: u64,
    /// zstd: the byte range `(offset, bytes)` of the frame it is.
    pub bytes: Option<(u64, u64)>,
    /// The rule its defect breaks (J3, J7, Z5, Q7 …).
    pub rule: Rule,
    /// What is wrong, in one line.
    pub why: String,
    /// The line's text (U+FFFD for bytes that are not UTF-8), when it is one line that
    /// can be quoted: a line that is not JSON or not an event object, at most
    /// [`QUOTABLE`] bytes.
    pub text: Option<String>,
}

impl Hole {
    /// zstd bytes that hold no line: `len` bytes at offset `at`, breaking `rule`.
    fn of_bytes(at: usize, len: usize, rule: Rule, why: String) -> Hole {
        Hole {
            line: None,
            lines: 0,
            bytes: Some((at as u64, len as u64)),
            rule,
            why,
            text: None,
        }
    }
}

/// The longest unreadable line a note quotes, in bytes.
pub const QUOTABLE: usize = 64 * 1024;

/// A record or a hole, in stored order.
#[derive(Debug, Clone)]
pub enum Item {
    /// A record.
    Record(Record),
    /// A hole.
    Hole(Hole),
}

/// The damaged log as read.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The header as stored (for SQLite, as a JSONL header line written from the
    /// `sessions` row, FORMAT.md §8.4).
    pub header_text: String,
    /// The header read.
    pub header: Header,
    /// The era the header says.
    pub era: Era,
    /// The encoding of the log.
    pub encoding: Encoding,
    /// For a SQLite store: the session read.
    pub session: Option<String>,
    /// Every record and hole after the header, in stored order.
    pub items: Vec<Item>,
    /// When the stored header is one DSH refuses: the header written in its place
    /// (`header_text` holds it), why, and what was assumed.
    pub rebuilt: Option<crate::recover::header::Rebuilt>,
}

impl Stored {
    /// The record at `index` of [`Stored::items`] (`None` for a hole).
    pub fn record(&self, index: usize) -> Option<&Record> {
        match self.items.get(index) {
            Some(Item::Record(r)) => Some(r),
            _ => None,
        }
    }
}

/// Why nothing of a log can be recovered.
#[derive(Debug, thiserror::Error)]
pub enum Unreadable {
    /// No intact header: nothing says which session the records belong to.
    #[error("{0}")]
    NoHeader(Finding),
    /// Reading failed.
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// Reads every record and hole of the log at `path` (one session of a SQLite store).
///
/// # Errors
/// [`Unreadable::NoHeader`] when the header is missing or not a DSH session header (H1–H5,
/// X1, G1, J1, Z4, Z6; a refused store); I/O errors.
pub fn read(path: &Path, session: Option<&str>) -> Result<Stored, Unreadable> {
    let input = Input::open(path)?;
    match input.encoding {
        Encoding::Zstd => read_zstd(path),
        encoding => {
            let lines = input.lines(session).map_err(source_error)?;
            read_lines(lines, encoding, path)
        }
    }
}

fn source_error(e: SourceError) -> Unreadable {
    match e {
        SourceError::Io(e) => Unreadable::Load(LoadError::Io(e)),
        SourceError::Session(what) => Unreadable::Load(LoadError::Session(what)),
        SourceError::Finding(f) => Unreadable::NoHeader(f),
    }
}

/// The header of a JSONL log, from its first line: as stored, or rebuilt in place of one
/// DSH refuses ([`crate::recover::header::rebuild_checked`]; `first_time` is the first record's).
fn header_of(
    line: &[u8],
    path: &Path,
    first_time: Option<i64>,
) -> Result<(String, Header, Era, Option<Rebuilt>), Unreadable> {
    let stored = String::from_utf8_lossy(line).into_owned();
    let named = crate::load::layout::generation_of_path(path);
    // The stored header is checked once; only a rebuilt one is checked again.
    let checked = check_header(&stored, named);
    let rebuilt = rebuild_checked(&stored, &checked, path, first_time);
    let (text, checked) = match &rebuilt {
        Some(r) => (r.text.clone(), check_header(&r.text, named)),
        None => (stored, checked),
    };
    match (checked.verdict, checked.header) {
        (Ok(era), Some(header)) => Ok((text, header, era, rebuilt)),
        (Err((rule, message)), _) => Err(Unreadable::NoHeader(Finding::new(
            rule,
            None,
            Some(1),
            message,
        ))),
        (Ok(_), None) => Err(Unreadable::NoHeader(Finding::new(
            Rule::H4,
            None,
            Some(1),
            "first line is not a session header",
        ))),
    }
}

fn read_lines(
    mut lines: Box<dyn LineSource>,
    encoding: Encoding,
    path: &Path,
) -> Result<Stored, Unreadable> {
    let mut first_line = None;
    let (mut header_text, mut header, era, session, mut rebuilt) = match lines.backend() {
        Backend::Sqlite {
            era,
            header,
            session,
        } => {
            let text = crate::export::jsonl::header_line(&header);
            (text, *header, era, Some(session), None)
        }
        Backend::Jsonl => {
            let mut first = Line::default();
            match lines.next_line(&mut first) {
                Ok(true) if first.terminated => {}
                Ok(_) => {
                    return Err(Unreadable::NoHeader(Finding::new(
                        Rule::J1,
                        None,
                        Some(1),
                        "the file holds no complete header line",
                    )));
                }
                Err(e) => return Err(source_error(e)),
            }
            let (text, header, era, rebuilt) = header_of(&first.bytes, path, None)?;
            first_line = Some(first.bytes.clone());
            (text, header, era, None, rebuilt)
        }
    };
    let mut items = Vec::new();
    let mut line = Line::default();
    let packed_rows = era.dialect().packed_rows;
    loop {
        match lines.next_line(&mut line) {
            Ok(true) => items.push(item_of(&line, packed_rows)),
            Ok(false) => break,
            Err(SourceError::Finding(f)) => {
                // A SQLite column that breaks Q1–Q5 ends the reading of the rows.
                let why = format!("{f}; no row after it can be read");
                items.push(Item::Hole(Hole {
                    line: f.line.or(f.row).or(f.seq),
                    lines: 0,
                    bytes: None,
                    rule: f.rule,
                    why,
                    text: None,
                }));
                break;
            }
            Err(e) => return Err(source_error(e)),
        }
    }
    if let (Some(first), Some(r)) = (&first_line, &rebuilt) {
        if r.first_is_record {
            let line = Line {
                bytes: first.clone(),
                number: 1,
                terminated: true,
                ..Line::default()
            };
            items.insert(0, item_of(&line, packed_rows));
        }
        (header_text, header, _, rebuilt) = header_of(first, path, first_time(&items))?;
    }
    Ok(Stored {
        header_text,
        header,
        era,
        encoding,
        session,
        items,
        rebuilt,
    })
}

/// One line after the header: a record, or the hole it is.
pub fn item_of(line: &Line, packed_rows: bool) -> Item {
    let hole = |rule, why: String| {
        // A line that is there but is no event can be quoted (not a torn one, a row, or
        // one too long to hold).
        let quotable = line.terminated
            && line.defect.is_none()
            && !line.too_long
            && line.bytes.len() <= QUOTABLE
            && matches!(rule, Rule::J3 | Rule::J4 | Rule::J7);
        Item::Hole(Hole {
            line: Some(line.number),
            lines: 1,
            bytes: None,
            rule,
            why,
            text: quotable.then(|| String::from_utf8_lossy(&line.bytes).into_owned()),
        })
    };
    if let Some(why) = &line.defect {
        return hole(Rule::Q7, format!("row fails to decode: {why}"));
    }
    if line.too_long {
        return hole(Rule::J3, "line too long to be parsed".into());
    }
    if !line.terminated {
        return hole(
            Rule::J2,
            "final line has no newline (torn final line)".into(),
        );
    }
    let (text, raw) = match std::str::from_utf8(&line.bytes) {
        Ok(t) => (t.to_owned(), None),
        Err(_) => (
            String::from_utf8_lossy(&line.bytes).into_owned(),
            Some(line.bytes.clone()),
        ),
    };
    let json = match Json::parse(&text) {
        Ok(j) => j,
        Err(e) => return hole(Rule::J3, format!("line is not valid JSON: {e}")),
    };
    if json.is_null() {
        return hole(Rule::J7, "line is JSON null".into());
    }
    if !json.is_object() {
        return hole(
            Rule::J4,
            format!("line is not an event object: {}", short(json.raw())),
        );
    }
    let [ty, seq, time, data] = json.lookup(["type", "seq", "time", "data"]);
    let ty = ty
        .and_then(Json::as_str)
        .map(|t| t.into_owned())
        .unwrap_or_default();
    if packed_rows && let Some(span) = packed_span(json) {
        return match span {
            Ok(span) => Item::Record(Record {
                line: line.number,
                ty,
                seq: span.seq0,
                count: span.len() as u64,
                time: span.times.last().copied(),
                turn: None,
                packed: true,
                text,
                raw,
            }),
            Err(what) => hole(Rule::J3, format!("invalid packed chunk row: {what}")),
        };
    }
    let Some(seq) = seq.and_then(Json::as_seq) else {
        return hole(Rule::J4, "the record has no seq".into());
    };
    let turn = matches!(ty.as_str(), "turn/start" | "turn/end")
        .then(|| {
            data.and_then(|d| d.get("turn"))
                .and_then(Json::as_safe_integer)
        })
        .flatten();
    Item::Record(Record {
        line: line.number,
        ty,
        seq,
        count: 1,
        time: time.and_then(Json::as_safe_integer),
        turn,
        packed: false,
        text,
        raw,
    })
}

/// The time of the first record that has one.
fn first_time(items: &[Item]) -> Option<i64> {
    items.iter().find_map(|i| match i {
        Item::Record(r) => r.time,
        Item::Hole(_) => None,
    })
}

fn short(text: &str) -> String {
    let cut: String = text.chars().take(40).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// A zstd log, frame by frame (FORMAT.md §5.5.2): a frame that does not decode or fails
/// its checksum (Z5) is a hole and the frames after it are read on; bytes that do not
/// start a frame (Z1, Z2) end the reading; a torn final frame gives its complete lines
/// (Z8).
fn read_zstd(path: &Path) -> Result<Stored, Unreadable> {
    let bytes = std::fs::read(path).map_err(LoadError::Io)?;
    let mut text_lines: Vec<Line> = Vec::new();
    let mut holes: Vec<(usize, Hole)> = Vec::new();
    let mut pending: Vec<u8> = Vec::new();
    let mut number = 0u64;
    let mut at = 0usize;
    let mut push_text = |plain: &[u8], pending: &mut Vec<u8>, lines: &mut Vec<Line>, torn: bool| {
        pending.extend_from_slice(plain);
        while let Some(i) = memchr::memchr(b'\n', pending) {
            number += 1;
            let rest = pending.split_off(i + 1);
            let mut body = std::mem::replace(pending, rest);
            body.pop();
            lines.push(Line {
                bytes: body,
                number,
                terminated: true,
                from_torn_frame: torn,
                ..Line::default()
            });
        }
    };
    while at < bytes.len() {
        let rest = &bytes[at..];
        match zstd::zstd_safe::find_frame_compressed_size(rest) {
            Ok(size) if size > 0 && size <= rest.len() => {
                match zstd::stream::decode_all(&rest[..size]) {
                    Ok(plain) => push_text(&plain, &mut pending, &mut text_lines, false),
                    Err(e) => {
                        // The part of a line the frame before began is lost with it.
                        pending.clear();
                        holes.push((
                            text_lines.len(),
                            Hole {
                                line: None,
                                lines: 0,
                                bytes: Some((at as u64, size as u64)),
                                rule: Rule::Z5,
                                why: format!(
                                    "the zstd frame at byte offset {at} ({size} bytes) fails decompression: {e}; the lines it held cannot be read"
                                ),
                                text: None,
                            },
                        ));
                    }
                }
                at += size;
            }
            _ if rest.starts_with(&ZSTD_MAGIC) => {
                // A torn final frame: its complete lines count, the rest is torn (Z8).
                let plain = decode_torn_frame(rest);
                push_text(&plain, &mut pending, &mut text_lines, true);
                holes.push((
                    text_lines.len(),
                    Hole::of_bytes(at, rest.len(), Rule::Z3, format!(
                        "the file ends inside the zstd frame at byte offset {at} (torn final frame); its complete lines are kept"
                    )),
                ));
                break;
            }
            _ => {
                holes.push((
                    text_lines.len(),
                    Hole::of_bytes(at, rest.len(), Rule::Z1, format!(
                        "the bytes at offset {at} do not start a zstd frame; nothing after them can be located"
                    )),
                ));
                break;
            }
        }
    }
    if !pending.is_empty() {
        number += 1;
        text_lines.push(Line {
            bytes: std::mem::take(&mut pending),
            number,
            terminated: false,
            ..Line::default()
        });
    }
    let Some(first) = text_lines
        .first()
        .filter(|l| l.number == 1 && holes.first().is_none_or(|(at, _)| *at > 0))
    else {
        return Err(Unreadable::NoHeader(Finding::new(
            Rule::Z4,
            None,
            Some(1),
            "the first zstd frame does not decode to a header line",
        )));
    };
    let (_, _, era, rebuilt_first) = header_of(&first.bytes, path, None)?;
    let packed_rows = era.dialect().packed_rows;
    let mut items = Vec::new();
    let mut holes = holes.into_iter().peekable();
    for (k, line) in text_lines.iter().enumerate() {
        while let Some((_, hole)) = holes.next_if(|(at, _)| *at == k) {
            items.push(Item::Hole(hole));
        }
        if k > 0 {
            items.push(item_of(line, packed_rows));
        }
    }
    items.extend(holes.map(|(_, h)| Item::Hole(h)));
    // A hole's line is the one after the lines before it.
    let mut next_line = 2;
    for item in &mut items {
        match item {
            Item::Record(r) => next_line = r.line + 1,
            Item::Hole(h) => {
                if h.line.is_none() {
                    h.line = Some(next_line);
                } else if let Some(l) = h.line {
                    next_line = l + h.lines.max(1);
                }
            }
        }
    }
    if rebuilt_first.is_some_and(|r| r.first_is_record) {
        items.insert(0, item_of(first, packed_rows));
    }
    let (header_text, header, _, rebuilt) = header_of(&first.bytes, path, first_time(&items))?;
    Ok(Stored {
        header_text,
        header,
        era,
        encoding: Encoding::Zstd,
        session: None,
        items,
        rebuilt,
    })
}
