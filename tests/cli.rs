//! How the CLI behaves in terminals, CI jobs and pipes: directory walks, output formats,
//! completions, colour, closed pipes, standard input, exit codes.

mod common;

use std::path::Path;

use common::store::store_from_jsonl;
use common::{dsh, dsh_011, fixture, on_a_terminal};

fn text(out: &std::process::Output) -> (Option<i32>, String, String) {
    (
        out.status.code(),
        String::from_utf8(out.stdout.clone()).unwrap(),
        String::from_utf8(out.stderr.clone()).unwrap(),
    )
}

/// `<root>/--home-ana-proj--/s-compact/session.jsonl` (a HEAD store layout), a torn copy in
/// another session directory, a SQLite store nested deeper, an unrelated file and a
/// symbolic-link loop.
fn store_root(root: &Path) {
    let project = root.join("--home-ana-proj--");
    std::fs::create_dir_all(project.join("s-compact")).unwrap();
    std::fs::copy(
        fixture("compaction-and-prune.jsonl"),
        project.join("s-compact/session.jsonl"),
    )
    .unwrap();
    std::fs::create_dir_all(project.join("s-01")).unwrap();
    let mut torn = std::fs::read_to_string(fixture("open-turn-after-tool-call.jsonl")).unwrap();
    torn.push_str("{\"type\":\"tool/result\",\"seq\":19");
    std::fs::write(project.join("s-01/session.jsonl"), torn).unwrap();
    std::fs::create_dir_all(root.join("stores/nested")).unwrap();
    store_from_jsonl(
        &fixture("legacy-conversions.jsonl"),
        &root.join("stores/nested/sessions.db"),
        17,
    );
    std::fs::write(root.join("stores/notes.txt"), "not a log").unwrap();
    std::fs::write(root.join("stores/fake.db"), "not a database either").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("..", root.join("stores/nested/loop")).unwrap();
}

