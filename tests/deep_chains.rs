//! No command recurses on a depth the data chooses (issue 25 §2): every reading command runs
//! on logs with 100,000-long chains, and each must finish with its real answer, not a stack
//! overflow (`export` of a 10,000-long replace chain once aborted with exit 134).
//!
//! The chains, generated once per test binary into a temporary directory:
//! * `replace-chain.jsonl`: a user message replaced 100,000 times, each replace citing the
//!   one before (a chain of replaces of replaces, and of provenance);
//! * `citation-chain.jsonl`: 100,000 appended user messages, each citing the one before
//!   (a surface and a descendant tree 100,000 long);
//! * `compaction-chain.jsonl`: 100,000 compactions, each replacing the previous summary and
//!   the message after it (every shadowed entry has a sibling);
//! * `prune-chain.jsonl`: one tool result pruned 100,000 times (S18's comparison of each
//!   replacing `tool/result` with the one it shadows);
//! * the replace chain as zstd frames and as a SQLite store.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::store::store_from_jsonl;

/// Length of every chain.
const N: u64 = 100_000;

const HEADER: &str = r#"{"type":"session","version":0,"id":"s-chain","createdAt":1760000000000,"cwd":"/home/ana/proj","delegationDepth":0}"#;
const T: u64 = 1_760_000_000_100;

struct Chains {
    _dir: tempfile::TempDir,
    replace: PathBuf,
    citation: PathBuf,
    compaction: PathBuf,
    prune: PathBuf,
    replace_zstd: PathBuf,
    replace_db: PathBuf,
}

/// A user message at chain position `seq`, written at seq `seq + 1` (the step/start that
/// opens the chain holds seq 1), citing and replacing chain positions likewise shifted.
fn user(seq: u64, text: &str, kind: &str, cites: &[u64], op: Option<(u64, u64)>) -> String {
    let seq = seq + 1;
    let op = op.map(|(s, e)| (s + 1, e + 1));
    // DSH 0.1.5 and later refuse a plugin source without its plugin's name (F2).
    let plugin = if kind == "plugin" {
        r#","plugin":"chain""#
    } else {
        ""
    };
    let cites = if cites.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = cites.iter().map(|c| (c + 1).to_string()).collect();
        format!(r#","sourceEventSeqs":[{}]"#, list.join(","))
    };
    let op = op.map_or(r#""append""#.to_owned(), |(s, e)| {
        format!(r#"{{"op":"replace","start":{s},"end":{e}}}"#)
    });
    format!(
        r#"{{"type":"user/message","seq":{seq},"time":{T},"data":{{"content":[{{"type":"text","text":"{text}"}}],"source":{{"kind":"{kind}"{plugin}}},"role":"user","id":"u-{seq}"}}{cites},"surfaceOp":{op}}}"#
    )
}

fn turn_end(seq: u64) -> String {
    format!(
        r#"{{"type":"turn/end","seq":{seq},"time":{T},"data":{{"turn":1,"reason":{{"kind":"completed"}}}}}}"#
    )
}

/// The end of a chain at position `seq`: the step/end at `seq + 1`, the turn/end after it.
fn chain_end(seq: u64) -> String {
    format!(
        "{}\n{}",
        format_args!(
            r#"{{"type":"step/end","seq":{},"time":{T},"data":{{"turn":1,"step":1}}}}"#,
            seq + 1
        ),
        turn_end(seq + 2)
    )
}

