//! The JSONL store layout: project keys and encoded session ids (FORMAT.md §7.1).

use std::fmt::Write as _;

fn is_kept(unit: u16) -> bool {
    matches!(unit, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x2E | 0x5F | 0x2D)
}

/// `encodeSegment(id)`: keeps `[A-Za-z0-9._-]` per UTF-16 code unit and writes every other
/// unit as `~XXXX` (four uppercase hex digits); `.` and `..` become `~002E` and
/// `~002E~002E`. Injective. Example: `a/b` → `a~002Fb`.
pub fn encode_segment(id: &str) -> String {
    encode_segment_units(&id.encode_utf16().collect::<Vec<u16>>())
}

/// [`encode_segment`] over UTF-16 code units, so lone surrogates encode as DSH encodes them
/// (`\ud800` → `~D800`).
pub fn encode_segment_units(id: &[u16]) -> String {
    if id == [0x2E] || id == [0x2E, 0x2E] {
        return "~002E".repeat(id.len());
    }
    let mut out = String::with_capacity(id.len());
    for &unit in id {
        if is_kept(unit) {
            out.push(char::from(unit as u8));
        } else {
            let _ = write!(out, "~{unit:04X}");
        }
    }
    out
}

/// `projectKey(cwd)`: separators `/`, `\`, `:` (runs collapsed) become `-`, kept units stay,
/// others become `~XXXX`; leading `-` stripped (`root` when nothing remains); the first 251
/// characters wrapped as `--<slug>--`. Example: `/home/ana/proj` → `--home-ana-proj--`.
pub fn project_key(cwd: &str) -> String {
    project_key_units(&cwd.encode_utf16().collect::<Vec<u16>>())
}

/// [`project_key`] over UTF-16 code units.
pub fn project_key_units(cwd: &[u16]) -> String {
    let mut slug = String::new();
    let mut last_sep = false;
    for &unit in cwd {
        if matches!(unit, 0x2F | 0x5C | 0x3A) {
            if !last_sep {
                slug.push('-');
            }
            last_sep = true;
            continue;
        }
        last_sep = false;
        if is_kept(unit) {
            slug.push(char::from(unit as u8));
        } else {
            let _ = write!(slug, "~{unit:04X}");
        }
    }
    let slug = slug.trim_start_matches('-');
    let slug = if slug.is_empty() { "root" } else { slug };
    let cut: String = slug.chars().take(251).collect();
    format!("--{cut}--")
}

/// Whether `cwd` is an absolute path as the DSH that wrote the header judged it (§6.3 H7,
/// §7.1): DSH checks `cwd` with Node's `path.isAbsolute` on the machine it runs on, so a
/// log recorded on Windows carries a Windows path. A path absolute on either platform is
/// accepted, whatever the host that reads it:
///
/// * POSIX: starts with `/` (`/home/ana/proj`);
/// * Windows (`path.win32.isAbsolute`): starts with a separator `\` or `/` (UNC
///   `\\server\share\x`, device paths `\\?\C:\x`, rooted `\x`), or a drive letter, a colon
///   and a separator (`C:\x`, `C:/x`).
///
/// Relative paths of either kind (`C:x`, `x\y`, `./x`) and the empty string
/// are not absolute.
pub fn is_absolute_cwd(cwd: &str) -> bool {
    match cwd.as_bytes() {
        [b'/' | b'\\', ..] => true,
        [drive, b':', b'/' | b'\\', ..] => drive.is_ascii_alphabetic(),
        _ => false,
    }
}

/// Whether `cwd` is absolute on Windows only: a path DSH on Windows accepts and DSH on
/// Linux or macOS (`path.posix.isAbsolute`: it must start with `/`) refuses — a drive
/// letter (`C:\x`, `C:/x`), a UNC or device path (`\\server\share`, `\\?\C:\x`) or a
/// rooted backslash path (`\x`).
pub fn is_windows_cwd(cwd: &str) -> bool {
    is_absolute_cwd(cwd) && !cwd.starts_with('/')
}

