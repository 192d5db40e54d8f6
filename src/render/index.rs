//! The search index as every front end of it (index, search, sessions, tui, mcp) opens and
//! updates it, saying on standard error what it rebuilt, what it could not read and where
//! it found no logs; and `index`'s summary, as text or JSON.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use dsh_session::index::{Index, Progress, UpdateOptions, UpdateSummary};
use dsh_session::wording::count;
use serde::Serialize;

use crate::cli::{IndexLocation, TableFormat};

/// `index --format json` layout.
pub const SCHEMA_VERSION: u32 = 1;

/// A progress bar appears for an update that reads at least this much…
const PROGRESS_BYTES: u64 = 64_000_000;
/// …or this many files.
const PROGRESS_FILES: u64 = 500;

/// Opens the index `location` names (else the default one), saying on standard error
/// what was rebuilt and why.
///
/// # Errors
/// No cache directory is known and no `--index` given; the index cannot be opened.
pub fn open(location: &IndexLocation) -> Result<Index> {
    let path = match &location.file {
        Some(p) => p.clone(),
        None => dsh_session::index::default_path().context(
            "no cache directory is known for the index (no home directory): give --index FILE or set DSH_SESSION_INDEX",
        )?,
    };
    let (index, notes) = Index::open(&path)?;
    for n in notes {
        stderr!("dsh-session: {n}");
    }
    Ok(index)
}

/// What [`update`] says on standard error besides the directories with no logs, and
/// whether an index another process keeps busy is an error.
#[derive(Debug, Clone, Copy)]
pub struct Say {
    /// A progress bar on a terminal for a long update.
    pub progress: bool,
    /// Which logs could not be read, what the walk passed over, what another process
    /// indexed meanwhile.
    pub notes: bool,
    /// When another process keeps writing the index past the busy timeout, go on with the
    /// index as it is (with a note) instead of failing (`search`, `sessions`).
    pub as_is_when_busy: bool,
}

impl Say {
    /// Everything, or (`quiet`) nothing; going on when the index is busy.
    pub fn unless(quiet: bool) -> Say {
        Say {
            progress: !quiet,
            notes: !quiet,
            as_is_when_busy: true,
        }
    }

    /// Only the progress bar (logs that cannot be read are rows of a listing).
    pub fn progress_only() -> Say {
        Say {
            progress: true,
            notes: false,
            as_is_when_busy: true,
        }
    }
}

/// Brings `index` up to date for `paths` (none: the roots indexed before, else DSH's
/// default root, [`Index::paths_to_update`]), saying on standard error what `say` asks,
/// and always which directories hold no logs (the caller exits 2 for them, as `validate`
/// does).
///
/// # Errors
/// No paths, nothing indexed before and no `~/.dsh/sessions`; a path that cannot be read;
/// index errors.
pub fn update(index: &mut Index, paths: &[PathBuf], say: Say) -> Result<UpdateSummary> {
    update_with(index, paths, say, |_| ()).map(|(summary, _)| summary)
}

