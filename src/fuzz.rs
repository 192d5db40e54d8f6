//! Fuzz entry points: each takes arbitrary bytes and must neither panic nor hang.
//!
//! The cargo-fuzz targets in `fuzz/fuzz_targets/` call these, and `tests/fuzz_corpus.rs`
//! runs them over the checked-in corpus in `fuzz/corpus/<target>/` on every `cargo test`.

use std::io::Cursor;

use crate::event::{Event, HEAD};
use crate::json::{Document, Json};
use crate::replay::{Replay, SurfaceInput};

/// One JSONL line: parse, split the envelope, read a packed row, walk every value.
pub fn jsonl_line(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(doc) = Document::parse(&text) {
        let root = doc.root();
        let (mut indexed, mut scanned) = (Vec::new(), Vec::new());
        walk(root, 0, &mut indexed);
        walk(Json::parse(&text).expect("validated"), 0, &mut scanned);
        assert_eq!(indexed, scanned, "the skip index changes no value");
        if let Some(ev) = Event::from_object(root) {
            let _ = (
                ev.type_name(),
                ev.seq_value(),
                ev.time_value(),
                ev.is_ignorable(),
            );
        }
        if let Some(Ok(row)) = crate::load::packed::packed_row(root) {
            for k in 0..row.len().min(64) {
                let member = row.member_json(k);
                assert!(
                    Json::parse(&member).is_ok(),
                    "expanded member is JSON: {member}"
                );
            }
        }
    }
}

/// Visits every value (to depth 64), appending the raw text of each, so that two ways of
/// navigating the same text can be compared. Keys are also looked up again, last first,
/// which moves backwards through the skip index.
fn walk<'a>(v: Json<'a>, depth: usize, seen: &mut Vec<&'a str>) {
    if depth > 64 {
        return;
    }
    let _ = (v.as_str(), v.as_f64(), v.kind());
    seen.push(v.raw());
    let keys = v.keys();
    for k in keys.iter().rev() {
        seen.extend(v.get_by_key(*k).map(Json::raw));
        // Looked up by name too (the index compares key bytes): the same value, found or
        // not the same way, also among other names.
        if let Some(name) = k.as_str().filter(|name| k.str_eq(name)) {
            assert_eq!(v.get(&name), v.get_by_key(*k), "get({name:?})");
            assert!(v.has(&name), "has({name:?})");
            let [a, b, c] = v.lookup(["type", &name, ""]);
            if name != "type" && !name.is_empty() {
                // (A name given twice fills its first slot only.)
                assert_eq!(b, v.get(&name), "lookup({name:?})");
            }
            assert_eq!((a, c), (v.get("type"), v.get("")));
        }
    }
    seen.extend(["type", "seq", "data", ""].map(|name| match v.get(name) {
        Some(x) => x.raw(),
        None if v.has(name) => "has but no value",
        None => "absent",
    }));
    for (k, x) in v.members() {
        let _ = k.as_str();
        seen.push(k.raw());
        walk(x, depth + 1, seen);
    }
    for x in v.elements() {
        walk(x, depth + 1, seen);
    }
}

/// A whole `.jsonl.zstd` image: locate frames, then scan it as a log.
pub fn zstd_frames(data: &[u8]) {
    let _ = crate::load::scan_frames(&mut Cursor::new(data));
    let _ = crate::load::decode_torn_frame(data);
}

/// A schema 17 `source_event_seqs` BLOB: decoding never panics, and what decodes
/// re-encodes to the same bytes.
pub fn varint(data: &[u8]) {
    if let Ok(seqs) = crate::load::sqlite::decode_source_seqs(data) {
        assert_eq!(
            crate::load::sqlite::encode_source_seqs(&seqs),
            data,
            "canonical encodings round-trip"
        );
    }
}

/// A surface fold driven by the bytes: each pair of bytes is an append or a replace of a
/// range named by seqs; the fold must never panic, and a refused step changes nothing.
pub fn fold(data: &[u8]) {
    let mut replay = Replay::new(&HEAD);
    let mut seq = 0u64;
    for pair in data.chunks(3) {
        let (a, b, c) = (
            pair[0],
            *pair.get(1).unwrap_or(&0),
            *pair.get(2).unwrap_or(&0),
        );
        let before = replay.seqs();
        let (op, sources) = if a % 3 == 0 || before.is_empty() {
            ("\"append\"".to_owned(), None)
        } else {
            let start = before[usize::from(b) % before.len()];
            let end = before[usize::from(c) % before.len()];
            let cites: Vec<String> = before
                .iter()
                .filter(|s| **s != 0 || a % 2 == 0)
                .map(u64::to_string)
                .collect();
            (
                format!(r#"{{"op":"replace","start":{start},"end":{end}}}"#),
                Some(format!("[{}]", cites.join(","))),
            )
        };
        let op_json = Json::parse(&op).expect("built as JSON");
        let src_json = sources
            .as_deref()
            .map(|s| Json::parse(s).expect("built as JSON"));
        let ty = if a % 5 == 0 {
            "tool/result"
        } else {
            "user/message"
        };
        let accepted = replay
            .push_surface(SurfaceInput::surface_only(seq, ty, Some(op_json), src_json))
            .is_ok();
        if accepted {
            seq += 1;
        } else {
            assert_eq!(replay.seqs(), before, "a refused event changes nothing");
        }
    }
}

/// A log scanned with closers, as `repair` plans it (FORMAT.md §5): never panics, and a
/// plan for a log that scans clean validates with its closers.
pub fn repair_plan(data: &[u8]) {
    let Ok(mut file) = tempfile::NamedTempFile::new() else {
        return;
    };
    if std::io::Write::write_all(&mut file, data).is_err() {
        return;
    }
    let _ = crate::repair::plan(file.path(), None, None);
    // A heal that does not validate is a bug of ours, never of the input.
    for provider in [
        crate::provider::Provider::Deepseek,
        crate::provider::Provider::Anthropic,
    ] {
        if let Err(crate::repair::RepairError::Heal(why)) =
            crate::repair::plan(file.path(), None, Some(provider))
        {
            panic!("the heal for {} does not validate: {why}", provider.name());
        }
    }
}