/// The path of a session under `root` (FORMAT.md §7.1:
/// `--<project>--/<encoded id>/session[.vN].jsonl[.zstd]`): `cwd` and `id` are the header's
/// JSON string values (their UTF-16 code units are encoded, so a lone surrogate is encoded
/// as DSH encodes it); no or an empty `cwd` is the project `_no-cwd`.
pub fn session_path(
    root: &std::path::Path,
    cwd: Option<crate::json::Json<'_>>,
    id: crate::json::Json<'_>,
    version: i64,
    encoding: crate::load::Encoding,
) -> std::path::PathBuf {
    let project = match cwd {
        Some(cwd) if cwd.as_str().is_some_and(|c| !c.is_empty()) => {
            project_key_units(&cwd.code_units().collect::<Vec<u16>>())
        }
        _ => "_no-cwd".to_owned(),
    };
    let mut name = match version {
        0 => "session.jsonl".to_owned(),
        v => format!("session.v{v}.jsonl"),
    };
    if encoding == crate::load::Encoding::Zstd {
        name.push_str(".zstd");
    }
    let id: Vec<u16> = id.code_units().collect();
    root.join(project)
        .join(encode_segment_units(&id))
        .join(name)
}

/// True when `path` exists, or a session directory named as its own holds a log in any
/// project of `root` (DSH refuses a root that holds one id twice, FORMAT.md §7.1).
pub fn taken(path: &std::path::Path, root: &std::path::Path) -> bool {
    if path.exists() {
        return true;
    }
    let Some(session_dir) = path.parent().and_then(std::path::Path::file_name) else {
        return false;
    };
    let holds_a_log = |dir: std::path::PathBuf| {
        std::fs::read_dir(dir).is_ok_and(|files| {
            files
                .flatten()
                .any(|f| generation_of_path(&f.path()).is_some())
        })
    };
    std::fs::read_dir(root).is_ok_and(|dirs| {
        dirs.flatten()
            .any(|d| holds_a_log(d.path().join(session_dir)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_cwd_of_either_platform() {
        for cwd in [
            "/home/ana/proj",
            "/",
            r"C:\DEV\TOLIK_Harness",
            "C:/DEV/TOLIK_Harness",
            r"d:\dsh",
            r"\\server\share\x",
            r"\\?\C:\x",
            r"\x",
            "//server/share",
        ] {
            assert!(is_absolute_cwd(cwd), "{cwd:?} is absolute");
            assert_eq!(
                is_windows_cwd(cwd),
                !cwd.starts_with('/'),
                "{cwd:?} is absolute on Windows only unless it starts with /"
            );
        }
        for cwd in [
            "", "C:x", "C:", r"x\y", "./x", "x/y", ".", "1:\\x", "~/proj", "é:/x",
        ] {
            assert!(!is_absolute_cwd(cwd), "{cwd:?} is relative");
            assert!(!is_windows_cwd(cwd), "{cwd:?} is relative on Windows too");
        }
    }

    #[test]
    fn windows_project_keys() {
        assert_eq!(
            project_key(r"C:\DEV\TOLIK_Harness"),
            "--C-DEV-TOLIK_Harness--"
        );
        assert_eq!(
            project_key("C:/DEV/TOLIK_Harness"),
            "--C-DEV-TOLIK_Harness--"
        );
        assert_eq!(project_key(r"\\server\share\x"), "--server-share-x--");
        assert_eq!(project_key(r"\\?\C:\x"), "--~003F-C-x--");
    }

    #[test]
    fn examples_from_the_format_reference() {
        assert_eq!(project_key("/home/ana/proj"), "--home-ana-proj--");
        assert_eq!(project_key("C:\\work\\agent"), "--C-work-agent--");
        assert_eq!(project_key("/"), "--root--");
        assert_eq!(project_key("/开发/~agent"), "--~5F00~53D1-~007Eagent--");
        assert_eq!(encode_segment("s-01"), "s-01");
        assert_eq!(encode_segment("a/b"), "a~002Fb");
        assert_eq!(encode_segment("a~b"), "a~007Eb");
        assert_eq!(encode_segment(".."), "~002E~002E");
        assert_eq!(encode_segment_units(&[0x73, 0xD800]), "s~D800");
    }
}

pub use crate::load::log_name::is_session_file_name;

/// The generation a canonical log file name stands for: `session.jsonl[.zstd]` is v0,
/// `session.vN.jsonl[.zstd]` is vN (GENERATIONS §1.1); `None` for any other name.
pub fn generation_of_path(path: &std::path::Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    if !is_session_file_name(name) {
        return None;
    }
    let stem = name
        .strip_suffix(".zstd")
        .unwrap_or(name)
        .strip_suffix(".jsonl")?;
    match stem.strip_prefix("session.v") {
        Some(n) => n.parse().ok(),
        None => Some(0),
    }
}

/// What a log's path says before a byte of it is read (FORMAT.md §7.1, GENERATIONS §1.1):
/// the generation its file name stands for, and where it sits in a DSH root. The checks
/// read these facts ([`crate::check::header`]); only the load layer looks at paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogPlace {
    /// The generation the file name stands for ([`generation_of_path`]).
    pub generation: Option<u64>,
    /// Where the file sits in a DSH root, when it does.
    pub in_root: Option<InRoot>,
}

/// A session file inside a DSH root: `<root>/<project>/<session>/<name>`, its project
/// directory spelled `--…--` or `_no-cwd` (§7.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InRoot {
    /// The project directory's name.
    pub project: String,
    /// The session directory's name.
    pub session: String,
    /// The file name (`session.jsonl`, `session.v2.jsonl.zstd` …).
    pub name: String,
}

impl LogPlace {
    /// What `path` says: its generation and its place in a DSH root (none for `-`, a loose
    /// file, or a name that is not a session file name).
    pub fn of(path: &std::path::Path) -> LogPlace {
        LogPlace {
            generation: generation_of_path(path),
            in_root: in_root(path),
        }
    }
}

fn in_root(path: &std::path::Path) -> Option<InRoot> {
    let name = path.file_name()?.to_str()?;
    if !is_session_file_name(name) {
        return None;
    }
    let session_dir = path.parent()?;
    let project_dir = session_dir.parent()?;
    let project = project_dir.file_name()?.to_str()?;
    let in_store = project == "_no-cwd"
        || (project.len() >= 4 && project.starts_with("--") && project.ends_with("--"));
    if !in_store {
        return None;
    }
    Some(InRoot {
        project: project.to_owned(),
        session: session_dir.file_name()?.to_str()?.to_owned(),
        name: name.to_owned(),
    })
}

/// DSH's sessions root in the home directory, `~/.dsh/sessions` (FORMAT.md §7.1), whether
/// it exists or not (`statusline` names it); `None` when no home directory is known.
pub fn dsh_root() -> Option<std::path::PathBuf> {
    Some(
        directories::BaseDirs::new()?
            .home_dir()
            .join(".dsh")
            .join("sessions"),
    )
}

/// DSH's default sessions root ([`dsh_root`]) when it is a directory: what every walking
/// command (validate, stats, index, search, sessions, tui, mcp) reads when it is given no
/// path, the one place that says so.
pub fn default_root() -> Option<std::path::PathBuf> {
    dsh_root().filter(|root| root.is_dir())
}

/// Whether the file at `path` starts with a DSH session header (FORMAT.md §6.3): its first
/// line (after zstd's first frame for a `.zstd` name; at most [`HEADER_BYTES`] read) is a
/// JSON object with `"type": "session"`, a string `id` and a number `createdAt`. Another
/// harness's `session` line (pi's, with `timestamp` and no `createdAt`) is not one. Only the
/// first line is read; a file that cannot be read is not one.
pub fn has_dsh_header(path: &std::path::Path) -> bool {
    use std::io::{BufRead, Read};
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let zstd = path.to_string_lossy().ends_with(".zstd");
    let reader: Box<dyn Read> = if zstd {
        match zstd::stream::read::Decoder::new(file) {
            Ok(d) => Box::new(d.single_frame()),
            Err(_) => return false,
        }
    } else {
        Box::new(file)
    };
    let mut line = Vec::new();
    let mut reader = std::io::BufReader::new(reader.take(HEADER_BYTES));
    if reader.read_until(b'\n', &mut line).is_err() {
        return false;
    }
    is_dsh_header_line(&line)
}

/// The most [`has_dsh_header`] reads of a file's first line: a header is a few hundred bytes.
pub const HEADER_BYTES: u64 = 64 * 1024;

/// Whether `line` (one line, its `\n` or not) is a DSH session header: a JSON object with
/// `"type": "session"`, a string `id` and a number `createdAt` (§6.3), read by the project's
/// JSON layer as `JSON.parse` reads it (the last of repeated keys counts).
pub fn is_dsh_header_line(line: &[u8]) -> bool {
    use crate::json::{Json, Kind};
    let Some(header) = std::str::from_utf8(line)
        .ok()
        .and_then(|text| Json::parse(text).ok())
    else {
        return false;
    };
    header.kind() == Kind::Object
        && header.get("type").is_some_and(|t| t.str_eq("session"))
        && header.get("id").is_some_and(|i| i.kind() == Kind::String)
        && header
            .get("createdAt")
            .is_some_and(|c| c.kind() == Kind::Number)
}

/// The note a walk gives for a directory in which `count` files ending in `.jsonl` or
/// `.jsonl.zstd` did not start with a DSH session header: one line, never an error, the
/// same whichever command walked.
pub fn not_dsh_note(dir: &std::path::Path, count: usize) -> String {
    format!(
        "{}: {} not DSH (ending in .jsonl or .jsonl.zstd, no DSH session header on the first line): not read; name one to read it anyway",
        dir.display(),
        crate::wording::count(count as u64, "file")
    )
}

/// Expands directories into the session logs and SQLite stores below them (§7.1), sorted;
/// files are kept as given. A directory walk takes DSH's log names
/// ([`is_session_file_name`]), SQLite stores, and any other `*.jsonl` / `*.jsonl.zstd` whose
/// first line is a DSH session header ([`has_dsh_header`]: logs copied under names of
/// their own, like `capital-generation.session.v4.jsonl`); the other such files are counted
/// as not DSH, in one note per directory given ([`not_dsh_note`]). A session directory
/// whose highest generation is there in both encodings is given as the directory itself:
/// no log of it is current, and reading it ([`current_generation`]) says why. Symbolic
/// links are followed, and a link loop is reported in `skipped` instead of walked twice;
/// so are frozen predecessors of a later generation and what DSH leaves beside a log
/// ([`crate::load::leftovers`]). Every command that walks (validate, stats, index, search,
/// sessions, tui, mcp) walks with this, so they report the same notes.
pub fn discover(inputs: &[std::path::PathBuf]) -> (Vec<std::path::PathBuf>, Vec<String>) {
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let walk = walk_dir(input);
            found.extend(walk.found);
            skipped.extend(walk.skipped);
        } else {
            found.push(input.clone());
        }
    }
    (found, skipped)
}

