//! The event rows of one session in a SQLite store, read as JSONL records (FORMAT.md §8.3,
//! §8.5; rules Q1–Q8): one lazily stepped statement, rows decoded on the reader thread.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::io::{Read, Write as _};
use std::path::Path;

use rusqlite::types::ValueRef;

use crate::event::Era;
use crate::header::Header;
use crate::json::{
    Document, Json, JsonError, MAX_SAFE_INTEGER, ParseScratch, RecordIndex, Skips, write_js_string,
};
use crate::load::line::{Backend, Line, LineSource, SourceError};
use crate::load::sqlite::{
    MAX_DATA_BYTES, MAX_PACKED_DATA_BYTES, Schema, Store, decode_source_seqs, kind_name, list,
    resolve_session, sql_err,
};
use crate::rules::{Finding, Rule};

const ROWS_PER_BATCH: usize = 2048;

/// Opens the store at `path` and selects a session: the one named (exactly, or by a
/// unique prefix, see [`resolve_session`]), or the only one.
///
/// # Errors
/// A refusal (D1–D6) or a malformed `sessions` row as a finding; no such session, an
/// ambiguous prefix, no session at all, or several with none named as
/// [`SourceError::Session`]; SQLite errors as I/O errors.
pub fn open_session(path: &Path, session: Option<&str>) -> Result<SqliteLines, SourceError> {
    let store = Store::open(path)?;
    let rows = store.sessions()?;
    let ids: Vec<String> = rows.iter().map(|(id, _)| id.clone()).collect();
    let index = match session {
        Some(want) => resolve_session(&ids, want).map_err(SourceError::Session)?,
        None if rows.len() == 1 => 0,
        None if rows.is_empty() => {
            return Err(SourceError::Session("store holds no sessions".into()));
        }
        None => {
            return Err(SourceError::Session(format!(
                "store holds {} sessions; name one with --session: {}",
                rows.len(),
                list(&ids)
            )));
        }
    };
    let row = rows
        .into_iter()
        .nth(index)
        .expect("index found above")
        .1
        .map_err(SourceError::Finding)?;
    if row.header.version != Some(0) {
        let v = row.header.version.unwrap_or_default();
        let why = if v > 0 {
            "it was written by a newer harness; upgrade the harness to read it"
        } else {
            "the version is older than v0 and this build has no upgrade path"
        };
        return Err(SourceError::Finding(Finding::new(
            Rule::H3,
            None,
            None,
            format!("session \"{}\" uses log format v{v}; {why}", row.header.id),
        )));
    }
    let era = store.schema.era();
    Ok(SqliteLines {
        store,
        session: row.header.id.clone(),
        header: row.header,
        era,
        queue: VecDeque::new(),
        after: None,
        exhausted: false,
        decompressor: zstd::bulk::Decompressor::default(),
        plain: Vec::new(),
        scratch: ParseScratch::default(),
        data_index: Skips::default(),
    })
}

/// The event rows of one session as JSONL records (see the module docs).
pub struct SqliteLines {
    store: Store,
    /// One zstd context for every row's `data` BLOB.
    decompressor: zstd::bulk::Decompressor<'static>,
    session: String,
    header: Header,
    era: Era,
    queue: VecDeque<RawRow>,
    after: Option<i64>,
    exhausted: bool,
    /// A row's decompressed `data`, kept between rows for its allocation.
    plain: Vec<u8>,
    /// The JSON checker's scratch space, kept between rows.
    scratch: ParseScratch,
    /// The index of a row's `data`, kept between rows for its allocation.
    data_index: Skips,
}

/// `String::from_utf8_lossy` with the check for valid UTF-8 (by far the common case) done
/// by `std::str::from_utf8`, which is much faster on it.
fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

struct RawRow {
    seq: Result<i64, String>,
    ty: Result<String, String>,
    time: Result<i64, String>,
    data: Result<Vec<u8>, String>,
    data_is_blob: bool,
    sources: Result<Option<(Vec<u8>, bool)>, String>,
    surface_op: Result<Option<String>, String>,
    ignorable: Result<Option<i64>, String>,
}