#[test]
fn validate_walks_a_directory_in_path_order() {
    let dir = tempfile::tempdir().unwrap();
    store_root(dir.path());
    let root = dir.path().display().to_string();
    let (code, out, err) = text(
        &dsh_011()
            .args(["validate", "--color", "never"])
            .arg(dir.path())
            .output()
            .unwrap(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        format!(
            "{root}/--home-ana-proj--/s-01/session.jsonl: torn-tail J2 at line 17: final line has no newline (torn final line)
  a repair cuts 30 bytes at offset 2785: 1 line, 0 events; 19 events before it are kept
  note: the final turn is still open with 1 pending call (\"call_7\"): DSH will close it on load (`dsh-session repair` writes the same closers now)
{root}/--home-ana-proj--/s-compact/session.jsonl: valid (24 events, surface 2, head)
  warning P2 at line 19 (seq 19, message index 1): tool result for call \"call_2\" answers no tool call before it
{root}/stores/nested/sessions.db [session s-legacy]: valid (12 events, surface 4, head)
2 valid, 1 torn-tail, 0 corrupt, 0 refused
"
        )
    );
    assert!(
        err.contains("/stores/nested/loop: a link back to ")
            && err.contains("/stores above it (a directory loop): skipped"),
        "the loop is reported, not walked: {err}"
    );
    // The same order whatever the scheduling: run it again with one thread.
    let again = dsh_011()
        .args(["validate", "--color", "never"])
        .arg(dir.path())
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(again.stdout).unwrap(), out);
}

#[test]
fn validate_github_annotations() {
    let dir = tempfile::tempdir().unwrap();
    store_root(dir.path());
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"type\":\"session\",\"version\":0,\"id\":\"s\",\"createdAt\":1,\"delegationDepth\":0}\n{\"type\":\"turn/start\",\"seq\":0,\"time\":1,\"data\":{\"turn\":1},\"x\":1}\n").unwrap();
    // A log DSH 0.1.1 loads and the frozen edges of DSH 0.1.5 and later refuse.
    let edge = dir.path().join("edge.jsonl");
    std::fs::copy(
        fixture("edges/F4-subagent-descriptor-version-2.jsonl"),
        &edge,
    )
    .unwrap();
    let root = dir.path().display().to_string();
    let (code, out, _) = text(
        &dsh()
            .args(["validate", "--format", "github"])
            .arg(&bad)
            .arg(&edge)
            .arg(dir.path().join("--home-ana-proj--"))
            .output()
            .unwrap(),
    );
    assert_eq!(code, Some(1));
    assert_eq!(
        out,
        format!(
            "::error file={root}/bad.jsonl,line=2,title=E1 corrupt::seq 0: invalid event envelope: unexpected key \"x\"
::error file={root}/edge.jsonl,line=2,title=F4 refused::seq 0: DSH 0.1.5 and later refuse to migrate it (the v0→v1 edge): subagent/descriptor 0 uses unsupported descriptor version 2
::warning file={root}/--home-ana-proj--/s-01/session.jsonl,line=17,title=J2 torn-tail::final line has no newline (torn final line)
::notice file={root}/--home-ana-proj--/s-01/session.jsonl,title=open turn::the final turn is still open with 1 pending call (\"call_7\"): DSH will close it on load (`dsh-session repair` writes the same closers now)
::warning file={root}/--home-ana-proj--/s-compact/session.jsonl,line=19,title=P2::seq 19: tool result for call \"call_2\" answers no tool call before it
::notice title=dsh-session validate::1 valid, 1 torn-tail, 1 corrupt, 1 refused
"
        )
    );
    // Judged as DSH 0.1.1, which loads that log as it is: valid, no annotation.
    let (code, out, _) = text(
        &dsh()
            .args(["--dsh", "0.1.1", "validate", "--format", "github"])
            .arg(&edge)
            .output()
            .unwrap(),
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        out,
        "::notice title=dsh-session validate::1 valid, 0 torn-tail, 0 corrupt, 0 refused\n"
    );
}

#[test]
fn validate_json_and_jsonl_and_quiet() {
    let log = fixture("legacy-conversions.jsonl");
    let (_, out, _) = text(
        &dsh_011()
            .args(["validate", "--format", "jsonl"])
            .arg(&log)
            .output()
            .unwrap(),
    );
    assert_eq!(
        out,
        format!(
            "{{\"schema_version\":1,\"file\":\"{}\",\"session\":null,\"status\":\"valid\",\"rule\":null,\"seq\":null,\"line\":null,\"row\":null,\"message\":null,\"events\":12,\"surface_len\":4,\"era\":\"head\",\"encoding\":\"none\",\"torn_tail\":null,\"warnings\":[],\"notes\":[]}}\n",
            log.display()
        )
    );
    let (_, out, _) = text(
        &dsh_011()
            .args(["validate", "--format", "json"])
            .arg(&log)
            .arg(&log)
            .output()
            .unwrap(),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    // -q prints nothing for valid logs without warnings, and no summary.
    let (code, out, _) = text(
        &dsh_011()
            .args(["validate", "-q"])
            .arg(&log)
            .output()
            .unwrap(),
    );
    assert_eq!((code, out.as_str()), (Some(0), ""));
}

#[test]
fn exit_codes_and_one_line_errors() {
    let (code, _, err) = text(&dsh().args(["validate", "no-such.jsonl"]).output().unwrap());
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "dsh-session: no-such.jsonl: no such file or directory\n"
    );
    let (code, _, err) = text(&dsh().args(["show", "no-such.jsonl"]).output().unwrap());
    assert_eq!(
        (code, err.as_str()),
        (
            Some(2),
            "dsh-session: no-such.jsonl: no such file or directory\n"
        )
    );
    let (code, _, err) = text(&dsh().args(["surface", "--at", "x", "f"]).output().unwrap());
    assert_eq!(code, Some(2));
    assert!(err.contains("invalid value 'x' for '--at <SEQ>'"), "{err}");
    let (code, out, _) = text(&dsh().args(["--help"]).output().unwrap());
    assert_eq!(code, Some(0));
    assert!(out.contains("Exit codes:"), "{out}");
}

#[test]
fn colour_only_when_asked_or_on_a_terminal_and_never_with_no_color() {
    let log = fixture("legacy-conversions.jsonl");
    let always = dsh_011()
        .args(["validate", "--color", "always"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&always.stdout).contains("\x1b[32mvalid\x1b[0m"));
    // Not a terminal: no colour by default.
    let auto = dsh_011().args(["validate"]).arg(&log).output().unwrap();
    assert!(!String::from_utf8_lossy(&auto.stdout).contains('\x1b'));
    let no_color = dsh_011()
        .args(["validate", "--color", "auto"])
        .arg(&log)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&no_color.stdout).contains('\x1b'));
}

