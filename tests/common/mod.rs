//! Helpers shared by the CLI tests.
#![allow(dead_code)]

pub mod site_root;
pub mod store;

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The `dsh-session` binary under test. Its search index (`index`, `search`, `sessions
/// ROOT`) is a file of this test binary under cargo's `target/tmp`, never the user's
/// cache: `DSH_SESSION_INDEX` names it, and the cache directory itself points there too.
pub fn dsh() -> Command {
    let mut cmd = Command::cargo_bin("dsh-session").expect("binary built by cargo test");
    cmd.env_remove("NO_COLOR");
    let dir = test_cache();
    cmd.env("DSH_SESSION_INDEX", dir.join("index.db"));
    cmd.env("XDG_CACHE_HOME", dir.join("cache"));
    // No ~/.dsh/sessions: a command given no path reads the default root of an empty home.
    cmd.env("HOME", dir.join("home"));
    cmd
}

/// A directory for this test binary's caches under cargo's `target/tmp`, emptied when the
/// binary first asks for it (so each run starts with no index).
pub fn test_cache() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test binary path");
        let stem = exe
            .file_stem()
            .map_or_else(|| "tests".to_owned(), |s| s.to_string_lossy().into_owned());
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cache-{stem}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("cache directory");
        dir
    })
}

/// `dsh-session --dsh 0.1.1`: judged as DSH 0.1.1-rc.2, which loads a v0 log as it is. The
/// hand-made fixtures of DSH 0.1.1's rules (and of what a provider refuses) are logs the
/// frozen edges of DSH 0.1.5 and later refuse for other reasons; their tests pin the line.
pub fn dsh_011() -> Command {
    let mut cmd = dsh();
    cmd.arg("--dsh=0.1.1");
    cmd
}

/// `dsh-session --dsh writer`: each log judged by the line of the DSH that writes its
/// generation (v0 as DSH 0.1.1 loads it, v3 as 0.1.5, v4 as 0.1.7): the provider and heal
/// fixtures are hand-made for the rules of their own generation's DSH.
pub fn dsh_writer() -> Command {
    let mut cmd = dsh();
    cmd.arg("--dsh=writer");
    cmd
}

/// Whether a test may run that needs an outside part (a browser, `jq`, DuckDB, `tmux`, a
/// Python package, the shared samples): `true` when it is `present`. When it is missing, on a
/// user's machine the test says so once on the real standard error and skips (`false`); with
/// `DSH_SESSION_REQUIRE_ALL=1` (set by `.ci/run`) a missing part fails the test instead, so
/// CI never passes a test unseen. `what` names the part, `why` how to get it.
pub fn require(what: &str, present: bool, why: &str) -> bool {
    if present {
        return true;
    }
    let message = format!("{what} is missing: {why}");
    if std::env::var_os("DSH_SESSION_REQUIRE_ALL").is_some_and(|v| v == "1") {
        panic!("{message} (DSH_SESSION_REQUIRE_ALL=1: required here)");
    }
    // Said once per `cargo test` run, however many tests and test binaries skip for it:
    // the first binary to skip creates a marker named for cargo's process (the parent of
    // every test binary of the run) and says it; the others find the marker. It is written
    // past the test harness's capture, so it shows in every run.
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !said.contains(&message) {
        let mut hash = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(&message, &mut hash);
        #[cfg(unix)]
        let run = std::os::unix::process::parent_id();
        #[cfg(not(unix))]
        let run = std::process::id();
        let marker = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "skipped-{run}-{:x}",
            std::hash::Hasher::finish(&hash)
        ));
        let first = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&marker)
            .is_ok();
        if first {
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                format!("\n*** SKIPPED, every test that needs it: {message} ***\n").as_bytes(),
            );
        }
        said.push(message);
    }
    false
}

/// Whether `../shared/samples` is beside the checkout ([`require`]: skipped without it, a
/// failure in CI).
pub fn have_samples() -> bool {
    require(
        "../shared/samples",
        samples().join("EXPECTED.tsv").is_file(),
        "the DSH sample logs are read in place from ../shared/samples beside the checkout",
    )
}

/// Whether `program` is on `PATH` ([`require`]).
pub fn have_program(program: &str, why: &str) -> bool {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()));
    require(program, found, why)
}

/// `../shared/samples`, read in place (never copied into the project).
pub fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/samples")
}

