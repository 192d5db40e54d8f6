//! Provider readiness (P1–P7): one smallest fixture per class in `fixtures/provider/`, the
//! exact finding each gives, the gate of `validate --provider NAME` and `--strict`, and
//! what `repair` says stays. The real samples and the valid test-suite samples (sessions
//! the providers accepted) give no provider finding.

mod common;

use std::path::Path;

use common::{dsh, dsh_writer, fixture, samples, verdict_writer};
use serde_json::{Value, json};

fn provider_fixture(name: &str) -> std::path::PathBuf {
    fixture(&format!("provider/{name}"))
}

/// (rule, seq, line, message_index, anthropic_index, call_id) of each warning.
/// The provider findings of a fixture, as the DSH that writes its generation loads it (a
/// v0 fixture as DSH 0.1.1, a v4 one as 0.1.7: the fixtures are built in those rules; the
/// frozen edges of DSH 0.1.5 and later refuse some of the v0 ones).
fn findings(path: &Path) -> Vec<Value> {
    verdict_writer(path)["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| {
            json!([
                w["rule"],
                w["seq"],
                w["line"],
                w["message_index"],
                w["anthropic_index"],
                w["call_id"]
            ])
        })
        .collect()
}

/// Each class fixture: its findings, and the profiles that refuse it.
const CLASSES: &[(&str, &str, &[&str])] = &[
    (
        "P1-call-unanswered-in-closed-turn.jsonl",
        r#"[["P1",3,5,1,1,"call_1"]]"#,
        &["anthropic", "openai", "deepseek"],
    ),
    (
        "P2-result-without-call.jsonl",
        r#"[["P2",3,5,1,1,"call_9"]]"#,
        &["anthropic", "openai", "deepseek"],
    ),
    (
        "P3-user-message-between-call-and-result.jsonl",
        r#"[["P3",3,5,1,1,"call_1"]]"#,
        &["anthropic", "openai", "deepseek"],
    ),
    // v4: a system head (message 0), tool-role results.
    (
        "P3-v4-user-message-between-call-and-result.jsonl",
        r#"[["P3",4,6,2,2,"call_1"]]"#,
        &["anthropic", "openai", "deepseek"],
    ),
    (
        "P4-reasoning-tokens-but-no-reasoning.jsonl",
        r#"[["P4",9,11,3,3,null]]"#,
        &["deepseek"],
    ),
    // A tool call openai/gpt-4o made, sent to DeepSeek in a session whose
    // deepseek-v4-flash messages carry reasoning.
    (
        "P4-tool-call-from-another-model.jsonl",
        r#"[["P4",3,5,1,1,null]]"#,
        &["deepseek"],
    ),
    (
        "P5-lone-surrogate.jsonl",
        r#"[["P5",2,4,0,0,null]]"#,
        &["anthropic", "openai", "deepseek"],
    ),
    (
        "P6-duplicate-call-id.jsonl",
        r#"[["P6",8,10,3,3,"call_1"]]"#,
        &["anthropic"],
    ),
    (
        "P7-empty-text-block.jsonl",
        r#"[["P7",2,4,0,0,null]]"#,
        &["anthropic"],
    ),
    // Several at once: the first turn's second call is never answered, its first is
    // answered after a user message; the second turn has an orphan result.
    (
        "several-findings.jsonl",
        r#"[["P1",3,5,1,1,"call_2"],["P3",3,5,1,1,"call_1"],["P2",12,14,5,5,"call_7"]]"#,
        &["anthropic", "openai", "deepseek"],
    ),
];

#[test]
fn each_class_fixture_gives_its_exact_finding() {
    for (name, expected, _) in CLASSES {
        let path = provider_fixture(name);
        assert_eq!(
            verdict_writer(&path)["status"],
            "valid",
            "{name} is valid for DSH"
        );
        let expected: Vec<Value> = serde_json::from_str(expected).expect("json");
        assert_eq!(findings(&path), expected, "{name}");
    }
}

