//! `man [COMMAND]`: the man pages, one for the tool and one per subcommand
//! (`dsh-session-validate(1)` …), from the same doc comments as `--help`. Examples and exit
//! codes get sections of their own; exit codes as a list of codes and meanings.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::CommandFactory;

use super::{Cli, EXIT_CODES, ManArgs};

/// Runs `man`.
pub fn run(args: &ManArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let cli = Cli::command();
    if let Some(dir) = &args.dir {
        // Only the directory named is made, never its parents: a mistyped path is an error,
        // not a tree of new directories.
        if !dir.is_dir() {
            if let Some(parent) = dir
                .parent()
                .filter(|p| !p.as_os_str().is_empty() && !p.is_dir())
            {
                bail!(
                    "{}: its parent {} does not exist; `man --dir` makes only the last directory (`mkdir -p {}` first if you mean it)",
                    dir.display(),
                    parent.display(),
                    dir.display()
                );
            }
            std::fs::create_dir(dir).with_context(|| dir.display().to_string())?;
        }
        let mut names = vec![None];
        names.extend(cli.get_subcommands().map(|c| Some(c.get_name().to_owned())));
        for name in names {
            let file = dir.join(match &name {
                None => "dsh-session.1".to_owned(),
                Some(n) => format!("dsh-session-{n}.1"),
            });
            let mut bytes = Vec::new();
            page(&cli, name.as_deref(), &mut bytes)?;
            std::fs::write(&file, bytes).with_context(|| file.display().to_string())?;
            writeln!(out, "{}", file.display())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    page(&cli, args.command.as_deref(), out)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the page of the tool (`None`) or of one subcommand.
fn page(cli: &clap::Command, name: Option<&str>, out: &mut dyn Write) -> Result<()> {
    let (mut command, title) = match name {
        None => (cli.clone(), "dsh-session".to_owned()),
        Some(n) => {
            let Some(sub) = cli.find_subcommand(n) else {
                let known: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
                bail!("no subcommand {n:?}; the pages are: {}", known.join(", "));
            };
            let title = format!("dsh-session-{n}");
            // The global options belong on every page, as `--help` shows them.
            let mut sub = sub.clone().name(title.clone());
            for arg in cli.get_arguments().filter(|a| a.is_global_set()) {
                sub = sub.arg(arg.clone());
            }
            (sub, title)
        }
    };
    // Examples and exit codes get their own sections below, not clap's EXTRA.
    let after = command
        .get_after_help()
        .map(|h| h.to_string())
        .unwrap_or_default();
    command = command
        .after_help(None::<&str>)
        .after_long_help(None::<&str>);
    let man = clap_mangen::Man::new(command.clone()).title(title.to_uppercase());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    if command.has_subcommands() {
        man.render_subcommands_section(out)?;
    }
    let (examples, exit_codes) = match after.split_once("Exit codes:") {
        Some((examples, codes)) => (examples.to_owned(), codes.to_owned()),
        None => (
            after.clone(),
            EXIT_CODES.trim_start_matches("Exit codes:").to_owned(),
        ),
    };
    let examples: Vec<&str> = examples
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("Example"))
        .collect();
    if !examples.is_empty() {
        writeln!(out, ".SH EXAMPLES\n.nf")?;
        for line in examples {
            writeln!(out, "{}", roff_line(line.trim_start()))?;
        }
        writeln!(out, ".fi")?;
    }
    writeln!(out, ".SH \"EXIT STATUS\"")?;
    for line in exit_codes.lines().filter(|l| !l.trim().is_empty()) {
        let (code, meaning) = line
            .trim()
            .split_once(char::is_whitespace)
            .unwrap_or((line, ""));
        writeln!(out, ".TP\n.B {code}\n{}", roff_line(meaning.trim()))?;
    }
    writeln!(out, ".SH \"SEE ALSO\"")?;
    let mut see: Vec<String> = Vec::new();
    if name.is_some() {
        see.push("dsh-session(1)".to_owned());
    }
    see.extend(
        cli.get_subcommands()
            .map(|c| c.get_name())
            .filter(|n| Some(*n) != name)
            .map(|n| format!("dsh-session-{n}(1)")),
    );
    writeln!(out, "{}", roff_line(&see.join(", ")))?;
    writeln!(out, ".SH VERSION\nv{}", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// A line of text as roff reads it literally: backslashes escaped, and a line that starts
/// with a control character (`.` or `'`) protected.
fn roff_line(text: &str) -> String {
    let text = text.replace('\\', "\\e");
    if text.starts_with(['.', '\'']) {
        format!("\\&{text}")
    } else {
        text
    }
}
