//! Runs every fuzz entry point over its checked-in corpus (`fuzz/corpus/<target>/`), so
//! inputs found by `cargo fuzz` stay fixed: a crashing input added there fails this test.

use std::path::Path;

fn corpus(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        run(&data);
        count += 1;
    }
    assert!(count > 0, "{} is empty", dir.display());
}

#[test]
fn jsonl_line_corpus() {
    corpus("jsonl_line", dsh_session::fuzz::jsonl_line);
}

#[test]
fn zstd_frames_corpus() {
    corpus("zstd_frames", dsh_session::fuzz::zstd_frames);
}

#[test]
fn varint_corpus() {
    corpus("varint", dsh_session::fuzz::varint);
}

#[test]
fn fold_corpus() {
    corpus("fold", dsh_session::fuzz::fold);
}

#[test]
fn repair_plan_corpus() {
    corpus("repair_plan", dsh_session::fuzz::repair_plan);
}
