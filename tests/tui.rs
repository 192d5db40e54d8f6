//! `dsh-session tui` (issue 29): each screen drawn into ratatui's `TestBackend` at 80×24
//! on fixtures and compared with its exact text in `tests/golden/tui/` (reviewed by eye;
//! `UPDATE_GOLDEN=1 cargo test --test tui` rewrites them), the keys that move between
//! them, NO_COLOR, resizes, lazy loading of a long history, the refusal without a
//! terminal, and a real terminal: the binary inside tmux driven by `send-keys`.

mod common;

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use dsh_session::index::{Index, UpdateOptions};
use dsh_session::tui::{App, Theme, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use common::{dsh, have_program, have_samples, samples};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// The fixtures the screens show: replaces (compaction and prune), a v4 tool error, a
/// reasoning block with a provider finding (P4), and a corrupt log (J5: a seq gap in the second turn).
fn fixtures() -> Vec<PathBuf> {
    [
        "compaction-and-prune.jsonl",
        "v4-tool-result-error.jsonl",
        "provider/P4-reasoning-tokens-but-no-reasoning.jsonl",
        "tui/corrupt-after-a-turn.jsonl",
    ]
    .iter()
    .map(|f| fixture(f))
    .collect()
}

/// An app over an index of `paths` in `dir`.
fn app_over(dir: &Path, paths: &[PathBuf], theme: Theme) -> App {
    let (mut index, _) = Index::open(&dir.join("index.db")).expect("index opens");
    index
        .update(paths, &UpdateOptions::default())
        .expect("index updates");
    let under = paths
        .iter()
        .map(|p| std::fs::canonicalize(p).expect("fixture exists"))
        .collect();
    App::new(index, under, theme).expect("app")
}

fn app() -> (tempfile::TempDir, App) {
    let dir = tempfile::tempdir().expect("temp dir");
    let app = app_over(dir.path(), &fixtures(), Theme::mono());
    (dir, app)
}

fn press(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// The frame's text, a line per row, trailing blanks cut.
fn screen(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|frame| draw::draw(frame, app))
        .expect("draws");
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..height {
        let mut line = String::new();
        for x in 0..width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Compares the 80×24 frame with `tests/golden/tui/NAME.txt`.
fn golden(app: &mut App, name: &str) {
    let got = screen(app, 80, 24);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/tui")
        .join(format!("{name}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).expect("golden written");
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()));
    assert_eq!(got, want, "screen {name} differs from {}", path.display());
}

/// Selects the session whose id is `id` in the list and opens it.
fn open(app: &mut App, id: &str) {
    let at = app
        .list
        .shown
        .iter()
        .position(|&i| app.list.sessions[i].session.id == id)
        .unwrap_or_else(|| panic!("{id} is listed"));
    app.list.state.select(Some(at));
    press(app, KeyCode::Enter);
    let view = app.session.as_ref().expect("session opened");
    assert_eq!(view.session.session.id, id);
}

/// Selects the line of message `seq` in the open session.
fn select(app: &mut App, seq: u64) {
    let view = app.session.as_mut().expect("session open");
    assert!(view.select_seq(seq), "#{seq} is in the session");
}

#[test]
fn sessions_list_sorted_and_filtered() {
    let (_dir, mut app) = app();
    golden(&mut app, "list");
    press(&mut app, KeyCode::Char('s'));
    golden(&mut app, "list-by-title");
    press(&mut app, KeyCode::Char('f'));
    type_text(&mut app, "v4err");
    golden(&mut app, "list-filtered");
    let shown: Vec<&str> = app
        .list
        .shown
        .iter()
        .map(|&i| app.list.sessions[i].session.id.as_str())
        .collect();
    assert_eq!(shown, ["s-v4-error"]);
    // Esc in the filter clears it: every session again.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.list.shown.len(), 4);
    assert!(app.input.is_none());
}

#[test]
fn session_view_expands_a_replace_to_what_it_shadowed() {
    let (_dir, mut app) = app();
    open(&mut app, "s-compact");
    golden(&mut app, "session");
    select(&mut app, 20);
    press(&mut app, KeyCode::Char(' '));
    golden(&mut app, "session-expanded");
    // Left on a shadowed entry goes up to its replace; Left there collapses it.
    select(&mut app, 12);
    press(&mut app, KeyCode::Left);
    assert_eq!(
        app.session.as_ref().and_then(|v| v.selected_seq()),
        Some(20)
    );
    press(&mut app, KeyCode::Left);
    let view = app.session.as_ref().expect("open");
    assert!(!view.expanded.contains(&20));
    // Folding the turn hides its lines.
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::Char(' '));
    assert_eq!(app.session.as_ref().map(|v| v.rows.len()), Some(1));
}

#[test]
fn message_detail_raw_event_and_provenance() {
    let (_dir, mut app) = app();
    open(&mut app, "p4");
    select(&mut app, 3);
    press(&mut app, KeyCode::Enter);
    golden(&mut app, "message-reasoning-collapsed");
    press(&mut app, KeyCode::Char('r'));
    assert!(screen(&mut app, 80, 24).contains("Simple sum."));
    press(&mut app, KeyCode::Char('v'));
    golden(&mut app, "raw-event");
    press(&mut app, KeyCode::Char('P'));
    golden(&mut app, "provenance");
    press(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
    // y queues the message's JSON for the clipboard, byte for byte as `messages` prints it.
    press(&mut app, KeyCode::Char('y'));
    let want = dsh()
        .args(["messages", "--format", "jsonl"])
        .arg(fixture(
            "provider/P4-reasoning-tokens-but-no-reasoning.jsonl",
        ))
        .output()
        .expect("messages runs");
    let first = String::from_utf8_lossy(&want.stdout);
    let first = first.lines().nth(1).expect("a second message");
    match app.effects.as_slice() {
        [dsh_session::tui::Effect::Copy(json)] => {
            let a: serde_json::Value = serde_json::from_str(json).expect("json");
            let b: serde_json::Value = serde_json::from_str(first).expect("json");
            assert_eq!(a, b);
        }
        other => panic!("expected one copy, got {other:?}"),
    }
}

#[test]
fn tool_error_is_marked_and_findings_list_a_providers_rules() {
    let (_dir, mut app) = app();
    open(&mut app, "s-v4-error");
    golden(&mut app, "session-tool-error");
    press(&mut app, KeyCode::Esc);
    open(&mut app, "p4");
    press(&mut app, KeyCode::Char('f'));
    golden(&mut app, "findings");
    // P4 is DeepSeek's (the third provider): anthropic and openai list no finding.
    for _ in 0..3 {
        press(&mut app, KeyCode::Char('p'));
    }
    golden(&mut app, "findings-deepseek");
    press(&mut app, KeyCode::Enter);
    assert!(app.overlay.is_none());
    assert_eq!(app.session.as_ref().and_then(|v| v.selected_seq()), Some(9));
}

#[test]
fn corrupt_log_is_listed_marked_and_opens_with_its_defect() {
    let (_dir, mut app) = app();
    let corrupt = app
        .list
        .sessions
        .iter()
        .find(|s| s.session.status == "corrupt")
        .map(|s| s.session.id.clone())
        .expect("the corrupt log is listed");
    open(&mut app, &corrupt);
    golden(&mut app, "session-corrupt");
}

#[test]
fn search_jumps_to_the_message() {
    let (_dir, mut app) = app();
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "a.txt says");
    press(&mut app, KeyCode::Enter);
    golden(&mut app, "search");
    press(&mut app, KeyCode::Enter);
    let view = app.session.as_ref().expect("the hit's session opened");
    assert_eq!(view.session.session.id, "s-compact");
    assert_eq!(view.selected_seq(), Some(20));
    // A hit in a shadowed message expands the replaces above it.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen, dsh_session::tui::app::Screen::Search);
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "hello from a");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    let view = app.session.as_ref().expect("opened");
    assert_eq!(view.selected_seq(), Some(17));
    assert!(view.expanded.contains(&19));
}

#[test]
fn help_lists_every_key() {
    let (_dir, mut app) = app();
    press(&mut app, KeyCode::Char('?'));
    golden(&mut app, "help");
    press(&mut app, KeyCode::Char('x'));
    assert!(app.overlay.is_none());
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn no_color_draws_no_colour_and_every_size_draws() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut app = app_over(dir.path(), &fixtures(), Theme::mono());
    open(&mut app, "s-v4-error");
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    terminal
        .draw(|frame| draw::draw(frame, &mut app))
        .expect("draws");
    let buffer = terminal.backend().buffer();
    assert!(
        buffer
            .content()
            .iter()
            .all(|c| c.fg == ratatui::style::Color::Reset && c.bg == ratatui::style::Color::Reset),
        "a colour was drawn under NO_COLOR"
    );
    // With colours, the tool error is red.
    let mut colored = app_over(dir.path(), &fixtures(), Theme::colored());
    open(&mut colored, "s-v4-error");
    terminal
        .draw(|frame| draw::draw(frame, &mut colored))
        .expect("draws");
    assert!(
        terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .any(|c| c.fg == ratatui::style::Color::Red)
    );
    // Resizes, down to a single cell: every screen draws without a panic.
    for (w, h) in [(120, 40), (80, 24), (40, 10), (20, 3), (1, 1)] {
        screen(&mut app, w, h);
        press(&mut app, KeyCode::Enter);
        screen(&mut app, w, h);
        press(&mut app, KeyCode::Esc);
    }
}

/// A session of `turns` turns of a user message and an assistant answer.
fn long_session(path: &Path, turns: u64) {
    use std::fmt::Write as _;
    let mut text = String::from(
        "{\"type\":\"session\",\"version\":0,\"id\":\"s-long\",\"createdAt\":1760000000000,\"cwd\":\"/home/ana/proj\",\"delegationDepth\":0}\n",
    );
    let mut seq: u64 = 0;
    for t in 1..=turns {
        let time = 1_760_000_000_000_u64 + seq;
        let _ = writeln!(
            text,
            "{{\"type\":\"turn/start\",\"seq\":{seq},\"time\":{time},\"data\":{{\"turn\":{t}}}}}"
        );
        let _ = writeln!(
            text,
            "{{\"type\":\"user/message\",\"seq\":{},\"time\":{time},\"data\":{{\"id\":\"u{t}\",\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"question {t}\"}}],\"source\":{{\"kind\":\"user\"}}}},\"surfaceOp\":\"append\"}}",
            seq + 1
        );
        let _ = writeln!(
            text,
            "{{\"type\":\"assistant/message\",\"seq\":{},\"time\":{time},\"data\":{{\"turn\":{t},\"message\":{{\"id\":\"a{t}\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"answer {t}\"}}],\"source\":{{\"kind\":\"model\",\"provider\":\"deepseek\",\"model\":\"deepseek-chat\"}}}}}},\"surfaceOp\":\"append\"}}",
            seq + 2
        );
        let _ = writeln!(
            text,
            "{{\"type\":\"turn/end\",\"seq\":{},\"time\":{time},\"data\":{{\"turn\":{t},\"reason\":{{\"kind\":\"completed\"}}}}}}",
            seq + 3
        );
        seq += 4;
    }
    std::fs::write(path, text).expect("log written");
}

#[test]
fn a_long_history_reads_only_the_texts_on_screen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("long.jsonl");
    long_session(&log, 5000);
    let mut app = app_over(dir.path(), std::slice::from_ref(&log), Theme::mono());
    open(&mut app, "s-long");
    screen(&mut app, 80, 24);
    let view = app.session.as_ref().expect("open");
    assert_eq!(view.seqs.len(), 10_000);
    assert!(
        view.cached() <= 22,
        "{} texts read for one screen",
        view.cached()
    );
    press(&mut app, KeyCode::End);
    let text = screen(&mut app, 80, 24);
    assert!(text.contains("answer 5000"), "{text}");
    let view = app.session.as_ref().expect("open");
    assert_eq!(view.selected_seq(), Some(19_998));
    assert!(
        view.cached() <= 44,
        "{} texts read for two screens",
        view.cached()
    );
}

