//! `dsh-session`: exit codes, error printing and a quiet exit on a closed pipe.

/// `stderr!` that never panics: a message that cannot be written (standard error closed,
/// `2>/dev/full`) is dropped, and the command goes on to its own exit code. `stderr!`
/// panics on a write error, which inside the panic hook aborted with exit 134.
macro_rules! stderr {
    ($($arg:tt)*) => {
        $crate::write_stderr(format_args!($($arg)*))
    };
}

mod cli;
mod cmd;
#[cfg(feature = "mcp")]
mod mcp;
mod reading;
mod render;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

/// Writes one line to standard error, ignoring a write error (see [`stderr!`]).
fn write_stderr(args: std::fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

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
        stderr!(
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
            // `--help` into a full disk is an error; into a closed pipe, a quiet end.
            let written = e.print();
            if written.is_err_and(|w| w.kind() != io::ErrorKind::BrokenPipe) {
                return ExitCode::from(2);
            }
            return ExitCode::from(code);
        }
    };
    let verbose = cli.global.verbose;
    if let Some(line) = cli.global.dsh {
        dsh_session::edge::DshLine::set_process_default(line);
    }
    dsh_session::edge::Platform::set_process_override(cli.global.platform);
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
            stderr!("dsh-session: {}", in_our_words(&e));
            if verbose {
                let mut previous = e.to_string();
                for (depth, cause) in e.chain().enumerate().skip(1) {
                    let text = cause_text(cause);
                    if text != previous {
                        stderr!("  cause {depth}: {text}");
                    }
                    previous = text;
                }
            }
            ExitCode::from(if failed { 1 } else { 2 })
        }
    }
}

fn run(mut cli: Cli, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let color = render::use_color(cli.global.color);
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
        Command::Recover(args) => cmd::recover::run(&args, out),
        Command::Fork(args) => cmd::lineage::fork(&args, out),
        Command::Trim(args) => cmd::lineage::trim(&args, out),
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
        Command::Tui(args) => cmd::tui::run(&args, color),
        Command::Man(args) => cli::man::run(&args, out),
        Command::Stats(args) => cmd::stats::run(&args, out),
        Command::Statusline(args) => cmd::statusline::run(&args, out),
        Command::Completions(args) => cli::completions::run(&args, out),
    }
}

/// The error chain as `{:#}` joins it (`<file>: <what>`), each cause said once and in the
/// tool's words ([`dsh_session::wording::error_line`]).
pub(crate) fn in_our_words(e: &anyhow::Error) -> String {
    dsh_session::wording::error_line(e.chain())
}

/// One cause of an error chain, I/O errors said in the tool's words.
fn cause_text(cause: &(dyn std::error::Error + 'static)) -> String {
    dsh_session::wording::cause_text(cause)
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
