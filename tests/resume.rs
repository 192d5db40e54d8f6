//! A scan taken up where an earlier one stopped (`scan::resume`, issue 28) gives the report a
//! scan of the whole log gives: for every sample and fixture log, cut after each of its
//! records (as a log looks while DSH appends to it), the prefix is scanned and saved, the
//! rest appended, and the scan taken up must agree with a fresh scan of the whole file on
//! the verdict, the finding, the frozen edges' refusal, the counts, the warnings, the
//! surface and the open turn — under both judges: DSH 0.1.5 and later (the frozen edges
//! run, and their state is part of what is saved) and DSH 0.1.1 (`--dsh 0.1.1`).

mod common;

use std::path::{Path, PathBuf};

use dsh_session::edge::{DshLine, Judge};
use dsh_session::replay::Keep;
use dsh_session::rules::Class;
use dsh_session::scan::resume::{Saved, scan_resuming, scan_saving};
use dsh_session::scan::{Report, ScanOptions, Status, scan_path};
use dsh_session::view::stats::Stats;

/// The two judges, as `--dsh 0.1.5` and `--dsh 0.1.1` set them.
const JUDGES: [DshLine; 2] = [DshLine::Current, DshLine::V0_1_1];

fn judged(line: DshLine) -> ScanOptions {
    ScanOptions {
        dsh: Judge {
            line,
            both_lines: false,
        },
        ..ScanOptions::default()
    }
}

/// What must agree between a resumed scan and a whole one.
fn summary(r: &Report) -> String {
    format!(
        "status {:?} finding {:?} edge {:?} dsh {:?} era {:?} events {} surface {:?} replaces {} open {:?} warnings {:?} closers {:?} torn {:?} provider {:?}",
        r.status,
        r.finding,
        r.edge,
        r.dsh,
        r.era,
        r.events,
        r.replay.seqs(),
        r.replay.replacement_count(),
        r.open_turn,
        r.warnings,
        r.closers,
        r.torn,
        r.replay.provider_findings(false),
    )
}

fn logs() -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")];
    if common::have_samples() {
        roots.push(common::samples());
    }
    let mut files: Vec<PathBuf> = roots
        .iter()
        .flat_map(|root| walkdir::WalkDir::new(root).into_iter().flatten())
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files
}

/// Record boundaries of `bytes` after the header: the offset after each `\n` from the second on.
fn cuts(bytes: &[u8]) -> Vec<usize> {
    let ends: Vec<usize> = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect();
    // Every boundary of a short log; about 40 spread over a long one.
    let step = (ends.len() / 40).max(1);
    ends.into_iter().skip(1).step_by(step).collect()
}

fn scan_whole(path: &Path, options: &ScanOptions) -> Report {
    scan_path(path, options).expect("readable")
}

#[test]
fn a_scan_taken_up_agrees_with_a_whole_scan_at_every_cut() {
    let dir = tempfile::tempdir().expect("temp dir");
    for line in JUDGES {
        let options = judged(line);
        let (mut resumed, mut compared) = (0, 0);
        for log in logs() {
            let bytes = std::fs::read(&log).expect("readable");
            let path = dir.path().join("session.jsonl");
            for cut in cuts(&bytes) {
                std::fs::write(&path, &bytes[..cut]).expect("write");
                let (first, saved) = scan_saving(&path, &options, &mut []).expect("scans");
                assert_eq!(
                    summary(&first),
                    summary(&scan_whole(&path, &options)),
                    "{} ({line}): saving changes the scan",
                    log.display()
                );
                let Some(saved) = saved else { continue };
                assert_eq!(saved.offset(), cut as u64);
                // Through the stored form, as the index keeps it.
                let saved = Saved::from_bytes(saved.as_bytes().to_vec()).expect("reads back");
                std::fs::write(&path, &bytes).expect("write");
                let whole = scan_whole(&path, &options);
                let (report, again) = scan_resuming(&path, &saved, &options, &mut [])
                    .expect("scans")
                    .unwrap_or_else(|| {
                        panic!("{} ({line}) cut at {cut}: not taken up", log.display())
                    });
                assert_eq!(
                    summary(&report),
                    summary(&whole),
                    "{} ({line}) cut at byte {cut}",
                    log.display()
                );
                compared += 1;
                if let Some(again) = again {
                    assert_eq!(again.offset(), bytes.len() as u64);
                    resumed += 1;
                }
            }
        }
        assert!(compared > 200, "{line}: only {compared} cuts compared");
        assert!(
            resumed > 100,
            "{line}: only {resumed} resumed states saved again"
        );
    }
}