#[test]
fn without_a_terminal_it_points_at_show_and_export() {
    let out = dsh()
        .arg("tui")
        .arg(fixture("compaction-and-prune.jsonl"))
        .write_stdin("")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        format!(
            "dsh-session: {}",
            "tui needs a terminal on standard input and output; in a pipe or a script use `dsh-session show FILE`, `dsh-session messages FILE` or `dsh-session export FILE --format markdown`"
        )
    );
}

/// A tmux server of this test alone (its own socket), killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "tui"])
    }

    /// Waits (up to 30 s) until the pane shows `text`; the pane as it was otherwise.
    fn wait_for(&self, text: &str) -> String {
        let start = std::time::Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(30),
                "the pane never showed {text:?}; it shows:\n{screen}"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "tui"];
        args.extend_from_slice(keys);
        self.run(&args);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = std::process::Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

#[test]
fn in_a_real_terminal_filter_open_expand_and_quit() {
    if !have_program(
        "tmux",
        "install tmux (apt-get install tmux) to drive the TUI in a real terminal",
    ) {
        return;
    }
    // A JSONL root laid out as DSH writes it: <root>/<project>/<session>/session.jsonl.
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("sessions");
    // The v4 log's header has no cwd: DSH files it under _no-cwd.
    for (f, (project, id, name)) in fixtures().iter().zip([
        ("--home-ana-proj--", "s-compact", "session.jsonl"),
        ("_no-cwd", "s-v4-error", "session.v4.jsonl"),
        ("--home-ana-proj--", "p4", "session.jsonl"),
        ("--home-ana-proj--", "s-corrupt", "session.jsonl"),
    ]) {
        let session = root.join(project).join(id);
        std::fs::create_dir_all(&session).expect("session directory");
        std::fs::copy(f, session.join(name)).expect("fixture copied");
    }
    let exit = dir.path().join("exit");
    let command = format!(
        "cd '{}' && env NO_COLOR=1 DSH_SESSION_INDEX='{}' '{}' tui '{}'; echo $? > '{}'",
        dir.path().display(),
        dir.path().join("index.db").display(),
        env!("CARGO_BIN_EXE_dsh-session"),
        root.display(),
        exit.display()
    );
    let tmux = Tmux {
        socket: format!("dsh-session-test-{}", std::process::id()),
    };
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "tui",
        "-x",
        "80",
        "-y",
        "24",
        &command,
    ]);
    let list = tmux.wait_for("4 of 4 sessions");
    assert!(list.contains("✗ corrupt Broken after one"), "{list}");
    // Filter as you type: the list narrows with each key.
    tmux.keys(&["f", "c", "o", "m", "p", "a", "c", "t"]);
    let filtered = tmux.wait_for("1 of 4 sessions");
    assert!(filtered.contains("s-compact"), "{filtered}");
    assert!(!filtered.contains("s-v4-error"), "{filtered}");
    // Enter keeps the filter, Enter opens the session.
    tmux.keys(&["Enter"]);
    tmux.wait_for("filter: compact");
    tmux.keys(&["Enter"]);
    let session = tmux.wait_for("s-compact · session.jsonl");
    assert!(
        session.contains("#20    user      ▸ replaces 15..12 (2 shadowed)"),
        "{session}"
    );
    // Down to the replace #20 (below the turn and step lines), Space expands it.
    tmux.keys(&["j", "j", "Space"]);
    let expanded = tmux.wait_for("shadowed by #20");
    assert!(
        expanded.contains("#20    user      ▾ replaces 15..12"),
        "{expanded}"
    );
    assert!(
        expanded.contains("#12    assistant shadowed by #20 → bash ⇒ #17 Two files."),
        "{expanded}"
    );
    // e writes a Markdown export in the current directory (`dir`), never over the log.
    tmux.keys(&["e"]);
    tmux.wait_for("session.jsonl.md");
    let export = std::fs::read_to_string(dir.path().join("session.jsonl.md")).expect("export");
    assert!(
        export.contains("Summary: two files; a.txt says hello."),
        "{export}"
    );
    tmux.keys(&["q"]);
    let start = std::time::Instant::now();
    while !exit.is_file() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "tui did not exit after q"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    let code = std::fs::read_to_string(&exit).expect("exit status");
    assert_eq!(code.trim(), "0");
}

