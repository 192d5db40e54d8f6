//! How findings and errors are worded (issue 18): counts in the singular and plural, a line
//! named once, a seq problem called what it is, I/O errors in the tool's words, and input
//! compressed by a tool other than DSH recognised with a way to read it.

mod common;

use common::{dsh, dsh_011, fixture, zstd_frame};

fn first_line(args: &[&str], path: &std::path::Path) -> String {
    let out = dsh().args(args).arg(path).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn compressed_logs_not_written_by_dsh_say_how_to_read_them() {
    let dir = tempfile::tempdir().unwrap();
    let plain = std::fs::read(fixture("compaction-and-prune.jsonl")).unwrap();
    // The magic numbers the formats start with, then bytes that are not JSON.
    for (name, magic, format, reader) in [
        (
            "log.jsonl.gz",
            &[0x1f, 0x8b, 0x08, 0x00][..],
            "gzip",
            "zcat",
        ),
        (
            "log.jsonl.xz",
            &[0xfd, b'7', b'z', b'X', b'Z', 0x00][..],
            "xz",
            "xzcat",
        ),
        ("log.jsonl.bz2", &b"BZh91AY&SY"[..], "bzip2", "bzcat"),
    ] {
        let path = dir.path().join(name);
        let mut bytes = magic.to_vec();
        bytes.extend_from_slice(&[0x9c, 0x00, b'\n', 0x01]);
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(
            first_line(&["validate"], &path),
            format!(
                "{}: corrupt H2 at line 1: header line is not valid JSON: unexpected token at byte 1; the file is {format}-compressed, which DSH never writes: read it with `{reader} FILE | dsh-session validate -`",
                path.display()
            )
        );
    }
    // A small gzip file can hold no newline byte at all: J1, with the same hint.
    let path = dir.path().join("short.jsonl.gz");
    std::fs::write(&path, [0x1f, 0x8b, 0x08, 0x00, 0x9c, 0x01]).unwrap();
    assert_eq!(
        first_line(&["validate"], &path),
        format!(
            "{}: corrupt J1 at line 1: file contains no newline: the header line is incomplete (empty or header-less log); the file is gzip-compressed, which DSH never writes: read it with `zcat FILE | dsh-session validate -`",
            path.display()
        )
    );
    // The zstd tool writes the whole log as one frame; DSH writes the header alone first.
    let path = dir.path().join("log.jsonl.zstd");
    std::fs::write(&path, zstd_frame(&plain)).unwrap();
    assert_eq!(
        first_line(&["validate"], &path),
        format!(
            "{}: corrupt Z6 at line 1: first zstd frame is not exactly one header line ending in a newline; the file holds a whole log in one zstd frame, as the zstd tool writes it, not in DSH's frames: read it with `zstdcat FILE | dsh-session validate -`",
            path.display()
        )
    );
    // Decompressed, it is the log it was.
    let out = dsh_011()
        .args(["validate", "-"])
        .write_stdin(zstd::stream::decode_all(&std::fs::read(&path).unwrap()[..]).unwrap())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().next(),
        Some("-: valid (24 events, surface 2, head)")
    );
}

#[test]
fn counts_are_singular_for_one() {
    // One line and one event cut; a log whose torn tail is one line.
    let out = dsh()
        .arg("validate")
        .arg(fixture("rules/J4-seq-gap-torn.jsonl"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "  a repair cuts 69 bytes at offset 604: 1 line, 1 event; 5 events before it are kept\n"
        ),
        "{text}"
    );
}

#[test]
fn a_missing_file_is_said_in_words() {
    let out = dsh().args(["show", "no-such-log.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "dsh-session: no-such-log.jsonl: no such file or directory\n"
    );
}

#[test]
fn a_walk_counts_the_files_that_are_not_dsh_in_one_line() {
    // A log under another name is walked when its first line is a DSH header; a file that
    // is not DSH is counted in one note, whose hint uses the same command.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("compaction-and-prune.jsonl"),
        dir.path().join("log.jsonl"),
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.jsonl"), "{\"type\":\"note\"}\n").unwrap();
    for command in ["validate", "stats"] {
        let out = dsh().arg(command).arg(dir.path()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let d = dir.path().display();
        assert_eq!(
            err,
            format!(
                "dsh-session: {d}: 1 file not DSH (ending in .jsonl or .jsonl.zstd, no DSH session header on the first line): not read; name one to read it anyway\n"
            ),
            "{command}"
        );
        assert_eq!(out.status.code(), Some(0), "{command}: log.jsonl was read");
    }
}

#[test]
fn sessions_of_a_directory_of_stores_names_one_to_list() {
    if !common::have_samples() {
        return;
    }
    let dir = common::samples().join("sqlite");
    let out = dsh().arg("sessions").arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "dsh-session: {0}: no JSONL session directories here, but 12 SQLite stores: `sessions` lists one store at a time (`dsh-session sessions {0}/apps__web__tests__snapshots__approval-composer__session.db`)\n",
            dir.display()
        )
    );
}