/// What [`discover`] takes from one directory given, and what that depends on besides the
/// names of the files: the directories listed and the files judged by their first bytes.
/// The search index keeps it and walks again only when one of those changed
/// ([`crate::index::Index::update`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirWalk {
    /// The logs, stores and conflicted session directories taken, in [`discover`]'s order.
    pub found: Vec<std::path::PathBuf>,
    /// What was passed over, one line each, in [`discover`]'s order.
    pub skipped: Vec<String>,
    /// Every directory listed, the one given first (links followed, as walked): a file
    /// added to one, removed or renamed changes its modification time.
    pub dirs: Vec<std::path::PathBuf>,
    /// The files taken or passed over by what they hold rather than by their name: files
    /// named as SQLite stores, and other `*.jsonl` / `*.jsonl.zstd` ([`has_dsh_header`]).
    pub judged: Vec<std::path::PathBuf>,
    /// Whether something could not be listed or a link looped (`skipped` says which): such
    /// a walk is not one to keep.
    pub failed: bool,
}

/// [`discover`] of one directory.
pub fn walk_dir(input: &std::path::Path) -> DirWalk {
    let mut walk = DirWalk::default();
    let mut here: Vec<std::path::PathBuf> = Vec::new();
    // Files under other names are taken when they start with a DSH header.
    let mut not_dsh = 0usize;
    for entry in walkdir::WalkDir::new(input).follow_links(true) {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                walk.failed = true;
                walk.skipped
                    .push(format!("{}: skipped", walk_error(&e, input)));
                continue;
            }
        };
        if entry.file_type().is_dir() {
            walk.dirs.push(entry.into_path());
            continue;
        }
        if !entry.file_type().is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        let named_store = crate::load::store_file::has_store_extension(entry.path());
        if named_store {
            walk.judged.push(entry.path().to_path_buf());
        }
        if is_session_file_name(&name)
            || (named_store && crate::load::store_file::looks_like_store(entry.path()))
        {
            here.push(entry.into_path());
        } else if let Some(kind) = crate::load::leftovers::leftover(&name) {
            walk.skipped.push(kind.note(entry.path()));
        } else if name.ends_with(".jsonl") || name.ends_with(".jsonl.zstd") {
            walk.judged.push(entry.path().to_path_buf());
            if has_dsh_header(entry.path()) {
                here.push(entry.into_path());
            } else {
                not_dsh += 1;
            }
        }
    }
    if not_dsh > 0 {
        walk.skipped.push(not_dsh_note(input, not_dsh));
    }
    here.sort();
    // Only the highest generation of a session directory is current (GENERATIONS §1.1).
    let mut highest: std::collections::HashMap<Option<&std::path::Path>, u64> =
        std::collections::HashMap::new();
    for p in &here {
        if let Some(n) = generation_of_path(p) {
            let top = highest.entry(p.parent()).or_insert(n);
            *top = (*top).max(n);
        }
    }
    let (current, superseded): (Vec<&std::path::PathBuf>, Vec<&std::path::PathBuf>) = here
        .iter()
        .partition(|p| generation_of_path(p).is_none_or(|n| highest.get(&p.parent()) == Some(&n)));
    for p in superseded {
        walk.skipped.push(format!(
            "{}: not checked: a frozen predecessor of a later generation in its session directory (DSH reads only the highest)",
            p.display()
        ));
    }
    // The highest generation in both encodings: no single log is current, so the session
    // directory itself is given, and its reader reports the conflict as `show DIR` does
    // ([`current_generation`]).
    let mut per_dir: std::collections::HashMap<Option<&std::path::Path>, usize> =
        std::collections::HashMap::new();
    for p in current.iter().filter(|p| generation_of_path(p).is_some()) {
        *per_dir.entry(p.parent()).or_default() += 1;
    }
    let mut conflicted = std::collections::BTreeSet::new();
    for p in current {
        match p.parent() {
            Some(dir) if per_dir.get(&Some(dir)).is_some_and(|&n| n > 1) => {
                conflicted.insert(dir.to_path_buf());
            }
            _ => walk.found.push(p.clone()),
        }
    }
    walk.found.extend(conflicted);
    walk
}

