//! `dsh-session mcp` end to end (issue 30): a real MCP client, the official MCP Python SDK
//! (tests/mcp_client.py: `ClientSession` over `stdio_client`), initializes, lists the tools
//! and calls each on a generated JSONL root with a planted word; the answers are compared
//! with what the commands print. Without Python and its `mcp` package the client test
//! skips (a failure with `DSH_SESSION_REQUIRE_ALL=1`); the raw protocol test needs neither.
#![cfg(feature = "mcp")]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// The word gen-session plants in the first user message of session bench-session-1.
const PLANTED: &str = "zebrafinch";

/// The Python with the MCP SDK: `$DSH_SESSION_PYTHON` (`.ci/run` points it at a venv under
/// target/), else `python3`; `None` when it cannot import `mcp`.
fn python() -> Option<String> {
    let python = std::env::var("DSH_SESSION_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&python)
        .args(["-c", "import mcp.client.stdio"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(python)
}

/// [`python`], or `None` after saying the client tests skip (a failure with
/// `DSH_SESSION_REQUIRE_ALL=1`).
fn sdk_python() -> Option<String> {
    let found = python();
    if found.is_none() {
        common::require(
            "the MCP Python SDK",
            false,
            "`pip install mcp` (or set DSH_SESSION_PYTHON to a Python that has it)",
        );
    }
    found
}

/// The gen-session example, built by `cargo test` (or here, when only this test was built).
fn gen_session() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary");
    let debug = exe.parent().and_then(Path::parent).expect("target/debug");
    let example = debug
        .join("examples")
        .join(format!("gen-session{}", std::env::consts::EXE_SUFFIX));
    if !example.is_file() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--example", "gen-session"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build --example gen-session");
    }
    example
}

fn run_ok(cmd: &mut Command) {
    let status = cmd.status().expect("runs");
    assert!(status.success(), "{cmd:?}");
}

/// A JSONL root under `dir`: bench-session-0, -1 (with [`PLANTED`]) and -2 of one to three
/// turns; bench-session-77 of 40 turns (about 180 kB of messages after a compaction at
/// turn 30); and s-1, a corrupt log (a seq gap). Returns the root.
fn generated_root(dir: &Path) -> PathBuf {
    let root = dir.join("root");
    let generator = gen_session();
    run_ok(
        Command::new(&generator)
            .args([
                "--sessions",
                "3",
                "--turns",
                "3",
                "--plant",
                PLANTED,
                "--out",
            ])
            .arg(&root),
    );
    let big = root.join("p9").join("big");
    std::fs::create_dir_all(&big).expect("dir");
    run_ok(
        Command::new(&generator)
            .args(["--seed", "77", "--turns", "40", "--out"])
            .arg(big.join("session.jsonl")),
    );
    let bad = root.join("p8").join("bad");
    std::fs::create_dir_all(&bad).expect("dir");
    std::fs::copy(
        common::fixture("rules/J4-seq-gap-committed.jsonl"),
        bad.join("session.jsonl"),
    )
    .expect("copy");
    root
}

/// What `dsh-session ARGS FILE` prints, as JSON.
fn cli_json(args: &[&str], file: &Path) -> Value {
    cli_json_then(args, file, &[])
}

