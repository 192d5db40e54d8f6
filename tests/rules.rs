//! One minimal log per rule id (fixtures/rules/), each breaking exactly that rule, and the
//! exact verdict `dsh-session validate --format jsonl` gives it: status, rule, seq, line.
//!
//! The tool applies HEAD's stage order (FORMAT.md §6.5), so a few rules are shadowed by
//! an earlier stage. Those fixtures are written the natural way and the table asserts
//! what is reported, with a comment saying why.
//!
//! zstd logs (Z1–Z7) are built at run time in a temporary directory, never checked in.
//!
//! Line numbers count the header as line 1. In the plain fixtures the event with seq N
//! sits on line N + 2.

mod common;

use std::io::Write as _;
use std::path::PathBuf;

use common::{brief, dsh, dsh_011, fixture, verdict, verdict_011, verdict_as};
use serde_json::{Value, json};

fn rules_fixture(name: &str) -> PathBuf {
    fixture(&format!("rules/{name}"))
}

/// (fixture, verdict): the verdict reads "STATUS RULE SEQ LINE", with `-` for null.
const CASES: &[(&str, &str)] = &[
    // Controls: the shapes the rule fixtures are built from are valid on their own.
    ("valid-minimal-turn.jsonl", "valid - - -"),
    ("valid-tool-round.jsonl", "valid - - -"),
    ("valid-request-header.jsonl", "valid - - -"),
    ("valid-tool-result-prune.jsonl", "valid - - -"),
    // §2.2: an unknown type with `ignorable: true` is kept and skipped by DSH 0.1.1
    // (ignorable_unknown_type_is_kept_and_skipped); the v0→v1 edge of DSH 0.1.5 and later
    // refuses it even so (GENERATIONS §1.3).
    ("U1-ignorable-unknown-type-valid.jsonl", "refused F1 3 5"),
    // ---- Header (§6.3). Header findings have no seq and sit on line 1. ----
    // H1 "no complete first record" is J1 for a plain file (§6.5 P1: "a plain file
    // without any `\n` is J1/H1"); the tool reports it as J1.
    ("H1-header-without-newline.jsonl", "corrupt J1 - 1"),
    ("H2-header-not-json.jsonl", "corrupt H2 - 1"),
    ("H3-version-minus-1.jsonl", "refused H3 - 1"),
    // GENERATIONS §1.3, §9: above 4 is an unknown or newer lineage.
    ("G1-version-5.jsonl", "refused G1 - 1"),
    ("H4-type-not-session.jsonl", "corrupt H4 - 1"),
    ("H5-retired-sandbox-mode.jsonl", "corrupt H5 - 1"),
    // A null cwd cannot name a storage path: H6 even for a loose file (§6.3 H6).
    ("H6-cwd-null.jsonl", "corrupt H6 - 1"),
    // A loose file is not in a store layout, so the derived-path part of H6 cannot be
    // judged and H7 (checked at P7) reports the relative cwd.
    ("H7-cwd-relative.jsonl", "corrupt H7 - 1"),
    // Relative on Windows too (an absolute Windows cwd is valid: tests/real.rs).
    ("H7-cwd-drive-relative.jsonl", "corrupt H7 - 1"),
    ("H7-cwd-windows-relative.jsonl", "corrupt H7 - 1"),
    ("H7-cwd-dot-relative.jsonl", "corrupt H7 - 1"),
    ("H7-parent-session-not-string.jsonl", "corrupt H7 - 1"),
    // As DSH on Linux or macOS judges it (`--platform posix`, [`judged_as`]).
    ("H8-windows-cwd-on-posix.jsonl", "refused H8 - 1"),
    // ---- Plain JSONL framing (§5.5.1). ----
    ("J1-empty-file.jsonl", "corrupt J1 - 1"),
    ("J2-torn-final-line.jsonl", "torn-tail J2 - 7"),
    // J3 (a complete line that is not JSON / not a valid packed row) is a defect: a torn
    // tail (J6) when no turn/end follows, corruption (J5) when one does.
    ("J3-not-json-torn.jsonl", "torn-tail J6 - 8"),
    ("J3-not-json-committed.jsonl", "corrupt J5 - 4"),
    ("J3-bad-packed-row-committed.jsonl", "corrupt J5 - 5"),
    // J4 (seq gap or repeat) likewise.
    ("J4-seq-gap-torn.jsonl", "torn-tail J6 - 7"),
    ("J4-seq-gap-committed.jsonl", "corrupt J5 - 4"),
    // J5: for a J4 defect the gapped line itself may be the turn/end.
    ("J5-gapped-line-is-turn-end.jsonl", "corrupt J5 - 6"),
    // J6: the first defect and every later line, good or bad, form the torn tail.
    ("J6-defect-then-good-lines.jsonl", "torn-tail J6 - 8"),
    // J7: a `null` line where J6 would otherwise see a torn tail is still corruption.
    // As DSH 0.1.1 judges it ([`judged_as`]); DSH 0.1.5 and later: a torn tail (J6).
    ("J7-null-line.jsonl", "corrupt J7 - 7"),
    // ---- Envelope (§1.3). ----
    ("E1-extra-envelope-key.jsonl", "corrupt E1 3 5"),
    // E2 is reachable only with `ignorable: true`: a non-string type is not a known
    // type, so without it U1 (P5) fires before the envelope pass (P7).
    ("E2-type-not-string.jsonl", "corrupt E2 3 5"),
    ("E2-type-not-string-required.jsonl", "refused U1 3 5"),
    // E3: `"seq":"2"` never reaches the envelope pass; the framing rule J4 sees a line
    // that does not continue the seq sequence, and the turn/end after it makes it J5.
    // (For the same reason E7 and S1 cannot appear from a JSONL file.)
    ("E3-seq-string.jsonl", "corrupt J5 - 4"),
    ("E4-time-not-integer.jsonl", "corrupt E4 3 5"),
    ("E5-data-missing.jsonl", "corrupt E5 3 5"),
    ("E6-ignorable-false.jsonl", "corrupt E6 3 5"),
    // E8 in an otherwise balanced log.
    ("E8-step-start-data-null.jsonl", "corrupt E8 1 3"),
    // A turn/start without `data` would also break E5, but the closer scan (P6) runs
    // before the envelope pass (P7): E8.
    ("E8-turn-start-without-data.jsonl", "corrupt E8 0 2"),
    // ---- Vocabulary (§2.2). ----
    ("U1-unknown-type.jsonl", "refused U1 3 5"),
    // ---- Messages (§2.5). ----
    ("M1-user-message-empty-id.jsonl", "corrupt M1 2 4"),
    ("M2-user-message-role-assistant.jsonl", "corrupt M2 2 4"),
    ("M3-source-kind-empty.jsonl", "corrupt M3 2 4"),
    ("M4-content-not-array.jsonl", "corrupt M4 2 4"),
    ("M5-assistant-source-without-model.jsonl", "corrupt M5 3 5"),
    ("M6-tool-result-source-not-tool.jsonl", "corrupt M6 5 7"),
    ("M7-tool-result-two-blocks.jsonl", "corrupt M7 5 7"),
    ("M8-tool-call-id-mismatch.jsonl", "corrupt M8 5 7"),
    // ---- Request headers (§2.5). ----
    ("R1-request-header-without-model.jsonl", "corrupt R1 3 5"),
    ("R2-reasoning-effort-empty.jsonl", "corrupt R2 3 5"),
    (
        "R3-adapter-default-without-config-value.jsonl",
        "corrupt R3 3 5",
    ),
    // ---- Whole-log legacy rejections (§2.5) and legacy conversions (§9.3.2). ----
    // A request/header-delta also breaks E0, but the L1 scan (P4) runs first.
    ("L1-request-header-delta.jsonl", "corrupt L1 3 5"),
    ("L2-mode-set.jsonl", "corrupt L2 3 5"),
    // A "fallback" reason also breaks R4 (P7), but the L3 scan (P4) runs first: R4 can
    // never be reported.
    ("L3-request-header-reason-fallback.jsonl", "corrupt L3 3 5"),
    ("L4-turn-start-trigger-without-kind.jsonl", "corrupt L4 0 2"),
    (
        "L5-turn-end-completed-with-extra-key.jsonl",
        "corrupt L5 4 6",
    ),
    (
        "L6-steering-message-without-content.jsonl",
        "corrupt L6 4 6",
    ),
    // ---- Surface (§3.2). ----
    ("S2-step-end-with-surface-op.jsonl", "corrupt S2 3 5"),
    ("S3-step-end-with-source-event-seqs.jsonl", "corrupt S3 3 5"),
    ("S4-user-message-without-surface-op.jsonl", "corrupt S4 2 4"),
    ("S5-surface-op-prepend.jsonl", "corrupt S5 2 4"),
    ("S6-replace-without-end.jsonl", "corrupt S6 3 5"),
    ("S7-replace-start-not-on-surface.jsonl", "corrupt S7 3 5"),
    ("S8-replace-end-not-on-surface.jsonl", "corrupt S8 3 5"),
    ("S9-replace-start-after-end.jsonl", "corrupt S9 4 6"),
    ("S10-source-event-seqs-object.jsonl", "corrupt S10 2 4"),
    ("S11-source-event-seqs-empty.jsonl", "corrupt S11 2 4"),
    ("S12-source-event-seqs-negative.jsonl", "corrupt S12 2 4"),
    ("S13-source-event-seqs-duplicate.jsonl", "corrupt S13 2 4"),
    ("S14-source-event-seqs-not-earlier.jsonl", "corrupt S14 2 4"),
    ("S15-replace-missing-shadowed-seq.jsonl", "corrupt S15 3 5"),
    ("S16-tool-result-replace-two-nodes.jsonl", "corrupt S16 6 8"),
    (
        "S17-tool-result-replace-targets-assistant.jsonl",
        "corrupt S17 6 8",
    ),
    // v0: a legacy tool/result replace takes the message id of what it replaces; the fold
    // keeps ids only of tool results, and a user message's id still passes M1 here.
    (
        "S17-legacy-tool-result-replace-targets-user-message.jsonl",
        "corrupt S17 10 12",
    ),
    (
        "S18-tool-result-replace-changes-is-error.jsonl",
        "corrupt S18 6 8",
    ),
];

