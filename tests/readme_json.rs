//! Every JSON example in the README has the keys the real output has (issue 25 §3: the
//! README still showed `surface`'s `shadowed` after it was renamed `shadowed_count`, and a
//! `repair --format json` object without `schema_version`, `stays` and the heal fields).
//!
//! Each ```` ```json ```` block of the README is tagged on the line before it, in an HTML
//! comment GitHub does not show:
//!
//! * `<!-- json-example: ARGS -->`: the output of `dsh-session ARGS`, run from the crate
//!   root; its keys, at every depth, must be the example's (for an array, its first
//!   element's; values may differ);
//! * `<!-- json-input -->`: an input the user writes (a prices file), not checked here.
//!
//! An untagged block fails the test, so a new example cannot go unchecked.

mod common;

use serde_json::Value;

/// The README's JSON blocks with the tag before each (`None` when untagged) and the line
/// the block starts on.
fn json_blocks(readme: &str) -> Vec<(Option<String>, usize, String)> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() == "```json" {
            let tag = i
                .checked_sub(1)
                .map(|t| lines[t].trim())
                .filter(|t| t.starts_with("<!--") && t.ends_with("-->"))
                .map(|t| {
                    t.trim_start_matches("<!--")
                        .trim_end_matches("-->")
                        .trim()
                        .to_owned()
                });
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && lines[end].trim_end() != "```" {
                end += 1;
            }
            out.push((tag, start + 1, lines[start..end].join("\n")));
            i = end;
        }
        i += 1;
    }
    out
}

/// Where the key sets of `example` and `real` differ, as `path: only in the README [..],
/// only in the output [..]`, at every depth (arrays: their first elements).
fn key_differences(path: &str, example: &Value, real: &Value, out: &mut Vec<String>) {
    match (example, real) {
        (Value::Object(e), Value::Object(r)) => {
            let only_e: Vec<&String> = e.keys().filter(|k| !r.contains_key(*k)).collect();
            let only_r: Vec<&String> = r.keys().filter(|k| !e.contains_key(*k)).collect();
            if !only_e.is_empty() || !only_r.is_empty() {
                out.push(format!(
                    "{path}: only in the README {only_e:?}, only in the output {only_r:?}"
                ));
            }
            for (k, v) in e {
                if let Some(w) = r.get(k) {
                    key_differences(&format!("{path}.{k}"), v, w, out);
                }
            }
        }
        (Value::Array(e), Value::Array(r)) => {
            if let (Some(a), Some(b)) = (e.first(), r.first()) {
                key_differences(&format!("{path}[0]"), a, b, out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_readme_json_example_has_the_keys_of_the_real_output() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let blocks = json_blocks(&readme);
    assert!(blocks.len() >= 3, "{} JSON blocks", blocks.len());
    let mut checked = 0;
    for (tag, line, text) in blocks {
        let example: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("README line {line}: not JSON: {e}"));
        let tag = tag.unwrap_or_else(|| {
            panic!("README line {line}: a JSON block needs <!-- json-example: ARGS --> or <!-- json-input --> on the line before it")
        });
        if tag == "json-input" {
            continue;
        }
        let args = tag
            .strip_prefix("json-example:")
            .unwrap_or_else(|| panic!("README line {line}: unknown tag {tag:?}"))
            .split_whitespace()
            .collect::<Vec<_>>();
        if args.iter().any(|a| a.starts_with("../shared/")) && !common::have_samples() {
            continue;
        }
        let out = common::dsh()
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("runs");
        let real: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "README line {line}: `dsh-session {}` printed no JSON ({e}): {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let mut differences = Vec::new();
        key_differences("", &example, &real, &mut differences);
        assert!(
            differences.is_empty(),
            "README line {line} (`dsh-session {}`):\n{}",
            args.join(" "),
            differences.join("\n")
        );
        checked += 1;
    }
    assert!(checked >= 2, "{checked} examples checked");
}
