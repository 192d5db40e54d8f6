//! `follow PATH`: what happens in a live log, as it is appended (issue 19).
//!
//! Each followed log has a [`Tail`] (the bytes, frames or rows that arrived, per encoding),
//! a [`Live`] scan (the checks and the fold, kept across polls) and a [`Follow`] view (the
//! happenings). The loop wakes on a file notification (`notify`) or every `--poll-ms`,
//! whichever comes first; a poll that finds nothing new costs a `stat`.

mod tail;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use dsh_session::load::layout::{SessionDirError, current_generation, discover};
use dsh_session::load::{Encoding, Line};
use dsh_session::rules::{Class, Finding, Rule};
use dsh_session::scan::ScanOptions;
use dsh_session::scan::live::Live;
use dsh_session::view::View;
use dsh_session::view::follow::{Follow, Happening};
use serde_json::{Value, json};

use crate::cli::{FollowArgs, FollowFormat};
use crate::render::{FindingJson, place};
use tail::{InFlight, PlainTail, Polled, SqliteTail, Tail, ZstdTail};

/// A root is re-listed at least every this many polls, notified or not.
const LIST_EVERY: u64 = 20;

/// Version of the JSON objects `follow --format jsonl` prints.
pub const SCHEMA_VERSION: u32 = 1;

/// Where happenings are printed, and what was printed.
struct Printer<'a> {
    out: &'a mut dyn Write,
    format: FollowFormat,
    /// Prefix each text line with its log (following a root).
    prefixed: bool,
    /// A corrupt or refused finding was printed.
    failed: bool,
    /// The columns a `said` line may take ([`said_width`], read once).
    said_width: usize,
}

impl Printer<'_> {
    /// Prints one happening: `text` for people, `object` (without the common fields) for
    /// machines.
    fn print(
        &mut self,
        log: &str,
        session: Option<&str>,
        kind: &str,
        text: &str,
        object: Value,
    ) -> Result<()> {
        match self.format {
            FollowFormat::Text => {
                if self.prefixed {
                    writeln!(self.out, "{log}: {text}")?;
                } else {
                    writeln!(self.out, "{text}")?;
                }
            }
            FollowFormat::Jsonl => {
                let mut line = json!({
                    "schema_version": SCHEMA_VERSION,
                    "kind": kind,
                    "file": log,
                    "session": session,
                });
                if let (Some(line), Value::Object(fields)) = (line.as_object_mut(), object) {
                    line.extend(fields);
                }
                serde_json::to_writer(&mut *self.out, &line)?;
                writeln!(self.out)?;
            }
        }
        Ok(())
    }
}

/// A duration for people: `450 ms`, `1.2 s`, `3 min 5 s`.
fn duration(ms: i64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

/// One log being followed.
struct Followed {
    /// The log file (for a session directory, its current generation).
    path: PathBuf,
    /// How the log is named in the output.
    shown: String,
    /// The session directory whose generations are watched, when one was given or found.
    dir: Option<PathBuf>,
    sqlite_session: Option<String>,
    encoding: Encoding,
    tail: Box<dyn Tail>,
    live: Live,
    view: Follow,
    /// Since when a line or frame has been in flight, and whether it was reported.
    in_flight: Option<(InFlight, Instant, bool)>,
    defect_reported: bool,
    /// The load stopped (a finding, or a framing finding of the tail).
    stopped: bool,
    warnings_seen: usize,
    lines: Vec<Line>,
}

/// What following needs from the command line.
#[derive(Clone, Copy)]
struct Settings {
    provider: Option<dsh_session::provider::Provider>,
    settle: Duration,
    /// Print what is said (not `--no-text`), and reasoning (`--reasoning`).
    texts: bool,
    reasoning: bool,
}

fn options(session: Option<String>) -> ScanOptions {
    // Memory O(surface): the live fold keeps no messages, previews or shadowed entries.
    ScanOptions {
        session,
        // A live log is judged as its writer reads it: the frozen edges of DSH 0.1.5 and
        // later apply when such a DSH opens the log, which `validate` says.
        dsh: dsh_session::edge::Judge {
            line: dsh_session::edge::DshLine::Writer,
            both_lines: false,
        },
        ..ScanOptions::default()
    }
}

/// The encoding of the log at `path`, from its first bytes (or its name, while empty).
fn encoding_of(path: &Path) -> Encoding {
    let mut head = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = std::io::Read::read_to_end(&mut std::io::Read::take(file, 16), &mut head);
    }
    // An empty file with a store's name is a store still being created.
    if head.is_empty() && dsh_session::load::store_file::has_store_extension(path) {
        Encoding::Sqlite
    } else {
        Encoding::detect(&head, path)
    }
}

