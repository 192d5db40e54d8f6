//! Every sample in ../shared/samples gets the verdict and rule EXPECTED.tsv gives when
//! judged as DSH 0.1.1-rc.2 (`--dsh 0.1.1`: EXPECTED.tsv holds its verdicts), the verdicts
//! of DSH 0.1.5 and later by default (the samples its frozen edges refuse are named here),
//! and every valid sample can be shown, surfaced, versioned and turned into messages.

mod common;

use common::{dsh_011, expected_samples, samples, verdict, verdict_011};

/// The samples DSH 0.1.5 and later refuse although DSH 0.1.1 loads them (EXPECTED.tsv:
/// valid), with the rule of the first refusal of the frozen edges. Every other sample gets
/// EXPECTED.tsv's verdict by default too (SQLite stores are not read by those DSHs).
const REFUSED_BY_THE_EDGES: &[(&str, &str)] = &[
    // A user message before the first step/start (pre-react-loop logs): the v2→v3 edge
    // cannot place the system head before it.
    (
        "jsonl/apps__web__tests__snapshots__approval-composer__session.jsonl",
        "F8",
    ),
    (
        "jsonl/apps__web__tests__snapshots__code-mode-round__session.jsonl",
        "F8",
    ),
    (
        "jsonl/apps__web__tests__snapshots__minimal-preset__session.jsonl",
        "F8",
    ),
    (
        "jsonl/examples__headless-agent__tests__semantic-checkpoint-snapshots__tool-outcome-unknown__session.expected.jsonl",
        "F8",
    ),
    (
        "jsonl/examples__headless-agent__tests__subagent-diagnostic-snapshots__descriptorless-child__parent.expected.jsonl",
        "F8",
    ),
    (
        "jsonl/examples__headless-agent__tests__subagent-inheritance-snapshots__parent-override__child.replay.jsonl",
        "F8",
    ),
    (
        "jsonl/examples__headless-agent__tests__workspace-context-resume-snapshots__offline-edit__session.expected.jsonl",
        "F8",
    ),
    (
        "zstd/apps__web__tests__snapshots__approval-composer__session.jsonl.zstd",
        "F8",
    ),
    // Every subagent child: DSH 0.1.0-rc.7 to 0.1.1-rc.2 wrote descriptor version 2.
    (
        "jsonl/examples__acp-agent__tests__snapshots__advanced-toolchain__session.1.jsonl",
        "F4",
    ),
    (
        "jsonl/examples__acp-agent__tests__snapshots__subagent-child-question-rejection__session.1.jsonl",
        "F4",
    ),
    (
        "jsonl/examples__acp-agent__tests__snapshots__subagent-continuable-inheritance__session.1.jsonl",
        "F4",
    ),
    (
        "jsonl/examples__acp-agent__tests__snapshots__subagent-continuable__session.1.jsonl",
        "F4",
    ),
    (
        "jsonl/examples__acp-agent__tests__snapshots__subagent-fork-in-process__session.1.jsonl",
        "F4",
    ),
    (
        "jsonl/examples__acp-agent__tests__snapshots__subagent-mixed__session.1.jsonl",
        "F4",
    ),
    (
        "jsonl/examples__acp-agent__tests__snapshots__subagent-multi__session.1.jsonl",
        "F4",
    ),
    (
        "jsonl/examples__acp-agent__tests__snapshots__subagent-parallel__session.1.jsonl",
        "F4",
    ),
    (
        "jsonl/examples__acp-agent__tests__snapshots__subagent-report__session.1.jsonl",
        "F4",
    ),
    (
        "jsonl/examples__headless-agent__tests__snapshots__advanced-toolchain__session.2.jsonl",
        "F4",
    ),
    (
        "jsonl/examples__headless-agent__tests__subagent-inheritance-snapshots__parent-override__child.expected.jsonl",
        "F4",
    ),
    (
        "zstd/examples__acp-agent__tests__snapshots__advanced-toolchain__session.1.jsonl.zstd",
        "F4",
    ),
    (
        "zstd/examples__headless-agent__tests__subagent-inheritance-snapshots__parent-override__child.expected.jsonl.zstd",
        "F4",
    ),
    // A compaction checkpoint (a replace from the `compact` plugin) outside a compaction.
    (
        "jsonl/examples__acp-agent__tests__snapshots__agent-instructions__session.jsonl",
        "F9",
    ),
    // A hook/result without its turn (a hand-written test-suite log).
    (
        "jsonl/packages__test-support__acp-snapshot__tests__fixtures__suite__blocked-log__session.jsonl",
        "F2",
    ),
];

