//! Every sample in ../shared/samples gets the verdict and rule EXPECTED.tsv gives, and
//! every valid sample can be shown, surfaced, versioned and turned into messages.

mod common;

use common::{dsh, expected_samples, samples, verdict};

#[test]
fn validate_agrees_with_expected_tsv_on_every_sample() {
    if !common::have_samples() {
        return;
    }
    let rows = expected_samples();
    assert!(
        rows.len() >= 70,
        "EXPECTED.tsv lists {} samples",
        rows.len()
    );
    let mut mismatches = Vec::new();
    for (file, status, rule) in &rows {
        let v = verdict(&samples().join(file));
        let got_rule = v["rule"].as_str().unwrap_or("-");
        if v["status"] != status.as_str() || got_rule != rule {
            mismatches.push(format!(
                "{file}: expected {status} {rule}, got {} {got_rule} ({})",
                v["status"], v["message"]
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn every_sample_is_covered_by_expected_tsv() {
    if !common::have_samples() {
        return;
    }
    let listed: std::collections::HashSet<String> =
        expected_samples().into_iter().map(|r| r.0).collect();
    for dir in ["jsonl", "zstd", "sqlite"] {
        for entry in std::fs::read_dir(samples().join(dir)).unwrap() {
            let name = format!("{dir}/{}", entry.unwrap().file_name().to_string_lossy());
            assert!(listed.contains(&name), "{name} is not in EXPECTED.tsv");
        }
    }
}

#[test]
fn views_run_on_every_valid_sample() {
    if !common::have_samples() {
        return;
    }
    for (file, status, _) in expected_samples() {
        if status != "valid" {
            continue;
        }
        let path = samples().join(&file);
        for args in [
            &["show"][..],
            &["surface"],
            &["version"],
            &["messages"],
            &["surface", "--format", "json"],
            &["show", "--format", "json"],
        ] {
            let out = dsh().args(args).arg(&path).output().unwrap();
            assert!(
                out.status.success(),
                "{args:?} {file}: exit {:?}\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // messages is a JSON array with one element per projected surface entry.
        let out = dsh().arg("messages").arg(&path).output().unwrap();
        let messages: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("messages is JSON");
        let surface = dsh()
            .args(["surface", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        let surface: serde_json::Value =
            serde_json::from_slice(&surface.stdout).expect("surface is JSON");
        let messages = messages.as_array().expect("an array");
        assert!(
            messages.len() <= surface.as_array().expect("an array").len(),
            "{file}"
        );
        for m in messages {
            assert!(
                m["role"].is_string() && m["content"].is_array(),
                "{file}: {m}"
            );
        }
    }
}

#[test]
fn zstd_twin_gives_the_same_messages_as_plain() {
    if !common::have_samples() {
        return;
    }
    for entry in std::fs::read_dir(samples().join("zstd")).unwrap() {
        let zst = entry.unwrap().path();
        let name = zst
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".zstd")
            .to_owned();
        let plain = samples().join("jsonl").join(&name);
        if !plain.exists() {
            continue;
        }
        let a = dsh().arg("messages").arg(&plain).output().unwrap();
        let b = dsh().arg("messages").arg(&zst).output().unwrap();
        assert_eq!(a.status.code(), b.status.code(), "{name}");
        assert_eq!(
            a.stdout, b.stdout,
            "{name}: messages differ between plain and zstd"
        );
        let a = dsh().arg("surface").arg(&plain).output().unwrap();
        let b = dsh().arg("surface").arg(&zst).output().unwrap();
        assert_eq!(a.stdout, b.stdout, "{name}: surfaces differ");
    }
}
