//! Tests of the surface fold ([`crate::replay`]), kept beside it so that its files stay
//! short.
use super::*;
use crate::event::HEAD;
use crate::json::Json;

fn push(r: &mut Replay, seq: u64, ty: &str, op: &str, src: Option<&str>) -> Step {
    let op = Json::parse(op).unwrap();
    let src = src.map(|s| Json::parse(s).unwrap());
    r.push_surface(SurfaceInput::surface_only(seq, ty, Some(op), src))
}

#[test]
fn each_event_tells_how_it_changed_the_surface() {
    let mut r = Replay::new(&HEAD);
    push(&mut r, 0, "user/message", r#""append""#, None).unwrap();
    let appended = r.change().unwrap();
    assert_eq!((appended.seq, appended.ty), (0, "user/message"));
    assert_eq!((appended.cites, appended.replace), (&[][..], None));
    push(&mut r, 1, "user/message", r#""append""#, None).unwrap();
    let replace = r#"{"op":"replace","start":0,"end":1}"#;
    push(&mut r, 2, "assistant/message", replace, Some("[0,1]")).unwrap();
    let c = r.change().unwrap();
    assert_eq!(
        (c.seq, c.ty, c.cites),
        (2, "assistant/message", &[0, 1][..])
    );
    assert_eq!(
        c.replace,
        Some(Replaced {
            generation: 1,
            start: 0,
            end: 1,
            shadowed: &[0, 1],
            len_before: 2,
            len_after: 1,
        })
    );
    let replace = r#"{"op":"replace","start":2,"end":2}"#;
    push(&mut r, 3, "user/message", replace, Some("[2]")).unwrap();
    let c = r.change().unwrap().replace.unwrap();
    assert_eq!((c.generation, c.shadowed, c.len_after), (2, &[2][..], 1));
    assert_eq!((r.seqs(), r.replacement_count()), (vec![3], 2));
    // A log-only event and a refused one change nothing.
    r.push_log_only(4, "turn/start", false, false).unwrap();
    assert_eq!(r.change(), None);
    let bad = r#"{"op":"replace","start":9,"end":9}"#;
    push(&mut r, 5, "user/message", bad, Some("[9]")).unwrap_err();
    assert_eq!(r.change(), None);
}

/// FORMAT.md §3.3, the worked example, exactly.
#[test]
fn worked_example() {
    let mut r = Replay::new(&HEAD);
    // Each replace's generation, seq and shadowed seqs, as its surface change tells them.
    let mut gens = Vec::new();
    let replaced = |r: &Replay| {
        let c = r.change().expect("a replace changes the surface");
        let x = c.replace.expect("a replace");
        (x.generation, c.seq, x.shadowed.to_vec())
    };
    let mut seq = 0;
    let mut log_only_until = |r: &mut Replay, until: u64| {
        while seq < until {
            r.push_log_only(seq, "tool/call", false, false).unwrap();
            seq += 1;
        }
        seq += 1;
    };
    log_only_until(&mut r, 2);
    push(&mut r, 2, "user/message", r#""append""#, None).unwrap();
    log_only_until(&mut r, 7);
    push(
        &mut r,
        7,
        "assistant/message",
        r#""append""#,
        Some("[3,4,5,6]"),
    )
    .unwrap();
    log_only_until(&mut r, 9);
    push(&mut r, 9, "tool/result", r#""append""#, Some("[8]")).unwrap();
    assert_eq!(r.seqs(), [2, 7, 9]);
    log_only_until(&mut r, 12);
    push(
        &mut r,
        12,
        "assistant/message",
        r#""append""#,
        Some("[10,11]"),
    )
    .unwrap();
    log_only_until(&mut r, 15);
    push(
        &mut r,
        15,
        "user/message",
        r#"{"op":"replace","start":2,"end":9}"#,
        Some("[13,14,2,7,9]"),
    )
    .unwrap();
    gens.push(replaced(&r));
    assert_eq!(r.seqs(), [15, 12]);
    log_only_until(&mut r, 17);
    push(&mut r, 17, "tool/result", r#""append""#, Some("[16]")).unwrap();
    log_only_until(&mut r, 19);
    assert_eq!(r.seqs(), [15, 12, 17]);
    push(
        &mut r,
        19,
        "tool/result",
        r#"{"op":"replace","start":17,"end":17}"#,
        Some("[17]"),
    )
    .unwrap();
    gens.push(replaced(&r));
    assert_eq!(r.seqs(), [15, 12, 19]);
    push(
        &mut r,
        20,
        "user/message",
        r#"{"op":"replace","start":15,"end":12}"#,
        Some("[15,12]"),
    )
    .unwrap();
    gens.push(replaced(&r));
    assert_eq!(r.seqs(), [20, 19]);
    assert_eq!(
        gens,
        [
            (1, 15, vec![2, 7, 9]),
            (2, 19, vec![17]),
            (3, 20, vec![15, 12])
        ]
    );
    // The failures the text lists for seq 21 (and S1 for a seq out of order).
    let failures: [(u64, &str, &str, Option<&str>, Rule); 13] = [
        (
            21,
            "user/message",
            r#"{"op":"replace","start":7,"end":9}"#,
            Some("[7,9]"),
            Rule::S7,
        ),
        (
            21,
            "tool/result",
            r#"{"op":"replace","start":20,"end":20}"#,
            Some("[20]"),
            Rule::S17,
        ),
        (
            21,
            "tool/result",
            r#"{"op":"replace","start":20,"end":19}"#,
            Some("[20,19]"),
            Rule::S16,
        ),
        (
            21,
            "user/message",
            r#"{"op":"replace","start":19,"end":20}"#,
            Some("[20,19]"),
            Rule::S9,
        ),
        (
            21,
            "user/message",
            r#"{"op":"replace","start":20,"end":19}"#,
            Some("[20]"),
            Rule::S15,
        ),
        (
            21,
            "user/message",
            r#""append""#,
            Some("[3,3,30]"),
            Rule::S13,
        ),
        (21, "user/message", r#""append""#, Some("[3,30]"), Rule::S14),
        (
            21,
            "user/message",
            r#""append""#,
            Some("[-1,3,3]"),
            Rule::S12,
        ),
        (21, "user/message", r#""append""#, Some("[]"), Rule::S11),
        (21, "user/message", r#""append""#, Some("{}"), Rule::S10),
        (22, "user/message", r#""append""#, None, Rule::S1),
        (21, "user/message", r#""prepend""#, None, Rule::S5),
        (
            21,
            "user/message",
            r#"{"op":"replace","start":20}"#,
            None,
            Rule::S6,
        ),
    ];
    for (seq, ty, op, sources, rule) in failures {
        let found = push(&mut r.clone(), seq, ty, op, sources).unwrap_err().0;
        assert_eq!(found, rule, "seq {seq} {ty} {op} {sources:?}");
    }
    push(&mut r, 21, "assistant/message", r#""append""#, Some("[]")).unwrap();
    assert_eq!(r.seqs(), [20, 19, 21]);
}

/// Feeds `n` events: appends carrying a message, a preview and a call id, and every fifth
/// event a replace of two neighbouring entries (pseudo-random, fixed seed).
fn feed_mixed(r: &mut Replay, n: u64) -> Vec<u64> {
    let mut model: Vec<u64> = Vec::new();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for seq in 0..n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let message = format!(r#"{{"role":"user","content":"message {seq} é"}}"#);
        let preview = format!("preview {seq}");
        let calls = vec![format!("call_{seq}")];
        let (op, src) = if seq % 5 == 4 && model.len() > 2 {
            let at = (state % (model.len() as u64 - 1)) as usize;
            let (start, end) = (model[at], model[at + 1]);
            let mut cited = [start, end];
            cited.sort_unstable();
            model.splice(at..at + 2, [seq]);
            (
                format!(r#"{{"op":"replace","start":{start},"end":{end}}}"#),
                Some(format!("[{},{}]", cited[0], cited[1])),
            )
        } else {
            model.push(seq);
            (r#""append""#.to_owned(), None)
        };
        let op = Json::parse(&op).unwrap();
        let src = src.as_deref().map(|s| Json::parse(s).unwrap());
        let input = SurfaceInput {
            message: Some(&message),
            role: Some("user"),
            preview: &preview,
            calls,
            line: Some(seq + 2),
            ..SurfaceInput::surface_only(seq, "user/message", Some(op), src)
        };
        r.push_surface(input).unwrap();
    }
    model
}

#[test]
fn a_long_fold_with_compactions_matches_a_plain_list() {
    let mut r = Replay::new(&HEAD);
    let model = feed_mixed(&mut r, 60_000);
    assert_eq!(r.seqs(), model);
    assert_eq!(r.len(), model.len());
    let entries = r.entries().unwrap();
    assert!(
        entries
            .iter()
            .all(|e| e.calls == [format!("call_{}", e.seq)])
    );
    assert!(entries.iter().all(|e| e.line == Some(e.seq + 2)));
    assert!(
        entries
            .iter()
            .all(|e| e.preview == format!("preview {}", e.seq))
    );
    assert!(r.contains(*model.last().unwrap()));
    assert!(!r.contains(u64::MAX));
}

#[test]
fn spilled_texts_and_kept_entries_read_back_as_in_memory() {
    let mut memory = Replay::new(&HEAD).keeping_shadowed();
    let mut spilled = Replay::new(&HEAD)
        .keeping_shadowed()
        .spilling_texts_after(64);
    feed_mixed(&mut memory, 5_000);
    feed_mixed(&mut spilled, 5_000);
    let (a, b) = (memory.entries().unwrap(), spilled.entries().unwrap());
    assert_eq!(a, b);
    assert_eq!(
        a[0].message.as_deref(),
        Some(format!(r#"{{"role":"user","content":"message {} é"}}"#, a[0].seq).as_str())
    );
    let (a, b) = (
        memory.shadowed_entries().unwrap(),
        spilled.shadowed_entries().unwrap(),
    );
    assert_eq!(a, b);
    // Every entry ever pushed is on the surface or kept.
    assert_eq!(a.len(), 5_000 - memory.len());
    let seqs: Vec<u64> = spilled.shadowed_seqs().collect();
    assert_eq!(seqs, a.iter().map(|e| e.seq).collect::<Vec<_>>());
    let first = spilled.entry_by_seq(seqs[0]).unwrap().unwrap();
    assert_eq!(first, a[0]);
    assert!(spilled.entry_by_seq(u64::MAX).is_none());
}

#[test]
fn going_back_to_a_mark_forgets_appends_only() {
    let mut r = Replay::new(&HEAD).spilling_texts_after(64);
    feed_mixed(&mut r, 500);
    let before = (r.entries().unwrap(), r.next_seq());
    let mark = r.mark();
    let message = r#"{"role":"user","content":"a closer"}"#;
    for seq in 500..503 {
        let op = Json::parse(r#""append""#).unwrap();
        let src = Json::parse("[3]").unwrap();
        let input = SurfaceInput {
            message: Some(message),
            role: Some("user"),
            ..SurfaceInput::surface_only(seq, "user/message", Some(op), Some(src))
        };
        r.push_surface(input).unwrap();
    }
    assert_eq!(r.len(), before.0.len() + 3);
    assert!(r.back_to(mark));
    assert_eq!((r.entries().unwrap(), r.next_seq()), before);
    // The fold goes on from there, texts included.
    feed_more(&mut r, 500);
    assert_eq!(r.entries().unwrap().last().unwrap().seq, 500);

    // A replace cannot be undone: back_to says so and leaves the fold as it is.
    let mark = r.mark();
    let replace = Json::parse(r#"{"op":"replace","start":500,"end":500}"#).unwrap();
    let src = Json::parse("[500]").unwrap();
    r.push_surface(SurfaceInput::surface_only(
        501,
        "user/message",
        Some(replace),
        Some(src),
    ))
    .unwrap();
    assert!(!r.back_to(mark));
    assert_eq!(r.seqs().last(), Some(&501));
}

/// One more append at `seq`, with a message.
fn feed_more(r: &mut Replay, seq: u64) {
    let op = Json::parse(r#""append""#).unwrap();
    let input = SurfaceInput {
        message: Some(r#"{"role":"user","content":"after"}"#),
        role: Some("user"),
        ..SurfaceInput::surface_only(seq, "user/message", Some(op), None)
    };
    r.push_surface(input).unwrap();
}
