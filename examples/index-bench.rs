//! In-process timings of the search index (issue 28), for `bench/run`:
//!
//! ```sh
//! cargo run --release --example index-bench -- search INDEX QUERY...
//! cargo run --release --example index-bench -- tokenizers INDEX
//! ```
//!
//! `search` opens the index once, runs each query once to warm the page cache, then 20
//! times, and prints the fastest and the median time of `Index::search` (the default limit
//! of the command line: 20 hits) and the number of hits. `tokenizers` copies the indexed
//! texts into two new databases, one contentless full-text table each (FTS5 `trigram`, as
//! the index uses, and the default `unicode61`), and prints their sizes on disk.

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

fn tokenizers(index: &str) {
    let source = rusqlite::Connection::open(index).expect("the index");
    let texts: Vec<(i64, String)> = source
        .prepare("SELECT id, text FROM messages")
        .expect("messages")
        .query_map([], |r| {
            let text = match r.get_ref(1)? {
                rusqlite::types::ValueRef::Blob(b) => {
                    String::from_utf8_lossy(&zstd::stream::decode_all(b).expect("a zstd frame"))
                        .into_owned()
                }
                other => other.as_str().unwrap_or_default().to_owned(),
            };
            Ok((r.get(0)?, text))
        })
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("texts");
    let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
    println!(
        "  {} message parts, {:.1} MB of text",
        texts.len(),
        bytes as f64 / 1e6
    );
    let dir = tempfile::tempdir().expect("temp dir");
    for tokenizer in ["trigram case_sensitive 0 remove_diacritics 1", "unicode61"] {
        let path = dir.path().join("texts.db");
        let _ = std::fs::remove_file(&path);
        let mut conn = rusqlite::Connection::open(&path).expect("open");
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE texts USING fts5(text, content = '', contentless_delete = 1, tokenize = '{tokenizer}');"
        ))
        .expect("table");
        let tx = conn.transaction().expect("transaction");
        {
            let mut insert = tx
                .prepare("INSERT INTO texts (rowid, text) VALUES (?1, ?2)")
                .expect("insert");
            for (id, text) in &texts {
                insert.execute(rusqlite::params![id, text]).expect("row");
            }
        }
        tx.commit().expect("commit");
        conn.execute_batch("VACUUM").expect("vacuum");
        drop(conn);
        let size = std::fs::metadata(&path).expect("size").len();
        println!(
            "  full-text index, tokenizer {:<44} {:>9.1} MB",
            tokenizer,
            size as f64 / 1e6
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("search") if args.len() >= 3 => search(&args[1], &args[2..]),
        Some("tokenizers") if args.len() == 2 => tokenizers(&args[1]),
        _ => {
            eprintln!("usage: index-bench search INDEX QUERY... | index-bench tokenizers INDEX");
            std::process::exit(2);
        }
    }
}
