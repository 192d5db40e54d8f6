//! The generated logs `bench/run` measures (`examples/gen-session.rs`) are logs both DSH
//! release lines load: valid (or a torn tail DSH drops, for `--crash`) by default, as DSH
//! 0.1.5 and later judge after their frozen migration edges, and under `--dsh 0.1.1`, with
//! no warning on either line. A shape the edges refuse would make the bench measure a
//! validation that stops at the first refusal.

mod common;

// The generator itself, as `bench/run` builds it (it brings its own copy of the store
// writer of `tests/common`).
#[path = "../examples/gen-session.rs"]
#[allow(dead_code, clippy::duplicate_mod)]
mod gen_session;

use common::{dsh, verdict, verdict_011};
use gen_session::{Encoding, Shape, generate, write_log};

/// One shape of `gen-session`: its flags, as `bench/run` passes them.
struct Case {
    flags: &'static str,
    turns: u64,
    crash: bool,
    shape: Shape,
    encoding: Encoding,
}

fn cases() -> Vec<Case> {
    let shape = Shape::default();
    let small = Shape {
        small: true,
        ..shape
    };
    let zstd = Encoding::Zstd {
        frame_records: (200, 200),
    };
    let case = |flags, turns, crash, shape, encoding| Case {
        flags,
        turns,
        crash,
        shape,
        encoding,
    };
    // 61 turns: two compactions (turns 30 and 60) and eight prunes (every 7th turn).
    vec![
        case("", 61, false, shape, Encoding::Plain),
        case("--zstd", 61, false, shape, zstd),
        case("--sqlite", 61, false, shape, Encoding::Sqlite),
        case("--crash", 61, true, shape, Encoding::Plain),
        case("--crash --zstd", 61, true, shape, zstd),
        case("--crash --sqlite", 61, true, shape, Encoding::Sqlite),
        case(
            "--flat",
            40,
            false,
            Shape {
                flat: true,
                ..shape
            },
            Encoding::Plain,
        ),
        case(
            "--flat --chain 10",
            40,
            false,
            Shape {
                flat: true,
                chain: 10,
                ..shape
            },
            Encoding::Plain,
        ),
        case(
            "--chain 5",
            40,
            false,
            Shape { chain: 5, ..shape },
            Encoding::Plain,
        ),
        case("--small", 31, false, small, Encoding::Plain),
        case("--small --crash", 31, true, small, Encoding::Plain),
        case(
            "--small --zstd --frame-records 1-2",
            31,
            false,
            small,
            Encoding::Zstd {
                frame_records: (1, 2),
            },
        ),
        case(
            "--small --crash --zstd --frame-records 1-2",
            31,
            true,
            small,
            Encoding::Zstd {
                frame_records: (1, 2),
            },
        ),
    ]
}

#[test]
fn every_generated_shape_is_loaded_by_both_dsh_lines() {
    let dir = tempfile::tempdir().unwrap();
    for (i, case) in cases().into_iter().enumerate() {
        let name = match case.encoding {
            Encoding::Plain => "session.jsonl",
            Encoding::Zstd { .. } => "session.jsonl.zstd",
            Encoding::Sqlite => "store.db",
        };
        let path = dir.path().join(format!("{i}-{name}"));
        let lines = generate(case.turns, case.crash, case.shape);
        write_log(&lines, &path, case.encoding).unwrap();
        // A crash tears the last record of a file; a SQLite row is atomic, so a store keeps
        // the open turn without a torn row (DSH closes it on load).
        let torn = case.crash && !matches!(case.encoding, Encoding::Sqlite);
        let expected = if torn { "torn-tail" } else { "valid" };
        for (line, v) in [
            ("default", verdict(&path)),
            ("--dsh 0.1.1", verdict_011(&path)),
        ] {
            let what = format!("gen-session {} judged {line}: {v}", case.flags);
            assert_eq!(v["status"], expected, "{what}");
            assert_eq!(v["warnings"], serde_json::json!([]), "{what}");
            assert!(v["events"].as_u64().unwrap() > 40 * case.turns, "{what}");
            // A torn line (J2), or a torn zstd frame (Z3).
            let torn_rule = match (torn, case.encoding) {
                (false, _) => "",
                (true, Encoding::Zstd { .. }) => "Z3",
                (true, _) => "J2",
            };
            assert_eq!(v["rule"].as_str().unwrap_or(""), torn_rule, "{what}");
        }
    }
}

#[test]
fn the_compactions_and_prunes_land_on_the_surface() {
    // 61 turns: the surface after the compaction at turn 60 is its checkpoint and turn
    // 61's messages; every prune replaced a result (none is left unpruned in a 7th turn).
    let lines = generate(61, false, Shape::default());
    let text = lines.join("\n");
    assert_eq!(text.matches("\"type\":\"compaction/start\"").count(), 2);
    assert_eq!(text.matches("\"type\":\"compaction/summary\"").count(), 2);
    assert_eq!(text.matches("\"plugin\":\"compact\"").count(), 2);
    assert_eq!(text.matches("\"type\":\"compaction/prune\"").count(), 8);
    assert_eq!(text.matches("[output pruned]").count(), 8);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    write_log(&lines, &path, Encoding::Plain).unwrap();
    let out = dsh()
        .args(["surface", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let surface: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let entries = surface.as_array().expect("one object per surface entry");
    assert_eq!(
        (&entries[0]["type"], &entries[0]["op"]),
        (
            &serde_json::json!("user/message"),
            &serde_json::json!("replace")
        )
    );
    let summary_seq = entries[0]["seq"].as_u64().unwrap();
    let summary = lines
        .iter()
        .find(|l| l.contains(&format!("\"seq\":{summary_seq},")))
        .unwrap();
    assert!(
        summary.contains("\"plugin\":\"compact\",\"compactionId\":\"compaction-60\"")
            && summary.contains("\"id\":\"summary-60\""),
        "{summary}"
    );
}
