//! `recover FILE --out ROOT` (issue 27): every failure class recovers to sessions that
//! `validate ROOT` calls valid as DSH 0.1.5+ and as DSH 0.1.1 load them, each stored line
//! before the defect byte for byte in them; the original never changes; a second run never
//! writes over the first; `--dry-run` writes nothing.

mod common;

use std::path::{Path, PathBuf};

use common::{dsh, dsh_writer, fixture};
use serde_json::Value;

fn recover_fixture(name: &str) -> PathBuf {
    fixture(&format!("recover/{name}"))
}

/// `recover FILE --out ROOT --format json ARGS`: the exit code and the report.
fn recover_json(file: &Path, root: &Path, args: &[&str]) -> (i32, Value) {
    let out = dsh()
        .arg("recover")
        .arg(file)
        .arg("--out")
        .arg(root)
        .args(["--format", "json"])
        .args(args)
        .output()
        .expect("runs");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().expect("exit code"), report)
}

/// `validate -q ROOT` as the newest DSH and as the DSH that writes each session's
/// generation (DSH 0.1.1 for v0): prints nothing and exits 0.
fn assert_valid_root(root: &Path, sessions: usize) {
    for mut cmd in [dsh(), dsh_writer()] {
        let out = cmd
            .args(["validate", "--format", "jsonl"])
            .arg(root)
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(0), "{text}");
        let verdicts: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(verdicts.len(), sessions, "{text}");
        for v in &verdicts {
            assert_eq!(v["status"], "valid", "{v}");
        }
    }
}

/// The lines of a text file (without newlines).
fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("readable")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The bytes and mtime of a file, to show it did not change.
fn snapshot(path: &Path) -> (Vec<u8>, std::time::SystemTime) {
    (
        std::fs::read(path).expect("readable"),
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .expect("mtime"),
    )
}

fn session_path(report: &Value, k: usize) -> PathBuf {
    PathBuf::from(report["sessions"][k]["path"].as_str().expect("a path"))
}

/// [`recover_json`] with what every recovery owes: the input is untouched (bytes and
/// mtime), and a second recovery to the same root refuses to write over the sessions the
/// first wrote (exit 1, `not written`), which stay as they were.
fn recover_checked(file: &Path, root: &Path) -> (i32, Value) {
    let before = snapshot(file);
    let (code, report) = recover_json(file, root, &[]);
    assert_eq!(snapshot(file), before, "the input is untouched");
    if report["status"] != "recovered" {
        return (code, report);
    }
    let count = report["sessions"].as_array().map_or(0, Vec::len);
    let written: Vec<_> = (0..count)
        .map(|k| snapshot(&session_path(&report, k)))
        .collect();
    let (again_code, again) = recover_json(file, root, &[]);
    assert_eq!(
        (again_code, again["status"].as_str()),
        (1, Some("not written")),
        "{again:#}"
    );
    for k in 0..count {
        assert_eq!(again["sessions"][k]["exists"], true, "{again:#}");
    }
    let after: Vec<_> = (0..count)
        .map(|k| snapshot(&session_path(&report, k)))
        .collect();
    assert_eq!(written, after, "the first recovery's sessions are kept");
    assert_eq!(snapshot(file), before, "the input is untouched");
    (code, report)
}

/// Line `n` (1-based) of `lines`.
fn line(lines: &[String], n: usize) -> &str {
    &lines[n - 1]
}

#[test]
fn two_writers_after_a_turn_end_become_one_session_each() {
    let log = recover_fixture("seq-restart-at-line-22.jsonl");
    let root = tempfile::tempdir().expect("temp dir");
    let (code, report) = recover_checked(&log, root.path());
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["status"], "recovered");
    assert_eq!(report["defect"]["rule"], "J5");
    assert_eq!(report["defect"]["line"], 22);
    let sessions = report["sessions"].as_array().expect("sessions");
    assert_eq!(sessions.len(), 2);
    let summary: Vec<(String, u64, u64, bool, Value, Value)> = sessions
        .iter()
        .map(|s| {
            (
                s["session"].as_str().unwrap().to_owned(),
                s["turns"].as_u64().unwrap(),
                s["events"].as_u64().unwrap(),
                s["more_turns"].as_bool().unwrap(),
                s["lines"].clone(),
                s["last_time"].clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "s-1-branch-1".to_owned(),
                3,
                21,
                false,
                serde_json::json!([[2, 21]]),
                serde_json::json!(1760000000119i64)
            ),
            (
                "s-1-branch-2".to_owned(),
                4,
                33,
                true,
                serde_json::json!([[2, 15], [22, 39]]),
                serde_json::json!(1760000001137i64)
            ),
        ]
    );
    assert_eq!(sessions[1]["fork_seq"], 14);
    assert_eq!(sessions[1]["fork_line"], 22);
    assert_eq!(report["unrecoverable"], serde_json::json!([]));
    assert_valid_root(root.path(), 2);
    // Each branch holds its writer's lines byte for byte, after the header with its new id.
    let original = lines_of(&log);
    let first = lines_of(&session_path(&report, 0));
    let second = lines_of(&session_path(&report, 1));
    assert_eq!(
        line(&first, 1),
        line(&original, 1).replace("\"id\":\"s-1\"", "\"id\":\"s-1-branch-1\"")
    );
    assert_eq!(first[1..21], original[1..21]);
    assert_eq!(second[1..15], original[1..15]);
    assert_eq!(second[15..33], original[21..39]);
    // Then the note, the only record neither writer wrote.
    for (lines, seq) in [(&first, 20), (&second, 32)] {
        let note: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
        assert_eq!(note["seq"], seq);
        assert_eq!(note["data"]["id"], format!("dsh-session-recover-{seq}"));
        assert_eq!(note["data"]["source"]["plugin"], "dsh-session-recover");
        let text = note["data"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with(
                "[dsh-session recover] This session was recovered by dsh-session from session s-1"
            ),
            "{text}"
        );
    }
}

