//! `repair FILE`: cut the torn tail, close the interrupted turn (FORMAT.md §5). The work
//! is [`dsh_session::repair::run`]'s (plan, check, write); the output is
//! [`crate::render::repair`]'s.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::repair::apply::ApplyError;
use dsh_session::repair::{self, RepairError};

use crate::cli::{ProviderName, RepairArgs};
use crate::cmd::Rejected;

/// Runs `repair`.
pub fn run(args: &RepairArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if args.file == Path::new("-") {
        return dry_run_of_stdin(args, out);
    }
    run_on(args, &args.file, &args.file, out)
}

/// `repair --dry-run -`: the plan for the log read from standard input, which a dry run
/// only reads. The log is held in a temporary file while it is planned; every output names
/// it `-`. A repair that writes is refused: it changes a log in place.
fn dry_run_of_stdin(args: &RepairArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if !args.dry_run {
        bail!(
            "-: standard input cannot be repaired in place; give the log's path, or plan it with --dry-run"
        );
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)
        .map_err(|e| anyhow::anyhow!("-: reading standard input: {e}"))?;
    let name = if bytes.starts_with(&dsh_session::load::ZSTD_MAGIC) {
        "stdin.jsonl.zstd"
    } else if bytes.starts_with(b"SQLite format 3\0") {
        "stdin.db"
    } else {
        "stdin.jsonl"
    };
    let dir = tempfile::tempdir()?;
    let path = dir.path().join(name);
    std::fs::write(&path, &bytes)?;
    run_on(args, &path, Path::new("-"), out)
}

/// `repair` of the log at `path`, named `shown` in every output.
fn run_on(args: &RepairArgs, path: &Path, shown: &Path, out: &mut dyn Write) -> Result<ExitCode> {
    let provider = args.provider.map(ProviderName::profile);
    let session = args.session.as_deref();
    let (planned, done) = match repair::run(path, session, provider, args.dry_run, !args.no_backup)
    {
        Ok(repaired) => repaired,
        Err(ApplyError::Plan(e @ (RepairError::Refused { .. } | RepairError::Heal(_)))) => {
            return Err(Rejected(format!("{}: {e}", shown.display())).into());
        }
        Err(ApplyError::Plan(e)) => {
            return Err(anyhow::Error::new(e).context(shown.display().to_string()));
        }
        Err(ApplyError::Changed(e)) => {
            return Err(Rejected(format!("{}: {e}", path.display())).into());
        }
        Err(e @ ApplyError::Stopped(_)) => bail!("{e}"),
        Err(ApplyError::Write(e)) => {
            return Err(anyhow::Error::new(e).context(path.display().to_string()));
        }
    };
    crate::render::repair::write(out, &planned, done, args.provider, shown, args.format)?;
    // Asked for a history the provider accepts, and some finding could not be healed.
    if provider.is_some() && !planned.unhealed.is_empty() {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
