//! Defects found by trying `dsh-session` as a new user would (issue 13): each failing
//! input, built in a temporary directory from fixtures or samples, with the exact output.

mod common;

use std::path::{Path, PathBuf};

use common::{dsh, fixture, samples, zstd_log};
use serde_json::Value;

/// Runs `dsh-session ARGS` and returns (exit code, stdout, stderr).
fn run(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = dsh().current_dir(dir).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The lines of `text` that start with `prefix`.
fn lines_with(text: &str, prefix: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_same_generation_in_the_other_encoding_is_a_conflict_not_a_later_generation() {
    // FORMAT.md §7.1: one root holds one encoding. Before, each file of the pair said the
    // other was the LATER generation that DSH reads.
    let tmp = tempfile::tempdir().unwrap();
    let plain = std::fs::read_to_string(fixture("compaction-and-prune.jsonl")).unwrap();
    std::fs::write(tmp.path().join("session.jsonl"), &plain).unwrap();
    std::fs::write(tmp.path().join("session.jsonl.zstd"), zstd_log(&plain, 4).0).unwrap();
    let conflict =
        "same generation in the other encoding: a DSH root holds one encoding, FORMAT.md §7.1";
    let (code, out, err) = run(&["show", "session.jsonl"], tmp.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        lines_with(&out, "generation"),
        [format!(
            "generation:   v0 ./session.jsonl.zstd ({conflict})"
        )]
    );
    let (code, out, err) = run(
        &["--dsh", "0.1.1", "version", "session.jsonl.zstd"],
        tmp.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        lines_with(&out, "other file"),
        [format!("other file:     v0 ./session.jsonl ({conflict})")]
    );
}

#[test]
fn a_log_under_another_name_is_never_the_earlier_generation() {
    // `mylog.v3.jsonl` is not a name DSH reads: the canonical v3 beside it is the one DSH
    // reads, the v2 a frozen predecessor; and a v2 sees v3 as later, not v3's copy.
    let tmp = tempfile::tempdir().unwrap();
    let v = |n: u8| fixture(&format!("generations/v{n}/session.v{n}.jsonl"));
    std::fs::copy(v(3), tmp.path().join("mylog.v3.jsonl")).unwrap();
    std::fs::copy(v(3), tmp.path().join("session.v3.jsonl")).unwrap();
    std::fs::copy(v(2), tmp.path().join("session.v2.jsonl")).unwrap();
    let (code, out, err) = run(&["version", "mylog.v3.jsonl"], tmp.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        lines_with(&out, "other file"),
        [
            "other file:     v2 ./session.v2.jsonl (frozen predecessor)",
            "other file:     v3 ./session.v3.jsonl (DSH reads that one: this file's name is not a DSH log name like session.vN.jsonl)",
        ]
    );
    let (code, out, err) = run(&["show", "session.v3.jsonl"], tmp.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        lines_with(&out, "generation"),
        ["generation:   v2 ./session.v2.jsonl (frozen predecessor)"]
    );
    let (code, out, err) = run(&["version", "session.v2.jsonl"], tmp.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        lines_with(&out, "other file"),
        ["other file:     v3 ./session.v3.jsonl (later generation: DSH reads that one, not this)"]
    );
}

/// The todo-write zstd sample (115 events in 37 lines) with its last frame, which holds
/// lines 24–37, cut in the middle of its only block: 101 events decode.
fn torn_inside_a_block(dir: &Path) -> (PathBuf, u64) {
    let sample = samples()
        .join("zstd/examples__acp-agent__tests__snapshots__todo-write__session.jsonl.zstd");
    let bytes = std::fs::read(&sample).unwrap();
    let map = dsh_session::load::scan_frames(&mut std::io::Cursor::new(&bytes)).unwrap();
    let &(start, end) = map.complete.last().unwrap();
    assert_eq!((start, end, bytes.len() as u64), (10636, 11226, 11226));
    let cut = (start + end) / 2;
    let path = dir.join("session.jsonl.zstd");
    std::fs::write(&path, &bytes[..cut as usize]).unwrap();
    (path, cut)
}

#[test]
fn a_zstd_frame_cut_inside_a_block_does_not_claim_that_nothing_is_lost() {
    if !common::have_samples() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (_, cut) = torn_inside_a_block(tmp.path());
    assert_eq!(cut, 10931);
    let loss = "0 lines recovered from the torn frame's decodable part; what its last 288 bytes held cannot be counted (they do not decode)";

    let (code, out, _) = run(&["validate", "session.jsonl.zstd"], tmp.path());
    assert_eq!(code, 0);
    assert_eq!(
        out,
        format!(
            "session.jsonl.zstd: torn-tail Z3 at line 24: file ends inside the zstd frame at byte offset 10636; the frame's complete lines are kept\n  a repair cuts 295 bytes at offset 10636: {loss}; 101 events before it are kept\n  note: the final turn is still open: DSH will close it on load (`dsh-session repair` writes the same closers now)\n0 valid, 1 torn-tail, 0 corrupt, 0 refused\n"
        )
    );

    let (code, out, _) = run(
        &["validate", "--format", "jsonl", "session.jsonl.zstd"],
        tmp.path(),
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["events"], 101);
    let t = &v["torn_tail"];
    assert_eq!(
        (&t["rule"], &t["offset"], &t["bytes"], &t["line"]),
        (&"Z3".into(), &10636.into(), &295.into(), &24.into()),
        "{t}"
    );
    // Unknown, not 0: the undecodable bytes held lines 24-37 (14 events).
    assert!(t["lines"].is_null(), "{t}");
    assert!(t["events"].is_null(), "{t}");
    assert_eq!(t["recovered_lines"], 0, "{t}");
    assert_eq!(t["undecodable_bytes"], 288, "{t}");

    let (code, out, _) = run(&["repair", "--dry-run", "session.jsonl.zstd"], tmp.path());
    assert_eq!(code, 0);
    assert_eq!(
        lines_with(&out, "session.jsonl.zstd: would cut"),
        [format!(
            "session.jsonl.zstd: would cut 295 bytes at offset 10636 (Z3: from line 24; {loss})"
        )]
    );
    let (code, out, _) = run(
        &[
            "repair",
            "--dry-run",
            "--format",
            "json",
            "session.jsonl.zstd",
        ],
        tmp.path(),
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["cut"]["lines"].is_null(), "{v}");
    assert!(v["cut"]["events"].is_null(), "{v}");
    assert_eq!(v["cut"]["undecodable_bytes"], 288, "{v}");

    let (code, _, err) = run(&["messages", "session.jsonl.zstd"], tmp.path());
    assert_eq!(code, 0);
    assert_eq!(
        err,
        format!(
            "dsh-session: session.jsonl.zstd: warning: torn tail (Z3) from line 24: the 295 bytes after byte offset 10636 are left out; {loss}\n"
        )
    );
}

#[test]
fn an_empty_db_file_is_a_pristine_store_with_no_sessions() {
    // SQLite opens a 0-byte file as an empty database: a pristine store (§8), not a
    // header-less JSONL log (J1) nor "not a SQLite store".
    let tmp = tempfile::tempdir().unwrap();
    for name in ["x.db", "y.sqlite", "z.sqlite3"] {
        std::fs::write(tmp.path().join(name), b"").unwrap();
        let (code, out, err) = run(&["validate", name], tmp.path());
        assert_eq!(code, 0, "{name}: {err}");
        assert_eq!(
            out, "0 valid, 0 torn-tail, 0 corrupt, 0 refused\n",
            "{name}"
        );
        assert_eq!(
            err,
            format!("dsh-session: {name}: store holds no sessions\n")
        );
        let (code, out, err) = run(&["sessions", "--format", "json", name], tmp.path());
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (0, "[]\n", ""),
            "{name}"
        );
    }
    let (code, out, err) = run(&["sessions", "x.db"], tmp.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        " session   title   created at   cwd   parent   seed   origin   depth   events   turns   revision   status\n--------- ------- ------------ ----- -------- ------ -------- ------- -------- ------- ---------- --------\n"
    );
    let (code, out, _) = run(&["version", "x.db"], tmp.path());
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "file:           x.db\nuser_version:   0\napplication_id: 0x00000000 (0)\nschema:         none (pristine file)\nera:            head\nstore id:       -\nsessions:       0\n"
    );
    let (code, _, err) = run(&["show", "x.db"], tmp.path());
    assert_eq!(
        (code, err.as_str()),
        (2, "dsh-session: x.db: store holds no sessions\n")
    );
    // A directory walk takes it as a store too, and nothing writes to it.
    let (code, _, err) = run(&["validate", "."], tmp.path());
    assert_eq!(code, 0);
    assert!(
        err.contains("dsh-session: ./x.db: store holds no sessions\n"),
        "{err}"
    );
    assert_eq!(std::fs::read(tmp.path().join("x.db")).unwrap(), b"");
    // Any other empty file is still an empty log.
    std::fs::write(tmp.path().join("x.jsonl"), b"").unwrap();
    assert_eq!(
        common::brief(&common::verdict(&tmp.path().join("x.jsonl"))),
        "corrupt J1 - 1"
    );
}

