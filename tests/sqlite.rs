//! SQLite stores: equivalence with JSONL, sessions, read-only guarantees, and the D and Q
//! rules (FORMAT.md §5.5.3, §5.5.4, §6.4, §8).
//!
//! A store holds DSH 0.1.1's sessions, and DSH 0.1.5 and later do not open stores: the
//! JSONL twins are read as DSH 0.1.1 loads them (`--dsh writer`, which reads a v0 log as DSH
//! 0.1.1 does, and a June 2026 log as its own writer: DSH 0.1.1-rc.2's store refuses the
//! June 2026 header, tests/oracle.rs).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::store::{add_session, create_store, store_from_jsonl};
use common::{dsh_writer, expected_samples, fixture, samples};
use rusqlite::{Connection, params};
use serde_json::Value;

fn run(args: &[&str], path: &Path) -> std::process::Output {
    dsh_writer().args(args).arg(path).output().expect("runs")
}

/// `validate --format json` minus the fields that name the backend.
fn verdict_without_backend(path: &Path) -> Value {
    let out = run(&["validate", "--format", "json"], path);
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let obj = v[0].as_object_mut().unwrap();
    for key in ["file", "session", "encoding", "line", "row"] {
        obj.remove(key);
    }
    // A warning names a line in JSONL and a row in SQLite.
    for w in obj["warnings"].as_array_mut().unwrap() {
        let w = w.as_object_mut().unwrap();
        w.remove("line");
        w.remove("row");
    }
    v
}

fn assert_equivalent(jsonl: &Path, db: &Path) {
    let name = jsonl.display();
    for args in [
        &["surface"][..],
        &["surface", "--format", "json"],
        &["messages"],
        &["messages", "--format", "jsonl"],
    ] {
        let a = run(args, jsonl);
        let b = run(args, db);
        assert_eq!(a.status.code(), b.status.code(), "{args:?} {name}");
        assert_eq!(
            String::from_utf8_lossy(&a.stdout),
            String::from_utf8_lossy(&b.stdout),
            "{args:?} {name}"
        );
    }
    assert_eq!(
        verdict_without_backend(jsonl),
        verdict_without_backend(db),
        "validate {name}"
    );
}

#[test]
fn schema_17_store_is_equivalent_to_jsonl_for_fixtures_and_samples() {
    let dir = tempfile::tempdir().unwrap();
    let mut logs: Vec<PathBuf> = [
        "compaction-and-prune.jsonl",
        "legacy-conversions.jsonl",
        "open-turn-after-tool-call.jsonl",
    ]
    .iter()
    .map(|f| fixture(f))
    .collect();
    if common::have_samples() {
        logs.extend(
            expected_samples()
                .into_iter()
                .filter(|(f, _, _)| f.starts_with("jsonl/"))
                .map(|(f, _, _)| samples().join(f)),
        );
    }
    for (i, log) in logs.iter().enumerate() {
        let db = dir.path().join(format!("{i}.db"));
        store_from_jsonl(log, &db, 17);
        assert_equivalent(log, &db);
    }
}

#[test]
fn schema_4_store_is_equivalent_to_a_june_log() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("june.db");
    store_from_jsonl(&fixture("june-2026.jsonl"), &db, 4);
    assert_equivalent(&fixture("june-2026.jsonl"), &db);
    let v: Value =
        serde_json::from_slice(&run(&["version", "--format", "json"], &db).stdout).unwrap();
    assert_eq!(v["schema"], "4 (June 2026)");
    assert_eq!(v["era"], "june-2026");
    assert_eq!(v["user_version"], 4);
}

fn multi_session_store(dir: &Path) -> PathBuf {
    let db = dir.join("multi.db");
    let conn = create_store(&db, 17);
    for f in [
        "compaction-and-prune.jsonl",
        "legacy-conversions.jsonl",
        "open-turn-after-tool-call.jsonl",
    ] {
        add_session(&conn, 17, &fixture(f));
    }
    db
}

