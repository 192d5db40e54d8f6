//! `follow` (issue 19): a child process follows a log while the test appends to it in
//! batches; each expected output line is waited for (30 s bound), never slept for.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use common::fixture;
use common::store::store_from_jsonl;

/// How long any one expected line may take to appear.
const BOUND: Duration = Duration::from_secs(30);

/// A running `dsh-session follow` and its output lines.
struct Following {
    child: Child,
    lines: Receiver<String>,
}

impl Following {
    /// `follow ARGS` without what is said (`--no-text`): the happenings these tests follow.
    fn start(args: &[&str]) -> Self {
        let mut with = vec!["--no-text"];
        with.extend_from_slice(args);
        Self::start_saying(&with)
    }

    /// `follow ARGS` (`COLUMNS=60`).
    fn start_saying(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dsh-session"))
            .arg("follow")
            .args(["--poll-ms", "50"])
            .args(args)
            .env("COLUMNS", "60")
            .env_remove("NO_COLOR")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn dsh-session follow");
        let stdout = child.stdout.take().expect("piped");
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Following { child, lines }
    }

    /// The next output line, which must be `want`.
    fn expect(&self, want: &str) {
        match self.lines.recv_timeout(BOUND) {
            Ok(line) => assert_eq!(line, want),
            Err(RecvTimeoutError::Timeout) => {
                panic!("no output line within {BOUND:?}; wanted {want}")
            }
            Err(RecvTimeoutError::Disconnected) => panic!("follow ended; wanted {want}"),
        }
    }

    /// The next output line, parsed as JSON.
    fn object(&self) -> serde_json::Value {
        let line = self.lines.recv_timeout(BOUND).expect("an output line");
        serde_json::from_str(&line).expect("one JSON object per line")
    }

    /// Waits for the process to end by itself; its exit code.
    fn exit_code(mut self) -> Option<i32> {
        let start = std::time::Instant::now();
        while start.elapsed() < BOUND {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("follow did not exit within {BOUND:?}");
    }
}

impl Drop for Following {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The lines of `fixtures/compaction-and-prune.jsonl` (one turn: tool calls, a
/// compaction, a prune), each with its newline.
fn fixture_lines() -> Vec<String> {
    let text = std::fs::read_to_string(fixture("compaction-and-prune.jsonl")).unwrap();
    text.split_inclusive('\n').map(str::to_owned).collect()
}

/// A second turn after the fixture's (seqs 24 and 25).
const TURN_2: [&str; 2] = [
    "{\"type\":\"turn/start\",\"seq\":24,\"time\":1760000001000,\"data\":{\"turn\":2}}\n",
    "{\"type\":\"turn/end\",\"seq\":25,\"time\":1760000002500,\"data\":{\"turn\":2,\"reason\":{\"kind\":\"aborted\"}}}\n",
];

fn append(path: &Path, bytes: &[u8]) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(bytes).unwrap();
    file.sync_all().unwrap();
}

/// A plain log in a fresh directory holding the fixture's first `n` lines.
fn plain_log(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join("session.jsonl");
    std::fs::write(&path, fixture_lines()[..n].concat()).unwrap();
    path
}

#[test]
fn plain_batches_print_what_happens() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_log(dir.path(), 7);
    let name = log.display().to_string();
    let f = Following::start(&[&name]);
    f.expect(&format!(
        "following {name}: 8 events so far, surface 2, head, a turn open"
    ));
    let lines = fixture_lines();
    append(&log, lines[7..9].concat().as_bytes());
    f.expect("tool call bash (call_1, seq 8, line 8)");
    f.expect("tool result bash: ok (call_1, seq 9, line 9)");
    append(&log, lines[9..].concat().as_bytes());
    f.expect("replacement by user/message shadowed 3 entries, surface 4 -> 2 (seq 15, line 15)");
    f.expect("tool call bash (call_2, seq 16, line 16)");
    f.expect("tool result bash: ok (call_2, seq 17, line 17)");
    f.expect("tool result bash: ok (call_2, seq 19, line 19)");
    f.expect("replacement by tool/result shadowed 1 entry, surface 3 -> 3 (seq 19, line 19)");
    f.expect("replacement by user/message shadowed 2 entries, surface 3 -> 2 (seq 20, line 20)");
    f.expect("turn 1 ended: completed, 1850 input and 25 output tokens, 23 ms (seq 23, line 23)");
    append(&log, TURN_2.concat().as_bytes());
    f.expect("turn 2 started (seq 24, line 24)");
    f.expect("turn 2 ended: aborted, 0 input and 0 output tokens, 1.5 s (seq 25, line 25)");
}

#[test]
fn from_start_prints_every_happening_then_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_log(dir.path(), 9);
    let name = log.display().to_string();
    let f = Following::start(&["--from-start", &name]);
    f.expect("turn 1 started (seq 0, line 2)");
    f.expect("tool call bash (call_1, seq 8, line 8)");
    f.expect("tool result bash: ok (call_1, seq 9, line 9)");
    f.expect(&format!(
        "following {name}: 10 events so far, surface 3, head, a turn open"
    ));
}

