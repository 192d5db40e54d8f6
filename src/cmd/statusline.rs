//! `statusline [PATH]`: one line for a shell prompt, tmux or an editor's status bar; the
//! work is [`dsh_session::stats::statusline`].

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use dsh_session::stats::statusline::{self, Request};

use crate::cli::StatuslineArgs;

/// Runs `statusline`.
pub fn run(args: &StatuslineArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let prices = crate::cmd::price_table(args.prices.as_deref())?;
    let zone = jiff::tz::TimeZone::system();
    let now = args
        .now
        .as_deref()
        .map(|t| dsh_session::stats::parse_when("--now", t, &zone, false))
        .transpose()?
        .unwrap_or_else(|| jiff::Timestamp::now().as_millisecond());
    let cache = match args.no_cache {
        true => None,
        false => args.cache.clone().or_else(statusline::default_cache),
    };
    let parts = statusline::parts(&Request {
        path: args.path.as_deref(),
        root: args.root.clone(),
        prices,
        prices_file: args.prices.as_deref(),
        now,
        zone,
        cache,
    })?;
    let width = args
        .width
        .or_else(|| std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()))
        .unwrap_or(80);
    writeln!(out, "{}", statusline::fit(&parts, width))?;
    Ok(ExitCode::SUCCESS)
}
