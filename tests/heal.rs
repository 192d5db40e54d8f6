//! `repair --provider NAME` and `messages --provider NAME`: healing a derived history the
//! provider refuses, append-only, through surface replacements (issue 16; PROVIDERS.md §3,
//! FORMAT.md §3). Every P-class fixture is healed on a copy; the healed log validates under
//! DSH's rules and the provider's, the original is a byte prefix of it, a second run
//! changes nothing, a dry run changes nothing, and `messages --provider` of the original
//! is `messages` of the healed log. Plain JSONL, zstd and SQLite twins; a crash after every
//! step; exact records per class; findings no heal fixes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::store::{rows, store_from_jsonl};
use common::{dsh_writer, fixture, zstd_log, zstd_plain};

/// Every fixture of the previous issue, with the provider it is healed for.
const CASES: &[(&str, &str)] = &[
    ("P1-call-unanswered-in-closed-turn.jsonl", "deepseek"),
    ("P2-result-without-call.jsonl", "deepseek"),
    ("P3-user-message-between-call-and-result.jsonl", "deepseek"),
    (
        "P3-v4-user-message-between-call-and-result.jsonl",
        "deepseek",
    ),
    ("P4-reasoning-tokens-but-no-reasoning.jsonl", "deepseek"),
    ("P4-tool-call-from-another-model.jsonl", "deepseek"),
    ("P5-lone-surrogate.jsonl", "deepseek"),
    ("P6-duplicate-call-id.jsonl", "deepseek"),
    ("P7-empty-text-block.jsonl", "deepseek"),
    ("crashed-call-in-ended-step.jsonl", "deepseek"),
    ("crashed-user-message-after-call.jsonl", "deepseek"),
    ("several-findings.jsonl", "deepseek"),
    // The Anthropic-only classes, and several findings for the other profiles.
    ("P6-duplicate-call-id.jsonl", "anthropic"),
    ("P7-empty-text-block.jsonl", "anthropic"),
    ("several-findings.jsonl", "anthropic"),
    ("several-findings.jsonl", "openai"),
    ("P3-v4-user-message-between-call-and-result.jsonl", "openai"),
];

fn provider_fixture(name: &str) -> PathBuf {
    fixture(&format!("provider/{name}"))
}

/// The heals make a history sendable as the DSH that writes the log's generation loads it:
/// the fixtures, hand-made in its rules, are judged so (`--dsh writer`: a v0 fixture as DSH
/// 0.1.1 loads it — the frozen edges of DSH 0.1.5 and later refuse several of them for what
/// they are built to show — a v4 one as 0.1.7).
fn run(args: &[&str], path: &Path) -> Output {
    dsh_writer().args(args).arg(path).output().unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn mtime(path: &Path) -> std::time::SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

/// The messages `messages --provider NAME` gives for `log` (JSONL, and the JSON array,
/// which must agree: the same shapes as `messages`).
fn healed_messages(log: &Path, provider: &str) -> String {
    let jsonl = ok(&run(
        &["messages", "--provider", provider, "--format", "jsonl"],
        log,
    ));
    let json: serde_json::Value =
        serde_json::from_str(&ok(&run(&["messages", "--provider", provider], log))).unwrap();
    let from_json: String = json
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{m}\n"))
        .collect();
    let reparsed: String = jsonl
        .lines()
        .map(|l| {
            format!(
                "{}\n",
                serde_json::from_str::<serde_json::Value>(l).unwrap()
            )
        })
        .collect();
    assert_eq!(
        from_json,
        reparsed,
        "{}: json and jsonl agree",
        log.display()
    );
    jsonl
}

/// Heals a copy of `log` (a plain, zstd or SQLite log at `path`) for `provider` and checks
/// every promise of the issue. Returns the repair's text output.
fn heal_and_check(path: &Path, provider: &str) -> String {
    let original = std::fs::read(path).unwrap();
    let before = mtime(path);
    let sqlite = path.extension().is_some_and(|e| e == "db");
    let want_messages = healed_messages(path, provider);

    // A dry run changes nothing.
    ok(&run(&["repair", "--provider", provider, "--dry-run"], path));
    assert_eq!(std::fs::read(path).unwrap(), original, "dry run");
    assert_eq!(mtime(path), before, "dry run");

    let said = ok(&run(
        &["repair", "--provider", provider, "--no-backup"],
        path,
    ));
    let healed = std::fs::read(path).unwrap();
    if !sqlite {
        assert!(
            healed.starts_with(&original),
            "{}: the original is a byte prefix of the healed log",
            path.display()
        );
    }
    // Valid for DSH, and for the provider.
    let valid = ok(&run(&["validate"], path));
    assert!(valid.contains(": valid ("), "{valid}");
    let gate = run(&["validate", "--provider", provider], path);
    assert_eq!(
        gate.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&gate.stdout)
    );
    // What the provider was said to receive is what the healed log derives.
    assert_eq!(
        ok(&run(&["messages", "--format", "jsonl"], path)),
        want_messages,
        "{}: messages --provider of the original = messages of the healed log",
        path.display()
    );
    // A second run is a no-op that leaves the file as it is, mtime included.
    let at = mtime(path);
    let again = ok(&run(&["repair", "--provider", provider], path));
    assert!(
        again.contains(&format!(
            ": nothing to repair; the history passes {provider}'s provider rules\n"
        )),
        "{again}"
    );
    assert_eq!(std::fs::read(path).unwrap(), healed);
    assert_eq!(mtime(path), at);
    said
}