/// An integer column's value when it `fits`; else what is wrong: the column read as
/// something else, or `NAME N is not MUST` (Q1, FORMAT.md §5.5.3).
fn integer(
    column: &Result<i64, String>,
    name: &str,
    must: &str,
    fits: fn(i64) -> bool,
) -> Result<i64, String> {
    match column {
        Ok(n) if fits(*n) => Ok(*n),
        Ok(n) => Err(format!("{name} {n} is not {must}")),
        Err(e) => Err(e.clone()),
    }
}
impl SqliteLines {
    /// Reads only the rows whose seq is greater than `seq` (`follow`: the rows that arrived
    /// since the last poll, in a fresh query).
    pub fn after(mut self, seq: i64) -> Self {
        self.after = Some(seq);
        self
    }

    fn fetch(&mut self) -> Result<(), SourceError> {
        let sql = match self.store.schema {
            Schema::V4 => {
                "SELECT seq, type, time, data, source_event_seqs, surface_op, NULL FROM events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3"
            }
            _ => {
                "SELECT seq, type, time, data, source_event_seqs, surface_op, ignorable FROM events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3"
            }
        };
        let mut stmt = self.store.conn.prepare_cached(sql).map_err(sql_err)?;
        let after = self.after.unwrap_or(i64::MIN);
        let mut rows = stmt
            .query(rusqlite::params![
                self.session,
                after,
                ROWS_PER_BATCH as i64
            ])
            .map_err(sql_err)?;
        let mut n = 0;
        while let Some(row) = rows.next().map_err(sql_err)? {
            n += 1;
            let v = |i| row.get_ref(i).unwrap_or(ValueRef::Null);
            let seq = match v(0) {
                ValueRef::Integer(s) => Ok(s),
                other => Err(format!("seq is {}", kind_name(other))),
            };
            if let Ok(s) = seq {
                self.after = Some(s);
            }
            let text = |x: ValueRef<'_>| match x {
                ValueRef::Text(t) => Ok(lossy(t).into_owned()),
                other => Err(kind_name(other).to_owned()),
            };
            let (data, data_is_blob) = match v(3) {
                ValueRef::Text(t) => (Ok(t.to_vec()), false),
                ValueRef::Blob(b) => (Ok(b.to_vec()), true),
                other => (Err(format!("data is {}", kind_name(other))), false),
            };
            let sources = match v(4) {
                ValueRef::Null => Ok(None),
                ValueRef::Blob(b) => Ok(Some((b.to_vec(), true))),
                ValueRef::Text(t) => Ok(Some((t.to_vec(), false))),
                other => Err(format!("source_event_seqs is {}", kind_name(other))),
            };
            self.queue.push_back(RawRow {
                seq,
                ty: text(v(1)).map_err(|k| format!("type is {k}")),
                time: match v(2) {
                    ValueRef::Integer(t) => Ok(t),
                    other => Err(format!("time is {}", kind_name(other))),
                },
                data,
                data_is_blob,
                sources,
                surface_op: match v(5) {
                    ValueRef::Null => Ok(None),
                    ValueRef::Text(t) => Ok(Some(lossy(t).into_owned())),
                    other => Err(format!("surface_op is {}", kind_name(other))),
                },
                ignorable: match v(6) {
                    ValueRef::Null => Ok(None),
                    ValueRef::Integer(i) if i == 0 || i == 1 => Ok(Some(i)),
                    ValueRef::Integer(i) => Err(format!("ignorable is {i}")),
                    other => Err(format!("ignorable is {}", kind_name(other))),
                },
            });
            if self.after.is_none() {
                // A non-integer seq cannot be paged past; stop after this batch.
                self.exhausted = true;
            }
        }
        if n < ROWS_PER_BATCH {
            self.exhausted = true;
        }
        Ok(())
    }

    /// Q1–Q5, always fatal (FORMAT.md §5.5.3).
    fn check_columns(&self, row: &RawRow) -> Result<(i64, String, i64), Finding> {
        let fatal = |rule, what: String, seq: Option<u64>| {
            Finding::new(
                rule,
                seq,
                None,
                format!("session {:?}: invalid physical row: {what}", self.session),
            )
        };
        let seq = integer(&row.seq, "seq", "a non-negative safe integer", |s| {
            s >= 0 && (s as f64) <= MAX_SAFE_INTEGER
        })
        .map_err(|what| fatal(Rule::Q1, what, None))?;
        let at = Some(seq as u64);
        let ty = match &row.ty {
            Ok(t) if !t.is_empty() => t.clone(),
            Ok(_) => return Err(fatal(Rule::Q1, "type is empty".into(), at)),
            Err(e) => return Err(fatal(Rule::Q1, e.clone(), at)),
        };
        let time = integer(&row.time, "time", "a safe integer", |t| {
            (t as f64).abs() <= MAX_SAFE_INTEGER
        })
        .map_err(|what| fatal(Rule::Q1, what, at))?;
        if let Err(e) = &row.data {
            return Err(fatal(Rule::Q2, e.clone(), at));
        }
        match &row.sources {
            Err(e) => return Err(fatal(Rule::Q3, e.clone(), at)),
            Ok(Some((_, false))) if self.store.schema == Schema::V17 => {
                return Err(fatal(Rule::Q3, "source_event_seqs is TEXT".into(), at));
            }
            _ => {}
        }
        if let Err(e) = &row.surface_op {
            return Err(fatal(Rule::Q4, e.clone(), at));
        }
        if let Err(e) = &row.ignorable {
            return Err(fatal(Rule::Q5, e.clone(), at));
        }
        Ok((seq, ty, time))
    }

    /// Decodes one row into its JSONL record, written to `line` (cleared first), and
    /// returns the record's skip index, or says why the row fails to decode.
    fn decode(
        &mut self,
        row: &RawRow,
        ty: &str,
        seq: i64,
        time: i64,
        line: &mut Vec<u8>,
    ) -> Result<Skips, String> {
        let raw = row.data.as_ref().expect("checked by Q2");
        let packed = row.ignorable == Ok(Some(0));
        // The decompressed bytes go to a buffer kept across rows (taken out of `self` while
        // the decompressor is in use).
        let mut plain = std::mem::take(&mut self.plain);
        let data_text = if row.data_is_blob {
            let cap = if packed {
                MAX_PACKED_DATA_BYTES
            } else {
                MAX_DATA_BYTES
            };
            // Fast path: one frame that records its size, decompressed in one call with a
            // context kept across rows. Anything else, or any failure, takes the streaming
            // path, which gives the verdict and the message.
            plain.clear();
            let one_call = zstd::stream::decompressed_size(raw)
                .filter(|&size| size <= cap as u64)
                .is_some_and(|size| {
                    plain.reserve(size as usize);
                    self.decompressor
                        .decompress_to_buffer(raw, &mut plain)
                        .is_ok_and(|n| n as u64 == size)
                });
            if !one_call {
                plain.clear();
                let decoder = zstd::stream::read::Decoder::new(&raw[..])
                    .map_err(|e| format!("data BLOB does not decompress: {e}"))?;
                decoder
                    .take(cap as u64 + 1)
                    .read_to_end(&mut plain)
                    .map_err(|e| format!("data BLOB does not decompress: {e}"))?;
            }
            if plain.len() > cap {
                return Err(format!("data BLOB decompresses to more than {cap} bytes"));
            }
            let text = std::str::from_utf8(&plain)
                .map_err(|_| "data BLOB is not valid UTF-8".to_owned())?;
            // A WHATWG TextDecoder drops one leading byte-order mark (FORMAT.md §1.5).
            Cow::Borrowed(text.strip_prefix('\u{feff}').unwrap_or(text))
        } else {
            if packed && raw.len() > MAX_PACKED_DATA_BYTES {
                return Err(format!(
                    "packed row DATA is {} bytes, more than {MAX_PACKED_DATA_BYTES}",
                    raw.len()
                ));
            }
            lossy(raw)
        };
        let mut skips = std::mem::take(&mut self.data_index);
        Document::index_into(&data_text, &mut skips, &mut self.scratch)
            .map_err(|e| format!("data is not JSON: {e}"))?;
        let data = Json::indexed_root(&data_text, &skips);
        // The record's index is built as the record is written: the envelope's keys and
        // values, then the data's index moved into place (FORMAT.md §8.5 key order).
        let mut index = RecordIndex::new(skips.len() + 16);
        let key = |line: &mut Vec<u8>, index: &mut RecordIndex, name: &str| {
            // After the opening brace, or after a value.
            if line.len() > 1 {
                line.push(b',');
            }
            let start = line.len();
            line.push(b'"');
            line.extend_from_slice(name.as_bytes());
            line.push(b'"');
            index.scalar(start, line.len());
            line.push(b':');
        };
        fn number(line: &mut Vec<u8>, index: &mut RecordIndex, n: impl std::fmt::Display) {
            let start = line.len();
            let _ = write!(line, "{n}");
            index.scalar(start, line.len());
        }
        let data_at = data.raw().as_ptr() as usize - data_text.as_ptr() as usize;
        line.clear();
        line.reserve(data.raw().len() + 64);
        let js_type = |line: &mut Vec<u8>| {
            if ty.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
                // Nothing to escape: what write_js_string writes, without a copy.
                line.push(b'"');
                line.extend_from_slice(ty.as_bytes());
                line.push(b'"');
            } else {
                let mut quoted = String::new();
                write_js_string(&mut quoted, ty);
                line.extend_from_slice(quoted.as_bytes());
            }
        };
        // The record's head: `{`, the type, the seq and time under `keys` (`seq0`/`time0`
        // for a packed row, FORMAT.md §8.5) and the data, its index moved into place;
        // returns where the data went.
        let head = |line: &mut Vec<u8>, index: &mut RecordIndex, keys: [&str; 2]| {
            line.push(b'{');
            key(line, index, "type");
            let start = line.len();
            js_type(line);
            index.scalar(start, line.len());
            key(line, index, keys[0]);
            number(line, index, seq);
            key(line, index, keys[1]);
            number(line, index, time);
            key(line, index, "data");
            let moved_to = line.len();
            line.extend_from_slice(data.raw().as_bytes());
            index.value(&skips, data_at, moved_to);
            moved_to
        };
        if packed {
            if !["text-chunks", "reasoning-chunks", "tool-call-chunks"].contains(&ty) {
                return Err(format!(
                    "ignorable = 0 marks a packed row, but type {ty:?} is not a packed tag"
                ));
            }
            if !matches!(row.sources, Ok(None)) || !matches!(row.surface_op, Ok(None)) {
                return Err("packed row carries surface columns".into());
            }
            let members = data
                .get(if ty == "tool-call-chunks" {
                    "args"
                } else {
                    "texts"
                })
                .map_or(0, |p| p.len());
            if !(3..=1024).contains(&members) {
                return Err(format!(
                    "packed row has {members} members; SQLite rows hold 3 to 1024"
                ));
            }
            let moved_to = head(line, &mut index, ["seq0", "time0"]);
            line.push(b'}');
            drop(data_text);
            self.plain = plain;
            return Ok(self.record_index(index, line.len(), skips, data_at, moved_to));
        }
        let moved_to = head(line, &mut index, ["seq", "time"]);
        match &row.sources {
            Ok(Some((bytes, true))) => {
                let seqs =
                    decode_source_seqs(bytes).map_err(|e| format!("source_event_seqs: {e}"))?;
                key(line, &mut index, "sourceEventSeqs");
                let slot = index.open(line.len());
                line.push(b'[');
                for (i, &seq) in seqs.iter().enumerate() {
                    if i > 0 {
                        line.push(b',');
                    }
                    number(line, &mut index, seq);
                }
                line.push(b']');
                index.close(slot, line.len());
            }
            Ok(Some((bytes, false))) => {
                let text = lossy(bytes);
                let (raw, piece) = self
                    .piece(&text)
                    .map_err(|e| format!("source_event_seqs is not JSON: {e}"))?;
                key(line, &mut index, "sourceEventSeqs");
                let to = line.len();
                line.extend_from_slice(text[raw.clone()].as_bytes());
                index.value(&piece, raw.start, to);
            }
            _ => {}
        }
        if let Ok(Some(op)) = &row.surface_op {
            let (raw, piece) = self
                .piece(op)
                .map_err(|e| format!("surface_op is not JSON: {e}"))?;
            key(line, &mut index, "surfaceOp");
            let to = line.len();
            line.extend_from_slice(op[raw.clone()].as_bytes());
            index.value(&piece, raw.start, to);
        }
        if row.ignorable == Ok(Some(1)) {
            key(line, &mut index, "ignorable");
            let start = line.len();
            line.extend_from_slice(b"true");
            index.scalar(start, line.len());
        }
        line.push(b'}');
        drop(data_text);
        self.plain = plain;
        Ok(self.record_index(index, line.len(), skips, data_at, moved_to))
    }

    /// The record's index: the one built with it, or else the data's index moved into
    /// place (the envelope is then scanned); the data's index is kept for the next row.
    fn record_index(
        &mut self,
        index: RecordIndex,
        len: usize,
        data: Skips,
        data_at: usize,
        moved_to: usize,
    ) -> Skips {
        match index.finish(len) {
            Some(index) => {
                self.data_index = data;
                index
            }
            None => data.moved(data_at, moved_to),
        }
    }

    /// Checks a JSON column's text (`source_event_seqs` as TEXT, `surface_op`) and indexes
    /// it: the byte range of its value (without surrounding whitespace) and its index.
    fn piece(&mut self, text: &str) -> Result<(std::ops::Range<usize>, Skips), JsonError> {
        let mut piece = Skips::default();
        Document::index_into(text, &mut piece, &mut self.scratch)?;
        let raw = Json::indexed_root(text, &piece).raw();
        let start = raw.as_ptr() as usize - text.as_ptr() as usize;
        Ok((start..start + raw.len(), piece))
    }
}

