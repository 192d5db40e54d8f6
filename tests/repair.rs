//! `repair`: exact repaired bytes on plain JSONL, zstd JSONL and SQLite (17 and 4), dry
//! runs, backups, refusals, idempotence and a crash after every step (FORMAT.md §5).

mod common;

use std::path::{Path, PathBuf};

use common::store::{rows, store_from_jsonl};
use common::{dsh, fixture, samples, zstd_frame, zstd_log, zstd_log_with_torn_frame, zstd_plain};
use rusqlite::Connection;

const CASES: [&str; 4] = [
    "a-cut-after-tool-call",
    "b-cut-after-assistant-tool-calls",
    "c-torn-final-line",
    "e-garbage-uncommitted-tail",
];
const FAMILIES: [&str; 2] = ["packed-chunks", "hook-cc-pretool-deny"];

fn crashed(family: &str, case: &str) -> (PathBuf, PathBuf) {
    let base = format!("examples__acp-agent__tests__snapshots__{family}__session.{case}");
    let dir = samples().join("crashed");
    (
        dir.join(format!("{base}.jsonl")),
        dir.join(format!("{base}.expected.jsonl")),
    )
}

fn copy_to(dir: &Path, from: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(from, &to).unwrap();
    to
}

fn repair(path: &Path, extra: &[&str]) -> std::process::Output {
    dsh().arg("repair").args(extra).arg(path).output().unwrap()
}

fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn plain_jsonl_repairs_match_dsh_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for family in FAMILIES {
        for case in CASES {
            let (log, expected) = crashed(family, case);
            let path = copy_to(dir.path(), &log, "session.jsonl");
            ok(&repair(&path, &["--no-backup"]));
            assert_eq!(
                std::fs::read(&path).unwrap(),
                std::fs::read(&expected).unwrap(),
                "{family} {case}"
            );
            // A repaired log is healthy: a second repair is a no-op that leaves the mtime.
            let before = std::fs::metadata(&path).unwrap().modified().unwrap();
            assert_eq!(
                ok(&repair(&path, &[])),
                format!("{}: nothing to repair\n", path.display())
            );
            assert_eq!(
                std::fs::metadata(&path).unwrap().modified().unwrap(),
                before
            );
            assert_eq!(
                std::fs::read_dir(dir.path()).unwrap().count(),
                1,
                "no backup for a no-op"
            );
        }
    }
}

#[test]
fn committed_corruption_is_refused_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    for family in FAMILIES {
        let (log, _) = crashed(family, "d-garbage-committed");
        let path = copy_to(dir.path(), &log, "session.jsonl");
        let meta = std::fs::metadata(&path).unwrap();
        let out = repair(&path, &[]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("corrupt J5 at line 14") && err.contains("nothing was written"),
            "{err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(&log).unwrap());
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            meta.modified().unwrap()
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no backup when refused"
        );
    }
}

#[test]
fn dry_run_prints_the_plan_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (log, expected) = crashed("packed-chunks", "c-torn-final-line");
    let path = copy_to(dir.path(), &log, "session.jsonl");
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    let text = ok(&repair(&path, &["--dry-run"]));
    let original = std::fs::read_to_string(&log).unwrap();
    let expected = std::fs::read_to_string(&expected).unwrap();
    let cut_at = original.rfind('\n').unwrap() + 1;
    let closers = &expected[cut_at..];
    let p = path.display();
    assert_eq!(
        text,
        format!(
            "{p}: would cut {} bytes at offset {cut_at} (J2: from line 36, 1 line, 0 events lost)\n{p}: would append 1 closer record:\n{closers}",
            original.len() - cut_at
        )
    );
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);

    let json: serde_json::Value =
        serde_json::from_str(&ok(&repair(&path, &["--dry-run", "--format", "json"]))).unwrap();
    assert_eq!(json["status"], "would repair");
    assert_eq!(json["cut"]["rule"], "J2");
    assert_eq!(json["cut"]["offset"], cut_at);
    assert_eq!(json["closers"][0]["type"], "turn/end");
    assert_eq!(json["backup"], serde_json::Value::Null);
}

#[test]
fn a_backup_keeps_the_original_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = crashed("hook-cc-pretool-deny", "e-garbage-uncommitted-tail");
    let path = copy_to(dir.path(), &log, "session.jsonl");
    let json: serde_json::Value =
        serde_json::from_str(&ok(&repair(&path, &["--format", "json"]))).unwrap();
    assert_eq!(json["status"], "repaired");
    let backup = PathBuf::from(json["backup"].as_str().unwrap());
    let name = backup.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("session.jsonl.bak.") && name.ends_with('Z'),
        "{name}"
    );
    assert_eq!(
        std::fs::read(&backup).unwrap(),
        std::fs::read(&log).unwrap()
    );
}

