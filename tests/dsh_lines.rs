//! The DSH release lines `--dsh` judges as (0.1.1, 0.1.5, 0.1.7, latest, writer) and the
//! platform `--platform` judges on, each giving the answers of that DSH: checked against
//! DSH's own published packages where they run (tests/oracle.rs), and here on the shapes
//! that tell the lines apart.

mod common;

use common::{
    ORACLE_EDGE, ORACLE_STORE, brief, dsh, fixture, have_samples, oracle, oracle_output, samples,
    verdict, verdict_as,
};
use serde_json::{Value, json};

/// (status rule seq line, message) of `validate` under `options`.
fn judged(options: &[&str], path: &std::path::Path) -> (String, String) {
    let v = verdict_as(options, path);
    (brief(&v), v["message"].as_str().unwrap_or("").to_owned())
}

#[test]
fn a_v4_log_is_read_by_0_1_7_and_refused_as_newer_by_0_1_5_and_0_1_1() {
    let mut logs = vec![fixture("generations/v4/session.v4.jsonl")];
    if have_samples() {
        logs.push(samples().join("real/capital-generation.session.v4.jsonl"));
    }
    for log in &logs {
        let id = serde_json::from_str::<Value>(
            std::fs::read_to_string(log)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        for line in [
            &[][..],
            &["--dsh", "0.1.7"],
            &["--dsh", "latest"],
            &["--dsh", "0.2.1-alpha.2"],
        ] {
            assert_eq!(
                judged(line, log).0,
                "valid - - -",
                "{line:?} {}",
                log.display()
            );
        }
        assert_eq!(
            judged(&["--dsh", "0.1.5"], log),
            (
                "refused G10 - 1".to_owned(),
                format!(
                    "session \"{id}\" uses log format v4, but DSH 0.1.5 reads v0 to v3 (\"stored Session uses newer format v4; this build writes v3\"): the log was written by a newer harness (judge it with --dsh 0.1.7)"
                )
            ),
            "{}",
            log.display()
        );
        assert_eq!(
            judged(&["--dsh", "0.1.6-alpha.1"], log).0,
            "refused G10 - 1",
            "0.1.6 is of the 0.1.5 line"
        );
        assert_eq!(
            judged(&["--dsh", "0.1.1"], log),
            (
                "refused G10 - 1".to_owned(),
                format!(
                    "session \"{id}\" uses log format v4, but DSH 0.1.1 reads only v0: the log was written by a newer harness (judge it with --dsh 0.1.7)"
                )
            )
        );
        // The writing DSH reads its own generation.
        assert_eq!(judged(&["--dsh", "writer"], log).0, "valid - - -");
    }
}

#[test]
fn a_v3_log_is_read_by_0_1_5_and_later_and_refused_by_0_1_1() {
    let log = fixture("generations/v3/session.v3.jsonl");
    for line in [
        &[][..],
        &["--dsh", "0.1.5"],
        &["--dsh", "0.1.7"],
        &["--dsh", "writer"],
    ] {
        assert_eq!(judged(line, &log).0, "valid - - -", "{line:?}");
    }
    assert_eq!(
        judged(&["--dsh", "0.1.1"], &log),
        (
            "refused G10 - 1".to_owned(),
            "session \"s-v3\" uses log format v3, but DSH 0.1.1 reads only v0: the log was written by a newer harness (judge it with --dsh 0.1.5 or 0.1.7)".to_owned()
        )
    );
}

#[test]
fn an_unknown_line_is_a_usage_error_naming_the_known_ones() {
    for (value, why) in [
        (
            "0.9.0",
            "DSH 0.9.0 is newer than any release line described here",
        ),
        (
            "0.1.3",
            "DSH 0.1.3 (a v0-alpha or v2 writer) is not described here",
        ),
        ("newest", "\"newest\" is not a DSH release line"),
    ] {
        let out = dsh()
            .args(["--dsh", value, "validate"])
            .arg(fixture("rules/valid-minimal-turn.jsonl"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{value}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "invalid value '{value}' for '--dsh <LINE>': {why}: give 0.1.1, 0.1.5, 0.1.7, latest or writer"
            )),
            "{err}"
        );
    }
    let out = dsh()
        .args(["--platform", "beos", "validate"])
        .arg(fixture("rules/valid-minimal-turn.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("\"beos\" is not a platform: give posix or windows")
    );
}