/// A June 2026 `tool/result` names its call only in its block (`toolCallId`): the line
/// names the call and its tool (it printed `tool result ?: ok (, …)`).
#[test]
fn a_june_2026_tool_result_names_its_call() {
    let log = common::fixture("june-2026.jsonl");
    let name = log.display().to_string();
    let f = Following::start(&["--from-start", &name]);
    f.expect("turn 1 started (seq 0, line 2)");
    f.expect("tool call bash (call_1, seq 6, line 8)");
    f.expect("tool result bash: ok (call_1, seq 7, line 9)");
}

#[test]
fn a_torn_line_completed_later_is_no_finding() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_log(dir.path(), 7);
    let name = log.display().to_string();
    let f = Following::start(&["--settle", "60", &name]);
    f.expect(&format!(
        "following {name}: 8 events so far, surface 2, head, a turn open"
    ));
    let lines = fixture_lines();
    let (head, rest) = lines[7].split_at(40);
    append(&log, head.as_bytes());
    // The half line is waited for; the next batch completes it.
    append(&log, [rest, &lines[8]].concat().as_bytes());
    f.expect("tool call bash (call_1, seq 8, line 8)");
    f.expect("tool result bash: ok (call_1, seq 9, line 9)");
}

#[test]
fn a_torn_line_left_past_settle_is_a_torn_tail_then_followed_on() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_log(dir.path(), 7);
    let name = log.display().to_string();
    let f = Following::start(&["--settle", "1", &name]);
    f.expect(&format!(
        "following {name}: 8 events so far, surface 2, head, a turn open"
    ));
    let lines = fixture_lines();
    let (head, rest) = lines[7].split_at(40);
    append(&log, head.as_bytes());
    let offset = lines[..7].concat().len();
    f.expect(&format!(
        "torn-tail J2 at line 8: the final line has no newline after 1 s (40 bytes at byte offset {offset}); DSH drops it on load unless it is completed"
    ));
    append(&log, rest.as_bytes());
    f.expect("tool call bash (call_1, seq 8, line 8)");
}

#[test]
fn a_repair_cut_rereads_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_log(dir.path(), 7);
    let name = log.display().to_string();
    let f = Following::start(&["--settle", "60", &name]);
    f.expect(&format!(
        "following {name}: 8 events so far, surface 2, head, a turn open"
    ));
    let lines = fixture_lines();
    let committed = lines[..7].concat();
    append(&log, b"{\"type\":\"tool/ca");
    let torn = committed.len() + 16;
    // Wait until the half line was read, then cut it as a repair does.
    f.expect_after_poll();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(committed.len() as u64)
        .unwrap();
    f.expect(&format!(
        "reread: the file shrank from {torn} to {} bytes (a repair cut it); reading it from the start",
        committed.len()
    ));
    f.expect(&format!(
        "following {name}: 8 events so far, surface 2, head, a turn open"
    ));
    append(&log, lines[7].as_bytes());
    f.expect("tool call bash (call_1, seq 8, line 8)");
}

