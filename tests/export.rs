//! `export`: Markdown and HTML transcripts on every sample (one block per derived message
//! and per turn, replacements shown, redaction on by default) and SQLite stores exported
//! as DSH JSONL session directories that `validate` passes, with the store's messages.

mod common;

use std::path::{Path, PathBuf};

use common::{dsh, dsh_011, fixture, samples, store::store_from_jsonl};
use serde_json::Value;

fn run(args: &[&str]) -> std::process::Output {
    dsh().args(args).output().expect("runs")
}

fn stdout(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Every sample log and store: jsonl, zstd, sqlite, crashed and real.
fn every_sample() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["jsonl", "zstd", "sqlite", "crashed", "real"] {
        for entry in std::fs::read_dir(samples().join(dir)).expect("sample dir") {
            let path = entry.expect("entry").path();
            let name = path.to_string_lossy();
            if name.ends_with(".jsonl") || name.ends_with(".zstd") || name.ends_with(".db") {
                out.push(path);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 80, "samples found: {}", out.len());
    out
}

/// Markdown: surface messages are `### #<seq> · …` headings, turns `## Turn <n>: …`.
fn markdown_blocks(md: &str) -> (usize, usize) {
    let messages = md.lines().filter(|l| l.starts_with("### #")).count();
    let turns = md
        .lines()
        .filter(|l| l.starts_with("## Turn ") && !l.ends_with("(continued)"))
        .count();
    (messages, turns)
}

/// HTML: one `article.message` per message, one `section.turn` per turn.
fn html_blocks(html: &str) -> (usize, usize) {
    (
        html.matches("<article class=\"message ").count(),
        html.matches("<section class=\"turn\" ").count(),
    )
}

#[test]
fn every_sample_gets_one_block_per_message_and_per_turn() {
    if !common::have_samples() {
        return;
    }
    let mut checked = 0;
    let mut corrupt = 0;
    let mut edge_refused = 0;
    for path in every_sample() {
        let verdict = common::verdict(&path);
        let status = verdict["status"].as_str().unwrap_or_default().to_owned();
        for format in ["markdown", "html"] {
            let out = run(&["export", "--format", format, s(&path)]);
            let text = String::from_utf8(out.stdout).expect("utf-8");
            let rule = verdict["rule"].as_str().unwrap_or_default();
            if rule.starts_with('F') {
                // Refused only by the frozen edges of DSH 0.1.5 and later: exported as DSH
                // 0.1.1 loads it, the verdict at the top and a warning naming the rule.
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(
                    stderr.contains(&format!("warning: refused {rule}")),
                    "{stderr}"
                );
                assert!(
                    text.contains(&format!("refused {rule}")),
                    "{}",
                    path.display()
                );
            } else if status == "corrupt" || status == "refused" {
                // Exported with its verdict at the top, and exit 1 naming the rule.
                assert_eq!(out.status.code(), Some(1), "{}", path.display());
                let rule = verdict["rule"].as_str().expect("a rule");
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(stderr.contains(&format!("{status} {rule}")), "{stderr}");
                assert!(
                    text.contains(&format!("{status} {rule}")),
                    "{}",
                    path.display()
                );
                continue;
            }
            assert!(
                out.status.success(),
                "{} {format}: {}",
                path.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            let messages = stdout(&["messages", "--format", "jsonl", s(&path)])
                .lines()
                .count();
            let show: Value =
                serde_json::from_str(&stdout(&["show", "--format", "json", s(&path)])).unwrap();
            let turns = show["per_turn"].as_array().expect("per_turn").len();
            let blocks = match format {
                "markdown" => markdown_blocks(&text),
                _ => html_blocks(&text),
            };
            assert_eq!(blocks, (messages, turns), "{} {format}", path.display());
        }
        if verdict["rule"].as_str().is_some_and(|r| r.starts_with('F')) {
            edge_refused += 1;
        } else if status == "corrupt" || status == "refused" {
            corrupt += 1;
        } else {
            checked += 1;
        }
    }
    // The figures of the sample set: a change in them is a change in the samples (or in
    // what the frozen edges of DSH 0.1.5 and later refuse).
    assert_eq!((checked, corrupt, edge_refused), (55, 7, 23));
}

#[test]
fn the_real_capital_generation_session() {
    if !common::have_samples() {
        return;
    }
    let path = samples().join("real/capital-generation.session.v4.jsonl");
    let html = stdout(&["export", "--format", "html", s(&path)]);
    assert_eq!(html_blocks(&html), (55, 11));
    assert!(html.contains("<p class=\"redaction\">Redacted: 6 home-path.</p>"));
    let md = stdout(&["export", s(&path)]);
    assert_eq!(markdown_blocks(&md), (55, 11));
    assert!(
        md.ends_with("_Redacted: 6 home-path._\n"),
        "{}",
        &md[md.len() - 200..]
    );
}

#[test]
fn replacements_show_what_they_shadowed() {
    // Run from the checkout with a relative path, so the golden file names no machine's
    // directory.
    let out = dsh_011()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["export", "fixtures/compaction-and-prune.jsonl"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let md = String::from_utf8(out.stdout).unwrap();
    let golden = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/compaction-and-prune.md");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &md).unwrap();
    }
    assert_eq!(md, std::fs::read_to_string(&golden).unwrap());
    // Seq 20 replaced 15 and 12; 15 had replaced 2, 7 and 9; 19 pruned 17.
    for summary in [
        "Replaced 2 entries (seqs 15, 12): what the model no longer sees",
        "Replaced 3 entries (seqs 2, 7, 9): what the model no longer sees",
        "Replaced 1 entry (seqs 17): what the model no longer sees",
    ] {
        assert_eq!(md.matches(summary).count(), 1, "{summary}");
    }
    let html = stdout(&[
        "export",
        "--format",
        "html",
        s(&fixture("compaction-and-prune.jsonl")),
    ]);
    assert_eq!(html_blocks(&html), (2, 1));
    assert_eq!(html.matches("<article class=\"shadowed ").count(), 6);
    assert_eq!(html.matches("<details class=\"replaced\">").count(), 3);
}

/// The compaction fixture with an `sk-` key and a home path planted in its surface text.
fn planted(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixture("compaction-and-prune.jsonl")).unwrap();
    let planted = text.replace(
        "Summary: two files; a.txt says hello.",
        "Summary: two files; key sk-proj-Plant3dKeyAbcdefghij1234 in /home/ana/proj/.env",
    );
    assert_ne!(planted, text);
    let path = dir.join("planted.jsonl");
    std::fs::write(&path, planted).unwrap();
    path
}

#[test]
fn redaction_is_on_by_default_and_off_with_no_redact() {
    let dir = tempfile::tempdir().unwrap();
    let log = planted(dir.path());
    let before = std::fs::read(&log).unwrap();
    let key = "sk-proj-Plant3dKeyAbcdefghij1234";
    for format in ["markdown", "html"] {
        let text = stdout(&["export", "--format", format, s(&log)]);
        assert!(
            !text.contains(key) && !text.contains("/home/ana"),
            "{format}"
        );
        assert!(
            text.contains("key [REDACTED sk-key] in ~/proj/.env"),
            "{format}"
        );
        // The header's cwd and the planted path: two home paths, one key.
        assert!(
            text.contains("Redacted: 2 home-path, 1 sk-key."),
            "{format}"
        );
        let kept = stdout(&["export", "--no-redact", "--format", format, s(&log)]);
        assert!(
            kept.contains(&format!("key {key} in /home/ana/proj/.env")),
            "{format}"
        );
        assert!(kept.contains("Redaction off (--no-redact)"), "{format}");
        assert!(!kept.contains("REDACTED"), "{format}");
    }
    // Redaction never changes the log or `messages`.
    assert_eq!(std::fs::read(&log).unwrap(), before);
    let messages = stdout(&["messages", s(&log)]);
    assert!(messages.contains(&format!("key {key} in /home/ana/proj/.env")));
}

#[test]
fn html_is_self_contained() {
    if !common::have_samples() {
        return;
    }
    let html = stdout(&[
        "export",
        "--format",
        "html",
        s(&samples().join("real/dumen.prefix.session.v3.jsonl")),
    ]);
    for needle in [
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        "prefers-color-scheme:dark",
        "default-src 'none'",
        "<svg viewBox=",
    ] {
        assert!(html.contains(needle), "{needle}");
    }
    // Nothing to fetch: no src, href, CSS url() or @import, and no URL in any attribute
    // (URLs in message text are escaped text; this log's system prompt has one).
    for forbidden in ["src=", "href=", "url(", "@import"] {
        assert!(!html.contains(forbidden), "{forbidden}");
    }
    assert!(html.contains("http://127.0.0.1:3080"));
    for value in html.split("=\"").skip(1) {
        let value = value.split('"').next().unwrap_or_default();
        assert!(!value.contains("://"), "a URL in an attribute: {value}");
    }
    assert_eq!(html.matches("<script>").count(), 1);
}

#[test]
fn output_file_is_written_whole_and_replaces_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let log = fixture("open-turn-after-tool-call.jsonl");
    let target = dir.path().join("t.html");
    std::fs::write(&target, "old").unwrap();
    let out = run(&["export", "--format", "html", s(&log), "-o", s(&target)]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let expected = stdout(&["export", "--format", "html", s(&log)]);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), expected);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["t.html"], "no temporary file left behind");
    // A directory that does not exist: an error naming the file, nothing written.
    let missing = dir.path().join("no/such/dir/t.md");
    let out = run(&["export", s(&log), "-o", s(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("t.md: cannot write"));
}

#[test]
fn standard_input_and_a_closed_pipe() {
    let log = fixture("compaction-and-prune.jsonl");
    let from_stdin = dsh_011()
        .args(["export", "-"])
        .pipe_stdin(&log)
        .unwrap()
        .output()
        .unwrap();
    assert!(from_stdin.status.success());
    let from_file = stdout(&["--dsh", "0.1.1", "export", s(&log)]);
    assert_eq!(
        String::from_utf8(from_stdin.stdout).unwrap(),
        from_file.replace(s(&log), "-")
    );
    let bin = assert_cmd::cargo::cargo_bin("dsh-session");
    let script = format!(
        "set -o pipefail; '{}' --dsh 0.1.1 export --format html '{}' | (exec 0<&-; sleep 0.3)",
        bin.display(),
        log.display()
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// Every schema-17 store among the samples.
fn sample_stores() -> Vec<PathBuf> {
    let mut stores: Vec<PathBuf> = std::fs::read_dir(samples().join("sqlite"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "db"))
        .collect();
    stores.sort();
    stores
}

#[test]
fn every_store_exports_to_a_root_that_validates_with_the_same_messages() {
    if !common::have_samples() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let stores = sample_stores();
    assert_eq!(stores.len(), 12);
    let mut identical = 0;
    for store in &stores {
        let out = stdout(&[
            "export",
            s(store),
            "--format",
            "dsh-jsonl",
            "--out",
            s(&root),
        ]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert_eq!(lines[1], "1 exported, 0 not exported");
        let session = lines[0].split(':').next().unwrap();
        let show: Value =
            serde_json::from_str(&stdout(&["show", "--format", "json", s(store)])).unwrap();
        let cwd = show["cwd"].as_str().unwrap();
        let written = root
            .join(format!(
                "--{}--",
                cwd.trim_start_matches('/').replace('/', "-")
            ))
            .join(session)
            .join("session.jsonl");
        assert!(lines[0].contains(s(&written)), "{out}");
        // The store's messages and surface, and the written file's.
        for args in [
            ["messages", "--format", "jsonl"],
            ["surface", "--format", "json"],
        ] {
            let of = |p: &Path| stdout(&[args[0], args[1], args[2], s(p)]);
            assert_eq!(of(store), of(&written), "{} {:?}", store.display(), args);
        }
        // DSH's own JSONL of the same session, where the samples hold one: byte for byte.
        let text = std::fs::read(&written).unwrap();
        for entry in std::fs::read_dir(samples().join("jsonl")).unwrap() {
            let twin = entry.unwrap().path();
            let first = std::fs::read_to_string(&twin).unwrap();
            if first
                .lines()
                .next()
                .is_some_and(|h| h.contains(&format!("\"id\":\"{session}\"")))
            {
                assert_eq!(text, std::fs::read(&twin).unwrap(), "{}", twin.display());
                identical += 1;
            }
        }
    }
    assert_eq!(
        identical, 12,
        "every sample store has a JSONL twin among the samples"
    );
    // The store's sessions are DSH 0.1.1's, and the files hold them as they were.
    let validate = stdout(&["--dsh", "0.1.1", "validate", s(&root)]);
    assert!(
        validate.ends_with("12 valid, 0 torn-tail, 0 corrupt, 0 refused\n"),
        "{validate}"
    );
    // A second export never overwrites: each session is refused, naming the file; exit 1.
    let store = &stores[0];
    let written: Vec<PathBuf> = walk(&root);
    let before: Vec<Vec<u8>> = written.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let again = run(&[
        "export",
        s(store),
        "--format",
        "dsh-jsonl",
        "--out",
        s(&root),
    ]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        "0 exported, 1 not exported\n"
    );
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("exists; an existing file is never overwritten"),
        "{stderr}"
    );
    let after: Vec<Vec<u8>> = written.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(before, after);
    assert_eq!(walk(&root), written, "no temporary file left behind");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn a_june_store_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("june.db");
    store_from_jsonl(&fixture("june-2026.jsonl"), &db, 4);
    let root = dir.path().join("root");
    let out = run(&["export", s(&db), "--format", "dsh-jsonl", "--out", s(&root)]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "dsh-session: {}: a June 2026 store (schema 4): not exported.",
            db.display()
        )),
        "{stderr}"
    );
    assert!(!root.exists(), "nothing written");
    // Its transcript still works.
    let md = stdout(&["export", s(&db)]);
    assert!(md.contains("(june-2026 era), SQLite store"), "{md}");
}

#[test]
fn dsh_jsonl_needs_a_store_and_a_root() {
    let log = fixture("compaction-and-prune.jsonl");
    let out = run(&["export", s(&log), "--format", "dsh-jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--format dsh-jsonl needs --out ROOT"));
    let dir = tempfile::tempdir().unwrap();
    let out = run(&[
        "export",
        s(&log),
        "--format",
        "dsh-jsonl",
        "--out",
        s(dir.path()),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a SQLite store"));
}

#[test]
fn turn_boundaries_say_how_each_turn_ended() {
    if !common::have_samples() {
        return;
    }
    let headings = |name: &str| -> Vec<String> {
        stdout(&["export", s(&samples().join("jsonl").join(name))])
            .lines()
            .filter(|l| l.starts_with("## Turn "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(
        headings("examples__acp-agent__tests__snapshots__subagent-continuable__session.1.jsonl"),
        [
            "## Turn 1: completed",
            "## Turn 2: completed",
            "## Turn 3: error: snapshot disk full (UNKNOWN)"
        ]
    );
    assert_eq!(
        headings("examples__acp-agent__tests__snapshots__cancel-tool-calls__session.jsonl"),
        ["## Turn 1: aborted by user"]
    );
    // An open turn (the real prefix ends inside one).
    let open = stdout(&[
        "export",
        s(&samples().join("real/tolik-benchmark.prefix.session.v4.jsonl")),
    ]);
    assert!(
        open.lines()
            .any(|l| l.starts_with("## Turn ") && l.ends_with(": still open"))
    );
}

#[test]
fn a_session_directory_exports_its_current_generation() {
    if !common::have_samples() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let real = samples().join("real/dumen.prefix.session.v3.jsonl");
    std::fs::copy(&real, dir.path().join("session.v3.jsonl")).unwrap();
    let out = run(&["export", s(dir.path())]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("session.v3.jsonl (the current generation"),
        "{stderr}"
    );
    assert_eq!(
        markdown_blocks(&String::from_utf8(out.stdout).unwrap()),
        (4, 1)
    );
}

/// Every fixture that DSH loads gets one block per derived message in both formats: a
/// message serde_json cannot read (a lone surrogate, P5; nesting past 128 levels) was left
/// out of the transcript.
#[test]
fn every_fixture_gets_one_block_per_message() {
    let mut todo = vec![fixture("")];
    let mut checked = 0;
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixture dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                todo.push(path);
                continue;
            }
            let name = path.to_string_lossy();
            if !(name.ends_with(".jsonl") || name.ends_with(".zstd")) {
                continue;
            }
            let status = common::verdict(&path)["status"].clone();
            if status != "valid" && status != "torn-tail" {
                continue;
            }
            let messages = stdout(&["messages", "--format", "jsonl", s(&path)])
                .lines()
                .count();
            let md = stdout(&["export", s(&path)]);
            let html = stdout(&["export", "--format", "html", s(&path)]);
            assert_eq!(markdown_blocks(&md).0, messages, "{}", path.display());
            assert_eq!(html_blocks(&html).0, messages, "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked > 40, "{checked} fixtures checked");
}

#[test]
fn a_lone_surrogate_is_shown_as_a_replacement_character() {
    let md = stdout(&["export", s(&fixture("provider/P5-lone-surrogate.jsonl"))]);
    assert!(
        md.contains(
            "### #2 · user · user/message · 2025-10-09T08:53:20.102Z\n\nbroken \u{FFFD} text\n"
        ),
        "{md}"
    );
}

#[test]
fn the_transcript_prices_the_session_as_show_does() {
    let log = fixture("usage/deepseek-peak-and-off-peak.jsonl");
    let md = stdout(&["export", "--format", "markdown", s(&log)]);
    assert!(
        md.contains("| cost | 13.2000 CNY (cache hit 1.2600, cache miss 5.7000, output 6.2400); no price: deepseek-official/deepseek-v5-preview |\n"),
        "{md}"
    );
    let html = stdout(&["export", "--format", "html", s(&log)]);
    assert!(html.contains("13.2000 CNY (cache hit 1.2600"), "{html}");
}