/// Each log grows in several steps (about six appends, as DSH appends turn after turn),
/// each taken up from the state the step before saved, never from a whole scan: after
/// every step the report must be the whole scan's. Under DSH 0.1.5 and later this covers
/// logs the frozen edges refuse (F rules: the refusal found in an early step must stand,
/// and one found in a later step must be found) and logs they admit.
#[test]
fn a_log_grown_in_steps_agrees_with_a_whole_scan_after_each() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("session.jsonl");
    for line in JUDGES {
        let options = judged(line);
        let (mut refused, mut admitted, mut steps) = (0, 0, 0);
        for log in logs() {
            let bytes = std::fs::read(&log).expect("readable");
            let all = cuts(&bytes);
            let stride = (all.len() / 6).max(1);
            let mut points: Vec<usize> = all.into_iter().step_by(stride).collect();
            if points.last() != Some(&bytes.len()) && bytes.ends_with(b"\n") {
                points.push(bytes.len());
            }
            let Some((&first, rest)) = points.split_first() else {
                continue;
            };
            std::fs::write(&path, &bytes[..first]).expect("write");
            let (_, mut saved) = scan_saving(&path, &options, &mut []).expect("scans");
            let mut chained = 0;
            for &cut in rest {
                let Some(state) = saved.take() else { break };
                let state = Saved::from_bytes(state.as_bytes().to_vec()).expect("reads back");
                std::fs::write(&path, &bytes[..cut]).expect("write");
                let (report, again) = scan_resuming(&path, &state, &options, &mut [])
                    .expect("scans")
                    .unwrap_or_else(|| {
                        panic!("{} ({line}) grown to {cut}: not taken up", log.display())
                    });
                assert_eq!(
                    summary(&report),
                    summary(&scan_whole(&path, &options)),
                    "{} ({line}) grown in steps to byte {cut}",
                    log.display()
                );
                chained += 1;
                steps += 1;
                saved = again;
                if chained >= 2 {
                    match report.status {
                        Status::Refused
                            if report.finding.as_ref().is_some_and(|f| {
                                f.class == Class::Refused && f.rule.id().starts_with('F')
                            }) =>
                        {
                            refused += 1;
                        }
                        Status::Valid => admitted += 1,
                        _ => {}
                    }
                }
            }
        }
        assert!(steps > 150, "{line}: only {steps} steps taken up");
        assert!(
            admitted > 20,
            "{line}: only {admitted} admitted logs grown in steps"
        );
        if line == DshLine::Current {
            // The edges' refusals (F rules) survive being saved and taken up, step after step.
            assert!(
                refused >= 10,
                "only {refused} edge-refused logs grown in steps"
            );
        } else {
            assert_eq!(refused, 0, "DSH 0.1.1 does not run the edges on these logs");
        }
    }
}

/// A state saved under one judge is never taken up under the other: the log is read
/// whole (the edges' state, or its absence, belongs to the judge that saved it).
#[test]
fn a_state_of_another_judge_is_not_taken_up() {
    let log = common::fixture("edges/F6-turn-end-while-a-step-is-open.jsonl");
    let bytes = std::fs::read(&log).expect("readable");
    let cut = cuts(&bytes)[0];
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("session.jsonl");
    for (saved_by, taken_by) in [
        (DshLine::Current, DshLine::V0_1_1),
        (DshLine::V0_1_1, DshLine::Current),
    ] {
        std::fs::write(&path, &bytes[..cut]).expect("write");
        let (_, saved) = scan_saving(&path, &judged(saved_by), &mut []).expect("scans");
        let saved = saved.expect("a clean prefix is saved");
        std::fs::write(&path, &bytes).expect("write");
        assert!(
            scan_resuming(&path, &saved, &judged(taken_by), &mut [])
                .expect("scans")
                .is_none(),
            "saved by {saved_by}, taken up by {taken_by}"
        );
        assert!(
            scan_resuming(&path, &saved, &judged(saved_by), &mut [])
                .expect("scans")
                .is_some(),
            "saved by {saved_by}, taken up by the same"
        );
    }
}

#[test]
fn views_are_told_only_of_the_new_events() {
    let log = common::fixture("compaction-and-prune.jsonl");
    let bytes = std::fs::read(&log).expect("readable");
    let cut = cuts(&bytes)[2];
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("session.jsonl");
    std::fs::write(&path, &bytes[..cut]).expect("write");
    let mut before = Stats::default();
    let (_, saved) =
        scan_saving(&path, &ScanOptions::default(), &mut [&mut before]).expect("scans");
    std::fs::write(&path, &bytes).expect("write");
    let mut after = Stats::default();
    let (report, _) = scan_resuming(
        &path,
        &saved.expect("saved"),
        &ScanOptions::default(),
        &mut [&mut after],
    )
    .expect("scans")
    .expect("taken up");
    let mut whole = Stats::default();
    dsh_session::scan::scan_path_with(&path, &ScanOptions::default(), &mut [&mut whole])
        .expect("scans");
    assert_eq!(before.events + after.events, whole.events);
    assert_eq!(report.events, whole.events);
    assert!(after.events > 0 && before.events > 0);
}

#[test]
fn a_damaged_or_foreign_state_is_not_taken_up() {
    let log = common::fixture("compaction-and-prune.jsonl");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("session.jsonl");
    std::fs::copy(&log, &path).expect("copy");
    let (_, saved) = scan_saving(&path, &ScanOptions::default(), &mut []).expect("scans");
    let saved = saved.expect("a valid plain log is saved");
    // Any flipped byte fails the checksum or the envelope.
    for i in 0..saved.as_bytes().len() {
        let mut bytes = saved.as_bytes().to_vec();
        bytes[i] ^= 0x41;
        assert!(
            Saved::from_bytes(bytes).is_none(),
            "byte {i} flipped was taken up"
        );
    }
    // A header line changed under the same size: not taken up.
    let mut text = std::fs::read_to_string(&path).expect("utf-8");
    text = text.replacen("s-compact", "s-compacT", 1);
    std::fs::write(&path, text).expect("write");
    assert!(
        scan_resuming(&path, &saved, &ScanOptions::default(), &mut [])
            .expect("scans")
            .is_none()
    );
    // Views that keep what a saved state leaves out: not taken up.
    std::fs::copy(&log, &path).expect("copy");
    let mut keep = Keep::MESSAGES;
    assert!(
        scan_resuming(&path, &saved, &ScanOptions::default(), &mut [&mut keep])
            .expect("scans")
            .is_none()
    );
}