/// What `dsh-session ARGS FILE THEN` prints, as JSON.
fn cli_json_then(args: &[&str], file: &Path, then: &[&str]) -> Value {
    let out = common::dsh()
        .args(args)
        .arg(file)
        .args(then)
        .output()
        .expect("runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// The seq of the first assistant message with tool calls in `log`, and those call ids.
fn first_call(log: &Path) -> (u64, Vec<String>) {
    let text = std::fs::read_to_string(log).expect("log");
    for line in text.lines().skip(1) {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if event["type"] != "assistant/message" {
            continue;
        }
        let calls: Vec<String> = event["data"]["message"]["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == "tool-call")
            .map(|b| b["id"].as_str().expect("id").to_owned())
            .collect();
        if !calls.is_empty() {
            return (event["seq"].as_u64().expect("seq"), calls);
        }
    }
    panic!("no tool call in {}", log.display())
}

#[test]
fn an_mcp_client_calls_every_tool() {
    let Some(python) = sdk_python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let root = generated_root(dir.path());
    let index = dir.path().join("index.db");
    let small = root.join("p1/s1/session.jsonl");
    let big = root.join("p9/big/session.jsonl");
    let bad = root.join("p8/bad/session.jsonl");
    let (call_seq, call_ids) = first_call(&small);
    let calls = json!([
        ["list_sessions", {}],
        ["list_sessions", {"status": "corrupt"}],
        ["search", {"query": PLANTED}],
        ["show", {"session": "bench-session-1"}],
        ["messages", {"session": "bench-session-1"}],
        ["messages", {"session": "bench-session-77"}],
        ["messages", {"next_of": 5}],
        ["messages", {"session": "bench-session-1", "from_seq": call_seq, "to_seq": call_seq}],
        ["validate", {"session": "bench-session-1"}],
        ["validate", {"session": "bench-session-1", "provider": "anthropic"}],
        ["provenance", {"session": "bench-session-1", "seq": call_seq}],
        ["show", {"session": "nope"}],
        ["show", {"session": "bench-session-"}],
        ["show", {"session": "s-1"}],
        ["messages", {"session": "bench-session-7", "from_turn": 35, "to_turn": 35}],
        ["messages", {"session": "bench-session-77", "from_turn": 2, "to_turn": 2}],
        ["get_message", {"session": "bench-session-1", "seq": call_seq}],
        ["get_message", {"session": "bench-session-1", "seq": 0}],
        ["messages", {"session": "bench-session-1", "revision": "0-0"}],
    ]);
    let spec = json!({
        "command": env!("CARGO_BIN_EXE_dsh-session"),
        "args": ["mcp", "--root", root, "--index", index],
        "env": {"NO_COLOR": "1", "PATH": std::env::var("PATH").unwrap_or_default()},
        "calls": calls,
    });
    let got = client(&python, &spec);
    assert_eq!(got["server"]["name"], "dsh-session");
    let mut names: Vec<&str> = got["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "get_message",
            "list_sessions",
            "messages",
            "provenance",
            "search",
            "show",
            "validate"
        ]
    );
    // Every tool declares the shape of its answer (MCP 2025-06-18 `outputSchema`), and
    // every answer that is not an error carries it as `structuredContent`, the same JSON as
    // its text (the SDK checked it against the schema).
    for tool in got["tools"].as_array().expect("tools") {
        assert_eq!(tool["outputSchema"]["type"], "object", "{}", tool["name"]);
    }
    for (i, call) in got["calls"].as_array().expect("calls").iter().enumerate() {
        if call["isError"] == true {
            assert!(
                call.get("structured").is_none_or(Value::is_null),
                "call {i}"
            );
            continue;
        }
        let text: Value = serde_json::from_str(call["text"].as_str().expect("text")).expect("JSON");
        assert_eq!(call["structured"], text, "call {i}");
    }
    // Every argument has a JSON Schema with a description for the model.
    for tool in got["tools"].as_array().expect("tools") {
        assert!(tool["description"].as_str().is_some_and(|d| d.len() > 40));
        for (name, schema) in tool["inputSchema"]["properties"]
            .as_object()
            .expect("properties")
        {
            assert!(
                schema.get("description").is_some(),
                "{}.{name} has no description",
                tool["name"]
            );
        }
    }
    let answers: Vec<(bool, String)> = got["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .map(|c| {
            (
                c["isError"].as_bool().expect("isError"),
                c["text"].as_str().expect("text").to_owned(),
            )
        })
        .collect();
    let ok = |i: usize| -> Value {
        let (error, text) = &answers[i];
        assert!(!error, "call {i} failed: {text}");
        serde_json::from_str(text).unwrap_or_else(|e| panic!("call {i}: {e}: {text}"))
    };
    let error = |i: usize| -> &str {
        let (error, text) = &answers[i];
        assert!(error, "call {i} should fail: {text}");
        text
    };

    // list_sessions: every session, the corrupt one among them; then the corrupt one alone.
    let listed = ok(0);
    let mut ids: Vec<&str> = listed["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["session"].as_str().expect("id"))
        .collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "bench-session-0",
            "bench-session-1",
            "bench-session-2",
            "bench-session-77",
            "s-1"
        ]
    );
    assert_eq!(listed["more"], 0);
    let corrupt = ok(1);
    assert_eq!(corrupt["sessions"].as_array().expect("rows").len(), 1);
    assert_eq!(corrupt["sessions"][0]["session"], "s-1");
    assert_eq!(corrupt["sessions"][0]["status"], "corrupt");
    let bad_verdict = cli_json(&["validate", "--format", "json"], &bad);
    assert_eq!(bad_verdict[0]["status"], "corrupt");
    assert_eq!(corrupt["sessions"][0]["rule"], bad_verdict[0]["rule"]);

    // search: the planted word, in bench-session-1's first user message.
    let hits = ok(2);
    let hits = hits["hits"].as_array().expect("hits");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["session"], "bench-session-1");
    assert_eq!(hits[0]["role"], "user");
    assert!(
        hits[0]["snippet"]
            .as_str()
            .is_some_and(|s| s.contains(PLANTED))
    );

    // show: exactly what `show --format json` prints.
    assert_eq!(ok(3), cli_json(&["show", "--format", "json"], &small));

    // messages, whole: exactly `messages`' array, each with its seq, nothing cut.
    let all = ok(4);
    let cli_messages = cli_json(&["messages"], &small);
    let shown: Vec<&Value> = all["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| &m["message"])
        .collect();
    assert_eq!(
        Value::from(shown.into_iter().cloned().collect::<Vec<_>>()),
        cli_messages
    );
    assert!(all.get("next").is_none());
    assert_eq!(
        all["history_messages"],
        cli_messages.as_array().expect("array").len()
    );

    // messages of the long session: cut under 100 kB, with the next range; the next page
    // starts after the last seq shown.
    let first = ok(5);
    let bytes = first["bytes"].as_u64().expect("bytes");
    // A cut falls only where every seq before it is lower than every seq after it (not
    // inside a compaction's kept span), so a page may end well before the cap.
    assert!(bytes <= 100_000 && bytes > 10_000, "{bytes}");
    let next = &first["next"];
    assert_eq!(next["from_seq"], first["to_seq"].as_u64().expect("to") + 1);
    assert!(
        first["notes"][0]
            .as_str()
            .is_some_and(|n| n.contains("cut at max_bytes 100000"))
    );
    let second = ok(6);
    assert_eq!(second["from_seq"], next["from_seq"]);
    let seqs = |page: &Value| -> Vec<u64> {
        page["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| m["seq"].as_u64().expect("seq"))
            .collect()
    };
    assert!(
        seqs(&second)
            .iter()
            .all(|s| *s >= next["from_seq"].as_u64().expect("from"))
    );
    assert!(
        seqs(&first)
            .iter()
            .all(|s| *s <= first["to_seq"].as_u64().expect("to"))
    );

    // A range holding a tool call alone is widened to its results, and says so.
    let widened = ok(7);
    assert_eq!(widened["from_seq"], call_seq);
    assert!(widened["to_seq"].as_u64().expect("to") > call_seq);
    let text = widened["messages"].to_string();
    for id in &call_ids {
        assert!(
            text.matches(id.as_str()).count() >= 2,
            "{id} and its result: {text}"
        );
    }
    assert!(
        widened["notes"][0].as_str().is_some_and(
            |n| n.contains("widened") && n.contains("tool calls stay with their results")
        )
    );

    // validate: the verdict `validate --format json` prints; with a provider, its answer.
    let verdict = ok(8);
    assert_eq!(
        verdict,
        cli_json(&["validate", "--format", "json"], &small)[0]
    );
    assert_eq!(verdict["status"], "valid");
    let provider = ok(9);
    assert_eq!(provider["provider"]["name"], "anthropic");
    assert_eq!(provider["provider"]["accepted"], true);

    // provenance: what `provenance --format json` prints.
    let seq = call_seq.to_string();
    assert_eq!(
        ok(10),
        cli_json_then(&["provenance", "--format", "json"], &small, &[&seq])
    );

    // An unknown session, an ambiguous prefix and a corrupt log are tool errors.
    let unknown = error(11);
    assert!(
        unknown.contains("no session has an id starting with \"nope\""),
        "{unknown}"
    );
    assert!(unknown.contains("bench-session-77"), "{unknown}");
    let ambiguous = error(12);
    assert!(
        ambiguous.contains("\"bench-session-\" starts 4 session ids"),
        "{ambiguous}"
    );
    for id in [
        "bench-session-0",
        "bench-session-1",
        "bench-session-2",
        "bench-session-77",
    ] {
        assert!(ambiguous.contains(id), "{ambiguous}");
    }
    let corrupt = error(13);
    assert!(corrupt.contains(&bad.display().to_string()), "{corrupt}");
    let rule = format!("corrupt {}", bad_verdict[0]["rule"].as_str().expect("rule"));
    assert!(corrupt.contains(&rule), "{corrupt}");

    // A unique prefix names the session; a turn range is the turn's seqs.
    let turn = ok(14);
    assert_eq!(turn["session"], "bench-session-77");
    let show = cli_json(&["show", "--format", "json"], &big);
    let row = &show["per_turn"][34];
    assert_eq!(row["turn"], 35);
    let (start, end) = (
        row["start_seq"].as_u64().expect("start"),
        row["end_seq"].as_u64().expect("end"),
    );
    // The turn's seqs, as `show` gives them: gen-session prunes within the turn that owns
    // the result (as DSH's pruner does), so no call of it is parted from its results.
    assert_eq!(turn["from_seq"], start);
    assert_eq!(turn["to_seq"], end, "{turn}");
    assert_eq!(turn["notes"], serde_json::json!([]), "{turn}");
    assert!(!seqs(&turn).is_empty());
    assert!(seqs(&turn).iter().all(|s| (start..=end).contains(s)));
    // Turn 2 was compacted away: nothing to show, and the answer says where to look.
    let gone = ok(15);
    assert_eq!(gone["messages"], json!([]));
    assert!(
        gone["notes"][0]
            .as_str()
            .is_some_and(|n| n.contains("include_shadowed")),
        "{gone}"
    );
    // get_message: exactly the message `messages FILE --seq N` prints, with its place.
    let one = ok(16);
    assert_eq!(
        one["message"],
        cli_json_then(&["messages"], &small, &["--seq", &seq])
    );
    assert_eq!(
        (
            &one["session"],
            &one["seq"],
            &one["type"],
            &one["on_surface"]
        ),
        (
            &json!("bench-session-1"),
            &json!(call_seq),
            &json!("assistant/message"),
            &json!(true)
        )
    );
    let none = error(17);
    assert!(none.contains("seq 0 derives no message"), "{none}");
    // A page asked for with the revision of a log that changed since: source_changed.
    let stale = error(18);
    let now = all["revision"].as_str().expect("revision");
    assert_eq!(
        stale,
        format!(
            "source_changed: the log of bench-session-1 changed since the page that gave revision 0-0 (now {now}); ask again without a revision, from the start or from a seq"
        )
    );
    // The next page of a log that did not change carries the revision it came with.
    assert_eq!(first["next"]["revision"], first["revision"]);
}

/// Runs tests/mcp_client.py with `spec` and returns what it printed.
fn client(python: &str, spec: &Value) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(spec.to_string())
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "the client failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the client's JSON")
}

