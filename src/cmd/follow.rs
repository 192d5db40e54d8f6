//! `follow PATH`: what happens in a live log, as it is appended (issue 19). The following
//! is [`dsh_session::follow`], the printing [`crate::render::follow`].

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use dsh_session::follow::{Ended, FollowError, Settings};

use crate::cli::FollowArgs;
use crate::render::follow::{FollowPrinter, said_width};

/// Runs `follow` until Ctrl-C, SIGTERM or SIGHUP (exit 0 with a summary), a closed pipe (exit 0), or with
/// `--exit-on-finding` the first corrupt or refused finding (exit 1).
pub fn run(args: &FollowArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let settings = Settings {
        provider: args.provider.map(crate::cli::ProviderName::profile),
        // `inf` waits for ever; NaN and negative values do not wait.
        settle: Duration::try_from_secs_f64(args.settle.max(0.0)).unwrap_or(Duration::MAX),
        texts: !args.no_text,
        reasoning: args.reasoning,
        session: args.session.clone(),
        from_start: args.from_start,
        exit_on_finding: args.exit_on_finding,
        poll_every: Duration::from_millis(args.poll_ms.max(10)),
    };
    let mut printer = FollowPrinter {
        out,
        format: args.format,
        said_width: said_width(),
    };
    match dsh_session::follow::run(&args.path, &settings, &mut printer) {
        Ok(Ended::Stopped) => Ok(ExitCode::SUCCESS),
        Ok(Ended::Finding) => Ok(ExitCode::from(1)),
        // A write error as itself, so that a closed pipe is a quiet end.
        Err(FollowError::Write(e)) => Err(e.into()),
        Err(e) => Err(e.into()),
    }
}