#[test]
fn two_writers_whose_end_seeds_overlap_are_told_apart_by_their_batches() {
    let log = recover_fixture("end-seed-overlap-two-writers.jsonl");
    let root = tempfile::tempdir().expect("temp dir");
    let (code, report) = recover_checked(&log, root.path());
    assert_eq!(code, 0, "{report:#}");
    let lines: Vec<Value> = report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["lines"].clone())
        .collect();
    // Writer 1: its first history and its later turn 4; writer 2: the shared history, its
    // own end seed and turn 3.
    assert_eq!(
        lines,
        [
            serde_json::json!([[2, 22], [35, 40]]),
            serde_json::json!([[2, 15], [23, 34]])
        ]
    );
    assert_eq!(report["sessions"][0]["turns"], 4);
    assert_eq!(report["sessions"][1]["turns"], 3);
    assert_eq!(report["sessions"][0]["more_turns"], true);
    assert_valid_root(root.path(), 2);
    let original = lines_of(&log);
    let first = lines_of(&session_path(&report, 0));
    assert_eq!(first[1..22], original[1..22]);
    assert_eq!(first[22..28], original[34..40]);
}

#[test]
fn the_text_report_says_which_branch_has_more_turns_and_when_each_ended() {
    let root = tempfile::tempdir().expect("temp dir");
    let out = dsh()
        .arg("recover")
        .arg(recover_fixture("seq-restart-at-line-22.jsonl"))
        .arg("--out")
        .arg(root.path())
        .arg("--dry-run")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("would recover 2 sessions under"), "{text}");
    assert!(text.contains("session s-1-branch-1 (writer 1): 3 turns, 21 events, last event 2025-10-09T08:53:20.119Z"), "{text}");
    assert!(text.contains("session s-1-branch-2 (writer 2: leaves writer 1 at seq 14): 4 turns, 33 events, last event 2025-10-09T08:53:21.137Z"), "{text}");
    assert!(text.contains("s-1-branch-2 has the most turns (3 in s-1-branch-1, 4 in s-1-branch-2); every branch is written, none is preferred"), "{text}");
    assert_eq!(
        std::fs::read_dir(root.path()).unwrap().count(),
        0,
        "a dry run writes nothing"
    );
}

#[test]
fn event_types_no_dsh_loads_are_left_out_and_kept_verbatim_in_the_report() {
    let log = recover_fixture("plugin-types-no-dsh-loads.jsonl");
    let root = tempfile::tempdir().expect("temp dir");
    let (code, report) = recover_checked(&log, root.path());
    assert_eq!(code, 0, "{report:#}");
    let original = lines_of(&log);
    let dropped: Vec<(u64, String, String)> = report["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["on_surface"], false);
            (
                d["line"].as_u64().unwrap(),
                d["type"].as_str().unwrap().to_owned(),
                d["record"].to_string(),
            )
        })
        .collect();
    assert_eq!(
        dropped,
        [
            (9, "acme/audit".to_owned(), line(&original, 9).to_owned()),
            (
                11,
                "acme/heartbeat".to_owned(),
                line(&original, 11).to_owned()
            )
        ],
        "the records are in the report verbatim"
    );
    assert_valid_root(root.path(), 1);
    let recovered = lines_of(&session_path(&report, 0));
    // Before the first dropped record: byte for byte.
    assert_eq!(recovered[1..8], original[1..8]);
    // After it: the same records, their seqs and the seqs they cite one or two lower.
    assert_eq!(
        line(&recovered, 9),
        line(&original, 10).replace("\"seq\":8", "\"seq\":7")
    );
    let result = recovered
        .iter()
        .find(|l| l.contains("\"type\":\"tool/result\""))
        .expect("the tool result");
    let stored = original
        .iter()
        .find(|l| l.contains("\"type\":\"tool/result\""))
        .unwrap();
    assert_eq!(
        result,
        &stored
            .replace("\"seq\":15", "\"seq\":13")
            .replace("\"sourceEventSeqs\":[14]", "\"sourceEventSeqs\":[12]")
    );
    assert_eq!(report["kept"]["renumbered"], 12);
    assert_eq!(report["kept"]["verbatim"], 7);
}

