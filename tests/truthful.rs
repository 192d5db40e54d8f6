//! Every output tells the truth (issue 25 §3): each defect a new user met, with the input
//! that showed it and the exact words or values that are true of it.

mod common;

use std::path::Path;

use common::{dsh, fixture, zstd_frame};
use serde_json::Value;

/// Runs `dsh-session ARGS`: (exit code, standard output, standard error).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = dsh().args(args).output().expect("runs");
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

#[test]
fn a_first_frame_with_two_lines_in_a_log_of_several_frames_is_not_called_the_zstd_tool_s() {
    let dir = tempfile::tempdir().unwrap();
    let plain = std::fs::read_to_string(fixture("compaction-and-prune.jsonl")).unwrap();
    let lines: Vec<&str> = plain.split_inclusive('\n').collect();
    // Frame 1: the header and the first event; frame 2: the rest.
    let mut bytes = zstd_frame(lines[..2].concat().as_bytes());
    bytes.extend(zstd_frame(lines[2..].concat().as_bytes()));
    let path = dir.path().join("c13-first-frame-two-lines.jsonl.zstd");
    std::fs::write(&path, bytes).unwrap();
    let (code, out, _) = run(&["validate", s(&path)]);
    assert_eq!(code, 1);
    assert_eq!(
        out.lines().next().unwrap(),
        format!(
            "{}: corrupt Z6 at line 1: first zstd frame is not exactly one header line ending in a newline",
            path.display()
        )
    );
}

#[test]
fn messages_with_a_provider_is_a_drop_in_for_messages() {
    let log = fixture("provider/P3-user-message-between-call-and-result.jsonl");
    let (code, array, notes) = run(&["messages", "--provider", "deepseek", s(&log)]);
    assert_eq!(code, 0);
    let (_, lines, _) = run(&[
        "messages",
        "--provider",
        "deepseek",
        "--format",
        "jsonl",
        s(&log),
    ]);
    // The JSON array of `messages`, one message per line, and its lines as JSONL.
    assert!(array.starts_with("[\n{\"id\":\"u-2\""), "{array}");
    assert!(array.ends_with("}\n]\n"), "{array}");
    let inner: Vec<&str> = array.lines().skip(1).filter(|l| *l != "]").collect();
    let inner: Vec<String> = inner
        .iter()
        .map(|l| l.trim_end_matches(',').to_owned())
        .collect();
    assert_eq!(inner, lines.lines().collect::<Vec<_>>());
    let ids: Vec<Value> = serde_json::from_str::<Vec<Value>>(&array)
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(
        ids,
        [
            "u-2",
            "dsh-session-heal-P3-9",
            "u-5",
            "dsh-session-heal-P3-10"
        ]
    );
    // The changes are notes, not errors.
    let p = log.display();
    assert_eq!(
        notes,
        format!(
            "note: {p}: deepseek: seq 9: the assistant message at seq 3 becomes a note (P3: a tool result that does not follow its call)\nnote: {p}: deepseek: seq 10: the tool result at seq 6 becomes a note (P3: a tool result that does not follow its call)\n"
        )
    );
}

