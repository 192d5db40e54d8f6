//! The search index (issue 28): `index`, `search` and `sessions ROOT` on roots built in
//! temporary directories, each test with its own index file (never the user's cache).

mod common;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use common::{dsh, fixture};

/// Runs `dsh-session ARGS --index INDEX`: exit code, standard output, standard error.
fn run(index: &Path, args: &[&str]) -> (i32, String, String) {
    let out = dsh()
        .args(args)
        .arg("--index")
        .arg(index)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

/// Runs `dsh-session ARGS` (a command with no index): exit code, standard output and error.
fn bare(args: &[&str]) -> (i32, String, String) {
    let out = dsh().args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

/// The hits of `search --format jsonl`, and the exit code.
fn search(index: &Path, args: &[&str]) -> (i32, Vec<Value>) {
    let mut all = vec!["search", "--format", "jsonl"];
    all.extend_from_slice(args);
    let (code, out, err) = run(index, &all);
    assert!(code != 2, "search {args:?}: {err}");
    let hits = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    (code, hits)
}

/// `(session, seq, role)` of each hit.
fn places(hits: &[Value]) -> Vec<(String, u64, String)> {
    hits.iter()
        .map(|h| {
            (
                h["session"].as_str().unwrap().to_owned(),
                h["seq"].as_u64().unwrap(),
                h["role"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Writes `text` as `<root>/proj/<name>/session.jsonl` and returns the file.
fn session(root: &Path, name: &str, text: &str) -> PathBuf {
    let dir = root.join("proj").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("session.jsonl");
    std::fs::write(&file, text).unwrap();
    file
}

/// `compaction-and-prune.jsonl` under the session id `id`, with `from` replaced by `to`.
fn compaction_log(id: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(fixture("compaction-and-prune.jsonl")).unwrap();
    assert!(text.contains(from));
    text.replace("\"id\":\"s-compact\"", &format!("\"id\":\"{id}\""))
        .replace(from, to)
}

/// A second turn for `compaction-and-prune.jsonl` whose user message replaces the summary
/// on the surface (seqs 20 and 19) and says `word`.
fn second_turn(word: &str) -> String {
    format!(
        r#"{{"type":"turn/start","seq":24,"time":1760000000200,"data":{{"turn":2}}}}
{{"type":"step/start","seq":25,"time":1760000000201,"data":{{"turn":2,"step":1}}}}
{{"type":"user/message","seq":26,"time":1760000000202,"data":{{"content":[{{"type":"text","text":"Summary again: the {word} appended note."}}],"source":{{"kind":"plugin","plugin":"compaction"}},"role":"user","id":"u-5"}},"sourceEventSeqs":[19,20],"surfaceOp":{{"op":"replace","start":20,"end":19}}}}
{{"type":"step/end","seq":27,"time":1760000000203,"data":{{"turn":2,"step":1}}}}
{{"type":"turn/end","seq":28,"time":1760000000204,"data":{{"turn":2,"reason":{{"kind":"completed"}}}}}}
"#
    )
}

/// The summary `index --format json` prints.
fn index_json(index: &Path, root: &Path) -> Value {
    let (code, out, err) = run(
        index,
        &["index", "--format", "json", root.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("one JSON object")
}

#[test]
fn a_planted_word_is_found_in_exactly_its_session_and_seq() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    session(&root, "a", &compaction_log("s-a", "hello", "hello"));
    // In s-b the summary on the surface (seq 20) and the first user message (seq 2,
    // shadowed by the compaction at seq 15) hold the word.
    let b = compaction_log("s-b", "a.txt says hello", "a.txt says zebracorn42");
    let b = b.replace("list the files", "list the zebracorn42 files");
    session(&root, "b", &b);
    session(&root, "c", &compaction_log("s-c", "hello", "hello"));
    let root_arg = root.to_str().unwrap();
    let (code, hits) = search(&index, &["zebracorn42", root_arg]);
    assert_eq!(code, 0);
    assert_eq!(places(&hits), [("s-b".to_owned(), 20, "user".to_owned())]);
    let hit = &hits[0];
    assert_eq!(hit["turn"], 1);
    assert_eq!(hit["source"], "plugin");
    assert_eq!(hit["shadowed_by"], Value::Null);
    assert_eq!(hit["time"], "2025-10-09T08:53:20.120Z");
    let snippet = hit["snippet"].as_str().unwrap();
    let [start, end] = [0, 1].map(|i| hit["matches"][0][i].as_u64().unwrap() as usize);
    assert_eq!(&snippet[start..end], "zebracorn42");
    let file = root.join("proj/b/session.jsonl").canonicalize().unwrap();
    assert_eq!(hit["file"], file.display().to_string());
    assert_eq!(
        hit["open"],
        format!("dsh-session messages {} --seq 20", file.display())
    );
    // The shadowed message is found only on request, with the replace that shadowed it.
    let (_, hits) = search(&index, &["--include-shadowed", "zebracorn42"]);
    let mut found = places(&hits);
    found.sort();
    assert_eq!(
        found,
        [
            ("s-b".to_owned(), 2, "user".to_owned()),
            ("s-b".to_owned(), 20, "user".to_owned())
        ]
    );
    let shadowed = hits.iter().find(|h| h["seq"] == 2).unwrap();
    assert_eq!(shadowed["shadowed_by"], 15);
    // The text output names the hit and the command that opens it.
    let (code, text, _) = run(&index, &["search", "zebracorn42"]);
    assert_eq!(code, 0);
    assert!(
        text.contains(&format!(
            "seq 20  turn 1  user  2025-10-09 08:53 UTC  {}\n",
            file.display()
        )),
        "{text}"
    );
    assert!(text.contains("  session s-b  (/home/ana/proj)\n"), "{text}");
    assert!(text.contains(&format!("dsh-session messages {} --seq 20", file.display())));
}

#[test]
fn filters_pick_roles_tools_sessions_and_times() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    session(&root, "a", &compaction_log("s-a", "hello", "hello"));
    session(&root, "b", &compaction_log("s-b", "hello", "hello"));
    let root_arg = root.to_str().unwrap();
    // `{"command":"ls"}` and `{"command":"cat a.txt"}` are the arguments of the bash calls
    // at seqs 7 and 12 (compacted at seqs 15 and 20: shadowed); seq 16 is a tool/call
    // event, not a message.
    let (code, _) = search(&index, &["--role", "tool", "command", root_arg]);
    assert_eq!(code, 1, "only shadowed messages hold it");
    let (_, hits) = search(
        &index,
        &[
            "--include-shadowed",
            "--role",
            "tool",
            "--tool",
            "bash",
            "command",
        ],
    );
    let mut found = places(&hits);
    found.sort();
    assert_eq!(
        found,
        [
            ("s-a".to_owned(), 7, "tool".to_owned()),
            ("s-a".to_owned(), 12, "tool".to_owned()),
            ("s-b".to_owned(), 7, "tool".to_owned()),
            ("s-b".to_owned(), 12, "tool".to_owned())
        ]
    );
    assert!(hits.iter().all(|h| h["tool"] == "bash"));
    assert!(
        hits.iter()
            .all(|h| h["shadowed_by"] == if h["seq"] == 7 { 15 } else { 20 })
    );
    let (code, hits) = search(
        &index,
        &[
            "--include-shadowed",
            "--session",
            "s-b",
            "--role",
            "tool",
            "command",
        ],
    );
    assert_eq!(
        (code, places(&hits)),
        (
            0,
            vec![
                ("s-b".to_owned(), 7, "tool".to_owned()),
                ("s-b".to_owned(), 12, "tool".to_owned())
            ]
        )
    );
    // Each of these filters leaves nothing.
    for filter in [
        ["--role", "reasoning"],
        ["--tool", "python"],
        ["--since", "2026-01-01"],
        ["--project", "bob"],
    ] {
        let mut args = vec!["--include-shadowed", "command"];
        args.extend(filter);
        assert_eq!(search(&index, &args).0, 1, "{filter:?}");
    }
    let (code, hits) = search(
        &index,
        &[
            "--include-shadowed",
            "--until",
            "2026-01-01",
            "--project",
            "ana/proj",
            "command",
        ],
    );
    assert_eq!((code, hits.len()), (0, 4));
    // -l: the sessions with hits, one line each.
    let (code, out, _) = run(&index, &["search", "-l", "Two files"]);
    assert_eq!(code, 0);
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    let files: Vec<String> = ["a", "b"]
        .iter()
        .map(|n| {
            root.join("proj")
                .join(n)
                .join("session.jsonl")
                .canonicalize()
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(lines, files);
}

#[test]
fn a_cjk_substring_is_found_in_a_real_v4_log() {
    if !common::have_samples() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    let log = common::samples().join("real/capital-generation.session.v4.jsonl");
    let target = root.join("investment").join("capital");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::copy(&log, target.join("session.v4.jsonl")).unwrap();
    let root_arg = root.to_str().unwrap();
    let id = "session-b34ec611-ab29-4459-9687-cea3088cd560";
    // Inside the first user message: "回顾下最近一段时间指南针的表现，…" (seq 12).
    let (code, hits) = search(
        &index,
        &["--role", "user", "一段时间指南针的表现", root_arg],
    );
    assert_eq!(code, 0);
    assert_eq!(places(&hits), [(id.to_owned(), 12, "user".to_owned())]);
    assert_eq!(hits[0]["title"], "指南针下周操作重点分析");
    // A two-character word (shorter than a trigram) is found as well.
    let (code, hits) = search(&index, &["--role", "user", "--limit", "0", "回顾"]);
    assert_eq!(code, 0);
    assert_eq!(places(&hits), [(id.to_owned(), 12, "user".to_owned())]);
    let snippet = hits[0]["snippet"].as_str().unwrap();
    let [start, end] = [0, 1].map(|i| hits[0]["matches"][0][i].as_u64().unwrap() as usize);
    assert_eq!(&snippet[start..end], "回顾");
}

#[test]
fn no_hit_exits_1_and_a_bad_query_2() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    session(&root, "a", &compaction_log("s-a", "hello", "hello"));
    let (code, out, err) = run(
        &index,
        &["search", "nowhere-in-any-log", root.to_str().unwrap()],
    );
    assert_eq!((code, out.as_str(), err.as_str()), (1, "", ""));
    let (code, _, err) = run(&index, &["search", "files AND"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "dsh-session: the query \"files AND\" cannot be read: `AND` has nothing after it: put a word on each side, or write it in lower case to search for the word (plain words need no quotes; a phrase is \"in double quotes\")\n"
    );
    // An unbalanced quote is the query's own mistake, said in its words (not SQLite's).
    let (code, out, err) = run(&index, &["search", "\"unbalanced"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "dsh-session: the query \"\\\"unbalanced\" cannot be read: the phrase opened by the `\"` at character 1 is never closed: add a closing `\"`, or drop the quote to search for the words (plain words need no quotes; a phrase is \"in double quotes\")\n"
    );
    let (code, _, err) = run(&index, &["search", "x", "/no/such/root"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("/no/such/root: no such file or directory"),
        "{err}"
    );
}

#[test]
fn an_added_session_and_an_appended_log_are_found_without_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    let a = session(&root, "a", &compaction_log("s-a", "hello", "hello"));
    session(&root, "b", &compaction_log("s-b", "hello", "hello"));
    let first = index_json(&index, &root);
    assert_eq!(
        (first["added"].as_u64(), first["files"].as_u64()),
        (Some(2), Some(2))
    );
    // Nothing changed: nothing read.
    let again = index_json(&index, &root);
    assert_eq!(
        (again["unchanged"].as_u64(), again["parts_written"].as_u64()),
        (Some(2), Some(0))
    );
    // A new session and a second turn appended to s-a.
    session(
        &root,
        "c",
        &compaction_log("s-c", "a.txt says hello", "a.txt says wombat9"),
    );
    let mut text = std::fs::read_to_string(&a).unwrap();
    text.push_str(&second_turn("quokka77"));
    std::fs::write(&a, &text).unwrap();
    let (code, hits) = search(&index, &["wombat9"]);
    assert_eq!(
        (code, places(&hits)),
        (0, vec![("s-c".to_owned(), 20, "user".to_owned())])
    );
    let (code, hits) = search(&index, &["quokka77"]);
    assert_eq!(
        (code, places(&hits)),
        (0, vec![("s-a".to_owned(), 26, "user".to_owned())])
    );
    assert_eq!(hits[0]["turn"], 2);
    // The appended replace took the old summary off the surface.
    let (code, _) = search(&index, &["--session", "s-a", "says hello"]);
    assert_eq!(code, 1);
    let (_, hits) = search(
        &index,
        &["--session", "s-a", "--include-shadowed", "says hello"],
    );
    assert_eq!(places(&hits), [("s-a".to_owned(), 20, "user".to_owned())]);
    assert_eq!(hits[0]["shadowed_by"], 26);
    // The session's row took the second turn in: turns, status, last activity.
    let (_, out, _) = run(
        &index,
        &["sessions", "--format", "json", root.to_str().unwrap()],
    );
    let rows: Value = serde_json::from_str(&out).unwrap();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["session"] == "s-a")
        .unwrap();
    assert_eq!(
        (row["turns"].as_u64(), row["events"].as_u64()),
        (Some(2), Some(29))
    );
    // `validate`'s verdict on the whole log: the compaction fixture is one every DSH line
    // loads, and so is its second turn.
    assert_eq!(
        (&row["status"], &row["rule"]),
        (&json!("valid"), &Value::Null)
    );
    assert_eq!(row["last_activity"], "2025-10-09T08:53:20.204Z");
}

#[test]
fn a_grown_log_is_read_from_its_last_indexed_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    let a = session(&root, "a", &compaction_log("s-a", "hello", "hello"));
    index_json(&index, &root);
    let mut text = std::fs::read_to_string(&a).unwrap();
    text.push_str(&second_turn("quokka77"));
    std::fs::write(&a, &text).unwrap();
    let s = index_json(&index, &root);
    // Taken up, not read again: only the new message part was written.
    assert_eq!(
        (s["grown"].as_u64(), s["read_again"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(s["parts_written"], 1);
    // The same rows as an index built from scratch.
    let fresh = dir.path().join("fresh.db");
    let all = |index: &Path| {
        let (_, hits) = search(index, &["--include-shadowed", "--limit", "0", "e"]);
        let mut rows: Vec<String> = hits
            .iter()
            .map(|h| {
                format!(
                    "{} {} {} {} {}",
                    h["seq"], h["turn"], h["role"], h["shadowed_by"], h["tool"]
                )
            })
            .collect();
        rows.sort();
        rows
    };
    index_json(&fresh, &root);
    assert_eq!(all(&index), all(&fresh));
    let (_, sessions_grown, _) = run(
        &index,
        &[
            "sessions",
            "--format",
            "json",
            "--no-update",
            root.to_str().unwrap(),
        ],
    );
    let (_, sessions_fresh, _) = run(
        &fresh,
        &[
            "sessions",
            "--format",
            "json",
            "--no-update",
            root.to_str().unwrap(),
        ],
    );
    assert_eq!(sessions_grown, sessions_fresh);
    // A changed byte inside the indexed part: read again whole, not taken up.
    std::fs::write(
        &a,
        text.replace("Two files.", "Two filez.")
            + &second_turn("x")
                .replace("\"seq\":2", "\"seq\":3")
                .replace("turn\":2", "turn\":3"),
    )
    .unwrap();
    let s = index_json(&index, &root);
    assert_eq!(
        (s["grown"].as_u64(), s["read_again"].as_u64()),
        (Some(0), Some(1))
    );
}

#[test]
fn a_shrunk_log_is_read_again_and_a_removed_one_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    let original = compaction_log("s-a", "hello", "hello");
    let a = session(&root, "a", &(original.clone() + &second_turn("quokka77")));
    let b = session(&root, "b", &compaction_log("s-b", "hello", "hello"));
    let (code, _) = search(&index, &["quokka77", root.to_str().unwrap()]);
    assert_eq!(code, 0);
    std::fs::write(&a, &original).unwrap();
    let (code, _) = search(&index, &["quokka77"]);
    assert_eq!(code, 1);
    let (_, hits) = search(&index, &["--session", "s-a", "says hello"]);
    assert_eq!(places(&hits), [("s-a".to_owned(), 20, "user".to_owned())]);
    std::fs::remove_file(&b).unwrap();
    let s = index_json(&index, &root);
    assert_eq!(s["removed"], 1);
    let (code, _) = search(&index, &["--session", "s-b", "says hello"]);
    assert_eq!(code, 1);
}

#[test]
fn a_damaged_index_is_rebuilt_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    session(
        &root,
        "a",
        &compaction_log("s-a", "a.txt says hello", "a.txt says zebracorn42"),
    );
    let root_arg = root.to_str().unwrap();
    assert_eq!(search(&index, &["zebracorn42", root_arg]).0, 0);
    // A page size of 3 bytes (header bytes 16–17): SQLite refuses the file.
    let mut bytes = std::fs::read(&index).unwrap();
    bytes[16..18].copy_from_slice(&[0, 3]);
    std::fs::write(&index, &bytes).unwrap();
    let (code, out, err) = run(&index, &["search", "zebracorn42", root_arg]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("seq 20"), "{out}");
    assert_eq!(
        err,
        format!(
            "dsh-session: {}: the index is damaged (file is not a database); rebuilding it from the logs\n",
            index.display()
        )
    );
    // A file that is no database at all is kept aside, never deleted.
    std::fs::write(&index, "not an index\n").unwrap();
    let (code, _, err) = run(&index, &["search", "zebracorn42", root_arg]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("moved it to"), "{err}");
    let aside = dir.path().join("index.db.damaged");
    assert_eq!(std::fs::read_to_string(aside).unwrap(), "not an index\n");
    // A SQLite database of something else is refused, untouched.
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    let before = std::fs::read(&other).unwrap();
    let (code, _, err) = run(&other, &["search", "zebracorn42", root_arg]);
    assert_eq!(code, 2);
    assert!(
        err.contains("is a SQLite database but not a dsh-session index"),
        "{err}"
    );
    assert!(
        std::fs::read(&other).unwrap() == before,
        "the database was changed"
    );
}

#[test]
fn two_searches_at_once_on_one_index_both_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    for i in 0..60 {
        let word = if i == 37 { "zebracorn42" } else { "hello" };
        session(
            &root,
            &format!("s{i:02}"),
            &compaction_log(
                &format!("s-{i:02}"),
                "a.txt says hello",
                &format!("a.txt says {word}"),
            ),
        );
    }
    let spawn = || {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("dsh-session"))
            .args(["search", "--format", "jsonl", "--index"])
            .arg(&index)
            .arg("zebracorn42")
            .arg(&root)
            .output()
            .expect("runs")
    };
    // Both update a new index at the same time: one waits for the other's writes.
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(spawn);
        let b = s.spawn(spawn);
        (a.join().unwrap(), b.join().unwrap())
    });
    for out in [&a, &b] {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let hit: Value = serde_json::from_slice(&out.stdout).expect("one hit");
        assert_eq!(
            (hit["session"].as_str(), hit["seq"].as_u64()),
            (Some("s-37"), Some(20))
        );
    }
    // Every session is in the index once.
    let (_, out, _) = run(
        &index,
        &[
            "sessions",
            "--format",
            "jsonl",
            "--no-update",
            root.to_str().unwrap(),
        ],
    );
    assert_eq!(out.lines().count(), 60);
}

/// Two processes that open a new index at once race to create it and switch it to WAL;
/// SQLite answered some steps of that race with `SQLITE_BUSY` at once (no busy timeout),
/// and about one run in twenty of this pair failed with "database is locked".
#[test]
fn two_first_searches_on_a_new_index_both_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    session(&root, "a", &compaction_log("s-a", "hello", "wombat9"));
    let spawn = || {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("dsh-session"))
            .args(["search", "-l", "--index"])
            .arg(&index)
            .arg("wombat9")
            .arg(&root)
            .output()
            .expect("runs")
    };
    for round in 0..20 {
        for file in ["index.db", "index.db-wal", "index.db-shm"] {
            let _ = std::fs::remove_file(dir.path().join(file));
        }
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(spawn);
            let b = s.spawn(spawn);
            (a.join().unwrap(), b.join().unwrap())
        });
        for out in [&a, &b] {
            assert_eq!(
                out.status.code(),
                Some(0),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn sessions_of_a_root_are_listed_from_the_index_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    session(&root, "old", &compaction_log("s-old", "hello", "hello"));
    let newer = compaction_log("s-new", "hello", "hello").replace("17600000001", "17700000001");
    session(&root, "new", &newer);
    session(&root, "broken", "{\"type\":\"session\"\n");
    let (code, out, err) = run(
        &index,
        &["sessions", "--format", "csv", root.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("schema_version,session,title,created_at,cwd,"),
        "{out}"
    );
    assert!(lines[1].starts_with("2,s-new,"), "{out}");
    assert!(lines[2].starts_with("2,s-old,"), "{out}");
    assert!(lines[3].starts_with("2,,"), "{out}");
    assert!(lines[3].contains(",corrupt,"), "{out}");
    let (_, out, _) = run(
        &index,
        &["sessions", "--format", "json", root.to_str().unwrap()],
    );
    let rows: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rows[0]["model"], "deepseek/deepseek-chat");
    assert_eq!(rows[0]["turns"], 1);
    assert_eq!(rows[0]["tool_calls"], 2);
    assert_eq!(rows[0]["size"], newer.len());
    assert_eq!(rows[2]["rule"], "H2");
}

#[test]
fn the_library_answers_in_process() {
    use dsh_session::index::{Index, Query, SessionFilter, UpdateOptions};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let file = session(
        &root,
        "a",
        &(compaction_log("s-a", "hello", "hello") + &second_turn("quokka77")),
    );
    let (mut index, notes) = Index::open(&dir.path().join("index.db")).unwrap();
    assert!(notes.is_empty());
    let seen = std::cell::Cell::new(0);
    let progress = |p: dsh_session::index::Progress| {
        assert!(p.files_done <= p.files && p.bytes_done <= p.bytes);
        seen.set(seen.get() + 1);
    };
    let summary = index
        .update(
            std::slice::from_ref(&root),
            &UpdateOptions {
                progress: Some(&progress),
            },
        )
        .unwrap();
    assert_eq!((summary.added, summary.files), (1, 1));
    assert!(seen.get() >= 1);
    let sessions = index.sessions(&SessionFilter::default()).unwrap();
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(
        (s.session.id.as_str(), s.turns, s.events, s.tool_calls),
        ("s-a", 2, 29, 2)
    );
    assert_eq!((s.tokens.input, s.tokens.output), (1850, 25));
    let hits = index
        .search(&Query {
            text: "quokka77".into(),
            ..Query::default()
        })
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].part.seq, hits[0].part.turn), (26, Some(2)));
    // The derived history in surface order: only seq 26 is on the surface at the end; with
    // the shadowed messages, each stands where it stood (the replace at 15 where seq 2 was,
    // 20 where 15 was, 26 where 20 was).
    let file = file.canonicalize().unwrap();
    let now = index.messages(&file, "s-a", 0..=u64::MAX, false).unwrap();
    assert_eq!(now.iter().map(|m| m.part.seq).collect::<Vec<_>>(), [26]);
    assert_eq!(now[0].text, "Summary again: the quokka77 appended note.");
    let all = index.messages(&file, "s-a", 0..=u64::MAX, true).unwrap();
    let order: Vec<(u64, i64, &str)> = all
        .iter()
        .map(|m| (m.part.seq, m.part.pos, m.part.kind.name()))
        .collect();
    assert_eq!(
        order,
        [
            (2, 2, "user"),
            (15, 2, "user"),
            (20, 2, "user"),
            (26, 2, "user"),
            (7, 7, "assistant"),
            (7, 7, "tool"),
            (9, 9, "tool"),
            (12, 12, "assistant"),
            (12, 12, "tool"),
            (17, 17, "tool"),
            (19, 17, "tool"),
        ]
    );
    let some = index.messages(&file, "s-a", 9..=12, true).unwrap();
    assert_eq!(
        some.iter().map(|m| m.part.seq).collect::<Vec<_>>(),
        [9, 12, 12]
    );
    assert_eq!(some[0].part.tool.as_deref(), Some("bash"));
}

#[test]
fn a_search_with_no_path_updates_the_roots_indexed_before() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    let (code, _, err) = run(&index, &["search", "anything"]);
    assert_eq!(code, 2);
    assert!(err.contains("nothing indexed yet"), "{err}");
    session(
        &root,
        "a",
        &compaction_log("s-a", "a.txt says hello", "a.txt says wombat9"),
    );
    index_json(&index, &root);
    // A session added under the root later is found by a search that names no path.
    session(
        &root,
        "b",
        &compaction_log("s-b", "a.txt says hello", "a.txt says wombat9"),
    );
    let (code, hits) = search(&index, &["wombat9"]);
    let mut sessions: Vec<String> = places(&hits).into_iter().map(|p| p.0).collect();
    sessions.sort();
    assert_eq!(
        (code, sessions),
        (0, vec!["s-a".to_owned(), "s-b".to_owned()])
    );
    // A root gone from disk is dropped with everything under it.
    std::fs::remove_dir_all(&root).unwrap();
    let (code, _) = search(&index, &["wombat9"]);
    assert_eq!(code, 1);
    let (code, _, err) = run(&index, &["index"]);
    assert_eq!(code, 2);
    assert!(err.contains("nothing indexed yet"), "{err}");
}