#[test]
fn a_lost_event_inside_a_turn_closes_it_and_later_turns_are_renumbered() {
    let log = recover_fixture("garbage-line-inside-turn-2.jsonl");
    let root = tempfile::tempdir().expect("temp dir");
    let (code, report) = recover_checked(&log, root.path());
    assert_eq!(
        code, 0,
        "the unreadable line is quoted in the note: {report:#}"
    );
    assert_eq!(report["status"], "recovered");
    let session = &report["sessions"][0];
    assert_eq!(session["lines"], serde_json::json!([[2, 13], [21, 31]]));
    assert_eq!(session["renumbered"], 11);
    let closers: Vec<String> = session["closers"]
        .as_array()
        .unwrap()
        .iter()
        .map(Value::to_string)
        .collect();
    // The assistant message at seq 11 announced call_2; its tool/call was the lost line,
    // so DSH's closer says the call never started.
    assert_eq!(closers.len(), 3);
    assert!(closers[0].starts_with(r#"{"type":"tool/result","seq":12,"time":1760000000111,"data":{"turn":2,"step":1,"message":{"id":"interrupted-tool-result-call_2-12""#), "{}", closers[0]);
    assert!(closers[0].contains("TOOL_NOT_STARTED"));
    assert_eq!(
        closers[1],
        r#"{"type":"step/end","seq":13,"time":1760000000111,"data":{"turn":2,"step":1}}"#
    );
    assert_eq!(
        closers[2],
        r#"{"type":"turn/end","seq":14,"time":1760000000111,"data":{"turn":2,"reason":{"kind":"interrupted"}}}"#
    );
    let lost: Vec<(Value, Value, &str)> = report["unrecoverable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["from_line"].clone(),
                u["to_line"].clone(),
                u["rule"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        lost,
        [(14.into(), 14.into(), "J3"), (15.into(), 20.into(), "-"),]
    );
    assert_valid_root(root.path(), 1);
    let original = lines_of(&log);
    let recovered = lines_of(&session_path(&report, 0));
    assert_eq!(recovered[1..13], original[1..13]);
    // Turn 3 starts at seq 19 in the log and at seq 15 after the closers.
    assert_eq!(
        line(&recovered, 17),
        line(&original, 21).replace("\"seq\":19", "\"seq\":15")
    );
}

#[test]
fn a_damaged_zstd_frame_in_the_middle_loses_only_its_turn() {
    let plain =
        std::fs::read_to_string(recover_fixture("three-turns-with-tool-calls.jsonl")).unwrap();
    let (mut bytes, starts) = common::zstd_log(&plain, 4);
    // Frame 5 holds lines 14-17 (seqs 12-15: the middle of turn 2); its data no longer
    // matches its checksum.
    bytes[starts[4] + 20] ^= 0xff;
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("session.jsonl.zstd");
    std::fs::write(&log, &bytes).unwrap();
    let before = snapshot(&log);
    let root = dir.path().join("root");
    let (code, report) = recover_checked(&log, &root);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["defect"]["rule"], "Z5");
    let session = &report["sessions"][0];
    assert_eq!(session["encoding"], "zstd");
    assert_eq!(report["unrecoverable"][0]["rule"], "Z5");
    assert_eq!(report["unrecoverable"][0]["offset"], starts[4] as u64);
    assert_valid_root(&root, 1);
    let written = common::zstd_plain(&std::fs::read(session_path(&report, 0)).unwrap());
    let written: Vec<&str> = written.lines().collect();
    let original: Vec<&str> = plain.lines().collect();
    assert_eq!(
        written[1..13],
        original[1..13],
        "lines 2-13, before the frame"
    );
    assert_eq!(written.len(), 28);
    assert_eq!(snapshot(&log), before);
}

#[test]
fn a_sqlite_row_that_does_not_decode_becomes_a_plain_jsonl_session() {
    let source = recover_fixture("three-turns-with-tool-calls.jsonl");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("sessions.db");
    common::store::store_from_jsonl(&source, &db, 17);
    // The row of seq 13 (turn 2's tool/result) holds a zstd blob that does not decode.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE events SET data = X'28B52FFD0000' WHERE seq = 13",
        [],
    )
    .unwrap();
    drop(conn);
    let before = snapshot(&db);
    let root = dir.path().join("root");
    let (code, report) = recover_checked(&db, &root);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["defect"]["rule"], "Q7");
    assert_eq!(report["store_session"], "s-1");
    let session = &report["sessions"][0];
    assert_eq!(session["encoding"], "none");
    assert!(
        session["path"]
            .as_str()
            .unwrap()
            .ends_with("/--home-ana-proj--/s-1-recovered/session.jsonl")
    );
    assert_valid_root(&root, 1);
    let original = lines_of(&source);
    let written = lines_of(&session_path(&report, 0));
    // Rows 0-12 as JSONL records, as `export --format dsh-jsonl` writes rows.
    assert_eq!(written[1..14], original[1..14]);
    assert_eq!(snapshot(&db), before, "the store is untouched");
}

