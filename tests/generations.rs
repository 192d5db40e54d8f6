//! Format generations v1–v4 (GENERATIONS.md): one fixture per generation with its exact
//! surface and messages, a broken variant for each generation-specific rule, discovery of
//! the current generation in a session directory, and repair closers per generation.

mod common;

use std::path::{Path, PathBuf};

use common::{dsh, fixture, verdict};
use serde_json::Value;

fn generation(n: u8) -> PathBuf {
    fixture(&format!("generations/v{n}/session.v{n}.jsonl"))
}

fn stdout(args: &[&str], path: &Path) -> String {
    let out = dsh().args(args).arg(path).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?} {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn brief(v: &Value) -> String {
    format!(
        "{} {} {}",
        v["status"].as_str().unwrap(),
        v["rule"].as_str().unwrap_or("-"),
        v["seq"].as_u64().map_or("-".into(), |s| s.to_string())
    )
}

fn surface(path: &Path) -> Vec<u64> {
    let rows: Value =
        serde_json::from_str(&stdout(&["surface", "--format", "json"], path)).unwrap();
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r["seq"].as_u64().unwrap())
        .collect()
}

/// The stored message of the event with `seq` in `path`, cut out of its line by hand.
fn stored_message(path: &Path, seq: u64, user: bool) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains(&format!("\"seq\":{seq},")))
        .unwrap();
    let v: Value = serde_json::from_str(line).unwrap();
    let want = if user {
        v["data"].clone()
    } else {
        v["data"]["message"].clone()
    };
    let raw = serde_json::to_string(&want).unwrap();
    assert!(
        line.contains(&raw),
        "the fixture is written in serde_json's key order"
    );
    raw
}

#[test]
fn each_generation_reads_with_its_own_rules() {
    let cases: [(u8, &[u64], &str); 4] = [
        (1, &[2, 6], "v1"),
        (2, &[8], "v2"),
        (3, &[6, 7], "v3"),
        (4, &[2, 3, 5, 6, 8], "v4"),
    ];
    for (n, seqs, era) in cases {
        let path = generation(n);
        let v = verdict(&path);
        assert_eq!(brief(&v), "valid - -", "v{n}: {v}");
        assert_eq!(v["era"], era);
        assert_eq!(v["warnings"], serde_json::json!([]), "v{n}");
        assert_eq!(surface(&path), seqs, "v{n}");
    }
}

#[test]
fn messages_are_the_stored_values_of_each_generation() {
    let v1 = generation(1);
    assert_eq!(
        stdout(&["messages", "--format", "jsonl"], &v1),
        format!(
            "{}\n{}\n",
            stored_message(&v1, 2, true),
            stored_message(&v1, 6, false)
        )
    );
    let v3 = generation(3);
    assert_eq!(
        stdout(&["messages", "--format", "jsonl"], &v3),
        format!(
            "{}\n{}\n",
            stored_message(&v3, 6, false),
            stored_message(&v3, 7, true)
        )
    );
    // v4 verbatim from GENERATIONS §7: five messages, the tool-role result last.
    let v4 = generation(4);
    let lines: Vec<Value> = stdout(&["messages", "--format", "jsonl"], &v4)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let roles: Vec<&str> = lines.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "developer", "assistant", "tool"]);
    let text = std::fs::read_to_string(&v4).unwrap();
    for m in stdout(&["messages", "--format", "jsonl"], &v4).lines() {
        assert!(text.contains(m), "byte for byte: {m}");
    }
}