#[test]
fn a_frozen_predecessor_is_dropped_and_a_named_log_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    let session_dir = root.join("proj").join("s");
    std::fs::create_dir_all(&session_dir).unwrap();
    let generation = |n: u32| fixture(&format!("generations/v{n}/session.v{n}.jsonl"));
    std::fs::copy(generation(3), session_dir.join("session.v3.jsonl")).unwrap();
    let loose = root.join("loose.jsonl");
    std::fs::write(
        &loose,
        compaction_log("s-loose", "a.txt says hello", "a.txt says wombat9"),
    )
    .unwrap();
    // The log under another name is indexed when named, and stays when the root is walked.
    index_json(&index, &loose);
    index_json(&index, &root);
    let (code, hits) = search(&index, &["wombat9"]);
    assert_eq!(
        (code, places(&hits)),
        (0, vec![("s-loose".to_owned(), 20, "user".to_owned())])
    );
    // The session moves to v4: its v3 file is a frozen predecessor, no longer indexed.
    std::fs::copy(generation(4), session_dir.join("session.v4.jsonl")).unwrap();
    let s = index_json(&index, &root);
    assert_eq!(
        (s["added"].as_u64(), s["removed"].as_u64()),
        (Some(1), Some(1))
    );
    let (_, out, _) = run(
        &index,
        &[
            "sessions",
            "--format",
            "jsonl",
            "--no-update",
            root.to_str().unwrap(),
        ],
    );
    let ids: Vec<String> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["session"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    // s-v3 is gone; the named log is listed too, being under the root.
    assert_eq!(ids, ["s-demo4", "s-loose"]);
}