impl Followed {
    fn open(
        path: &Path,
        shown: String,
        dir: Option<PathBuf>,
        session: Option<String>,
        settings: Settings,
    ) -> Self {
        let encoding = encoding_of(path);
        let tail: Box<dyn Tail> = match encoding {
            Encoding::Plain => Box::new(PlainTail::new(path)),
            Encoding::Zstd => Box::new(ZstdTail::new(path)),
            Encoding::Sqlite => Box::new(SqliteTail::new(path, session.clone())),
        };
        Followed {
            path: path.to_path_buf(),
            shown,
            dir,
            tail,
            live: Live::new(path, encoding, options(session.clone())),
            sqlite_session: session,
            encoding,
            view: {
                let mut view = Follow::new(settings.provider);
                view.texts = settings.texts;
                view.reasoning = settings.reasoning;
                view
            },
            in_flight: None,
            defect_reported: false,
            stopped: false,
            warnings_seen: 0,
            lines: Vec::new(),
        }
    }

    /// Starts over on the same path (a reread, or a new generation at `path`).
    fn restart(&mut self, path: &Path, settings: Settings) {
        let fresh = Followed::open(
            path,
            self.shown.clone(),
            self.dir.clone(),
            self.sqlite_session.clone(),
            settings,
        );
        *self = fresh;
    }

    fn session(&self) -> Option<String> {
        self.live.report().session.clone()
    }

    /// Reads what arrived and prints what happened (`quiet`: read, print nothing but
    /// findings, for the content present at start or after a reread).
    fn poll(&mut self, printer: &mut Printer<'_>, settings: Settings, quiet: bool) -> Result<()> {
        // One bounded chunk at a time, so that catching up with a large log holds a chunk.
        loop {
            self.poll_once(printer, settings, quiet)?;
            if self.stopped || !self.tail.behind() {
                return Ok(());
            }
        }
    }

    /// One poll of the tail: at most one chunk.
    fn poll_once(
        &mut self,
        printer: &mut Printer<'_>,
        settings: Settings,
        quiet: bool,
    ) -> Result<()> {
        let polled = self
            .tail
            .poll(&mut self.lines)
            .with_context(|| self.path.display().to_string())?;
        match polled {
            Polled::Reread(why) => {
                let path = self.path.clone();
                let text = format!("reread: {why}; reading it from the start");
                let session = self.session();
                printer.print(
                    &self.shown,
                    session.as_deref(),
                    "reread",
                    &text,
                    json!({ "reason": why }),
                )?;
                self.restart(&path, settings);
                // What the file holds now was (mostly) seen before: sum it up, then follow.
                return self.catch_up(printer, settings, true);
            }
            Polled::Finding(f) if !self.stopped => {
                self.stopped = true;
                self.finding(printer, &f)?;
            }
            Polled::Finding(_) | Polled::Same | Polled::New => {}
        }
        if !self.live.header_read()
            && let Some(backend) = self.tail.backend()
        {
            self.live = Live::sqlite(&self.path, options(self.sqlite_session.clone()), backend);
        }
        if !self.lines.is_empty() && !self.stopped {
            // Quiet, nothing is printed: what counts as reported is what the provider's
            // rules find at the last turn end, so they run once, there (at every turn end
            // they would cost the surface times the turns).
            self.view.deferring = quiet;
            let split = if quiet {
                last_turn_end(&self.lines).map_or(0, |k| k + 1)
            } else {
                self.lines.len()
            };
            let mut lines = std::mem::take(&mut self.lines);
            let (through_turn_end, rest) = lines.split_at(split);
            self.push(through_turn_end);
            self.view.check_provider(&self.live.report().replay);
            self.push(rest);
            lines.clear();
            self.lines = lines;
            let happenings = std::mem::take(&mut self.view.happenings);
            if !quiet {
                for happening in &happenings {
                    self.happening(printer, happening)?;
                }
            }
            self.new_warnings(printer)?;
            if let Some(f) = self.live.finding().cloned() {
                self.stopped = true;
                self.finding(printer, &f)?;
            }
            self.defect(printer)?;
        }
        self.lines.clear();
        self.wait_in_flight(printer, settings)
    }

