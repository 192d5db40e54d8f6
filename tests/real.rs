//! Real session logs written by released DSH versions on users' machines
//! (`../shared/samples/real/`, read in place), and the Windows `cwd` forms DSH writes on
//! Windows (`fixtures/windows/`): every command runs on them, alone and laid out as DSH lays
//! out a JSONL root (FORMAT.md §6.3 H7, §7.1 H6).

mod common;

use std::path::{Path, PathBuf};

use common::{brief, dsh, fixture, samples, verdict, verdict_as};
use serde_json::Value;

/// (file, events, surface length, era, surface seqs when short, closers a repair appends).
struct Real {
    name: &'static str,
    id: &'static str,
    project: &'static str,
    canonical: &'static str,
    events: u64,
    surface: &'static [u64],
    era: &'static str,
    closers: &'static [&'static str],
}

const CAPITAL_SURFACE: &[u64] = &[
    11, 12, 13, 14, 19, 21, 23, 25, 29, 31, 34, 39, 40, 44, 48, 49, 56, 59, 62, 66, 67, 68, 70, 73,
    80, 81, 88, 90, 92, 96, 97, 99, 102, 109, 110, 112, 115, 122, 123, 125, 128, 135, 136, 138,
    141, 148, 149, 156, 157, 164, 165, 178, 180, 184, 185,
];

const REAL: &[Real] = &[
    Real {
        name: "capital-generation.session.v4.jsonl",
        id: "session-b34ec611-ab29-4459-9687-cea3088cd560",
        project: "--home-shawn-investment--",
        canonical: "session.v4.jsonl",
        events: 188,
        surface: CAPITAL_SURFACE,
        era: "v4",
        // A whole session: every turn completed.
        closers: &[],
    },
    Real {
        name: "dumen.prefix.session.v3.jsonl",
        id: "session-904b047f-eb01-493f-b98a-391ecfae5b66",
        project: "--home-gokun-projects-01_unicorn-77-Dumen--",
        canonical: "session.v3.jsonl",
        events: 12,
        surface: &[8, 9, 10, 11],
        era: "v3",
        closers: &[
            r#"{"type":"step/end","seq":12,"time":1789415589807,"data":{"turn":1,"step":1}}"#,
            r#"{"type":"turn/end","seq":13,"time":1789415589807,"data":{"turn":1,"reason":{"kind":"interrupted"}}}"#,
        ],
    },
    Real {
        name: "tolik-benchmark.prefix.session.v4.jsonl",
        id: "session-4aebf00d-30c2-4810-852e-cf4205306939",
        // Recorded on Windows: cwd `C:\DEV\TOLIK_Harness`.
        project: "--C-DEV-TOLIK_Harness--",
        canonical: "session.v4.jsonl",
        events: 10,
        surface: &[8, 9],
        era: "v4",
        closers: &[
            r#"{"type":"step/end","seq":10,"time":1790876596046,"data":{"turn":1,"step":1}}"#,
            r#"{"type":"turn/end","seq":11,"time":1790876596046,"data":{"turn":1,"reason":{"kind":"interrupted"}}}"#,
        ],
    },
];

fn real(name: &str) -> PathBuf {
    samples().join("real").join(name)
}