#[test]
fn every_class_is_healed_append_only() {
    let dir = tempfile::tempdir().unwrap();
    for (name, provider) in CASES {
        let path = dir.path().join(format!("{provider}-{name}"));
        std::fs::copy(provider_fixture(name), &path).unwrap();
        heal_and_check(&path, provider);
        // No backup was asked for; the journal is gone.
        assert!(
            !dir.path()
                .join(format!("{provider}-{name}.repair"))
                .exists()
        );
    }
}

#[test]
fn zstd_and_sqlite_twins_heal_like_the_plain_log() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "several-findings.jsonl",
        "crashed-user-message-after-call.jsonl",
    ] {
        let plain_path = dir.path().join(name);
        std::fs::copy(provider_fixture(name), &plain_path).unwrap();
        let plain = std::fs::read_to_string(&plain_path).unwrap();
        heal_and_check(&plain_path, "deepseek");
        let healed_plain = ok(&run(&["messages", "--format", "jsonl"], &plain_path));

        let zstd_path = dir.path().join(format!("{name}.zstd"));
        std::fs::write(&zstd_path, zstd_log(&plain, 4).0).unwrap();
        heal_and_check(&zstd_path, "deepseek");
        // One checksummed frame more, holding the closers and heals of the plain repair.
        assert_eq!(
            zstd_plain(&std::fs::read(&zstd_path).unwrap()),
            std::fs::read_to_string(&plain_path).unwrap()
        );

        let db = dir.path().join(format!("{name}.db"));
        store_from_jsonl(&provider_fixture(name), &db, 17);
        let rows_before = rows(&db);
        heal_and_check(&db, "deepseek");
        let rows_after = rows(&db);
        assert_eq!(
            rows_after[..rows_before.len()],
            rows_before[..],
            "stored rows untouched"
        );
        assert_eq!(
            ok(&run(&["messages", "--format", "jsonl"], &db)),
            healed_plain
        );
    }
}

/// The records a heal appends, exactly: one fixture per class.
#[test]
fn the_records_appended_per_class() {
    let dir = tempfile::tempdir().unwrap();
    for (name, provider, want) in EXACT {
        let path = dir.path().join(name);
        std::fs::copy(provider_fixture(name), &path).unwrap();
        let original = std::fs::read(&path).unwrap();
        ok(&run(
            &["repair", "--provider", provider, "--no-backup"],
            &path,
        ));
        let healed = std::fs::read(&path).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&healed[original.len()..]),
            *want,
            "{name} for {provider}"
        );
    }
}