#[test]
fn messages_pages_come_from_the_history_of_the_revision() {
    let Some(python) = sdk_python() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let root = generated_root(dir.path());
    let big = root.join("p9/big/session.jsonl");
    let session = "bench-session-77";
    // 0: the whole history in one page; 1: the first page of 20 kB; 2..=31: each the next
    // page of the one before (until there is none).
    let mut calls = vec![
        json!(["messages", {"session": session, "max_bytes": 1_000_000}]),
        json!(["messages", {"session": session, "max_bytes": 20_000}]),
    ];
    for i in 1..=30 {
        calls.push(json!(["messages", {"next_of": i}]));
    }
    // 32: the log's last message text changed in place, its size and time kept (the same
    // revision); 33: the whole history again, from the history kept for that revision, not
    // from the log; 34: the log's time moved on; 35: the second page again, with the
    // revision of the first: source_changed; 36: the whole history, read again.
    calls.push(json!(["_edit", {"file": big, "after": "\"text\":\"", "length": 6}]));
    calls.push(json!(["messages", {"session": session, "max_bytes": 1_000_000}]));
    calls.push(json!(["_touch", {"file": big}]));
    calls.push(json!(["messages", {"next_of": 1}]));
    calls.push(json!(["messages", {"session": session, "max_bytes": 1_000_000}]));
    let spec = json!({
        "command": env!("CARGO_BIN_EXE_dsh-session"),
        "args": ["mcp", "--root", root, "--index", dir.path().join("index.db")],
        "env": {"NO_COLOR": "1", "PATH": std::env::var("PATH").unwrap_or_default()},
        "calls": calls,
    });
    let got = client(&python, &spec);
    let answer = |i: usize| -> Value {
        let call = &got["calls"][i];
        assert_eq!(call["isError"], false, "call {i}: {}", call["text"]);
        let text: Value = serde_json::from_str(call["text"].as_str().expect("text")).expect("json");
        assert_eq!(call["structured"], text, "call {i}");
        text
    };
    let whole = answer(0);
    assert!(whole.get("next").is_none());
    let all = whole["messages"].as_array().expect("messages").clone();
    assert!(all.len() > 40, "{}", all.len());
    assert_eq!(whole["history_messages"], all.len());
    // The pages, in order, hold exactly the messages of the one page, each once.
    let mut paged: Vec<Value> = Vec::new();
    let mut pages = 0;
    for i in 1..=31 {
        let call = &got["calls"][i];
        if call["isError"] == true {
            assert_eq!(call["text"], "the answer has no next range", "call {i}");
            continue;
        }
        let page = answer(i);
        assert!(
            page["bytes"].as_u64().expect("bytes") <= 20_000
                || page["notes"].to_string().contains("shown whole"),
            "{page}"
        );
        assert_eq!(page["revision"], whole["revision"]);
        paged.extend(
            page["messages"]
                .as_array()
                .expect("messages")
                .iter()
                .cloned(),
        );
        pages += 1;
    }
    assert!(pages >= 3, "{pages} pages");
    assert_eq!(
        got["calls"][31]["isError"], true,
        "the last page came before call 31"
    );
    assert_eq!(paged, all);
    // Changed in place under the same revision: the answer is the kept history's, so it
    // matches the first to the byte (a new reading would show the Zs).
    assert_eq!(answer(33), whole);
    // The log's time moved on: a page asked with the old revision is source_changed…
    let stale = &got["calls"][35];
    assert_eq!(stale["isError"], true);
    let text = stale["text"].as_str().expect("text");
    assert!(
        text.starts_with(&format!(
            "source_changed: the log of {session} changed since the page that gave revision {}",
            whole["revision"].as_str().expect("revision")
        )),
        "{text}"
    );
    // …and the history read again shows the change the kept one did not.
    let again = answer(36);
    assert_ne!(again["revision"], whole["revision"]);
    assert!(again["messages"].to_string().contains("ZZZZZZ"));
    assert!(!whole["messages"].to_string().contains("ZZZZZZ"));
}