fn stdout(args: &[&str], path: &Path) -> String {
    let out = dsh().args(args).arg(path).output().expect("runs");
    assert!(
        out.status.success(),
        "{args:?} {}: exit {:?}, stderr {}",
        path.display(),
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn every_real_sample_is_valid() {
    if !common::have_samples() {
        return;
    }
    for r in REAL {
        let v = verdict(&real(r.name));
        assert_eq!(brief(&v), "valid - - -", "{}", r.name);
        assert_eq!(v["events"], r.events, "{}", r.name);
        assert_eq!(v["surface_len"], r.surface.len(), "{}", r.name);
        assert_eq!(v["era"], r.era, "{}", r.name);
        assert_eq!(v["warnings"], serde_json::json!([]), "{}", r.name);
    }
}

/// Copies the real samples into a JSONL root as DSH lays them out:
/// `<root>/--<project key>--/<encoded id>/session.vN.jsonl`.
fn real_root() -> (tempfile::TempDir, Vec<PathBuf>) {
    let root = tempfile::tempdir().expect("temp dir");
    let mut dirs = Vec::new();
    for r in REAL {
        let dir = root.path().join(r.project).join(r.id);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::copy(real(r.name), dir.join(r.canonical)).expect("copy");
        dirs.push(dir);
    }
    (root, dirs)
}

#[test]
fn real_samples_in_a_dsh_layout_pass_h6() {
    if !common::have_samples() {
        return;
    }
    let (root, _) = real_root();
    let text = stdout(&["validate"], root.path());
    let shown = text.replace(&format!("{}/", root.path().display()), "");
    assert_eq!(
        shown,
        "--C-DEV-TOLIK_Harness--/session-4aebf00d-30c2-4810-852e-cf4205306939/session.v4.jsonl: valid (10 events, surface 2, v4)\n\
         \x20 note: the final turn is still open: DSH will close it on load (`dsh-session repair` writes the same closers now)\n\
         \x20 note: written on Windows: DSH on Linux or macOS refuses it (cwd `C:\\DEV\\TOLIK_Harness` is not absolute there); on Windows it loads (--platform posix judges as Linux and macOS)\n\
         --home-gokun-projects-01_unicorn-77-Dumen--/session-904b047f-eb01-493f-b98a-391ecfae5b66/session.v3.jsonl: valid (12 events, surface 4, v3)\n\
         \x20 note: the final turn is still open: DSH will close it on load (`dsh-session repair` writes the same closers now)\n\
         --home-shawn-investment--/session-b34ec611-ab29-4459-9687-cea3088cd560/session.v4.jsonl: valid (188 events, surface 55, v4)\n\
         3 valid, 0 torn-tail, 0 corrupt, 0 refused\n"
    );
}

#[test]
fn a_windows_log_in_the_wrong_project_directory_is_h6() {
    if !common::have_samples() {
        return;
    }
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("--home-ana-proj--").join(REAL[2].id);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let log = dir.join("session.v4.jsonl");
    std::fs::copy(real(REAL[2].name), &log).expect("copy");
    let v = verdict(&log);
    assert_eq!(brief(&v), "corrupt H6 - 1");
    assert_eq!(
        v["message"],
        "header id and cwd name --C-DEV-TOLIK_Harness--/session-4aebf00d-30c2-4810-852e-cf4205306939/session.v4.jsonl, but the file is --home-ana-proj--/session-4aebf00d-30c2-4810-852e-cf4205306939/session.v4.jsonl"
    );
}

/// Each absolute `cwd` form DSH writes on Windows, with the project directory DSH derives
/// from it (§7.1 `projectKey`).
const WINDOWS: &[(&str, &str)] = &[
    ("cwd-drive-backslash.jsonl", "--C-DEV-TOLIK_Harness--"),
    ("cwd-drive-forward-slash.jsonl", "--D-DSH-agent--"),
    ("cwd-unc.jsonl", "--server-share-proj--"),
    ("cwd-device.jsonl", "--~003F-E-repo-proj--"),
    // Node's path.win32.isAbsolute: a path rooted at a separator is absolute.
    ("cwd-rooted-backslash.jsonl", "--work-proj--"),
];

#[test]
fn windows_cwd_forms_are_valid_on_windows_alone_and_in_a_dsh_layout() {
    for (name, project) in WINDOWS {
        let file = fixture(&format!("windows/{name}"));
        let cwd = serde_json::from_str::<serde_json::Value>(
            std::fs::read_to_string(&file)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap()["cwd"]
            .as_str()
            .unwrap()
            .to_owned();
        let alone = verdict(&file);
        assert_eq!(brief(&alone), "valid - - -", "{name} alone");
        let note = format!(
            "written on Windows: DSH on Linux or macOS refuses it (cwd `{cwd}` is not absolute there); on Windows it loads (--platform posix judges as Linux and macOS)"
        );
        assert_eq!(alone["notes"], serde_json::json!([note]), "{name}");

        let root = tempfile::tempdir().expect("temp dir");
        let dir = root.path().join(project).join("s-1");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::copy(&file, dir.join("session.jsonl")).expect("copy");
        let text = stdout(&["validate"], root.path());
        assert_eq!(
            text.replace(&format!("{}/", root.path().display()), ""),
            format!(
                "{project}/s-1/session.jsonl: valid (5 events, surface 1, head)\n  note: {note}\n1 valid, 0 torn-tail, 0 corrupt, 0 refused\n"
            ),
            "{name} in a layout"
        );
        // As DSH on Linux or macOS judges it (`path.isAbsolute`; the oracle runs there), and
        // on Windows, where the note is moot.
        for line in [&["--dsh", "0.1.1"][..], &[][..]] {
            let posix = verdict_as(&[line, &["--platform", "posix"][..]].concat(), &file);
            assert_eq!(brief(&posix), "refused H8 - 1", "{name} {line:?}: {posix}");
            assert_eq!(
                posix["message"],
                format!(
                    "header cwd `{cwd}` is absolute only on Windows: DSH on Linux or macOS refuses the log (\"session header cwd must be an absolute path\"); on Windows it loads (--platform windows)"
                ),
                "{name}"
            );
            let windows = verdict_as(&[line, &["--platform", "windows"][..]].concat(), &file);
            assert_eq!(brief(&windows), "valid - - -", "{name} {line:?}");
            assert_eq!(windows["notes"], serde_json::json!([]), "{name}");
        }
    }
}

#[test]
fn show_surface_messages_provenance_replacements_version_run_on_every_real_sample() {
    if !common::have_samples() {
        return;
    }
    for r in REAL {
        let path = real(r.name);

        let show: Value =
            serde_json::from_str(&stdout(&["show", "--format", "json"], &path)).expect("json");
        assert_eq!(show["status"], "valid", "{}", r.name);
        assert_eq!(show["session"], r.id, "{}", r.name);
        assert!(stdout(&["show"], &path).contains(&format!("session id:   {}\n", r.id)));

        let seqs: Vec<u64> = stdout(&["surface", "--format", "jsonl"], &path)
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).expect("json")["seq"]
                    .as_u64()
                    .expect("seq")
            })
            .collect();
        assert_eq!(seqs, r.surface, "{} surface", r.name);

        assert_messages_are_the_stored_bytes(&path, r.surface);

        // Every surface event's provenance: on the surface at its position.
        for (position, seq) in r.surface.iter().enumerate() {
            let out = dsh()
                .args(["provenance", "--format", "json"])
                .arg(&path)
                .arg(seq.to_string())
                .output()
                .expect("runs");
            assert!(out.status.success(), "{} provenance {seq}", r.name);
            let p: Value = serde_json::from_slice(&out.stdout).expect("json");
            assert_eq!(
                p["status"],
                serde_json::json!({"kind": "on-surface", "position": position}),
                "{} provenance {seq}",
                r.name
            );
        }

        let replacements = stdout(&["replacements", "--format", "json"], &path);
        assert_eq!(replacements.trim(), "[]", "{}: no replace", r.name);

        let version = stdout(&["version", "--format", "json"], &path);
        let version: Value = serde_json::from_str(&version).expect("json");
        assert_eq!(version["era"], r.era);
        assert_eq!(version["supported"], true);
    }
}