const EXACT: &[(&str, &str, &str)] = &[
    (
        "P1-call-unanswered-in-closed-turn.jsonl",
        "deepseek",
        r#"{"type":"user/message","seq":13,"time":1760000000112,"data":{"content":[{"type":"text","text":"[dsh-session heal] The message recorded here would make the provider refuse the history (P1: a tool call without a result). dsh-session replaced it with this note; the log keeps the original at seq 3.\n\nThe assistant called the tool bash (call id call_1) with the arguments {\"command\":\"ls\"}. No result was recorded."}],"source":{"kind":"plugin","plugin":"dsh-session-heal"},"role":"user","id":"dsh-session-heal-P1-13"},"sourceEventSeqs":[3],"surfaceOp":{"op":"replace","start":3,"end":3}}
"#,
    ),
    (
        "P2-result-without-call.jsonl",
        "deepseek",
        r#"{"type":"user/message","seq":7,"time":1760000000106,"data":{"content":[{"type":"text","text":"[dsh-session heal] The message recorded here would make the provider refuse the history (P2: a tool result without its call). dsh-session replaced it with this note; the log keeps the original at seq 3.\n\nResult of an unrecorded tool (call id call_9), whose call is not in this history (never recorded, or removed by an earlier replacement):\ndone"}],"source":{"kind":"plugin","plugin":"dsh-session-heal"},"role":"user","id":"dsh-session-heal-P2-7"},"sourceEventSeqs":[3],"surfaceOp":{"op":"replace","start":3,"end":3}}
"#,
    ),
    (
        "P3-user-message-between-call-and-result.jsonl",
        "deepseek",
        r#"{"type":"user/message","seq":9,"time":1760000000108,"data":{"content":[{"type":"text","text":"[dsh-session heal] The message recorded here would make the provider refuse the history (P3: a tool result that does not follow its call). dsh-session replaced it with this note; the log keeps the original at seq 3.\n\nThe assistant called the tool bash (call id call_1) with the arguments {\"command\":\"ls\"}. Its result came back later and is given below."}],"source":{"kind":"plugin","plugin":"dsh-session-heal"},"role":"user","id":"dsh-session-heal-P3-9"},"sourceEventSeqs":[3],"surfaceOp":{"op":"replace","start":3,"end":3}}
{"type":"user/message","seq":10,"time":1760000000108,"data":{"content":[{"type":"text","text":"[dsh-session heal] The message recorded here would make the provider refuse the history (P3: a tool result that does not follow its call). dsh-session replaced it with this note; the log keeps the original at seq 6.\n\nResult of the tool bash (call id call_1), which came back after the messages above:\na.txt"}],"source":{"kind":"plugin","plugin":"dsh-session-heal"},"role":"user","id":"dsh-session-heal-P3-10"},"sourceEventSeqs":[6],"surfaceOp":{"op":"replace","start":6,"end":6}}
"#,
    ),
    (
        "P3-v4-user-message-between-call-and-result.jsonl",
        "deepseek",
        r#"{"type":"user/message","seq":10,"time":1760000000109,"data":{"content":[{"type":"text","text":"[dsh-session heal] The message recorded here would make the provider refuse the history (P3: a tool result that does not follow its call). dsh-session replaced it with this note; the log keeps the original at seq 4.\n\nThe assistant called the tool bash (call id call_1) with the arguments {\"command\":\"ls\"}. Its result came back later and is given below."}],"source":{"kind":"dsh-session-heal"},"role":"user","id":"dsh-session-heal-P3-10"},"sourceEventSeqs":[4],"surfaceOp":{"op":"replace","startSeq":4,"endSeq":4}}
{"type":"user/message","seq":11,"time":1760000000109,"data":{"content":[{"type":"text","text":"[dsh-session heal] The message recorded here would make the provider refuse the history (P3: a tool result that does not follow its call). dsh-session replaced it with this note; the log keeps the original at seq 7.\n\nResult of the tool bash (call id call_1), which came back after the messages above:\na.txt"}],"source":{"kind":"dsh-session-heal"},"role":"user","id":"dsh-session-heal-P3-11"},"sourceEventSeqs":[7],"surfaceOp":{"op":"replace","startSeq":7,"endSeq":7}}
"#,
    ),
    (
        "P4-reasoning-tokens-but-no-reasoning.jsonl",
        "deepseek",
        r#"{"type":"user/message","seq":14,"time":1760000000113,"data":{"content":[{"type":"text","text":"[dsh-session heal] The messages recorded here would make the provider refuse the history (P4: a tool call without the reasoning that thinking mode requires). dsh-session replaced them with this note; the log keeps the originals at seq 9 and 11.\n\nThe assistant called the tool bash (call id call_1) with the arguments {\"command\":\"ls\"}. Its result follows.\n\nResult of the tool bash (call id call_1):\na.txt"}],"source":{"kind":"plugin","plugin":"dsh-session-heal"},"role":"user","id":"dsh-session-heal-P4-14"},"sourceEventSeqs":[9,11],"surfaceOp":{"op":"replace","start":9,"end":11}}
"#,
    ),
    (
        "P5-lone-surrogate.jsonl",
        "deepseek",
        r#"{"type":"user/message","seq":6,"time":1760000000105,"data":{"content":[{"type":"text","text":"broken � text"}],"source":{"kind":"user"},"role":"user","id":"dsh-session-heal-P5-6"},"sourceEventSeqs":[2],"surfaceOp":{"op":"replace","start":2,"end":2}}
"#,
    ),
    (
        "P6-duplicate-call-id.jsonl",
        "anthropic",
        r#"{"type":"user/message","seq":13,"time":1760000000112,"data":{"content":[{"type":"text","text":"[dsh-session heal] The messages recorded here would make the provider refuse the history (P6: a tool call id used twice). dsh-session replaced them with this note; the log keeps the originals at seq 8 and 10.\n\nThe assistant called the tool bash (call id call_1) with the arguments {\"command\":\"ls\"}. Its result follows.\n\nResult of the tool bash (call id call_1):\na.txt"}],"source":{"kind":"plugin","plugin":"dsh-session-heal"},"role":"user","id":"dsh-session-heal-P6-13"},"sourceEventSeqs":[8,10],"surfaceOp":{"op":"replace","start":8,"end":10}}
"#,
    ),
    (
        "P7-empty-text-block.jsonl",
        "anthropic",
        r#"{"type":"user/message","seq":6,"time":1760000000105,"data":{"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"},"role":"user","id":"dsh-session-heal-P7-6"},"sourceEventSeqs":[2],"surfaceOp":{"op":"replace","start":2,"end":2}}
"#,
    ),
];