impl Following {
    /// Lets the child poll at least once more (its poll interval is 50 ms) before the test
    /// changes the file under it; nothing is asserted on timing.
    fn expect_after_poll(&self) {
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn a_rotation_rereads_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_log(dir.path(), 7);
    let name = log.display().to_string();
    let f = Following::start(&[&name]);
    f.expect(&format!(
        "following {name}: 8 events so far, surface 2, head, a turn open"
    ));
    let fresh = dir.path().join("session.jsonl.new");
    std::fs::write(&fresh, fixture_lines()[..9].concat()).unwrap();
    std::fs::rename(&fresh, &log).unwrap();
    f.expect("reread: the file was replaced (a new inode); reading it from the start");
    f.expect(&format!(
        "following {name}: 10 events so far, surface 3, head, a turn open"
    ));
    append(&log, fixture_lines()[9..16].concat().as_bytes());
    f.expect("replacement by user/message shadowed 3 entries, surface 4 -> 2 (seq 15, line 15)");
    f.expect("tool call bash (call_2, seq 16, line 16)");
}

#[test]
fn zstd_frames_are_read_as_they_complete() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl.zstd");
    let lines = fixture_lines();
    let (bytes, _) = common::zstd_log(&lines[..7].concat(), 3);
    std::fs::write(&log, bytes).unwrap();
    let name = log.display().to_string();
    let f = Following::start(&["--settle", "60", &name]);
    f.expect(&format!(
        "following {name}: 8 events so far, surface 2, head, a turn open"
    ));
    append(&log, &common::zstd_frame(lines[7..9].concat().as_bytes()));
    f.expect("tool call bash (call_1, seq 8, line 8)");
    f.expect("tool result bash: ok (call_1, seq 9, line 9)");
    // A frame in flight is waited for, then read whole.
    let frame = common::zstd_frame(lines[9..16].concat().as_bytes());
    let (head, rest) = frame.split_at(frame.len() / 2);
    append(&log, head);
    f.expect_after_poll();
    append(&log, rest);
    f.expect("replacement by user/message shadowed 3 entries, surface 4 -> 2 (seq 15, line 15)");
    f.expect("tool call bash (call_2, seq 16, line 16)");
}

#[test]
fn sqlite_rows_are_read_as_they_are_inserted() {
    let dir = tempfile::tempdir().unwrap();
    let lines = fixture_lines();
    let prefix = dir.path().join("prefix.jsonl");
    std::fs::write(&prefix, lines[..7].concat()).unwrap();
    let whole = dir.path().join("whole.jsonl");
    std::fs::write(&whole, lines.concat()).unwrap();
    let db = dir.path().join("sessions.db");
    store_from_jsonl(&prefix, &db, 17);
    let full = dir.path().join("full.db");
    store_from_jsonl(&whole, &full, 17);
    let name = db.display().to_string();
    let f = Following::start(&[&name]);
    f.expect(&format!(
        "following {name}: 8 events so far, surface 2, head, a turn open"
    ));
    let mut conn = rusqlite::Connection::open(&db).unwrap();
    let insert = |conn: &mut rusqlite::Connection, from: i64, to: i64| {
        let tx = conn.transaction().unwrap();
        tx.execute("ATTACH DATABASE ?1 AS full", [full.display().to_string()])
            .unwrap();
        tx.execute(
            "INSERT INTO events SELECT * FROM full.events WHERE seq >= ?1 AND seq < ?2",
            [from, to],
        )
        .unwrap();
        tx.commit().unwrap();
        conn.execute("DETACH DATABASE full", []).unwrap();
    };
    insert(&mut conn, 8, 10);
    f.expect("tool call bash (call_1, seq 8)");
    f.expect("tool result bash: ok (call_1, seq 9)");
    insert(&mut conn, 10, 23);
    f.expect("replacement by user/message shadowed 3 entries, surface 4 -> 2 (seq 15)");
    f.expect("tool call bash (call_2, seq 16)");
}

