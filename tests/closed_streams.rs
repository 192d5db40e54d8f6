//! No command aborts when a stream it writes cannot be written (issue 25 §2): every
//! subcommand runs over every real sample and every fixture three ways, and each run must end
//! with exit 0, 1 or 2 and no panic text.
//!
//! * normally (both streams read whole): the reference exit code;
//! * with standard error unwritable (`2>/dev/full`, or a pipe whose reader is gone where
//!   there is no `/dev/full`): the same exit code as the normal run — a message that cannot
//!   be written is dropped, never a panic (`eprintln!` panics on a write error, and inside
//!   the panic hook that aborted with exit 134);
//! * with standard output closed after a few bytes (`| head -c 8`): a quiet end, exit 0, 1 or
//!   2, and no panic text on standard error.
//!
//! The runs go in parallel on every core; each is bounded in time, so a hang fails the test.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{fixture, have_samples, samples};

/// Longest any one run may take.
const BOUND: Duration = Duration::from_secs(60);

/// Bytes of standard output read before the pipe is closed.
const FEW_BYTES: usize = 8;

/// Words a panic, an abort or a stack overflow leaves on standard error.
const PANIC_TEXT: [&str; 5] = [
    "panicked",
    "internal error",
    "fatal runtime error",
    "overflowed its stack",
    "Aborted",
];

/// Every regular file below `dir`, sorted.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("readable directory") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The inputs: every fixture, every sample (when `../shared/samples` is there), and the two
/// roots as directories.
fn inputs() -> Vec<PathBuf> {
    let mut out = files_below(&fixture(""));
    out.push(fixture(""));
    if have_samples() {
        out.extend(files_below(&samples()));
        out.push(samples());
    }
    out
}

/// The argument lists run on `path`: every subcommand that reads a log, and the ones that
/// read none once (for the first input only).
fn commands(path: &Path, first: bool) -> Vec<Vec<String>> {
    let p = path.display().to_string();
    // `recover --dry-run` plans under a root it never creates.
    let root = std::env::temp_dir()
        .join("dsh-session-closed-streams-never-written")
        .display()
        .to_string();
    let mut list: Vec<Vec<&str>> = vec![
        vec!["validate", &p],
        vec!["validate", "--format", "json", "--provider", "deepseek", &p],
        vec!["show", &p],
        vec!["show", "--format", "json", &p],
        vec!["surface", "--all", &p],
        vec!["messages", &p],
        vec!["messages", "--provider", "anthropic", &p],
        vec!["replacements", &p],
        vec!["provenance", &p, "1"],
        vec!["version", &p],
        vec!["sessions", &p],
        vec!["index", &p],
        vec!["search", "the", &p],
        vec!["export", &p],
        vec!["export", "--format", "html", &p],
        vec!["stats", "--by", "session", &p],
        vec!["repair", "--dry-run", &p],
        vec!["repair", "--dry-run", "--provider", "deepseek", &p],
        vec!["recover", "--dry-run", "--out", &root, &p],
        vec!["messages", "--salvage", "--format", "jsonl", &p],
        vec!["show", "--salvage", &p],
    ];
    if first {
        list.extend([
            vec!["rules"],
            vec!["rules", "P3"],
            vec!["completions", "bash"],
            vec!["man"],
            vec!["--help"],
            vec!["validate", "--no-such-flag"],
        ]);
    }
    list.into_iter()
        .map(|a| a.into_iter().map(str::to_owned).collect())
        .collect()
}

fn dsh(args: &[String]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dsh-session"));
    cmd.args(args).env_remove("NO_COLOR").stdin(Stdio::null());
    // `index`, `search` and `sessions ROOT` write a search index: this test's, never the
    // user's cache.
    let index = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("closed-streams-index.db");
    cmd.env("DSH_SESSION_INDEX", index);
    cmd
}

