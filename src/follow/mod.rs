//! Following live logs as they are appended (`follow`, issue 19): what happens in them,
//! told to a [`Printer`] as it lands.
//!
//! Each followed log has a [`tail::Tail`] (the bytes, frames or rows that arrived, per
//! encoding), a [`Live`] scan (the checks and the fold, kept across polls) and a
//! [`Follow`] view (the happenings). The loop ([`run`]) wakes on a file notification
//! (`notify`) or every poll interval, whichever comes first; a poll that finds nothing new
//! costs a `stat`.

pub mod tail;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::load::layout::{SessionDirError, current_generation, discover};
use crate::load::{Encoding, Line};
use crate::rules::{Class, Finding, Rule};
use crate::scan::ScanOptions;
use crate::scan::live::Live;
use crate::view::View;
use crate::view::follow::{Follow, Happening};
use tail::{InFlight, PlainTail, Polled, SqliteTail, Tail, ZstdTail};

/// A root is re-listed at least every this many polls, notified or not.
const LIST_EVERY: u64 = 20;

/// Why following could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    /// What was given cannot be followed (standard input, a path that does not exist, a
    /// store's session that is not the one named).
    #[error("{0}")]
    Given(String),
    /// A log or directory could not be read: its path, and why.
    #[error("{path}")]
    At {
        /// The log or directory.
        path: String,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The printer could not write.
    #[error(transparent)]
    Write(#[from] std::io::Error),
}

impl FollowError {
    fn at(path: &Path, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        FollowError::At {
            path: path.display().to_string(),
            source: source.into(),
        }
    }
}

/// The log something happened in, as the printer names it.
#[derive(Debug, Clone, Copy)]
pub struct Log<'a> {
    /// How the log is named (its path as given or found).
    pub shown: &'a str,
    /// The session's id, once its header was read.
    pub session: Option<&'a str>,
    /// A SQLite store: places are seqs and rows, not lines.
    pub sqlite: bool,
    /// Following a root: every line of text starts with the log's name.
    pub prefixed: bool,
}

/// What following tells, one line of output each.
#[derive(Debug)]
pub enum Said<'a> {
    /// The log content present at start (`session`) or at the end (`stopped`), summed up.
    Summary {
        /// `session` or `stopped`.
        kind: &'static str,
        /// Events read.
        events: u64,
        /// The surface's length.
        surface_len: usize,
        /// The log's era (generation), when known.
        era: Option<&'static str>,
        /// The log's encoding.
        encoding: &'static str,
        /// A turn is open.
        open_turn: bool,
    },
    /// A DSH finding or a warning, placed for the log (rows for a store).
    Finding(&'a Finding),
    /// A provider rule's finding at a turn end, placed for the log.
    Provider(&'a Finding),
    /// Something happened in the log.
    Happening(&'a Happening),
    /// The first uncommitted defect of a plain log or store: `rule` is J6 or Q8.
    Uncommitted {
        /// J6 (a line) or Q8 (a row).
        rule: &'static str,
        /// The defect.
        defect: &'a crate::scan::live::Defect,
    },
    /// A line or frame left in flight past the settle time.
    InFlight {
        /// What is held back.
        flight: InFlight,
        /// The settle time waited.
        settle: Duration,
    },
    /// The file must be read from the start again; why.
    Reread {
        /// Why, in words.
        why: &'a str,
    },
    /// A session directory's higher generation replaced the one followed.
    Generation {
        /// The log followed so far.
        from: &'a Path,
        /// Its successor.
        to: &'a Path,
    },
    /// A session created under the root while following.
    NewSession,
}

/// Where following tells what it sees: the front end's output.
pub trait Printer {
    /// Tells one thing said of `log`.
    ///
    /// # Errors
    /// A write error: following stops with it.
    fn say(&mut self, log: &Log<'_>, said: Said<'_>) -> std::io::Result<()>;

    /// Pushes out what was told (after each round of polls).
    ///
    /// # Errors
    /// A write error.
    fn flush(&mut self) -> std::io::Result<()>;

    /// The reader of the output has gone (a closed pipe): following ends quietly.
    fn reader_gone(&self) -> bool {
        false
    }
}

/// What to follow and how.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The provider whose rules run at each turn end (`--provider`).
    pub provider: Option<crate::provider::Provider>,
    /// How long a line or frame may stay in flight before it is told (`--settle`).
    pub settle: Duration,
    /// Tell what is said (not `--no-text`), and the reasoning (`--reasoning`).
    pub texts: bool,
    /// See `texts`.
    pub reasoning: bool,
    /// The session of a store (`--session`).
    pub session: Option<String>,
    /// Tell every happening of the content present at start (`--from-start`).
    pub from_start: bool,
    /// End at the first corrupt or refused finding (`--exit-on-finding`).
    pub exit_on_finding: bool,
    /// The poll interval (`--poll-ms`, at least 10 ms).
    pub poll_every: Duration,
}

/// How following ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Stopped (Ctrl-C, SIGTERM, SIGHUP) with a summary, or the reader went away.
    Stopped,
    /// `exit_on_finding` and a corrupt or refused finding was told.
    Finding,
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

/// The printer, what was told through it, and how to follow.
struct Out<'a> {
    printer: &'a mut dyn Printer,
    settings: &'a Settings,
    prefixed: bool,
    /// A corrupt or refused finding was told.
    failed: bool,
}