/// Fixtures used by a dedicated test instead of the table.
const SPECIAL: &[&str] = &["H6-store-path.jsonl"];

/// The global options a fixture of the table is judged with: the rule it shows is one a
/// DSH line or a platform reports, not every one (J7: DSH 0.1.1 aborts on a null line; H8:
/// DSH on Linux or macOS refuses a Windows cwd).
fn judged_as(file: &str) -> &'static [&'static str] {
    if file.starts_with("J7-") {
        &["--dsh", "0.1.1"]
    } else if file.starts_with("H8-") {
        &["--platform", "posix"]
    } else {
        &[]
    }
}

#[test]
fn every_rule_fixture_gets_its_exact_verdict() {
    let mut mismatches = Vec::new();
    for &(file, want) in CASES {
        let v = verdict_as(judged_as(file), &rules_fixture(file));
        let got = brief(&v);
        if got != want {
            mismatches.push(format!(
                "{file}: expected {want}, got {got} ({})",
                v["message"]
            ));
        }
        // Every verdict names its file and its encoding, and a failing one says why.
        let status = want.split(' ').next().unwrap();
        assert_eq!(v["schema_version"], 1, "{file}");
        assert_eq!(v["encoding"], "none", "{file}");
        assert!(
            v["file"].as_str().is_some_and(|f| f.ends_with(file)),
            "{file}: {}",
            v["file"]
        );
        if status == "valid" {
            assert!(v["message"].is_null(), "{file}: {v}");
        } else {
            assert!(
                v["message"].as_str().is_some_and(|m| !m.is_empty()),
                "{file}: no message"
            );
        }
        assert_eq!(
            v["torn_tail"].is_null(),
            status != "torn-tail",
            "{file}: {v}"
        );
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn every_fixture_in_the_directory_is_checked() {
    let dir = fixture("rules");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in &names {
        assert!(
            CASES.iter().any(|c| c.0 == name) || SPECIAL.contains(&name.as_str()),
            "{name} is in fixtures/rules but no test checks it"
        );
    }
    for &(file, _) in CASES {
        assert!(
            names.iter().any(|n| n == file),
            "{file} is listed but missing"
        );
    }
}

#[test]
fn every_reportable_rule_has_a_fixture_or_a_reason() {
    // Rules a file cannot make this reader report, each with why (`rules ID` prints it).
    let unreachable: Vec<&str> = dsh_session::rules::NOT_REPORTED
        .iter()
        .map(|(id, _)| *id)
        .collect();
    // Rules exercised outside the table: the H6 store path and the zstd tests below.
    let elsewhere = ["H6", "Z1", "Z2", "Z3", "Z4", "Z5", "Z6", "Z7", "Z8"];
    let out = dsh().arg("rules").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let ids: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.len() <= 3 && w.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
        .filter(|w| w[1..].chars().all(|c| c.is_ascii_digit()) && w.len() > 1)
        .collect();
    assert!(ids.len() >= 70, "rules lists {} ids", ids.len());
    // The log-level families; SQLite store rules (D, Q) need a database, not a log file.
    for id in ids
        .into_iter()
        .filter(|id| id.starts_with(['H', 'J', 'Z', 'E', 'U', 'M', 'R', 'L', 'S']))
    {
        let covered = CASES.iter().any(|c| c.1.split(' ').nth(1) == Some(id));
        assert!(
            covered || unreachable.contains(&id) || elsewhere.contains(&id),
            "rule {id} has no fixture"
        );
    }
}

#[test]
fn messages_say_what_broke() {
    let message = |name: &str| {
        verdict(&rules_fixture(name))["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    // §6.2: the fragments upstream's own tests match.
    let m = message("H3-version-minus-1.jsonl");
    assert!(m.contains("session \"s-1\" uses log format v-1"), "{m}");
    assert!(
        m.contains("older than v0") && m.contains("no upgrade path"),
        "{m}"
    );
    assert!(
        !m.contains("H3-version-minus-1.jsonl"),
        "the line names the file: {m}"
    );
    let m = message("G1-version-5.jsonl");
    assert!(
        m.contains("session \"s-1\" uses log format v5: an unknown or newer lineage"),
        "{m}"
    );
    assert!(m.contains("upgrade the harness"), "{m}");
    // §5.5.1 J5: the expected / found seqs (the finding names the line once).
    let m = message("J4-seq-gap-committed.jsonl");
    assert_eq!(
        m,
        "seq gap (expected 2, got 3) in the committed region; a turn/end follows at line 6"
    );
    let m = message("J3-not-json-committed.jsonl");
    assert!(
        m.starts_with("unparsable committed event; a turn/end follows at line"),
        "{m}"
    );
    // A seq that is not a number is not a gap.
    let m = message("E3-seq-string.jsonl");
    assert!(
        m.contains(r#"seq is not a non-negative safe integer (got "2", expected 2)"#),
        "{m}"
    );
    // §2.2: the type, and that it is not DSH's (outside DSH's namespace).
    let m = message("U1-unknown-type.jsonl");
    assert!(
        m.contains("\"future/thing\"") && m.contains("not a DSH event type"),
        "{m}"
    );
    // §3.2 S9: positions on the surface, not seq values.
    let m = message("S9-replace-start-after-end.jsonl");
    assert!(
        m.contains("start seq 3 (index 1) is after end seq 2 (index 0)"),
        "{m}"
    );
    let m = message("S15-replace-missing-shadowed-seq.jsonl");
    assert!(m.contains("missing 2"), "{m}");
    let m = message("S17-tool-result-replace-targets-assistant.jsonl");
    assert!(m.contains("must target a current tool/result"), "{m}");
    let m = message("M8-tool-call-id-mismatch.jsonl");
    assert!(m.contains("mismatched tool call ids"), "{m}");
    let m = message("E1-extra-envelope-key.jsonl");
    assert!(
        m.contains("invalid event envelope") && m.contains("\"note\""),
        "{m}"
    );
}

#[test]
fn ignorable_unknown_type_is_kept_and_skipped() {
    let v = verdict_011(&rules_fixture("U1-ignorable-unknown-type-valid.jsonl"));
    assert_eq!(v["status"], "valid", "{v}");
    // It still occupies its seq: six events, one user message on the surface.
    assert_eq!(v["events"], 6);
    assert_eq!(v["surface_len"], 1);
    assert_eq!(v["era"], "head");
    assert_eq!(v["warnings"], serde_json::json!([]));
}

/// Byte offset at which 1-based `line` starts.
fn line_start(bytes: &[u8], line: u64) -> u64 {
    let mut seen = 1;
    for (i, b) in bytes.iter().enumerate() {
        if seen == line {
            return i as u64;
        }
        if *b == b'\n' {
            seen += 1;
        }
    }
    assert_eq!(seen, line, "file has fewer lines");
    bytes.len() as u64
}

#[test]
fn torn_tails_say_what_a_repair_cuts() {
    // (fixture, rule, first dropped line, lines dropped, events dropped, events kept)
    let cases = [
        ("J2-torn-final-line.jsonl", "J2", 7, 1, 0, 5),
        ("J3-not-json-torn.jsonl", "J6", 8, 1, 0, 6),
        ("J4-seq-gap-torn.jsonl", "J6", 7, 1, 1, 5),
        ("J6-defect-then-good-lines.jsonl", "J6", 8, 2, 2, 6),
    ];
    for (file, rule, line, lines, events, kept) in cases {
        let path = rules_fixture(file);
        let bytes = std::fs::read(&path).unwrap();
        let v = verdict(&path);
        let t = &v["torn_tail"];
        assert_eq!(v["status"], "torn-tail", "{file}: {v}");
        assert_eq!(t["rule"], rule, "{file}: {t}");
        assert_eq!(t["line"], line, "{file}: {t}");
        assert_eq!(t["lines"], lines, "{file}: {t}");
        assert_eq!(t["events"], events, "{file}: {t}");
        // The committed offset is the end of the last good line (§5.5.1 J6).
        let offset = line_start(&bytes, line);
        assert_eq!(t["offset"], offset, "{file}: {t}");
        assert_eq!(t["bytes"], bytes.len() as u64 - offset, "{file}: {t}");
        assert_eq!(v["events"], kept, "{file}: {v}");
        assert_eq!(v["rule"], rule);
        assert_eq!(v["line"], line);
        assert_eq!(v["message"], t["message"]);
    }
}

#[test]
fn h6_header_must_name_its_store_path() {
    let tmp = tempfile::tempdir().unwrap();
    let log = std::fs::read(rules_fixture("H6-store-path.jsonl")).unwrap();
    let place = |project: &str| {
        let dir = tmp.path().join(project).join("s-1");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("session.jsonl");
        std::fs::write(&path, &log).unwrap();
        path
    };
    // The header says cwd /home/ana/proj, id s-1: --home-ana-proj--/s-1/session.jsonl.
    let right = verdict(&place("--home-ana-proj--"));
    assert_eq!(brief(&right), "valid - - -", "{right}");
    let wrong = verdict(&place("--wrong-project--"));
    assert_eq!(brief(&wrong), "corrupt H6 - 1", "{wrong}");
    let m = wrong["message"].as_str().unwrap();
    assert!(
        m.contains("--home-ana-proj--/s-1/session.jsonl") && m.contains("--wrong-project--"),
        "{m}"
    );
    // The session directory must be the encoded id too.
    let dir = tmp.path().join("--home-ana-proj--").join("s-2");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("session.jsonl"), &log).unwrap();
    let v = verdict(&dir.join("session.jsonl"));
    assert_eq!(brief(&v), "corrupt H6 - 1", "{v}");
}

#[test]
fn surface_refuses_a_corrupt_log_naming_file_rule_and_line() {
    let path = rules_fixture("M2-user-message-role-assistant.jsonl");
    let out = dsh().arg("surface").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("M2"), "{err}");
    assert!(err.contains("line 4"), "{err}");
    assert!(err.contains("corrupt"), "{err}");

    // A framing defect names its rule and line the same way.
    let path = rules_fixture("J7-null-line.jsonl");
    let out = dsh_011().arg("surface").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("J7-null-line.jsonl") && err.contains("J7") && err.contains("line 7"),
        "{err}"
    );
}

#[test]
fn validate_exit_code_follows_the_verdicts() {
    let code = |name: &str| {
        dsh()
            .args(["validate", "--format", "jsonl"])
            .arg(rules_fixture(name))
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(code("valid-tool-round.jsonl"), Some(0));
    assert_eq!(code("J2-torn-final-line.jsonl"), Some(0));
    assert_eq!(code("S9-replace-start-after-end.jsonl"), Some(1));
    assert_eq!(code("U1-unknown-type.jsonl"), Some(1));
}

// ---------------------------------------------------------------------------------------
// zstd (FORMAT.md §5.5.2, §7.5). Frames are built here, then damaged as each rule needs.

const HEADER: &str = r#"{"type":"session","version":0,"id":"s-1","createdAt":1760000000000,"cwd":"/home/ana/proj","delegationDepth":0}"#;

/// The events of `valid-minimal-turn.jsonl` (one committed turn), seqs 0..=4.
fn turn_one() -> String {
    let text = std::fs::read_to_string(rules_fixture("valid-minimal-turn.jsonl")).unwrap();
    text.split_inclusive('\n').skip(1).collect()
}

/// The start of turn 2, seqs 5 and 6.
const TURN_TWO_START: &str = concat!(
    r#"{"type":"turn/start","seq":5,"time":1760000000105,"data":{"turn":2}}"#,
    "\n",
    r#"{"type":"step/start","seq":6,"time":1760000000106,"data":{"turn":2,"step":1}}"#,
    "\n"
);

/// One checksummed zstd frame holding `text`.
fn frame(text: &str) -> Vec<u8> {
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    enc.include_checksum(true).unwrap();
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap()
}

fn header_frame() -> Vec<u8> {
    frame(&format!("{HEADER}\n"))
}

/// Offset, inside a frame, of its first block header (§7.5 frame header layout).
fn first_block_header(frame: &[u8]) -> usize {
    let desc = frame[4];
    let single_segment = desc & 0x20 != 0;
    let fcs = match desc >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let did = [0, 1, 2, 4][usize::from(desc & 3)];
    5 + usize::from(!single_segment) + did + fcs
}

/// Writes `bytes` as `<tmp>/log.jsonl.zstd` and returns its verdict.
fn zstd_verdict(tmp: &tempfile::TempDir, bytes: &[u8]) -> Value {
    zstd_verdict_as(&[], tmp, bytes)
}

/// [`zstd_verdict`] with global options (`--dsh 0.1.1`).
fn zstd_verdict_as(options: &[&str], tmp: &tempfile::TempDir, bytes: &[u8]) -> Value {
    let path = tmp.path().join("log.jsonl.zstd");
    std::fs::write(&path, bytes).unwrap();
    let v = verdict_as(options, &path);
    assert_eq!(v["encoding"], "zstd", "{v}");
    v
}

#[test]
fn zstd_control_is_valid() {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = [header_frame(), frame(&turn_one()), frame(TURN_TWO_START)].concat();
    let v = zstd_verdict(&tmp, &bytes);
    assert_eq!(brief(&v), "valid - - -", "{v}");
    assert_eq!(v["events"], 7);
}

#[test]
fn z1_invalid_magic_at_a_frame_boundary() {
    let tmp = tempfile::tempdir().unwrap();
    let good = [header_frame(), frame(&turn_one())].concat();
    let bytes = [good.clone(), vec![0, 0, 0, 0]].concat();
    let v = zstd_verdict(&tmp, &bytes);
    assert_eq!(brief(&v), "corrupt Z1 - -", "{v}");
    let m = v["message"].as_str().unwrap();
    assert!(
        m.contains("invalid zstd frame magic") && m.contains(&format!("offset {}", good.len())),
        "{m}"
    );
    // Skippable frames are not allowed either (§7.5: no skippable frames; §5.5.2 Z1).
    let skippable = [
        header_frame(),
        vec![0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0],
        frame(&turn_one()),
    ]
    .concat();
    let v = zstd_verdict(&tmp, &skippable);
    assert_eq!(brief(&v), "corrupt Z1 - -", "{v}");
    // The structural scan of every frame runs before the header's version check (§6.2):
    // a newer-version header is refused only when the framing is sound.
    let newer = frame(&format!(
        "{}\n",
        HEADER.replace("\"version\":0", "\"version\":7")
    ));
    let v = zstd_verdict(
        &tmp,
        &[newer.clone(), frame(&turn_one()), vec![0, 0, 0, 0]].concat(),
    );
    assert_eq!(brief(&v), "corrupt Z1 - -", "{v}");
    let v = zstd_verdict(&tmp, &[newer, frame(&turn_one())].concat());
    assert_eq!(brief(&v), "refused G1 - 1", "{v}");
}

#[test]
fn z2_reserved_descriptor_bits_or_block_type() {
    let tmp = tempfile::tempdir().unwrap();
    let head = header_frame();
    let mut batch = frame(&turn_one());
    batch[4] |= 0x08;
    let v = zstd_verdict(&tmp, &[head.clone(), batch].concat());
    assert_eq!(brief(&v), "corrupt Z2 - -", "{v}");
    assert!(v["message"].as_str().unwrap().contains("reserved"), "{v}");
    // Reserved block type 3, even in the final frame.
    let mut batch = frame(&turn_one());
    let at = first_block_header(&batch);
    batch[at] |= 0b110;
    let v = zstd_verdict(&tmp, &[head, batch].concat());
    assert_eq!(brief(&v), "corrupt Z2 - -", "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("reserved type 3"),
        "{v}"
    );
}

#[test]
fn z3_file_ends_inside_the_final_frame() {
    let tmp = tempfile::tempdir().unwrap();
    let committed = [header_frame(), frame(&turn_one())].concat();
    let mut last = frame(TURN_TWO_START);
    last.truncate(last.len() - 2); // cut inside the checksum
    let bytes = [committed.clone(), last.clone()].concat();
    let v = zstd_verdict(&tmp, &bytes);
    assert_eq!(v["status"], "torn-tail", "{v}");
    assert_eq!(v["rule"], "Z3", "{v}");
    assert!(v["seq"].is_null(), "{v}");
    let t = &v["torn_tail"];
    assert_eq!(t["rule"], "Z3");
    // The torn frame's start is the truncation point (§5.5.2 Z3) ...
    assert_eq!(t["offset"], committed.len() as u64, "{t}");
    assert_eq!(t["bytes"], last.len() as u64, "{t}");
    // ... and its complete lines are recovered and kept (Z8): 5 + 2 events.
    assert_eq!(v["events"], 7, "{v}");
    assert_eq!(t["lines"], 0, "{t}");
    assert_eq!(t["events"], 0, "{t}");
    // Nothing is dropped, so the tail's "first dropped line" is the one after the
    // recovered lines: header, 5 + 2 event lines, then line 9.
    assert_eq!(v["line"], 9, "{v}");

    // Fewer than 4 bytes left at a frame boundary is a torn frame too.
    let bytes = [committed.clone(), vec![0x28, 0xB5]].concat();
    let v = zstd_verdict(&tmp, &bytes);
    assert_eq!(
        (v["status"].as_str(), v["rule"].as_str()),
        (Some("torn-tail"), Some("Z3")),
        "{v}"
    );
    assert_eq!(v["torn_tail"]["offset"], committed.len() as u64);
    assert_eq!(v["torn_tail"]["bytes"], 2);
    assert_eq!(v["events"], 5);
}

#[test]
fn z4_no_structurally_complete_frame() {
    let tmp = tempfile::tempdir().unwrap();
    let head = header_frame();
    let v = zstd_verdict(&tmp, &head[..head.len() - 1]);
    assert_eq!(brief(&v), "corrupt Z4 - -", "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("no structurally complete zstd frame"),
        "{v}"
    );
    let v = zstd_verdict(&tmp, b"");
    assert_eq!(brief(&v), "corrupt Z4 - -", "{v}");
}

#[test]
fn z5_complete_frame_fails_its_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let head = header_frame();
    let mut batch = frame(&turn_one());
    let n = batch.len();
    batch[n - 1] ^= 0xFF; // the content checksum is the last 4 bytes
    // Corrupt even though it is the last complete frame.
    let v = zstd_verdict(&tmp, &[head.clone(), batch].concat());
    assert_eq!(brief(&v), "corrupt Z5 - -", "{v}");
    let m = v["message"].as_str().unwrap();
    assert!(
        m.contains(&format!(
            "frame at byte offset {} fails decompression",
            head.len()
        )),
        "{m}"
    );
}

#[test]
fn z6_first_frame_is_not_exactly_one_header_line() {
    let tmp = tempfile::tempdir().unwrap();
    let events = turn_one();
    let (first, rest) = events.split_at(events.find('\n').unwrap() + 1);
    let bytes = [frame(&format!("{HEADER}\n{first}")), frame(rest)].concat();
    let v = zstd_verdict(&tmp, &bytes);
    assert_eq!(brief(&v), "corrupt Z6 - 1", "{v}");
    // A header frame without its newline is Z6 too.
    let bytes = [frame(HEADER), frame(&events)].concat();
    let v = zstd_verdict(&tmp, &bytes);
    assert_eq!(brief(&v), "corrupt Z6 - 1", "{v}");
}

#[test]
fn z7_complete_frames_hold_a_torn_or_invalid_record() {
    let tmp = tempfile::tempdir().unwrap();
    // The complete frames end mid-line.
    let events = turn_one();
    let bytes = [header_frame(), frame(events.trim_end_matches('\n'))].concat();
    let v = zstd_verdict(&tmp, &bytes);
    assert_eq!(brief(&v), "corrupt Z7 - 6", "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("torn JSONL record"),
        "{v}"
    );
    // A garbage line inside a complete frame is corruption even with no turn/end after
    // it (plain JSONL would call this a J6 torn tail).
    let turn_two = TURN_TWO_START.lines().next().unwrap();
    let batch = format!("{events}{turn_two}\n{{\"type\":\"step/start\",\n");
    let bytes = [header_frame(), frame(&batch)].concat();
    let v = zstd_verdict(&tmp, &bytes);
    assert_eq!(brief(&v), "corrupt Z7 - 8", "{v}");
    assert!(v["torn_tail"].is_null(), "{v}");
}

#[test]
fn z_defect_inside_complete_frames_with_a_turn_end_after_is_j5() {
    // §5.5.2 Z7: "a J5 or J7 condition inside the complete frames is reported as such".
    let tmp = tempfile::tempdir().unwrap();
    let events = turn_one();
    let mut lines: Vec<&str> = events.split_inclusive('\n').collect();
    lines[2] = "not json\n"; // seq 2, line 4; the turn/end on line 6 commits it
    let bytes = [header_frame(), frame(&lines.concat())].concat();
    let v = zstd_verdict(&tmp, &bytes);
    assert_eq!(brief(&v), "corrupt J5 - 4", "{v}");
    // A null line: DSH 0.1.1 aborts the load; later DSHs read it as any torn record of a
    // complete frame (Z7).
    let bytes = [header_frame(), frame(&events), frame("null\n")].concat();
    let v = zstd_verdict_as(&["--dsh", "0.1.1"], &tmp, &bytes);
    assert_eq!(brief(&v), "corrupt J7 - 7", "{v}");
    let v = zstd_verdict(&tmp, &bytes);
    assert_eq!(brief(&v), "corrupt Z7 - 7", "{v}");
    assert_eq!(
        v["message"], "complete frame contains a torn JSONL record: line is JSON null",
        "{v}"
    );
}

#[test]
fn z8_defect_in_lines_recovered_from_a_torn_frame_is_a_torn_tail() {
    // §5.5.2 Z8: J3–J7 apply to the torn frame's lines; a defect there with no turn/end
    // after it is a torn tail cut at the torn frame's start.
    let tmp = tempfile::tempdir().unwrap();
    let committed = [header_frame(), frame(&turn_one())].concat();
    let turn_two = TURN_TWO_START.lines().next().unwrap();
    // A good line (kept), a garbage line (the defect) and a partial last line.
    let text = format!("{turn_two}\ngarbage\nx");
    let mut last = frame(&text);
    last.truncate(last.len() - 2);
    let v = zstd_verdict(&tmp, &[committed.clone(), last.clone()].concat());
    assert_eq!(v["status"], "torn-tail", "{v}");
    assert_eq!(v["torn_tail"]["offset"], committed.len() as u64, "{v}");
    assert_eq!(v["torn_tail"]["bytes"], last.len() as u64, "{v}");
    assert_eq!(v["torn_tail"]["line"], 8, "{v}");
    assert_eq!(v["rule"], "Z8", "{v}");
    assert_eq!(v["events"], 6, "{v}");
    // §5.5.1 J7 applies to lines recovered from a torn frame too: for DSH 0.1.1,
    // corruption, no repair; later DSHs drop the null line with the torn frame (Z8).
    let mut last = frame(&format!("{turn_two}\nnull\nx"));
    last.truncate(last.len() - 2);
    let bytes = [committed.clone(), last.clone()].concat();
    let v = zstd_verdict_as(&["--dsh", "0.1.1"], &tmp, &bytes);
    assert_eq!(brief(&v), "corrupt J7 - 8", "{v}");
    assert!(v["torn_tail"].is_null(), "{v}");
    let v = zstd_verdict(&tmp, &bytes);
    assert_eq!(brief(&v), "torn-tail Z8 - 8", "{v}");
    assert_eq!(
        (&v["torn_tail"]["offset"], &v["torn_tail"]["bytes"]),
        (&json!(committed.len()), &json!(last.len())),
        "{v}"
    );
}