#[test]
fn a_root_picks_up_new_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    let one = root.join("--home-ana-proj--").join("s-compact");
    std::fs::create_dir_all(&one).unwrap();
    let lines = fixture_lines();
    std::fs::write(one.join("session.jsonl"), lines.concat()).unwrap();
    let f = Following::start(&[&root.display().to_string()]);
    let first = one.join("session.jsonl").display().to_string();
    f.expect(&format!(
        "{first}: following, 24 events so far, surface 2, head"
    ));
    // A session created while following: everything it holds is new.
    let two = root.join("--home-ana-proj--").join("s-01");
    std::fs::create_dir_all(&two).unwrap();
    let second = two.join("session.jsonl");
    std::fs::copy(fixture("open-turn-after-tool-call.jsonl"), &second).unwrap();
    let second = second.display().to_string();
    f.expect(&format!("{second}: new session"));
    f.expect(&format!("{second}: turn 1 started (seq 0, line 2)"));
    f.expect(&format!(
        "{second}: tool call bash (call_7, seq 18, line 16)"
    ));
    append(&one.join("session.jsonl"), TURN_2[0].as_bytes());
    f.expect(&format!("{first}: turn 2 started (seq 24, line 24)"));
}

#[test]
fn exit_on_finding_ends_with_1_at_a_corrupt_record() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_log(dir.path(), 7);
    let name = log.display().to_string();
    let f = Following::start(&["--exit-on-finding", &name]);
    f.expect(&format!(
        "following {name}: 8 events so far, surface 2, head, a turn open"
    ));
    append(&log, b"not json\n");
    f.expect("torn-tail J6 at line 8: line is not valid JSON: unexpected token at byte 1; DSH drops it and what follows on load, unless a turn/end commits it (J5)");
    append(
        &log,
        TURN_2[1].replace("\"seq\":25", "\"seq\":8").as_bytes(),
    );
    f.expect("corrupt J5 at line 8: unparsable committed event; a turn/end follows at line 9");
    assert_eq!(f.exit_code(), Some(1));
}

#[test]
fn jsonl_prints_one_object_per_happening() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_log(dir.path(), 7);
    let name = log.display().to_string();
    let f = Following::start(&["--format", "jsonl", &name]);
    let session = f.object();
    assert_eq!(session["schema_version"], 1);
    assert_eq!(session["kind"], "session");
    assert_eq!(session["file"], name.as_str());
    assert_eq!(session["events"], 8);
    assert_eq!(session["open_turn"], true);
    append(&log, fixture_lines()[7..9].concat().as_bytes());
    let call = f.object();
    assert_eq!(
        call,
        serde_json::json!({"schema_version": 1, "kind": "tool-call", "file": name, "session": null, "seq": 8, "line": 8, "call_id": "call_1", "name": "bash"})
    );
    let result = f.object();
    assert_eq!(result["kind"], "tool-result");
    assert_eq!(result["error"], false);
}

#[cfg(unix)]
#[test]
fn ctrl_c_ends_with_a_summary_and_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_log(dir.path(), 9);
    let name = log.display().to_string();
    let f = Following::start(&[&name]);
    f.expect(&format!(
        "following {name}: 10 events so far, surface 3, head, a turn open"
    ));
    let killed = Command::new("kill")
        .args(["-INT", &f.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    f.expect(&format!(
        "stopped following {name}: 10 events so far, surface 3, head, a turn open"
    ));
    assert_eq!(f.exit_code(), Some(0));
}

#[test]
fn provider_findings_are_reported_when_a_turn_ends() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    std::fs::copy(fixture("provider/crashed-call-in-ended-step.jsonl"), &log).unwrap();
    let name = log.display().to_string();
    let f = Following::start(&["--provider", "deepseek", &name]);
    f.expect(&format!(
        "following {name}: 8 events so far, surface 3, head, a turn open"
    ));
    // The closers DSH appends on its next load: the turn ends with call_1 unanswered.
    append(
        &log,
        concat!(
            "{\"type\":\"step/end\",\"seq\":8,\"time\":1760000000107,\"data\":{\"turn\":1,\"step\":2}}\n",
            "{\"type\":\"turn/end\",\"seq\":9,\"time\":1760000000107,\"data\":{\"turn\":1,\"reason\":{\"kind\":\"interrupted\"}}}\n",
        )
        .as_bytes(),
    );
    f.expect("turn 1 ended: interrupted, 0 input and 0 output tokens, 7 ms (seq 9, line 11)");
    f.expect("provider P1 at line 5 (seq 3, message index 1): tool call \"call_1\" has no tool result after it [refused by anthropic, openai, deepseek]");
    // Reported once: the next turn's end does not repeat it.
    append(
        &log,
        concat!(
            "{\"type\":\"turn/start\",\"seq\":10,\"time\":1760000001000,\"data\":{\"turn\":2}}\n",
            "{\"type\":\"turn/end\",\"seq\":11,\"time\":1760000001000,\"data\":{\"turn\":2,\"reason\":{\"kind\":\"aborted\"}}}\n",
        )
        .as_bytes(),
    );
    f.expect("turn 2 started (seq 10, line 12)");
    f.expect("turn 2 ended: aborted, 0 input and 0 output tokens, 0 ms (seq 11, line 13)");
    append(
        &log,
        TURN_2[0]
            .replace("\"seq\":24", "\"seq\":12")
            .replace("\"turn\":2", "\"turn\":3")
            .as_bytes(),
    );
    f.expect("turn 3 started (seq 12, line 14)");
}