#[test]
fn open_turn_shapes_get_the_exact_closers() {
    let dir = tempfile::tempdir().unwrap();
    // An open step with no tool calls: step/end and turn/end only.
    let path = copy_to(
        dir.path(),
        &fixture("repair/open-step-no-tool-calls.jsonl"),
        "a.jsonl",
    );
    ok(&repair(&path, &["--no-backup"]));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.ends_with(concat!(
        r#"{"type":"user/message","seq":8,"time":1760000000080,"data":{"content":[{"type":"text","text":"and now?"}],"source":{"kind":"user"},"role":"user","id":"u-2"},"surfaceOp":"append"}"#, "\n",
        r#"{"type":"step/end","seq":9,"time":1760000000080,"data":{"turn":2,"step":1}}"#, "\n",
        r#"{"type":"turn/end","seq":10,"time":1760000000080,"data":{"turn":2,"reason":{"kind":"interrupted"}}}"#, "\n",
    )), "{text}");
    // Three announced calls, one recorded: two not-started results and one unknown outcome, in announcement order.
    let path = copy_to(
        dir.path(),
        &fixture("repair/several-calls-some-recorded.jsonl"),
        "b.jsonl",
    );
    ok(&repair(&path, &["--no-backup"]));
    let text = std::fs::read_to_string(&path).unwrap();
    let tail: Vec<serde_json::Value> = text
        .lines()
        .skip(6)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary: Vec<(u64, &str, &str, bool)> = tail
        .iter()
        .map(|e| {
            (
                e["seq"].as_u64().unwrap(),
                e["type"].as_str().unwrap(),
                e["data"]["error"]["code"].as_str().unwrap_or("-"),
                e.get("sourceEventSeqs").is_some(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (5, "tool/result", "TOOL_NOT_STARTED", false),
            (6, "tool/result", "TOOL_OUTCOME_UNKNOWN", true),
            (7, "tool/result", "TOOL_NOT_STARTED", false),
            (8, "step/end", "-", false),
            (9, "turn/end", "-", false),
        ]
    );
    assert_eq!(tail[1]["sourceEventSeqs"], serde_json::json!([4]));
    assert_eq!(
        tail[0]["data"]["message"]["id"],
        "interrupted-tool-result-call_a-5"
    );
    // The repaired log validates and its derived history answers every call.
    let v = dsh()
        .args(["validate", "--format", "jsonl"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&v.stdout).contains("\"status\":\"valid\""));
}

/// A zstd log with the torn tail inside its last frame: the complete lines of that frame
/// are written again, with the closers, in one new frame after the last complete one.
#[test]
fn zstd_repair_rewrites_only_the_torn_frame() {
    let dir = tempfile::tempdir().unwrap();
    let (log, expected) = crashed("packed-chunks", "a-cut-after-tool-call");
    let plain = std::fs::read_to_string(&log).unwrap();
    let expected = std::fs::read_to_string(&expected).unwrap();
    let garbage = r#"{"type":"tool/result","seq":59,"time":1783352166300,"data":{"turn":1,"step":1,"message":{"id":"x"}}}"#;
    let (bytes, torn_at) = zstd_log_with_torn_frame(&plain, 6, 4, garbage);
    let path = dir.path().join("session.jsonl.zstd");
    std::fs::write(&path, &bytes).unwrap();
    let v = dsh()
        .args(["validate", "--format", "jsonl"])
        .arg(&path)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!(
        (v["status"].as_str(), v["rule"].as_str()),
        (Some("torn-tail"), Some("Z3"))
    );
    assert_eq!(v["torn_tail"]["offset"], torn_at);
    assert_eq!(
        v["events"], 59,
        "the 4 complete lines of the torn frame are kept"
    );

    ok(&repair(&path, &["--no-backup"]));
    let repaired = std::fs::read(&path).unwrap();
    assert!(
        repaired[..torn_at] == bytes[..torn_at],
        "complete frames are untouched"
    );
    // The new frame holds the recovered complete lines of the torn frame, then the closers.
    let tail: String = plain
        .split_inclusive('\n')
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let closers = &expected[plain.len()..];
    let frame = zstd_frame(format!("{tail}{closers}").as_bytes());
    assert!(
        repaired[torn_at..] == frame[..],
        "one new frame: recovered lines + closers"
    );
    assert_eq!(zstd_plain(&repaired), expected);
    assert_eq!(
        ok(&repair(&path, &[])),
        format!("{}: nothing to repair\n", path.display())
    );
}

#[test]
fn zstd_healthy_log_with_an_open_turn_gets_one_closer_frame() {
    let dir = tempfile::tempdir().unwrap();
    let (log, expected) = crashed("hook-cc-pretool-deny", "b-cut-after-assistant-tool-calls");
    let plain = std::fs::read_to_string(&log).unwrap();
    let expected = std::fs::read_to_string(&expected).unwrap();
    let (bytes, _) = zstd_log(&plain, 10);
    let path = dir.path().join("session.jsonl.zstd");
    std::fs::write(&path, &bytes).unwrap();
    ok(&repair(&path, &["--no-backup"]));
    let repaired = std::fs::read(&path).unwrap();
    let closers = &expected[plain.len()..];
    assert!(repaired == [bytes.clone(), zstd_frame(closers.as_bytes())].concat());
    assert_eq!(zstd_plain(&repaired), expected);
}

#[test]
fn sqlite_repairs_match_a_store_of_the_expected_log() {
    let dir = tempfile::tempdir().unwrap();
    for schema in [17, 4] {
        for case in ["a-cut-after-tool-call", "b-cut-after-assistant-tool-calls"] {
            let (log, expected) = crashed("hook-cc-pretool-deny", case);
            let db = dir.path().join(format!("{schema}-{case}.db"));
            let want = dir.path().join(format!("{schema}-{case}-want.db"));
            store_from_jsonl(&log, &db, schema);
            store_from_jsonl(&expected, &want, schema);
            let out = ok(&repair(&db, &["--no-backup"]));
            assert!(out.contains("appended"), "{out}");
            if schema == 17 {
                // The closers of a June store are June's; compare HEAD stores row by row.
                assert_eq!(rows(&db), rows(&want), "{schema} {case}");
                let conn = Connection::open(&db).unwrap();
                let revision: i64 = conn
                    .query_row("SELECT revision FROM sessions", [], |r| r.get(0))
                    .unwrap();
                assert_eq!(revision, 2, "repair bumps the revision");
            }
            let v = dsh()
                .args(["validate", "--format", "jsonl"])
                .arg(&db)
                .output()
                .unwrap();
            assert!(String::from_utf8_lossy(&v.stdout).contains("\"status\":\"valid\""));
            assert_eq!(
                ok(&repair(&db, &[])).lines().last().unwrap(),
                format!(
                    "{} [session {}]: nothing to repair",
                    db.display(),
                    session_id(&db)
                )
            );
        }
    }
}

fn session_id(db: &Path) -> String {
    Connection::open(db)
        .unwrap()
        .query_row("SELECT id FROM sessions", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn sqlite_torn_rows_are_deleted_in_the_same_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let (log, expected) = crashed("packed-chunks", "a-cut-after-tool-call");
    let db = dir.path().join("s.db");
    let want = dir.path().join("want.db");
    store_from_jsonl(&log, &db, 17);
    store_from_jsonl(&expected, &want, 17);
    let conn = Connection::open(&db).unwrap();
    conn.execute("INSERT INTO events (session_id, seq, type, time, data) SELECT id, 59, 'tool/result', 1, x'00ff' FROM sessions", []).unwrap();
    drop(conn);
    let v = dsh()
        .args(["validate", "--format", "jsonl"])
        .arg(&db)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!(
        (v["status"].as_str(), v["rule"].as_str(), v["row"].as_u64()),
        (Some("torn-tail"), Some("Q8"), Some(59))
    );
    let backup_dir = dir.path();
    let out = ok(&repair(&db, &[]));
    assert!(
        out.contains("would cut") || out.contains("cut rows from seq 59"),
        "{out}"
    );
    assert_eq!(rows(&db), rows(&want));
    let backups: Vec<_> = std::fs::read_dir(backup_dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            n.starts_with("s.db.bak.").then_some(n)
        })
        .collect();
    assert_eq!(backups.len(), 1);
    // The backup is a consistent copy of the store before the repair.
    let backup = dir.path().join(&backups[0]);
    assert_eq!(rows(&backup).len(), rows(&want).len() - 3 + 1);
}

/// Stops the repair after each step (test hook), then runs it again: the result is
/// always the bytes a single uninterrupted repair gives.
#[test]
fn a_crash_after_any_step_is_completed_by_a_second_repair() {
    let dir = tempfile::tempdir().unwrap();
    let (log, expected) = crashed("packed-chunks", "e-garbage-uncommitted-tail");
    let expected_bytes = std::fs::read(&expected).unwrap();
    for step in ["backup", "truncate", "append-half", "append"] {
        let path = copy_to(dir.path(), &log, &format!("{step}.jsonl"));
        let out = dsh()
            .arg("repair")
            .arg("--no-backup")
            .arg(&path)
            .env("DSH_SESSION_REPAIR_CRASH_AFTER", step)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(75),
            "{step}: the hook stops the process"
        );
        ok(&repair(&path, &["--no-backup"]));
        assert!(
            std::fs::read(&path).unwrap() == expected_bytes,
            "plain, crash after {step}"
        );
    }
    // zstd: the same steps on a torn final frame whose complete lines are recovered.
    let (log, expected) = crashed("packed-chunks", "a-cut-after-tool-call");
    let plain = std::fs::read_to_string(&log).unwrap();
    let garbage =
        r#"{"type":"tool/result","seq":59,"time":1783352166300,"data":{"turn":1,"step":1}}"#;
    let (torn, torn_at) = zstd_log_with_torn_frame(&plain, 5, 3, garbage);
    let reference = dir.path().join("reference.jsonl.zstd");
    std::fs::write(&reference, &torn).unwrap();
    ok(&repair(&reference, &["--no-backup"]));
    let want = std::fs::read(&reference).unwrap();
    assert_eq!(
        zstd_plain(&want),
        std::fs::read_to_string(&expected).unwrap()
    );
    for step in ["backup", "journal", "truncate", "append-half", "append"] {
        let path = dir.path().join(format!("{step}.jsonl.zstd"));
        std::fs::write(&path, &torn).unwrap();
        let out = dsh()
            .arg("repair")
            .arg("--no-backup")
            .arg(&path)
            .env("DSH_SESSION_REPAIR_CRASH_AFTER", step)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(75), "{step}");
        assert!(
            std::fs::read(&path).unwrap()[..torn_at] == torn[..torn_at],
            "{step}: committed frames untouched"
        );
        ok(&repair(&path, &["--no-backup"]));
        assert!(
            std::fs::read(&path).unwrap() == want,
            "zstd, crash after {step}"
        );
        let journal = dir.path().join(format!("{step}.jsonl.zstd.repair"));
        assert!(!journal.exists(), "{step}: the journal is removed");
    }
    // SQLite: a crash inside the transaction rolls it back; the second run repairs.
    let db = dir.path().join("crash.db");
    let want_db = dir.path().join("crash-want.db");
    store_from_jsonl(
        &crashed("packed-chunks", "a-cut-after-tool-call").0,
        &db,
        17,
    );
    store_from_jsonl(
        &crashed("packed-chunks", "a-cut-after-tool-call").1,
        &want_db,
        17,
    );
    let before = rows(&db);
    let out = dsh()
        .arg("repair")
        .arg("--no-backup")
        .arg(&db)
        .env("DSH_SESSION_REPAIR_CRASH_AFTER", "transaction")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(75));
    assert_eq!(
        rows(&db),
        before,
        "the interrupted transaction left no trace"
    );
    ok(&repair(&db, &["--no-backup"]));
    assert_eq!(rows(&db), rows(&want_db));
}