#[test]
fn sessions_lists_a_multi_session_store() {
    let dir = tempfile::tempdir().unwrap();
    let db = multi_session_store(dir.path());
    let out = run(&["sessions", "--format", "json"], &db);
    assert!(out.status.success());
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let summary: Vec<(String, u64, u64, String)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["session"].as_str().unwrap().to_owned(),
                r["events"].as_u64().unwrap(),
                r["turns"].as_u64().unwrap(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("s-01".to_owned(), 19, 1, "valid".to_owned()),
            ("s-compact".to_owned(), 24, 1, "valid".to_owned()),
            ("s-legacy".to_owned(), 12, 2, "valid".to_owned()),
        ]
    );
    assert_eq!(rows[0]["cwd"], "/home/ana/proj");
    assert_eq!(rows[0]["delegation_depth"], 0);
    assert_eq!(rows[0]["revision"], 1);
    assert_eq!(rows[0]["created_at"], "2025-10-09T08:53:20.000Z");
}

#[test]
fn validate_covers_every_session_and_views_need_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = multi_session_store(dir.path());
    let out = run(&["validate", "--format", "jsonl"], &db);
    assert_eq!(out.status.code(), Some(0));
    let sessions: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["session"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(sessions, ["s-01", "s-compact", "s-legacy"]);

    let out = run(&["surface"], &db);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("store holds 3 sessions; name one with --session: s-01, s-compact, s-legacy"),
        "{err}"
    );

    let out = dsh_writer()
        .args(["messages", "--session", "s-compact"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(
        out.stdout,
        run(&["messages"], &fixture("compaction-and-prune.jsonl")).stdout
    );
    let out = dsh_writer()
        .args(["show", "--session", "nope"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("store has no session \"nope\""));
}

fn snapshot(dir: &Path) -> BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let meta = std::fs::metadata(&p).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                (std::fs::read(&p).unwrap(), meta.modified().unwrap()),
            )
        })
        .collect()
}

fn every_command(db: &Path) {
    for args in [
        &["validate"][..],
        &["show"],
        &["surface"],
        &["messages"],
        &["version"],
        &["sessions"],
    ] {
        let out = run(args, db);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn opening_a_rollback_journal_store_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.db");
    store_from_jsonl(&fixture("compaction-and-prune.jsonl"), &db, 17);
    let before = snapshot(dir.path());
    std::thread::sleep(std::time::Duration::from_millis(20));
    every_command(&db);
    assert_eq!(before, snapshot(dir.path()));
}

#[test]
fn opening_a_wal_store_changes_nothing_with_or_without_side_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.db");
    let writer = create_store(&db, 17);
    let mode: String = writer
        .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    add_session(&writer, 17, &fixture("compaction-and-prune.jsonl"));
    // A live writer: -wal and -shm exist and hold the rows.
    let before = snapshot(dir.path());
    assert!(
        before.contains_key("store.db-wal") && before.contains_key("store.db-shm"),
        "{:?}",
        before.keys()
    );
    every_command(&db);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        snapshot(dir.path()).keys().collect::<Vec<_>>()
    );
    assert_eq!(before["store.db"], snapshot(dir.path())["store.db"]);
    assert_eq!(before["store.db-wal"], snapshot(dir.path())["store.db-wal"]);
    let messages = run(&["messages"], &db).stdout;
    assert_eq!(
        messages,
        run(&["messages"], &fixture("compaction-and-prune.jsonl")).stdout
    );

    // A crashed writer's leftovers: -wal without -shm.
    let crashed = tempfile::tempdir().unwrap();
    let db2 = crashed.path().join("store.db");
    std::fs::copy(&db, &db2).unwrap();
    std::fs::copy(
        dir.path().join("store.db-wal"),
        crashed.path().join("store.db-wal"),
    )
    .unwrap();
    let before = snapshot(crashed.path());
    every_command(&db2);
    assert_eq!(before, snapshot(crashed.path()));
    assert_eq!(run(&["messages"], &db2).stdout, messages);

    // WAL mode, no side files at all.
    drop(writer);
    let clean = tempfile::tempdir().unwrap();
    let db3 = clean.path().join("store.db");
    let c = Connection::open(&db3).unwrap();
    c.execute_batch("PRAGMA journal_mode=WAL").unwrap();
    drop(c);
    let conn = create_store(&db3, 17);
    add_session(&conn, 17, &fixture("compaction-and-prune.jsonl"));
    drop(conn);
    let before = snapshot(clean.path());
    assert_eq!(before.len(), 1, "{:?}", before.keys());
    every_command(&db3);
    assert_eq!(before, snapshot(clean.path()));
}

