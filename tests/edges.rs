//! The frozen migration edges of DSH 0.1.5 and later (GENERATIONS §4–§7, `src/edge/`):
//! one fixture per refusal class (fixtures/edges/), each refused by default with the edge,
//! line, seq, event type and member named, and loaded as it is by DSH 0.1.1
//! (`--dsh 0.1.1`); what `show`, `version`, the reading commands, `stats` and `repair` do
//! with such a log.
//!
//! Every verdict here agrees with DSH's own edge code: the published v0→v1 package judges
//! the same files in tests/oracle.rs (`oracle/run`), F10 included — the frozen relationship
//! check refuses it in every DSH from 0.1.5 on; only a native v4 read drifted (README "DSH
//! release lines").

mod common;

use common::{brief, dsh, dsh_011, fixture, samples, verdict, verdict_011, verdict_as};
use serde_json::Value;

fn edge_fixture(name: &str) -> std::path::PathBuf {
    fixture(&format!("edges/{name}"))
}

/// (fixture, "STATUS RULE SEQ LINE", message): the first refusal of the chain.
const CASES: &[(&str, &str, &str)] = &[
    (
        "F1-ignorable-unknown-type.jsonl",
        "refused F1 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): format v0 contains unknown historical event type \"future/thing\" at seq 3; migration refuses unknown historical events even when ignorable",
    ),
    (
        "F10-step-end-leaves-a-call-unresolved.jsonl",
        "refused F10 4 6",
        "DSH 0.1.5 and later refuse to migrate it (the check of the migrated log): step/end leaves unresolved tool call call_1",
    ),
    (
        "F2-hook-result-without-turn.jsonl",
        "refused F2 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): hook/result 3 data lacks required member \"turn\"",
    ),
    (
        "F2-inbox-insert-without-id.jsonl",
        "refused F2 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): agent/inbox/spliced 3 inserted message lacks required member \"id\"",
    ),
    (
        "F2-permission-preset-with-origin.jsonl",
        "refused F2 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): permission/preset 3 data has unexpected member \"origin\"",
    ),
    (
        "F3-approval-decided-outcome-outside-its-list.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): approval/decided 3 outcome must be one of allowed-once, rejected, cancelled, unavailable",
    ),
    (
        "F3-assistant-message-step-zero.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v2→v3 edge): assistant/message 3 step must be positive",
    ),
    (
        "F3-assistant-message-turn-negative-zero.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): assistant/message 3 turn must be a non-negative safe integer",
    ),
    (
        "F3-compact-plugin-source-without-compaction-id.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): user/message 3 source compactionId must be a non-empty string",
    ),
    (
        "F3-continuable-subagent-descriptor-without-label.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): subagent/descriptor 3 label must be a non-empty string",
    ),
    (
        "F3-plugin-source-summary-without-notice-form.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): user/message 3 source summary requires notice form",
    ),
    (
        "F3-request-header-tool-not-an-object.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): request/header 3 header tools[0] must be a JSON object",
    ),
    (
        "F3-sandbox-mode-outside-its-list.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): sandbox/mode 3 mode must be one of read-only, workspace-write, danger-full-access",
    ),
    (
        "F3-subagent-descriptor-invalid-mode.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): subagent/descriptor 3 mode must be one of continuable",
    ),
    (
        "F3-todo-status-outside-its-list.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): todo/write 3 todos[0] status must be one of pending, in_progress, completed",
    ),
    (
        "F3-tool-call-block-with-empty-id.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): assistant/message 3 message content[0] id must be a non-empty string",
    ),
    (
        "F3-tool-call-block-with-empty-name.jsonl",
        "refused F3 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): assistant/message 3 message content[0] name must be a non-empty string",
    ),
    (
        "F3-tool-result-error-on-a-result-that-is-not-an-error.jsonl",
        "refused F3 5 7",
        "DSH 0.1.5 and later refuse to migrate it (the v2→v3 edge): format v3 tool/result at seq 5 carries error metadata for a non-error tool result",
    ),
    (
        "F4-subagent-descriptor-version-2.jsonl",
        "refused F4 0 2",
        "DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): subagent/descriptor 0 uses unsupported descriptor version 2",
    ),
    (
        "F5-content-block-of-an-unknown-kind.jsonl",
        "refused F5 2 4",
        "DSH 0.1.5 and later refuse to migrate it (the v2→v3 edge): format v2 user/message at seq 2 data.content[1]: cannot safely transform unclassified message content kind \"audio\"",
    ),
    (
        "F5-retired-source-kind-instruction-hint.jsonl",
        "refused F5 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the v2→v3 edge): cannot safely transform unclassified message source (kind \"instruction-hint\")",
    ),
    (
        "F6-same-call-id-advertised-twice-in-one-step.jsonl",
        "refused F6 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the check of the migrated log): assistant/message repeats advertised tool call call_1",
    ),
    (
        "F6-step-event-after-its-turn-ended.jsonl",
        "refused F6 5 7",
        "DSH 0.1.5 and later refuse to migrate it (the check of the migrated log): assistant/message does not match an open turn and step",
    ),
    (
        "F6-tool-call-arguments-differ-from-the-advertised-call.jsonl",
        "refused F6 4 6",
        "DSH 0.1.5 and later refuse to migrate it (the check of the migrated log): tool/call call_1 does not match one advertised tool call",
    ),
    (
        "F6-tool-result-after-the-last-turn-end.jsonl",
        "refused F6 8 10",
        "DSH 0.1.5 and later refuse to migrate it (the check of the migrated log): tool/result replacement is outside an open turn",
    ),
    (
        "F6-tool-result-for-a-call-never-advertised.jsonl",
        "refused F6 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the check of the migrated log): tool/result call_9 has no advertised tool lifecycle",
    ),
    (
        "F6-turn-end-while-a-step-is-open.jsonl",
        "refused F6 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the check of the migrated log): turn/end 1 crosses an open step",
    ),
    (
        "F6-turn-start-while-a-turn-is-open.jsonl",
        "refused F6 4 6",
        "DSH 0.1.5 and later refuse to migrate it (the v1→v2 edge): turn/start 2 does not close the prior turn",
    ),
    (
        "F7-message-cites-part-of-its-attempt.jsonl",
        "refused F7 5 7",
        "DSH 0.1.5 and later refuse to migrate it (the v1→v2 edge): assistant/message 5 chunk provenance is not one complete ordered attempt",
    ),
    (
        "F7-packed-tool-call-row-with-empty-id.jsonl",
        "refused F7 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the frozen v0 codec): released tool-call-chunks row 3 id and optional name must be strings",
    ),
    (
        "F7-reference-to-a-consumed-chunk.jsonl",
        "refused F7 5 7",
        "DSH 0.1.5 and later refuse to migrate it (the v1→v2 edge): user/message 5 sources targets consumed assistant/chunk 3",
    ),
    (
        "F8-system-prompt-changed-outside-a-step.jsonl",
        "refused F8 1 3",
        "DSH 0.1.5 and later refuse to migrate it (the v2→v3 edge): format v2 changed request prompt outside an open step cannot retain source chronology",
    ),
    (
        "F8-user-message-before-the-first-step.jsonl",
        "refused F8 1 3",
        "DSH 0.1.5 and later refuse to migrate it (the v2→v3 edge): format v2 surface before first step cannot acquire a system head without changing chronology",
    ),
    (
        "F9-command-done-without-its-run.jsonl",
        "refused F9 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the check of the migrated log): command/done cmd-1 has no prior command/run",
    ),
    (
        "F9-compaction-checkpoint-outside-a-compaction.jsonl",
        "refused F9 3 5",
        "DSH 0.1.5 and later refuse to migrate it (the check of the migrated log): compaction checkpoint at seq 3 has no matching compaction/start",
    ),
    (
        "F9-title-cites-an-assistant-message.jsonl",
        "refused F9 4 6",
        "DSH 0.1.5 and later refuse to migrate it (the check of the migrated log): session/title 4 messageSeqs must cite earlier human user/message events",
    ),
];