    /// Hands `lines` (read from the log) to the live scan and its view.
    fn push(&mut self, lines: &[Line]) {
        if !lines.is_empty() {
            let mut views: [&mut dyn View; 1] = [&mut self.view];
            self.live.push(lines, &mut views);
        }
    }

    /// Reads what the log holds now (`quiet`: printing only findings) and sums it up.
    fn catch_up(
        &mut self,
        printer: &mut Printer<'_>,
        settings: Settings,
        quiet: bool,
    ) -> Result<()> {
        self.poll(printer, settings, quiet)?;
        self.summary(printer, "session")
    }

    /// A finding as this log places it: a SQLite store has rows, not lines.
    fn placed(&self, f: &Finding) -> Finding {
        let mut f = f.clone();
        if self.encoding == Encoding::Sqlite {
            f.line_to_row();
        }
        f
    }

    /// A DSH finding (or a warning) as `validate` words it.
    fn finding(&mut self, printer: &mut Printer<'_>, f: &Finding) -> Result<()> {
        let f = self.placed(f);
        let status = crate::cmd::rules::class_name(f.class);
        printer.failed |= matches!(f.class, Class::Refused | Class::Corrupt | Class::Foreign);
        let text = format!("{status} {f}");
        let object = with_status(FindingJson::from(&f), status)?;
        let session = self.session();
        printer.print(&self.shown, session.as_deref(), "finding", &text, object)
    }

    fn new_warnings(&mut self, printer: &mut Printer<'_>) -> Result<()> {
        let report = self.live.report();
        let warnings: Vec<Finding> = report
            .warnings
            .iter()
            .chain(report.replay.warnings())
            .skip(self.warnings_seen)
            .cloned()
            .collect();
        self.warnings_seen += warnings.len();
        for w in warnings {
            self.finding(printer, &w)?;
        }
        Ok(())
    }

    /// The first uncommitted defect: in zstd frames it is corruption (Z7); in plain JSONL
    /// a torn tail DSH drops on load unless a `turn/end` follows (then J5 is reported).
    fn defect(&mut self, printer: &mut Printer<'_>) -> Result<()> {
        let Some(defect) = self
            .live
            .defect()
            .filter(|_| !self.defect_reported && !self.stopped)
        else {
            return Ok(());
        };
        self.defect_reported = true;
        if self.encoding == Encoding::Zstd {
            self.stopped = true;
            let message = format!(
                "complete frame contains a torn JSONL record: {}",
                defect.message
            );
            let f = Finding::new(
                dsh_session::rules::Rule::Z7,
                None,
                Some(defect.line),
                message,
            );
            return self.finding(printer, &f);
        }
        let sqlite = self.encoding == Encoding::Sqlite;
        let (rule, at) = if sqlite {
            ("Q8", "row")
        } else {
            ("J6", "line")
        };
        let text = format!(
            "torn-tail {rule} at {at} {}: {}; DSH drops it and what follows on load, unless a turn/end commits it (J5)",
            defect.line, defect.message
        );
        let session = self.session();
        let object = json!({ "rule": rule, "defect": defect.rule.id(), "line": defect.line, "message": defect.message });
        printer.print(&self.shown, session.as_deref(), "torn-tail", &text, object)
    }

