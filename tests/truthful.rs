//! Every output tells the truth (issue 25 §3): each defect a new user met, with the input
//! that showed it and the exact words or values that are true of it.

mod common;

use std::path::Path;

use common::{dsh, fixture, zstd_frame};
use serde_json::Value;

/// Runs `dsh-session ARGS`: (exit code, standard output, standard error).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = dsh().args(args).output().expect("runs");
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

#[test]
fn a_first_frame_with_two_lines_in_a_log_of_several_frames_is_not_called_the_zstd_tool_s() {
    let dir = tempfile::tempdir().unwrap();
    let plain = std::fs::read_to_string(fixture("compaction-and-prune.jsonl")).unwrap();
    let lines: Vec<&str> = plain.split_inclusive('\n').collect();
    // Frame 1: the header and the first event; frame 2: the rest.
    let mut bytes = zstd_frame(lines[..2].concat().as_bytes());
    bytes.extend(zstd_frame(lines[2..].concat().as_bytes()));
    let path = dir.path().join("c13-first-frame-two-lines.jsonl.zstd");
    std::fs::write(&path, bytes).unwrap();
    let (code, out, _) = run(&["validate", s(&path)]);
    assert_eq!(code, 1);
    assert_eq!(
        out.lines().next().unwrap(),
        format!(
            "{}: corrupt Z6 at line 1: first zstd frame is not exactly one header line ending in a newline",
            path.display()
        )
    );
}

#[test]
fn messages_with_a_provider_is_a_drop_in_for_messages() {
    let log = fixture("provider/P3-user-message-between-call-and-result.jsonl");
    let (code, array, notes) = run(&["messages", "--provider", "deepseek", s(&log)]);
    assert_eq!(code, 0);
    let (_, lines, _) = run(&[
        "messages",
        "--provider",
        "deepseek",
        "--format",
        "jsonl",
        s(&log),
    ]);
    // The JSON array of `messages`, one message per line, and its lines as JSONL.
    assert!(array.starts_with("[\n{\"id\":\"u-2\""), "{array}");
    assert!(array.ends_with("}\n]\n"), "{array}");
    let inner: Vec<&str> = array.lines().skip(1).filter(|l| *l != "]").collect();
    let inner: Vec<String> = inner
        .iter()
        .map(|l| l.trim_end_matches(',').to_owned())
        .collect();
    assert_eq!(inner, lines.lines().collect::<Vec<_>>());
    let ids: Vec<Value> = serde_json::from_str::<Vec<Value>>(&array)
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(
        ids,
        [
            "u-2",
            "dsh-session-heal-P3-9",
            "u-5",
            "dsh-session-heal-P3-10"
        ]
    );
    // The changes are notes, not errors.
    let p = log.display();
    assert_eq!(
        notes,
        format!(
            "note: {p}: deepseek: seq 9: the assistant message at seq 3 becomes a note (P3: a tool result that does not follow its call)\nnote: {p}: deepseek: seq 10: the tool result at seq 6 becomes a note (P3: a tool result that does not follow its call)\n"
        )
    );
}

#[test]
fn a_read_command_never_says_nothing_was_written() {
    let log = fixture("hostile/invalid-line-middle-committed.jsonl");
    let (code, _, plain) = run(&["messages", s(&log)]);
    assert_eq!(code, 1);
    let (code, out, err) = run(&["messages", "--provider", "openai", s(&log)]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(err, plain);
    assert!(!err.contains("nothing was written"), "{err}");
}