#[test]
fn every_migration_refusal_class_recovers_to_a_valid_session() {
    let dir = fixture("edges");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut seen = Vec::new();
    for name in names {
        let log = dir.join(&name);
        let root = tempfile::tempdir().expect("temp dir");
        let (code, report) = recover_checked(&log, root.path());
        if name.starts_with("valid-") {
            assert_eq!(
                (code, report["status"].as_str()),
                (0, Some("valid")),
                "{name}"
            );
            assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0, "{name}");
            continue;
        }
        assert_eq!(report["status"], "recovered", "{name}: {report:#}");
        assert_valid_root(root.path(), 1);
        // Every stored line before the refused one is in the session byte for byte.
        let defect_line = report["defect"]["line"].as_u64().unwrap() as usize;
        let original = lines_of(&log);
        let recovered = lines_of(&session_path(&report, 0));
        assert_eq!(
            recovered[1..defect_line - 1],
            original[1..defect_line - 1],
            "{name}"
        );
        let outcome = if let Some(c) = report["changed"].as_array().and_then(|c| c.first()) {
            format!(
                "changed {} {} -> {}",
                c["member"].as_str().unwrap(),
                c["before"],
                c["after"]
            )
        } else if let Some(d) = report["dropped"].as_array().and_then(|d| d.first()) {
            format!("dropped {}", d["type"].as_str().unwrap())
        } else if report["unrecoverable"]
            .as_array()
            .is_some_and(Vec::is_empty)
        {
            let closer = &report["sessions"][0]["closers"][0];
            let line = (report["lines"].as_array().unwrap().iter())
                .find(|l| l["seq"].as_u64() == Some(closer["seq"].as_u64().unwrap()))
                .map_or(0, |l| l["line"].as_u64().unwrap());
            format!(
                "closed {} before line {line}",
                closer["type"].as_str().unwrap()
            )
        } else {
            let u = &report["unrecoverable"][0];
            format!(
                "cut {} from line {}",
                u["rule"].as_str().unwrap(),
                u["from_line"]
            )
        };
        seen.push((name.clone(), code, outcome));
    }
    let cut = |rule: &str, line: u64| format!("cut {rule} from line {line}");
    // Exit 0 everywhere: a record cut out either holds no message (a lifecycle or plugin
    // record: `left out`) or its messages are quoted in the note (`noted`).
    let expected: Vec<(&str, i32, String)> = vec![
        (
            "F1-ignorable-unknown-type.jsonl",
            0,
            "dropped future/thing".into(),
        ),
        (
            "F10-step-end-leaves-a-call-unresolved.jsonl",
            0,
            cut("F10", 6),
        ),
        ("F2-hook-result-without-turn.jsonl", 0, cut("F2", 5)),
        ("F2-inbox-insert-without-id.jsonl", 0, cut("F2", 5)),
        (
            "F2-permission-preset-with-origin.jsonl",
            0,
            "changed data.origin \"user\" -> null".into(),
        ),
        (
            "F3-approval-decided-outcome-outside-its-list.jsonl",
            0,
            cut("F3", 5),
        ),
        ("F3-assistant-message-step-zero.jsonl", 0, cut("F3", 5)),
        (
            "F3-assistant-message-turn-negative-zero.jsonl",
            0,
            cut("F3", 5),
        ),
        (
            "F3-compact-plugin-source-without-compaction-id.jsonl",
            0,
            cut("F3", 5),
        ),
        (
            "F3-continuable-subagent-descriptor-without-label.jsonl",
            0,
            cut("F3", 5),
        ),
        (
            "F3-plugin-source-summary-without-notice-form.jsonl",
            0,
            cut("F3", 5),
        ),
        (
            "F3-request-header-tool-not-an-object.jsonl",
            0,
            cut("F3", 5),
        ),
        ("F3-sandbox-mode-outside-its-list.jsonl", 0, cut("F3", 5)),
        ("F3-subagent-descriptor-invalid-mode.jsonl", 0, cut("F3", 5)),
        ("F3-todo-status-outside-its-list.jsonl", 0, cut("F3", 5)),
        ("F3-tool-call-block-with-empty-id.jsonl", 0, cut("F3", 5)),
        ("F3-tool-call-block-with-empty-name.jsonl", 0, cut("F3", 5)),
        (
            "F3-tool-result-error-on-a-result-that-is-not-an-error.jsonl",
            0,
            cut("F3", 7),
        ),
        (
            "F4-subagent-descriptor-version-2.jsonl",
            0,
            "changed data.version 2 -> 3".into(),
        ),
        ("F5-content-block-of-an-unknown-kind.jsonl", 0, cut("F5", 4)),
        (
            "F5-retired-source-kind-instruction-hint.jsonl",
            0,
            cut("F5", 5),
        ),
        (
            "F6-same-call-id-advertised-twice-in-one-step.jsonl",
            0,
            cut("F6", 5),
        ),
        ("F6-step-event-after-its-turn-ended.jsonl", 0, cut("F6", 7)),
        (
            "F6-tool-call-arguments-differ-from-the-advertised-call.jsonl",
            0,
            cut("F6", 6),
        ),
        (
            "F6-tool-result-after-the-last-turn-end.jsonl",
            0,
            cut("F6", 10),
        ),
        (
            "F6-tool-result-for-a-call-never-advertised.jsonl",
            0,
            cut("F6", 5),
        ),
        ("F6-turn-end-while-a-step-is-open.jsonl", 0, cut("F6", 5)),
        // The open turn 1 is closed before turn 2 starts, as DSH closes it on load: nothing
        // is lost.
        (
            "F6-turn-start-while-a-turn-is-open.jsonl",
            0,
            "closed turn/end before line 6".into(),
        ),
        (
            "F7-message-cites-part-of-its-attempt.jsonl",
            0,
            cut("F7", 7),
        ),
        (
            "F7-packed-tool-call-row-with-empty-id.jsonl",
            0,
            cut("F7", 5),
        ),
        ("F7-reference-to-a-consumed-chunk.jsonl", 0, cut("F7", 7)),
        (
            "F8-system-prompt-changed-outside-a-step.jsonl",
            0,
            cut("F8", 3),
        ),
        // The message gets a step of its own in the open turn (as DSH writes user input);
        // the stored step/start after it, which repeats step 1, is left out.
        (
            "F8-user-message-before-the-first-step.jsonl",
            0,
            cut("F6", 4),
        ),
        ("F9-command-done-without-its-run.jsonl", 0, cut("F9", 5)),
        (
            "F9-compaction-checkpoint-outside-a-compaction.jsonl",
            0,
            cut("F9", 5),
        ),
        ("F9-title-cites-an-assistant-message.jsonl", 0, cut("F9", 6)),
        (
            "G9-v3-turn-end-while-a-step-is-open.jsonl",
            0,
            cut("G9", 10),
        ),
        (
            "G9-v4-tool-call-arguments-differ-from-the-advertised-call.jsonl",
            0,
            cut("G9", 9),
        ),
        (
            "U1-v3-code-dispatch-without-ignorable.jsonl",
            0,
            "dropped tool/code-dispatch-start".into(),
        ),
    ];
    let seen: Vec<(&str, i32, String)> = seen
        .iter()
        .map(|(n, c, o)| (n.as_str(), *c, o.clone()))
        .collect();
    assert_eq!(seen, expected);
}