#[test]
fn a_closed_pipe_ends_quietly_with_success() {
    // A log long enough that the output outlives `head -1`.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let mut log = String::from(
        "{\"type\":\"session\",\"version\":0,\"id\":\"s\",\"createdAt\":1,\"delegationDepth\":0}\n\
         {\"type\":\"turn/start\",\"seq\":0,\"time\":1,\"data\":{\"turn\":1}}\n\
         {\"type\":\"step/start\",\"seq\":1,\"time\":1,\"data\":{\"turn\":1,\"step\":1}}\n",
    );
    for seq in 2..20_000 {
        log.push_str(&format!(
            "{{\"type\":\"user/message\",\"seq\":{seq},\"time\":1,\"data\":{{\"content\":[{{\"type\":\"text\",\"text\":\"message number {seq} with some padding to make it longer\"}}],\"source\":{{\"kind\":\"user\"}},\"role\":\"user\",\"id\":\"u-{seq}\"}},\"surfaceOp\":\"append\"}}\n"
        ));
    }
    std::fs::write(&path, log).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("dsh-session");
    // `head -1` reads a line, then closes; a reader that closes at once makes even a short
    // output meet a closed pipe.
    let closed_at_once = "(exec 0<&-; sleep 0.3)";
    for (cmd, reader) in [
        ("messages --format jsonl LOG", "head -1 > /dev/null"),
        ("messages LOG", "head -1 > /dev/null"),
        ("surface LOG", "head -1 > /dev/null"),
        ("show --format json LOG", closed_at_once),
        ("provenance --format json LOG 5", closed_at_once),
        ("rules --format json", closed_at_once),
        ("completions bash", closed_at_once),
    ] {
        let cmd = cmd.replace("LOG", &format!("'{}'", path.display()));
        let script = format!("set -o pipefail; '{}' {cmd} | {reader}", bin.display());
        let out = std::process::Command::new("bash")
            .args(["-c", &script])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{cmd}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "{cmd}: no message on a closed pipe"
        );
    }
}

#[test]
fn standard_input_for_validate() {
    let out = dsh_011()
        .args(["validate", "--format", "jsonl", "-"])
        .pipe_stdin(fixture("compaction-and-prune.jsonl"))
        .unwrap()
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            v["file"].as_str(),
            v["status"].as_str(),
            v["events"].as_u64()
        ),
        (Some("-"), Some("valid"), Some(24))
    );
}

/// A path that is a pipe (`<(zcat …)`) is read as a stream: nothing peeks at it first
/// and eats its opening bytes, and a zstd stream is spooled as standard input is.
#[test]
fn a_pipe_given_as_a_path_is_read_whole() {
    let bin = assert_cmd::cargo::cargo_bin("dsh-session");
    let dir = tempfile::tempdir().unwrap();
    let plain = fixture("compaction-and-prune.jsonl");
    let text = std::fs::read_to_string(&plain).unwrap();
    let zstd = dir.path().join("log.jsonl.zstd");
    std::fs::write(&zstd, common::zstd_log(&text, 4).0).unwrap();
    for file in [&plain, &zstd] {
        let script = format!(
            "'{}' --dsh 0.1.1 validate --format jsonl <(cat '{}')",
            bin.display(),
            file.display()
        );
        let out = std::process::Command::new("bash")
            .args(["-c", &script])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (v["status"].as_str(), v["events"].as_u64()),
            (Some("valid"), Some(24)),
            "{}: {v}",
            file.display()
        );
    }
}

/// `provenance` reads the log twice; from standard input it gives the same output as from
/// the file (event types and turns included), and a broken log names `-`.
#[test]
fn standard_input_for_provenance() {
    for format in ["tree", "json"] {
        let from_file = dsh()
            .args(["provenance", "--format", format])
            .arg(fixture("compaction-and-prune.jsonl"))
            .arg("9")
            .output()
            .unwrap();
        let from_stdin = dsh()
            .args(["provenance", "--format", format, "-", "9"])
            .pipe_stdin(fixture("compaction-and-prune.jsonl"))
            .unwrap()
            .output()
            .unwrap();
        assert_eq!(from_file.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&from_file.stdout).contains("tool/result"));
        assert_eq!(
            String::from_utf8_lossy(&from_stdin.stdout),
            String::from_utf8_lossy(&from_file.stdout),
            "{format}"
        );
    }
    let broken = dsh()
        .args(["provenance", "-", "0"])
        .write_stdin("not json\n")
        .output()
        .unwrap();
    assert_eq!(broken.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert!(stderr.starts_with("dsh-session: -: "), "{stderr}");
}