/// Why a session directory names no single log (§7.1, GENERATIONS §1.1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionDirError {
    /// The directory could not be listed; the I/O error's text.
    #[error("cannot list the directory: {0}")]
    Unreadable(String),
    /// No `session.jsonl`, `session.vN.jsonl` or `.zstd` twin in the directory.
    #[error(
        "no session log in this directory (DSH names it session.jsonl or session.vN.jsonl, either with .zstd); for a JSONL root or a tree of logs use `dsh-session validate` or `dsh-session sessions`"
    )]
    NoLog,
    /// The highest generation is present in both encodings: one root holds one encoding
    /// (§7.1), so DSH refuses the directory. The two file names.
    #[error(
        "{0} and {1} are the same generation in both encodings; a DSH root holds one encoding (§7.1): name the file to read"
    )]
    BothEncodings(String, String),
}

/// The log DSH reads from a session directory: its highest canonical generation
/// (`session.vN.jsonl[.zstd]`, `session.jsonl[.zstd]` being v0; GENERATIONS §1.1), as
/// `validate DIR` picks it. Lower generations are frozen predecessors and are not read.
///
/// Errors: the directory cannot be listed, holds no canonical log, or holds its highest
/// generation in both encodings.
pub fn current_generation(dir: &std::path::Path) -> Result<std::path::PathBuf, SessionDirError> {
    let entries = std::fs::read_dir(dir).map_err(|e| SessionDirError::Unreadable(e.to_string()))?;
    let mut logs: Vec<(u64, std::path::PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter_map(|p| generation_of_path(&p).map(|n| (n, p)))
        .collect();
    logs.sort();
    let (top, path) = logs.pop().ok_or(SessionDirError::NoLog)?;
    if let Some((n, twin)) = logs.last()
        && *n == top
    {
        let name = |p: &std::path::Path| {
            p.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        };
        return Err(SessionDirError::BothEncodings(name(twin), name(&path)));
    }
    Ok(path)
}

/// The canonical log files in the directory of `path`, other than `path`, with their
/// generations, sorted by generation: what `show` and `version` list as predecessors or as
/// the current generation.
pub fn generations_beside(path: &std::path::Path) -> Vec<(u64, std::path::PathBuf)> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(u64, std::path::PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.file_name() != path.file_name())
        .filter_map(|p| generation_of_path(&p).map(|n| (n, p)))
        .collect();
    out.sort();
    out
}

