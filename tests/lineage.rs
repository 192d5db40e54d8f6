//! `fork` and `trim`: new sessions made of an existing one. A fork is what DSH 0.1.1-rc.2's
//! own `SessionStore.fork` writes (asked through `oracle/run --fork`); both load in DSH
//! (`oracle/run`) and in `validate`; the original is never touched.

mod common;

use std::path::{Path, PathBuf};

use common::{dsh, dsh_writer, fixture, samples};
use serde_json::Value;

fn lines_of(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The log's lines with the times a fork sets (the header's `createdAt`, the
/// `session/end-seed`'s `time`: "now") taken out.
fn without_fork_times(mut lines: Vec<Value>) -> Vec<Value> {
    if let Some(h) = lines.first_mut() {
        h.as_object_mut().unwrap().shift_remove("createdAt");
    }
    if let Some(last) = lines.last_mut()
        && last["type"] == "session/end-seed"
    {
        last.as_object_mut().unwrap().shift_remove("time");
    }
    lines
}

fn the_file(root: &Path) -> PathBuf {
    let files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

fn messages(args: &[&str], path: &Path) -> Value {
    let out = dsh_writer()
        .arg("messages")
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The seq of the first `turn/end` of a plain JSONL log.
fn first_turn_end(path: &Path) -> Option<u64> {
    lines_of(path)
        .iter()
        .find(|v| v["type"] == "turn/end")
        .and_then(|v| v["seq"].as_u64())
}

fn v0_logs() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture(""))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    if common::have_samples() {
        files.extend(
            std::fs::read_dir(samples().join("jsonl"))
                .unwrap()
                .flatten()
                .map(|e| e.path()),
        );
    }
    files.sort();
    files
}

#[test]
fn a_fork_is_what_dsh_0_1_1s_own_fork_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut compared = Vec::new();
    for (n, log) in v0_logs().into_iter().enumerate() {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if !text.starts_with(r#"{"type":"session","version":0"#) {
            continue;
        }
        if common::verdict_011(&log)["status"] != "valid" {
            continue;
        }
        let Some(boundary) = first_turn_end(&log) else {
            continue;
        };
        let root = tmp.path().join(n.to_string());
        let out = dsh_writer()
            .args([
                "fork",
                "--at",
                &boundary.to_string(),
                "--id",
                "kid",
                "--out",
            ])
            .arg(&root)
            .arg(&log)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            log.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let ours = the_file(&root);
        let b = boundary.to_string();
        let args: Vec<&std::ffi::OsStr> = vec![
            "--fork".as_ref(),
            b.as_ref(),
            "--child".as_ref(),
            "kid".as_ref(),
            log.as_os_str(),
        ];
        let Some(theirs) = common::oracle_output(&args) else {
            return;
        };
        let theirs: Vec<Value> = (theirs.lines())
            .map(|l| {
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", log.display()))
            })
            .collect();
        let (ours, theirs) = (
            without_fork_times(lines_of(&ours)),
            without_fork_times(theirs),
        );
        // Event by event what DSH writes: its §9.3 conversions made (legacy ids of the
        // parent's id), every other byte as stored.
        assert_eq!(ours.len(), theirs.len(), "{}: lines", log.display());
        if let Some(i) = (0..ours.len()).find(|&i| ours[i] != theirs[i]) {
            panic!(
                "{} forked at seq {boundary}: line {} differs\nours:   {}\ntheirs: {}",
                log.display(),
                i + 1,
                ours[i],
                theirs[i]
            );
        }
        compared.push(log);
    }
    eprintln!("{} logs forked as DSH forks them", compared.len());
    // The fixtures alone hold 4 such logs; the samples beside the checkout bring the rest.
    let least = if common::have_samples() { 20 } else { 4 };
    assert!(
        compared.len() >= least,
        "only {} logs compared: {compared:?}",
        compared.len()
    );
}

fn capital() -> PathBuf {
    samples().join("real/capital-generation.session.v4.jsonl")
}

/// Runs `args` with `--out ROOT`, expecting `code`; standard output and error.
fn run(args: &[&str], root: &Path, code: i32) -> (String, String) {
    let out = dsh().args(args).arg("--out").arg(root).output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stdout}{stderr}");
    (stdout, stderr)
}

