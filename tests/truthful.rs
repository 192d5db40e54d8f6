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