#[test]
fn index_check_finds_damaged_pages_and_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    for i in 0..30 {
        session(
            &root,
            &format!("s{i}"),
            &compaction_log(&format!("s-{i}"), "hello", "hello"),
        );
    }
    index_json(&index, &root);
    let (code, _, err) = run(&index, &["index", "--check", "-q"]);
    assert_eq!((code, err.as_str()), (0, ""), "a sound index passes");
    // Every page after the first two overwritten: the schema is intact, the tables not.
    let mut bytes = std::fs::read(&index).unwrap();
    let page = 4096;
    assert!(bytes.len() > 4 * page);
    for b in &mut bytes[2 * page..] {
        *b = 0x5A;
    }
    std::fs::write(&index, &bytes).unwrap();
    let (code, _, err) = run(&index, &["index", "--check", "-q", root.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("rebuilding it from the logs"), "{err}");
    let (code, hits) = search(&index, &["--session", "s-7", "says hello"]);
    assert_eq!(
        (code, places(&hits)),
        (0, vec![("s-7".to_owned(), 20, "user".to_owned())])
    );
}

/// `validate`'s verdict (status, rule) of each file under `root`, judged as `--dsh dsh`.
fn verdicts(dsh_line: &str, root: &Path) -> Vec<(String, Value, Value)> {
    let out = dsh()
        .args(["--dsh", dsh_line, "validate", "--format", "json"])
        .arg(root)
        .output()
        .expect("runs");
    let all: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut rows: Vec<(String, Value, Value)> = all
        .as_array()
        .expect("an array")
        .iter()
        .map(|r| {
            let file = std::fs::canonicalize(r["file"].as_str().unwrap()).unwrap();
            (
                file.display().to_string(),
                r["status"].clone(),
                r["rule"].clone(),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

/// The index holds `validate`'s verdict under the DSH line `--dsh` chose: a log the frozen
/// edges refuse is `refused` (rule F2) under DSH 0.1.5 and later, and valid under DSH 0.1.1
/// (the index reads every file again when the line changes, and again when it changes
/// back); another harness's log is `foreign` under both. Both show in `sessions` and in
/// `search` hits (JSON), and a refused log's words are found.
#[test]
fn refused_and_foreign_logs_keep_their_verdict_under_both_judges() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    // The compaction's start with a member the frozen v0→v1 edge does not admit.
    let refused = compaction_log("s-a", "hello", "platypus31").replace(
        "\"data\":{\"compactionId\":\"cmp-1\",\"turn\":1}}",
        "\"data\":{\"compactionId\":\"cmp-1\",\"turn\":1,\"reason\":\"threshold\"}}",
    );
    assert!(refused.contains("\"reason\":\"threshold\""));
    session(&root, "a", &refused);
    let foreign = std::fs::read_to_string(fixture("foreign/claude-code-session.jsonl")).unwrap();
    session(&root, "b", &foreign);
    let root_arg = root.to_str().unwrap();
    for (line, status_a, rule_a, read_again) in [
        ("0.1.5", "refused", json!("F2"), 0),
        ("0.1.1", "valid", Value::Null, 2),
        ("0.1.5", "refused", json!("F2"), 2),
    ] {
        let (code, out, err) = run(
            &index,
            &["--dsh", line, "index", "--format", "json", root_arg],
        );
        assert_eq!(code, 0, "{err}");
        let s: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(s["read_again"], read_again, "--dsh {line}: {s}");
        let (code, out, err) = run(
            &index,
            &["--dsh", line, "sessions", "--format", "json", root_arg],
        );
        assert_eq!(code, 0, "{err}");
        let rows: Value = serde_json::from_str(&out).unwrap();
        let mut listed: Vec<(String, Value, Value)> = rows
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["file"].as_str().unwrap().to_owned(),
                    r["status"].clone(),
                    r["rule"].clone(),
                )
            })
            .collect();
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(listed, verdicts(line, &root), "--dsh {line}");
        let a = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["session"] == "s-a")
            .unwrap();
        assert_eq!(
            (a["status"].as_str(), &a["rule"]),
            (Some(status_a), &rule_a)
        );
        let b = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["file"].as_str().unwrap().contains("/b/"))
            .unwrap();
        assert_eq!(
            (&b["status"], &b["session"]),
            (&json!("foreign"), &Value::Null)
        );
        // A refused log is still searched, and its hits say its verdict.
        let (code, out, err) = run(
            &index,
            &[
                "--dsh",
                line,
                "search",
                "--format",
                "jsonl",
                "platypus31",
                root_arg,
            ],
        );
        assert_eq!(code, 0, "{err}");
        let hit: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(
            (
                hit["session"].as_str(),
                hit["status"].as_str(),
                &hit["rule"]
            ),
            (Some("s-a"), Some(status_a), &rule_a)
        );
        let (_, out, _) = run(
            &index,
            &[
                "--dsh",
                line,
                "search",
                "-l",
                "--format",
                "json",
                "platypus31",
                root_arg,
            ],
        );
        let sessions: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(sessions[0]["status"].as_str(), Some(status_a));
    }
}