/// Writes one JSON-RPC message as a line.
fn send(stdin: &mut impl Write, message: Value) {
    writeln!(stdin, "{message}").expect("write");
    stdin.flush().expect("flush");
}

#[test]
fn standard_output_carries_only_protocol_messages() {
    // Raw JSON-RPC, no SDK: a corrupt log read by a tool (the command says why on
    // standard error) must leave standard output nothing but JSON-RPC lines.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("root/p/s");
    std::fs::create_dir_all(&root).expect("dir");
    std::fs::copy(
        common::fixture("rules/J2-torn-final-line.jsonl"),
        root.join("session.jsonl"),
    )
    .expect("copy");
    let mut child = Command::new(env!("CARGO_BIN_EXE_dsh-session"))
        .arg("mcp")
        .arg("--root")
        .arg(dir.path().join("root"))
        .arg("--index")
        .arg(dir.path().join("index.db"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    let init: Value =
        serde_json::from_str(&lines.next().expect("a line").expect("read")).expect("JSON-RPC");
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["serverInfo"]["name"], "dsh-session");
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let id = std::fs::read_to_string(root.join("session.jsonl")).expect("log");
    let header: Value = serde_json::from_str(id.lines().next().expect("header")).expect("json");
    let session = header["id"].as_str().expect("id");
    for (n, tool) in ["show", "messages", "validate"].iter().enumerate() {
        send(
            &mut stdin,
            json!({"jsonrpc": "2.0", "id": 2 + n, "method": "tools/call",
                   "params": {"name": tool, "arguments": {"session": session}}}),
        );
        let line = lines.next().expect("a line").expect("read");
        let answer: Value = serde_json::from_str(&line).expect("only JSON-RPC on stdout");
        assert_eq!(answer["id"], 2 + n, "{line}");
        assert_eq!(answer["result"]["isError"], false, "{line}");
    }
    // A tool that does not exist is a protocol error, and the server goes on.
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
               "params": {"name": "repair", "arguments": {}}}),
    );
    let answer: Value =
        serde_json::from_str(&lines.next().expect("a line").expect("read")).expect("JSON-RPC");
    assert_eq!(answer["id"], 9);
    assert!(answer["error"]["message"].is_string(), "{answer}");
    drop(stdin);
    assert!(lines.next().is_none(), "nothing after the answers");
    let status = child.wait().expect("exits");
    assert!(status.success());
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
        .expect("stderr");
    // The torn tail is said where a user would look, never on standard output.
    assert!(stderr.contains("torn tail"), "{stderr}");
}