#[test]
fn a_log_that_changes_between_scan_and_write_is_not_touched() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = crashed("packed-chunks", "a-cut-after-tool-call");
    let path = copy_to(dir.path(), &log, "session.jsonl");
    let mut plan = dsh_session::repair::plan(&path, None, None).unwrap();
    assert_eq!(plan.plan.closers.len(), 3);
    // A live writer appends after the scan.
    let mut grown = std::fs::read(&path).unwrap();
    grown.extend_from_slice(b"{\"type\":\"llm/retry\",\"seq\":59,\"time\":1,\"data\":{}}\n");
    std::fs::write(&path, &grown).unwrap();
    let err = dsh_session::write::apply(&mut plan.plan, false).unwrap_err();
    assert!(
        err.to_string()
            .contains("the log changed since it was scanned"),
        "{err}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), grown);
}

#[test]
fn standard_input_cannot_be_repaired() {
    let out = dsh().args(["repair", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard input cannot be repaired"));
}

/// A journal left by a crash after the append must never cut what DSH appended since:
/// the repair is recognised as complete and only the journal is removed.
#[test]
fn a_leftover_journal_never_cuts_newer_data() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = crashed("packed-chunks", "a-cut-after-tool-call");
    let plain = std::fs::read_to_string(&log).unwrap();
    let garbage =
        r#"{"type":"tool/result","seq":59,"time":1783352166300,"data":{"turn":1,"step":1}}"#;
    let (torn, _) = zstd_log_with_torn_frame(&plain, 5, 3, garbage);
    let path = dir.path().join("session.jsonl.zstd");
    std::fs::write(&path, &torn).unwrap();
    let out = dsh()
        .arg("repair")
        .arg("--no-backup")
        .arg(&path)
        .env("DSH_SESSION_REPAIR_CRASH_AFTER", "append")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(75));
    // DSH resumes the session and appends a new turn.
    let newer = zstd_frame(
        concat!(
            r#"{"type":"session/end-seed","seq":62,"time":1783352167000,"data":{}}"#, "\n",
            r#"{"type":"turn/start","seq":63,"time":1783352167001,"data":{"turn":2}}"#, "\n",
            r#"{"type":"turn/end","seq":64,"time":1783352167002,"data":{"turn":2,"reason":{"kind":"completed"}}}"#, "\n",
        )
        .as_bytes(),
    );
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(&newer);
    std::fs::write(&path, &bytes).unwrap();
    let text = ok(&repair(&path, &["--no-backup"]));
    assert!(text.contains("completed an interrupted repair"), "{text}");
    assert!(
        std::fs::read(&path).unwrap() == bytes,
        "nothing DSH appended was cut"
    );
    assert!(!dir.path().join("session.jsonl.zstd.repair").exists());
    // A journal that matches nothing in the log is refused, not applied.
    let other = dir.path().join("other.jsonl.zstd");
    std::fs::write(&other, &torn).unwrap();
    let out = dsh()
        .arg("repair")
        .arg("--no-backup")
        .arg(&other)
        .env("DSH_SESSION_REPAIR_CRASH_AFTER", "journal")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(75));
    let mut changed = torn.clone();
    changed.truncate(torn.len() - 1);
    std::fs::write(&other, &changed).unwrap();
    let out = repair(&other, &["--no-backup"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no longer matches the interrupted repair")
    );
    assert!(std::fs::read(&other).unwrap() == changed);
}