#[test]
fn a_fork_of_a_real_v4_log_holds_its_history_up_to_the_end_of_the_turn() {
    if !common::have_samples() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let log = capital();
    let log_arg = log.to_str().unwrap();
    let (text, _) = run(&["fork", log_arg, "--at", "30", "--id", "f"], tmp.path(), 0);
    let path = tmp
        .path()
        .join("--home-shawn-investment--/f/session.v4.jsonl");
    assert_eq!(
        text,
        format!(
            "{log_arg}: forked: seqs 0–51, up to the end of turn 1, which holds seq 30\n  {}\n    session f: 52 events of session session-b34ec611-ab29-4459-9687-cea3088cd560 (lines 2–53), then a session/end-seed; parentSession session-b34ec611-ab29-4459-9687-cea3088cd560\n    left out: 136 events after seq 51\n",
            path.display()
        )
    );
    let lines = lines_of(&path);
    let mut header = lines[0].clone();
    header.as_object_mut().unwrap().shift_remove("createdAt");
    assert_eq!(
        header.to_string(),
        r#"{"type":"session","version":4,"id":"f","cwd":"/home/shawn/investment","parentSession":"session-b34ec611-ab29-4459-9687-cea3088cd560","isSeeded":true,"delegationDepth":0,"agentPreset":"cordis"}"#
    );
    let end_seed = lines.last().unwrap();
    assert_eq!(end_seed["type"], "session/end-seed");
    assert_eq!(
        (end_seed["seq"].as_u64(), &end_seed["data"]),
        (Some(52), &serde_json::json!({"inherited": true}))
    );
    // The inherited records are the original's lines 2–53, byte for byte.
    let original = std::fs::read_to_string(&log).unwrap();
    let forked = std::fs::read_to_string(&path).unwrap();
    let original_lines: Vec<&str> = original.lines().collect();
    let forked_lines: Vec<&str> = forked.lines().collect();
    assert_eq!(forked_lines.len(), 54);
    assert_eq!(forked_lines[1..53], original_lines[1..53]);
    // Its messages are the original's up to the boundary, a prefix of the original's.
    let at_boundary = messages(&["--at", "51"], &log);
    let all = messages(&[], &log);
    let fork = messages(&[], &path);
    assert_eq!(fork, at_boundary);
    let n = fork.as_array().unwrap().len();
    assert_eq!(n, 16);
    assert_eq!(fork.as_array().unwrap()[..], all.as_array().unwrap()[..n]);
    assert_eq!(common::verdict(&path)["status"], "valid");
    assert_eq!(common::verdict_writer(&path)["status"], "valid");
    // The new session says where it came from.
    let show = dsh().arg("show").arg(&path).output().unwrap();
    let show = String::from_utf8(show.stdout).unwrap();
    assert!(
        show.contains("parent:       session-b34ec611-ab29-4459-9687-cea3088cd560\n"),
        "{show}"
    );
    // A second fork to the same id writes nothing and says so.
    let (text, _) = run(&["fork", log_arg, "--at", "30", "--id", "f"], tmp.path(), 1);
    assert!(text.contains("exists: nothing was written"), "{text}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), forked);
}

#[test]
fn fork_refuses_what_dsh_refuses_and_touches_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("open.jsonl");
    std::fs::copy(fixture("open-turn-after-tool-call.jsonl"), &copy).unwrap();
    let before = (
        std::fs::read(&copy).unwrap(),
        std::fs::metadata(&copy).unwrap().modified().unwrap(),
    );
    let root = tmp.path().join("root");
    let copy_arg = copy.to_str().unwrap();
    let (_, err) = run(&["fork", copy_arg, "--at", "3"], &root, 1);
    assert_eq!(
        err,
        format!(
            "dsh-session: {copy_arg}: seq 3 is in turn 1 (from line 2, seq 0), which has not ended in the log: fork at a seq of a turn that ended, or `dsh-session repair` the log first (it closes the turn as DSH does)\n"
        )
    );
    let (_, err) = run(&["fork", copy_arg, "--at", "99"], &root, 1);
    assert_eq!(
        err,
        format!("dsh-session: {copy_arg}: seq 99 is not in the log: its events are seqs 0–18\n")
    );
    let (_, err) = run(&["fork", "-", "--at", "1"], &root, 2);
    assert_eq!(
        err,
        "dsh-session: -: standard input cannot be forked or trimmed; give the log's path\n"
    );
    let refused = fixture("recover/seq-restart-at-line-22.jsonl");
    let (_, err) = run(&["fork", refused.to_str().unwrap(), "--at", "1"], &root, 1);
    assert!(
        err.contains("corrupt J5 at line 22")
            && err.contains("`dsh-session recover` makes one of it"),
        "{err}"
    );
    assert!(!root.exists(), "nothing written");
    let after = (
        std::fs::read(&copy).unwrap(),
        std::fs::metadata(&copy).unwrap().modified().unwrap(),
    );
    assert_eq!(before, after);
}