impl Out<'_> {
    fn say(&mut self, f: &Followed, said: Said<'_>) -> std::io::Result<()> {
        let session = f.session();
        let log = Log {
            shown: &f.shown,
            session: session.as_deref(),
            sqlite: f.encoding == Encoding::Sqlite,
            prefixed: self.prefixed,
        };
        self.printer.say(&log, said)
    }
}

fn options(session: Option<String>) -> ScanOptions {
    // Memory O(surface): the live fold keeps no messages, previews or shadowed entries.
    ScanOptions {
        session,
        // A live log is judged as its writer reads it: the frozen edges of DSH 0.1.5 and
        // later apply when such a DSH opens the log, which `validate` says.
        dsh: crate::edge::Judge {
            line: crate::edge::DshLine::Writer,
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
    if head.is_empty() && crate::load::store_file::has_store_extension(path) {
        Encoding::Sqlite
    } else {
        Encoding::detect(&head, path)
    }
}

/// The index of the last line that is a `turn/end` record, if any (read from the end, so
/// only the lines after the last turn end and that one are parsed).
fn last_turn_end(lines: &[Line]) -> Option<usize> {
    lines.iter().rposition(|line| {
        std::str::from_utf8(&line.bytes)
            .ok()
            .and_then(|text| crate::json::Json::parse(text).ok())
            .and_then(|record| record.get("type"))
            .is_some_and(|ty| ty.str_eq("turn/end"))
    })
}

impl Followed {
    fn open(path: &Path, dir: Option<PathBuf>, settings: &Settings) -> Self {
        let encoding = encoding_of(path);
        let session = settings.session.clone();
        let tail: Box<dyn Tail> = match encoding {
            Encoding::Plain => Box::new(PlainTail::new(path)),
            Encoding::Zstd => Box::new(ZstdTail::new(path)),
            Encoding::Sqlite => Box::new(SqliteTail::new(path, session.clone())),
        };
        Followed {
            path: path.to_path_buf(),
            shown: path.display().to_string(),
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

    /// Starts over on `path` (a reread, or a new generation at `path`), keeping its name.
    fn restart(&mut self, path: &Path, settings: &Settings) {
        let shown = std::mem::take(&mut self.shown);
        *self = Followed::open(path, self.dir.clone(), settings);
        self.shown = shown;
    }

    fn session(&self) -> Option<String> {
        self.live.report().session.clone()
    }

    /// Reads what arrived and tells what happened (`quiet`: read, tell nothing but
    /// findings, for the content present at start or after a reread).
    fn poll(&mut self, out: &mut Out<'_>, quiet: bool) -> Result<(), FollowError> {
        // One bounded chunk at a time, so that catching up with a large log holds a chunk.
        loop {
            self.poll_once(out, quiet)?;
            if self.stopped || !self.tail.behind() {
                return Ok(());
            }
        }
    }

    /// One poll of the tail: at most one chunk.
    fn poll_once(&mut self, out: &mut Out<'_>, quiet: bool) -> Result<(), FollowError> {
        let polled = self
            .tail
            .poll(&mut self.lines)
            .map_err(|e| FollowError::at(&self.path, e))?;
        match polled {
            Polled::Reread(why) => {
                out.say(self, Said::Reread { why: &why })?;
                let path = self.path.clone();
                self.restart(&path, out.settings);
                // What the file holds now was (mostly) seen before: sum it up, then follow.
                return self.catch_up(out, true);
            }
            Polled::Finding(f) if !self.stopped => {
                self.stopped = true;
                self.finding(out, &f)?;
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
                    self.happening(out, happening)?;
                }
            }
            self.new_warnings(out)?;
            if let Some(f) = self.live.finding().cloned() {
                self.stopped = true;
                self.finding(out, &f)?;
            }
            self.defect(out)?;
        }
        self.lines.clear();
        self.wait_in_flight(out)?;
        Ok(())
    }

    /// Hands `lines` (read from the log) to the live scan and its view.
    fn push(&mut self, lines: &[Line]) {
        if !lines.is_empty() {
            let mut views: [&mut dyn View; 1] = [&mut self.view];
            self.live.push(lines, &mut views);
        }
    }

    /// Reads what the log holds now (`quiet`: telling only findings) and sums it up.
    fn catch_up(&mut self, out: &mut Out<'_>, quiet: bool) -> Result<(), FollowError> {
        self.poll(out, quiet)?;
        self.summary(out, "session")?;
        Ok(())
    }

    /// A finding as this log places it: a SQLite store has rows, not lines.
    fn placed(&self, f: &Finding) -> Finding {
        let mut f = f.clone();
        if self.encoding == Encoding::Sqlite {
            f.line_to_row();
        }
        f
    }

    /// A DSH finding (or a warning).
    fn finding(&mut self, out: &mut Out<'_>, f: &Finding) -> std::io::Result<()> {
        let f = self.placed(f);
        out.failed |= matches!(f.class, Class::Refused | Class::Corrupt | Class::Foreign);
        out.say(self, Said::Finding(&f))
    }

    fn new_warnings(&mut self, out: &mut Out<'_>) -> std::io::Result<()> {
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
            self.finding(out, &w)?;
        }
        Ok(())
    }

    /// The first uncommitted defect: in zstd frames it is corruption (Z7); in plain JSONL
    /// a torn tail DSH drops on load unless a `turn/end` follows (then J5 is reported).
    fn defect(&mut self, out: &mut Out<'_>) -> std::io::Result<()> {
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
            let f = Finding::new(Rule::Z7, None, Some(defect.line), message);
            return self.finding(out, &f);
        }
        let rule = if self.encoding == Encoding::Sqlite {
            "Q8"
        } else {
            "J6"
        };
        out.say(
            self,
            Said::Uncommitted {
                rule,
                defect: &defect,
            },
        )
    }

    /// A line or frame in flight is waited for; after the settle time it is told once.
    fn wait_in_flight(&mut self, out: &mut Out<'_>) -> std::io::Result<()> {
        let now = self.tail.in_flight().filter(|_| !self.stopped);
        self.in_flight = match (now, self.in_flight.take()) {
            (None, _) => None,
            (Some(f), Some((was, since, reported))) if f.offset == was.offset => {
                Some((f, since, reported))
            }
            (Some(f), _) => Some((f, Instant::now(), false)),
        };
        let Some((flight, since, reported)) = &mut self.in_flight else {
            return Ok(());
        };
        if *reported || since.elapsed() < out.settings.settle {
            return Ok(());
        }
        *reported = true;
        let flight = *flight;
        out.say(
            self,
            Said::InFlight {
                flight,
                settle: out.settings.settle,
            },
        )
    }

    /// One line saying what the log holds so far (`kind`: `session` or `stopped`).
    fn summary(&self, out: &mut Out<'_>, kind: &'static str) -> std::io::Result<()> {
        let report = self.live.report();
        let said = Said::Summary {
            kind,
            events: report.events,
            surface_len: report.replay.len(),
            era: report.era.map(|e| e.name()),
            encoding: report.encoding.name(),
            open_turn: report.open_turn.open_turn.is_some(),
        };
        out.say(self, said)
    }

    fn happening(&self, out: &mut Out<'_>, happening: &Happening) -> std::io::Result<()> {
        match happening {
            Happening::Provider(f) => out.say(self, Said::Provider(&self.placed(f))),
            h => out.say(self, Said::Happening(h)),
        }
    }

    /// For a session directory: a higher generation appeared (DSH migrated the session).
    fn generation(&mut self, out: &mut Out<'_>) -> Result<(), FollowError> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        let Ok(current) = current_generation(dir) else {
            return Ok(());
        };
        if current == self.path {
            return Ok(());
        }
        out.say(
            self,
            Said::Generation {
                from: &self.path,
                to: &current,
            },
        )?;
        if !out.prefixed {
            self.shown = current.display().to_string();
        }
        self.restart(&current, out.settings);
        self.catch_up(out, true)
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

fn target(path: &Path) -> Result<Target, FollowError> {
    if path.as_os_str() == "-" {
        // A pipe can be neither re-read nor told apart from a log that stopped growing.
        return Err(FollowError::Given(
            "-: follow reads a file, a store or a directory, not standard input".into(),
        ));
    }
    if !path.is_dir() {
        if !path.exists() {
            return Err(FollowError::Given(format!(
                "{}: no such file or directory",
                path.display()
            )));
        }
        return Ok(Target::Log(path.to_path_buf()));
    }
    match current_generation(path) {
        Ok(_) => Ok(Target::SessionDir(path.to_path_buf())),
        Err(SessionDirError::NoLog) => Ok(Target::Root(path.to_path_buf())),
        Err(e) => Err(FollowError::at(path, e)),
    }
}

/// The JSONL session logs below a root, current generations only.
fn sessions_below(root: &Path) -> Vec<PathBuf> {
    let (found, _) = discover(&[root.to_path_buf()]);
    found
        .into_iter()
        .filter(|p| crate::load::layout::generation_of_path(p).is_some())
        .collect()
}

/// `--session` on a JSONL log must name the session its header names, as for the other
/// readers ([`crate::load::Input::lines`]); a store checks it when it is opened, and a
/// framing defect is reported by the follow as it lands.
fn named_session(log: &Path, session: &str) -> Result<(), FollowError> {
    use crate::load::{Input, SourceError};
    let input = Input::open(log).map_err(|e| FollowError::at(log, e))?;
    let Ok(mut lines) = input.lines(Some(session)) else {
        return Ok(());
    };
    match lines.next_line(&mut Line::default()) {
        Err(SourceError::Session(what)) => {
            Err(FollowError::Given(format!("{}: {what}", log.display())))
        }
        _ => Ok(()),
    }
}

/// Follows `path` (a log, a store's session, a session directory or a JSONL root) until
/// Ctrl-C, SIGTERM or SIGHUP (a summary per log, [`Ended::Stopped`]), the printer's reader
/// goes away ([`Ended::Stopped`]), or with `exit_on_finding` the first corrupt or refused
/// finding ([`Ended::Finding`]).
///
/// # Errors
/// [`FollowError`]: the path cannot be followed or read, or the printer cannot write.
pub fn run(
    path: &Path,
    settings: &Settings,
    printer: &mut dyn Printer,
) -> Result<Ended, FollowError> {
    let target = target(path)?;
    if let (Target::Log(log), Some(session)) = (&target, &settings.session) {
        named_session(log, session)?;
    }
    let mut out = Out {
        printer,
        settings,
        prefixed: matches!(target, Target::Root(_)),
        failed: false,
    };
    let (wake, woken) = mpsc::channel::<bool>();
    let stop = Arc::new(AtomicBool::new(false));
    {
        let (stop, wake) = (stop.clone(), wake.clone());
        // Ctrl-C ends with a summary; if a handler cannot be set (another one is set in
        // this process), Ctrl-C ends the process as usual.
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
    match &target {
        Target::Log(p) => followed.push(Followed::open(p, None, settings)),
        Target::SessionDir(d) => {
            let log = current_generation(d).map_err(|e| FollowError::at(d, e))?;
            followed.push(Followed::open(&log, Some(d.clone()), settings));
        }
        Target::Root(root) => {
            for log in sessions_below(root) {
                let dir = log.parent().map(Path::to_path_buf);
                followed.push(Followed::open(&log, dir, settings));
            }
        }
    }
    // The content present at start: read, then one summary line per log (every
    // happening too with `from_start`).
    for f in &mut followed {
        f.catch_up(&mut out, !settings.from_start)?;
    }
    out.printer.flush()?;
    loop {
        if settings.exit_on_finding && out.failed {
            return Ok(Ended::Finding);
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let mut listing = woken.recv_timeout(settings.poll_every).unwrap_or(false);
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
                    let f = Followed::open(&log, dir, settings);
                    let log = Log {
                        shown: &f.shown,
                        session: None,
                        sqlite: f.encoding == Encoding::Sqlite,
                        prefixed: out.prefixed,
                    };
                    out.printer.say(&log, Said::NewSession)?;
                    followed.push(f);
                }
            }
        }
        for f in &mut followed {
            f.generation(&mut out)?;
            f.poll(&mut out, false)?;
        }
        out.printer.flush()?;
        if out.printer.reader_gone() {
            // As on a failed write to a closed pipe: nothing more can be said.
            return Ok(Ended::Stopped);
        }
    }
    for f in &followed {
        f.summary(&mut out, "stopped")?;
    }
    out.printer.flush()?;
    Ok(Ended::Stopped)
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