#[test]
fn the_changes_of_the_refusal_classes_are_listed_member_by_member() {
    let root = tempfile::tempdir().expect("temp dir");
    let (_, report) = recover_json(
        &fixture("edges/F2-permission-preset-with-origin.jsonl"),
        root.path(),
        &[],
    );
    let c = &report["changed"][0];
    assert_eq!(
        (
            c["line"].clone(),
            c["seq"].clone(),
            c["member"].clone(),
            c["before"].clone(),
            c["after"].clone(),
            c["rule"].clone()
        ),
        (
            5.into(),
            3.into(),
            "data.origin".into(),
            "user".into(),
            Value::Null,
            "F2".into()
        )
    );
    let recovered = lines_of(&session_path(&report, 0));
    assert_eq!(
        line(&recovered, 5),
        r#"{"type":"permission/preset","seq":3,"time":1760000000103,"data":{"preset":"read-only"}}"#
    );
}

#[test]
fn a_valid_log_needs_no_recovery_and_nothing_is_written() {
    let root = tempfile::tempdir().expect("temp dir");
    let out = dsh()
        .arg("recover")
        .arg(recover_fixture("three-turns-with-tool-calls.jsonl"))
        .arg("--out")
        .arg(root.path().join("new"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "{}: valid as DSH 0.1.7+ loads it; nothing to recover\n",
            recover_fixture("three-turns-with-tool-calls.jsonl").display()
        )
    );
    assert!(!root.path().join("new").exists());
}

