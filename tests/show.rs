//! `show` on hand-made fixtures and on the real samples read in place: exact summary lines
//! and JSON values.
//!
//! Read as the DSH that writes each log's generation loads it (`--dsh writer`: a v0 log as
//! DSH 0.1.1, v3 as 0.1.5, v4 as 0.1.7); `show`'s line for the other DSH lines is in
//! tests/edges.rs.

mod common;

use common::{dsh_writer, fixture, samples};
use serde_json::{Value, json};

fn stdout(args: &[&str]) -> String {
    let out = dsh_writer().args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn show_json(path: &std::path::Path) -> Value {
    let text = stdout(&[
        "show",
        "--format",
        "json",
        path.to_str().expect("utf-8 path"),
    ]);
    serde_json::from_str(&text).expect("one JSON object")
}

/// The summary lines of `show` (the turn table left out).
fn summary_lines(path: &std::path::Path) -> Vec<String> {
    stdout(&["show", path.to_str().expect("utf-8 path")])
        .lines()
        .take_while(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_result_after_step_end_answers_its_call() {
    // The call's step ends and the next starts before its result is recorded: the derived
    // history has the result right after the call, so nothing is unanswered.
    let path = fixture("result-after-step-end.jsonl");
    let lines = summary_lines(&path);
    assert!(
        lines.contains(&"tool calls:   1 call, 1 result, 0 unanswered".to_owned()),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("unanswered:")),
        "{lines:#?}"
    );
    let show = show_json(&path);
    assert_eq!(show["status"], "valid");
    assert_eq!(show["steps"], 2);
    assert_eq!(show["unanswered_calls"], 0);
    assert_eq!(show["warnings"], json!([]));
}

/// The keys `show --format json` adds about the session's title, models and settings.
fn settings(show: &Value) -> Value {
    json!({
        "title": show["title"],
        "models": show["models"],
        "agent_preset": show["agent_preset"],
        "header_agent_preset": show["header_agent_preset"],
        "permission_preset": show["permission_preset"],
        "sandbox_mode": show["sandbox_mode"],
        "approval_policy": show["approval_policy"],
        "child_sessions": show["child_sessions"],
    })
}

fn real(name: &str) -> std::path::PathBuf {
    samples().join("real").join(name)
}

#[test]
fn real_v4_session_shows_its_title_model_presets_and_children() {
    if !common::have_samples() {
        return;
    }
    let path = real("capital-generation.session.v4.jsonl");
    let lines = summary_lines(&path);
    assert_eq!(
        lines[..4],
        [
            format!("file:         {}", path.display()),
            "session id:   session-b34ec611-ab29-4459-9687-cea3088cd560".to_owned(),
            "title:        指南针下周操作重点分析".to_owned(),
            "models:       xiaomi-token-plan-cn/mimo-v2.6-flash (23 assistant messages)".to_owned(),
        ]
    );
    for line in [
        "agent preset: capital-generation (header: cordis)",
        "permission:   workspace-write",
        "sandbox:      workspace-write",
        "approval:     ask",
        "subagents:    3 child sessions named",
        "tool calls:   13 calls, 13 results, 0 unanswered",
    ] {
        assert!(lines.iter().any(|l| l == line), "no {line:?} in {lines:#?}");
    }
    let show = show_json(&path);
    assert_eq!(
        settings(&show),
        json!({
            "title": "指南针下周操作重点分析",
            "models": [{
                "provider": "xiaomi-token-plan-cn",
                "model": "mimo-v2.6-flash",
                "assistant_messages": 23,
            }],
            "agent_preset": "capital-generation",
            "header_agent_preset": "cordis",
            "permission_preset": "workspace-write",
            "sandbox_mode": "workspace-write",
            "approval_policy": "ask",
            "child_sessions": 3,
        })
    );
}

#[test]
fn real_v3_prefix_without_title_or_model_leaves_them_out() {
    if !common::have_samples() {
        return;
    }
    // The prefix ends before the first title and the first assistant message.
    let path = real("dumen.prefix.session.v3.jsonl");
    let lines = summary_lines(&path);
    for missing in ["title:", "models:", "subagents:"] {
        assert!(
            !lines.iter().any(|l| l.starts_with(missing)),
            "{missing} in {lines:#?}"
        );
    }
    for line in [
        "agent preset: standard (header: code, renamed ptc at v3)",
        "permission:   danger-full-access",
        "sandbox:      danger-full-access",
        "approval:     never",
    ] {
        assert!(lines.iter().any(|l| l == line), "no {line:?} in {lines:#?}");
    }
    assert_eq!(
        settings(&show_json(&path)),
        json!({
            "title": null,
            "models": [],
            "agent_preset": "standard",
            "header_agent_preset": "code",
            "permission_preset": "danger-full-access",
            "sandbox_mode": "danger-full-access",
            "approval_policy": "never",
            "child_sessions": null,
        })
    );
}

#[test]
fn latest_settings_and_every_model_in_first_named_order() {
    // Two titles, two agent-preset and permission changes, a model only selected, one
    // named by model/selection, request/context and an assistant message, and a child
    // named twice by subagent/catalog.
    let path = fixture("models-presets-and-children.jsonl");
    let lines = summary_lines(&path);
    assert_eq!(
        lines[1..4],
        [
            "session id:   s-settings",
            "title:        Release plan",
            "models:       openrouter/qwen3-coder (0 assistant messages), deepseek/deepseek-reasoner (1 assistant message), deepseek/deepseek-chat (2 assistant messages)",
        ]
    );
    assert_eq!(
        lines[12..17],
        [
            "agent preset: plan (header: standard)",
            "permission:   read-only",
            "sandbox:      workspace-write",
            "approval:     ask",
            "subagents:    2 child sessions named",
        ]
    );
    assert_eq!(
        settings(&show_json(&path)),
        json!({
            "title": "Release plan",
            "models": [
                {"provider": "openrouter", "model": "qwen3-coder", "assistant_messages": 0},
                {"provider": "deepseek", "model": "deepseek-reasoner", "assistant_messages": 1},
                {"provider": "deepseek", "model": "deepseek-chat", "assistant_messages": 2},
            ],
            "agent_preset": "plan",
            "header_agent_preset": "standard",
            "permission_preset": "read-only",
            "sandbox_mode": "workspace-write",
            "approval_policy": "ask",
            "child_sessions": 2,
        })
    );
}

#[test]
fn a_v0_log_names_its_model_from_the_assistant_source() {
    let path = fixture("compaction-and-prune.jsonl");
    assert_eq!(
        settings(&show_json(&path)),
        json!({
            "title": null,
            "models": [{"provider": "deepseek", "model": "deepseek-chat", "assistant_messages": 2}],
            "agent_preset": null,
            "header_agent_preset": null,
            "permission_preset": null,
            "sandbox_mode": null,
            "approval_policy": null,
            "child_sessions": null,
        })
    );
    let lines = summary_lines(&path);
    assert_eq!(
        lines[2],
        "models:       deepseek/deepseek-chat (2 assistant messages)"
    );
    assert!(lines.contains(&"agent preset: -".to_owned()), "{lines:#?}");
}

#[test]
fn sessions_of_a_jsonl_root_show_the_title() {
    if !common::have_samples() {
        return;
    }
    // A copy under a root directory, as `sessions` lists it (the sample itself is read in
    // place everywhere else).
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("project").join("session");
    std::fs::create_dir_all(&session).unwrap();
    std::fs::copy(
        real("capital-generation.session.v4.jsonl"),
        session.join("session.v4.jsonl"),
    )
    .unwrap();
    let root = dir.path().to_str().unwrap();
    let rows: Value =
        serde_json::from_str(&stdout(&["sessions", "--format", "json", root])).unwrap();
    assert_eq!(rows[0]["title"], "指南针下周操作重点分析");
    assert_eq!(rows[0]["events"], 188);
    let table = stdout(&["sessions", root]);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    // The columns issue 28 asks of a root's listing, from the index.
    assert_eq!(
        header,
        [
            "session", "title", "project", "created", "last", "activity", "turns", "model",
            "status", "size"
        ]
    );
    assert!(table.contains(" 指南针下周操作重点分析 "), "{table}");
    assert!(
        table.contains(" 2026-09-26T05:57Z   2026-09-27T03:28Z   11 "),
        "{table}"
    );
    assert_eq!(rows[0]["last_activity"], "2026-09-27T03:28:15.676Z");
    assert_eq!(rows[0]["model"], "xiaomi-token-plan-cn/mimo-v2.6-flash");
    assert_eq!(rows[0]["tool_calls"], 13);
}

#[test]
fn readme_show_example_is_the_output() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let command = "$ dsh-session show fixtures/open-turn-after-tool-call.jsonl\n";
    let example =
        &readme[readme.find(command).expect("the example in README.md") + command.len()..];
    let example = &example[..example.find("```").expect("the end of the example")];
    let out = dsh_writer()
        .current_dir(root)
        .args(["show", "fixtures/open-turn-after-tool-call.jsonl"])
        .output()
        .expect("runs");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), example);
}

