//! Property tests (seeded, a few thousand cases in all): no panic on any bytes, the fold
//! equals a plain reference model, a valid log needs no repair, and a repaired crashed
//! prefix validates with its kept events unchanged (FORMAT.md §3, §5).

mod common;

use dsh_session::event::HEAD;
use dsh_session::json::Json;
use dsh_session::replay::{Replay, SurfaceInput};
use dsh_session::rules::Rule;
use dsh_session::scan::{ScanOptions, Status, scan_path};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x0D5C_5E55),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn no_panic_on_any_line(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        dsh_session::fuzz::jsonl_line(&bytes);
    }

    #[test]
    fn no_panic_on_json_shaped_text(text in r#"[\[\]{}",:0-9a-z\\ .eE+-]{0,80}"#) {
        dsh_session::fuzz::jsonl_line(text.as_bytes());
    }

    #[test]
    fn no_panic_on_any_zstd_bytes(mut bytes in proptest::collection::vec(any::<u8>(), 0..200), magic in any::<bool>()) {
        if magic {
            bytes.splice(0..0, [0x28, 0xB5, 0x2F, 0xFD]);
        }
        dsh_session::fuzz::zstd_frames(&bytes);
    }

    #[test]
    fn varints_round_trip(seqs in proptest::collection::vec(0u64..(1 << 53), 0..20), noise in proptest::collection::vec(any::<u8>(), 0..20)) {
        let encoded = dsh_session::load::sqlite::encode_source_seqs(&seqs);
        prop_assert_eq!(dsh_session::load::sqlite::decode_source_seqs(&encoded).unwrap(), seqs);
        dsh_session::fuzz::varint(&noise);
    }
}

/// One step for the fold and the reference: an append, or a replace of the range between
/// two surface positions (possibly the wrong way round or pointing at a shadowed seq).
#[derive(Debug, Clone)]
enum Op {
    Append,
    Replace {
        a: usize,
        b: usize,
        cite_all: bool,
        stale: bool,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::Append),
        3 => (any::<usize>(), any::<usize>(), prop::bool::weighted(0.9), prop::bool::weighted(0.1))
            .prop_map(|(a, b, cite_all, stale)| Op::Replace { a, b, cite_all, stale }),
    ]
}

/// The reference: a plain Vec with linear search (FORMAT.md §3.1–3.2: S7–S9, S11, S15).
fn reference_step(
    surface: &mut Vec<u64>,
    seq: u64,
    start: u64,
    end: u64,
    cites: &[u64],
) -> Result<(), Rule> {
    let i = surface.iter().position(|s| *s == start).ok_or(Rule::S7)?;
    let j = surface.iter().position(|s| *s == end).ok_or(Rule::S8)?;
    if i > j {
        return Err(Rule::S9);
    }
    if cites.is_empty() {
        return Err(Rule::S11);
    }
    if surface[i..=j].iter().any(|s| !cites.contains(s)) {
        return Err(Rule::S15);
    }
    surface.splice(i..=j, [seq]);
    Ok(())
}

