//! DSH's own published packages are the oracle (ORACLE.md, `oracle/run`): on every fixture
//! and sample, `validate` must give the verdict DSH gives, judge by judge, except the rows
//! of `oracle/KNOWN.tsv`, each with its reason. A row that no longer disagrees fails too, so
//! the table never outlives what it explains.
//!
//! How a judge's verdict and ours are compared (the README's "Checked against DSH itself"):
//!
//! * `dsh-0.1.1-rc.2` (the 0.1.1 store's `load`) against `validate --dsh 0.1.1 --platform
//!   posix`: accepted when ours is `valid` or `torn-tail` (the store cuts a torn tail and
//!   closes the open turn, as `repair` does).
//! * `v0-to-v1-0.1.3-alpha.2-recoverable` (the edge as DSH's production read runs it)
//!   against `validate --dsh 0.1.5 --platform posix`: accepted when ours is `valid` or
//!   `torn-tail`; strict `v0-to-v1-0.1.3-alpha.2` accepted only when ours is `valid`, or a
//!   torn tail the persistence layer cuts before any row reaches the edge (a torn final
//!   line J2, a torn final frame Z3).
//! * The edges judge v0 and v1 logs only (the v1→v2 and v2→v3 packages do not link: they
//!   import an export no published `dsh-llm` has), so a log of a later generation is not
//!   compared with them, and a refusal of ours at the v1→v2 or v2→v3 edge stands beside an
//!   oracle that accepted the log: it judged a part of the chain only.
//! * The oracle runs on Linux: `--platform posix` judges as DSH does there.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{
    ORACLE_EDGE, ORACLE_EDGE_RECOVERABLE, ORACLE_STORE, OracleVerdict, dsh, have_samples, oracle,
    samples,
};

/// Every log under `dir` (JSONL, zstd, SQLite), sorted.
fn logs_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            logs_under(&path, out);
        } else if let Some(name) = path.file_name().and_then(|n| n.to_str())
            && (name.ends_with(".jsonl") || name.ends_with(".zstd") || name.ends_with(".db"))
        {
            out.push(path);
        }
    }
}

/// The files the oracle and `validate` judge: every fixture, and every sample when
/// `../shared/samples` is there.
fn judged_files() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    logs_under(&root.join("fixtures"), &mut files);
    if have_samples() {
        logs_under(&samples(), &mut files);
    }
    files
}

/// The name a file has in `KNOWN.tsv` and in messages: relative to the checkout, samples
/// as `../shared/samples/…`.
fn shown(path: &Path) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let samples = samples();
    if let Ok(rest) = path.strip_prefix(&samples) {
        format!("../shared/samples/{}", rest.display())
    } else if let Ok(rest) = path.strip_prefix(&root) {
        rest.display().to_string()
    } else {
        path.display().to_string()
    }
}

/// `validate --format jsonl` over `files` with `args`, by file.
fn ours(files: &[PathBuf], args: &[&str]) -> BTreeMap<String, serde_json::Value> {
    let mut out = BTreeMap::new();
    for batch in files.chunks(200) {
        let run = dsh()
            .args(args)
            .args(["validate", "--format", "jsonl"])
            .args(batch)
            .output()
            .expect("validate runs");
        assert!(
            run.status.code().is_some_and(|c| c <= 1),
            "validate {args:?} failed: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let text = String::from_utf8(run.stdout).expect("UTF-8");
        for (line, path) in text.lines().zip(batch) {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
            out.insert(shown(path), v);
        }
    }
    out
}

/// The rows of `oracle/KNOWN.tsv`: (file, judge) → why.
fn known() -> BTreeMap<(String, String), String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/KNOWN.tsv");
    let text = std::fs::read_to_string(&path).expect("oracle/KNOWN.tsv");
    let mut rows = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if n == 0 || line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 3, "KNOWN.tsv line {}: file, judge, why", n + 1);
        assert!(
            !cols[2].trim().is_empty(),
            "KNOWN.tsv line {}: every row says why",
            n + 1
        );
        rows.insert((cols[0].to_owned(), cols[1].to_owned()), cols[2].to_owned());
    }
    rows
}

fn status(v: &serde_json::Value) -> &str {
    v["status"].as_str().unwrap_or("?")
}

/// Ours in one line, for a failure message.
fn said(v: &serde_json::Value) -> String {
    format!(
        "{} {} (line {}): {}",
        status(v),
        v["rule"].as_str().unwrap_or("-"),
        v["line"],
        v["message"].as_str().unwrap_or("")
    )
}