#[test]
fn a_read_command_never_says_nothing_was_written() {
    let log = fixture("hostile/invalid-line-middle-committed.jsonl");
    let (code, _, plain) = run(&["messages", s(&log)]);
    assert_eq!(code, 1);
    let (code, out, err) = run(&["messages", "--provider", "openai", s(&log)]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(err, plain);
    assert!(!err.contains("nothing was written"), "{err}");
}

/// `export` of a corrupt log: the header, the turn table and the turn sections count what
/// was read before the defect, as `stats` counts the log.
#[test]
fn export_of_a_corrupt_log_counts_only_what_was_read() {
    let dir = tempfile::tempdir().unwrap();
    // An envelope key DSH refuses (E1) on turn 2's turn/start, line 8.
    let text = std::fs::read_to_string(fixture(
        "provider/P4-reasoning-tokens-but-no-reasoning.jsonl",
    ))
    .unwrap()
    .replacen("\"seq\":6,", "\"seq\":6,\"x\":1,", 1);
    let log = dir.path().join("e1-in-turn-2.jsonl");
    std::fs::write(&log, text).unwrap();
    let (code, md, err) = run(&["export", s(&log)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        md.contains("| events | 6 (1 turn, 0 tool calls, surface 2 entries, 0 replacements) |\n"),
        "{md}"
    );
    assert_eq!(md.matches("\n## Turn ").count(), 1, "{md}");
    assert!(!md.contains("| 2 |"), "no row for turn 2: {md}");
    let (_, html, _) = run(&["export", "--format", "html", s(&log)]);
    assert_eq!(html.matches("<section class=\"turn\" ").count(), 1);
    let (_, stats, _) = run(&["stats", "--format", "json", s(&log)]);
    let stats: Value = serde_json::from_str(&stats).unwrap();
    assert_eq!(stats["total"]["turns"], 1);
}

/// Over every corrupt or refused sample, `export` shows as many turns as `stats` counts.
#[test]
fn export_and_stats_count_the_same_turns_of_every_sample_that_is_not_valid() {
    if !common::have_samples() {
        return;
    }
    let mut checked = 0;
    for (file, status, _) in common::expected_samples() {
        if status != "corrupt" && status != "refused" {
            continue;
        }
        let path = common::samples().join(&file);
        let (_, md, _) = run(&["export", s(&path)]);
        let (_, stats, _) = run(&["stats", "--format", "json", s(&path)]);
        let stats: Value = serde_json::from_str(&stats).unwrap();
        let turns = stats["total"]["turns"].as_u64().unwrap();
        assert_eq!(
            md.matches("\n## Turn ").count() as u64,
            turns,
            "{file}: {md}"
        );
        checked += 1;
    }
    assert!(checked >= 5, "{checked}");
}

/// A session with no turn is a session: `stats` counts it in the total (20 valid logs were
/// 19 sessions), gives it a zero row by session, and names a JSONL log's session as its
/// header does (it was `null`).
#[test]
fn stats_counts_a_session_with_no_turn_and_names_every_session() {
    let logs = [
        fixture("compaction-and-prune.jsonl"),
        fixture("hostile/header-only.jsonl"),
    ];
    let args = |by: &str| -> Value {
        // As DSH 0.1.1 reads it: DSH 0.1.5 and later refuse the compaction's `reason` (F2).
        let mut a = vec!["--dsh", "0.1.1", "stats", "--format", "json", "--by", by];
        a.extend(logs.iter().map(|p| s(p)));
        let (code, out, err) = run(&a);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let by_day = args("day");
    assert_eq!(by_day["total"]["sessions"], 2);
    assert_eq!(by_day["rows"].as_array().unwrap().len(), 1, "no day has it");
    let by_session = args("session");
    assert_eq!(by_session["total"]["sessions"], 2);
    let sessions: Vec<(&str, u64)> = by_session["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["session"].as_str().unwrap(), r["turns"].as_u64().unwrap()))
        .collect();
    assert_eq!(sessions, [("s-compact", 1), ("s-1", 0)]);
    // With --since a session counts where it has a turn in range: none here.
    let (_, out, _) = run(&[
        "stats",
        "--format",
        "json",
        "--since",
        "2030-01-01",
        s(&logs[1]),
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["total"]["sessions"], 0);
}

/// A green CI step is not silent: `--format github` ends with a `::notice` carrying the
/// summary line (`-q` keeps it quiet).
#[test]
fn validate_for_github_says_what_passed() {
    let log = fixture("rules/valid-tool-round.jsonl");
    let (code, out, _) = run(&["validate", "--format", "github", s(&log)]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "::notice title=dsh-session validate::1 valid, 0 torn-tail, 0 corrupt, 0 refused\n"
    );
    let (code, out, _) = run(&["validate", "--format", "github", "-q", s(&log)]);
    assert_eq!((code, out.as_str()), (0, ""));
}

/// Reasoning the provider did not count is unknown, not 0: `-` in text, `null` in JSON,
/// for the session and for each turn that carries reasoning; a reported count, and a turn
/// without reasoning, stay numbers.
#[test]
fn reasoning_not_counted_by_the_provider_is_unknown_not_zero() {
    let log = fixture("usage/reasoning-without-a-token-count.jsonl");
    let (_, show, _) = run(&["show", s(&log)]);
    assert!(
        show.contains(
            "tokens:       input 0, output 0, cache read 0, cache write 0, reasoning -\n"
        ),
        "{show}"
    );
    let (_, json, _) = run(&["show", "--format", "json", s(&log)]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["usage"]["reasoning_tokens"], Value::Null);
    assert_eq!(v["per_turn"][0]["usage"]["reasoning_tokens"], Value::Null);
    assert_eq!(v["per_turn"][1]["usage"]["reasoning_tokens"], 0);
    let (_, md, _) = run(&["export", s(&log)]);
    assert!(
        md.contains("| tokens | input 0, output 0, cache read 0, cache write 0, reasoning - |"),
        "{md}"
    );
    assert!(
        md.contains("| 1 | deepseek/deepseek-reasoner | 0 | 0 | 0 | 0 | - |"),
        "{md}"
    );
    // A count the provider reported is shown, also beside reasoning blocks.
    let dir = tempfile::tempdir().unwrap();
    let counted = dir.path().join("counted.jsonl");
    let text = std::fs::read_to_string(&log).unwrap().replacen(
        "\"deepseek-reasoner\"}}}",
        "\"deepseek-reasoner\"}},\"usage\":{\"inputTokens\":5,\"outputTokens\":9,\"reasoningTokens\":7}}",
        1,
    );
    std::fs::write(&counted, text).unwrap();
    let (_, json, _) = run(&["show", "--format", "json", s(&counted)]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["usage"]["reasoning_tokens"], 7);
}

/// A path that cannot be read has no count of events: `null`, not 0.
#[test]
fn validate_of_an_unreadable_path_knows_no_event_count() {
    let (code, out, _) = run(&["validate", "--format", "json", "no/such/log.jsonl"]);
    assert_eq!(code, 2);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["status"], "error");
    assert_eq!(v[0]["events"], Value::Null);
    assert_eq!(v[0]["surface_len"], Value::Null);
}

/// A byte order mark before the header (Notepad writes one) is named, with the way to read
/// the log, as gzip and xz are (FORMAT.md §1.5: JSONL lines keep it, so JSON.parse fails).
#[test]
fn a_byte_order_mark_is_named_with_the_way_out() {
    let log = fixture("hostile/bom-before-header.jsonl");
    let (code, out, _) = run(&["validate", s(&log)]);
    assert_eq!(code, 1);
    assert_eq!(
        out.lines().next().unwrap(),
        format!(
            "{}: corrupt H2 at line 1: header line is not valid JSON: unexpected token at byte 1; the file starts with a UTF-8 byte order mark (as Notepad saves a file), which DSH never writes and cannot read: remove it (`sed -i '1s/^\\xEF\\xBB\\xBF//' FILE`) or read it with `tail -c +4 FILE | dsh-session validate -`",
            log.display()
        )
    );
    // The way out works.
    let bytes = std::fs::read(&log).unwrap();
    let out = dsh()
        .args(["validate", "-"])
        .write_stdin(&bytes[3..])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// An operating system error is said once, in the tool's words.
#[test]
fn os_errors_are_said_once() {
    let log = fixture("june-2026.jsonl");
    let (code, _, err) = run(&["stats", "--prices", "no/such/prices.toml", s(&log)]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "dsh-session: --prices no/such/prices.toml: cannot read the prices: no such file or directory\n"
    );
    let (code, out, err) = run(&["stats", "--format", "json", "no/such/log.jsonl"]);
    assert_eq!(code, 2);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["unreadable"][0]["message"], "no such file or directory");
    assert_eq!(
        err,
        "dsh-session: no/such/log.jsonl: no such file or directory\n"
    );
}

/// A JSONL root with one project and two sessions.
fn jsonl_root(root: &Path) {
    for (session, log) in [
        ("s-compact", "compaction-and-prune.jsonl"),
        ("s-01", "open-turn-after-tool-call.jsonl"),
    ] {
        let dir = root.join("--home-ana-proj--").join(session);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(fixture(log), dir.join("session.jsonl")).unwrap();
    }
}

/// `sessions` of a project or session directory lists what is in it (it printed an empty
/// table and exited 0); so does a directory whose logs sit deeper than a root's (the
/// index lists every session below the path it is given).
#[test]
fn sessions_of_a_project_or_session_directory_lists_its_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    jsonl_root(&root);
    let ids = |path: &Path| -> (i32, Vec<String>) {
        let (code, out, err) = run(&["sessions", "--format", "json", s(path)]);
        if code != 0 {
            return (code, vec![err]);
        }
        let v: Value = serde_json::from_str(&out).unwrap();
        let ids = v
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["session"].as_str().unwrap().to_owned())
            .collect();
        (code, ids)
    };
    let both = (0, vec!["s-01".to_owned(), "s-compact".to_owned()]);
    assert_eq!(ids(&root), both);
    assert_eq!(ids(&root.join("--home-ana-proj--")), both);
    assert_eq!(
        ids(&root.join("--home-ana-proj--/s-01")),
        (0, vec!["s-01".to_owned()])
    );
    assert_eq!(ids(dir.path()), both);
}

/// `man --dir` makes the directory named, never its missing parents.
#[test]
fn man_dir_makes_only_the_last_directory() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("no/such/man1");
    let (code, out, err) = run(&["man", "--dir", s(&deep)]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!(
            "dsh-session: {0}: its parent {1} does not exist; `man --dir` makes only the last directory (`mkdir -p {0}` first if you mean it)\n",
            deep.display(),
            dir.path().join("no/such").display()
        )
    );
    assert!(!dir.path().join("no").exists());
    let man1 = dir.path().join("man1");
    let (code, out, _) = run(&["man", "--dir", s(&man1)]);
    assert_eq!(code, 0);
    // One page per subcommand (recover, fork, trim, index, search, tui, mcp and statusline among them) and the main
    // page.
    assert_eq!(out.lines().count(), 24);
    assert!(man1.join("dsh-session-validate.1").is_file());
}

/// `--session` on a JSONL log is checked against the session its header names (it was
/// ignored): another id is an error, the id or a prefix of it reads the log.
#[test]
fn session_on_a_jsonl_log_must_name_its_session() {
    let log = fixture("compaction-and-prune.jsonl");
    let message = format!(
        "dsh-session: {}: --session s-other: this log holds session s-compact; a JSONL log holds one session (--session picks one of a SQLite store's)\n",
        log.display()
    );
    for args in [
        &["show"][..],
        &["messages"],
        &["surface"],
        &["replacements"],
        &["version"],
        &["export"],
        &["repair", "--dry-run"],
    ] {
        let mut a = args.to_vec();
        a.extend(["--session", "s-other", s(&log)]);
        let (code, out, err) = run(&a);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert_eq!(err, message, "{args:?}");
    }
    let (code, _, err) = run(&["validate", "--session", "s-other", s(&log)]);
    assert_eq!(code, 2);
    assert_eq!(err, message);
    let (code, _, err) = run(&["provenance", "--session", "s-other", s(&log), "2"]);
    assert_eq!((code, err.as_str()), (2, message.as_str()));
    let (code, _, err) = run(&["follow", "--session", "s-other", s(&log)]);
    assert_eq!((code, err.as_str()), (2, message.as_str()));
    let (code, out, _) = run(&["show", "--format", "json", "--session", "s-comp", s(&log)]);
    assert_eq!(code, 0);
    assert!(out.contains("\"session\": \"s-compact\""), "{out}");
}

/// One generation in both encodings in a session directory: `validate DIR` (and `stats`)
/// report the conflict as `show DIR` does (validate checked one of the two and passed).
#[test]
fn validate_reports_a_generation_in_both_encodings_as_show_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    jsonl_root(&root);
    let session = root.join("--home-ana-proj--/s-compact");
    let plain = std::fs::read_to_string(session.join("session.jsonl")).unwrap();
    let (zstd, _) = common::zstd_log(&plain, 8);
    std::fs::write(session.join("session.jsonl.zstd"), zstd).unwrap();
    let (code, _, err) = run(&["show", s(&session)]);
    assert_eq!(code, 2);
    let why = "session.jsonl and session.jsonl.zstd are the same generation in both encodings; a DSH root holds one encoding (§7.1): name the file to read";
    assert_eq!(err, format!("dsh-session: {}: {why}\n", session.display()));
    for path in [&root, &session] {
        let (code, out, err) = run(&["validate", s(path)]);
        assert_eq!(code, 2, "{out}");
        assert!(
            err.contains(&format!("dsh-session: {}: {why}\n", session.display())),
            "{err}"
        );
        assert!(out.ends_with(", 1 unreadable\n"), "{out}");
    }
    let (code, out, _) = run(&["validate", "--format", "json", s(&root)]);
    assert_eq!(code, 2);
    let v: Value = serde_json::from_str(&out).unwrap();
    let statuses: Vec<(&str, &str)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["file"].as_str().unwrap(), v["status"].as_str().unwrap()))
        .collect();
    assert_eq!(statuses.len(), 2);
    assert!(statuses.contains(&(s(&session), "error")), "{statuses:?}");
    let (code, out, _) = run(&["stats", "--format", "json", s(&root)]);
    assert_eq!(code, 2);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["unreadable"][0]["message"], why);
}