#[test]
fn a_profile_fails_the_gate_on_the_classes_it_refuses() {
    for (name, _, refused_by) in CLASSES {
        let path = provider_fixture(name);
        for profile in ["anthropic", "openai", "deepseek"] {
            let out = dsh_writer()
                .args(["validate", "--provider", profile])
                .arg(&path)
                .output()
                .expect("runs");
            let code = if refused_by.contains(&profile) { 1 } else { 0 };
            assert_eq!(out.status.code(), Some(code), "{name} --provider {profile}");
        }
        // Without a profile, provider findings are warnings.
        let out = dsh_writer()
            .arg("validate")
            .arg(&path)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{name}");
        // --strict fails on any warning.
        let out = dsh_writer()
            .args(["validate", "--strict"])
            .arg(&path)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{name} --strict");
    }
}

#[test]
fn the_text_says_valid_for_dsh_refused_by_the_provider_and_why() {
    let path = provider_fixture("P4-reasoning-tokens-but-no-reasoning.jsonl");
    let out = dsh()
        .args(["validate", "--color", "never", "--provider", "deepseek"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "{0}: valid for DSH, refused by deepseek (14 events, surface 5, head)\n  error P4 at line 11 (seq 9, message index 3): assistant message with tool calls has no reasoning, although its usage reports reasoning tokens: the reasoning the model returned is not in the history DSH sends back; deepseek answers: Missing `reasoning_content` field in the assistant message at message index 3\n1 valid, 0 torn-tail, 0 corrupt, 0 refused, 1 refused by deepseek\n",
            path.display()
        )
    );
    // The same finding is a plain warning for a profile that does not enforce it.
    let out = dsh()
        .args(["validate", "--color", "never", "--provider", "openai"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "{0}: valid (14 events, surface 5, head)\n  warning P4 at line 11 (seq 9, message index 3): assistant message with tool calls has no reasoning, although its usage reports reasoning tokens: the reasoning the model returned is not in the history DSH sends back\n1 valid, 0 torn-tail, 0 corrupt, 0 refused, 0 refused by openai\n",
            path.display()
        )
    );
}

#[test]
fn json_and_github_carry_the_provider_findings_with_their_lines() {
    let path = provider_fixture("P2-result-without-call.jsonl");
    let out = dsh_writer()
        .args(["validate", "--format", "json", "--provider", "anthropic"])
        .arg(&path)
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let finding = json!({
        "rule": "P2", "seq": 3, "line": 5, "row": null,
        "message": "tool result for call \"call_9\" answers no tool call before it",
        "message_index": 1, "anthropic_index": 1, "call_id": "call_9",
        "refused_by": ["anthropic", "openai", "deepseek"]
    });
    assert_eq!(v[0]["warnings"], json!([finding]));
    assert_eq!(
        v[0]["provider"],
        json!({"name": "anthropic", "accepted": false, "findings": [finding]})
    );
    let out = dsh_writer()
        .args(["validate", "--format", "github", "--provider", "deepseek"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "::error file={},line=5,title=P2 refused by deepseek::seq 3: tool result for call \"call_9\" answers no tool call before it\n::notice title=dsh-session validate::1 valid, 0 torn-tail, 0 corrupt, 0 refused, 1 refused by deepseek\n",
            path.display()
        )
    );
}

