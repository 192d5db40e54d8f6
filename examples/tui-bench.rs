//! In-process timings of `dsh-session tui` (issue 29) on one long session, for `bench/run`:
//!
//! ```sh
//! cargo run --release --example tui-bench -- LOG INDEX
//! ```
//!
//! Indexes LOG into INDEX (a new file), then does what a user does: lists the sessions,
//! opens LOG's session (one scan for its turns, calls and replaces, one index query for its
//! messages' places), draws the first 80×24 screen, jumps to the end (`End`) and draws
//! again, pages up twice. Prints each step's time, the messages, the lines of the tree, how
//! many texts were read from the index (only those on screen: the history is never rendered
//! whole) and the peak RSS.

use std::path::PathBuf;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent};
use dsh_session::index::{Index, UpdateOptions};
use dsh_session::tui::{App, Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [log, index] = args.as_slice() else {
        eprintln!("usage: tui-bench LOG INDEX");
        std::process::exit(2);
    };
    let log = std::fs::canonicalize(log).expect("the log");
    let _ = std::fs::remove_file(index);
    let (mut idx, _) = Index::open(&PathBuf::from(index)).expect("an index");
    let start = Instant::now();
    idx.update(std::slice::from_ref(&log), &UpdateOptions::default())
        .expect("indexed");
    println!(
        "  index the log                 {:>9.3} s",
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let mut app = App::new(idx, vec![log], Theme::mono()).expect("the app");
    println!(
        "  list the sessions             {:>9.3} s",
        start.elapsed().as_secs_f64()
    );
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("a terminal");
    let mut step = |name: &str, app: &mut App, key: Option<KeyCode>| {
        let start = Instant::now();
        if let Some(code) = key {
            app.on_key(KeyEvent::from(code));
        }
        terminal.draw(|f| draw::draw(f, app)).expect("drawn");
        println!("  {name:<29} {:>9.3} s", start.elapsed().as_secs_f64());
    };
    step("open the session, draw", &mut app, Some(KeyCode::Enter));
    step(
        "End (scroll to the end), draw",
        &mut app,
        Some(KeyCode::End),
    );
    step("PgUp, draw", &mut app, Some(KeyCode::PageUp));
    step("PgUp, draw", &mut app, Some(KeyCode::PageUp));
    let Some(view) = app.session.as_ref() else {
        eprintln!("tui-bench: the session did not open: {:?}", app.overlay);
        std::process::exit(2);
    };
    let last = view.rows.len().saturating_sub(1);
    println!(
        "  {} messages, {} lines in the tree, {} texts read from the index; peak RSS {:.0} MiB",
        view.seqs.len(),
        view.rows.len(),
        view.cached(),
        peak_rss_mib()
    );
    if view.cursor.selected + 2 * view.cursor.height < last {
        eprintln!("tui-bench: End did not reach the end of the history");
        std::process::exit(2);
    }
}