#[test]
fn a_session_directory_switches_to_a_higher_generation() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s-compact");
    std::fs::create_dir(&session).unwrap();
    let v0 = session.join("session.jsonl");
    std::fs::write(&v0, fixture_lines().concat()).unwrap();
    let f = Following::start(&[&session.display().to_string()]);
    f.expect(&format!(
        "following {}: 24 events so far, surface 2, head",
        v0.display()
    ));
    let v4 = session.join("session.v4.jsonl");
    // Written beside it and renamed into place, so it appears whole.
    let part = dir.path().join("v4.part");
    std::fs::copy(fixture("v4-tool-result-error.jsonl"), &part).unwrap();
    std::fs::rename(&part, &v4).unwrap();
    f.expect("generation: session.v4.jsonl replaces session.jsonl (DSH migrated the session); reading it from the start");
    f.expect(&format!(
        "following {}: 14 events so far, surface 6, v4",
        v4.display()
    ));
}

/// The live scan fed one line at a time ends where the one-pass scan ends: the same events,
/// surface and verdict, on every sample of every encoding (torn final lines, which a live
/// scan waits for, left out).
#[test]
fn the_live_scan_line_by_line_agrees_with_the_one_pass_scan() {
    if !common::have_samples() {
        return;
    }
    use dsh_session::load::{Input, Line};
    use dsh_session::scan::live::Live;
    use dsh_session::scan::{ScanOptions, Status, scan_path};

    let mut checked = 0;
    for sub in ["jsonl", "zstd", "sqlite", "crashed", "real"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(common::samples().join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.to_string_lossy();
                name.ends_with(".jsonl") || name.ends_with(".zstd") || name.ends_with(".db")
            })
            .collect();
        paths.sort();
        for path in paths {
            // As `follow` judges a live log: as its writer reads it (DSH 0.1.1 for v0).
            let options = ScanOptions {
                dsh: dsh_session::edge::Judge {
                    line: dsh_session::edge::DshLine::V0_1_1,
                    both_lines: false,
                },
                ..ScanOptions::default()
            };
            let whole = scan_path(&path, &options).unwrap();
            let input = Input::open(&path).unwrap();
            let encoding = input.encoding;
            let Ok(mut lines) = input.lines(None) else {
                continue;
            };
            let mut live = match encoding {
                dsh_session::load::Encoding::Sqlite => {
                    Live::sqlite(&path, options.clone(), lines.backend())
                }
                _ => Live::new(&path, encoding, options.clone()),
            };
            let mut line = Line::default();
            while let Ok(true) = lines.next_line(&mut line) {
                if !line.terminated {
                    break;
                }
                let one = Line {
                    bytes: std::mem::take(&mut line.bytes),
                    defect: line.defect.take(),
                    index: line.index.take(),
                    ..line
                };
                if !live.push(&[one], &mut []) {
                    break;
                }
            }
            let name = path.display();
            match whole.status {
                Status::Valid => {
                    assert!(live.finding().is_none(), "{name}: {:?}", live.finding());
                    assert!(live.defect().is_none(), "{name}");
                    assert_eq!(live.report().events, whole.events, "{name}");
                    assert_eq!(live.report().replay.len(), whole.replay.len(), "{name}");
                }
                Status::TornTail => {
                    assert!(live.finding().is_none(), "{name}: {:?}", live.finding());
                    assert_eq!(live.report().events, whole.events, "{name}");
                }
                Status::Corrupt | Status::Refused | Status::Foreign => assert!(
                    live.finding().is_some() || live.defect().is_some(),
                    "{name}: the live scan found nothing wrong"
                ),
            }
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} samples checked");
}