#[test]
fn a_pristine_file_is_a_store_with_no_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("empty.db");
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA user_version = 0; VACUUM;")
        .unwrap();
    drop(conn);
    let before = std::fs::read(&db).unwrap();
    if before.is_empty() {
        // SQLite wrote nothing: give the file a header so it is recognised.
        let c = Connection::open(&db).unwrap();
        c.execute_batch("CREATE TABLE t(x); DROP TABLE t;").unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    let out = run(&["validate"], &db);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("store holds no sessions"));
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let out = run(&["show"], &db);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("store holds no sessions"));
}

/// Builds a schema 17 store from a fixture, lets `tamper` change it, and returns the
/// verdict `validate --format jsonl` gives.
fn tampered(tamper: impl FnOnce(&Connection)) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    store_from_jsonl(&fixture("compaction-and-prune.jsonl"), &db, 17);
    let conn = Connection::open(&db).unwrap();
    tamper(&conn);
    drop(conn);
    let out = run(&["validate", "--format", "jsonl"], &db);
    serde_json::from_str(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .expect("a verdict"),
    )
    .unwrap()
}

fn rule_of(v: &Value) -> (String, String, Option<u64>, Option<u64>) {
    (
        v["status"].as_str().unwrap().to_owned(),
        v["rule"].as_str().unwrap_or("-").to_owned(),
        v["seq"].as_u64(),
        v["row"].as_u64(),
    )
}

#[test]
fn identity_rules_refuse_the_store() {
    type Tamper = Box<dyn FnOnce(&Connection)>;
    let cases: Vec<(&str, Tamper)> = vec![
        (
            "D1",
            Box::new(|c: &Connection| c.pragma_update(None, "user_version", 0).unwrap()),
        ),
        (
            "D2",
            Box::new(|c: &Connection| c.pragma_update(None, "user_version", 16).unwrap()),
        ),
        (
            "D3",
            Box::new(|c: &Connection| c.pragma_update(None, "application_id", 7).unwrap()),
        ),
        (
            "D5",
            Box::new(|c: &Connection| {
                c.execute_batch("CREATE INDEX extra ON events(type)")
                    .unwrap()
            }),
        ),
        (
            "D6",
            Box::new(|c: &Connection| {
                c.execute("UPDATE persistence_state SET store_id = 'not-a-uuid'", [])
                    .unwrap();
            }),
        ),
    ];
    for (rule, tamper) in cases {
        let v = tampered(tamper);
        assert_eq!(
            rule_of(&v),
            ("refused".into(), rule.into(), None, None),
            "{v}"
        );
    }
}

#[test]
fn row_rules_name_session_seq_and_row() {
    let set = |sql: &'static str| {
        move |c: &Connection| {
            c.execute(sql, []).unwrap();
        }
    };
    // Q1–Q3: always fatal, wherever the row is.
    let v = tampered(set(
        "UPDATE events SET time = 9007199254740993 WHERE seq = 21",
    ));
    assert_eq!(
        rule_of(&v),
        ("corrupt".into(), "Q1".into(), Some(21), Some(21))
    );
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("session \"s-compact\""),
        "{v}"
    );
    let v = tampered(set("UPDATE events SET type = '' WHERE seq = 3"));
    assert_eq!(
        rule_of(&v),
        ("corrupt".into(), "Q1".into(), Some(3), Some(3))
    );
    let v = tampered(set("UPDATE events SET data = 5 WHERE seq = 3"));
    assert_eq!(
        rule_of(&v),
        ("corrupt".into(), "Q2".into(), Some(3), Some(3))
    );
    let v = tampered(set(
        "UPDATE events SET source_event_seqs = '[8]' WHERE seq = 9",
    ));
    assert_eq!(
        rule_of(&v),
        ("corrupt".into(), "Q3".into(), Some(9), Some(9))
    );
    // Q7: a row that fails to decode before the last turn/end.
    let v = tampered(set("UPDATE events SET data = x'28b52ffd00' WHERE seq = 13"));
    assert_eq!(rule_of(&v), ("corrupt".into(), "Q7".into(), None, Some(13)));
    let v = tampered(set("UPDATE events SET surface_op = 'append' WHERE seq = 2"));
    assert_eq!(rule_of(&v), ("corrupt".into(), "Q7".into(), None, Some(2)));
    let v = tampered(set(
        "UPDATE events SET source_event_seqs = x'80' WHERE seq = 9",
    ));
    assert_eq!(rule_of(&v), ("corrupt".into(), "Q7".into(), None, Some(9)));
    // Q7: a seq gap in the committed region.
    let v = tampered(set("DELETE FROM events WHERE seq = 10"));
    assert_eq!(rule_of(&v), ("corrupt".into(), "Q7".into(), None, Some(11)));
    // A packed row with fewer than 3 members is undecodable in SQLite.
    let v = tampered(set(
        "UPDATE events SET data = '{\"turn\":1,\"step\":1,\"index\":0,\"dt\":[1],\"texts\":[\"a\",\"b\"]}' WHERE seq = 4",
    ));
    assert_eq!(rule_of(&v), ("corrupt".into(), "Q7".into(), None, Some(4)));
    // Q8: after the last turn/end, the same defect is a torn tail.
    let v = tampered(|c: &Connection| {
        c.execute(
            "INSERT INTO events VALUES ('s-compact', 24, 'turn/start', 1, x'0102', NULL, NULL, NULL)",
            [],
        )
        .unwrap();
    });
    assert_eq!(
        rule_of(&v),
        ("torn-tail".into(), "Q8".into(), None, Some(24))
    );
    assert_eq!(v["events"], 24);
    // A sessions row that breaks §6.3.
    let v = tampered(set("UPDATE sessions SET created_at = -1"));
    assert_eq!(rule_of(&v).1, "H4");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("created_at must be non-negative"),
        "{v}"
    );
    // Format version other than 0: refused.
    let v = tampered(set("UPDATE sessions SET version = 1"));
    assert_eq!(rule_of(&v), ("refused".into(), "H3".into(), None, None));
}