    /// A line or frame in flight is waited for; after `--settle` it is reported once.
    fn wait_in_flight(&mut self, printer: &mut Printer<'_>, settings: Settings) -> Result<()> {
        let now = self.tail.in_flight().filter(|_| !self.stopped);
        self.in_flight = match (now, self.in_flight.take()) {
            (None, _) => None,
            (Some(f), Some((was, since, reported))) if f.offset == was.offset => {
                Some((f, since, reported))
            }
            (Some(f), _) => Some((f, Instant::now(), false)),
        };
        let Some((f, since, reported)) = &mut self.in_flight else {
            return Ok(());
        };
        if *reported || since.elapsed() < settings.settle {
            return Ok(());
        }
        *reported = true;
        let what = match f.rule {
            Rule::Z3 => "the file ends inside a zstd frame",
            Rule::J1 => "the header line has no newline",
            _ => "the final line has no newline",
        };
        let text = format!(
            "torn-tail {} at line {}: {what} after {} s ({} at byte offset {}); DSH drops it on load unless it is completed",
            f.rule,
            f.line,
            settings.settle.as_secs_f64(),
            dsh_session::wording::count(f.bytes, "byte"),
            f.offset
        );
        let object =
            json!({ "rule": f.rule.id(), "line": f.line, "offset": f.offset, "bytes": f.bytes });
        let session = self.session();
        printer.print(&self.shown, session.as_deref(), "torn-tail", &text, object)
    }

    /// One line saying what the log holds so far.
    fn summary(&self, printer: &mut Printer<'_>, kind: &str) -> Result<()> {
        let report = self.live.report();
        let era = report.era.map(|e| e.name()).unwrap_or("unknown");
        let open = report.open_turn.open_turn.is_some();
        let turn = if open { ", a turn open" } else { "" };
        let verb = if kind == "session" {
            "following"
        } else {
            "stopped following"
        };
        // Following a root, every line already starts with the log's name.
        let what = if printer.prefixed {
            format!("{verb},")
        } else {
            format!("{verb} {}:", self.shown)
        };
        let text = format!(
            "{what} {} so far, surface {}, {era}{turn}",
            dsh_session::wording::count(report.events, "event"),
            report.replay.len()
        );
        let object = json!({
            "events": report.events,
            "surface_len": report.replay.len(),
            "era": report.era.map(|e| e.name()),
            "encoding": report.encoding.name(),
            "open_turn": open,
        });
        let session = self.session();
        printer.print(&self.shown, session.as_deref(), kind, &text, object)
    }

