//! Logs that are not DSH's (issue 24 §5): another harness's session file, under DSH's
//! own name `session.jsonl` or any other, gets one verdict in every command — `foreign`,
//! "not a DSH session log (looks like …)" — never a header defect (H4), and no DSH format
//! version is read out of it. A directory walk lists it apart from corrupt DSH logs and goes
//! on; named on the command line, it fails the gate.

mod common;

use std::path::Path;
use std::process::Output;

use common::{dsh, fixture};
use serde_json::{Value, json};

const PI: &str =
    "not a DSH session log (looks like a pi session: header has `timestamp`, no `createdAt`)";

fn foreign(name: &str) -> std::path::PathBuf {
    fixture(&format!("foreign/{name}"))
}

fn run(args: &[&str], path: &Path) -> Output {
    dsh().args(args).arg(path).output().expect("runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Each harness's first line, and what `validate` says of it.
#[test]
fn validate_names_the_harness() {
    for (name, message) in [
        ("pi-session.jsonl", PI.to_owned()),
        (
            "codex-rollout.jsonl",
            "not a DSH session log (looks like a Codex rollout: first line is `session_meta` with a `payload`)".to_owned(),
        ),
        (
            "claude-code-session.jsonl",
            "not a DSH session log (looks like a Claude Code session: first line is a `user`, `assistant`, `summary` or snapshot record with Claude Code's `sessionId`/`uuid` fields)".to_owned(),
        ),
    ] {
        let path = foreign(name);
        let out = run(&["validate", "--color", "never"], &path);
        assert_eq!(out.status.code(), Some(1), "{name}: named, it fails the gate");
        assert_eq!(
            text(&out.stdout),
            format!(
                "{}: foreign X1 at line 1: {message}\n0 valid, 0 torn-tail, 0 corrupt, 0 refused, 1 foreign\n",
                path.display()
            )
        );
        let out = run(&["validate", "--format", "json"], &path);
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(
            (&v[0]["status"], &v[0]["rule"], &v[0]["line"], &v[0]["message"]),
            (&json!("foreign"), &json!("X1"), &json!(1), &json!(message)),
            "{name}"
        );
        assert_eq!(v[0]["era"], Value::Null, "{name}");
    }
}

/// pi's header says `version: 3`; that is pi's version, not DSH's v3.
#[test]
fn version_reads_no_dsh_version_out_of_it() {
    let path = foreign("pi-session.jsonl");
    let out = run(&["version"], &path);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        format!(
            "file:           {}\nsession id:     -\nformat version: none (not a DSH session log)\nera:            -\ncompression:    none\nforeign:        X1: {PI}\n",
            path.display()
        )
    );
    let out = run(&["version", "--format", "json"], &path);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        (&v["format_version"], &v["supported"], &v["status"]),
        (&Value::Null, &json!(false), &json!("foreign"))
    );
}

/// Every command that reads one log says the same, on standard error, and exits 1.
#[test]
fn every_reading_command_says_it_is_not_a_dsh_log() {
    let path = foreign("pi-session.jsonl");
    for args in [
        &["show"][..],
        &["messages"],
        &["messages", "--provider", "deepseek"],
        &["surface"],
        &["replacements"],
        &["export"],
        &["export", "--format", "html"],
        &["repair", "--dry-run"],
        &["stats"],
    ] {
        let out = run(args, &path);
        // `stats` lists what it did not count after its table; the others say it on
        // standard error.
        let err = text(&out.stderr) + &text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(PI), "{args:?}: {err}");
        assert!(!err.contains("H4"), "{args:?}: {err}");
        assert!(
            !err.contains("# Session transcript") && !err.contains("<html"),
            "{args:?} shows no transcript of it"
        );
    }
    let out = dsh()
        .args(["provenance"])
        .arg(&path)
        .arg("0")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(PI));
}

/// A JSONL root holding a DSH session, a corrupt DSH log and a pi session under DSH's own
/// name: the walk checks the DSH logs, lists the pi session as foreign, apart, and only
/// the corrupt log fails it.
#[test]
fn a_walk_lists_it_as_foreign_apart_from_corrupt_logs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let put = |session: &str, from: &Path| {
        let at = root.join("--home-ana-proj--").join(session);
        std::fs::create_dir_all(&at).expect("mkdir");
        std::fs::copy(from, at.join("session.jsonl")).expect("copy");
    };
    put("s-01", &fixture("open-turn-after-tool-call.jsonl"));
    put("pi-1", &foreign("pi-session.jsonl"));
    let out = run(&["validate", "--color", "never"], root);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout).replace(&format!("{}/", root.display()), "");
    assert_eq!(
        shown,
        format!(
            "--home-ana-proj--/pi-1/session.jsonl: foreign X1 at line 1: {PI}\n--home-ana-proj--/s-01/session.jsonl: valid (19 events, surface 2, head)\n  note: the final turn is still open with 1 pending call (\"call_7\"): DSH will close it on load (`dsh-session repair` writes the same closers now)\n1 valid, 0 torn-tail, 0 corrupt, 0 refused, 1 foreign\n"
        )
    );
    put("s-bad", &fixture("rules/H4-type-not-session.jsonl"));
    let out = run(&["validate", "--color", "never"], root);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).ends_with("1 valid, 0 torn-tail, 1 corrupt, 0 refused, 1 foreign\n"),
        "{}",
        text(&out.stdout)
    );
    // `sessions` gives it a row of its own, `foreign`, with no DSH id, and says why.
    let out = run(&["sessions", "--format", "json"], root);
    let rows: Value = serde_json::from_slice(&out.stdout).expect("json");
    let pi = rows
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["status"] == "foreign")
        .expect("a foreign row");
    assert_eq!(
        (&pi["session"], &pi["events"], &pi["turns"]),
        (&Value::Null, &Value::Null, &Value::Null)
    );
    assert!(text(&out.stderr).contains(PI), "{}", text(&out.stderr));
    // `stats` counts nothing of it, lists it apart, and only the corrupt log fails.
    let out = run(&["stats", "--format", "json"], root);
    let stats: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(stats["foreign"].as_array().map(Vec::len), Some(1));
    assert_eq!(stats["foreign"][0]["message"], PI);
    assert_eq!(stats["not_valid"].as_array().map(Vec::len), Some(1));
    std::fs::remove_dir_all(root.join("--home-ana-proj--/s-bad")).expect("rm");
    let out = run(&["stats", "--format", "json"], root);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}