#[test]
fn sessions_of_a_directory_without_logs_is_a_usage_error_like_validate() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    let message = "dsh-session: empty: no session logs (session.jsonl, session.vN.jsonl, .zstd) or SQLite stores found\n";
    let (code, out, err) = run(&["sessions", "empty"], tmp.path());
    assert_eq!((code, out.as_str(), err.as_str()), (2, "", message));
    let (code, _, err) = run(&["validate", "empty"], tmp.path());
    assert_eq!((code, err.as_str()), (2, message));
}

/// A schema 17 store with the sessions `s-01`, `s-01-b` (the same open turn under a longer
/// id) and `s-compact`.
fn store_with_prefixed_ids(dir: &Path) -> PathBuf {
    let db = dir.join("store.db");
    let conn = common::store::create_store(&db, 17);
    let open = fixture("open-turn-after-tool-call.jsonl");
    let longer = dir.join("s-01-b.jsonl");
    let text = std::fs::read_to_string(&open).unwrap();
    assert_eq!(text.matches("\"id\":\"s-01\"").count(), 1);
    std::fs::write(
        &longer,
        text.replace("\"id\":\"s-01\"", "\"id\":\"s-01-b\""),
    )
    .unwrap();
    for log in [open, longer, fixture("compaction-and-prune.jsonl")] {
        common::store::add_session(&conn, 17, &log);
    }
    db
}