/// How a canonical log file beside a log stands to it (GENERATIONS §1.1, FORMAT.md §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sibling {
    /// A lower generation than the log's (or, beside a log under another name, lower than
    /// the directory's highest): frozen, DSH does not read it.
    Predecessor,
    /// A higher generation; `read` when it is the directory's highest, the one DSH reads.
    Later {
        /// True for the directory's highest generation.
        read: bool,
    },
    /// The same generation in the other encoding (`session.jsonl` beside
    /// `session.jsonl.zstd`): a conflict, as one root holds one encoding (§7.1).
    OtherEncoding,
    /// The directory's highest generation beside a log whose own name is not a DSH log
    /// name (`mylog.v3.jsonl`): DSH reads that one and never this.
    ReadInstead,
}

impl Sibling {
    /// The relation in words, as `show` and `version` print it after the file.
    pub fn describe(self) -> &'static str {
        match self {
            Sibling::Predecessor => "frozen predecessor",
            Sibling::Later { read: true } => "later generation: DSH reads that one, not this",
            Sibling::Later { read: false } => "later generation, itself superseded",
            Sibling::OtherEncoding => {
                "same generation in the other encoding: a DSH root holds one encoding, FORMAT.md §7.1"
            }
            Sibling::ReadInstead => {
                "DSH reads that one: this file's name is not a DSH log name like session.vN.jsonl"
            }
        }
    }
}