/// A log of turn 1 with `lines`. With `step`, a step/start at seq 1 opens the chain: DSH
/// 0.1.5 and later refuse a surface event before the first step (F8), and the chains must
/// be read in full by both DSH lines.
fn log_of(lines: impl IntoIterator<Item = String>, step: bool) -> String {
    let mut out = format!("{HEADER}\n");
    out.push_str(&format!(
        r#"{{"type":"turn/start","seq":0,"time":{T},"data":{{"turn":1}}}}"#
    ));
    out.push('\n');
    if step {
        out.push_str(&format!(
            r#"{{"type":"step/start","seq":1,"time":{T},"data":{{"turn":1,"step":1}}}}"#
        ));
        out.push('\n');
    }
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// A chain's log: turn/start, step/start, `lines` (chain positions shifted by one).
fn log(lines: impl IntoIterator<Item = String>) -> String {
    log_of(lines, true)
}

fn chains() -> &'static Chains {
    static CHAINS: OnceLock<Chains> = OnceLock::new();
    CHAINS.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = |name: &str| dir.path().join(name);

        // position 1 appended, 2..=N+1 each replacing the one before; the end at N+2.
        let replace = log(std::iter::once(user(1, "m1", "user", &[], None))
            .chain((2..=N + 1).map(|s| {
                user(
                    s,
                    &format!("m{s}"),
                    "plugin",
                    &[s - 1],
                    Some((s - 1, s - 1)),
                )
            }))
            .chain(std::iter::once(chain_end(N + 2))));
        std::fs::write(path("replace-chain.jsonl"), &replace).expect("write");

        let citation = log((1..=N + 1)
            .map(|s| {
                user(
                    s,
                    &format!("m{s}"),
                    "user",
                    &[s - 1][..usize::from(s > 1)],
                    None,
                )
            })
            .chain(std::iter::once(chain_end(N + 2))));
        std::fs::write(path("citation-chain.jsonl"), citation).expect("write");

        // position 1 appended; then per link a message at 2k and a summary at 2k+1 that
        // replaces the previous summary (2k-1, position 1 at first) through that message.
        let mut lines = vec![user(1, "first", "user", &[], None)];
        let mut summary = 1;
        for k in 1..=N {
            let (m, s) = (2 * k, 2 * k + 1);
            lines.push(user(m, &format!("m{m}"), "user", &[], None));
            lines.push(user(
                s,
                &format!("summary {k}"),
                "plugin",
                &[summary, m],
                Some((summary, m)),
            ));
            summary = s;
        }
        lines.push(chain_end(2 * N + 2));
        std::fs::write(path("compaction-chain.jsonl"), log(lines)).expect("write");

        std::fs::write(path("prune-chain.jsonl"), prune_chain()).expect("write");

        let (zstd, _) = common::zstd_log(&replace, 1000);
        std::fs::write(path("replace-chain.jsonl.zstd"), zstd).expect("write");
        store_from_jsonl(&path("replace-chain.jsonl"), &path("replace-chain.db"), 17);
        Chains {
            replace: path("replace-chain.jsonl"),
            citation: path("citation-chain.jsonl"),
            compaction: path("compaction-chain.jsonl"),
            prune: path("prune-chain.jsonl"),
            replace_zstd: path("replace-chain.jsonl.zstd"),
            replace_db: path("replace-chain.db"),
            _dir: dir,
        }
    })
}