/// DSH 0.1.1-rc.2's store refuses what the v0-alpha writers added (GENERATIONS §3): range
/// pairs in `sourceEventSeqs` and their event types; and a June 2026 header, which lacks
/// `delegationDepth`. Later DSHs read the first two.
#[test]
fn dsh_0_1_1_refuses_the_v0_alpha_forms_and_a_june_2026_header() {
    let ranges = fixture("hostile/source-event-seqs-ranges.jsonl");
    assert_eq!(
        judged(&["--dsh", "0.1.1"], &ranges),
        (
            "refused G10 8 10".to_owned(),
            "sourceEventSeqs holds the range pair [3,7]: the v0-alpha form DSH 0.1.2-alpha and later write; DSH 0.1.1 refuses it (\"must densely contain non-negative safe integers\"): the log was written by a newer harness".to_owned()
        )
    );
    assert_eq!(verdict(&ranges)["era"], "v0-alpha");
    assert_eq!(brief(&verdict(&ranges)), "valid - - -");

    let alpha = fixture("generations/v0-alpha-model-selection.jsonl");
    assert_eq!(
        judged(&["--dsh", "0.1.1"], &alpha),
        (
            "refused U1 0 2".to_owned(),
            "unknown event type \"model/selection\" without ignorable: true; the type is in DSH's own namespace, so the log was probably written by a newer harness: upgrade DSH and dsh-session".to_owned()
        )
    );
    for line in [&[][..], &["--dsh", "0.1.5"], &["--dsh", "writer"]] {
        let v = verdict_as(line, &alpha);
        assert_eq!(
            (brief(&v).as_str(), &v["era"]),
            ("valid - - -", &json!("v0-alpha")),
            "{line:?}"
        );
    }

    let june = fixture("june-2026.jsonl");
    assert_eq!(
        judged(&["--dsh", "0.1.1"], &june),
        (
            "corrupt H4 - 1".to_owned(),
            "first line is not a session header: DSH 0.1.1-rc.2's store requires delegationDepth, which a June 2026 header lacks".to_owned()
        )
    );
}

