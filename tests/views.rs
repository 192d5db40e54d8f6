//! Exact surfaces, messages and summaries on hand-made valid fixtures.
//!
//! The fixtures are built in DSH 0.1.1's rules and read as it loads them (`--dsh 0.1.1`);
//! what DSH 0.1.5 and later do with them is tests/edges.rs's.

mod common;

use common::{dsh_011, fixture};

fn stdout(args: &[&str]) -> String {
    let out = dsh_011().args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn surface_seqs(file: &str, at: Option<u64>) -> Vec<u64> {
    let path = fixture(file);
    let mut args = vec!["surface", "--format", "json", path.to_str().unwrap()];
    let at = at.map(|a| a.to_string());
    if let Some(at) = &at {
        args.extend(["--at", at]);
    }
    let rows: serde_json::Value = serde_json::from_str(&stdout(&args)).unwrap();
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r["seq"].as_u64().unwrap())
        .collect()
}

#[test]
fn compaction_and_prune_surface_at_every_step() {
    let f = "compaction-and-prune.jsonl";
    assert_eq!(surface_seqs(f, Some(2)), [2]);
    assert_eq!(surface_seqs(f, Some(9)), [2, 7, 9]);
    assert_eq!(surface_seqs(f, Some(12)), [2, 7, 9, 12]);
    assert_eq!(surface_seqs(f, Some(15)), [15, 12]);
    assert_eq!(surface_seqs(f, Some(17)), [15, 12, 17]);
    assert_eq!(surface_seqs(f, Some(19)), [15, 12, 19]);
    assert_eq!(surface_seqs(f, None), [20, 19]);
}

#[test]
fn compaction_and_prune_surface_table() {
    let path = fixture("compaction-and-prune.jsonl");
    let table = stdout(&["surface", path.to_str().unwrap()]);
    assert_eq!(
        table,
        " pos   seq   type           op               shadowed   role   preview\n\
         ----- ----- -------------- ---------------- ---------- ------ ---------------------------------------\n \
         0     20    user/message   replace 15..12   2          user   Summary: two files; a.txt says hello.\n \
         1     19    tool/result    replace 17..17   1          user   [output pruned]\n"
    );
    let jsonl = stdout(&[
        "surface",
        "--format",
        "jsonl",
        "--at",
        "15",
        path.to_str().unwrap(),
    ]);
    assert_eq!(
        jsonl,
        "{\"schema_version\":2,\"position\":0,\"seq\":15,\"type\":\"user/message\",\"op\":\"replace\",\"start\":2,\"end\":9,\"shadowed_count\":3,\"role\":\"user\",\"preview\":\"Summary: the user listed two files.\"}\n\
         {\"schema_version\":2,\"position\":1,\"seq\":12,\"type\":\"assistant/message\",\"op\":\"append\",\"start\":null,\"end\":null,\"shadowed_count\":0,\"role\":\"assistant\",\"preview\":\"Two files.\"}\n"
    );
}

