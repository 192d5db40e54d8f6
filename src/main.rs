//! `dsh-session`: exit codes, error printing and a quiet exit on a closed pipe.

mod cli;
mod cmd;
mod render;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    // A panic is a bug in dsh-session, never a verdict on the input: report it in one line
    // and exit 2 instead of Rust's 101.
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        eprintln!(
            "dsh-session: internal error{at}: {what}; please report it with the input that caused it"
        );
    }));
    match std::panic::catch_unwind(run_cli) {
        Ok(code) => code,
        Err(_) => ExitCode::from(2),
    }
}

fn run_cli() -> ExitCode {
    // Test hook: proves that a bug surfaces as a one-line error and exit 2, never 101.
    if std::env::var_os("DSH_SESSION_TEST_PANIC").is_some() {
        panic!("test panic requested by DSH_SESSION_TEST_PANIC");
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let verbose = cli.verbose;
    if let Some(line) = cli.dsh {
        dsh_session::edge::DshLine::set_process_default(line);
    }
    let result = if let Command::Mcp(args) = &cli.command {
        // The server writes its protocol messages to standard output from its own
        // threads: the lock below would stop them.
        cmd::mcp::run(args)
    } else {
        let stdout = io::stdout();
        let mut out = io::BufWriter::new(stdout.lock());
        let result = run(cli, &mut out);
        let flushed = out.flush();
        result.and_then(|code| {
            flushed?;
            Ok(code)
        })
    };
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let failed = e.downcast_ref::<cmd::Rejected>().is_some();
            // The first line is `<file>: <what>` with or without -v; -v then lists the
            // causes one per line, leaving out a cause that only repeats the one before it.
            eprintln!("dsh-session: {}", in_our_words(&e));
            if verbose {
                let mut previous = e.to_string();
                for (depth, cause) in e.chain().enumerate().skip(1) {
                    let text = cause_text(cause);
                    if text != previous {
                        eprintln!("  cause {depth}: {text}");
                    }
                    previous = text;
                }
            }
            ExitCode::from(if failed { 1 } else { 2 })
        }
    }
}

fn run(mut cli: Cli, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let color = render::use_color(cli.color);
    // A session directory given to a one-log command stands for its current generation.
    if let Some(file) = cli.command.log_file_mut() {
        *file = cmd::log_path(std::mem::take(file))?;
    }
    match cli.command {
        Command::Validate(args) => cmd::validate::run(&args, color, out),
        Command::Surface(args) => cmd::surface::run(&args, out),
        Command::Messages(args) => cmd::messages::run(&args, out),
        Command::Show(args) => cmd::show::run(&args, out),
        Command::Repair(args) => cmd::repair::run(&args, out),
        Command::Provenance(args) => cmd::provenance::run(&args, out),
        Command::Replacements(args) => cmd::replacements::run(&args, out),
        Command::Version(args) => cmd::version::run(&args, out),
        Command::Rules(args) => cmd::rules::run(&args, out),
        Command::Follow(args) => cmd::follow::run(&args, out),
        Command::Sessions(args) => cmd::sessions::run(&args, out),
        Command::Index(args) => cmd::index::run(&args, out),
        Command::Search(args) => cmd::search::run(&args, color, out),
        Command::Mcp(_) => {
            anyhow::bail!("internal error: `mcp` runs before standard output is locked")
        }
        Command::Export(args) => cmd::export::run(&args, out),
        Command::Man(args) => cmd::man::run(&args, out),
        Command::Stats(args) => cmd::stats::run(&args, out),
        Command::Completions(args) => cmd::completions::run(&args, out),
    }
}

/// The error chain as `{:#}` joins it (`<file>: <what>`), with I/O errors in the tool's
/// words (`no such file or directory`, not `No such file or directory (os error 2)`) and a
/// cause that only repeats the one before it left out.
pub(crate) fn in_our_words(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = cause_text(cause);
        if parts.last() != Some(&text) && !parts.last().is_some_and(|p| p.ends_with(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ")
}

/// One cause of an error chain, I/O errors said in the tool's words.
fn cause_text(cause: &(dyn std::error::Error + 'static)) -> String {
    match cause.downcast_ref::<io::Error>() {
        Some(io) => dsh_session::wording::io_error(io),
        // Wrappers that show an I/O error as their own text.
        None => dsh_session::wording::without_os_error(&cause.to_string()),
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        let io_kind = cause
            .downcast_ref::<io::Error>()
            .map(io::Error::kind)
            .or_else(|| {
                cause
                    .downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            });
        io_kind == Some(io::ErrorKind::BrokenPipe)
    })
}