/// A user's v3 log with two `tool/ptc-dispatch-start` events (subCallIds `…:ptc:1`,
/// `…:ptc:2`) and their results: the v3 read checks them under the frozen code-dispatch
/// names. It was `corrupt G9 … tool/code-dispatch has no unique start`.
#[test]
fn a_v3_log_with_two_ptc_dispatches_is_valid() {
    let log = fixture("generations/v3-ptc-dispatch-two-starts/session.v3.jsonl");
    for line in [&[][..], &["--dsh", "0.1.5"]] {
        let v = verdict_as(line, &log);
        assert_eq!(brief(&v), "valid - - -", "{line:?}: {v}");
        assert_eq!(v["warnings"], json!([]));
    }
    // A result whose start is missing is still the refusal it was meant to be.
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("session.v3.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let without_second_start: String = text
        .lines()
        .filter(|l| !(l.contains("ptc-dispatch-start") && l.contains(":ptc:2")))
        .map(|l| l.to_owned() + "\n")
        .collect();
    // Renumber the seqs after the line taken out.
    let mut out = String::new();
    for (n, line) in without_second_start.lines().enumerate() {
        if n == 0 {
            out.push_str(line);
        } else {
            let mut v: Value = serde_json::from_str(line).unwrap();
            v["seq"] = json!(n - 1);
            out.push_str(&serde_json::to_string(&v).unwrap());
        }
        out.push('\n');
    }
    std::fs::write(&broken, out).unwrap();
    let (brief, message) = judged(&[], &broken);
    assert_eq!(
        (brief.as_str(), message.as_str()),
        (
            "corrupt G9 9 11",
            "tool/code-dispatch has no unique start (the check of a v3 log, as DSH 0.1.5 and later read it)"
        )
    );
}

/// What single builds of the 0.1.5 line are known to refuse is said where the log has
/// that shape.
#[test]
fn dsh_0_1_5_names_the_builds_known_to_refuse_a_log() {
    let packed = fixture("compaction-and-prune.jsonl");
    let v = verdict_as(&["--dsh", "0.1.5"], &packed);
    assert_eq!(brief(&v), "valid - - -");
    assert_eq!(
        v["notes"],
        json!([
            "DSH 0.1.5-rc.1 refuses this log: it reads the packed text-chunks, reasoning-chunks and tool-call-chunks rows as unknown v0 event types (a known defect of that build; 0.1.5-rc.2 reads it)",
            "DSH 0.1.6-alpha.1 refuses this log: its header check demands isSeeded and calls every v0 header \"first line is not a session header\" (a known defect of that build; other 0.1.5 and 0.1.6 builds read it)"
        ])
    );
    // Without packed rows, only the second; by the newest line, neither.
    let plain = fixture("rules/valid-tool-round.jsonl");
    let v = verdict_as(&["--dsh", "0.1.5"], &plain);
    assert_eq!(v["notes"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(verdict(&packed)["notes"], json!([]));
}

/// The README's examples read logs every DSH line loads: the compaction fixture most of
/// them use is valid for each line, and DSH's own packages accept it.
#[test]
fn the_compaction_fixture_is_loaded_by_every_line() {
    let log = fixture("compaction-and-prune.jsonl");
    for line in ["0.1.1", "0.1.5", "0.1.7"] {
        let v = verdict_as(&["--dsh", line], &log);
        assert_eq!(
            (brief(&v).as_str(), &v["events"], &v["surface_len"]),
            ("valid - - -", &json!(24), &json!(2)),
            "--dsh {line}"
        );
    }
    let Some(verdicts) = oracle(std::slice::from_ref(&log)) else {
        return;
    };
    for v in verdicts {
        assert_eq!(v.verdict, "accepted", "{}: {:?}", v.judge, v.error);
    }
}

/// The store DSH 0.1.1 is: its event vocabulary is the one `--dsh 0.1.1` knows.
#[test]
fn the_0_1_1_vocabulary_is_the_stores() {
    let Some(text) = oracle_output(&[std::ffi::OsStr::new("--known-types")]) else {
        return;
    };
    let store: Vec<&str> = text.lines().collect();
    assert_eq!(store, dsh_session::event::HEAD_KNOWN_TYPES);
}

/// What `repair` writes for every crashed sample is accepted by DSH 0.1.1-rc.2's store and
/// by the frozen v0→v1 edge with its final check: the crash repair DSH 0.1.1 writes, whose
/// `TOOL_NOT_STARTED` result's id ends in its own seq. (DSH 0.1.5 and later read that id as
/// a canonical historical repair id; only a build whose current generation is v2, 0.1.3,
/// wants the seq the v1→v2 renumbering gives it: README "Crash repair and the DSH lines".)
#[test]
fn repaired_crashed_samples_are_accepted_by_dsh_itself() {
    if !have_samples() {
        return;
    }
    let cases = std::fs::read_to_string(samples().join("crashed/CASES.tsv")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut repaired = Vec::new();
    for row in cases.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        if cols[4] == "-" {
            continue;
        }
        let case = dir.path().join(format!("case-{}", repaired.len()));
        std::fs::create_dir(&case).unwrap();
        let log = case.join(cols[0]);
        std::fs::copy(samples().join("crashed").join(cols[0]), &log).unwrap();
        let out = dsh()
            .args(["--dsh", "0.1.1", "repair", "--no-backup"])
            .arg(&log)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read(&log).unwrap(),
            std::fs::read(samples().join("crashed").join(cols[4])).unwrap(),
            "{}: DSH 0.1.1's repair, byte for byte",
            cols[0]
        );
        // The newest line repairs it the same way.
        let again = dsh()
            .args(["repair", "--dry-run"])
            .arg(&log)
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&again.stdout).contains("nothing to repair"),
            "{}",
            cols[0]
        );
        repaired.push(log);
    }
    assert_eq!(repaired.len(), 8);
    let Some(verdicts) = oracle(&repaired) else {
        return;
    };
    let mut judged = 0;
    for v in verdicts {
        if v.judge == ORACLE_STORE || v.judge == ORACLE_EDGE {
            assert_eq!(
                v.verdict, "accepted",
                "{} {}: {:?}",
                v.file, v.judge, v.error
            );
            judged += 1;
        }
    }
    assert_eq!(judged, 16);
}