/// The README's `mcp` section: its fenced block that follows `marker`.
fn readme_block(marker: &str) -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let at = readme
        .find(marker)
        .unwrap_or_else(|| panic!("{marker:?} in README"));
    let rest = &readme[at..];
    let start = rest.find("```").expect("a block") + 3;
    let body = &rest[start..];
    let body = &body[body.find('\n').expect("fence line") + 1..];
    body[..body.find("```").expect("closing fence")].to_owned()
}

#[test]
fn the_readme_client_configuration_and_exchange_are_true() {
    // The configuration: JSON that starts `dsh-session mcp`.
    let config: Value =
        serde_json::from_str(&readme_block("The client's configuration")).expect("JSON");
    let server = &config["mcpServers"]["dsh-sessions"];
    assert_eq!(server["command"], "dsh-session");
    assert_eq!(server["args"][0], "mcp");
    // The exchange: the client's lines sent as they are, on the fixtures it names.
    let exchange = readme_block("An exchange, one JSON-RPC message per line");
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_dsh-session"))
        .args(["mcp", "--root"])
        .arg(common::fixture("generations"))
        .arg("--index")
        .arg(dir.path().join("index.db"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut answers = std::collections::BTreeMap::new();
    let mut shown = std::collections::BTreeMap::new();
    for line in exchange.lines() {
        if let Some(sent) = line.strip_prefix("→ ") {
            let message: Value = serde_json::from_str(sent).expect("the README's request");
            send(&mut stdin, message.clone());
            if message.get("id").is_some() {
                let answer: Value =
                    serde_json::from_str(&lines.next().expect("an answer").expect("read"))
                        .expect("JSON-RPC");
                answers.insert(answer["id"].as_u64().expect("id"), answer);
            }
        } else if let Some(got) = line.strip_prefix("← ") {
            // Shortened with `…`: the id and whether it is an error are kept as they are.
            let id = got["{\"jsonrpc\":\"2.0\",\"id\":".len()..]
                .split(',')
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .expect("an id");
            shown.insert(id, got.contains("\"isError\":true"));
        }
    }
    drop(stdin);
    assert!(child.wait().expect("exits").success());
    assert_eq!(shown.len(), 4);
    for (id, error) in &shown {
        let answer = &answers[id];
        if *id == 1 {
            assert_eq!(answer["result"]["serverInfo"]["name"], "dsh-session");
            continue;
        }
        assert_eq!(answer["result"]["isError"], *error, "{answer}");
    }
    let text = answers[&4]["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.starts_with("no session has an id starting with \"s-nope\""));
    // Answer 3 laid out: every number and note as the server gives them, and its seqs.
    let laid_out = readme_block("The text of answer 3, laid out");
    let answer: Value = serde_json::from_str(
        answers[&3]["result"]["content"][0]["text"]
            .as_str()
            .expect("text"),
    )
    .expect("JSON");
    for key in [
        "schema_version",
        "from_seq",
        "to_seq",
        "history_messages",
        "bytes",
    ] {
        let line = format!("\"{key}\": {},", answer[key]);
        assert!(laid_out.contains(&line), "README lacks {line}");
    }
    assert!(laid_out.contains(&format!("\"session\": {},", answer["session"])));
    assert!(laid_out.contains(&answer["notes"][0].to_string()));
    let seqs: Vec<String> = answer["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            format!(
                "{{\"seq\": {}, \"message\": {{\"id\": {}",
                m["seq"], m["message"]["id"]
            )
        })
        .collect();
    let mut at = 0;
    for s in &seqs {
        let found = laid_out[at..]
            .find(s.as_str())
            .unwrap_or_else(|| panic!("README lacks {s}"));
        at += found + s.len();
    }
    assert_eq!(laid_out.matches("{\"seq\": ").count(), seqs.len());
}