#[test]
fn by_default_every_sample_gets_the_verdict_of_dsh_0_1_5_and_later() {
    let mut mismatches = Vec::new();
    for (file, status, rule) in expected_samples() {
        let (want_status, want_rule) = match REFUSED_BY_THE_EDGES.iter().find(|(f, _)| *f == file) {
            Some((_, rule)) => ("refused".to_owned(), (*rule).to_owned()),
            None => (status, rule),
        };
        let v = verdict(&samples().join(&file));
        let got_rule = v["rule"].as_str().unwrap_or("-");
        if v["status"] != want_status.as_str() || got_rule != want_rule {
            mismatches.push(format!(
                "{file}: expected {want_status} {want_rule}, got {} {got_rule} ({})",
                v["status"], v["message"]
            ));
        }
        if want_rule.starts_with('F') {
            let message = v["message"].as_str().unwrap_or_default();
            assert!(
                message.starts_with("DSH 0.1.5 and later refuse to migrate it (the "),
                "{file}: {message}"
            );
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // The upstream subagent child whose descriptor has version 2, word for word.
    let v = verdict(&samples().join(REFUSED_BY_THE_EDGES[8].0));
    assert_eq!(
        (v["line"].as_u64(), v["seq"].as_u64(), v["message"].as_str()),
        (
            Some(6),
            Some(4),
            Some(
                "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): subagent/descriptor 4 uses unsupported descriptor version 2"
            )
        )
    );
}

#[test]
fn judged_as_dsh_0_1_1_validate_agrees_with_expected_tsv_on_every_sample() {
    let rows = expected_samples();
    assert!(
        rows.len() >= 70,
        "EXPECTED.tsv lists {} samples",
        rows.len()
    );
    let mut mismatches = Vec::new();
    for (file, status, rule) in &rows {
        let v = verdict_011(&samples().join(file));
        let got_rule = v["rule"].as_str().unwrap_or("-");
        if v["status"] != status.as_str() || got_rule != rule {
            mismatches.push(format!(
                "{file}: expected {status} {rule}, got {} {got_rule} ({})",
                v["status"], v["message"]
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn every_sample_is_covered_by_expected_tsv() {
    let listed: std::collections::HashSet<String> =
        expected_samples().into_iter().map(|r| r.0).collect();
    for dir in ["jsonl", "zstd", "sqlite"] {
        for entry in std::fs::read_dir(samples().join(dir)).unwrap() {
            let name = format!("{dir}/{}", entry.unwrap().file_name().to_string_lossy());
            assert!(listed.contains(&name), "{name} is not in EXPECTED.tsv");
        }
    }
}

#[test]
fn views_run_on_every_valid_sample() {
    for (file, status, _) in expected_samples() {
        if status != "valid" {
            continue;
        }
        let path = samples().join(&file);
        for args in [
            &["show"][..],
            &["surface"],
            &["version"],
            &["messages"],
            &["surface", "--format", "json"],
            &["show", "--format", "json"],
        ] {
            let out = dsh_011().args(args).arg(&path).output().unwrap();
            assert!(
                out.status.success(),
                "{args:?} {file}: exit {:?}\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // messages is a JSON array with one element per projected surface entry.
        let out = dsh_011().arg("messages").arg(&path).output().unwrap();
        let messages: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("messages is JSON");
        let surface = dsh_011()
            .args(["surface", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        let surface: serde_json::Value =
            serde_json::from_slice(&surface.stdout).expect("surface is JSON");
        let messages = messages.as_array().expect("an array");
        assert!(
            messages.len() <= surface.as_array().expect("an array").len(),
            "{file}"
        );
        for m in messages {
            assert!(
                m["role"].is_string() && m["content"].is_array(),
                "{file}: {m}"
            );
        }
    }
}

#[test]
fn zstd_twin_gives_the_same_messages_as_plain() {
    for entry in std::fs::read_dir(samples().join("zstd")).unwrap() {
        let zst = entry.unwrap().path();
        let name = zst
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".zstd")
            .to_owned();
        let plain = samples().join("jsonl").join(&name);
        if !plain.exists() {
            continue;
        }
        let a = dsh_011().arg("messages").arg(&plain).output().unwrap();
        let b = dsh_011().arg("messages").arg(&zst).output().unwrap();
        assert_eq!(a.status.code(), b.status.code(), "{name}");
        assert_eq!(
            a.stdout, b.stdout,
            "{name}: messages differ between plain and zstd"
        );
        let a = dsh_011().arg("surface").arg(&plain).output().unwrap();
        let b = dsh_011().arg("surface").arg(&zst).output().unwrap();
        assert_eq!(a.stdout, b.stdout, "{name}: surfaces differ");
    }
}
