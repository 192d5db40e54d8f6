//! A surface whose messages and previews outgrow what `messages` and `surface` keep in
//! memory (2 MiB, then a temporary file; issue 19): the output is still every surviving
//! message byte for byte, in surface order, and every row.

mod common;

use std::fmt::Write as _;

use common::{dsh, on_a_terminal};

/// A v0 log of one turn with `n` user messages of about 1 KB each; every seventh message
/// replaces the entry two places before the end of the surface. Returns the log and the
/// final surface as (seq, stored message) pairs.
fn log(n: u64) -> (String, Vec<(u64, String)>) {
    let mut log = String::from(
        r#"{"type":"session","version":0,"id":"s-large","createdAt":1760000000000,"cwd":"/home/ana/proj","delegationDepth":0}"#,
    );
    log.push('\n');
    log.push_str(r#"{"type":"turn/start","seq":0,"time":1760000000000,"data":{"turn":1}}"#);
    log.push('\n');
    log.push_str(
        r#"{"type":"step/start","seq":1,"time":1760000000000,"data":{"turn":1,"step":1}}"#,
    );
    log.push('\n');
    let mut surface: Vec<(u64, String)> = Vec::new();
    for seq in 2..=n + 1 {
        let text = format!("message {seq} ").repeat(90);
        let message = format!(
            r#"{{"id":"u-{seq}","role":"user","content":[{{"type":"text","text":"{text}"}}],"source":{{"kind":"user"}}}}"#
        );
        let (op, sources) = if seq % 7 == 0 && surface.len() >= 2 {
            let target = surface[surface.len() - 2].0;
            let at = surface.len() - 2;
            surface[at] = (seq, message.clone());
            (
                format!(r#"{{"op":"replace","start":{target},"end":{target}}}"#),
                format!(r#","sourceEventSeqs":[{target}]"#),
            )
        } else {
            surface.push((seq, message.clone()));
            (r#""append""#.to_owned(), String::new())
        };
        writeln!(
            log,
            r#"{{"type":"user/message","seq":{seq},"time":{},"data":{message}{sources},"surfaceOp":{op}}}"#,
            1760000000000u64 + seq
        )
        .unwrap();
    }
    writeln!(
        log,
        r#"{{"type":"step/end","seq":{},"time":1760000100000,"data":{{"turn":1,"step":1}}}}"#,
        n + 2
    )
    .unwrap();
    writeln!(
        log,
        r#"{{"type":"turn/end","seq":{},"time":1760000100000,"data":{{"turn":1,"reason":{{"kind":"completed"}}}}}}"#,
        n + 3
    )
    .unwrap();
    (log, surface)
}

#[test]
fn messages_and_surface_past_the_memory_limit_print_everything_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.jsonl");
    let (text, surface) = log(4_000);
    std::fs::write(&path, &text).unwrap();
    let messages: usize = surface.iter().map(|(_, m)| m.len()).sum();
    assert!(messages > 3 << 20, "more than the 2 MiB kept in memory");

    let out = dsh()
        .args(["messages", "--format", "jsonl"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected: String = surface.iter().map(|(_, m)| format!("{m}\n")).collect();
    assert!(String::from_utf8(out.stdout).unwrap() == expected);

    let out = dsh()
        .args(["messages", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let array: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(array.len(), surface.len());
    assert_eq!(array[0]["id"], "u-2");

    let out = dsh()
        .args(["surface", "--format", "jsonl"])
        .arg(&path)
        .output()
        .unwrap();
    let rows: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let seqs: Vec<u64> = rows.iter().map(|r| r["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, surface.iter().map(|(s, _)| *s).collect::<Vec<_>>());
    let last = rows.last().unwrap();
    let last_seq = surface.last().unwrap().0;
    assert_eq!(last["position"], surface.len() - 1);
    assert_eq!(
        last["preview"],
        format!("message {last_seq} ").repeat(6)[..60]
            .trim_end_matches(' ')
            .to_owned()
            + "…"
    );

    // Text: a header, a rule and one line per entry; the shadowed ones join with --all.
    let out = dsh()
        .args(["surface", "--all"])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2 + 4_000);
    let shadowed = text.lines().filter(|l| l.contains("shadowed by")).count();
    assert_eq!(shadowed, 4_000 - surface.len());

    // On an 80-column terminal every row fits: the previews are cut, ending in "…".
    let shown = on_a_terminal(80, &format!("surface {}", path.display()));
    assert_eq!(shown.lines().count(), 2 + surface.len());
    assert!(shown.lines().all(|l| l.chars().count() <= 80), "{shown}");
    let first = shown.lines().nth(2).unwrap();
    let cells: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(cells[..3], ["0", "2", "user/message"], "{first}");
    assert!(first.ends_with("message 2…"), "{first}");
}
