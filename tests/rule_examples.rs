//! `rules ID` (issue 18): every rule has a real example message or a reason why no file
//! makes this reader report it, and each example is what `validate` prints: the examples
//! that a fixture or a sample produces are found, word for word, in `validate`'s output on
//! them; the others (zstd frames, SQLite rows, later generations, built by the tests of
//! those files) at least name their rule and class as `validate` does.

mod common;

use std::collections::BTreeSet;

use common::{dsh, samples};
use dsh_session::rules::{NOT_REPORTED, Rule};

fn files_under(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else if path.to_string_lossy().contains(".jsonl") {
            out.push(path);
        }
    }
}

#[test]
fn every_rule_has_an_example_or_a_reason() {
    for &rule in Rule::ALL {
        match (rule.example(), rule.not_reported()) {
            (Some(example), None) => {
                let class = match rule.class() {
                    dsh_session::rules::Class::Corrupt => "corrupt",
                    dsh_session::rules::Class::Refused => "refused",
                    dsh_session::rules::Class::TornTail => "torn-tail",
                    dsh_session::rules::Class::Warning => "warning",
                    dsh_session::rules::Class::Foreign => "foreign",
                };
                let head = format!("{class} {} ", rule.id());
                let head_colon = format!("{class} {}:", rule.id());
                assert!(
                    example.starts_with(&head) || example.starts_with(&head_colon),
                    "{rule}: {example}"
                );
            }
            (None, Some(_)) => {}
            other => panic!("{rule}: example and reason {other:?}"),
        }
    }
    // Ids FORMAT.md names that are not rules of this reader are explained too.
    for id in ["D4", "Q6", "D7", "D8"] {
        assert!(NOT_REPORTED.iter().any(|(i, _)| *i == id), "{id}");
        assert!(Rule::from_id(id).is_none());
    }
}

#[test]
fn examples_are_what_validate_prints() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    files_under(&root.join("fixtures"), &mut files);
    for dir in ["jsonl", "crashed", "real"] {
        files_under(&samples().join(dir), &mut files);
    }
    let out = dsh().arg("validate").args(&files).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // What each printed finding says after `FILE: ` (verdicts) or its indent (warnings).
    let said: BTreeSet<&str> = text
        .lines()
        .filter_map(|line| match line.strip_prefix("  ") {
            Some(warning) => Some(warning),
            None => line.split_once(": ").map(|(_, rest)| rest),
        })
        .collect();
    let mut checked = 0;
    for &rule in Rule::ALL {
        let Some(example) = rule.example() else {
            continue;
        };
        let printed = |s: &str| {
            s.split(':')
                .next()
                .and_then(|h| h.split_whitespace().nth(1))
                == Some(rule.id())
        };
        if said.iter().any(|s| printed(s)) {
            assert!(
                said.contains(example),
                "{rule}: the example is not what validate prints on the fixtures:\n{example}\nprinted: {:?}",
                said.iter().filter(|s| printed(s)).collect::<Vec<_>>()
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 60,
        "only {checked} examples were found in fixture output"
    );
}

#[test]
fn rules_id_explains_one_rule() {
    let out = dsh().args(["rules", "j5"]).output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "J5: corrupt (FORMAT.md §5.5.1)
meaning:    defect inside the committed region (a turn/end follows it)
example:    corrupt J5 at line 6: seq gap (expected 4, got 5) in the committed region; the line is itself a turn/end
what to do: damaged bytes inside the committed part of the log: restore it from a backup; `repair` will not guess
"
    );
    let out = dsh().args(["rules", "Q6"]).output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Q6: never reported from a file
why:        not a defect: it finds the last row with a turn/end, which ends the committed region Q7 and Q8 are judged by
"
    );
    let out = dsh().args(["rules", "Z9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // The list ends with the ids no file produces.
    let list = String::from_utf8(dsh().arg("rules").output().unwrap().stdout).unwrap();
    assert!(list.ends_with("\nNever reported from a file: H1, J3, J4, E0, E3, E7, S1, R4, W1, W2, Q4, Q5, D4, D7, D8, Q6 (`dsh-session rules ID` says why).\n"), "{list}");
}