/// The real samples copied under their own names into `dir` (one of them a level down,
/// as logs gathered from two machines), beside a `.jsonl` that is not DSH's.
/// A new folder holding the real samples under their own names (`None` where the samples
/// are missing): the folder (removed when dropped), its `logs` and an index path beside.
fn real_logs_folder() -> Option<(tempfile::TempDir, PathBuf, PathBuf)> {
    if !common::have_samples() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let (logs, index) = (dir.path().join("logs"), dir.path().join("index.db"));
    real_logs_under_their_own_names(&logs);
    Some((dir, logs, index))
}

fn real_logs_under_their_own_names(dir: &Path) {
    let real = common::samples().join("real");
    std::fs::create_dir_all(dir.join("machine-b")).unwrap();
    for (name, to) in [
        ("capital-generation.session.v4.jsonl", ""),
        ("dumen.prefix.session.v3.jsonl", ""),
        ("tolik-benchmark.prefix.session.v4.jsonl", "machine-b"),
    ] {
        std::fs::copy(real.join(name), dir.join(to).join(name)).unwrap();
    }
    std::fs::write(dir.join("notes.jsonl"), "{\"note\":\"not a session\"}\n").unwrap();
}

#[test]
fn a_folder_of_real_logs_under_their_own_names_is_walked_by_every_command() {
    let Some((_dir, logs, index)) = real_logs_folder() else {
        return;
    };
    let l = logs.to_str().unwrap();
    let note = |_command: &str| {
        format!(
            "dsh-session: {l}: 1 file not DSH (ending in .jsonl or .jsonl.zstd, no DSH session header on the first line): not read; name one to read it anyway\n"
        )
    };
    let (code, out, err) = bare(&["validate", l]);
    assert_eq!((code, err), (0, note("validate")));
    assert_eq!(
        out.lines().last(),
        Some("3 valid, 0 torn-tail, 0 corrupt, 0 refused")
    );
    let (code, out, err) = bare(&["stats", "--by", "session", "--format", "json", l]);
    assert_eq!((code, err), (0, note("stats")));
    let stats: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&stats["total"]["sessions"], &stats["total"]["turns"]),
        (&json!(3), &json!(13)),
        "{out}"
    );
    let (code, out, err) = run(&index, &["index", "--format", "json", l]);
    assert_eq!((code, err), (0, note("index")));
    let s: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (s["files"].as_u64(), s["added"].as_u64()),
        (Some(3), Some(3))
    );
    let (code, out, err) = run(&index, &["sessions", "--format", "jsonl", l]);
    assert_eq!((code, err), (0, note("sessions")));
    let mut ids: Vec<String> = out
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["session"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            "session-4aebf00d-30c2-4810-852e-cf4205306939",
            "session-904b047f-eb01-493f-b98a-391ecfae5b66",
            "session-b34ec611-ab29-4459-9687-cea3088cd560",
        ]
    );
    // One loose log is listed as a root of one.
    let dumen = format!("{l}/dumen.prefix.session.v3.jsonl");
    let (code, out, _) = run(&index, &["sessions", "--format", "jsonl", &dumen]);
    assert_eq!(code, 0);
    let row: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        row["session"],
        "session-904b047f-eb01-493f-b98a-391ecfae5b66"
    );
    let (code, out, err) = run(&index, &["search", "-l", "TOLIK_Harness", l]);
    assert_eq!((code, err), (0, note("search")));
    assert_eq!(
        out,
        format!("{l}/machine-b/tolik-benchmark.prefix.session.v4.jsonl\n")
    );
}