impl LineSource for SqliteLines {
    fn backend(&self) -> Backend {
        Backend::Sqlite {
            era: self.era,
            header: Box::new(self.header.clone()),
            session: self.session.clone(),
        }
    }

    fn next_line(&mut self, line: &mut Line) -> Result<bool, SourceError> {
        if self.queue.is_empty() && !self.exhausted {
            self.fetch()?;
        }
        let Some(row) = self.queue.pop_front() else {
            return Ok(false);
        };
        let (seq, ty, time) = self.check_columns(&row).map_err(SourceError::Finding)?;
        line.bytes.clear();
        line.number = seq as u64;
        line.offset = seq as u64;
        line.terminated = true;
        line.from_torn_frame = false;
        line.too_long = false;
        let mut bytes = std::mem::take(&mut line.bytes);
        match self.decode(&row, &ty, seq, time, &mut bytes) {
            Ok(index) => {
                debug_assert!(
                    std::str::from_utf8(&bytes)
                        .is_ok_and(|text| crate::json::index_agrees(text, &index)),
                    "the record's index navigates it as a scan does"
                );
                line.defect = None;
                line.bytes = bytes;
                line.index = Some(index);
            }
            Err(why) => {
                bytes.clear();
                line.bytes = bytes;
                line.defect = Some(why);
            }
        }
        Ok(true)
    }
}
