//! `recover FILE --out ROOT`: new sessions DSH loads, from a log it refuses (issue 27). The
//! work is [`dsh_session::recover::run`]'s (plan, then publish and read back); the
//! output is [`crate::render::recover`]'s.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::recover::{self, Done, RecoverError};
use dsh_session::write::WriteError;

use crate::cli::{ProviderName, RecoverArgs, RecoverEncoding};
use crate::cmd::Rejected;

/// Runs `recover`.
pub fn run(args: &RecoverArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let path = &args.file;
    if path == Path::new("-") {
        bail!("-: standard input cannot be recovered; give the log's path");
    }
    let options = recover::Options {
        session: args.session.clone(),
        root: args.out.clone(),
        encoding: args.encoding.map(RecoverEncoding::encoding),
        provider: args.provider.map(ProviderName::profile),
    };
    let name = path.display().to_string();
    let (recovery, done) = match recover::run(path, &options, args.dry_run) {
        Ok(r) => r,
        Err(e @ RecoverError::Nothing(_)) => return Err(Rejected(format!("{name}: {e}")).into()),
        Err(e @ (RecoverError::OtherEncoding(_) | RecoverError::ReadBack { .. })) => bail!("{e}"),
        Err(RecoverError::Write(e @ WriteError::Exists(_))) => {
            return Err(Rejected(e.to_string()).into());
        }
        Err(RecoverError::Write(e)) => return Err(e.into()),
        Err(e) => return Err(anyhow::Error::new(e).context(name)),
    };
    crate::render::recover::write(out, &recovery, done, args.format, &args.out)?;
    let kept = recovery.keeps_every_message();
    Ok(match done {
        Done::Valid => ExitCode::SUCCESS,
        Done::Recovered | Done::WouldRecover if kept => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}