/// The text of every text block of a message's content (a v4 tool message's own, or inside
/// its tool-result blocks).
fn texts(message: &Value) -> String {
    let mut out = String::new();
    for block in message["content"].as_array().into_iter().flatten() {
        if let Some(t) = block["text"].as_str() {
            out.push_str(t);
        }
        for inner in block["content"].as_array().into_iter().flatten() {
            out.push_str(inner["text"].as_str().unwrap_or_default());
        }
    }
    out
}

#[test]
fn trim_cuts_tool_outputs_and_keeps_every_other_message_as_it_was() {
    if !common::have_samples() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let log = capital();
    let log_arg = log.to_str().unwrap();
    // A dry run says what it would cut, and writes nothing.
    let (json, _) = run(
        &[
            "trim",
            log_arg,
            "--tool-output-max",
            "200",
            "--id",
            "t",
            "--dry-run",
            "--format",
            "json",
        ],
        tmp.path(),
        0,
    );
    let plan: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(plan["status"], "would trim");
    let cuts: Vec<(u64, u64, u64)> = (plan["cuts"].as_array().unwrap().iter())
        .map(|c| {
            (
                c["line"].as_u64().unwrap(),
                c["bytes"].as_u64().unwrap(),
                c["cut"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        cuts,
        [(25, 234, 34), (27, 11138, 10938), (33, 25853, 25653)]
    );
    assert_eq!(plan["cut_bytes"], 36625);
    assert_eq!(plan["bytes_per_token_from_usage"], true);
    assert_eq!(plan["tokens_saved"], 7203);
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    run(
        &["trim", log_arg, "--tool-output-max", "200", "--id", "t"],
        tmp.path(),
        0,
    );
    let path = tmp
        .path()
        .join("--home-shawn-investment--/t/session.v4.jsonl");
    assert_eq!(common::verdict(&path)["status"], "valid");
    let before = messages(&[], &log);
    let after = messages(&[], &path);
    let (before, after) = (before.as_array().unwrap(), after.as_array().unwrap());
    assert_eq!(before.len(), after.len());
    let mut cut = 0;
    for (b, a) in before.iter().zip(after) {
        if b == a {
            continue;
        }
        // Only a tool result changes: its first 200 bytes, then the marker.
        assert_eq!(b["role"], "tool", "{a}");
        assert_eq!((&b["id"], &b["toolCallId"]), (&a["id"], &a["toolCallId"]));
        let (was, now) = (texts(b), texts(a));
        assert!(was.len() > 200);
        let kept = now.split_once("\n[dsh-session trim] ").expect("marker").0;
        assert!(
            was.starts_with(kept) && kept.len() <= 200 && kept.len() > 196,
            "{now}"
        );
        assert!(
            now.ends_with(&format!(
                "{} of {} bytes of this tool output were cut.",
                was.len() - 200,
                was.len()
            )),
            "{now}"
        );
        cut += 1;
    }
    assert_eq!(cut, 3);
    // Every call is still answered: the same call ids have results, in the same order.
    let answered = |m: &[Value]| -> Vec<String> {
        m.iter()
            .filter_map(|x| x["toolCallId"].as_str().map(str::to_owned))
            .collect()
    };
    assert_eq!(answered(before), answered(after));
    assert_eq!(answered(after).len(), 13);
}

#[test]
fn a_trimmed_v0_log_loads_in_dsh_itself() {
    if !common::have_samples() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let log = samples()
        .join("jsonl/examples__acp-agent__tests__snapshots__bash-tool-turn__session.jsonl");
    let out = dsh_writer()
        .args(["trim", "--tool-output-max", "8", "--id", "t0", "--out"])
        .arg(tmp.path())
        .arg(&log)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = the_file(tmp.path());
    assert_eq!(common::verdict_011(&path)["status"], "valid");
    let Some(verdicts) = common::oracle(&[log.clone(), path.clone()]) else {
        return;
    };
    // DSH judges the trimmed session as it judges the original, judge by judge.
    let of = |file: &Path| -> Vec<(String, String)> {
        (verdicts.iter())
            .filter(|v| Path::new(&v.file) == file)
            .map(|v| (v.judge.clone(), v.verdict.clone()))
            .collect()
    };
    assert_eq!(of(&path), of(&log));
    assert!(
        of(&path)
            .iter()
            .any(|(j, v)| j == common::ORACLE_STORE && v == "accepted"),
        "{:?}",
        of(&path)
    );
}

#[test]
fn dropping_turns_renumbers_the_rest() {
    if !common::have_samples() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let log = capital();
    let (text, _) = run(
        &[
            "trim",
            log.to_str().unwrap(),
            "--drop-turns",
            "2..3",
            "--id",
            "d",
        ],
        tmp.path(),
        0,
    );
    assert!(
        text.contains("  turns 2–3 left out (31 events); the turns after them renumbered\n"),
        "{text}"
    );
    let path = tmp
        .path()
        .join("--home-shawn-investment--/d/session.v4.jsonl");
    assert_eq!(common::verdict(&path)["status"], "valid");
    let before = messages(&[], &log);
    let after = messages(&[], &path);
    // Turn 2 starts at seq 53, turn 3 ends at seq 83: the messages before the one and
    // after the other are as they were.
    let (before, after) = (before.as_array().unwrap(), after.as_array().unwrap());
    let until = |seq: &str| messages(&["--at", seq], &log).as_array().unwrap().len();
    let (k, m) = (until("52"), until("83"));
    assert_eq!((k, m, before.len(), after.len()), (16, 26, 55, 45));
    assert_eq!(after[..k], before[..k]);
    assert_eq!(after[k..], before[m..]);
    let seqs: Vec<u64> = lines_of(&path)[1..]
        .iter()
        .map(|v| v["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (0..157).collect::<Vec<u64>>());
}

/// Found by running fork and trim on every sample: DSH's own crash-repair results are never
/// cut (the edges check their exact text), and a SQLite session is judged in the JSONL form
/// the new session takes (a store is read without the edges DSH 0.1.5+ run on files).
#[test]
fn what_every_sample_showed() {
    if !common::have_samples() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let twin = samples().join("crashed/examples__acp-agent__tests__snapshots__hook-cc-pretool-deny__session.b-cut-after-assistant-tool-calls.expected.jsonl");
    // Its one tool result is DSH's TOOL_NOT_STARTED repair (seq 58): nothing to cut.
    let (text, _) = run(
        &[
            "trim",
            twin.to_str().unwrap(),
            "--tool-output-max",
            "20",
            "--id",
            "t",
        ],
        tmp.path(),
        0,
    );
    assert_eq!(
        text,
        format!(
            "{}: nothing to trim: no tool result holds more than 20 bytes; nothing written\n",
            twin.display()
        )
    );
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    let store = samples().join("sqlite/apps__web__tests__snapshots__minimal-preset__session.db");
    let (_, err) = run(
        &["fork", store.to_str().unwrap(), "--at", "3", "--id", "f"],
        tmp.path(),
        1,
    );
    assert_eq!(
        err,
        format!(
            "dsh-session: {}: its JSONL form (what fork and trim write) would not load: as DSH 0.1.7+ reads it, it is refused: F8 at line 2 (seq 0): DSH 0.1.5 and later refuse to migrate it (the v2→v3 edge): format v2 surface before first step cannot acquire a system head without changing chronology; only a log DSH loads is forked or trimmed (`dsh-session recover` makes one of it)\n",
            store.display()
        )
    );
}