/// A generation fixture with one line replaced (matched by its seq) or, with `None`, the
/// header replaced; written as `session.vN.jsonl` in a temporary directory.
fn broken(n: u8, seq: Option<u64>, line: &str) -> (tempfile::TempDir, PathBuf) {
    let text = std::fs::read_to_string(generation(n)).unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|l| match seq {
            None if l.starts_with("{\"type\":\"session\"") => line.to_owned(),
            Some(s) if l.contains(&format!("\"seq\":{s},")) => line.to_owned(),
            _ => l.to_owned(),
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("session.v{n}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (dir, path)
}

#[test]
fn generation_specific_rules() {
    let cases: Vec<(u8, Option<u64>, &str, &str, &str)> = vec![
        // G2: the file name's generation and the header version disagree.
        (
            4,
            None,
            r#"{"type":"session","version":3,"id":"s-demo4","createdAt":1,"isSeeded":false,"delegationDepth":0}"#,
            "corrupt G2 -",
            "file name says format v4 but the header says version 3",
        ),
        // G8: v2+ headers carry isSeeded, never seedLength.
        (
            2,
            None,
            r#"{"type":"session","version":2,"id":"s-v2","createdAt":1,"cwd":"/w/demo","delegationDepth":0,"seedLength":0}"#,
            "corrupt G8 -",
            "seedLength is retired",
        ),
        (
            3,
            None,
            r#"{"type":"session","version":3,"id":"s-v3","createdAt":1,"cwd":"/w/demo","delegationDepth":0}"#,
            "corrupt G8 -",
            "isSeeded must be a boolean",
        ),
        // G3: a range pair must have start <= end and expand to an increasing list.
        (
            2,
            Some(5),
            r#"{"type":"tool/result","seq":5,"time":1787700000005,"data":{"turn":1,"step":1,"message":{"id":"r1","role":"user","source":{"kind":"tool","callId":"call_1"},"content":[{"type":"tool-result","toolCallId":"call_1","content":[],"isError":false}]}},"sourceEventSeqs":[[4,2]],"surfaceOp":"append"}"#,
            "corrupt G3 5",
            "start <= end",
        ),
        // G4: v2 assistant messages carry no sourceEventSeqs.
        (
            2,
            Some(3),
            r#"{"type":"assistant/message","seq":3,"time":1787700000003,"data":{"turn":1,"step":1,"message":{"id":"m1","role":"assistant","content":[],"source":{"kind":"model","provider":"deepseek","model":"deepseek-chat"}},"stream":[]},"sourceEventSeqs":[],"surfaceOp":"append"}"#,
            "corrupt G4 3",
            "must omit sourceEventSeqs",
        ),
        // S6: v3 replaces use startSeq/endSeq, not start/end.
        (
            3,
            Some(6),
            r#"{"type":"system/message","seq":6,"time":1787900000006,"data":{"turn":1,"step":1,"message":{"id":"sys-2","role":"system","content":[],"source":{"kind":"plugin","plugin":"@deepseek-ai/dsh-system-prompt"}}},"sourceEventSeqs":[2],"surfaceOp":{"op":"replace","start":2,"end":2}}"#,
            "corrupt S6 6",
            "\"startSeq\":S",
        ),
        // G5: only a system message replacing exactly the head may remove it.
        (
            3,
            Some(7),
            r#"{"type":"user/message","seq":7,"time":1787900000007,"data":{"content":[],"source":{"kind":"user"},"role":"user","id":"u-sum"},"sourceEventSeqs":[6,3],"surfaceOp":{"op":"replace","startSeq":6,"endSeq":3}}"#,
            "corrupt G5 7",
            "would remove the system head 6",
        ),
        // G7: v3 forbids the system prompt in the request header.
        (
            3,
            Some(4),
            r#"{"type":"request/header","seq":4,"time":1787900000004,"data":{"header":{"config":{"provider":"deepseek","model":"deepseek-chat"},"system":""},"reason":"initial"}}"#,
            "corrupt G7 4",
            "header.system is forbidden",
        ),
        // G7: a v4 developer message adding tools names the request/header.
        (
            4,
            Some(5),
            r#"{"type":"developer/message","seq":5,"time":1788100000140,"surfaceOp":"append","data":{"turn":1,"step":1,"message":{"id":"d1","role":"developer","content":[{"type":"tool-addition","toolName":"web_search"}],"source":{"kind":"tool-registry"}}}}"#,
            "corrupt G7 5",
            "headerSeq is required",
        ),
        // G6: a v4 tool result is a tool-role message, not a user-role wrapper.
        (
            4,
            Some(8),
            r#"{"type":"tool/result","seq":8,"time":1788100001200,"surfaceOp":"append","data":{"turn":1,"step":1,"message":{"id":"r1","role":"user","source":{"kind":"tool","callId":"call_1"},"content":[{"type":"tool-result","toolCallId":"call_1","content":[]}]}}}"#,
            "corrupt G6 8",
            "role must be \"tool\"",
        ),
    ];
    for (n, seq, line, want, fragment) in cases {
        let (_dir, path) = broken(n, seq, line);
        let v = verdict(&path);
        assert_eq!(brief(&v), want, "v{n} {fragment}: {v}");
        assert!(
            v["message"].as_str().unwrap().contains(fragment),
            "{fragment}: {v}"
        );
    }
}

#[test]
fn a_system_message_after_the_first_node_breaks_the_head_rule() {
    let text = std::fs::read_to_string(generation(4)).unwrap();
    // Swap the system and user messages: the surface no longer starts with the system head.
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[3] = lines[3].replace("\"seq\":2,", "\"seq\":3,");
    lines[4] = lines[4].replace("\"seq\":3,", "\"seq\":2,");
    lines.swap(3, 4);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.v4.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let v = verdict(&path);
    assert_eq!(brief(&v), "corrupt G5 3", "{v}");
}

#[test]
fn unknown_types_in_later_generations_are_warnings() {
    let (_dir, path) = broken(
        4,
        Some(4),
        r#"{"type":"model/telemetry","seq":4,"time":1788100000130,"data":{}}"#,
    );
    // The developer message names seq 4 as its request/header; drop the tool addition too.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace(r#""headerSeq":4,"#, "")
        .replace(r#"{"type":"tool-addition","toolName":"web_search"}"#, "");
    std::fs::write(&path, text).unwrap();
    let v = verdict(&path);
    assert_eq!(brief(&v), "valid - -", "{v}");
    assert_eq!(v["warnings"][0]["rule"], "W3");
    assert!(
        v["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("\"model/telemetry\" is not in this reader's v4 vocabulary"),
        "{v}"
    );
}

#[test]
fn only_the_highest_generation_of_a_session_directory_is_current() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("_no-cwd").join("s-demo4");
    std::fs::create_dir_all(&session).unwrap();
    std::fs::copy(generation(4), session.join("session.v4.jsonl")).unwrap();
    std::fs::copy(generation(3), session.join("session.v3.jsonl")).unwrap();
    std::fs::copy(
        fixture("compaction-and-prune.jsonl"),
        session.join("session.jsonl"),
    )
    .unwrap();
    let out = dsh()
        .args(["validate", "--color", "never"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        format!(
            "{}: valid (11 events, surface 5, v4)\n1 valid, 0 torn-tail, 0 corrupt, 0 refused\n",
            session.join("session.v4.jsonl").display()
        )
    );
    let err = String::from_utf8(out.stderr).unwrap();
    for name in ["session.jsonl", "session.v3.jsonl"] {
        assert!(
            err.contains(&format!(
                "{}: not checked: a frozen predecessor",
                session.join(name).display()
            )),
            "{err}"
        );
    }
    let version = stdout(&["version"], &session.join("session.v4.jsonl"));
    assert!(
        version.contains("format version: v4 (supported)"),
        "{version}"
    );
    assert!(
        version.contains(&format!(
            "other file:     v0 {} (frozen predecessor)",
            session.join("session.jsonl").display()
        )),
        "{version}"
    );
    assert!(
        version.contains(&format!(
            "other file:     v3 {} (frozen predecessor)",
            session.join("session.v3.jsonl").display()
        )),
        "{version}"
    );
}

const NOT_STARTED: &str = "The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.";

#[test]
fn v4_repair_writes_tool_role_closers() {
    let text = std::fs::read_to_string(generation(4)).unwrap();
    // Crash right after the assistant message advertised call_1 (seq 6).
    let cut: String = text.lines().take(8).map(|l| format!("{l}\n")).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.v4.jsonl");
    std::fs::write(&path, &cut).unwrap();
    let out = dsh()
        .args(["repair", "--no-backup"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let repaired = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        &repaired[cut.len()..],
        format!(
            concat!(
                r#"{{"type":"tool/result","seq":7,"time":1788100000900,"data":{{"turn":1,"step":1,"message":{{"id":"interrupted-tool-result-call_1-7","role":"tool","toolCallId":"call_1","isError":true,"source":{{"kind":"tool","callId":"call_1"}},"content":[{{"type":"text","text":"{}"}}]}},"error":{{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"}}}},"surfaceOp":"append"}}"#,
                "\n",
                r#"{{"type":"step/end","seq":8,"time":1788100000900,"data":{{"turn":1,"step":1}}}}"#,
                "\n",
                r#"{{"type":"turn/end","seq":9,"time":1788100000900,"data":{{"turn":1,"reason":{{"kind":"interrupted"}}}}}}"#,
                "\n"
            ),
            NOT_STARTED
        )
    );
    assert_eq!(brief(&verdict(&path)), "valid - -");
    // v3 closers keep the user-role wrapper.
    let text = std::fs::read_to_string(generation(3)).unwrap();
    let cut: String = text.lines().take(7).map(|l| format!("{l}\n")).collect();
    let path = dir.path().join("session.v3.jsonl");
    std::fs::write(&path, &cut).unwrap();
    assert!(
        dsh()
            .args(["repair", "--no-backup"])
            .arg(&path)
            .output()
            .unwrap()
            .status
            .success()
    );
    let repaired = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        &repaired[cut.len()..],
        concat!(
            r#"{"type":"step/end","seq":6,"time":1787400000005,"data":{"turn":1,"step":1}}"#,
            "\n",
            r#"{"type":"turn/end","seq":7,"time":1787400000005,"data":{"turn":1,"reason":{"kind":"interrupted"}}}"#,
            "\n"
        )
    );
}

#[test]
fn the_v0_alpha_dialect_is_detected_by_content() {
    // GENERATIONS §3: version 0, but alpha-only types without `ignorable` and range pairs.
    let log = concat!(
        r#"{"type":"session","version":0,"id":"s-demo","createdAt":1787400000000,"cwd":"/w/demo","delegationDepth":0}"#,
        "\n",
        r#"{"type":"model/selection","seq":0,"time":1787400000005,"data":{"provider":"deepseek","model":"deepseek-chat"}}"#,
        "\n",
        r#"{"type":"turn/start","seq":1,"time":1787400000006,"data":{"turn":1}}"#,
        "\n",
        r#"{"type":"step/start","seq":2,"time":1787400000007,"data":{"turn":1,"step":1}}"#,
        "\n",
        r#"{"type":"text-chunks","seq0":3,"time0":1787400000100,"data":{"turn":1,"step":1,"index":0,"dt":[12,9],"texts":["Hel","lo"," there"]}}"#,
        "\n",
        r#"{"type":"assistant/message","seq":6,"time":1787400000140,"surfaceOp":"append","sourceEventSeqs":[[3,5]],"data":{"turn":1,"step":1,"message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Hello there"}],"source":{"kind":"model","provider":"deepseek","model":"deepseek-chat"}}}}"#,
        "\n",
        r#"{"type":"step/end","seq":7,"time":1787400000141,"data":{"turn":1,"step":1}}"#,
        "\n",
        r#"{"type":"turn/end","seq":8,"time":1787400000142,"data":{"turn":1,"reason":{"kind":"completed"}}}"#,
        "\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("alpha.jsonl");
    std::fs::write(&path, log).unwrap();
    let v = verdict(&path);
    assert_eq!(
        (brief(&v).as_str(), v["era"].as_str()),
        ("valid - -", Some("v0-alpha")),
        "{v}"
    );
    let out = dsh()
        .args(["provenance", "--format", "json"])
        .arg(&path)
        .arg("6")
        .output()
        .unwrap();
    let tree: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cited: Vec<u64> = tree["ancestors"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(
        cited,
        [3, 4, 5],
        "the pair expands to the chunks it stands for"
    );
}

#[test]
fn show_counts_embedded_stream_records_from_v2_on() {
    let text = stdout(&["show"], &generation(2));
    assert!(text.contains(" turn   seqs   steps   tool calls   input   output   reason      duration   stream records\n"), "{text}");
    assert!(
        text.ends_with(
            " 1      0..7   1       1            0       0        completed   0.0s       2\n"
        ),
        "{text}"
    );
    let json: Value =
        serde_json::from_str(&stdout(&["show", "--format", "json"], &generation(2))).unwrap();
    assert_eq!(json["per_turn"][0]["stream_records"], 2);
    assert_eq!(json["era"], "v2");
}

#[test]
fn a_seeded_v2_header_needs_its_tagged_end_seed() {
    let text = std::fs::read_to_string(generation(2)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.v2.jsonl");
    std::fs::write(
        &path,
        text.replacen("\"isSeeded\":false", "\"isSeeded\":true", 1),
    )
    .unwrap();
    let v = verdict(&path);
    assert_eq!(brief(&v), "corrupt G8 -", "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("no session/end-seed {inherited: true}"),
        "{v}"
    );
    // With the marker (seq 8 becomes the cut, the summary moves to 9) it is valid.
    let fixed = text
        .replacen("\"isSeeded\":false", "\"isSeeded\":true", 1)
        .replace(
            "\"seq\":8,\"time\":1787400000008",
            "\"seq\":9,\"time\":1787400000009",
        );
    let mut lines: Vec<&str> = fixed.lines().collect();
    lines.insert(
        9,
        r#"{"type":"session/end-seed","seq":8,"time":1787400000008,"data":{"inherited":true}}"#,
    );
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    assert_eq!(brief(&verdict(&path)), "valid - -");
}

#[test]
fn sessions_of_a_jsonl_root_use_the_current_generation() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("_no-cwd").join("s-demo4");
    std::fs::create_dir_all(&session).unwrap();
    std::fs::copy(generation(4), session.join("session.v4.jsonl")).unwrap();
    std::fs::copy(generation(3), session.join("session.v3.jsonl")).unwrap();
    let rows: Value =
        serde_json::from_str(&stdout(&["sessions", "--format", "json"], dir.path())).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1);
    assert_eq!(rows[0]["session"], "s-demo4");
    assert_eq!(rows[0]["events"], 11);
    assert_eq!(
        rows[0]["file"],
        session.join("session.v4.jsonl").display().to_string()
    );
}