#[test]
fn every_refusal_class_has_a_fixture_refused_by_default_and_loaded_by_dsh_0_1_1() {
    let mut names: Vec<String> = std::fs::read_dir(fixture("edges"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('F'))
        .collect();
    names.sort();
    let mut listed: Vec<String> = CASES.iter().map(|c| c.0.to_owned()).collect();
    listed.sort();
    assert_eq!(names, listed, "fixtures/edges and CASES differ");
    let mut rules = std::collections::BTreeSet::new();
    for &(name, want, message) in CASES {
        let path = edge_fixture(name);
        let v = verdict(&path);
        let rule = want.split(' ').nth(1).unwrap();
        rules.insert(rule);
        assert_eq!(brief(&v), want, "{name}: {v}");
        assert_eq!(v["message"], message, "{name}");
        assert!(
            message.starts_with("DSH 0.1.5 and later refuse to migrate it (the "),
            "{name}"
        );
        // DSH 0.1.1 loads every one of them as it is.
        let old = verdict_011(&path);
        assert_eq!(brief(&old), "valid - - -", "{name} --dsh 0.1.1: {old}");
        assert!(
            old["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .all(|w| w["rule"] != "F10"),
            "{name}: the edges are not DSH 0.1.1's"
        );
    }
    // Every rule of the family.
    assert_eq!(
        rules.into_iter().collect::<Vec<_>>(),
        ["F1", "F10", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9"]
    );
}

#[test]
fn what_the_edges_convert_is_not_reported() {
    for name in [
        "valid-legacy-shapes-the-edges-convert.jsonl",
        // The edge code never applies the chunk rules to a top-level chunk of a v0 log:
        // its stream is embedded as it is (GENERATIONS §3 reports a refusal from third
        // parties only).
        "valid-flat-replay-state-on-a-chunk.jsonl",
    ] {
        let v = verdict(&edge_fixture(name));
        assert_eq!(brief(&v), "valid - - -", "{name}: {v}");
        assert_eq!(v["warnings"], serde_json::json!([]), "{name}");
    }
}

#[test]
fn dsh_names_a_release_and_refuses_what_it_does_not_describe() {
    let path = edge_fixture("F4-subagent-descriptor-version-2.jsonl");
    for (version, status) in [
        ("0.1.1", "valid"),
        ("0.1.1-rc.2", "valid"),
        ("0.1.0", "valid"),
        ("0.1.5", "refused"),
        ("0.1.5-rc.2", "refused"),
        ("0.2.1-alpha.2", "refused"),
        ("latest", "refused"),
    ] {
        let out = dsh()
            .args(["--dsh", version, "validate", "--format", "jsonl"])
            .arg(&path)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["status"], status, "--dsh {version}");
        // A global option: after the subcommand too.
        let after = dsh()
            .args(["validate", "--dsh", version, "--format", "jsonl"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(
            after.stdout, out.stdout,
            "--dsh {version} after the subcommand"
        );
    }
    for bad in ["0.1.3", "one", "0.1"] {
        let out = dsh()
            .args(["--dsh", bad, "validate"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--dsh {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--dsh"), "{err}");
    }
}

#[test]
fn show_and_version_say_what_both_release_lines_do() {
    let path = edge_fixture("F4-subagent-descriptor-version-2.jsonl");
    let both = "DSH 0.1.1 loads it; DSH 0.1.5+ refuses to migrate it (the v0→v1 edge, F4 at line 2, seq 0): subagent/descriptor 0 uses unsupported descriptor version 2";
    for judge in [&[][..], &["--dsh", "0.1.1"]] {
        let out = dsh().args(judge).arg("show").arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{judge:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(&format!("\ndsh:          {both}\n")),
            "{judge:?}\n{text}"
        );
        let status = if judge.is_empty() { "refused" } else { "valid" };
        assert!(
            text.contains(&format!("\nstatus:       {status}\n")),
            "{text}"
        );
        let json: Value = serde_json::from_slice(
            &dsh()
                .args(judge)
                .args(["show", "--format", "json"])
                .arg(&path)
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        assert_eq!(
            (json["status"].as_str(), json["dsh"].as_str()),
            (Some(status), Some(both))
        );
        let out = dsh()
            .args(judge)
            .arg("version")
            .arg(&path)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(&format!("\ndsh:            {both}\n")),
            "{text}"
        );
        // The verdict of the line the command judges as: refused (exit 1), or valid.
        assert_eq!(
            out.status.code(),
            Some(i32::from(judge.is_empty())),
            "{text}"
        );
    }
    // A log both lines load.
    let ok = fixture("rules/valid-minimal-turn.jsonl");
    let text = String::from_utf8(dsh().arg("version").arg(&ok).output().unwrap().stdout).unwrap();
    assert!(
        text.contains("\ndsh:            DSH 0.1.1 loads it; DSH 0.1.5+ migrates it\n"),
        "{text}"
    );
    // Other generations: DSH 0.1.1 does not read them, the line is left out (a real v4
    // log of ../shared, which a user's clone may not have beside it).
    if !common::have_samples() {
        return;
    }
    let v4 = samples().join("real/capital-generation.session.v4.jsonl");
    let json: Value = serde_json::from_slice(
        &dsh()
            .args(["show", "--format", "json"])
            .arg(&v4)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(json["dsh"], Value::Null);
}

#[test]
fn the_reading_commands_read_a_log_only_the_edges_refuse_as_dsh_0_1_1_loads_it() {
    let path = edge_fixture("F2-permission-preset-with-origin.jsonl");
    let warning = format!(
        "dsh-session: {}: warning: refused F2 at line 5 (seq 3): DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): permission/preset 3 data has unexpected member \"origin\"; shown whole, as DSH 0.1.1 loads it\n",
        path.display()
    );
    for args in [
        &["surface"][..],
        &["messages"],
        &["replacements"],
        &["provenance", "X", "2"],
    ] {
        let mut cmd = dsh();
        for a in args {
            if *a == "X" {
                cmd.arg(&path);
            } else {
                cmd.arg(a);
            }
        }
        if args[0] != "provenance" {
            cmd.arg(&path);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), warning, "{args:?}");
        let mut old = dsh_011();
        for a in args {
            if *a == "X" {
                old.arg(&path);
            } else {
                old.arg(a);
            }
        }
        if args[0] != "provenance" {
            old.arg(&path);
        }
        let old = old.output().unwrap();
        assert_eq!(
            old.stdout, out.stdout,
            "{args:?}: the same output as DSH 0.1.1's"
        );
        assert_eq!(String::from_utf8_lossy(&old.stderr), "", "{args:?}");
    }
}

#[test]
fn stats_counts_a_log_only_the_edges_refuse_in_full_and_lists_it() {
    let path = edge_fixture("F2-permission-preset-with-origin.jsonl");
    let out = dsh()
        .args(["stats", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["total"]["turns"], 1, "{v}");
    assert_eq!(v["not_valid"][0]["rule"], "F2", "{v}");
    let old = dsh_011()
        .args(["stats", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(old.status.code(), Some(0));
    let old: Value = serde_json::from_slice(&old.stdout).unwrap();
    assert_eq!(old["total"], v["total"]);
}

#[test]
fn repair_leaves_a_log_the_edges_refuse_unless_judged_as_dsh_0_1_1() {
    let dir = tempfile::tempdir().unwrap();
    // A crashed v0 subagent child: its turn is open, and its descriptor has version 2.
    let log = dir.path().join("session.jsonl");
    let mut text =
        std::fs::read_to_string(edge_fixture("F4-subagent-descriptor-version-2.jsonl")).unwrap();
    text.truncate(text.trim_end().rfind('\n').unwrap() + 1); // drop turn/end
    text.truncate(text.trim_end().rfind('\n').unwrap() + 1); // drop step/end
    std::fs::write(&log, &text).unwrap();
    let out = dsh()
        .args(["repair", "--dry-run"])
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refused F4 at line 2 (seq 0): DSH 0.1.5 and later refuse to migrate it"),
        "{err}"
    );
    let out = dsh_011()
        .args(["repair", "--dry-run"])
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"type\":\"turn/end\""));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        text,
        "a dry run writes nothing"
    );
}

#[test]
fn a_v3_or_v4_log_gets_its_own_generations_lifecycle_check_by_every_line_that_reads_it() {
    for (name, want, message) in [
        (
            "G9-v3-turn-end-while-a-step-is-open.jsonl",
            "corrupt G9 8 10",
            "turn/end 1 crosses an open step (the check of a v3 log, as DSH 0.1.5 and later read it)",
        ),
        (
            "G9-v4-tool-call-arguments-differ-from-the-advertised-call.jsonl",
            "corrupt G9 7 9",
            "tool/call call_1 does not match one advertised tool call (the check of a v4 log, as DSH 0.1.7 and later read it)",
        ),
    ] {
        // The default line and the line of the DSH that writes the generation.
        let line = if name.contains("-v3-") {
            "0.1.5"
        } else {
            "0.1.7"
        };
        for v in [
            verdict(&edge_fixture(name)),
            verdict_as(&["--dsh", line], &edge_fixture(name)),
        ] {
            assert_eq!(
                (brief(&v).as_str(), v["message"].as_str()),
                (want, Some(message)),
                "{name}"
            );
        }
        // DSH 0.1.1 reads only v0.
        let old = verdict_011(&edge_fixture(name));
        assert_eq!(
            (old["status"].as_str(), old["rule"].as_str()),
            (Some("refused"), Some("G10")),
            "{name}: {old}"
        );
    }
    // The real v3 and v4 logs pass it (../shared, which a user's clone may not have).
    if !common::have_samples() {
        return;
    }
    for name in [
        "capital-generation.session.v4.jsonl",
        "dumen.prefix.session.v3.jsonl",
        "tolik-benchmark.prefix.session.v4.jsonl",
    ] {
        let v = verdict(&samples().join("real").join(name));
        assert_eq!(brief(&v), "valid - - -", "{name}: {v}");
    }
}

#[test]
fn a_v3_log_is_held_to_the_frozen_released_v3_vocabulary() {
    let path = edge_fixture("U1-v3-code-dispatch-without-ignorable.jsonl");
    for v in [verdict(&path), verdict_as(&["--dsh", "0.1.5"], &path)] {
        assert_eq!(
            (brief(&v).as_str(), v["message"].as_str()),
            (
                "refused U1 5 7",
                Some(
                    "unknown event type \"tool/code-dispatch-start\" without ignorable: true: it is not in the released v3 vocabulary, and DSH refuses it"
                )
            ),
            "{v}"
        );
    }
    // Marked ignorable, the same record is opaque (S-v23V), and so is another harness's type.
    let dir = tempfile::tempdir().unwrap();
    let ignorable = dir.path().join("session.v3.jsonl");
    let text = std::fs::read_to_string(&path).unwrap().replace(
        r#""tool/code-dispatch-start","seq":5,"#,
        r#""tool/code-dispatch-start","seq":5,"ignorable":true,"#,
    );
    std::fs::write(&ignorable, text).unwrap();
    let v = verdict(&ignorable);
    assert_eq!(brief(&v), "valid - - -", "{v}");
    assert_eq!(v["warnings"], serde_json::json!([]), "{v}");
}