/// A fixture under `fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// Runs `dsh-session validate --format jsonl FILE` and returns the parsed verdict.
pub fn verdict(path: &std::path::Path) -> serde_json::Value {
    verdict_with(dsh(), path)
}

/// [`verdict`] as DSH 0.1.1 judges ([`dsh_011`]).
pub fn verdict_011(path: &std::path::Path) -> serde_json::Value {
    verdict_with(dsh_011(), path)
}

/// [`verdict`] as the writing DSH judges ([`dsh_writer`]).
pub fn verdict_writer(path: &std::path::Path) -> serde_json::Value {
    verdict_with(dsh_writer(), path)
}

/// [`verdict`] with global options first (`["--dsh", "0.1.5"]`, `["--platform", "posix"]`).
pub fn verdict_as(options: &[&str], path: &std::path::Path) -> serde_json::Value {
    let mut cmd = dsh();
    cmd.args(options);
    verdict_with(cmd, path)
}

fn verdict_with(mut cmd: Command, path: &std::path::Path) -> serde_json::Value {
    let out = cmd
        .args(["validate", "--format", "jsonl"])
        .arg(path)
        .output()
        .expect("runs");
    let line = String::from_utf8(out.stdout).expect("utf-8");
    serde_json::from_str(
        line.lines()
            .next()
            .unwrap_or_else(|| panic!("no verdict for {}", path.display())),
    )
    .expect("one JSON object")
}

/// A verdict in the form "STATUS RULE SEQ LINE", with `-` for null.
pub fn brief(v: &serde_json::Value) -> String {
    let field = |key: &str| match &v[key] {
        serde_json::Value::Null => "-".to_owned(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    format!(
        "{} {} {} {}",
        field("status"),
        field("rule"),
        field("seq"),
        field("line")
    )
}

/// The rows of `EXPECTED.tsv`: (file relative to samples, status, rule).
pub fn expected_samples() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(samples().join("EXPECTED.tsv")).expect("EXPECTED.tsv");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols[0].to_owned(), cols[1].to_owned(), cols[2].to_owned())
        })
        .collect()
}

/// One checksummed zstd frame at the default level, as DSH writes a batch (§7.5).
pub fn zstd_frame(plain: &[u8]) -> Vec<u8> {
    dsh_session::write::zstd_frame(plain).expect("encodes")
}

/// A `.jsonl.zstd` image of a plain log: the header line in frame 1, then `batch` lines
/// per frame. Returns the bytes and the start offset of every frame.
pub fn zstd_log(plain: &str, batch: usize) -> (Vec<u8>, Vec<usize>) {
    let mut lines = plain.split_inclusive('\n');
    let mut out = Vec::new();
    let mut starts = vec![0];
    out.extend(zstd_frame(lines.next().expect("header").as_bytes()));
    let rest: Vec<&str> = lines.collect();
    for chunk in rest.chunks(batch) {
        starts.push(out.len());
        out.extend(zstd_frame(chunk.concat().as_bytes()));
    }
    (out, starts)
}

/// Decodes every complete frame of a zstd log (the torn tail, if any, is an error).
pub fn zstd_plain(bytes: &[u8]) -> String {
    String::from_utf8(zstd::stream::decode_all(bytes).expect("complete frames")).expect("utf-8")
}

/// A zstd frame of raw (uncompressed) blocks of `block` bytes, without checksum: lets a
/// test cut a frame so that its complete blocks still decode (FORMAT.md §5.5.2 Z8).
pub fn raw_block_frame(plain: &[u8], block: usize) -> Vec<u8> {
    // Descriptor 0: no content size, not single-segment, no checksum, no dictionary;
    // window descriptor 0x38: a 128 KiB window.
    let mut out = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x38];
    let chunks: Vec<&[u8]> = plain.chunks(block).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        let last = u32::from(i + 1 == chunks.len());
        let header = (chunk.len() as u32) << 3 | last;
        out.extend_from_slice(&header.to_le_bytes()[..3]);
        out.extend_from_slice(chunk);
    }
    out
}