/// Whether our refusal comes from an edge the published packages cannot run.
fn refused_past_the_published_edge(v: &serde_json::Value) -> bool {
    status(v) == "refused"
        && v["message"]
            .as_str()
            .is_some_and(|m| m.contains("(the v1→v2 edge)") || m.contains("(the v2→v3 edge)"))
}

/// Whether our verdict agrees with the judge's: both accept, or both refuse; a refusal of
/// ours past the edge the published packages can run stands beside a judge that accepted.
fn agrees(judge: &str, v: &serde_json::Value, judge_accepted: bool) -> Option<bool> {
    let torn_rule = v["torn_tail"]["rule"].as_str();
    let ours_accepts = match judge {
        ORACLE_STORE | ORACLE_EDGE_RECOVERABLE => matches!(status(v), "valid" | "torn-tail"),
        ORACLE_EDGE => {
            status(v) == "valid"
                || (status(v) == "torn-tail" && matches!(torn_rule, Some("J2" | "Z3")))
        }
        _ => return None,
    };
    let past = judge != ORACLE_STORE && refused_past_the_published_edge(v);
    Some(if judge_accepted {
        ours_accepts || past
    } else {
        !ours_accepts
    })
}

#[test]
fn validate_agrees_with_dsh_on_every_fixture_and_sample() {
    let files = judged_files();
    let Some(verdicts) = oracle(&files) else {
        return;
    };
    let by_011 = ours(&files, &["--dsh=0.1.1", "--platform=posix"]);
    let by_015 = ours(&files, &["--dsh=0.1.5", "--platform=posix"]);
    let known = known();
    let mut disagreements = Vec::new();
    let mut explained = BTreeSet::new();
    let mut judged = BTreeMap::<&str, usize>::new();
    for OracleVerdict {
        file,
        judge,
        verdict,
        error,
        ..
    } in &verdicts
    {
        let file = shown(Path::new(file));
        if verdict == "unjudged" {
            continue;
        }
        let error = error.as_deref().unwrap_or("");
        let mine = if judge == ORACLE_STORE {
            &by_011[&file]
        } else {
            // The edges judge v0 and v1 logs only.
            if error.starts_with("stored Session uses newer format") {
                continue;
            }
            &by_015[&file]
        };
        *judged.entry(judge.as_str()).or_default() += 1;
        let Some(agree) = agrees(judge, mine, verdict == "accepted") else {
            panic!("oracle/run printed an unknown judge {judge}");
        };
        if agree {
            continue;
        }
        let key = (file.clone(), judge.clone());
        if known.contains_key(&key) {
            explained.insert(key);
            continue;
        }
        disagreements.push(format!(
            "{file}\n    {judge}: {verdict}{}\n    dsh-session: {}",
            if error.is_empty() {
                String::new()
            } else {
                format!(" ({error})")
            },
            said(mine)
        ));
    }
    let stale: Vec<String> = known
        .keys()
        .filter(|k| !explained.contains(*k))
        .map(|(f, j)| format!("{f}\t{j}"))
        .collect();
    assert!(
        disagreements.is_empty() && stale.is_empty(),
        "{} disagreement(s) with DSH's own packages not in oracle/KNOWN.tsv:\n{}\n\n{} row(s) of oracle/KNOWN.tsv that no longer disagree (remove them):\n{}",
        disagreements.len(),
        disagreements.join("\n"),
        stale.len(),
        stale.join("\n")
    );
    // Every judge judged something: an oracle that silently judged nothing passes nothing.
    for judge in [ORACLE_STORE, ORACLE_EDGE, ORACLE_EDGE_RECOVERABLE] {
        assert!(
            judged.get(judge).copied().unwrap_or(0) >= 100,
            "{judge} judged only {:?} files",
            judged.get(judge)
        );
    }
}

/// The README's `oracle/run` example prints what DSH's packages print.
#[test]
fn the_readme_oracle_example_is_what_the_packages_say() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let block = readme
        .split("```sh\n$ oracle/run ")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the README's oracle/run example");
    let (file, shown) = block
        .split_once('\n')
        .expect("a command line, then its output");
    let Some(said) = common::oracle_output(&[std::ffi::OsStr::new(file)]) else {
        return;
    };
    assert_eq!(said, shown);
}
