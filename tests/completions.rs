//! The bash completion script, sourced into a real `bash` and asked what it completes:
//! subcommand options and their values must come back, not only the top level.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::dsh;

/// Sources the script, splits `line` into `COMP_WORDS` the way bash does for a line without
/// quotes (a trailing space starts an empty word), calls the function that `complete -p`
/// names for `dsh-session` with bash's three arguments, and prints `COMPREPLY` one per line.
const DRIVER: &str = r#"
source "$1" || exit 3
spec=$(complete -p dsh-session) || exit 4
fn=${spec#*-F }
fn=${fn%% *}
COMP_LINE=$2
COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<< "$COMP_LINE"
if [[ $COMP_LINE == *' ' ]]; then COMP_WORDS+=(''); fi
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMPREPLY=()
"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;

/// The script `dsh-session completions bash` prints, written where `source` can read it.
fn bash_script() -> PathBuf {
    let script = dsh().args(["completions", "bash"]).output().unwrap();
    assert!(script.status.success());
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("dsh-session.bash");
    std::fs::write(&path, script.stdout).unwrap();
    path
}

/// What bash completes for `line` (the cursor at its end), or `None` when there is no
/// `bash` to run.
fn complete(script: &Path, line: &str) -> Option<Vec<String>> {
    let out = match Command::new("bash")
        .args(["--norc", "--noprofile", "-c", DRIVER, "bash"])
        .arg(script)
        .arg(line)
        .output()
    {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => panic!("bash: {e}"),
    };
    assert!(
        out.status.success(),
        "bash failed on {line:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    Some(
        stdout
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

#[test]
fn bash_completes_after_the_subcommand() {
    let script = bash_script();
    let cases: &[(&str, &[&str])] = &[
        // The top level worked before; kept as the control.
        ("dsh-session val", &["validate"]),
        ("dsh-session --col", &["--color"]),
        // Options and values of a subcommand (issue 13: these completed nothing).
        ("dsh-session validate --f", &["--format"]),
        (
            "dsh-session validate --format ",
            &["text", "json", "jsonl", "github"],
        ),
        ("dsh-session validate --format j", &["json", "jsonl"]),
        ("dsh-session validate --q", &["--quiet"]),
        ("dsh-session show --f", &["--format"]),
        ("dsh-session show --format ", &["table", "json", "jsonl"]),
        ("dsh-session rules --format t", &["table"]),
        ("dsh-session surface --a", &["--at", "--all"]),
        // Right after a subcommand, an empty word offers its options and its values.
        (
            "dsh-session completions ",
            &[
                "-v",
                "-h",
                "--color",
                "--verbose",
                "--help",
                "bash",
                "elvish",
                "fish",
                "powershell",
                "zsh",
            ],
        ),
        ("dsh-session completions z", &["zsh"]),
        // A global option before the subcommand does not hide it.
        ("dsh-session --color never validate --q", &["--quiet"]),
        ("dsh-session validate --color a", &["auto", "always"]),
        // `help` and its subcommands.
        ("dsh-session help va", &["validate"]),
    ];
    for (line, want) in cases {
        let Some(got) = complete(&script, line) else {
            eprintln!("skipped: no `bash` on PATH to source the completion script in");
            return;
        };
        assert_eq!(got, *want, "completing {line:?}");
    }
}