#[test]
fn compaction_and_prune_messages_are_the_stored_bytes() {
    let path = fixture("compaction-and-prune.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    // The two surviving messages, cut out of the stored lines by hand.
    let user = &text[text
        .find(r#"{"content":[{"type":"text","text":"Summary: two files"#)
        .unwrap()..];
    let user = &user[..user.find(r#","sourceEventSeqs""#).unwrap()];
    let result = &text[text.rfind(r#"{"id":"r-2""#).unwrap()..];
    let result = &result[..result.find(r#"}},"sourceEventSeqs""#).unwrap() + 1];
    assert_eq!(
        stdout(&["messages", path.to_str().unwrap()]),
        format!("[\n{user},\n{result}\n]\n")
    );
    assert_eq!(
        stdout(&["messages", "--format", "jsonl", path.to_str().unwrap()]),
        format!("{user}\n{result}\n")
    );
    // Before the first compaction: user, assistant, tool result.
    let at9 = stdout(&[
        "messages",
        "--format",
        "jsonl",
        "--at",
        "9",
        path.to_str().unwrap(),
    ]);
    let ids: Vec<String> = at9
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(ids, ["u-1", "a-1", "r-1"]);
}

#[test]
fn legacy_records_are_converted_as_head_does() {
    let path = fixture("legacy-conversions.jsonl");
    assert_eq!(
        stdout(&["messages", "--format", "jsonl", path.to_str().unwrap()]),
        concat!(
            r#"{"content":[{"type":"text","text":"what is in a.txt?"}],"source":{"kind":"user"},"id":"legacy-message:s-legacy:1","role":"user"}"#,
            "\n",
            r#"{"id":"legacy-message:s-legacy:3","role":"assistant","content":[{"type":"tool-call","id":"call_9","name":"read","arguments":"{\"path\":\"a.txt\"}"}],"source":{"provider":"deepseek","model":"deepseek-chat","kind":"model"}}"#,
            "\n",
            r#"{"id":"legacy-message:s-legacy:5","role":"user","content":[{"type":"tool-result","toolCallId":"call_9","content":[{"type":"text","text":"[pruned]"}],"isError":false}],"source":{"kind":"tool","callId":"call_9"}}"#,
            "\n",
            r#"{"content":[{"type":"text","text":"also check b.txt"}],"source":{"kind":"user"},"id":"legacy-message:s-legacy:6","role":"user"}"#,
            "\n",
        )
    );
    let show: serde_json::Value = serde_json::from_str(&stdout(&[
        "show",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]))
    .unwrap();
    // disposed → aborted; the June-style error reason → error.
    assert_eq!(
        show["turns_by_reason"],
        serde_json::json!({"aborted": 1, "error": 1})
    );
}

#[test]
fn open_turn_is_shown_with_its_unanswered_call() {
    let path = fixture("open-turn-after-tool-call.jsonl");
    let show: serde_json::Value = serde_json::from_str(&stdout(&[
        "show",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(show["events"], 19);
    assert_eq!(
        show["turns_by_reason"],
        serde_json::json!({"still open": 1})
    );
    assert_eq!(show["open_turn"], 1);
    assert_eq!(show["tool_calls"], 1);
    assert_eq!(show["unanswered_calls"], 1);
    assert_eq!(show["usage"]["input_tokens"], 900);
    assert_eq!(show["first_event_at"], "2025-10-09T08:53:20.100Z");
    // The packed rows expand to chunks 6–8 and 11–13: the assistant message cites all twelve.
    assert_eq!(
        surface_seqs("open-turn-after-tool-call.jsonl", None),
        [2, 17]
    );
}

#[test]
fn show_text_summary() {
    let path = fixture("compaction-and-prune.jsonl");
    let text = stdout(&["show", path.to_str().unwrap()]);
    let expected_lines = [
        "session id:   s-compact",
        "format:       v0 (head era), compression none",
        "status:       valid",
        "events:       24 (first 2025-10-09T08:53:20.100Z, last 2025-10-09T08:53:20.123Z)",
        "turns:        1 (1 completed)",
        "surface:      2 entries, 3 replacements",
        "tool calls:   2 calls, 3 results, 0 unanswered",
        "tokens:       input 1850, output 25, cache read 0, cache write 0, reasoning 0",
    ];
    for line in expected_lines {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
}

#[test]
fn version_of_a_plain_log() {
    let path = fixture("compaction-and-prune.jsonl");
    let p = path.to_str().unwrap();
    assert_eq!(
        stdout(&["version", p]),
        format!(
            "file:           {p}\nsession id:     s-compact\nformat version: v0 (supported)\nera:            head\ncompression:    none\ndsh:            DSH 0.1.1 loads it; DSH 0.1.5+ migrates it\n"
        )
    );
}

#[test]
fn standard_input_is_read_with_a_dash() {
    let path = fixture("compaction-and-prune.jsonl");
    let out = dsh_011()
        .args(["messages", "--format", "jsonl", "-"])
        .pipe_stdin(&path)
        .unwrap()
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        out.stdout,
        dsh_011()
            .args(["messages", "--format", "jsonl"])
            .arg(&path)
            .output()
            .unwrap()
            .stdout
    );
}

#[test]
fn at_beyond_the_log_is_a_clear_error() {
    let path = fixture("compaction-and-prune.jsonl");
    let out = dsh_011()
        .args(["surface", "--at", "99"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("--at 99 is beyond the log: its last replayed seq is 23"),
        "{err}"
    );
}

fn warnings(file: &str) -> Vec<(String, u64, String)> {
    let path = fixture(file);
    let v: serde_json::Value = serde_json::from_str(&stdout(&[
        "validate",
        "--format",
        "jsonl",
        path.to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(v["status"], "valid");
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["rule"].as_str().unwrap().to_owned(),
                w["seq"].as_u64().unwrap(),
                w["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn tool_calls_without_results_on_the_surface_warn() {
    // The calls of an open final turn are answered by the closers DSH appends on load:
    // the history DSH sends has no unanswered call.
    assert_eq!(warnings("repair/several-calls-some-recorded.jsonl"), []);
    assert_eq!(warnings("legacy-conversions.jsonl"), []);
    // The compaction fixture keeps a pruned result whose call was summarised away.
    assert_eq!(
        warnings("compaction-and-prune.jsonl"),
        [(
            "P2".to_owned(),
            19,
            "tool result for call \"call_2\" answers no tool call before it".to_owned()
        )]
    );
}

#[test]
fn a_compaction_that_leaves_a_tool_result_behind_warns() {
    assert_eq!(
        warnings("orphan-result-after-compaction.jsonl"),
        [(
            "P2".to_owned(),
            5,
            "tool result for call \"call_1\" answers no tool call before it".to_owned()
        )]
    );
}

/// The progress callback (the bar `validate` draws on a terminal for large logs) hears of
/// the whole file: plain JSONL up to its size, zstd at the start of every frame.
#[test]
fn progress_reaches_the_end_of_plain_and_zstd_logs() {
    use std::sync::{Arc, Mutex};
    let seen = |path: &std::path::Path| {
        let reports = Arc::new(Mutex::new(Vec::new()));
        let sink = reports.clone();
        let options = dsh_session::scan::ScanOptions {
            progress: Some(Arc::new(move |read| sink.lock().unwrap().push(read))),
            dsh: dsh_session::edge::Judge {
                line: dsh_session::edge::DshLine::V0_1_1,
                both_lines: false,
            },
            ..Default::default()
        };
        let report = dsh_session::scan::scan_path(path, &options).unwrap();
        assert!(report.is_ok(), "{:?}", report.finding);
        reports.lock().unwrap().clone()
    };
    let plain = fixture("compaction-and-prune.jsonl");
    let size = std::fs::metadata(&plain).unwrap().len();
    assert_eq!(seen(&plain).last(), Some(&size));

    let dir = tempfile::tempdir().unwrap();
    let (bytes, frame_starts) = common::zstd_log(&std::fs::read_to_string(&plain).unwrap(), 5);
    let path = dir.path().join("session.jsonl.zstd");
    std::fs::write(&path, &bytes).unwrap();
    let starts: Vec<u64> = frame_starts.iter().map(|&s| s as u64).collect();
    assert_eq!(seen(&path), starts);
}

/// `--at` a seq past the stored log is beyond it, even when the log ends in an open turn:
/// the closers DSH would append on load are checked, never shown as stored events. (Before
/// views were split from the scan, `surface --at 5` here showed the surface after a
/// closer at seq 5 that is not in the file.)
#[test]
fn at_a_seq_past_the_stored_log_is_beyond_it_even_with_an_open_turn() {
    let path = fixture("repair/several-calls-some-recorded.jsonl");
    for command in ["surface", "messages"] {
        let out = common::dsh_011()
            .args([command, "--at", "5"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(out.stdout.is_empty(), "{command}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("--at 5 is beyond the log"), "{command}: {err}");
    }
    // The last stored seq still works.
    let out = common::dsh_011()
        .args(["surface", "--at", "4", "--format", "jsonl"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let seqs: Vec<u64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["seq"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(seqs, [2, 3]);
}
