//! Defects a new user found in the newer commands (issue 44), each with its input.

mod common;

use common::{dsh, fixture};

/// `repair --dry-run -` plans the log read from standard input (a dry run writes nothing);
/// a repair that writes still needs the log's path.
#[test]
fn a_dry_run_repair_reads_standard_input() {
    let log = fixture("open-turn-after-tool-call.jsonl");
    let by_path = dsh()
        .args(["repair", "--dry-run"])
        .arg(&log)
        .output()
        .unwrap();
    let from_stdin = dsh()
        .args(["repair", "--dry-run", "-"])
        .pipe_stdin(&log)
        .unwrap()
        .output()
        .unwrap();
    assert_eq!(from_stdin.status.code(), Some(0));
    let by_path = String::from_utf8(by_path.stdout).unwrap();
    let from_stdin = String::from_utf8(from_stdin.stdout).unwrap();
    assert!(
        from_stdin.starts_with("-: would append 3 closer records:\n"),
        "{from_stdin}"
    );
    assert_eq!(
        from_stdin,
        by_path.replace(log.to_str().unwrap(), "-"),
        "the same plan, named -"
    );
    let json = dsh()
        .args(["repair", "--dry-run", "--format", "json", "-"])
        .pipe_stdin(&log)
        .unwrap()
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        (&json["file"], &json["status"]),
        (&"-".into(), &"would repair".into())
    );
    let real = dsh()
        .args(["repair", "-"])
        .pipe_stdin(&log)
        .unwrap()
        .output()
        .unwrap();
    assert_eq!(real.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(real.stderr).unwrap(),
        "dsh-session: -: standard input cannot be repaired in place; give the log's path, or plan it with --dry-run\n"
    );
}

/// `search` names a file as its root was given on the command line, in the text and the
/// JSON output alike (JSON said absolute, text relative to the current directory).
#[test]
fn search_names_files_as_given_in_every_output() {
    let v3 = "fixtures/generations/v3-ptc-dispatch-two-starts";
    let json = dsh()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["search", "files", v3, "-q", "--format", "json"])
        .output()
        .unwrap();
    let hits: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let file = format!("{v3}/session.v3.jsonl");
    assert_eq!(hits[0]["file"], file.as_str());
    assert_eq!(
        hits[0]["open"],
        format!("dsh-session messages {file} --seq 3").as_str()
    );
    let text = dsh()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["search", "files", &format!("./{v3}/"), "-q", "-l"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(text.stdout).unwrap(),
        format!("./{v3}/session.v3.jsonl\n")
    );
}