/// A call at seq 2 (assistant message) and 3 (`tool/call`), its result at 4, then the
/// result pruned N times (each `tool/result` replacing the one before), all in one step.
fn prune_chain() -> String {
    let result = |seq: u64, text: &str, op: &str, cites: u64| {
        format!(
            r#"{{"type":"tool/result","seq":{seq},"time":{T},"data":{{"turn":1,"step":1,"message":{{"id":"r-1","role":"user","source":{{"kind":"tool","callId":"call_1"}},"content":[{{"type":"tool-result","toolCallId":"call_1","content":[{{"type":"text","text":"{text}"}}],"isError":false}}]}}}},"sourceEventSeqs":[{cites}],"surfaceOp":{op}}}"#
        )
    };
    let mut lines = vec![
        format!(r#"{{"type":"step/start","seq":1,"time":{T},"data":{{"turn":1,"step":1}}}}"#),
        format!(
            r#"{{"type":"assistant/message","seq":2,"time":{T},"data":{{"turn":1,"step":1,"message":{{"role":"assistant","content":[{{"type":"tool-call","id":"call_1","name":"bash","arguments":"{{}}"}}],"source":{{"kind":"model","provider":"deepseek","model":"deepseek-chat"}},"id":"a-1"}},"usage":{{"inputTokens":9,"outputTokens":2}}}},"surfaceOp":"append"}}"#
        ),
        format!(
            r#"{{"type":"tool/call","seq":3,"time":{T},"data":{{"turn":1,"step":1,"callId":"call_1","name":"bash","arguments":"{{}}"}}}}"#
        ),
        result(4, "out", r#""append""#, 3),
    ];
    for s in 5..N + 5 {
        lines.push(result(
            s,
            "[output pruned]",
            &format!(r#"{{"op":"replace","start":{},"end":{}}}"#, s - 1, s - 1),
            s - 1,
        ));
    }
    lines.push(format!(
        r#"{{"type":"step/end","seq":{},"time":{T},"data":{{"turn":1,"step":1}}}}"#,
        N + 5
    ));
    lines.push(turn_end(N + 6));
    log_of(lines, false)
}

/// Runs `dsh-session ARGS`; fails unless it exits with `want`.
fn run(args: &[&str], path: &Path, want: i32) -> Output {
    run_as(DEFAULT, args, path, want)
}

/// The default judge, DSH 0.1.5 and later.
const DEFAULT: &[&str] = &[];

/// Runs `dsh-session JUDGE ARGS` (`JUDGE`: global options such as `--dsh 0.1.1`); fails
/// unless it exits with `want`.
fn run_as(judge: &[&str], args: &[&str], path: &Path, want: i32) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_dsh-session"))
        .args(judge)
        .args(args)
        .arg(path)
        .env_remove("NO_COLOR")
        .output()
        .expect("runs");
    let what = format!(
        "dsh-session {} {} {}",
        judge.join(" "),
        args.join(" "),
        path.display()
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(want),
        "{what}: {}\nstderr: {err}",
        out.status
    );
    assert!(
        !err.contains("overflow") && !err.contains("panicked"),
        "{what}: {err}"
    );
    out
}

fn text(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8")
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// The size of a chain's log: events, surface entries, replaces, entries shadowed.
struct Size {
    events: u64,
    surface: u64,
    replacements: u64,
    shadowed: u64,
}

/// Every reading command that takes no seq, with a check of its answer. (Each command
/// once: a second format of the same command reads the log the same way.)
fn every_reading_command(judge: &[&str], path: &Path, size: &Size) {
    let &Size {
        events,
        surface,
        replacements,
        shadowed,
    } = size;
    let v = json(&run_as(
        judge,
        &["validate", "--provider", "deepseek", "--format", "json"],
        path,
        0,
    ));
    assert_eq!(v[0]["status"], "valid", "{v}");
    assert_eq!(v[0]["events"], events);
    assert_eq!(v[0]["surface_len"], surface);

    let show = json(&run_as(judge, &["show", "--format", "json"], path, 0));
    assert_eq!(show["surface_len"], surface);
    assert_eq!(show["replacements"], replacements);

    let rows = json(&run_as(
        judge,
        &["surface", "--all", "--format", "json"],
        path,
        0,
    ));
    assert_eq!(
        rows.as_array().expect("array").len() as u64,
        surface + shadowed,
        "surface --all lists the surface and every shadowed entry"
    );

    // Counted by lines: a message may nest deeper than serde_json parses.
    let messages = text(&run_as(judge, &["messages", "--format", "jsonl"], path, 0));
    assert_eq!(messages.lines().count() as u64, surface);
    let array = text(&run_as(judge, &["messages"], path, 0));
    assert_eq!(
        array.lines().count() as u64,
        surface + 2,
        "[, a line each, ]"
    );
    let healed = text(&run_as(
        judge,
        &["messages", "--provider", "anthropic", "--format", "jsonl"],
        path,
        0,
    ));
    assert_eq!(healed.lines().count() as u64, surface);

    let replaced = json(&run_as(
        judge,
        &["replacements", "--format", "json"],
        path,
        0,
    ));
    assert_eq!(
        replaced.as_array().expect("array").len() as u64,
        replacements
    );

    run_as(judge, &["version"], path, 0);
    let stats = json(&run_as(judge, &["stats", "--format", "json"], path, 0));
    assert_eq!(stats["total"]["turns"], 1);

    exports(judge, path, replacements, shadowed);

    let repair = text(&run_as(
        judge,
        &["repair", "--dry-run", "--provider", "openai"],
        path,
        0,
    ));
    assert!(repair.contains("nothing to repair"), "{repair}");
}

/// `export` in both formats: every replace's collapsed part, every shadowed entry, nested.
fn exports(judge: &[&str], path: &Path, replacements: u64, shadowed: u64) {
    let md = text(&run_as(judge, &["export"], path, 0));
    assert_eq!(
        md.matches("<details><summary>Replaced ").count() as u64,
        replacements,
        "one collapsed part per replace"
    );
    let html = text(&run_as(judge, &["export", "--format", "html"], path, 0));
    assert_eq!(
        html.matches("<article class=\"shadowed").count() as u64,
        shadowed
    );
    assert_eq!(
        html.matches("<article").count(),
        html.matches("</article>").count()
    );
}

/// `provenance` of the chain's `first` seq (a descendant tree as long as the chain) and
/// `last` (an ancestor tree as long), as a tree and as nested JSON, and one Graphviz graph.
fn provenance_along(judge: &[&str], path: &Path, first: u64, last: u64) {
    for (seq, format) in [
        (first, "text"),
        (first, "json"),
        (last, "text"),
        (last, "json"),
        (last, "dot"),
    ] {
        let out = run_as(
            judge,
            &[
                "provenance",
                "--format",
                format,
                &path.display().to_string(),
            ],
            Path::new(&seq.to_string()),
            0,
        );
        assert!(!out.stdout.is_empty());
    }
}

/// `follow --from-start` reads the whole chain and prints its summary line.
fn follow_reads(path: &Path, events: u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dsh-session"))
        .args(["follow", "--from-start"])
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let stdout = child.stdout.take().expect("piped");
    let start = Instant::now();
    let want = format!(": {events} events so far");
    let mut found = false;
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("a line");
        if line.starts_with("following ") && line.contains(&want) {
            found = true;
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "follow too slow"
        );
    }
    assert!(
        child.try_wait().expect("wait").is_none(),
        "follow ended on its own"
    );
    let _ = child.kill();
    let _ = child.wait();
    assert!(found, "follow never summed up {}", path.display());
}

/// turn/start, step/start, the first message, N replaces, step/end, turn/end.
const REPLACE: Size = Size {
    events: N + 5,
    surface: 1,
    replacements: N,
    shadowed: N,
};

#[test]
fn a_replace_chain_of_100000() {
    let c = chains();
    every_reading_command(DEFAULT, &c.replace, &REPLACE);
    provenance_along(DEFAULT, &c.replace, 2, N + 2);
    follow_reads(&c.replace, N + 5);
}

#[test]
fn a_replace_chain_of_100000_in_zstd_frames_and_in_a_store() {
    let c = chains();
    for path in [&c.replace_zstd, &c.replace_db] {
        let v = json(&run(&["validate", "--format", "json"], path, 0));
        assert_eq!(v[0]["events"], N + 5);
        let messages = json(&run(&["messages"], path, 0));
        assert_eq!(messages.as_array().expect("array").len(), 1);
        let md = text(&run(&["export"], path, 0));
        assert_eq!(md.matches("<details><summary>Replaced ").count() as u64, N);
        run(
            &["provenance", &path.display().to_string()],
            Path::new("2"),
            0,
        );
    }
    let sessions = json(&run(&["sessions", "--format", "json"], &c.replace_db, 0));
    assert_eq!(sessions[0]["events"], N + 5);
    follow_reads(&c.replace_db, N + 5);
}

#[test]
fn a_citation_chain_of_100000() {
    let c = chains();
    every_reading_command(
        DEFAULT,
        &c.citation,
        &Size {
            events: N + 5,
            surface: N + 1,
            replacements: 0,
            shadowed: 0,
        },
    );
    provenance_along(DEFAULT, &c.citation, 2, N + 2);
}

#[test]
fn a_compaction_chain_of_100000() {
    let c = chains();
    // turn/start, step/start, 2N + 1 messages, step/end, turn/end; the last summary and
    // nothing else stays.
    every_reading_command(
        DEFAULT,
        &c.compaction,
        &Size {
            events: 2 * N + 5,
            surface: 1,
            replacements: N,
            shadowed: 2 * N,
        },
    );
    provenance_along(DEFAULT, &c.compaction, 2, 2 * N + 2);
}

#[test]
fn a_prune_chain_of_100000() {
    let c = chains();
    // turn/start, step/start, message, call, result, N prunes, step/end, turn/end.
    every_reading_command(
        DEFAULT,
        &c.prune,
        &Size {
            events: N + 7,
            surface: 2,
            replacements: N,
            shadowed: N,
        },
    );
    provenance_along(DEFAULT, &c.prune, 4, N + 4);
}

/// Nesting as deep as the reader parses (10,000 levels, FORMAT.md §1.4's bound in this
/// reader) in a user message, and in a tool result pruned once (S18 compares the two
/// through their canonical form): every reading command reads it.
#[test]
fn nesting_at_the_parser_bound() {
    let dir = tempfile::tempdir().expect("temp dir");
    // In a tool result the line, data, message, content and block are 5 levels: 9,995
    // more make 10,000; a user message's data is the message, one level less.
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let nest = deep(9_995);
    let user_nest = deep(9_996);
    let result = |seq: u64, text: &str, op: &str| {
        format!(
            r#"{{"type":"tool/result","seq":{seq},"time":{T},"data":{{"turn":1,"step":1,"message":{{"id":"r-1","role":"user","source":{{"kind":"tool","callId":"call_1"}},"content":[{{"type":"tool-result","toolCallId":"call_1","content":[{{"type":"text","text":"{text}"}}],"isError":false,"x":{nest}}}]}}}},"sourceEventSeqs":[{}],"surfaceOp":{op}}}"#,
            seq - 1
        )
    };
    let text = log_of(
        [
            format!(r#"{{"type":"step/start","seq":1,"time":{T},"data":{{"turn":1,"step":1}}}}"#),
            format!(
                r#"{{"type":"user/message","seq":2,"time":{T},"data":{{"content":[{{"type":"text","text":"hi","x":{user_nest}}}],"source":{{"kind":"user"}},"role":"user","id":"u-2"}},"surfaceOp":"append"}}"#
            ),
            format!(
                r#"{{"type":"assistant/message","seq":3,"time":{T},"data":{{"turn":1,"step":1,"message":{{"role":"assistant","content":[{{"type":"tool-call","id":"call_1","name":"bash","arguments":"{{}}"}}],"source":{{"kind":"model","provider":"deepseek","model":"deepseek-chat"}},"id":"a-1"}},"usage":{{"inputTokens":9,"outputTokens":2}}}},"surfaceOp":"append"}}"#
            ),
            format!(
                r#"{{"type":"tool/call","seq":4,"time":{T},"data":{{"turn":1,"step":1,"callId":"call_1","name":"bash","arguments":"{{}}"}}}}"#
            ),
            result(5, "out", r#""append""#),
            result(
                6,
                "[output pruned]",
                r#"{"op":"replace","start":5,"end":5}"#,
            ),
            format!(r#"{{"type":"step/end","seq":7,"time":{T},"data":{{"turn":1,"step":1}}}}"#),
            turn_end(8),
        ],
        false,
    );
    let path = dir.path().join("deep-nesting.jsonl");
    std::fs::write(&path, text).expect("write");
    // DSH 0.1.5 and later refuse the extra member that carries the nesting (F2, exact
    // payload members) after parsing the line in full; DSH 0.1.1 reads it, so every
    // reading command runs as that judge. (The edges hash only `tool/call` arguments, with
    // the canonical form S18 takes to this depth here.)
    let v = json(&run(&["validate", "--format", "json"], &path, 1));
    assert_eq!(
        (&v[0]["rule"], &v[0]["line"]),
        (&"F2".into(), &4.into()),
        "{v}"
    );
    let judge = &["--dsh", "0.1.1"];
    every_reading_command(
        judge,
        &path,
        &Size {
            events: 9,
            surface: 3,
            replacements: 1,
            shadowed: 1,
        },
    );
    provenance_along(judge, &path, 2, 6);
    // One more level is not parsed: the line is unparsable, committed by the turn/end (J5).
    let deeper = std::fs::read_to_string(&path)
        .expect("read")
        .replacen("\"x\":[", "\"x\":[[", 1)
        .replacen("]}],\"source\"", "]]}],\"source\"", 1);
    std::fs::write(&path, deeper).expect("write");
    let v = json(&run_as(judge, &["validate", "--format", "json"], &path, 1));
    assert_eq!(v[0]["rule"], "J5", "{v}");
}