    fn happening(&self, printer: &mut Printer<'_>, happening: &Happening) -> Result<()> {
        let session = self.session();
        let at = |seq: u64, line: u64| {
            if self.encoding == Encoding::Sqlite {
                format!("seq {seq}")
            } else {
                format!("seq {seq}, line {line}")
            }
        };
        let (kind, text, object) = match happening {
            Happening::TurnStart { turn, seq, line } => (
                "turn-start",
                format!("turn {turn} started ({})", at(*seq, *line)),
                json!({ "turn": turn, "seq": seq, "line": line }),
            ),
            Happening::TurnEnd {
                turn,
                seq,
                line,
                reason,
                input_tokens,
                output_tokens,
                duration_ms,
            } => (
                "turn-end",
                format!(
                    "turn {turn} ended: {reason}, {input_tokens} input and {output_tokens} output tokens, {} ({})",
                    duration_ms.map_or_else(|| "duration unknown".to_owned(), duration),
                    at(*seq, *line)
                ),
                json!({ "turn": turn, "seq": seq, "line": line, "reason": reason, "input_tokens": input_tokens, "output_tokens": output_tokens, "duration_ms": duration_ms }),
            ),
            Happening::ToolCall {
                seq,
                line,
                call_id,
                name,
            } => (
                "tool-call",
                format!("tool call {name} ({call_id}, {})", at(*seq, *line)),
                json!({ "seq": seq, "line": line, "call_id": call_id, "name": name }),
            ),
            Happening::ToolResult {
                seq,
                line,
                call_id,
                name,
                error,
            } => (
                "tool-result",
                format!(
                    "tool result {}: {} ({call_id}, {})",
                    name.as_deref().unwrap_or("?"),
                    if *error { "error" } else { "ok" },
                    at(*seq, *line)
                ),
                json!({ "seq": seq, "line": line, "call_id": call_id, "name": name, "error": error }),
            ),
            Happening::Replacement {
                seq,
                line,
                ty,
                shadowed,
                surface_before,
                surface_after,
            } => (
                "replacement",
                format!(
                    "replacement by {ty} shadowed {}, surface {surface_before} -> {surface_after} ({})",
                    dsh_session::wording::count(*shadowed, "entry"),
                    at(*seq, *line)
                ),
                json!({ "seq": seq, "line": line, "type": ty, "shadowed": shadowed, "surface_len_before": surface_before, "surface_len_after": surface_after }),
            ),
            Happening::Said {
                seq,
                line,
                who,
                text,
            } => {
                let at = format!(" ({})", at(*seq, *line));
                let prefix = if printer.prefixed {
                    self.shown.chars().count() + 2
                } else {
                    0
                };
                let room = printer
                    .said_width
                    .saturating_sub(prefix + who.len() + 2 + at.len());
                (
                    "said",
                    format!(
                        "{who}: {}{at}",
                        dsh_session::derive::one_line(text, room.max(8))
                    ),
                    json!({ "seq": seq, "line": line, "who": who, "text": text }),
                )
            }
            Happening::Provider(f) => {
                let finding = FindingJson::from(&self.placed(f));
                let refused = finding
                    .refused_by
                    .as_ref()
                    .map(|r| format!(" [refused by {}]", r.join(", ")))
                    .unwrap_or_default();
                let text = format!(
                    "provider {}{}: {}{refused}",
                    finding.rule,
                    place(&finding),
                    finding.message
                );
                ("finding", text, with_status(finding, "provider")?)
            }
        };
        printer.print(&self.shown, session.as_deref(), kind, &text, object)
    }

    /// For a session directory: a higher generation appeared (DSH migrated the session).
    fn generation(&mut self, printer: &mut Printer<'_>, settings: Settings) -> Result<()> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        let Ok(current) = current_generation(dir) else {
            return Ok(());
        };
        if current == self.path {
            return Ok(());
        }
        let name = |p: &Path| {
            p.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        };
        let text = format!(
            "generation: {} replaces {} (DSH migrated the session); reading it from the start",
            name(&current),
            name(&self.path)
        );
        let object =
            json!({ "from": self.path.display().to_string(), "to": current.display().to_string() });
        let session = self.session();
        printer.print(&self.shown, session.as_deref(), "generation", &text, object)?;
        if !printer.prefixed {
            self.shown = current.display().to_string();
        }
        self.restart(&current, settings);
        self.catch_up(printer, settings, true)
    }
}

/// What PATH is.
enum Target {
    /// One log file (or a SQLite store's session).
    Log(PathBuf),
    /// A session directory: its current generation.
    SessionDir(PathBuf),
    /// A JSONL root: every session below it.
    Root(PathBuf),
}

fn target(path: &Path) -> Result<Target> {
    if path.as_os_str() == "-" {
        // A pipe can be neither re-read nor told apart from a log that stopped growing.
        anyhow::bail!("-: follow reads a file, a store or a directory, not standard input");
    }
    if !path.is_dir() {
        if !path.exists() {
            anyhow::bail!("{}: no such file or directory", path.display());
        }
        return Ok(Target::Log(path.to_path_buf()));
    }
    match current_generation(path) {
        Ok(_) => Ok(Target::SessionDir(path.to_path_buf())),
        Err(SessionDirError::NoLog) => Ok(Target::Root(path.to_path_buf())),
        Err(e) => Err(e).with_context(|| path.display().to_string()),
    }
}