#[test]
fn real_and_valid_samples_give_no_provider_finding() {
    if !common::have_samples() {
        return;
    }
    let mut logs: Vec<std::path::PathBuf> = std::fs::read_dir(samples().join("real"))
        .expect("real samples")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    let expected = std::fs::read_to_string(samples().join("EXPECTED.tsv")).expect("tsv");
    for row in expected.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        // Crashed logs end inside an open turn; their unanswered calls are P1 by design.
        if cols[1] == "valid" && !cols[0].starts_with("crashed/") {
            logs.push(samples().join(cols[0]));
        }
    }
    assert!(logs.len() > 40, "{} logs", logs.len());
    for log in logs {
        let out = dsh_writer()
            .args(["validate", "--provider", "deepseek", "--strict"])
            .arg(&log)
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            log.display(),
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn repair_names_what_a_dsh_repair_leaves() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A crashed log whose unanswered call's step had ended: DSH's closers skip it.
    let log = dir.path().join("session.jsonl");
    std::fs::copy(provider_fixture("crashed-call-in-ended-step.jsonl"), &log).expect("copy");
    // DSH 0.1.1 loads it (DSH 0.1.5 and later refuse the step/end that left the call: F10).
    let out = dsh_writer()
        .args(["repair", "--dry-run", "--format", "json"])
        .arg(&log)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["status"], "would repair");
    assert_eq!(
        v["stays"],
        json!([{
            "rule": "P1", "seq": 3, "line": 5, "row": null,
            "message_index": 1, "anthropic_index": 1, "call_id": "call_1",
            "refused_by": ["anthropic", "openai", "deepseek"],
            "message": "tool call \"call_1\" has no tool result after it",
            "why": "the call's step ended (step/end) before the crash: DSH's closers answer only the calls of the step still open"
        }])
    );

    // DSH's closer lands after a user message recorded since the call: P3 after repair.
    std::fs::copy(
        provider_fixture("crashed-user-message-after-call.jsonl"),
        &log,
    )
    .expect("copy");
    let out = dsh()
        .args(["repair", "--no-backup"])
        .arg(&log)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with(&format!(
            "{0}: the history stays unsendable: 1 provider finding that DSH's repair does not close:\n  P3 at line 5 (seq 3, message index 1): tool call \"call_1\" is answered at seq 6, not right after the call: the message at seq 5 comes between [refused by anthropic, openai, deepseek]\n    why it stays: DSH's closer answers the call at the end of the log, after the messages recorded since the call\n  `dsh-session repair --provider NAME` heals them append-only (README: \"Healing for a provider\")\n",
            log.display()
        )),
        "{text}"
    );
    // The repaired log is valid for DSH and still refused by the provider.
    let out = dsh()
        .args(["validate", "--provider", "deepseek"])
        .arg(&log)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    // A second run: nothing to repair, and it still says what stays.
    let out = dsh()
        .args(["repair", "--dry-run"])
        .arg(&log)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!(
            "{0}: nothing to repair\n{0}: the history stays unsendable: 1 provider finding",
            log.display()
        )),
        "{text}"
    );
}

#[test]
fn rules_lists_the_providers_of_each_provider_rule() {
    let out = dsh()
        .args(["rules", "--format", "json"])
        .output()
        .expect("runs");
    let rules: Vec<Value> = serde_json::from_slice(&out.stdout).expect("json");
    let providers = |id: &str| {
        rules
            .iter()
            .find(|r| r["rule"] == id)
            .unwrap_or_else(|| panic!("{id} listed"))["providers"]
            .clone()
    };
    assert_eq!(providers("P1"), json!(["anthropic", "openai", "deepseek"]));
    assert_eq!(providers("P4"), json!(["deepseek"]));
    assert_eq!(providers("P7"), json!(["anthropic"]));
    assert_eq!(providers("E1"), json!([]));
    // The old ids stay listed as aliases.
    let w1 = rules.iter().find(|r| r["rule"] == "W1").expect("W1 listed");
    assert!(
        w1["meaning"]
            .as_str()
            .is_some_and(|s| s.starts_with("alias of P1")),
        "{w1}"
    );
}