#[test]
fn a_zstd_frame_left_in_flight_past_settle_is_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl.zstd");
    let lines = fixture_lines();
    let (bytes, _) = common::zstd_log(&lines[..7].concat(), 3);
    let offset = bytes.len();
    std::fs::write(&log, bytes).unwrap();
    let name = log.display().to_string();
    let f = Following::start(&["--settle", "1", &name]);
    f.expect(&format!(
        "following {name}: 8 events so far, surface 2, head, a turn open"
    ));
    let frame = common::zstd_frame(lines[7..9].concat().as_bytes());
    append(&log, &frame[..10]);
    f.expect(&format!(
        "torn-tail Z3 at line 8: the file ends inside a zstd frame after 1 s (10 bytes at byte offset {offset}); DSH drops it on load unless it is completed"
    ));
    append(&log, &frame[10..]);
    f.expect("tool call bash (call_1, seq 8, line 8)");
}

#[test]
fn a_log_larger_than_a_poll_chunk_is_read_whole_in_chunks() {
    // A 3 MB line spans three 1 MiB chunks of the plain tail, and the zstd tail meets a
    // frame larger than its chunk.
    let dir = tempfile::tempdir().unwrap();
    let mut lines = fixture_lines();
    // Letters from a small generator: they compress to about 2 MB, a zstd frame larger
    // than a chunk.
    let mut state = 1u64;
    let text: String = (0..3_000_000)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            char::from(b'a' + ((state >> 33) % 26) as u8)
        })
        .collect();
    lines[3] = lines[3].replace("list the files", &text);
    let plain = dir.path().join("session.jsonl");
    std::fs::write(&plain, lines.concat()).unwrap();
    let zstd = dir.path().join("session.jsonl.zstd");
    std::fs::write(&zstd, common::zstd_log(&lines.concat(), 5).0).unwrap();
    for log in [plain, zstd] {
        let name = log.display().to_string();
        let f = Following::start(&[&name]);
        f.expect(&format!(
            "following {name}: 24 events so far, surface 2, head"
        ));
    }
}

