//! A scan taken up where an earlier one stopped (`scan::resume`, issue 28) gives the report a
//! scan of the whole log gives: for every sample and fixture log, cut after each of its
//! records (as a log looks while DSH appends to it), the prefix is scanned and saved, the
//! rest appended, and the scan taken up must agree with a fresh scan of the whole file on
//! the verdict, the finding, the counts, the warnings, the surface and the open turn.

mod common;

use std::path::{Path, PathBuf};

use dsh_session::scan::resume::{Saved, scan_resuming, scan_saving};
use dsh_session::scan::{Report, ScanOptions, scan_path};
use dsh_session::view::stats::Stats;

/// What must agree between a resumed scan and a whole one.
fn summary(r: &Report) -> String {
    format!(
        "status {:?} finding {:?} era {:?} events {} surface {:?} replaces {} open {:?} warnings {:?} closers {:?} torn {:?} provider {:?}",
        r.status,
        r.finding,
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

fn scan_whole(path: &Path) -> Report {
    scan_path(path, &ScanOptions::default()).expect("readable")
}

#[test]
fn a_scan_taken_up_agrees_with_a_whole_scan_at_every_cut() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut resumed, mut compared) = (0, 0);
    for log in logs() {
        let bytes = std::fs::read(&log).expect("readable");
        let path = dir.path().join("session.jsonl");
        for cut in cuts(&bytes) {
            std::fs::write(&path, &bytes[..cut]).expect("write");
            let (first, saved) =
                scan_saving(&path, &ScanOptions::default(), &mut []).expect("scans");
            assert_eq!(
                summary(&first),
                summary(&scan_whole(&path)),
                "{}: saving changes the scan",
                log.display()
            );
            let Some(saved) = saved else { continue };
            assert_eq!(saved.offset(), cut as u64);
            // Through the stored form, as the index keeps it.
            let saved = Saved::from_bytes(saved.as_bytes().to_vec()).expect("reads back");
            std::fs::write(&path, &bytes).expect("write");
            let whole = scan_whole(&path);
            let (report, again) = scan_resuming(&path, &saved, &ScanOptions::default(), &mut [])
                .expect("scans")
                .unwrap_or_else(|| panic!("{} cut at {cut}: not taken up", log.display()));
            assert_eq!(
                summary(&report),
                summary(&whole),
                "{} cut at byte {cut}",
                log.display()
            );
            compared += 1;
            if let Some(again) = again {
                assert_eq!(again.offset(), bytes.len() as u64);
                resumed += 1;
            }
        }
    }
    assert!(compared > 200, "only {compared} cuts compared");
    assert!(resumed > 100, "only {resumed} resumed states saved again");
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
    // Options that keep what a saved state leaves out: not taken up.
    std::fs::copy(&log, &path).expect("copy");
    let keep = ScanOptions {
        keep_messages: true,
        ..ScanOptions::default()
    };
    assert!(
        scan_resuming(&path, &saved, &keep, &mut [])
            .expect("scans")
            .is_none()
    );
}
