//! In-process timings of the search index (issue 28), for `bench/run`:
//!
//! ```sh
//! cargo run --release --example index-bench -- search INDEX QUERY...
//! cargo run --release --example index-bench -- tokenizers INDEX
//! ```
//!
//! `search` opens the index once, runs each query once to warm the page cache, then 20
//! times, and prints the fastest and the median time of `Index::search` (the default limit
//! of the command line: 20 hits) and the number of hits. `tokenizers INDEX [LOG_BYTES]`
//! copies the indexed texts into new databases, one contentless full-text table each, in
//! the layouts measured for issue 39 (FTS5 `trigram` with full detail, as index schema 3
//! had it; `trigram` with `detail=none`, with and without tool parts; the default
//! `unicode61`, with full detail and `detail=none`; the grams with `detail=none`, as index
//! schema 5 has them: trigrams, CJK text by pairs of characters in buckets), and prints
//! their sizes on disk (and per MB of logs, given the logs' bytes).

use std::time::{Duration, Instant};

use dsh_session::index::{Index, Query};

fn search(index: &str, queries: &[String]) {
    let (index, _) = Index::open(std::path::Path::new(index)).expect("an index");
    for text in queries {
        let query = Query {
            text: text.clone(),
            limit: Some(20),
            ..Query::default()
        };
        let hits = index.search(&query).expect("search").len();
        let mut times: Vec<Duration> = (0..20)
            .map(|_| {
                let start = Instant::now();
                let n = index.search(&query).expect("search").len();
                assert_eq!(n, hits);
                start.elapsed()
            })
            .collect();
        times.sort();
        println!(
            "  search {:<24} {:>8.2} ms best, {:>8.2} ms median, {hits} hits",
            format!("{text:?}"),
            times[0].as_secs_f64() * 1e3,
            times[times.len() / 2].as_secs_f64() * 1e3,
        );
    }
}

fn tokenizers(index: &str, log_bytes: Option<f64>) {
    let source = rusqlite::Connection::open(index).expect("the index");
    // Each part's text out of its session's block (index schema 5), one block unpacked at a
    // time.
    let mut block: Option<(i64, Vec<u8>)> = None;
    let mut stmt = source
        .prepare(
            "SELECT m.id, m.block, m.start, m.len, m.kind, m.tool FROM messages m ORDER BY m.id",
        )
        .expect("messages");
    let mut rows = stmt.query([]).expect("rows");
    let mut texts: Vec<(i64, String, bool)> = Vec::new();
    while let Some(r) = rows.next().expect("a row") {
        let id: i64 = r.get(1).expect("block");
        if block.as_ref().is_none_or(|(b, _)| *b != id) {
            let data = source
                .query_row("SELECT data FROM blocks WHERE id = ?1", [id], |r| {
                    Ok(match r.get_ref(0)? {
                        rusqlite::types::ValueRef::Blob(b) => {
                            zstd::stream::decode_all(b).expect("a zstd frame")
                        }
                        other => other.as_bytes().unwrap_or_default().to_vec(),
                    })
                })
                .expect("the block");
            block = Some((id, data));
        }
        let bytes = block.as_ref().map_or(&[][..], |(_, b)| b.as_slice());
        let (start, len): (i64, i64) = (r.get(2).expect("start"), r.get(3).expect("len"));
        let text = String::from_utf8_lossy(&bytes[start as usize..(start + len) as usize]);
        let tool = r.get::<_, String>(4).expect("kind") == "tool";
        // As the index reads it: a tool part after its tool's name.
        let text = match r.get::<_, Option<String>>(5).expect("tool") {
            Some(name) if tool => format!("{name}\n{text}"),
            _ => text.into_owned(),
        };
        texts.push((r.get(0).expect("id"), text, tool));
    }
    let bytes: usize = texts.iter().map(|(_, t, _)| t.len()).sum();
    println!(
        "  {} message parts, {:.1} MB of text",
        texts.len(),
        bytes as f64 / 1e6
    );
    // The kept texts: a zstd frame per part (index schema 3) against the blocks of a
    // session's texts (schema 5).
    let per_part: usize = texts
        .iter()
        .map(|(_, t, _)| {
            zstd::bulk::compress(t.as_bytes(), 3).map_or(t.len(), |z| z.len().min(t.len()))
        })
        .sum();
    let blocks: i64 = source
        .query_row(
            "SELECT COALESCE(SUM(length(data)), 0) FROM blocks",
            [],
            |r| r.get(0),
        )
        .expect("blocks");
    let per = |size: f64| {
        log_bytes.map_or(String::new(), |b| {
            format!(", {:.2} MB per MB of logs", size / b)
        })
    };
    println!(
        "  kept texts, a zstd frame per part (schema 3)      {:>9.3} MB{}",
        per_part as f64 / 1e6,
        per(per_part as f64)
    );
    println!(
        "  kept texts, blocks of a session's texts (schema 5) {:>9.3} MB{}",
        blocks as f64 / 1e6,
        per(blocks as f64)
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let trigram = "trigram case_sensitive 0 remove_diacritics 1";
    let layouts: [(&str, &str, &str, bool, bool); 6] = [
        ("trigram (schema 3)", trigram, "full", true, false),
        ("trigram, detail=none", trigram, "none", true, false),
        (
            "trigram, detail=none, no tool parts",
            trigram,
            "none",
            false,
            false,
        ),
        ("unicode61", "unicode61", "full", true, false),
        ("unicode61, detail=none", "unicode61", "none", true, false),
        (
            "grams, detail=none (schema 5)",
            dsh_session::index::TOKENIZER,
            "none",
            true,
            true,
        ),
    ];
    for (label, tokenizer, detail, tools, buckets) in layouts {
        let path = dir.path().join("texts.db");
        let _ = std::fs::remove_file(&path);
        let mut conn = rusqlite::Connection::open(&path).expect("open");
        conn.execute_batch(&format!(
            "PRAGMA page_size = {}; CREATE VIRTUAL TABLE texts USING fts5(text, content = '', contentless_delete = 1, detail = {detail}, tokenize = '{tokenizer}');",
            dsh_session::index::PAGE_SIZE
        ))
        .expect("table");
        let tx = conn.transaction().expect("transaction");
        {
            let mut insert = tx
                .prepare("INSERT INTO texts (rowid, text) VALUES (?1, ?2)")
                .expect("insert");
            for (id, text, tool) in &texts {
                if *tool && !tools {
                    continue;
                }
                let text = if buckets {
                    dsh_session::index::grams(text)
                } else {
                    text.clone()
                };
                insert.execute(rusqlite::params![id, text]).expect("row");
            }
        }
        tx.commit().expect("commit");
        conn.execute_batch("VACUUM").expect("vacuum");
        drop(conn);
        let size = std::fs::metadata(&path).expect("size").len() as f64;
        println!(
            "  full-text table, {label:<42} {:>9.3} MB{}",
            size / 1e6,
            per(size)
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("search") if args.len() >= 3 => search(&args[1], &args[2..]),
        Some("tokenizers") if (2..=3).contains(&args.len()) => {
            tokenizers(&args[1], args.get(2).and_then(|b| b.parse().ok()))
        }
        _ => {
            eprintln!(
                "usage: index-bench search INDEX QUERY... | index-bench tokenizers INDEX [LOG_BYTES]"
            );
            std::process::exit(2);
        }
    }
}