#[test]
fn a_log_of_a_newer_format_has_nothing_recoverable() {
    let root = tempfile::tempdir().expect("temp dir");
    let out = dsh()
        .arg("recover")
        .arg(fixture("rules/G1-version-5.jsonl"))
        .arg("--out")
        .arg(root.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nothing recoverable: G1 session \"s-1\" uses log format v5"),
        "{err}"
    );
    assert!(
        err.contains("a format newer than this build reads"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
}

#[test]
fn the_encoding_can_be_chosen_and_a_root_keeps_one() {
    let log = recover_fixture("garbage-line-inside-turn-2.jsonl");
    let root = tempfile::tempdir().expect("temp dir");
    let (_, report) = recover_json(&log, root.path(), &["--as", "zstd"]);
    let path = session_path(&report, 0);
    assert!(
        path.to_string_lossy()
            .ends_with("s-1-recovered/session.jsonl.zstd")
    );
    assert_valid_root(root.path(), 1);
    // The root now holds zstd: a plain session would make DSH refuse it.
    let out = dsh()
        .arg("recover")
        .arg(recover_fixture("seq-restart-at-line-22.jsonl"))
        .arg("--out")
        .arg(root.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("DSH reads one encoding per root: write them with --as zstd"),
        "{err}"
    );
}

#[test]
fn a_crash_before_publishing_leaves_no_session_and_a_second_run_writes_it() {
    let log = recover_fixture("seq-restart-at-line-22.jsonl");
    let root = tempfile::tempdir().expect("temp dir");
    let out = dsh()
        .env("DSH_SESSION_REPAIR_CRASH_AFTER", "recover-temp")
        .arg("recover")
        .arg(&log)
        .arg("--out")
        .arg(root.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(dsh_session::write::CRASH_EXIT));
    let session_dir = root.path().join("--home-ana-proj--/s-1-branch-1");
    assert!(!session_dir.join("session.jsonl").exists());
    let (code, report) = recover_json(&log, root.path(), &[]);
    assert_eq!((code, report["status"].as_str()), (0, Some("recovered")));
    assert_valid_root(root.path(), 2);
}

#[test]
fn standard_input_cannot_be_recovered() {
    let out = dsh()
        .args(["recover", "-", "--out", "/tmp/never"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard input cannot be recovered"));
}

#[test]
fn a_record_written_twice_is_a_copy_and_nothing_is_lost() {
    // Line 13 repeats line 12 byte for byte (a retried write): J5, but no event is lost.
    let log = recover_fixture("line-12-written-twice.jsonl");
    let root = tempfile::tempdir().expect("temp dir");
    let (code, report) = recover_checked(&log, root.path());
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["defect"]["rule"], "J5");
    assert_eq!(report["defect"]["line"], 13);
    let left_out = &report["unrecoverable"];
    assert_eq!(left_out.as_array().map(Vec::len), Some(1), "{left_out:#}");
    assert_eq!(
        (
            &left_out[0]["from_line"],
            &left_out[0]["to_line"],
            &left_out[0]["copy_of"]
        ),
        (
            &serde_json::json!(13),
            &serde_json::json!(13),
            &serde_json::json!(12)
        )
    );
    assert_eq!(
        report["sessions"][0]["lines"],
        serde_json::json!([[2, 12], [14, 32]])
    );
    assert_valid_root(root.path(), 1);
    let mut original = lines_of(&log);
    original.remove(12);
    let recovered = lines_of(&session_path(&report, 0));
    // Every stored record but the copy, as stored; then the note.
    assert_eq!(recovered[1..31], original[1..31]);
    assert_eq!(recovered.len(), 32);
}

/// Every log file among the fixtures (hostile ones included): `recover` never panics or
/// fails to read, and every session it writes is valid as DSH 0.1.5+ and DSH 0.1.1 load it.
#[test]
fn every_fixture_recovers_to_sessions_both_dsh_lines_load_or_says_why() {
    fn logs(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("readable") {
            let path = entry.expect("entry").path();
            let name = path.to_string_lossy();
            if path.is_dir() {
                logs(&path, out);
            } else if name.ends_with(".jsonl") || name.ends_with(".zstd") {
                out.push(path);
            }
        }
    }
    let mut all = Vec::new();
    logs(&fixture(""), &mut all);
    all.sort();
    assert!(all.len() > 150, "{} logs", all.len());
    let mut statuses = std::collections::BTreeMap::<String, usize>::new();
    for log in &all {
        let root = tempfile::tempdir().expect("temp dir");
        let out = dsh()
            .arg("recover")
            .arg(log)
            .arg("--out")
            .arg(root.path())
            .args(["--format", "json"])
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "{}: {code:?} {err}",
            log.display()
        );
        let status = match serde_json::from_slice::<Value>(&out.stdout) {
            Ok(report) => report["status"].as_str().unwrap_or("?").to_owned(),
            // No intact header, another harness's file: said on standard error.
            Err(_) => {
                assert!(
                    err.contains("nothing recoverable"),
                    "{}: {err}",
                    log.display()
                );
                "nothing recoverable".to_owned()
            }
        };
        if status == "recovered" {
            let sessions = std::fs::read_dir(root.path()).expect("a root").count();
            assert!(sessions > 0, "{}", log.display());
            for mut cmd in [dsh(), dsh_writer()] {
                let check = cmd.args(["validate", "-q"]).arg(root.path()).output();
                let check = check.expect("runs");
                assert_eq!(
                    check.status.code(),
                    Some(0),
                    "{}: {}",
                    log.display(),
                    String::from_utf8_lossy(&check.stdout)
                );
            }
        }
        *statuses.entry(status).or_default() += 1;
    }
    // Most fixtures are refused or corrupt on purpose; each kind of outcome is seen.
    for status in ["recovered", "valid", "nothing recoverable"] {
        assert!(statuses.get(status).is_some_and(|&n| n > 5), "{statuses:?}");
    }
}

#[test]
fn every_line_says_where_it_went_and_a_left_out_message_is_quoted_in_the_note() {
    let log = recover_fixture("garbage-line-inside-turn-2.jsonl");
    let root = tempfile::tempdir().expect("temp dir");
    let (code, report) = recover_checked(&log, root.path());
    assert_eq!(code, 0, "line 14 is quoted in the note: {report:#}");
    let lines = report["lines"].as_array().expect("lines[]");
    assert_eq!(lines.len(), 31, "one entry per line of the log");
    let went = |line: u64| {
        let l = lines
            .iter()
            .find(|l| l["line"] == line)
            .unwrap_or_else(|| panic!("line {line} in lines[]"));
        (l["went"].as_str().unwrap().to_owned(), l["why"].clone())
    };
    assert_eq!(went(1).0, "kept");
    assert_eq!(went(13).0, "kept");
    let (w, why) = went(14);
    assert_eq!(w, "noted");
    assert!(
        why.as_str()
            .unwrap()
            .starts_with("J3 line is not valid JSON"),
        "{why}"
    );
    // The tool result of the lost tool/call and the step's reply are quoted in the note.
    assert_eq!(went(15).0, "noted");
    assert_eq!(went(18).0, "noted");
    assert_eq!(went(21).0, "renumbered");
    let note = report["sessions"][0]["note"]["data"]["content"][0]["text"]
        .as_str()
        .expect("a note")
        .to_owned();
    assert!(
        note.contains("Line 15 (tool/result) is not here; it said: a.txt b.txt."),
        "{note}"
    );
    assert!(
        note.contains("Line 18 (assistant/message) is not here; it said: Two files."),
        "{note}"
    );
    assert!(
        note.contains(
            "Line 14 could not be read (J3 line is not valid JSON: expected ',' or '}' at byte 42); it held: {\"type\":\"tool/call\",\"seq\":12,\"time\":17600\u{0}\u{0}\u{0}."
        ),
        "{note}"
    );
}

/// A header DSH refuses is rebuilt from what it holds (issue 38): the session keeps the
/// conversation, the note and `lines[]` say what was assumed.
#[test]
fn a_broken_header_is_rebuilt_and_the_note_says_what_was_assumed() {
    for (fixture_name, path_end, header, assumed) in [
        (
            "rules/H2-header-not-json.jsonl",
            "_no-cwd/s-1-recovered/session.jsonl",
            r#"{"type":"session","version":0,"id":"s-1-recovered","createdAt":1760000000100,"delegationDepth":0}"#,
            "the header line is cut short; it is read up to its last whole member; its createdAt (nothing) cannot be read; the first record's time, 1760000000100, is taken",
        ),
        (
            "rules/H7-cwd-relative.jsonl",
            "_no-cwd/s-1-recovered/session.jsonl",
            r#"{"type":"session","version":0,"id":"s-1-recovered","createdAt":1760000000000,"delegationDepth":0}"#,
            "its cwd \"home/ana/proj\" is not an absolute directory; the session has none and goes under _no-cwd, as DSH lays out a session without a cwd",
        ),
        (
            "hostile/bom-before-header.jsonl",
            "--home-ana-proj--/s-1-recovered/session.jsonl",
            r#"{"type":"session","version":0,"id":"s-1-recovered","createdAt":1760000000000,"cwd":"/home/ana/proj","delegationDepth":0}"#,
            "a byte order mark before the header was taken out",
        ),
        (
            "hostile/header-version-3.jsonl",
            "--home-ana-proj--/s-1-recovered/session.v3.jsonl",
            r#"{"type":"session","version":3,"id":"s-1-recovered","createdAt":1760000000000,"cwd":"/home/ana/proj","isSeeded":false,"delegationDepth":0}"#,
            "its isSeeded (a v3 header's) is absent; false is taken, as its parentSession and seedLength say",
        ),
    ] {
        let root = tempfile::tempdir().expect("temp dir");
        let (code, report) = recover_checked(&fixture(fixture_name), root.path());
        assert_eq!(code, 0, "{fixture_name}: {report:#}");
        let path = session_path(&report, 0);
        assert!(
            path.to_string_lossy().ends_with(path_end),
            "{fixture_name}: {}",
            path.display()
        );
        assert_eq!(lines_of(&path)[0], header, "{fixture_name}");
        let first = &report["lines"][0];
        assert_eq!(first["went"], "rebuilt", "{fixture_name}");
        assert!(
            first["why"].as_str().unwrap().ends_with(assumed),
            "{fixture_name}: {first}"
        );
        let note = report["sessions"][0]["note"]["data"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(note.contains("Its header was rebuilt ("), "{note}");
        assert!(note.contains(assumed), "{note}");
        assert_valid_root(root.path(), 1);
    }
}

/// A June 2026 log (FORMAT.md §9) is written as DSH writes v0 now: its header gains
/// `delegationDepth`, what DSH converts on load is kept, and the message records no v0
/// session can hold (a June `assistant/message`, a `context/message`) are quoted in the
/// note; exit 0, every message kept somewhere.
#[test]
fn a_june_2026_log_is_written_as_dsh_writes_v0_now() {
    let root = tempfile::tempdir().expect("temp dir");
    let (code, report) = recover_checked(&fixture("june-2026.jsonl"), root.path());
    assert_eq!(code, 0, "{report:#}");
    let path = session_path(&report, 0);
    assert_eq!(
        lines_of(&path)[0],
        r#"{"type":"session","version":0,"id":"s-june-recovered","createdAt":1750000000000,"cwd":"/home/ana/proj","delegationDepth":0}"#
    );
    let went: Vec<(u64, String)> = (report["lines"].as_array().unwrap().iter())
        .map(|l| {
            (
                l["line"].as_u64().unwrap(),
                l["went"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(went[0], (1, "rebuilt".to_owned()));
    assert_eq!(
        went[2],
        (3, "renumbered".to_owned()),
        "the user input, in a step"
    );
    assert_eq!(went[3], (4, "noted".to_owned()), "the context/message");
    assert!(
        lines_of(&path)[2..4]
            .join("\n")
            .starts_with(r#"{"type":"step/start","seq":1,"time":1750000000001,"data":{"turn":1,"step":1}}
{"type":"user/message","seq":2,"time":1750000000001,"data":{"content":[{"type":"text","text":"fix the build"}]"#),
        "{:?}",
        lines_of(&path)
    );
    let note = report["sessions"][0]["note"]["data"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    for quoted in [
        "Line 4 (context/message) is not here; it said: cwd is /home/ana/proj.",
        "Line 7 (assistant/message) is not here; it said: Running make.; call call_1 bash {\"command\":\"make\"}.",
        "Line 13 (assistant/message) is not here; it said: Done.",
    ] {
        assert!(note.contains(quoted), "{quoted}\n{note}");
    }
    assert!(!note.contains("the model never saw them"), "{note}");
}

/// A `step/start` whose data is null (E8) gets the `{turn, step}` its place numbers.
#[test]
fn lifecycle_data_that_is_null_is_numbered_from_its_place() {
    let root = tempfile::tempdir().expect("temp dir");
    let (code, report) =
        recover_checked(&fixture("rules/E8-step-start-data-null.jsonl"), root.path());
    assert_eq!(code, 0, "{report:#}");
    let c = &report["changed"][0];
    assert_eq!(
        (
            c["line"].as_u64(),
            c["member"].as_str(),
            c["after"].to_string()
        ),
        (Some(3), Some("data"), r#"{"turn":1,"step":1}"#.to_owned())
    );
    assert_eq!(
        lines_of(&session_path(&report, 0))[2],
        r#"{"type":"step/start","seq":1,"time":1760000000101,"data":{"turn":1,"step":1}}"#
    );
}

/// A log whose header line is gone (line 1 is an event) keeps every line: the header is
/// made from the file's name and the first record's time, and line 1 is the first record.
#[test]
fn a_log_without_a_header_line_keeps_line_1_as_its_first_record() {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = recover_fixture("three-turns-with-tool-calls.jsonl");
    let text = std::fs::read_to_string(&source).unwrap();
    let headless: String = text.split_inclusive('\n').skip(1).collect();
    let log = dir.path().join("headless.jsonl");
    std::fs::write(&log, &headless).unwrap();
    let root = dir.path().join("root");
    let (code, report) = recover_checked(&log, &root);
    assert_eq!(code, 0, "{report:#}");
    let path = session_path(&report, 0);
    assert!(
        path.ends_with("_no-cwd/headless-recovered/session.jsonl"),
        "{}",
        path.display()
    );
    let lines = lines_of(&path);
    assert_eq!(
        lines[0],
        r#"{"type":"session","version":0,"id":"headless-recovered","createdAt":1760000000100,"delegationDepth":0}"#
    );
    // Every stored line is in the session byte for byte, line 1 first.
    let stored: Vec<&str> = headless.lines().collect();
    assert_eq!(lines[1..=stored.len()], stored[..]);
    let fates = report["lines"].as_array().unwrap();
    assert_eq!(fates.len(), stored.len());
    assert!(fates.iter().all(|l| l["went"] == "kept"), "{fates:?}");
    let note = report["sessions"][0]["note"]["data"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        note.contains(
            "the log has no header (line 1 is a \"turn/start\" event, kept as the first record)"
        ),
        "{note}"
    );
}