/// A zstd log whose final frame is torn inside the `garbage` bytes that follow the last
/// complete lines of `plain`: frames of `batch` lines, then the last `tail` lines plus
/// half of `garbage` in a raw-block frame cut mid-block. Returns the bytes and the offset
/// of the torn frame.
pub fn zstd_log_with_torn_frame(
    plain: &str,
    batch: usize,
    tail: usize,
    garbage: &str,
) -> (Vec<u8>, usize) {
    let lines: Vec<&str> = plain.split_inclusive('\n').collect();
    let (head, last) = lines.split_at(lines.len() - tail);
    let (mut bytes, _) = zstd_log(&head.concat(), batch);
    let torn_at = bytes.len();
    let text = format!("{}{garbage}", last.concat());
    let frame = raw_block_frame(text.as_bytes(), 64);
    // Keep every byte up to the middle of the garbage.
    let keep = frame.len() - garbage.len() / 2;
    bytes.extend_from_slice(&frame[..keep]);
    (bytes, torn_at)
}

/// Whether util-linux `script` is there for [`on_a_terminal`] ([`require`]).
pub fn have_script() -> bool {
    have_program(
        "script",
        "util-linux `script` runs a command on a pseudo-terminal (Debian: bsdutils)",
    )
}

/// Runs `dsh-session ARGS` on a pseudo-terminal `columns` wide (util-linux `script`) and
/// returns what it printed, without the terminal's carriage returns. Callers check
/// [`have_script`] first.
pub fn on_a_terminal(columns: u16, args: &str) -> String {
    let bin = assert_cmd::cargo::cargo_bin("dsh-session");
    let out = std::process::Command::new("script")
        .args(["-qfec"])
        .arg(format!("stty cols {columns}; {} {args}", bin.display()))
        .arg("/dev/null")
        .env_remove("NO_COLOR")
        // The test binary's own index and caches, as [`dsh`] gives them: never the user's.
        .env("DSH_SESSION_INDEX", test_cache().join("index.db"))
        .env("XDG_CACHE_HOME", test_cache().join("cache"))
        .output()
        .expect("util-linux `script` runs a command on a pseudo-terminal (Debian: bsdutils)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().replace('\r', "")
}

/// One verdict of DSH's own published packages on a file (`oracle/run`, ORACLE.md): the
/// judge's name, `accepted` / `refused` / `unjudged`, DSH's error text, and how many events
/// DSH accepted.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct OracleVerdict {
    pub file: String,
    pub judge: String,
    pub verdict: String,
    pub error: Option<String>,
    pub events: Option<u64>,
}

/// The judge that is DSH 0.1.1-rc.2's store (`SessionStore` + `JsonlSessionPersistence`,
/// `load(id)`): compare with `validate --dsh 0.1.1`.
pub const ORACLE_STORE: &str = "dsh-0.1.1-rc.2";
/// The frozen v0→v1 edge, strict, with its own final check.
pub const ORACLE_EDGE: &str = "v0-to-v1-0.1.3-alpha.2";
/// The same edge in the recoverable reading DSH's production code uses for a historical log.
pub const ORACLE_EDGE_RECOVERABLE: &str = "v0-to-v1-0.1.3-alpha.2-recoverable";

/// What `oracle/run ARGS` prints (DSH's own published packages, installed on first use),
/// or `None` when npm or the npm registry cannot be reached: then the test skips with one
/// line, and fails under `DSH_SESSION_REQUIRE_ALL=1` ([`require`]).
pub fn oracle_output(args: &[&std::ffi::OsStr]) -> Option<String> {
    let run = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/run");
    let have_npm = std::process::Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !require(
        "npm (for DSH's packages, the oracle)",
        have_npm,
        "install Node.js and npm; oracle/run installs DSH's packages from the npm registry",
    ) {
        return None;
    }
    let out = std::process::Command::new(&run)
        .args(args)
        .output()
        .expect("oracle/run starts");
    if out.status.code() == Some(3) {
        require(
            "the npm registry (for DSH's packages, the oracle)",
            false,
            "oracle/run installs DSH's published packages from registry.npmjs.org once",
        );
        return None;
    }
    assert!(
        out.status.success(),
        "oracle/run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).expect("UTF-8"))
}

/// DSH's own verdicts on `files` ([`oracle_output`]), or `None` when the oracle cannot be
/// installed. Files are judged in one Node process per 200; the order of the answer is the
/// order of `files`, judge by judge.
pub fn oracle(files: &[PathBuf]) -> Option<Vec<OracleVerdict>> {
    let mut verdicts = Vec::new();
    for batch in files.chunks(200) {
        let args: Vec<&std::ffi::OsStr> = batch.iter().map(|p| p.as_os_str()).collect();
        for line in oracle_output(&args)?.lines() {
            verdicts.push(serde_json::from_str(line).expect("oracle line is JSON"));
        }
    }
    Some(verdicts)
}