/// A tool-call id that is not a string: DSH builds the closer, which then fails M6; repair
/// refuses and nothing panics.
#[test]
fn a_non_string_call_id_is_refused_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    for id in ["5", r#"{"a":1}"#] {
        let log = format!(
            "{}\n{}\n{}\n{}\n",
            r#"{"type":"session","version":0,"id":"s-1","createdAt":1,"delegationDepth":0}"#,
            r#"{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}"#,
            r#"{"type":"step/start","seq":1,"time":1,"data":{"turn":1,"step":1}}"#,
            r#"{"type":"assistant/message","seq":2,"time":1,"data":{"turn":1,"step":1,"message":{"id":"a","role":"assistant","content":[{"type":"tool-call","id":ID,"name":"x","arguments":"{}"}],"source":{"kind":"model","provider":"p","model":"m"}}},"sourceEventSeqs":[],"surfaceOp":"append"}"#
                .replace("ID", id),
        );
        let path = dir.path().join("session.jsonl");
        std::fs::write(&path, &log).unwrap();
        let out = repair(&path, &["--no-backup"]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("corrupt M6") && err.contains("the closer DSH appends on load"),
            "{id}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), log);
        let v = dsh()
            .args(["validate", "--format", "jsonl"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&v.stdout).contains("\"rule\":\"M6\""),
            "validate agrees with repair"
        );
    }
}