/// Catching up quietly, the provider rules run once, at the end, for the history as the
/// last turn end left it (not at every turn end: that costs the surface times the turns).
/// A call still waiting for its result in the turn under way is not counted as reported:
/// it is reported when that turn ends unanswered.
#[test]
fn a_finding_of_the_turn_under_way_at_catch_up_is_reported_when_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    std::fs::write(
        &log,
        concat!(
            "{\"type\":\"session\",\"version\":0,\"id\":\"caught-up\",\"createdAt\":1760000000000,\"cwd\":\"/home/ana/proj\",\"delegationDepth\":0}\n",
            "{\"type\":\"turn/start\",\"seq\":0,\"time\":1760000000100,\"data\":{\"turn\":1}}\n",
            "{\"type\":\"step/start\",\"seq\":1,\"time\":1760000000101,\"data\":{\"turn\":1,\"step\":1}}\n",
            "{\"type\":\"user/message\",\"seq\":2,\"time\":1760000000102,\"data\":{\"id\":\"u-2\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"list the files\"}],\"source\":{\"kind\":\"user\"}},\"surfaceOp\":\"append\"}\n",
            "{\"type\":\"step/end\",\"seq\":3,\"time\":1760000000103,\"data\":{\"turn\":1,\"step\":1}}\n",
            "{\"type\":\"turn/end\",\"seq\":4,\"time\":1760000000104,\"data\":{\"turn\":1,\"reason\":{\"kind\":\"completed\"}}}\n",
            "{\"type\":\"turn/start\",\"seq\":5,\"time\":1760000000200,\"data\":{\"turn\":2}}\n",
            "{\"type\":\"step/start\",\"seq\":6,\"time\":1760000000201,\"data\":{\"turn\":2,\"step\":1}}\n",
            "{\"type\":\"assistant/message\",\"seq\":7,\"time\":1760000000202,\"data\":{\"turn\":2,\"step\":1,\"message\":{\"id\":\"a-7\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\",\"id\":\"call_1\",\"name\":\"bash\",\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}],\"source\":{\"kind\":\"model\",\"provider\":\"deepseek\",\"model\":\"deepseek-reasoner\"}}},\"sourceEventSeqs\":[],\"surfaceOp\":\"append\"}\n",
            "{\"type\":\"tool/call\",\"seq\":8,\"time\":1760000000203,\"data\":{\"turn\":2,\"step\":1,\"callId\":\"call_1\",\"name\":\"bash\",\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}}\n",
            "{\"type\":\"step/end\",\"seq\":9,\"time\":1760000000204,\"data\":{\"turn\":2,\"step\":1}}\n",
        ),
    )
    .unwrap();
    let name = log.display().to_string();
    let f = Following::start(&["--provider", "deepseek", &name]);
    f.expect(&format!(
        "following {name}: 10 events so far, surface 2, head, a turn open"
    ));
    append(
        &log,
        b"{\"type\":\"turn/end\",\"seq\":10,\"time\":1760000000205,\"data\":{\"turn\":2,\"reason\":{\"kind\":\"interrupted\"}}}\n",
    );
    f.expect("turn 2 ended: interrupted, 0 input and 0 output tokens, 5 ms (seq 10, line 12)");
    f.expect("provider P1 at line 9 (seq 7, message index 1): tool call \"call_1\" has no tool result after it [refused by anthropic, openai, deepseek]");
}

/// Catching up, the findings counted as reported are those of the history the last turn
/// end left: a result that came late after it turns a P1 into a P3, which is reported when
/// the turn ends.
#[test]
fn a_finding_changed_after_the_last_turn_end_at_catch_up_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    std::fs::write(
        &log,
        concat!(
            "{\"type\":\"session\",\"version\":0,\"id\":\"late-result\",\"createdAt\":1760000000000,\"cwd\":\"/home/ana/proj\",\"delegationDepth\":0}\n",
            "{\"type\":\"turn/start\",\"seq\":0,\"time\":1760000000100,\"data\":{\"turn\":1}}\n",
            "{\"type\":\"step/start\",\"seq\":1,\"time\":1760000000101,\"data\":{\"turn\":1,\"step\":1}}\n",
            "{\"type\":\"user/message\",\"seq\":2,\"time\":1760000000102,\"data\":{\"id\":\"u-2\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"list the files\"}],\"source\":{\"kind\":\"user\"}},\"surfaceOp\":\"append\"}\n",
            "{\"type\":\"assistant/message\",\"seq\":3,\"time\":1760000000103,\"data\":{\"turn\":1,\"step\":1,\"message\":{\"id\":\"a-3\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\",\"id\":\"call_1\",\"name\":\"bash\",\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}],\"source\":{\"kind\":\"model\",\"provider\":\"deepseek\",\"model\":\"deepseek-reasoner\"}}},\"sourceEventSeqs\":[],\"surfaceOp\":\"append\"}\n",
            "{\"type\":\"tool/call\",\"seq\":4,\"time\":1760000000104,\"data\":{\"turn\":1,\"step\":1,\"callId\":\"call_1\",\"name\":\"bash\",\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}}\n",
            "{\"type\":\"step/end\",\"seq\":5,\"time\":1760000000105,\"data\":{\"turn\":1,\"step\":1}}\n",
            "{\"type\":\"turn/end\",\"seq\":6,\"time\":1760000000106,\"data\":{\"turn\":1,\"reason\":{\"kind\":\"interrupted\"}}}\n",
            "{\"type\":\"turn/start\",\"seq\":7,\"time\":1760000000200,\"data\":{\"turn\":2}}\n",
            "{\"type\":\"step/start\",\"seq\":8,\"time\":1760000000201,\"data\":{\"turn\":2,\"step\":1}}\n",
            "{\"type\":\"user/message\",\"seq\":9,\"time\":1760000000202,\"data\":{\"id\":\"u-9\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"go on\"}],\"source\":{\"kind\":\"user\"}},\"surfaceOp\":\"append\"}\n",
            "{\"type\":\"tool/result\",\"seq\":10,\"time\":1760000000203,\"data\":{\"turn\":2,\"step\":1,\"message\":{\"id\":\"r-10\",\"role\":\"user\",\"content\":[{\"type\":\"tool-result\",\"toolCallId\":\"call_1\",\"content\":[{\"type\":\"text\",\"text\":\"a.txt\"}],\"isError\":false}],\"source\":{\"kind\":\"tool\",\"callId\":\"call_1\"}}},\"surfaceOp\":\"append\"}\n",
        ),
    )
    .unwrap();
    let name = log.display().to_string();
    let f = Following::start(&["--provider", "deepseek", &name]);
    f.expect(&format!(
        "following {name}: 11 events so far, surface 4, head, a turn open"
    ));
    append(
        &log,
        concat!(
            "{\"type\":\"step/end\",\"seq\":11,\"time\":1760000000204,\"data\":{\"turn\":2,\"step\":1}}\n",
            "{\"type\":\"turn/end\",\"seq\":12,\"time\":1760000000205,\"data\":{\"turn\":2,\"reason\":{\"kind\":\"completed\"}}}\n",
        )
        .as_bytes(),
    );
    f.expect("turn 2 ended: completed, 0 input and 0 output tokens, 5 ms (seq 12, line 14)");
    f.expect("provider P3 at line 5 (seq 3, message index 1): tool call \"call_1\" is answered at seq 10, not right after the call: the message at seq 9 comes between [refused by anthropic, openai, deepseek]");
}

