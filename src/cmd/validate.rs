//! `validate PATH...`: one verdict per log, for people and for CI. The logs are checked
//! by [`dsh_session::validate`]; the verdicts are written by [`crate::render::validate`].

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use dsh_session::validate::{self, Checked, Gate, Progress, Tally};

use crate::cli::{ProviderName, ValidateArgs};

/// Inputs at least this large get a progress bar on a terminal (64 MB).
const PROGRESS_BYTES: u64 = 64_000_000;

/// A progress bar on standard error for one large input, when standard error is a terminal.
fn progress_for(path: &Path) -> Option<Progress> {
    let size = std::fs::metadata(path).ok()?.len();
    if size < PROGRESS_BYTES {
        return None;
    }
    let bar = indicatif::ProgressBar::new(size);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} {bar:40} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        )
        .expect("valid template"),
    );
    bar.set_message(path.display().to_string());
    let handle = bar.clone();
    Some((
        Arc::new(move |read| handle.set_position(read)),
        Box::new(move || bar.finish_and_clear()),
    ))
}

/// Runs `validate`: inputs are expanded, checked in parallel, and printed in path order.
pub fn run(args: &ValidateArgs, color: bool, out: &mut dyn Write) -> Result<ExitCode> {
    let (paths, empty_dirs) =
        crate::cmd::walk(&crate::cmd::paths_or_default_root(&args.files, "validate")?);
    let gate = Gate {
        provider: args.provider.map(ProviderName::profile),
        strict: args.strict,
    };
    // Standard error is asked once whether it is a terminal, not for every file (nor is
    // each file's size read when no bar can be shown).
    let terminal = std::io::stderr().is_terminal();
    let progress = |path: &Path| if terminal { progress_for(path) } else { None };
    let checked = validate::check_all(&paths, args.session.as_ref(), &progress);
    for (file, c) in &checked {
        if let Checked::NoSessions = c {
            stderr!("dsh-session: {file}: store holds no sessions");
        }
    }
    for (file, c) in &checked {
        if let Checked::Unreadable(why) = c {
            stderr!("dsh-session: {file}: {why}");
        }
    }
    let tally = Tally::of(&checked, gate, &args.files);
    crate::render::validate::write(out, &checked, &tally, gate, args.format, args.quiet, color)?;
    Ok(ExitCode::from(if tally.unreadable + empty_dirs > 0 {
        2
    } else if tally.failed() {
        1
    } else {
        0
    }))
}