#[test]
fn session_takes_a_unique_id_prefix_and_an_exact_id_wins() {
    let tmp = tempfile::tempdir().unwrap();
    store_with_prefixed_ids(tmp.path());
    let dir = tmp.path();
    // A unique prefix names its session everywhere --session is read.
    let (code, out, _) = run(
        &[
            "validate",
            "--format",
            "jsonl",
            "--session",
            "s-c",
            "store.db",
        ],
        dir,
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&v["session"], &v["status"]),
        (&"s-compact".into(), &"valid".into())
    );
    let (code, out, _) = run(
        &["repair", "--dry-run", "--session", "s-01-", "store.db"],
        dir,
    );
    assert_eq!(code, 0);
    assert!(
        out.starts_with("store.db [session s-01-b]: would append 3 closer records:\n"),
        "{out}"
    );
    // The exact id wins over the longer id it is a prefix of.
    let (code, out, _) = run(&["version", "--session", "s-01", "store.db"], dir);
    assert_eq!(code, 0);
    assert_eq!(lines_with(&out, "  "), ["  s-01  format v0 (supported)"]);
    let (code, out, _) = run(
        &["show", "--format", "json", "--session", "s-01", "store.db"],
        dir,
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["session"], "s-01", "{v}");
}

#[test]
fn an_ambiguous_or_unmatched_session_prefix_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    store_with_prefixed_ids(tmp.path());
    let dir = tmp.path();
    let ambiguous =
        "session \"s-0\" is ambiguous: it starts 2 ids: s-01, s-01-b; give more of the id";
    for cmd in ["show", "messages", "surface", "replacements", "repair"] {
        let (code, out, err) = run(&[cmd, "--session", "s-0", "store.db"], dir);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (
                2,
                "",
                format!("dsh-session: store.db: {ambiguous}\n").as_str()
            ),
            "{cmd}"
        );
    }
    let (code, _, err) = run(&["version", "--session", "s-0", "store.db"], dir);
    assert_eq!(
        (code, err.as_str()),
        (2, format!("dsh-session: store.db: {ambiguous}\n").as_str())
    );
    let (code, out, err) = run(&["validate", "--session", "s-0", "store.db"], dir);
    assert_eq!(code, 2);
    assert_eq!(
        out,
        "0 valid, 0 torn-tail, 0 corrupt, 0 refused, 1 unreadable\n"
    );
    assert_eq!(err, format!("dsh-session: store.db: {ambiguous}\n"));
    let (code, _, err) = run(&["messages", "--session", "x", "store.db"], dir);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "dsh-session: store.db: store has no session \"x\" and no id starts with it; it holds: s-01, s-01-b, s-compact\n"
        )
    );
}

#[test]
fn verbose_errors_keep_the_file_and_the_reason_on_the_first_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&["show", "missing.jsonl"], tmp.path());
    assert_eq!(
        (code, err.as_str()),
        (2, "dsh-session: missing.jsonl: no such file or directory\n")
    );
    let (code, _, err) = run(&["-v", "show", "missing.jsonl"], tmp.path());
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "dsh-session: missing.jsonl: no such file or directory\n  cause 1: no such file or directory\n"
        )
    );
    // A store error has the same shape: `<file>: <what>`, then its cause.
    std::fs::write(tmp.path().join("x.db"), b"").unwrap();
    let (code, _, err) = run(&["-v", "messages", "--session", "x", "x.db"], tmp.path());
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "dsh-session: x.db: store has no session \"x\": it holds no sessions\n  cause 1: store has no session \"x\": it holds no sessions\n"
        )
    );
}

/// The README's first command shows a bundled log every DSH release line loads: a
/// newcomer's first look says `valid` whichever DSH they run (0.1.1, 0.1.5 or 0.1.7+).
#[test]
fn the_readme_set_up_shows_a_log_every_dsh_line_loads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let log = readme
        .lines()
        .find_map(|l| l.strip_prefix("cargo run --release -- show "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the set-up's `cargo run --release -- show FILE` line");
    for judge in [
        &[][..],
        &["--dsh", "0.1.1"][..],
        &["--dsh", "0.1.5"][..],
        &["--dsh", "0.1.7"][..],
    ] {
        let mut args = judge.to_vec();
        args.extend(["show", log]);
        let (code, out, err) = run(&args, root);
        assert_eq!((code, err.as_str()), (0, ""), "{judge:?} {log}");
        assert!(out.contains("\nstatus:       valid\n"), "{judge:?}: {out}");
    }
}