#[test]
fn every_sample_session_opens_and_draws() {
    if !have_samples() {
        return;
    }
    let mut paths = Vec::new();
    for sub in ["jsonl", "real", "crashed", "sqlite", "zstd"] {
        let Ok(entries) = std::fs::read_dir(samples().join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.contains("session") && !name.ends_with(".md") {
                paths.push(p);
            }
        }
    }
    paths.sort();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut app = app_over(dir.path(), &paths, Theme::mono());
    let sessions: Vec<_> = app.list.sessions.clone();
    assert!(sessions.len() >= 80, "{} sessions", sessions.len());
    let mut opened = 0;
    for row in sessions {
        app.screen = dsh_session::tui::app::Screen::List;
        app.overlay = None;
        app.open(row.clone(), None);
        if row.session.status == "unreadable" {
            continue;
        }
        assert!(
            app.overlay.is_none(),
            "{} ({}): {:?}",
            row.session.file.display(),
            row.session.id,
            app.overlay
        );
        let view = app.session.as_ref().expect("opened");
        assert_eq!(view.session.session.id, row.session.id);
        assert_eq!(
            view.details.verdict.status,
            row.session.status,
            "{}",
            row.session.file.display()
        );
        screen(&mut app, 80, 24);
        for key in [
            KeyCode::End,
            KeyCode::Enter,
            KeyCode::Char('v'),
            KeyCode::Char('P'),
        ] {
            press(&mut app, key);
            screen(&mut app, 80, 24);
        }
        press(&mut app, KeyCode::Esc);
        press(&mut app, KeyCode::Char('f'));
        press(&mut app, KeyCode::Char('p'));
        screen(&mut app, 80, 24);
        opened += 1;
    }
    assert!(opened >= 80, "{opened} opened");
}

/// Every column is cut with `…`: a project name wider than its column (`TOLIK_Harness`, a
/// real Windows log's) as the model column always was (issue 44.5).
#[test]
fn a_long_project_name_is_cut_with_an_ellipsis() {
    let (_dir, mut app) = app();
    let first = app.list.shown[0];
    app.list.sessions[first].session.cwd = Some(r"C:\DEV\TOLIK_Harness".to_owned());
    let text = screen(&mut app, 80, 24);
    let row = text.lines().nth(2).expect("the first row");
    assert!(row.contains(" TOLIK_Harne… "), "{row}");
    assert!(!text.contains("TOLIK_Harnes "), "{text}");
}
