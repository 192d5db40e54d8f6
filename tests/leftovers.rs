//! What DSH leaves beside a session (issue 24 §6): a log set aside as corrupt
//! (`session.jsonl.corrupt-…`) and a temporary file of a write never published
//! (`session.jsonl.<hex>.tmp`, FORMAT.md §7.3) are named by `validate DIR`, `stats DIR` and
//! `sessions ROOT` as what they are, with what to do, never passed over in silence; the
//! session's own log is read as before.

mod common;

use std::path::Path;

use common::{dsh, fixture};

/// A JSONL root with one session whose directory also holds a quarantined copy and a
/// leftover temporary file.
fn root_with_leftovers(root: &Path) -> (String, String) {
    let session = root.join("--home-ana-proj--/s-01");
    std::fs::create_dir_all(&session).expect("mkdir");
    let log = std::fs::read(fixture("open-turn-after-tool-call.jsonl")).expect("fixture");
    std::fs::write(session.join("session.jsonl"), &log).expect("log");
    std::fs::write(session.join("session.jsonl.corrupt-1760000000000"), &log).expect("copy");
    std::fs::write(session.join("session.jsonl.0a1b2c3d4e5f.tmp"), &log[..200]).expect("tmp");
    let at = |name: &str| session.join(name).display().to_string();
    let tmp = at("session.jsonl.0a1b2c3d4e5f.tmp");
    let corrupt = at("session.jsonl.corrupt-1760000000000");
    (
        format!(
            "dsh-session: {tmp}: not checked: a temporary file of a DSH write that was never published (a crash before the log was linked in place); DSH ignores it: delete it when no DSH process is writing this session\n"
        ),
        format!(
            "dsh-session: {corrupt}: not checked: a session log set aside as corrupt (quarantined); DSH does not read it: to see what is wrong with it, name it: dsh-session validate {corrupt}\n"
        ),
    )
}

#[test]
fn walks_name_what_dsh_left_beside_a_log() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (tmp, corrupt) = root_with_leftovers(dir.path());
    for (command, args) in [
        ("validate", &["validate", "--color", "never"][..]),
        ("stats", &["stats"]),
        ("sessions", &["sessions"]),
    ] {
        let out = dsh().args(args).arg(dir.path()).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{command}: {err}");
        // In path order: the `.0a1b…tmp` name sorts before `.corrupt-…`.
        assert_eq!(err, format!("{tmp}{corrupt}"), "{command}");
    }
    // The session itself is read as before: one log, valid.
    let out = dsh()
        .args(["validate", "--color", "never"])
        .arg(dir.path())
        .output()
        .expect("runs");
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .ends_with("1 valid, 0 torn-tail, 0 corrupt, 0 refused\n")
    );
}
