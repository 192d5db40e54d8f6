//! The completion scripts run in the real shells and asked what they complete: subcommand
//! options and their values must come back, not only the top level. Bash is required;
//! the elvish test runs where `elvish` is installed.

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
        ("dsh-session show --format ", &["text", "json", "jsonl"]),
        ("dsh-session rules --format t", &["text"]),
        ("dsh-session surface --a", &["--at", "--all"]),
        // Right after a subcommand, an empty word offers its options and its values.
        (
            "dsh-session completions ",
            &[
                "-v",
                "-h",
                "--color",
                "--verbose",
                "--dsh",
                "--platform",
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
            common::require("bash", false, "the completion script is sourced in bash");
            return;
        };
        assert_eq!(got, *want, "completing {line:?}");
    }
}

/// The elvish script with its two editor calls replaced, so a non-interactive `elvish`
/// can load it: the completer becomes `$f` and each candidate is echoed as its text.
fn elvish_module() -> PathBuf {
    let script = dsh().args(["completions", "elvish"]).output().unwrap();
    assert!(script.status.success());
    let text = String::from_utf8(script.stdout).unwrap();
    let completer = "set edit:completion:arg-completer[dsh-session] = ";
    let candidate =
        "edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc";
    assert!(
        text.contains(completer) && text.contains(candidate),
        "{text}"
    );
    let module = text
        .replace(completer, "var f = ")
        .replace(candidate, "echo $text");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("elvish");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("completer.elv"), module).unwrap();
    dir
}

/// Runs elvish's completer on `words` (the last is the word being completed), or `None`
/// when there is no `elvish` to run.
fn complete_elvish(dir: &Path, words: &[&str]) -> Option<Vec<String>> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let code = format!("use ./completer; $completer:f {}", quoted.join(" "));
    let out = match Command::new("elvish")
        .args(["-norc", "-c", &code])
        .current_dir(dir)
        .output()
    {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => panic!("elvish: {e}"),
    };
    assert!(
        out.status.success(),
        "elvish failed on {words:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    Some(stdout.lines().map(str::to_owned).collect())
}

/// Elvish filters the candidates by the typed prefix itself, so the completer hands back
/// every candidate of the state. Needs `elvish` (skipped without it, but in CI).
#[test]
fn elvish_completes_option_values() {
    let dir = elvish_module();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["dsh-session", "validate", "--format", ""],
            &["text", "json", "jsonl", "github"],
        ),
        (
            &["dsh-session", "show", "--format", "j"],
            &["text", "json", "jsonl"],
        ),
        (
            &["dsh-session", "--color", ""],
            &["auto", "always", "never"],
        ),
        (
            &[
                "dsh-session",
                "validate",
                "--color",
                "never",
                "--format",
                "",
            ],
            &["text", "json", "jsonl", "github"],
        ),
        (
            &["dsh-session", "show", "--f"],
            &[
                "--format",
                "--session",
                "--seq",
                "--color",
                "--dsh",
                "--platform",
                "--salvage",
                "-v",
                "--verbose",
                "-h",
                "--help",
            ],
        ),
    ];
    for (words, want) in cases {
        let Some(got) = complete_elvish(&dir, words) else {
            common::require(
                "elvish",
                false,
                "the elvish completion script runs in elvish (`apt-get install elvish`, as .ci/run does)",
            );
            return;
        };
        assert_eq!(got, *want, "completing {words:?}");
    }
}