#[test]
fn a_crash_after_any_step_is_completed_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // several-findings with a torn final line: the repair cuts it, then appends three
    // heals through the journal.
    let mut torn = std::fs::read(provider_fixture("several-findings.jsonl")).unwrap();
    torn.extend_from_slice(br#"{"type":"turn/start","seq":16,"ti"#);
    let reference = dir.path().join("reference.jsonl");
    std::fs::write(&reference, &torn).unwrap();
    let said = ok(&run(
        &["repair", "--provider", "deepseek", "--no-backup"],
        &reference,
    ));
    assert!(
        said.contains(": appended 3 heal records for deepseek:\n"),
        "{said}"
    );
    let want = std::fs::read(&reference).unwrap();
    for step in ["backup", "journal", "truncate", "append-half", "append"] {
        let path = dir.path().join(format!("{step}.jsonl"));
        std::fs::write(&path, &torn).unwrap();
        let out = dsh_writer()
            .args(["repair", "--provider", "deepseek"])
            .arg(&path)
            .env("DSH_SESSION_REPAIR_CRASH_AFTER", step)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(75),
            "{step}: the hook stops the process"
        );
        ok(&run(
            &["repair", "--provider", "deepseek", "--no-backup"],
            &path,
        ));
        assert!(
            std::fs::read(&path).unwrap() == want,
            "plain, crash after {step}: {}",
            String::from_utf8_lossy(&std::fs::read(&path).unwrap())
        );
        assert!(!dir.path().join(format!("{step}.jsonl.repair")).exists());
    }
    // SQLite: a crash inside the transaction leaves the store as it was.
    let db = dir.path().join("crash.db");
    store_from_jsonl(&provider_fixture("several-findings.jsonl"), &db, 17);
    let before = rows(&db);
    let out = dsh_writer()
        .args(["repair", "--provider", "deepseek", "--no-backup"])
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
    ok(&run(
        &["repair", "--provider", "deepseek", "--no-backup"],
        &db,
    ));
    assert_eq!(rows(&db).len(), before.len() + 3);
}