/// [`generations_beside`] `path`, each with how it stands to `path`: only a higher
/// generation is later, the same generation is the other encoding, and beside a file under
/// another name only the highest generation is the one DSH reads.
pub fn siblings(path: &std::path::Path) -> Vec<(u64, std::path::PathBuf, Sibling)> {
    let beside = generations_beside(path);
    let highest = beside.iter().map(|(n, _)| *n).max().unwrap_or(0);
    let current = generation_of_path(path);
    beside
        .into_iter()
        .map(|(n, other)| {
            let relation = match current {
                Some(c) if n < c => Sibling::Predecessor,
                Some(c) if n == c => Sibling::OtherEncoding,
                Some(_) => Sibling::Later { read: n == highest },
                None if n == highest => Sibling::ReadInstead,
                None => Sibling::Predecessor,
            };
            (n, other, relation)
        })
        .collect()
}

#[cfg(test)]
mod names {
    use super::is_session_file_name;

    #[test]
    fn canonical_generation_names() {
        for ok in [
            "session.jsonl",
            "session.jsonl.zstd",
            "session.v3.jsonl",
            "session.v12.jsonl.zstd",
        ] {
            assert!(is_session_file_name(ok), "{ok}");
        }
        for no in [
            "session.v0.jsonl",
            "session.v03.jsonl",
            "Session.jsonl",
            "session.jsonl.tmp",
            "x.jsonl",
            "session.V3.jsonl",
        ] {
            assert!(!is_session_file_name(no), "{no}");
        }
    }
}

/// A directory walk's error in the tool's words, naming the path: a symbolic link back to a
/// directory above it (a loop), or what reading failed with.
fn walk_error(e: &walkdir::Error, input: &std::path::Path) -> String {
    let path = e.path().unwrap_or(input).display();
    match (e.loop_ancestor(), e.io_error()) {
        (Some(ancestor), _) => format!(
            "{path}: a link back to {} above it (a directory loop)",
            ancestor.display()
        ),
        (None, Some(io)) => format!("{path}: {}", crate::wording::io_error(io)),
        (None, None) => format!("{path}: {e}"),
    }
}