/// A repair that only cuts a torn frame (nothing to append) journals an empty frame; a
/// crash right after the journal must still end in the cut log, not in "done".
#[test]
fn an_interrupted_cut_with_nothing_to_append_is_completed() {
    let dir = tempfile::tempdir().unwrap();
    let (_, expected) = crashed("packed-chunks", "a-cut-after-tool-call");
    let closed = std::fs::read_to_string(&expected).unwrap();
    let garbage = r#"{"type":"turn/start","seq":62,"time":1783352167000,"data":{"turn":2}}"#;
    let (torn, torn_at) = zstd_log_with_torn_frame(&closed, 5, 0, garbage);
    for step in ["journal", "truncate"] {
        let path = dir.path().join(format!("{step}.jsonl.zstd"));
        std::fs::write(&path, &torn).unwrap();
        let out = dsh()
            .arg("repair")
            .arg("--no-backup")
            .arg(&path)
            .env("DSH_SESSION_REPAIR_CRASH_AFTER", step)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(75), "{step}");
        ok(&repair(&path, &["--no-backup"]));
        assert!(
            std::fs::read(&path).unwrap() == torn[..torn_at],
            "{step}: the torn frame is cut and nothing is appended"
        );
        assert_eq!(zstd_plain(&std::fs::read(&path).unwrap()), closed);
        assert!(
            !dir.path()
                .join(format!("{step}.jsonl.zstd.repair"))
                .exists()
        );
    }
}
