//! `stats PATH...`: usage over many logs, one row per day, session, model, project, price
//! band or hour, with a total. The reading is [`dsh_session::stats`], the output
//! [`crate::render::stats`].

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Result, bail};
use dsh_session::period::Period;
use dsh_session::view::usage::{GroupBy, UsageOptions};
use dsh_session::wording::utc;

use crate::cli::{StatsArgs, StatsBy};
use crate::render::stats::Asked;

/// Runs `stats`.
pub fn run(args: &StatsArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let (tz, period) = crate::cmd::zone_and_period(&args.tz, &args.since, &args.until)?;
    if let Period {
        since: Some(a),
        until: Some(b),
    } = period
        && a >= b
    {
        bail!("--since ({}) is not before --until ({})", utc(a), utc(b));
    }
    let table = crate::cmd::price_table(args.prices.as_deref())?;
    let by = match args.by {
        StatsBy::Day => GroupBy::Day,
        StatsBy::Session => GroupBy::Session,
        StatsBy::Model => GroupBy::Model,
        StatsBy::Project => GroupBy::Project,
        StatsBy::Band => GroupBy::Band,
        StatsBy::Hour => GroupBy::Hour,
    };
    let options = UsageOptions {
        by,
        tz: tz.clone(),
        period,
        prices: Arc::clone(&table),
    };
    let files = crate::cmd::paths_or_default_root(&args.files, "stats")?;
    let (paths, empty_dirs) = crate::cmd::walk(&files);
    let roll_up = args.by == StatsBy::Session && !args.subagents_apart;
    let totals = dsh_session::stats::read(&paths, &options, roll_up);
    for file in &totals.empty_stores {
        stderr!("dsh-session: {file}: store holds no sessions");
    }
    for (file, message) in &totals.unreadable {
        stderr!("dsh-session: {file}: {message}");
    }
    let asked = Asked {
        by,
        format: args.format,
        tz: &args.tz,
        period,
        prices_file: args.prices.as_deref(),
        table: &table,
    };
    crate::render::stats::write(out, &totals, &asked)?;
    // Another harness's log fails when it was named, not when a walk came upon it.
    let foreign_named = totals.foreign.iter().any(|n| {
        args.files
            .iter()
            .any(|f| !f.is_dir() && f.display().to_string() == n.file)
    });
    let code = if !totals.unreadable.is_empty() || empty_dirs > 0 {
        2
    } else if !totals.not_valid.is_empty() || foreign_named {
        1
    } else {
        0
    };
    Ok(ExitCode::from(code))
}