/// `messages` gives each surface event's stored message byte for byte: every line of
/// `messages --format jsonl` occurs verbatim in the raw record of its surface seq.
fn assert_messages_are_the_stored_bytes(path: &Path, surface: &[u64]) {
    let raw = std::fs::read_to_string(path).expect("read");
    let lines: Vec<&str> = raw.lines().skip(1).collect();
    let messages = stdout(&["messages", "--format", "jsonl"], path);
    let messages: Vec<&str> = messages.lines().collect();
    assert_eq!(messages.len(), surface.len(), "{}", path.display());
    for (message, seq) in messages.iter().zip(surface) {
        let record = lines
            .iter()
            .find(|l| serde_json::from_str::<Value>(l).expect("json")["seq"].as_u64() == Some(*seq))
            .expect("record of a surface seq");
        assert!(
            record.contains(message),
            "{}: message of seq {seq} is not the stored bytes",
            path.display()
        );
    }
}

#[test]
fn repair_dry_run_closes_the_open_turn_of_each_prefix() {
    if !common::have_samples() {
        return;
    }
    for r in REAL {
        let path = real(r.name);
        let out = stdout(&["repair", "--dry-run"], &path);
        let expected = if r.closers.is_empty() {
            format!("{}: nothing to repair\n", path.display())
        } else {
            format!(
                "{}: would append {}:\n{}\n",
                path.display(),
                dsh_session::wording::count(r.closers.len() as u64, "closer record"),
                r.closers.join("\n")
            )
        };
        assert_eq!(out, expected, "{}", r.name);
    }
}