/// The shape of a user's v0 log from Windows (issue 24): deepseek-v4-flash in thinking mode,
/// tool steps whose model produced no reasoning (`reasoningTokens: 0`, no reasoning block)
/// answered by DeepSeek afterwards, and an open final turn with one pending call. DSH's
/// DeepSeek serializer omits an empty `reasoning_content`, and DeepSeek answered the next
/// steps with that very history: no provider refuses it, and the pending call is a note
/// (DSH closes the turn on load), not a finding.
#[test]
fn a_thinking_session_whose_tool_steps_produced_no_reasoning_is_accepted() {
    let path = provider_fixture("thinking-tool-steps-without-reasoning.jsonl");
    let note = "the final turn is still open with 1 pending call (\"call_3\"): DSH will close it on load (`dsh-session repair` writes the same closers now)\n  note: written on Windows: DSH on Linux or macOS refuses it (cwd `C:\\Users\\ana\\proj` is not absolute there); on Windows it loads (--platform posix judges as Linux and macOS)";
    for provider in ["deepseek", "anthropic", "openai"] {
        let out = dsh()
            .args(["validate", "--color", "never", "--provider", provider])
            .arg(&path)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{provider}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!(
                "{}: valid (22 events, surface 8, head)\n  note: {note}\n1 valid, 0 torn-tail, 0 corrupt, 0 refused, 0 refused by {provider}\n",
                path.display()
            )
        );
        let out = dsh()
            .args(["validate", "--format", "json", "--provider", provider])
            .arg(&path)
            .output()
            .expect("runs");
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(v[0]["warnings"], json!([]), "{provider}");
        assert_eq!(
            v[0]["notes"],
            json!(note.split("\n  note: ").collect::<Vec<_>>()),
            "{provider}"
        );
        assert_eq!(
            v[0]["provider"],
            json!({"name": provider, "accepted": true, "findings": []})
        );
    }
    // The repair DSH would make: the three closers, and nothing to heal.
    let out = dsh()
        .args([
            "repair",
            "--provider",
            "deepseek",
            "--dry-run",
            "--format",
            "json",
        ])
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let plan: Value = serde_json::from_slice(&out.stdout).expect("json");
    let closers: Vec<&str> = plan["closers"]
        .as_array()
        .expect("closers")
        .iter()
        .map(|c| c["type"].as_str().or(c.as_str()).unwrap_or_default())
        .collect();
    assert_eq!(closers.len(), 3, "{plan}");
    assert_eq!(plan["heals"], json!([]), "{plan}");
    assert_eq!(plan["unhealed"], json!([]), "{plan}");
    assert_eq!(plan["stays"], json!([]), "{plan}");
    // `messages --provider` sends the same history plus the closers.
    let out = dsh()
        .args(["messages", "--provider", "deepseek", "--format", "json"])
        .arg(&path)
        .output()
        .expect("runs");
    // A drop-in history on standard output; what was added, as notes on standard error.
    let healed: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(healed.as_array().map(Vec::len), Some(9), "{healed}");
    let notes = String::from_utf8_lossy(&out.stderr);
    let added: Vec<&str> = notes
        .lines()
        .filter_map(|l| l.split("DSH's crash repair appends ").nth(1))
        .collect();
    assert_eq!(
        added,
        [
            "a tool/result for the interrupted call \"call_3\"",
            "step/end",
            "turn/end (interrupted)"
        ],
        "{notes}"
    );
    // `show` gives no provider warning either, and says what DSH does with the open turn.
    let out = dsh().args(["show"]).arg(&path).output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("warning:"), "{text}");
    assert!(
        text.contains("unanswered:   call call_3 announced at seq 20 (turn still open: DSH will close it on load)"),
        "{text}"
    );
}

/// A provider's error text names the message as that provider counts it: DeepSeek's
/// "message index N" with the OpenAI-compatible index, Anthropic's `messages.N` with the
/// Anthropic one (issue 25).
#[test]
fn each_provider_answer_fills_its_own_index() {
    let run = |provider: &str, name: &str| {
        let out = dsh()
            .args(["validate", "--color", "never", "--provider", provider])
            .arg(provider_fixture(name))
            .output()
            .expect("runs");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    // v4 with a system head: message index 2 for OpenAI-compatible adapters, messages.2 in
    // Anthropic's array (whose system prompt is no message, but whose system head is).
    let anthropic = run(
        "anthropic",
        "P3-v4-user-message-between-call-and-result.jsonl",
    );
    assert!(
        anthropic.contains("  error P3 at line 6 (seq 4, messages.2): ")
            && anthropic.contains("; anthropic answers: messages.2: `tool_use` ids were found without `tool_result` blocks immediately after\n"),
        "{anthropic}"
    );
    let deepseek = run("deepseek", "P4-tool-call-from-another-model.jsonl");
    assert!(
        deepseek.contains(" (seq 3, message index 1): ")
            && deepseek.contains("at message index 1\n"),
        "{deepseek}"
    );
    assert!(!deepseek.contains("index N") && !anthropic.contains("messages.N"));
}
