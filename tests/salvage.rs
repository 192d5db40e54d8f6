//! `--salvage` on the read commands (issue 27 §2): a corrupt log is read up to its first
//! defect, the defect is named at the top (text), in a `salvaged` field (JSON) or on
//! standard error (`messages --format jsonl`), and the exit code stays 1.
//!
//! Issue 44.1: one rule for every command that reads a damaged log (`--salvage`, `export`,
//! `stats`): the lines before the line the verdict names — also when the defect is found
//! only after later lines were read —, the whole log for an edge refusal; each output says
//! which lines it read.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{dsh, fixture};
use serde_json::{Value, json};

/// Two writers: the second restarts at seq 14 on line 22, after writer 1's turn 3 ended.
fn restart() -> PathBuf {
    fixture("recover/seq-restart-at-line-22.jsonl")
}

fn run(args: &[&str]) -> Output {
    dsh().args(args).output().expect("runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The messages the stored lines `from..=to` (1-based) hold, as `messages` prints them:
/// a `user/message`'s data, an `assistant/message`'s or `tool/result`'s `data.message`.
fn stored_messages(log: &Path, from: usize, to: usize) -> Vec<Value> {
    let text = std::fs::read_to_string(log).expect("readable");
    text.lines()
        .skip(from - 1)
        .take(to - from + 1)
        .filter_map(|l| {
            let v: Value = serde_json::from_str(l).expect("each line is JSON");
            match v["type"].as_str() {
                Some("user/message") => Some(v["data"].clone()),
                Some("assistant/message" | "tool/result") => Some(v["data"]["message"].clone()),
                _ => None,
            }
        })
        .collect()
}

/// The defect the fixture's reads stop at.
fn j5_at_22() -> Value {
    json!({
        "status": "corrupt",
        "rule": "J5",
        "line": 22,
        "row": null,
        "seq": null,
        "message": "seq repeats or goes back (expected 20, got 14) in the committed region; a turn/end follows at line 33",
        "read": {"lines": [1, 21]},
    })
}

#[test]
fn messages_of_a_log_restarting_at_line_22_are_those_of_lines_2_to_21() {
    let log = restart();
    let out = run(&["messages", "--salvage", path(&log)]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a salvaged read is no healthy log"
    );
    let value: Value = serde_json::from_str(&stdout(&out)).expect("one JSON object");
    assert_eq!(value["salvaged"], j5_at_22());
    let messages = value["messages"].as_array().expect("messages").clone();
    let ids: Vec<&str> = messages.iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["u-1", "a-1", "u-2", "a-2", "u-3", "a-3"]);
    assert_eq!(messages, stored_messages(&log, 2, 21));
    // Line 25's second "u-3" ("list the files") is after the defect: not read.
    assert!(!stdout(&out).contains("list the files"));

    // Without the flag the log is refused and nothing is printed.
    let refused = run(&["messages", path(&log)]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(refused.stdout.is_empty());
}

#[test]
fn messages_jsonl_names_the_defect_on_standard_error() {
    let log = restart();
    let out = run(&["messages", "--salvage", "--format", "jsonl", path(&log)]);
    assert_eq!(out.status.code(), Some(1));
    let printed: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one message a line"))
        .collect();
    assert_eq!(printed, stored_messages(&log, 2, 21));
    let err = String::from_utf8_lossy(&out.stderr);
    let first: Value = serde_json::from_str(err.lines().next().expect("a line")).expect("json");
    assert_eq!(first, json!({ "salvaged": j5_at_22() }));
}

#[test]
fn a_healthy_log_reads_the_same_with_the_flag_and_exits_0() {
    let log = fixture("recover/three-turns-with-tool-calls.jsonl");
    let plain = run(&["messages", path(&log)]);
    let salvaged = run(&["messages", "--salvage", path(&log)]);
    assert_eq!(
        (plain.status.code(), salvaged.status.code()),
        (Some(0), Some(0))
    );
    let plain: Value = serde_json::from_str(&stdout(&plain)).expect("json");
    let salvaged: Value = serde_json::from_str(&stdout(&salvaged)).expect("json");
    assert_eq!(salvaged["salvaged"], Value::Null);
    assert_eq!(salvaged["messages"], plain);
    assert_eq!(plain.as_array().map(Vec::len), Some(10));

    let text = run(&["surface", "--salvage", path(&log)]);
    assert_eq!(text.status.code(), Some(0));
    assert!(stdout(&text).starts_with(" pos "), "{}", stdout(&text));
}

#[test]
fn surface_stops_at_the_defect_and_names_it_first() {
    let log = restart();
    let out = run(&["surface", "--salvage", path(&log)]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            "salvaged: corrupt J5 at line 22: seq repeats or goes back (expected 20, got 14) in the committed region; a turn/end follows at line 33; what follows is what the log held before it (lines 1–21 read)"
        )
    );
    let out = run(&["surface", "--salvage", "--format", "json", path(&log)]);
    assert_eq!(out.status.code(), Some(1));
    let value: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(value["salvaged"], j5_at_22());
    let seqs: Vec<u64> = (value["surface"].as_array().unwrap().iter())
        .map(|r| r["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [2, 5, 10, 11, 16, 17]);
}

#[test]
fn show_counts_what_came_before_the_defect() {
    let log = restart();
    let out = run(&["show", "--salvage", "--format", "json", path(&log)]);
    assert_eq!(out.status.code(), Some(1));
    let value: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(value["salvaged"], j5_at_22());
    assert_eq!(
        (&value["events"], &value["turns"], &value["surface_len"]),
        (&json!(20), &json!(3), &json!(6))
    );
    assert_eq!(value["status"], "corrupt");
    let text = run(&["show", "--salvage", path(&log)]);
    assert!(stdout(&text).starts_with("salvaged: corrupt J5 at line 22: "));
}

#[test]
fn provenance_and_replacements_read_the_intact_part() {
    let log = fixture("recover/garbage-line-inside-turn-2.jsonl");
    // Seq 11 (line 13) comes before the garbage on line 14.
    let out = run(&[
        "provenance",
        "--salvage",
        "--format",
        "json",
        path(&log),
        "11",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let value: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(value["seq"], 11);
    assert_eq!(value["salvaged"]["rule"], "J5");
    assert_eq!(value["salvaged"]["line"], 14);
    let dot = run(&[
        "provenance",
        "--salvage",
        "--format",
        "dot",
        path(&log),
        "11",
    ]);
    assert!(stdout(&dot).starts_with("// salvaged: corrupt J5 at line 14: "));
    // Seq 12 was on the garbage line: the salvaged log ends before it.
    let beyond = run(&["provenance", "--salvage", path(&log), "12"]);
    assert_eq!(beyond.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&beyond.stderr)
            .contains("seq 12 is beyond the log: its last seq is 11"),
        "{}",
        String::from_utf8_lossy(&beyond.stderr)
    );

    let out = run(&["replacements", "--salvage", "--format", "json", path(&log)]);
    assert_eq!(out.status.code(), Some(1));
    let value: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(value["replacements"], json!([]));
    assert_eq!(value["salvaged"]["line"], 14);
    let out = run(&["replacements", "--salvage", "--format", "jsonl", path(&log)]);
    assert!(out.stdout.is_empty());
    let err: Value = serde_json::from_slice(&out.stderr).expect("one JSON line");
    assert_eq!(err["salvaged"]["rule"], "J5");
}

#[test]
fn export_shows_the_transcript_up_to_the_defect() {
    let log = restart();
    let out = run(&["export", "--salvage", "--format", "markdown", path(&log)]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("**Verdict:** corrupt J5 at line 22"),
        "{text}"
    );
    assert!(text.contains("and 3+3?"));
    assert!(
        !text.contains("list the files"),
        "line 25 follows the defect"
    );
    let jsonl = run(&["export", "--salvage", "--format", "dsh-jsonl", path(&log)]);
    assert_eq!(jsonl.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&jsonl.stderr).contains("dsh-session recover"));
}

#[test]
fn a_broken_header_has_nothing_to_salvage() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("session.jsonl");
    std::fs::write(&log, "garbage\n").expect("written");
    for command in ["messages", "surface", "show", "replacements"] {
        let out = run(&[command, "--salvage", log.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        assert!(out.stdout.is_empty(), "{command}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("corrupt H2 at line 1"),
            "{command}"
        );
    }
}

/// A v3 log whose turn 1 ends inside its open step (G9 at line 10), found when the log
/// ends: a second turn follows on lines 11–16, which no reader may show.
fn g9_then_a_turn() -> PathBuf {
    fixture("salvage/G9-v3-found-when-the-log-ends-with-a-turn-after-it.jsonl")
}

fn g9_at_10() -> Value {
    json!({
        "status": "corrupt",
        "rule": "G9",
        "line": 10,
        "row": null,
        "seq": 8,
        "message": "turn/end 1 crosses an open step (the check of a v3 log, as DSH 0.1.5 and later read it)",
        "read": {"lines": [1, 9]},
    })
}

#[test]
fn a_defect_found_when_the_log_ends_stops_every_reader_at_its_line() {
    let log = g9_then_a_turn();
    // messages: the surface of lines 2–9 (turn 1's replaces), never turn 2's.
    let out = run(&["messages", "--salvage", path(&log)]);
    assert_eq!(out.status.code(), Some(1));
    let value: Value = serde_json::from_str(&stdout(&out)).expect("one JSON object");
    assert_eq!(value["salvaged"], g9_at_10());
    let ids: Vec<&str> = value["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["sys-2", "u-sum"]);

    // The text form names the lines read.
    let text = run(&["show", "--salvage", path(&log)]);
    assert_eq!(
        stdout(&text).lines().next(),
        Some(
            "salvaged: corrupt G9 at line 10 (seq 8): turn/end 1 crosses an open step (the check of a v3 log, as DSH 0.1.5 and later read it); what follows is what the log held before it (lines 1–9 read)"
        )
    );
    let show = run(&["show", "--salvage", "--format", "json", path(&log)]);
    let show: Value = serde_json::from_slice(&show.stdout).expect("json");
    assert_eq!(
        (show["events"].as_u64(), show["turns"].as_u64()),
        (Some(8), Some(1))
    );

    // export, with or without --salvage: the same lines, said in its verdict.
    for flags in [
        &["--format", "markdown"][..],
        &["--salvage", "--format", "markdown"],
    ] {
        let out = run(&[&["export"][..], flags, &[path(&log)]].concat());
        assert_eq!(out.status.code(), Some(1));
        let md = stdout(&out);
        assert!(
            md.contains("what follows is what was read before the failure (lines 1–9)"),
            "{md}"
        );
        assert!(md.contains("(summary)"));
        assert!(
            !md.contains("after the defect"),
            "line 13 follows the defect"
        );
        assert!(!md.contains("Read past it."), "line 14 follows the defect");
    }

    // stats: one turn and one step counted, and the note says which lines.
    let stats = run(&["stats", "--format", "json", path(&log)]);
    let stats: Value = serde_json::from_slice(&stats.stdout).expect("json");
    assert_eq!(stats["total"]["turns"], 1);
    assert_eq!(stats["total"]["steps"], 1);
    assert_eq!(stats["not_valid"][0]["rule"], "G9");
    assert_eq!(stats["not_valid"][0]["read"], json!({"lines": [1, 9]}));
    let text = run(&["stats", path(&log)]);
    assert!(
        stdout(&text).contains("as DSH 0.1.5 and later read it) (counted: lines 1–9)"),
        "{}",
        stdout(&text)
    );
}

#[test]
fn a_log_only_the_edges_refuse_is_read_whole_by_every_reader() {
    // Intact: DSH 0.1.1 loads it whole, and every reader shows it whole, saying so.
    let log = fixture("edges/F3-todo-status-outside-its-list.jsonl");
    let whole = run(&[
        "--dsh",
        "0.1.1",
        "messages",
        "--format",
        "jsonl",
        path(&log),
    ]);
    assert_eq!(whole.status.code(), Some(0));
    let salvaged = run(&["messages", "--salvage", "--format", "jsonl", path(&log)]);
    assert_eq!(stdout(&salvaged), stdout(&whole));
    assert!(String::from_utf8_lossy(&salvaged.stderr).contains(
        "status must be one of pending, in_progress, completed; shown whole, as DSH 0.1.1 loads it"
    ));
    let md = run(&["export", "--format", "markdown", path(&log)]);
    assert!(stdout(&md).contains(
        "DSH 0.1.5 and later refuse to load this session; DSH 0.1.1 loads it, and what follows is the whole log as it loads it"
    ));
    assert!(
        String::from_utf8_lossy(&md.stderr).contains("; exported whole, as DSH 0.1.1 loads it")
    );
    let stats = run(&["stats", "--format", "json", path(&log)]);
    let stats: Value = serde_json::from_slice(&stats.stdout).expect("json");
    assert_eq!(stats["not_valid"][0]["rule"], "F3");
    assert_eq!(
        stats["not_valid"][0]["read"],
        Value::Null,
        "counted in full"
    );
}

#[test]
fn standard_input_is_salvaged_as_the_file_is() {
    let log = restart();
    let from_file = run(&["messages", "--salvage", "--format", "jsonl", path(&log)]);
    let from_stdin = dsh()
        .args(["messages", "--salvage", "--format", "jsonl", "-"])
        .write_stdin(std::fs::read(&log).expect("readable"))
        .output()
        .expect("runs");
    assert_eq!(from_stdin.status.code(), Some(1));
    assert_eq!(from_stdin.stdout, from_file.stdout);
    let first = String::from_utf8_lossy(&from_stdin.stderr);
    let first: Value = serde_json::from_str(first.lines().next().expect("a line")).expect("json");
    assert_eq!(first, json!({ "salvaged": j5_at_22() }));
}
