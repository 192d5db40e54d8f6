//! `show` on hand-made fixtures and on the real samples read in place: exact summary lines
//! and JSON values.

mod common;

use common::{dsh, fixture, samples};
use serde_json::{Value, json};

fn stdout(args: &[&str]) -> String {
    let out = dsh().args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn show_json(path: &std::path::Path) -> Value {
    let text = stdout(&[
        "show",
        "--format",
        "json",
        path.to_str().expect("utf-8 path"),
    ]);
    serde_json::from_str(&text).expect("one JSON object")
}

/// The summary lines of `show` (the turn table left out).
fn summary_lines(path: &std::path::Path) -> Vec<String> {
    stdout(&["show", path.to_str().expect("utf-8 path")])
        .lines()
        .take_while(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_result_after_step_end_answers_its_call() {
    // The call's step ends and the next starts before its result is recorded: the derived
    // history has the result right after the call, so nothing is unanswered.
    let path = fixture("result-after-step-end.jsonl");
    let lines = summary_lines(&path);
    assert!(
        lines.contains(&"tool calls:   1 calls, 1 results, 0 unanswered".to_owned()),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("unanswered:")),
        "{lines:#?}"
    );
    let show = show_json(&path);
    assert_eq!(show["status"], "valid");
    assert_eq!(show["steps"], 2);
    assert_eq!(show["unanswered_calls"], 0);
    assert_eq!(show["warnings"], json!([]));
}