/// [`update`], running `meanwhile` on the index as it was before the update while the
/// file system is stat'ed ([`Index::update_with`]); its answer is `None` when the update
/// gave up on a busy index (then nothing was written: ask again).
///
/// # Errors
/// As [`update`].
pub fn update_with<T>(
    index: &mut Index,
    paths: &[PathBuf],
    say: Say,
    meanwhile: impl FnOnce(&Index) -> T,
) -> Result<(UpdateSummary, Option<T>)> {
    let paths = index.paths_to_update(paths)?.context(
        "nothing indexed yet and no ~/.dsh/sessions (DSH's default root): name the JSONL roots, logs or stores to index (`dsh-session index ~/.dsh/sessions`)",
    )?;
    let bar = std::cell::RefCell::new(None::<indicatif::ProgressBar>);
    let show = say.progress && std::io::stderr().is_terminal();
    let progress = |p: Progress| {
        if !show {
            return;
        }
        let mut bar = bar.borrow_mut();
        if bar.is_none() && (p.bytes >= PROGRESS_BYTES || p.files >= PROGRESS_FILES) {
            let b = indicatif::ProgressBar::new(p.bytes);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "indexing {bar:40} {bytes}/{total_bytes} {msg} ({bytes_per_sec}, {eta})",
                )
                .expect("valid template"),
            );
            *bar = Some(b);
        }
        if let Some(b) = bar.as_ref() {
            b.set_position(p.bytes_done);
            b.set_message(format!("{}/{} files", p.files_done, p.files));
        }
    };
    let options = UpdateOptions {
        progress: Some(&progress),
    };
    let updated = index.update_with(&paths, &options, meanwhile);
    if let Some(b) = bar.borrow_mut().take() {
        b.finish_and_clear();
    }
    let (summary, answer) = match updated {
        Err(dsh_session::index::IndexError::Busy(path)) if say.as_is_when_busy => {
            stderr!(
                "dsh-session: {}: another dsh-session has been writing the index for over a minute; answering from the index as it is",
                path.display()
            );
            (UpdateSummary::default(), None)
        }
        other => {
            let (summary, answer) = other?;
            (summary, Some(answer))
        }
    };
    if say.notes {
        for (path, why) in &summary.unreadable {
            stderr!("dsh-session: {}: not indexed: {why}", path.display());
        }
        // In the words and order `validate` says them: one walk for every command.
        crate::render::say_passed_over(summary.passed_over.clone());
        if summary.raced > 0 {
            stderr!(
                "dsh-session: {} indexed meanwhile by another dsh-session: kept as it wrote them",
                count(summary.raced, "log")
            );
        }
    }
    // Like `validate DIR`: nothing found where logs were expected is a usage error (the
    // caller exits 2 once it has done the rest).
    for dir in &summary.empty_dirs {
        stderr!("dsh-session: {}", crate::render::no_logs_in(dir));
    }
    Ok((summary, answer))
}

/// `index --format json` (schema [`SCHEMA_VERSION`]).
#[derive(Debug, Serialize)]
struct Json<'a> {
    schema_version: u32,
    index: String,
    index_bytes: u64,
    files: u64,
    unchanged: u64,
    added: u64,
    grown: u64,
    read_again: u64,
    removed: u64,
    raced: u64,
    unreadable: Vec<Unreadable<'a>>,
    parts_written: u64,
}

#[derive(Debug, Serialize)]
struct Unreadable<'a> {
    file: String,
    message: &'a str,
}

/// `index`'s summary of update `s` of `index`: one line of text, or the JSON object.
///
/// # Errors
/// Writing failed.
pub fn write_summary(
    out: &mut dyn Write,
    format: TableFormat,
    index: &Index,
    s: &UpdateSummary,
) -> Result<()> {
    let json = Json {
        schema_version: SCHEMA_VERSION,
        index: index.path().display().to_string(),
        index_bytes: index.size_on_disk(),
        files: s.files,
        unchanged: s.unchanged,
        added: s.added,
        grown: s.grown,
        read_again: s.read_again,
        removed: s.removed,
        raced: s.raced,
        unreadable: s
            .unreadable
            .iter()
            .map(|(f, m)| Unreadable {
                file: f.display().to_string(),
                message: m,
            })
            .collect(),
        parts_written: s.parts_written,
    };
    crate::render::write_one(out, format, &json, |out| {
        writeln!(
            out,
            "{}: {} ({} new, {} grown, {} read again, {} unchanged), {} removed; {} written; {} on disk",
            json.index,
            count(s.files, "log"),
            s.added,
            s.grown,
            s.read_again,
            s.unchanged,
            s.removed,
            count(s.parts_written, "message part"),
            bytes(json.index_bytes)
        )
    })
}

/// A size in bytes, KB, MB or GB (powers of 1000, one decimal).
pub fn bytes(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}