/// The JSONL session logs below a root, current generations only.
fn sessions_below(root: &Path) -> Vec<PathBuf> {
    let (found, _) = discover(&[root.to_path_buf()], "follow");
    found
        .into_iter()
        .filter(|p| dsh_session::load::layout::generation_of_path(p).is_some())
        .collect()
}

/// `--session` on a JSONL log must name the session its header names, as for the other
/// readers ([`dsh_session::load::Input::lines`]); a store checks it when it is opened, and a
/// framing defect is reported by the follow as it lands.
fn named_session(log: &Path, session: &str) -> Result<()> {
    use dsh_session::load::{Input, Line, SourceError};
    let input = Input::open(log).with_context(|| log.display().to_string())?;
    let Ok(mut lines) = input.lines(Some(session)) else {
        return Ok(());
    };
    match lines.next_line(&mut Line::default()) {
        Err(SourceError::Session(what)) => Err(anyhow::anyhow!("{}: {what}", log.display())),
        _ => Ok(()),
    }
}

/// The columns a `said` line may take: the terminal's width on a terminal, else `$COLUMNS`,
/// else 160.
fn said_width() -> usize {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal()
        && let Ok((columns, _)) = crossterm::terminal::size()
    {
        return usize::from(columns);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(160)
}

/// Runs `follow` until Ctrl-C, SIGTERM or SIGHUP (exit 0 with a summary), a closed pipe (exit 0), or with
/// `--exit-on-finding` the first corrupt or refused finding (exit 1).
pub fn run(args: &FollowArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let settings = Settings {
        provider: args.provider.map(crate::cli::ProviderName::profile),
        // `inf` waits for ever; NaN and negative values do not wait.
        settle: Duration::try_from_secs_f64(args.settle.max(0.0)).unwrap_or(Duration::MAX),
        texts: !args.no_text,
        reasoning: args.reasoning,
    };
    let target = target(&args.path)?;
    if let (Target::Log(log), Some(session)) = (&target, &args.session) {
        named_session(log, session)?;
    }
    let mut printer = Printer {
        out,
        format: args.format,
        prefixed: matches!(target, Target::Root(_)),
        failed: false,
        said_width: said_width(),
    };
    let (wake, woken) = mpsc::channel::<bool>();
    let stop = Arc::new(AtomicBool::new(false));
    {
        let (stop, wake) = (stop.clone(), wake.clone());
        // Ctrl-C ends with a summary and exit 0; if a handler cannot be set (another one is
        // set in this process), Ctrl-C ends the process as usual.
        let _ = ctrlc::set_handler(move || {
            stop.store(true, Ordering::SeqCst);
            let _ = wake.send(false);
        });
    }
    // File notifications wake the loop at once; the poll interval is the fallback and
    // the safety net (a notification can be missed, or unsupported on the file system).
    let watch_at = match &target {
        Target::Log(p) => p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf(),
        Target::SessionDir(d) | Target::Root(d) => d.clone(),
    };
    let recursive = matches!(target, Target::Root(_));
    let watching = watcher(&watch_at, recursive, wake);
    let mut polls = 0u64;

    let mut followed: Vec<Followed> = Vec::new();
    let open = |path: &Path, dir: Option<PathBuf>| {
        Followed::open(
            path,
            path.display().to_string(),
            dir,
            args.session.clone(),
            settings,
        )
    };
    match &target {
        Target::Log(p) => followed.push(open(p, None)),
        Target::SessionDir(d) => {
            let log = current_generation(d).with_context(|| d.display().to_string())?;
            followed.push(open(&log, Some(d.clone())));
        }
        Target::Root(root) => {
            for log in sessions_below(root) {
                let dir = log.parent().map(Path::to_path_buf);
                followed.push(open(&log, dir));
            }
        }
    }
    // The content present at start: read, then one summary line per log (every
    // happening too with --from-start).
    for f in &mut followed {
        f.catch_up(&mut printer, settings, !args.from_start)?;
    }
    printer.out.flush()?;
    let poll_every = Duration::from_millis(args.poll_ms.max(10));
    loop {
        if args.exit_on_finding && printer.failed {
            return Ok(ExitCode::from(1));
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let mut listing = woken.recv_timeout(poll_every).unwrap_or(false);
        listing |= woken.try_iter().fold(false, |any, l| any | l);
        // A root is re-listed when a file was created or renamed under it, and every
        // LIST_EVERY polls in case a notification was missed (or there are none).
        polls += 1;
        if let Target::Root(root) = &target
            && (listing || watching.is_none() || polls.is_multiple_of(LIST_EVERY))
        {
            for log in sessions_below(root) {
                let dir = log.parent().map(Path::to_path_buf);
                let known = followed
                    .iter()
                    .any(|f| f.path == log || (f.dir.is_some() && f.dir == dir));
                if !known {
                    // A session created while following: all of it is new.
                    let f = open(&log, dir);
                    let text = "new session".to_owned();
                    printer.print(&f.shown, None, "session", &text, json!({ "new": true }))?;
                    followed.push(f);
                }
            }
        }
        for f in &mut followed {
            f.generation(&mut printer, settings)?;
            f.poll(&mut printer, settings, false)?;
        }
        printer.out.flush()?;
        if reader_gone() {
            // As on a failed write to a closed pipe: nothing more can be said, exit 0.
            return Ok(ExitCode::SUCCESS);
        }
    }
    for f in &followed {
        f.summary(&mut printer, "stopped")?;
    }
    printer.out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Whether standard output is a pipe or socket whose reader has gone (its write end polls
/// as an error or a hang-up). A quiet log may bring no write that would fail for a long
/// time, so `follow … | head -1` would otherwise outlive `head`; `tail -f` ends the same
/// way. `false` on a terminal, a file, and where the platform cannot tell.
#[cfg(unix)]
fn reader_gone() -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let out = std::io::stdout();
    let mut fds = [PollFd::new(&out, PollFlags::empty())];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&now)).is_ok_and(|ready| {
        ready > 0 && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
    })
}

#[cfg(not(unix))]
fn reader_gone() -> bool {
    false
}

/// A watcher that sends on `wake` whenever something changes under `at`; `None` where the
/// platform gives no notifications (polling alone then).
fn watcher(
    at: &Path,
    recursive: bool,
    wake: mpsc::Sender<bool>,
) -> Option<notify::RecommendedWatcher> {
    use notify::Watcher;
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        // A created or renamed file may be a new session or generation: worth a re-listing.
        let listing = event.is_ok_and(|e| {
            matches!(
                e.kind,
                notify::EventKind::Create(_)
                    | notify::EventKind::Modify(notify::event::ModifyKind::Name(_))
            )
        });
        let _ = wake.send(listing);
    })
    .ok()?;
    let mode = if recursive {
        notify::RecursiveMode::Recursive
    } else {
        notify::RecursiveMode::NonRecursive
    };
    watcher.watch(at, mode).ok()?;
    Some(watcher)
}

/// The index of the last line that is a `turn/end` record, if any (read from the end, so
/// only the lines after the last turn end and that one are parsed).
fn last_turn_end(lines: &[Line]) -> Option<usize> {
    lines.iter().rposition(|line| {
        std::str::from_utf8(&line.bytes)
            .ok()
            .and_then(|text| dsh_session::json::Json::parse(text).ok())
            .and_then(|record| record.get("type"))
            .is_some_and(|ty| ty.str_eq("turn/end"))
    })
}

/// A finding's JSON object with its `status` (its class, or `provider`).
fn with_status(finding: FindingJson, status: &str) -> Result<Value> {
    let mut object = serde_json::to_value(finding)?;
    if let Some(fields) = object.as_object_mut() {
        fields.insert("status".into(), json!(status));
    }
    Ok(object)
}