/// Waits for `child` within [`BOUND`], killing it past that.
fn wait(child: &mut Child, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if start.elapsed() > BOUND {
            let _ = child.kill();
            panic!("{what}: still running after {BOUND:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The exit code of a run, failing on a signal or a code other than 0, 1 or 2.
fn code(status: ExitStatus, stderr: &str, what: &str) -> i32 {
    let code = status
        .code()
        .unwrap_or_else(|| panic!("{what}: killed by a signal ({status})\nstderr: {stderr}"));
    assert!(
        (0..=2).contains(&code),
        "{what}: exit {code}\nstderr: {stderr}"
    );
    for text in PANIC_TEXT {
        assert!(
            !stderr.contains(text),
            "{what}: {text:?} on standard error\nstderr: {stderr}"
        );
    }
    code
}

/// Runs `args` the three ways; returns a failure description, if any.
fn three_ways(args: &[String]) -> Result<(), String> {
    let what = format!("dsh-session {}", args.join(" "));
    std::panic::catch_unwind(|| {
        // Normally.
        let mut child = dsh(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stderr = String::new();
        let mut err_pipe = child.stderr.take().expect("piped");
        let reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = err_pipe.read_to_end(&mut bytes);
            bytes
        });
        let status = wait(&mut child, &what);
        stderr.push_str(&String::from_utf8_lossy(&reader.join().expect("reader")));
        let normal = code(status, &stderr, &what);

        // Standard error unwritable.
        let full = Path::new("/dev/full");
        let mut cmd = dsh(args);
        cmd.stdout(Stdio::null());
        let mut child = if full.exists() {
            let sink = std::fs::OpenOptions::new()
                .write(true)
                .open(full)
                .expect("/dev/full");
            cmd.stderr(sink).spawn().expect("spawn")
        } else {
            let mut child = cmd.stderr(Stdio::piped()).spawn().expect("spawn");
            drop(child.stderr.take());
            child
        };
        let status = wait(&mut child, &what);
        let unwritable = code(status, "", &format!("{what} 2>/dev/full"));
        assert_eq!(
            unwritable, normal,
            "{what} 2>/dev/full: exit {unwritable}, {normal} with a writable standard error"
        );

        // Standard output closed after a few bytes.
        let mut child = dsh(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut out_pipe = child.stdout.take().expect("piped");
        let mut err_pipe = child.stderr.take().expect("piped");
        let reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = err_pipe.read_to_end(&mut bytes);
            bytes
        });
        let mut few = [0u8; FEW_BYTES];
        let mut got = 0;
        while got < FEW_BYTES {
            match out_pipe.read(&mut few[got..]) {
                Ok(0) | Err(_) => break,
                Ok(n) => got += n,
            }
        }
        drop(out_pipe);
        let status = wait(&mut child, &what);
        let stderr = String::from_utf8_lossy(&reader.join().expect("reader")).into_owned();
        code(status, &stderr, &format!("{what} | head -c {FEW_BYTES}"));
    })
    .map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| what.clone())
    })
}

#[test]
fn every_command_on_every_sample_and_fixture_survives_unwritable_streams() {
    let jobs: Vec<Vec<String>> = inputs()
        .iter()
        .enumerate()
        .flat_map(|(i, path)| commands(path, i == 0))
        .collect();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(args) = jobs.get(i) else { break };
                    if let Err(f) = three_ways(args) {
                        failures.lock().expect("lock").push(f);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().expect("lock");
    assert!(
        failures.is_empty(),
        "{} of {} runs failed:\n{}",
        failures.len(),
        jobs.len(),
        failures.join("\n\n")
    );
}

/// `follow` never ends by itself on a healthy log: with standard output closed after its
/// first bytes it ends quietly (exit 0), also with standard error unwritable — when the log
/// grows, and when it stays quiet (the reader's end polled gone, as `tail -f` does; waiting
/// for the next write once made this test hang when a process spawned at that moment held
/// the pipe's read end for the write after the close).
#[test]
fn follow_ends_quietly_when_its_output_is_closed() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, grows) in [
        ("compaction-and-prune.jsonl", true),
        ("june-2026.jsonl", true),
        ("open-turn-after-tool-call.jsonl", false),
    ] {
        let text = std::fs::read_to_string(fixture(name)).expect("fixture");
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let log = dir.path().join(name);
        let half = lines.len() / 2;
        std::fs::write(&log, lines[..half].concat()).expect("write");
        let args = vec![
            "follow".to_owned(),
            "--poll-ms".to_owned(),
            "20".to_owned(),
            log.display().to_string(),
        ];
        let what = format!("dsh-session {}", args.join(" "));
        let mut cmd = dsh(&args);
        if Path::new("/dev/full").exists() {
            cmd.stderr(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .expect("/dev/full"),
            );
        }
        let mut child = cmd.stdout(Stdio::piped()).spawn().expect("spawn");
        let mut out = child.stdout.take().expect("piped");
        let mut few = [0u8; FEW_BYTES];
        out.read_exact(&mut few)
            .expect("follow prints its summary at once");
        drop(out);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&log)
            .expect("log");
        if grows {
            std::io::Write::write_all(&mut file, lines[half..].concat().as_bytes())
                .expect("append");
        }
        let status = wait(&mut child, &what);
        assert_eq!(status.code(), Some(0), "{what}");
    }
}

/// No `eprintln!`/`eprint!`/`println!`/`print!` in the sources: they panic when their stream
/// cannot be written. Messages go through `stderr!` (src/main.rs), output through the
/// command's writer.
#[test]
fn no_source_prints_with_a_panicking_macro() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for file in files_below(&src) {
        if file.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("source");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if ["eprintln!", "eprint!", "println!", "print!("]
                .iter()
                .any(|m| code.contains(m))
            {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