proptest! {
    #![proptest_config(config(500))]

    #[test]
    fn the_fold_equals_a_vec_with_linear_search(ops in proptest::collection::vec(op(), 1..60)) {
        let mut fold = Replay::new(&HEAD);
        let mut reference: Vec<u64> = Vec::new();
        let mut shadowed: Vec<u64> = Vec::new();
        let mut seq = 0u64;
        for op in ops {
            let (surface_op, sources, expected) = match op {
                Op::Replace { a, b, cite_all, stale } if !reference.is_empty() => {
                    let mut start = reference[a % reference.len()];
                    let end = reference[b % reference.len()];
                    if stale && let Some(gone) = shadowed.first() {
                        start = *gone;
                    }
                    let mut cites: Vec<u64> = reference.clone();
                    if !cite_all {
                        cites.retain(|s| *s != start);
                    }
                    let mut trial = reference.clone();
                    let expected = reference_step(&mut trial, seq, start, end, &cites);
                    let list: Vec<String> = cites.iter().map(u64::to_string).collect();
                    (format!(r#"{{"op":"replace","start":{start},"end":{end}}}"#), Some(format!("[{}]", list.join(","))), expected.map(|()| trial))
                }
                _ => {
                    let mut trial = reference.clone();
                    trial.push(seq);
                    ("\"append\"".to_owned(), None, Ok(trial))
                }
            };
            let result = fold.push_surface(SurfaceInput::surface_only(
                seq,
                "user/message",
                Some(Json::parse(&surface_op).unwrap()),
                sources.as_deref().map(|s| Json::parse(s).unwrap()),
            ));
            match expected {
                Ok(next) => {
                    prop_assert!(result.is_ok(), "{:?} refused: {:?}", surface_op, result);
                    shadowed.extend(reference.iter().filter(|s| !next.contains(s)));
                    reference = next;
                    seq += 1;
                }
                Err(rule) => prop_assert_eq!(result.map_err(|e| e.0), Err(rule), "{}", surface_op),
            }
            prop_assert_eq!(fold.seqs(), reference.clone());
        }
    }
}

/// A log valid for every DSH line, of `turns` turns: each with 0–2 tool calls, started
/// (`tool/call`, then its result) or, per `started`, never started and answered by DSH's
/// exact `TOOL_NOT_STARTED` result, as a live failure writes it (GENERATIONS §12.1, §12.3).
/// Every call is answered before its step ends: DSH 0.1.5 and later refuse a closed step
/// that leaves a call unresolved (F10).
fn valid_log(turns: &[(u8, bool)]) -> String {
    let mut lines = vec![
        r#"{"type":"session","version":0,"id":"p","createdAt":1,"delegationDepth":0}"#.to_owned(),
    ];
    let mut seq = 0u64;
    let mut push = |line: String| {
        lines.push(line.replace("SEQ", &seq.to_string()));
        seq += 1;
        seq - 1
    };
    for (t, (calls, started)) in turns.iter().enumerate() {
        let t = t + 1;
        push(format!(
            r#"{{"type":"turn/start","seq":SEQ,"time":{t},"data":{{"turn":{t}}}}}"#
        ));
        push(format!(
            r#"{{"type":"step/start","seq":SEQ,"time":{t},"data":{{"turn":{t},"step":1}}}}"#
        ));
        push(format!(
            r#"{{"type":"user/message","seq":SEQ,"time":{t},"data":{{"content":[{{"type":"text","text":"hi {t}"}}],"source":{{"kind":"user"}},"role":"user","id":"u{t}"}},"surfaceOp":"append"}}"#
        ));
        let blocks: Vec<String> = (0..calls % 3)
            .map(|c| {
                format!(r#"{{"type":"tool-call","id":"c{t}-{c}","name":"x","arguments":"{{}}"}}"#)
            })
            .collect();
        push(format!(
            r#"{{"type":"assistant/message","seq":SEQ,"time":{t},"data":{{"turn":{t},"step":1,"message":{{"role":"assistant","content":[{}],"source":{{"kind":"model","provider":"p","model":"m"}},"id":"a{t}"}}}},"sourceEventSeqs":[],"surfaceOp":"append"}}"#,
            blocks.join(",")
        ));
        for c in 0..calls % 3 {
            if *started {
                let call = push(format!(
                    r#"{{"type":"tool/call","seq":SEQ,"time":{t},"data":{{"turn":{t},"step":1,"callId":"c{t}-{c}","name":"x","arguments":"{{}}"}}}}"#
                ));
                push(format!(
                    r#"{{"type":"tool/result","seq":SEQ,"time":{t},"data":{{"turn":{t},"step":1,"message":{{"id":"r{t}-{c}","role":"user","source":{{"kind":"tool","callId":"c{t}-{c}"}},"content":[{{"type":"tool-result","toolCallId":"c{t}-{c}","content":[],"isError":false}}]}}}},"sourceEventSeqs":[{call}],"surfaceOp":"append"}}"#
                ));
            } else {
                push(format!(
                    r#"{{"type":"tool/result","seq":SEQ,"time":{t},"data":{{"turn":{t},"step":1,"message":{{"id":"interrupted-tool-result-c{t}-{c}-SEQ","role":"user","source":{{"kind":"tool","callId":"c{t}-{c}"}},"content":[{{"type":"tool-result","toolCallId":"c{t}-{c}","isError":true,"content":[{{"type":"text","text":"The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed."}}]}}]}},"error":{{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"}}}},"surfaceOp":"append"}}"#
                ));
            }
        }
        push(format!(
            r#"{{"type":"step/end","seq":SEQ,"time":{t},"data":{{"turn":{t},"step":1}}}}"#
        ));
        push(format!(
            r#"{{"type":"turn/end","seq":SEQ,"time":{t},"data":{{"turn":{t},"reason":{{"kind":"completed"}}}}}}"#
        ));
    }
    lines.join("\n") + "\n"
}

proptest! {
    #![proptest_config(config(150))]

    #[test]
    fn a_valid_log_needs_no_repair(turns in proptest::collection::vec((any::<u8>(), any::<bool>()), 1..6)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        std::fs::write(&path, valid_log(&turns)).unwrap();
        let plan = dsh_session::repair::plan(&path, None, None).unwrap();
        prop_assert!(plan.is_empty(), "{:?}", plan.plan.closers);
    }

    #[test]
    fn a_repaired_crashed_prefix_validates_and_keeps_its_events(
        turns in proptest::collection::vec((any::<u8>(), any::<bool>()), 1..5),
        cut in any::<prop::sample::Index>(),
    ) {
        let log = valid_log(&turns);
        let header_end = log.find('\n').unwrap() + 1;
        let at = header_end + cut.index(log.len() - header_end);
        let prefix = &log[..at];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        std::fs::write(&path, prefix).unwrap();
        let mut plan = dsh_session::repair::plan(&path, None, None).unwrap();
        dsh_session::write::apply(&mut plan.plan, false).unwrap();
        let repaired = std::fs::read_to_string(&path).unwrap();
        // Every complete line of the prefix is kept, byte for byte.
        let kept = &prefix[..prefix.rfind('\n').map_or(0, |i| i + 1)];
        prop_assert!(repaired.starts_with(kept), "kept lines changed");
        let report = scan_path(&path, &ScanOptions::default()).unwrap();
        prop_assert_eq!(report.status, Status::Valid, "{:?}", report.finding);
        prop_assert_eq!(report.open_turn.open_turn, None);
        // A second repair has nothing to do.
        prop_assert!(dsh_session::repair::plan(&path, None, None).unwrap().is_empty());
    }
}
