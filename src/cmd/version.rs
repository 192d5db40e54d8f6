//! `version FILE`: the format version of a log or a SQLite store ([`dsh_session::version`]).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use dsh_session::load::store_file::looks_like_store;
use dsh_session::version::{self, VersionError};

use crate::cli::VersionArgs;
use crate::render::write_one;

/// Runs `version`.
pub fn run(args: &VersionArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let file = || args.file.display().to_string();
    let session = args.session.as_deref();
    let ok = if looks_like_store(&args.file) {
        let info = version::of_store(&args.file, session).map_err(|e| match e {
            VersionError::Session(why) => anyhow::anyhow!(why),
            e => anyhow::Error::new(e).context(file()),
        })?;
        for line in &info.unreadable {
            stderr!("dsh-session: {line}");
        }
        write_one(out, args.format, &info, |out| info.write_text(out))?;
        info.ok
    } else {
        let info = version::of_log(&args.file, session).with_context(file)?;
        write_one(out, args.format, &info, |out| info.write_text(out))?;
        info.ok
    };
    Ok(ExitCode::from(if ok { 0 } else { 1 }))
}
