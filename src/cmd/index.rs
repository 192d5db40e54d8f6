//! `index [PATH]...`: build or update the search index (issue 28). Opening and updating,
//! as every front end of the index does it, and the summary are in
//! [`crate::render::index`].

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::cli::IndexArgs;
use crate::render::index::{Say, open, update, write_summary};

/// Runs `index`.
pub fn run(args: &IndexArgs, out: &mut dyn Write) -> Result<ExitCode> {
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        bail!("the index reads files: name them (standard input cannot be indexed)");
    }
    let mut index = open(&args.index)?;
    if args.check {
        let (checked, note) = index.check()?;
        index = checked;
        if let Some(n) = note {
            stderr!("dsh-session: {n}");
        }
    }
    if args.rebuild {
        index.rebuild()?;
    }
    let say = Say {
        as_is_when_busy: false,
        ..Say::unless(args.quiet)
    };
    let s = update(&mut index, &args.paths, say)?;
    let code = if s.empty_dirs.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    };
    if !args.quiet {
        write_summary(out, args.format, &index, &s)?;
    }
    Ok(code)
}
