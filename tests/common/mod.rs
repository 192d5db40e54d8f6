//! Helpers shared by the CLI tests.
#![allow(dead_code)]

pub mod store;

use std::path::PathBuf;

use assert_cmd::Command;

/// The `dsh-session` binary under test.
pub fn dsh() -> Command {
    let mut cmd = Command::cargo_bin("dsh-session").expect("binary built by cargo test");
    cmd.env_remove("NO_COLOR");
    cmd
}

/// `../shared/samples`, read in place (never copied into the project).
pub fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/samples")
}

/// A fixture under `fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// Runs `dsh-session validate --format jsonl FILE` and returns the parsed verdict.
pub fn verdict(path: &std::path::Path) -> serde_json::Value {
    let out = dsh()
        .args(["validate", "--format", "jsonl"])
        .arg(path)
        .output()
        .expect("runs");
    let line = String::from_utf8(out.stdout).expect("utf-8");
    serde_json::from_str(
        line.lines()
            .next()
            .unwrap_or_else(|| panic!("no verdict for {}", path.display())),
    )
    .expect("one JSON object")
}

/// The rows of `EXPECTED.tsv`: (file relative to samples, status, rule).
pub fn expected_samples() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(samples().join("EXPECTED.tsv")).expect("EXPECTED.tsv");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols[0].to_owned(), cols[1].to_owned(), cols[2].to_owned())
        })
        .collect()
}
