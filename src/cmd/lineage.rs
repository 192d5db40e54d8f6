//! `fork` and `trim`: parse, plan ([`dsh_session::lineage`]), publish
//! ([`dsh_session::lineage::publish`]), render ([`crate::render::lineage`]).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::lineage::publish::{PublishError, Published, publish};
use dsh_session::lineage::trim::TrimOptions;
use dsh_session::lineage::{Derived, LineageError, Source, fork, new_id, now_ms, trim};
use dsh_session::load::Encoding;
use dsh_session::write::plan::WriteError;

use crate::cli::lineage::NewSessionArgs;
use crate::cli::{ForkArgs, TrimArgs};
use crate::cmd::Rejected;

fn source(file: &Path, args: &NewSessionArgs) -> Result<Source> {
    if file == Path::new("-") {
        bail!("-: standard input cannot be forked or trimmed; give the log's path");
    }
    match Source::read(file, args.session.as_deref()) {
        Ok(s) => Ok(s),
        Err(e @ LineageError::NotLoaded(_)) => Err(Rejected(e.to_string()).into()),
        Err(e) => Err(anyhow::Error::new(e).context(file.display().to_string())),
    }
}

fn encoding(source: &Source, args: &NewSessionArgs) -> Encoding {
    match args.encoding {
        Some(e) => e.encoding(),
        None if source.stored.encoding == Encoding::Zstd => Encoding::Zstd,
        None => Encoding::Plain,
    }
}

/// A plan error: a refusal exits 1 naming the file, anything else 2.
fn planned<T>(file: &Path, plan: Result<T, LineageError>) -> Result<T> {
    plan.map_err(|e| match e {
        LineageError::Refused(_) | LineageError::NotLoaded(_) => {
            Rejected(format!("{}: {e}", file.display())).into()
        }
        e => anyhow::Error::new(e).context(file.display().to_string()),
    })
}

/// Publishes `d` ([`publish`]): its status (`done`, `would`, or `not written` when the path
/// exists) and the exit code.
fn published(
    d: &Derived,
    source: &Source,
    dry_run: bool,
    [done, would]: [&'static str; 2],
) -> Result<(&'static str, ExitCode)> {
    match publish(d, &source.lines, dry_run) {
        Ok(Published::Written) => Ok((done, ExitCode::SUCCESS)),
        Ok(Published::WouldWrite) => Ok((would, ExitCode::SUCCESS)),
        Ok(Published::Exists) => Ok(("not written", ExitCode::from(1))),
        Err(PublishError::Write(e @ WriteError::Exists(_))) => Err(Rejected(e.to_string()).into()),
        Err(PublishError::Write(e)) => Err(e.into()),
        Err(e) => bail!(e.to_string()),
    }
}

/// `dsh-session fork FILE --at SEQ --out ROOT`.
pub fn fork(args: &ForkArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let source = source(&args.file, &args.new)?;
    let id = args.new.id.clone().unwrap_or_else(new_id);
    let encoding = encoding(&source, &args.new);
    let plan = fork::plan(&source, args.at, &id, &args.new.out, encoding, now_ms());
    let plan = planned(&args.file, plan)?;
    let status = ["forked", "would fork"];
    let (status, code) = published(&plan.session, &source, args.new.dry_run, status)?;
    let name = args.file.display().to_string();
    crate::render::lineage::fork(out, args.new.format, &name, &source, &plan, status)?;
    Ok(code)
}

/// `dsh-session trim FILE --tool-output-max BYTES [--drop-turns A..B] --out ROOT`.
pub fn trim(args: &TrimArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let source = source(&args.file, &args.new)?;
    let id = args.new.id.clone().unwrap_or_else(new_id);
    let options = TrimOptions {
        tool_output_max: args.tool_output_max,
        drop_turns: args.drop_turns,
    };
    let encoding = encoding(&source, &args.new);
    let plan = trim::plan(&source, &options, &id, &args.new.out, encoding);
    let plan = planned(&args.file, plan)?;
    let (status, code) = if plan.cuts.is_empty() && plan.dropped.is_none() {
        ("nothing to trim", ExitCode::SUCCESS)
    } else {
        let status = ["trimmed", "would trim"];
        published(&plan.session, &source, args.new.dry_run, status)?
    };
    let name = args.file.display().to_string();
    let max = args.tool_output_max;
    let parent = source.id();
    crate::render::lineage::trim(out, args.new.format, &name, max, &plan, status, parent)?;
    Ok(code)
}