/// Counts agree with their nouns and verbs (`1 call, 1 result`; `1 finding … stays`), and
/// findings that stay for one reason give it once.
#[test]
fn wording_agrees_with_its_counts_and_says_a_reason_once() {
    let (_, show, _) = run(&["show", s(&fixture("result-after-step-end.jsonl"))]);
    assert!(
        show.contains("\ntool calls:   1 call, 1 result, 0 unanswered\n"),
        "{show}"
    );
    // As DSH 0.1.1 loads it (DSH 0.1.5 and later refuse the step/end that leaves the calls).
    let log = fixture("hostile/unanswered-tool-calls-then-new-turn.jsonl");
    let (code, out, _) = run(&["--dsh", "0.1.1", "repair", "--dry-run", s(&log)]);
    assert_eq!(code, 0);
    let p = log.display();
    assert_eq!(
        out,
        format!(
            "{p}: nothing to repair
{p}: the history stays unsendable: 3 provider findings that DSH's repair does not close:
  P1 at line 5 (seq 3, message index 1): tool call \"call_1\" has no tool result after it [refused by anthropic, openai, deepseek]
  P1 at line 5 (seq 3, message index 1): tool call \"call_2\" has no tool result after it [refused by anthropic, openai, deepseek]
  P1 at line 5 (seq 3, message index 1): tool call \"call_3\" has no tool result after it [refused by anthropic, openai, deepseek]
    why they stay: the call's turn 1 ended at seq 5 (completed) without a result: DSH closes only an open final turn
  `dsh-session repair --provider NAME` heals them append-only (README: \"Healing for a provider\")
"
        )
    );
    let log = fixture("provider/P7-empty-text-block.jsonl");
    let (_, out, _) = run(&["repair", "--dry-run", "--provider", "deepseek", s(&log)]);
    assert!(
        out.contains(&format!(
            "{}: 1 finding of other providers stays (healed for deepseek only):\n",
            log.display()
        )),
        "{out}"
    );
}

/// On a terminal, tables keep ids and dates whole: `sessions ROOT` at 80 columns wrapped
/// every column to 4 characters, and at 160 still broke the ids users copy into
/// `--session`. Free text is cut first, then the least used columns are left out, with a
/// note saying which.
#[test]
fn terminal_tables_never_break_an_id_or_a_date() {
    if !common::have_script() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let id = "session-b34ec611-ab29-4459-9687-cea3088cd560";
    let session = root.join("--home-shawn-investment--").join(id);
    std::fs::create_dir_all(&session).unwrap();
    let log = std::fs::read_to_string(fixture("compaction-and-prune.jsonl"))
        .unwrap()
        .replacen("\"s-compact\"", &format!("\"{id}\""), 1)
        .replacen("/home/ana/proj", "/home/shawn/investment", 1);
    std::fs::write(session.join("session.jsonl"), log).unwrap();
    for columns in [80u16, 160] {
        // As DSH 0.1.1 reads it (valid): DSH 0.1.5 and later refuse the compaction (F2).
        let shown =
            common::on_a_terminal(columns, &format!("--dsh 0.1.1 sessions {}", root.display()));
        let lines: Vec<&str> = shown.lines().collect();
        assert!(lines[2].starts_with(&format!(" {id} ")), "{shown}");
        // The table's lines (the note under it is prose the terminal wraps).
        assert!(
            lines
                .iter()
                .take_while(|l| !l.is_empty())
                .all(|l| l.chars().count() <= usize::from(columns)),
            "{shown}"
        );
        if columns == 80 {
            // An id of 44 characters and the status fit in 80 columns, and the title and
            // project stay (the project cut): the other columns are left out.
            assert_eq!(lines[2], format!(" {id}   -       /home/shawn/i…   valid"));
            assert_eq!(
                lines[4],
                "left out to fit 80 columns: created, last activity, turns, model, size (a wider terminal, a pipe or --format json shows them)"
            );
        } else {
            assert!(lines[2].contains(" 2025-10-09T08:53Z "), "{shown}");
            // The project is cut before any column is left out.
            assert!(lines[2].contains(" /home/shawn… "), "{shown}");
            assert_eq!(lines.len(), 3, "nothing left out: {shown}");
        }
    }
    // `stats` keeps the date of each row whole at 80 columns.
    let shown = common::on_a_terminal(80, &format!("--dsh 0.1.1 stats {}", root.display()));
    let lines: Vec<&str> = shown.lines().collect();
    assert!(lines[3].starts_with(" 2025-10-09 "), "{shown}");
    assert!(
        lines
            .iter()
            .take_while(|l| !l.is_empty())
            .all(|l| l.chars().count() <= 80),
        "{shown}"
    );
}

/// U1 says whose type it is: a plugin's type is not a DSH type, DSH will not load the log,
/// and the way out is `recover` or marking it ignorable; "a newer harness" only for a type
/// in DSH's own namespace.
#[test]
fn an_unknown_type_says_whose_it_is_and_the_way_out() {
    let log = fixture("hostile/plugin-type-pentest-submit.jsonl");
    let (code, out, _) = run(&["validate", s(&log)]);
    assert_eq!(code, 1);
    assert_eq!(
        out.lines().next().unwrap(),
        format!(
            "{}: refused U1 at line 7 (seq 5): event type \"pentest/submit\" is not a DSH event type (a plugin's or another tool's) and is not marked ignorable: true, so DSH will not load this log; `dsh-session recover` writes a copy DSH loads, or the plugin can mark its events \"ignorable\": true, which DSH 0.1.1 then skips",
            log.display()
        )
    );
    let dir = tempfile::tempdir().unwrap();
    let newer = dir.path().join("turn-paused.jsonl");
    let text = std::fs::read_to_string(fixture("hostile/unknown-type-required.jsonl"))
        .unwrap()
        .replace("\"future/thing\"", "\"turn/paused\"");
    std::fs::write(&newer, text).unwrap();
    let (code, out, _) = run(&["validate", s(&newer)]);
    assert_eq!(code, 1);
    assert_eq!(
        out.lines().next().unwrap(),
        format!(
            "{}: refused U1 at line 5 (seq 3): unknown event type \"turn/paused\" without ignorable: true; the type is in DSH's own namespace, so the log was probably written by a newer harness: upgrade DSH and dsh-session",
            newer.display()
        )
    );
}

/// A header `agentPreset` of `code`, the preset DSH renamed `ptc` at v3 (GENERATIONS §6),
/// gets a note saying so, in `show` and in `export`.
#[test]
fn the_code_preset_is_noted_as_renamed_ptc() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("code-preset.jsonl");
    let text = std::fs::read_to_string(fixture("compaction-and-prune.jsonl"))
        .unwrap()
        .replacen(
            "\"delegationDepth\":0}",
            "\"delegationDepth\":0,\"agentPreset\":\"code\"}",
            1,
        );
    std::fs::write(&log, text).unwrap();
    let (code, show, _) = run(&["show", s(&log)]);
    assert_eq!(code, 0);
    assert!(
        show.contains("\nagent preset: code, renamed ptc at v3\n"),
        "{show}"
    );
    let (_, md, _) = run(&["export", s(&log)]);
    assert!(
        md.contains("| agent preset | code, renamed ptc at v3 |"),
        "{md}"
    );
}