/// Every way a `data` BLOB can hold its zstd text decodes to the same row: one frame with
/// its size (the one-call path), one frame without it and two frames (the streaming path).
#[test]
fn data_blobs_decode_alike_with_or_without_a_recorded_size() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    store_from_jsonl(&fixture("compaction-and-prune.jsonl"), &db, 17);
    let messages = |db: &Path| run(&["messages"], db).stdout;
    let want = messages(&db);
    let conn = Connection::open(&db).unwrap();
    let text: String = conn
        .query_row("SELECT data FROM events WHERE seq = 12", [], |r| r.get(0))
        .unwrap();
    let unsized_frame = {
        let mut encoder = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        std::io::Write::write_all(&mut encoder, text.as_bytes()).unwrap();
        encoder.finish().unwrap()
    };
    assert_eq!(zstd::stream::decompressed_size(&unsized_frame), None);
    let (head, tail) = text.split_at(text.len() / 2);
    let two_frames = [
        zstd::bulk::compress(head.as_bytes(), 3).unwrap(),
        zstd::bulk::compress(tail.as_bytes(), 3).unwrap(),
    ]
    .concat();
    let sized_frame = zstd::bulk::compress(text.as_bytes(), 3).unwrap();
    for blob in [&sized_frame, &unsized_frame, &two_frames] {
        conn.execute("UPDATE events SET data = ?1 WHERE seq = 12", [blob])
            .unwrap();
        assert_eq!(messages(&db), want);
    }
    // A frame that records its size but whose blocks are garbage: Q7, from either path.
    let mut broken = sized_frame.clone();
    let n = broken.len();
    broken[n - 4..].copy_from_slice(&[0xff; 4]);
    conn.execute("UPDATE events SET data = ?1 WHERE seq = 12", [&broken])
        .unwrap();
    drop(conn);
    let out = run(&["validate", "--format", "jsonl"], &db);
    let v: Value =
        serde_json::from_slice(out.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    assert_eq!(rule_of(&v), ("corrupt".into(), "Q7".into(), None, Some(12)));
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("data BLOB does not decompress"),
        "{v}"
    );
}

#[test]
fn june_schema_4_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("june.db");
    store_from_jsonl(&fixture("june-2026.jsonl"), &db, 4);
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE events SET data = '{oops' WHERE seq = ?1",
        params![5],
    )
    .unwrap();
    drop(conn);
    let out = run(&["validate", "--format", "jsonl"], &db);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rule_of(&v), ("corrupt".into(), "Q7".into(), None, Some(5)));
    assert_eq!(out.status.code(), Some(1));
}