/// The checked-in completions are what the binary generates; run with
/// `UPDATE_COMPLETIONS=1 cargo test --test cli` after changing a flag.
#[test]
fn completions_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let generated = dsh().args(["completions", shell]).output().unwrap().stdout;
        let path = dir.join(format!("dsh-session.{shell}"));
        if std::env::var_os("UPDATE_COMPLETIONS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let checked_in = std::fs::read(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "completions/dsh-session.{shell} is stale: run `UPDATE_COMPLETIONS=1 cargo test --test cli`"
        );
    }
}

#[test]
fn man_page_and_rules() {
    let man = dsh().arg("man").output().unwrap();
    let main_page = String::from_utf8_lossy(&man.stdout);
    assert!(main_page.contains("\n.TH DSH-SESSION 1 "), "{main_page}");
    assert!(
        main_page.contains("dsh\\-session\\-validate(1)"),
        "{main_page}"
    );
    // One page per subcommand, with its own options, the global ones after them, its
    // examples and its exit codes as a list.
    let dir = tempfile::tempdir().unwrap();
    let written = dsh()
        .arg("man")
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(written.status.success());
    let subcommands = [
        "validate",
        "surface",
        "messages",
        "repair",
        "recover",
        "fork",
        "trim",
        "provenance",
        "replacements",
        "show",
        "version",
        "sessions",
        "index",
        "search",
        "tui",
        "mcp",
        "export",
        "stats",
        "statusline",
        "follow",
        "rules",
        "man",
        "completions",
    ];
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        subcommands.len() + 1
    );
    for name in subcommands {
        let page =
            std::fs::read_to_string(dir.path().join(format!("dsh-session-{name}.1"))).unwrap();
        let shown = String::from_utf8(dsh().args(["man", name]).output().unwrap().stdout).unwrap();
        assert_eq!(page, shown, "{name}");
        assert!(
            page.contains(&format!("\n.TH DSH-SESSION-{} 1 ", name.to_uppercase())),
            "{name}"
        );
        for section in [
            ".SH OPTIONS",
            ".SH \"GLOBAL OPTIONS\"",
            ".SH EXAMPLES",
            ".SH \"EXIT STATUS\"\n.TP\n.B 0\n",
            ".SH \"SEE ALSO\"\ndsh-session(1)",
        ] {
            assert!(page.contains(section), "{name}: {section}\n{page}");
        }
    }
    let validate =
        String::from_utf8(dsh().args(["man", "validate"]).output().unwrap().stdout).unwrap();
    assert!(validate.contains(".SH \"EXIT STATUS\"\n.TP\n.B 0\nevery log is valid or torn-tail\n.TP\n.B 1\na log is corrupt or refused\n"), "{validate}");
    let unknown = dsh().args(["man", "nope"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    let rules: serde_json::Value = serde_json::from_slice(
        &dsh()
            .args(["rules", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let s15 = rules
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"] == "S15")
        .unwrap();
    assert_eq!(
        s15,
        &serde_json::json!({"schema_version": 2, "rule": "S15", "class": "corrupt", "section": "§3.2", "meaning": "replace does not cite every shadowed seq in sourceEventSeqs", "example": "corrupt S15 at line 5 (seq 3): replace sourceEventSeqs must include every shadowed surface node; missing 2", "advice": "if DSH wrote it, report a bug with the rule id and the line; if a tool or a hand edit did, fix or drop the record", "not_reported": null, "providers": []})
    );
    assert_eq!(
        rules.as_array().unwrap().len(),
        dsh_session::rules::Rule::ALL.len()
    );
}

#[test]
fn every_subcommand_help_has_an_example() {
    for cmd in [
        "validate",
        "surface",
        "messages",
        "show",
        "version",
        "repair",
        "provenance",
        "replacements",
        "sessions",
        "index",
        "search",
        "follow",
        "rules",
        "completions",
        "man",
    ] {
        let out = dsh().args(["help", cmd]).output().unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(
            help.contains("Example"),
            "{cmd} --help has no example:\n{help}"
        );
    }
}

#[test]
fn a_directory_without_logs_fails_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.jsonl"), "not a DSH file name").unwrap();
    std::fs::write(dir.path().join("old.jsonl.zstd"), "not a DSH file name").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    // pi's header: `type: session`, but `timestamp` where DSH has `createdAt`.
    std::fs::write(
        dir.path().join("sub/pi.jsonl"),
        "{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"2024-12-03T14:00:00.000Z\",\"cwd\":\"/p\"}\n",
    )
    .unwrap();
    let (code, out, err) = text(&dsh().args(["validate"]).arg(dir.path()).output().unwrap());
    assert_eq!(code, Some(2));
    assert_eq!(out, "0 valid, 0 torn-tail, 0 corrupt, 0 refused\n");
    let d = dir.path().display();
    assert_eq!(
        err,
        format!(
            "dsh-session: {d}: 3 files not DSH (ending in .jsonl or .jsonl.zstd, no DSH session header on the first line): not read; name one to read it anyway\n\
             dsh-session: {d}: no session logs (session.jsonl, session.vN.jsonl, .zstd) or SQLite stores found\n"
        )
    );
}

/// One line naming the file; `-v` spells the cause chain out once, not twice.
#[test]
fn a_missing_file_is_one_line_and_verbose_lists_its_causes() {
    let (code, out, err) = text(
        &dsh()
            .args(["show", "/nonexistent/x.jsonl"])
            .output()
            .unwrap(),
    );
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert_eq!(
        err,
        "dsh-session: /nonexistent/x.jsonl: no such file or directory\n"
    );
    let (code, _, err) = text(
        &dsh()
            .args(["-v", "show", "/nonexistent/x.jsonl"])
            .output()
            .unwrap(),
    );
    assert_eq!(code, Some(2));
    // -v keeps the first line `<file>: <what>` and adds the causes (issue 13).
    assert_eq!(
        err,
        "dsh-session: /nonexistent/x.jsonl: no such file or directory\n  cause 1: no such file or directory\n"
    );
}

#[test]
fn a_bug_is_an_internal_error_with_exit_2_never_101() {
    let (code, out, err) = text(
        &dsh()
            .args(["rules"])
            .env("DSH_SESSION_TEST_PANIC", "1")
            .output()
            .unwrap(),
    );
    assert_eq!(code, Some(2));
    assert_eq!(out, "");
    assert!(
        err.starts_with("dsh-session: internal error at src/main.rs:"),
        "{err}"
    );
    assert!(
        err.contains("test panic requested by DSH_SESSION_TEST_PANIC; please report it"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn tables_fit_the_terminal_and_keep_full_rows_when_piped() {
    // The table: the lines before a blank line (`rules` adds a sentence after it).
    let table = |text: &str| -> Vec<String> {
        text.lines()
            .take_while(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let widest = |text: &str| {
        table(text)
            .iter()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
    };
    if !common::have_script() {
        return;
    }
    let log = fixture("compaction-and-prune.jsonl");
    for args in [
        "rules".to_owned(),
        format!("--dsh 0.1.1 surface {}", log.display()),
        format!("--dsh 0.1.1 replacements {}", log.display()),
    ] {
        let shown = on_a_terminal(80, &args);
        assert!(widest(&shown) <= 80, "{args} on 80 columns:\n{shown}");
        assert!(shown.lines().count() > 2, "{shown}");
    }
    // Piped: one row per line, however wide.
    let piped = String::from_utf8(dsh().arg("rules").output().unwrap().stdout).unwrap();
    assert!(widest(&piped) > 80);
    assert_eq!(table(&piped).len(), dsh_session::rules::Rule::ALL.len() + 2);
}

#[test]
fn text_is_a_format_of_every_command_that_prints_for_people() {
    if !common::have_samples() {
        return;
    }
    let log = fixture("compaction-and-prune.jsonl");
    for (command, alias) in [
        ("surface", "table"),
        ("show", "table"),
        ("replacements", "table"),
        ("provenance", "tree"),
    ] {
        let mut args = vec![command.to_owned(), log.display().to_string()];
        if command == "provenance" {
            args.push("15".into());
        }
        let text = dsh_011()
            .args(&args)
            .args(["--format", "text"])
            .output()
            .unwrap();
        let old = dsh_011()
            .args(&args)
            .args(["--format", alias])
            .output()
            .unwrap();
        let default = dsh_011().args(&args).output().unwrap();
        assert!(text.status.success(), "{command}");
        assert_eq!(
            text.stdout, old.stdout,
            "{command}: {alias} is an alias of text"
        );
        assert_eq!(
            text.stdout, default.stdout,
            "{command}: text is the default"
        );
    }
    let root = common::samples()
        .join("sqlite")
        .join("apps__web__tests__snapshots__approval-composer__session.db");
    for command in [
        "validate",
        "repair --dry-run",
        "rules",
        "sessions",
        "version",
    ] {
        let mut args: Vec<String> = command.split(' ').map(str::to_owned).collect();
        match command {
            "rules" => {}
            "sessions" => args.push(root.display().to_string()),
            _ => args.push(log.display().to_string()),
        }
        let out = dsh_011()
            .args(&args)
            .args(["--format", "text"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