/// By default `follow` prints what is said, one line each, cut to the terminal's width
/// (`$COLUMNS` off a terminal); `--reasoning` adds the reasoning. SIGTERM ends it as Ctrl-C
/// does: the closing line, exit 0 (issue 44.2).
#[test]
fn what_is_said_is_printed_and_sigterm_says_goodbye() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_log(dir.path(), 3);
    let name = log.display().to_string();
    let f = Following::start_saying(&[&name]);
    f.expect(&format!(
        "following {name}: 2 events so far, surface 0, head, a turn open"
    ));
    append(&log, fixture_lines()[3..].concat().as_bytes());
    f.expect("user: list the files (seq 2, line 4)");
    f.expect("assistant: Let me look. (seq 7, line 7)");
    f.expect("tool call bash (call_1, seq 8, line 8)");
    f.expect("tool result bash: ok (call_1, seq 9, line 9)");
    f.expect("assistant: Two files. (seq 12, line 12)");
    f.expect("user: Summary: the user listed two files. (seq 15, line 15)");
    f.expect("replacement by user/message shadowed 3 entries, surface 4 -> 2 (seq 15, line 15)");
    f.expect("tool call bash (call_2, seq 16, line 16)");
    f.expect("tool result bash: ok (call_2, seq 17, line 17)");
    f.expect("tool result bash: ok (call_2, seq 19, line 19)");
    f.expect("replacement by tool/result shadowed 1 entry, surface 3 -> 3 (seq 19, line 19)");
    // 60 columns: the text is cut with … so that the line fits.
    f.expect("user: Summary: two files; a.txt says hell… (seq 20, line 20)");
    f.expect("replacement by user/message shadowed 2 entries, surface 3 -> 2 (seq 20, line 20)");
    f.expect("turn 1 ended: completed, 1850 input and 25 output tokens, 23 ms (seq 23, line 23)");
    let pid = f.child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    f.expect(&format!(
        "stopped following {name}: 24 events so far, surface 2, head"
    ));
    assert_eq!(f.exit_code(), Some(0));
}