#[test]
fn a_session_directory_is_read_as_its_current_generation() {
    if !common::have_samples() {
        return;
    }
    let (_root, dirs) = real_root();
    // An older generation beside it is a frozen predecessor and is not read.
    std::fs::copy(
        fixture("open-turn-after-tool-call.jsonl"),
        dirs[2].join("session.jsonl"),
    )
    .expect("copy");
    let log = dirs[2].join("session.v4.jsonl");
    for args in [
        &["show"][..],
        &["surface"],
        &["messages"],
        &["replacements"],
        &["version"],
        &["provenance", "9"],
        &["repair", "--dry-run"],
    ] {
        let (command, rest) = args.split_first().expect("a command");
        let by_dir = dsh()
            .arg(command)
            .arg(&dirs[2])
            .args(rest)
            .output()
            .expect("runs");
        let by_file = dsh()
            .arg(command)
            .arg(&log)
            .args(rest)
            .output()
            .expect("runs");
        assert!(by_dir.status.success(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&by_dir.stderr),
            format!(
                "dsh-session: reading {} (the current generation of the session directory)\n",
                log.display()
            ),
            "{args:?}"
        );
        assert_eq!(by_dir.stdout, by_file.stdout, "{args:?}");
    }
}

#[test]
fn a_session_directory_without_a_log_or_with_both_encodings_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dsh().arg("show").arg(dir.path()).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "dsh-session: {}: no session log in this directory (DSH names it session.jsonl or session.vN.jsonl, either with .zstd); for a JSONL root or a tree of logs use `dsh-session validate` or `dsh-session sessions`\n",
            dir.path().display()
        )
    );
    std::fs::write(dir.path().join("session.v3.jsonl"), b"").expect("write");
    std::fs::write(dir.path().join("session.v3.jsonl.zstd"), b"").expect("write");
    let out = dsh()
        .arg("messages")
        .arg(dir.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "dsh-session: {}: session.v3.jsonl and session.v3.jsonl.zstd are the same generation in both encodings; a DSH root holds one encoding (§7.1): name the file to read\n",
            dir.path().display()
        )
    );
}

#[test]
fn a_windows_cwd_in_a_sqlite_store_is_valid() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("sessions.db");
    // Stores hold v0 sessions only (DSH's SQLite backend predates v1).
    common::store::store_from_jsonl(&fixture("windows/cwd-drive-backslash.jsonl"), &db, 17);
    assert_eq!(brief(&verdict(&db)), "valid - - -");
    let show: Value =
        serde_json::from_str(&stdout(&["show", "--format", "json"], &db)).expect("json");
    assert_eq!(show["cwd"], r"C:\DEV\TOLIK_Harness");
}