/// A session `recover` or `trim` wrote says where it came from (issue 38.5): no header
/// member can say it, so `show` reads the recovery note and the trim marks; a session
/// DSH wrote has none.
#[test]
fn a_recovered_or_trimmed_session_says_where_it_came_from() {
    let root = tempfile::tempdir().expect("temp dir");
    let run = |args: &[&str]| {
        let out = common::dsh().args(args).output().expect("runs");
        assert!(out.status.success(), "{args:?}: {out:?}");
    };
    let out = root.path().to_str().unwrap();
    let broken = fixture("rules/H6-cwd-null.jsonl");
    run(&["recover", broken.to_str().unwrap(), "--out", out]);
    let recovered = root.path().join("_no-cwd/s-1-recovered/session.jsonl");
    assert!(
        summary_lines(&recovered).contains(
            &"derived from: session s-1, by dsh-session recover (see its last message)".to_owned()
        ),
        "{:?}",
        summary_lines(&recovered)
    );
    let d = &show_json(&recovered)["derived_from"];
    assert_eq!(
        (d["session"].as_str(), d["by"].as_str()),
        (Some("s-1"), Some("dsh-session recover"))
    );
    assert!(
        d["note"].as_str().unwrap().starts_with(
            "[dsh-session recover] This session was recovered by dsh-session from session s-1, whose log DSH refuses (H6 at line 1"
        ),
        "{d}"
    );

    let source = fixture("recover/three-turns-with-tool-calls.jsonl");
    let trimmed_root = root.path().join("trimmed");
    run(&[
        "trim",
        source.to_str().unwrap(),
        "--tool-output-max",
        "2",
        "--out",
        trimmed_root.to_str().unwrap(),
    ]);
    let mut logs = Vec::new();
    for project in std::fs::read_dir(&trimmed_root).unwrap() {
        for session in std::fs::read_dir(project.unwrap().path()).unwrap() {
            logs.push(session.unwrap().path().join("session.jsonl"));
        }
    }
    assert_eq!(logs.len(), 1);
    assert!(
        summary_lines(&logs[0]).contains(
            &"derived from: session s-1, by dsh-session trim (2 tool results cut)".to_owned()
        ),
        "{:?}",
        summary_lines(&logs[0])
    );
    assert_eq!(show_json(&logs[0])["derived_from"]["trimmed_results"], 2);
    // The source itself came from nowhere.
    assert_eq!(show_json(&source)["derived_from"], Value::Null);
}

#[test]
fn show_prices_the_session_as_stats_does() {
    let log = fixture("usage/deepseek-peak-and-off-peak.jsonl");
    let lines = summary_lines(&log);
    let cost = lines
        .iter()
        .find(|l| l.starts_with("cost:"))
        .expect("a cost line");
    assert_eq!(
        cost,
        "cost:         13.2000 CNY (cache hit 1.2600, cache miss 5.7000, output 6.2400); no price: deepseek-official/deepseek-v5-preview"
    );
    let v = show_json(&log);
    assert_eq!(
        v["cost"],
        json!({"CNY": {"total": 13.2, "cache_hit": 1.26, "cache_miss": 5.7, "cache_write": 0.0, "output": 6.24}})
    );
    assert_eq!(
        v["unpriced"],
        json!(["deepseek-official/deepseek-v5-preview"])
    );
}