#[test]
fn what_no_heal_fixes_is_reported_and_left_alone() {
    // v4: unpaired surrogates in the system head (no replacement outside a turn can touch
    // it) and in a user message (fixed in place).
    let dir = tempfile::tempdir().unwrap();
    let name = "P5-v4-lone-surrogate-in-system-prompt.jsonl";
    let path = dir.path().join(name);
    std::fs::copy(provider_fixture(name), &path).unwrap();
    let out = run(&["repair", "--provider", "openai", "--no-backup"], &path);
    assert_eq!(out.status.code(), Some(1), "a finding stays: exit 1");
    let text = String::from_utf8(out.stdout).unwrap();
    let p = path.display();
    assert_eq!(
        text,
        format!(
            "{p}: appended 1 heal record for openai:
  seq 7: the user message at seq 3 is written again: its unpaired surrogates become U+FFFD
{{\"type\":\"user/message\",\"seq\":7,\"time\":1760000000106,\"data\":{{\"content\":[{{\"type\":\"text\",\"text\":\"hello \u{FFFD}\"}}],\"source\":{{\"kind\":\"user\"}},\"role\":\"user\",\"id\":\"dsh-session-heal-P5-7\"}},\"sourceEventSeqs\":[3],\"surfaceOp\":{{\"op\":\"replace\",\"startSeq\":3,\"endSeq\":3}}}}
{p}: 1 finding no heal fixes; nothing is written for it:
  P5 at line 4 (seq 2): system message holds an unpaired UTF-16 surrogate escape; the request body cannot be encoded as UTF-8
    why: a system message can be replaced only by a system/message inside an open turn and step (GENERATIONS §6, §7), and a repair appends after the log's last turn; P5 stays until DSH replaces that system message (as it does when the system text changes)
"
        )
    );
    // The same in JSON, on a second run that writes nothing.
    let before = std::fs::read(&path).unwrap();
    let out = run(
        &["repair", "--provider", "openai", "--format", "json"],
        &path,
    );
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "nothing to repair");
    assert_eq!(v["heals"], serde_json::json!([]));
    assert_eq!(v["unhealed"][0]["rule"], "P5");
    assert_eq!(v["unhealed"][0]["seq"], 2);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // messages --provider lists it too, and still derives the history.
    // (The system message keeps its lone surrogate escape, so serde cannot read the JSON.)
    let out = run(
        &["messages", "--provider", "openai", "--format", "jsonl"],
        &path,
    );
    assert_eq!(ok(&out).lines().count(), 3);
    let note = format!(
        "note: {p}: openai: P5 at seq 2 is not healed: a system message can be replaced only by a system/message inside an open turn and step (GENERATIONS §6, §7), and a repair appends after the log's last turn; P5 stays until DSH replaces that system message (as it does when the system text changes)\n"
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), note);
    // A drop-in for `messages`: the same array on standard output, the same note.
    let out = run(&["messages", "--provider", "openai"], &path);
    assert_eq!(ok(&out), ok(&run(&["messages"], &path)));
    assert_eq!(String::from_utf8_lossy(&out.stderr), note);
}

#[test]
fn provenance_of_a_heal_says_what_it_shadowed_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("several.jsonl");
    std::fs::copy(provider_fixture("several-findings.jsonl"), &path).unwrap();
    ok(&run(
        &["repair", "--provider", "deepseek", "--no-backup"],
        &path,
    ));
    let text = ok(&dsh_writer()
        .arg("provenance")
        .arg(&path)
        .arg("16")
        .output()
        .unwrap());
    let head: Vec<&str> = text.lines().take(4).collect();
    assert_eq!(
        head,
        [
            "event:  16 user/message  [dsh-session heal] The message recorded here would make the…",
            "status: on the surface at position 1",
            "replaces: 3 (user/message replace 3..3, replace generation 1)",
            "heal:   written by `dsh-session repair --provider` (message id dsh-session-heal-P1-P3-16) because the provider would refuse the history: P1 a tool call without a result; P3 a tool result that does not follow its call",
        ]
    );
    // The shadowed original points at its heal.
    let text = ok(&dsh_writer()
        .arg("provenance")
        .arg(&path)
        .arg("12")
        .output()
        .unwrap());
    assert!(
        text.contains(
            "status: shadowed by seq 18 (user/message replace 12..12, replace generation 3)"
        ),
        "{text}"
    );
    let v: serde_json::Value = serde_json::from_slice(
        &dsh_writer()
            .args(["provenance", "--format", "json"])
            .arg(&path)
            .arg("18")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(v["heal"]["rules"], serde_json::json!(["P2"]));
    assert_eq!(v["replaces"]["shadowed"], serde_json::json!([12]));
}