#[test]
fn with_no_path_every_walking_command_reads_the_default_root() {
    if !common::have_samples() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let root = home.join(".dsh/sessions");
    real_logs_under_their_own_names(&root);
    let index = dir.path().join("index.db");
    let with_home = |args: &[&str]| {
        let mut cmd = dsh();
        cmd.env("HOME", &home).args(args);
        if args[0] != "validate" {
            cmd.arg("--index").arg(&index);
        }
        let out = cmd.output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
        )
    };
    let (code, out) = with_home(&["validate"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().last(),
        Some("3 valid, 0 torn-tail, 0 corrupt, 0 refused")
    );
    let (code, out) = with_home(&["search", "-l", "77-Dumen"]);
    assert_eq!(code, 0, "{out}");
    let file = root
        .canonicalize()
        .unwrap()
        .join("dumen.prefix.session.v3.jsonl");
    assert_eq!(out, format!("{}\n", file.display()));
    let (code, out) = with_home(&["sessions", "--format", "jsonl"]);
    assert_eq!((code, out.lines().count()), (0, 3));
    // An empty home: a usage error that says what to name.
    let (code, _, err) = bare(&["stats"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "dsh-session: no path given and no ~/.dsh/sessions (DSH's default root): name the JSONL roots, logs or stores to read (`dsh-session stats ~/.dsh/sessions`)\n"
    );
}

#[test]
fn a_title_a_project_and_a_tool_name_are_found_and_ranked() {
    let Some((dir, logs, index)) = real_logs_folder() else {
        return;
    };
    let l = logs.to_str().unwrap();
    let file = format!("{l}/capital-generation.session.v4.jsonl");
    // The title of the real log: found, and first, as the session's own words.
    let (code, hits) = search(&index, &["指南针下周操作重点分析", l]);
    assert_eq!(code, 0);
    let first = &hits[0];
    assert_eq!(
        (
            &first["field"],
            &first["session"],
            &first["seq"],
            &first["open"]
        ),
        (
            &json!("title"),
            &json!("session-b34ec611-ab29-4459-9687-cea3088cd560"),
            &Value::Null,
            &json!(format!("dsh-session show {file}"))
        )
    );
    assert_eq!(first["snippet"], "指南针下周操作重点分析");
    // The project path: found as the session's project, beside the messages naming it.
    let (code, hits) = search(&index, &["--limit", "0", "01_unicorn", l]);
    assert_eq!(code, 0);
    let projects: Vec<(&Value, &Value)> = hits
        .iter()
        .filter(|h| h["field"] == "project")
        .map(|h| (&h["session"], &h["open"]))
        .collect();
    let dumen = format!("dsh-session show {l}/dumen.prefix.session.v3.jsonl");
    assert_eq!(
        projects,
        [(
            &json!("session-904b047f-eb01-493f-b98a-391ecfae5b66"),
            &json!(dumen)
        )]
    );
    // A tool's name finds its calls and results, though their text does not hold it.
    let root = dir.path().join("root");
    session(&root, "a", &compaction_log("s-a", "hello", "hello"));
    let (code, hits) = search(
        &index,
        &[
            "--role",
            "tool",
            "--include-shadowed",
            "bash",
            root.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0);
    let mut found = places(&hits);
    found.sort();
    assert_eq!(
        found,
        [
            ("s-a".to_owned(), 7, "tool".to_owned()),
            ("s-a".to_owned(), 9, "tool".to_owned()),
            ("s-a".to_owned(), 12, "tool".to_owned()),
            ("s-a".to_owned(), 17, "tool".to_owned()),
            ("s-a".to_owned(), 19, "tool".to_owned()),
        ]
    );
}

#[test]
fn a_run_of_assistant_hits_is_one_and_a_subagent_ranks_below_its_parent() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    let log = compaction_log("s-parent", "Let me look.", "Let me look for zorb.")
        .replace("Two files.", "Two zorb files.");
    session(&root, "a", &log);
    // The same words in a subagent's session written after the parent's (newer: it would
    // come first among equals).
    std::thread::sleep(std::time::Duration::from_millis(20));
    let child = log
        .replace("\"id\":\"s-parent\"", "\"id\":\"s-child\"")
        .replace(
            "\"delegationDepth\":0",
            "\"parentSession\":\"s-parent\",\"origin\":\"subagent\",\"delegationDepth\":1",
        );
    session(&root, "b", &child);
    let (code, hits) = search(
        &index,
        &["--include-shadowed", "zorb", root.to_str().unwrap()],
    );
    assert_eq!(code, 0);
    let shape: Vec<(String, Value, Value, Value)> = hits
        .iter()
        .map(|h| {
            (
                h["session"].as_str().unwrap().to_owned(),
                h["seq"].clone(),
                h["grouped"].clone(),
                h["lineage"].clone(),
            )
        })
        .collect();
    // Seqs 7 and 12, the assistant's two messages of turn 1, are one hit in each session;
    // the subagent's comes after its parent's.
    assert_eq!(
        shape,
        [
            ("s-parent".to_owned(), json!(12), json!([7]), Value::Null),
            (
                "s-child".to_owned(),
                json!(12),
                json!([7]),
                json!("subagent")
            ),
        ]
    );
}

#[test]
fn a_hit_opens_exactly_its_message() {
    let dir = tempfile::tempdir().unwrap();
    let (root, index) = (dir.path().join("root"), dir.path().join("index.db"));
    let file = session(
        &root,
        "a",
        &compaction_log("s-a", "a.txt says hello", "a.txt says wombat9"),
    );
    let (_, hits) = search(&index, &["wombat9", root.to_str().unwrap()]);
    let open = hits[0]["open"].as_str().unwrap().to_owned();
    let f = file.canonicalize().unwrap();
    assert_eq!(
        open,
        format!("dsh-session messages {} --seq 20", f.display())
    );
    let args: Vec<&str> = open.split(' ').skip(1).collect();
    let (code, out, err) = bare(&args);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "{\"content\":[{\"type\":\"text\",\"text\":\"Summary: two files; a.txt says wombat9.\"}],\"source\":{\"kind\":\"plugin\",\"plugin\":\"compaction\"},\"role\":\"user\",\"id\":\"u-3\"}\n"
    );
    // A shadowed message too, and `show` says where it stands.
    let (code, out, _) = bare(&["show", f.to_str().unwrap(), "--seq", "7"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().next(),
        Some("seq 7  assistant/message  assistant  shadowed by a replace")
    );
    // A seq that derives no message is a usage error naming it.
    let (code, _, err) = bare(&["messages", f.to_str().unwrap(), "--seq", "8"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "dsh-session: {}: seq 8 derives no message (the log's events are seqs 0 to 23; `dsh-session surface {} --all` lists those that do)\n",
            f.display(),
            f.display()
        )
    );
}

#[test]
fn search_and_sessions_fit_80_columns() {
    if !common::have_samples() || !common::have_script() {
        return;
    }
    use unicode_width::UnicodeWidthStr;
    let dir = tempfile::tempdir().unwrap();
    let (logs, index) = (dir.path().join("logs"), dir.path().join("index.db"));
    real_logs_under_their_own_names(&logs);
    let l = logs.to_str().unwrap();
    let i = index.to_str().unwrap();
    // Colour on a terminal: its escapes take no columns.
    let plain = |text: String| {
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find('\u{1b}') {
            out.push_str(&rest[..at]);
            let after = &rest[at..];
            rest = after.find('m').map_or("", |m| &after[m + 1..]);
        }
        out.push_str(rest);
        out
    };
    let shown = plain(common::on_a_terminal(
        80,
        &format!("search 指南针 {l} --limit 3 --index {i}"),
    ));
    let lines: Vec<&str> = shown.lines().collect();
    assert!(lines.len() >= 5, "{shown}");
    for line in &lines {
        // Every line fits but the command to copy, which stays whole (and the notes on
        // standard error, prose the terminal wraps).
        if !line.starts_with("  dsh-session ") && !line.starts_with("dsh-session: ") {
            assert!(
                line.width() <= 80,
                "{} columns: {line}\n{shown}",
                line.width()
            );
        }
    }
    assert!(
        lines
            .iter()
            .any(|l| l.contains("指南针") && l.contains('…')),
        "{shown}"
    );
    let shown = plain(common::on_a_terminal(
        80,
        &format!("sessions {l} --index {i}"),
    ));
    let lines: Vec<&str> = shown.lines().collect();
    let lines: Vec<&str> = lines
        .into_iter()
        .filter(|l| !l.starts_with("dsh-session: "))
        .collect();
    assert!(lines[0].starts_with(" session "), "{shown}");
    assert!(
        lines[0].contains(" title ") && lines[0].contains(" project"),
        "{shown}"
    );
    for line in lines
        .iter()
        .filter(|l| !l.starts_with("dsh-session: "))
        .take_while(|l| !l.is_empty())
    {
        assert!(
            line.width() <= 80,
            "{} columns: {line}\n{shown}",
            line.width()
        );
    }
}

/// The walk of a root is kept in the index and used while no directory in it changed (and
/// no file judged by its first line); a change anywhere walks again, and a walk of
/// something changed less than two seconds before is not kept (a file system's clock ticks
/// coarsely). In process, to read `walks_kept`.
#[test]
fn a_kept_walk_holds_until_a_directory_or_a_judged_file_changes() {
    use dsh_session::index::{Index, UpdateOptions, UpdateSummary};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    session(&root, "a", &compaction_log("s-a", "hello", "hello"));
    let mine = root.join("mine.jsonl");
    std::fs::write(&mine, "{\"not\": \"a header\"}\n").unwrap();
    let (mut index, _) = Index::open(&dir.path().join("index.db")).unwrap();
    let mut update = || -> UpdateSummary {
        index
            .update(std::slice::from_ref(&root), &UpdateOptions::default())
            .unwrap()
    };
    let counts = |s: &UpdateSummary| (s.walks_kept, s.files, s.added, s.unchanged, s.grown);
    // Just written: walked, not kept (the directories changed less than 2 s ago).
    assert_eq!(counts(&update()), (0, 1, 1, 0, 0));
    assert_eq!(counts(&update()), (0, 1, 0, 1, 0));
    std::thread::sleep(std::time::Duration::from_millis(2100));
    // Old enough now: walked once more and kept, then used.
    let first = update();
    assert_eq!(counts(&first), (0, 1, 0, 1, 0));
    let again = update();
    assert_eq!(counts(&again), (1, 1, 0, 1, 0));
    assert_eq!(again.passed_over, first.passed_over);
    assert_eq!(
        again.passed_over,
        [format!(
            "{}: 1 file not DSH (ending in .jsonl or .jsonl.zstd, no DSH session header on the first line): not read; name one to read it anyway",
            root.canonicalize().unwrap().display()
        )]
    );
    // A log that grew changes no directory: the kept walk holds and the log is taken up.
    let log = root.join("proj/a/session.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(&second_turn("wombat31"));
    std::fs::write(&log, &text).unwrap();
    assert_eq!(counts(&update()), (1, 1, 0, 0, 1));
    // A file judged by its first line that becomes a DSH log, written in place: no
    // directory changed, but its stamp did, so the root is walked again and it is found.
    std::fs::write(&mine, compaction_log("s-mine", "hello", "hello")).unwrap();
    let s = update();
    assert_eq!(counts(&s), (0, 2, 1, 1, 0));
    assert!(s.passed_over.is_empty(), "{:?}", s.passed_over);
    // A new session directory two levels down changes its project's directory.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert_eq!(counts(&update()), (0, 2, 0, 2, 0));
    assert_eq!(counts(&update()), (1, 2, 0, 2, 0));
    session(&root, "b", &compaction_log("s-b", "hello", "hello"));
    assert_eq!(counts(&update()), (0, 3, 1, 2, 0));
    // A log removed from a session directory changes that directory.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    update();
    assert_eq!(counts(&update()), (1, 3, 0, 3, 0));
    std::fs::remove_file(root.join("proj/b/session.jsonl")).unwrap();
    let s = update();
    assert_eq!((s.walks_kept, s.files, s.removed), (0, 2, 1));
}

/// Issue 39, item 5: a search asks its query while the update stats the file system
/// (`Index::update_with`), on the index as it was; the update says whether it wrote, and
/// only then is the answer stale (the `search` command asks again).
#[test]
fn a_query_asked_during_the_update_sees_the_index_before_it_and_wrote_says_when_it_is_stale() {
    use dsh_session::index::{Index, Query, UpdateOptions};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let log = session(&root, "a", &compaction_log("s-a", "hello", "hello"));
    let (mut index, _) = Index::open(&dir.path().join("index.db")).unwrap();
    let seqs = |index: &Index, word: &str| -> Vec<u64> {
        let query = Query {
            text: word.to_owned(),
            ..Query::default()
        };
        index
            .search(&query)
            .unwrap()
            .iter()
            .map(|h| h.part.seq)
            .collect()
    };
    let roots = [root.clone()];
    let options = UpdateOptions::default();
    // Nothing indexed yet: asked meanwhile, nothing is found; the update wrote.
    let (s, during) = index
        .update_with(&roots, &options, |i| seqs(i, "hello"))
        .unwrap();
    assert_eq!((s.wrote(), s.added, during), (true, 1, vec![]));
    let after = seqs(&index, "hello");
    assert_eq!(after, [20]);
    // Nothing changed: nothing written, and the answer asked meanwhile is the answer.
    let (s, during) = index
        .update_with(&roots, &options, |i| seqs(i, "hello"))
        .unwrap();
    assert_eq!((s.wrote(), s.unchanged, during), (false, 1, after));
    // The log grew: the new word is not found meanwhile, and the update says it wrote.
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(&second_turn("wombat31"));
    std::fs::write(&log, &text).unwrap();
    let (s, during) = index
        .update_with(&roots, &options, |i| seqs(i, "wombat31"))
        .unwrap();
    assert_eq!((s.wrote(), s.grown, during), (true, 1, vec![]));
    assert_eq!(seqs(&index, "wombat31"), [26]);
}

/// Issue 39, item 5: the index of the real logs takes at most 0.5 MB per MB of log (index
/// schema 5: grams, `detail=none`, each candidate's text checked), finds what FTS5's
/// operators ask (`NEAR` read as `AND`), folds accents as before, and an index of schema 3
/// is rebuilt, not misread.
#[test]
fn the_real_logs_index_in_half_their_size_and_operators_still_answer() {
    let Some((dir, logs, index)) = real_logs_folder() else {
        return;
    };
    std::fs::remove_file(logs.join("notes.jsonl")).unwrap();
    let l = logs.to_str().unwrap();
    let (code, _, err) = run(&index, &["index", "-q", l]);
    assert_eq!((code, err.as_str()), (0, ""));
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let index_bytes = size(&index) + size(&dir.path().join("index.db-wal"));
    let log_bytes: u64 = std::fs::read_dir(common::samples().join("real"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| size(&p))
        .sum();
    assert_eq!(log_bytes, 461_511);
    assert!(
        index_bytes * 2 <= log_bytes,
        "{index_bytes} bytes of index for {log_bytes} of logs"
    );
    let count = |q: &str| search(&index, &["--no-update", "--limit", "0", q]).1.len();
    // 17 message parts and the title hold the word.
    assert_eq!(count("指南针"), 18);
    assert_eq!(count("指南针 NOT zzqqxx"), 17);
    assert_eq!(count("zzqqxx OR 指南针"), 17);
    assert_eq!(count("指南针 NOT 指南针"), 0);
    assert_eq!(count("\"指南针下周\""), 1);
    assert_eq!(count("(capital OR zzqqxx) AND 指南针"), 8);
    // NEAR is AND: all 6 message parts with both words (the seventh hit is the title).
    assert_eq!(count("指南针 操作"), 7);
    assert_eq!(count("NEAR(指南针 操作, 3)"), 6);
    assert_eq!(count("RENDER_chart"), 1);
    // A two-character CJK word has a gram of its own (a pair of characters): the same 17
    // parts and the title, and 3 parts for another word.
    assert_eq!(count("指南"), 18);
    assert_eq!(count("股票"), 3);
    // An index of the former schema is rebuilt from the logs, with a note.
    rusqlite::Connection::open(&index)
        .unwrap()
        .execute_batch("PRAGMA user_version = 3")
        .unwrap();
    let (code, _, err) = run(&index, &["search", "-l", "指南针下周操作重点分析", l]);
    assert_eq!(
        (code, err),
        (
            0,
            format!(
                "dsh-session: {}: the index has schema version 3, this build writes 5; rebuilding it from the logs\n",
                index.display()
            )
        )
    );
}
