//! `tui [PATH]...` (issue 29): brings the index up to date for the paths, then hands the
//! terminal to [`dsh_session::tui`] until `q`. The terminal is restored on every way out
//! (`q`, an error, a panic: ratatui's init hooks the panic handler).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use dsh_session::tui::{App, Effect, Theme, source};

use crate::cli::TuiArgs;

/// Why `tui` will not start without a terminal (exit 2).
pub const NOT_A_TERMINAL: &str = "tui needs a terminal on standard input and output; in a pipe or a script use `dsh-session show FILE`, `dsh-session messages FILE` or `dsh-session export FILE --format markdown`";

/// Runs `tui`.
pub fn run(args: &TuiArgs, color: bool) -> Result<ExitCode> {
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        bail!(NOT_A_TERMINAL);
    }
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        bail!("tui reads indexed files: name them (standard input cannot be browsed)");
    }
    let mut index = crate::render::index::open(&args.index)?;
    let Some(paths) = index.paths_to_update(&args.paths)? else {
        bail!(
            "nothing indexed yet and no ~/.dsh/sessions: name the JSONL roots, logs or stores to browse (`dsh-session tui ~/.dsh/sessions`)"
        );
    };
    if !args.no_update {
        let say = crate::render::index::Say::progress_only();
        let s = crate::render::index::update(&mut index, &paths, say)?;
        if !s.empty_dirs.is_empty() {
            return Ok(ExitCode::from(2));
        }
    }
    let under = paths
        .iter()
        .map(|p| std::fs::canonicalize(p).with_context(|| p.display().to_string()))
        .collect::<Result<Vec<PathBuf>>>()?;
    let theme = if color {
        Theme::colored()
    } else {
        Theme::mono()
    };
    let mut app = App::new(index, under, theme).map_err(anyhow::Error::msg)?;
    let mut terminal = ratatui::try_init().context("cannot set up the terminal")?;
    let result = dsh_session::tui::run(&mut terminal, &mut app, crossterm::event::read, effect);
    ratatui::restore();
    result.context("terminal")?;
    Ok(ExitCode::SUCCESS)
}

/// Carries out what the app asked for; the line says what happened.
fn effect(effect: Effect) -> Option<String> {
    match effect {
        Effect::Copy(text) => {
            let mut out = std::io::stdout();
            let done = crossterm::execute!(
                out,
                crossterm::clipboard::CopyToClipboard::to_clipboard_from(text)
            )
            .and_then(|()| out.flush());
            done.err().map(|e| format!("copy failed: {e}"))
        }
        Effect::Export(target) => Some(match export(&target) {
            Ok(path) => format!("wrote {}", path.display()),
            Err(e) => format!("export failed: {e:#}"),
        }),
    }
}

/// Writes a Markdown export of `target` to `<log file name>.md` (a store: `<session
/// id>.md`) in the current directory, never over the log itself; the path written.
fn export(target: &source::Target) -> Result<PathBuf> {
    let stem = match &target.store_session {
        Some(id) => id.clone(),
        None => target
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "session".into()),
    };
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = PathBuf::from(format!("{stem}.md"));
    if source::is_the_log(target, Path::new(&path)) {
        bail!("{} is the log itself", path.display());
    }
    // Read as `export` reads it (a damaged log up to its defect, its verdict at the top).
    let prices = std::sync::Arc::new(dsh_session::prices::PriceTable::built_in().clone());
    let shown = target.file.display().to_string();
    let read =
        dsh_session::export::read_session(&target.file, target.store_session.clone(), prices)
            .with_context(|| shown.clone())?;
    if let (dsh_session::scan::Status::Foreign, Some(f)) =
        (read.report.status, &read.report.finding)
    {
        bail!("{shown}: {}", f.message);
    }
    let text = read
        .transcript_text(
            &shown,
            dsh_session::export::TranscriptFormat::Markdown,
            true,
        )
        .with_context(|| shown.clone())?;
    dsh_session::write::site::replace_file_durably(&path, text.as_bytes())
        .with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(std::env::current_dir().map_or(path.clone(), |d| d.join(&path)))
}
