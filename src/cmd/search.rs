//! `search QUERY [PATH]...`: full-text search over every indexed session (issue 28), exit
//! codes as grep's: 0 with hits, 1 with none, 2 on error. The search is the index's
//! ([`dsh_session::index::Index::search`]); the hits are written by
//! [`crate::render::search`].

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use dsh_session::index::{Query, SessionFilter};
use dsh_session::view::message_rows::PartKind;

use crate::cli::SearchArgs;
use crate::render::index::{Say, open, update};
use crate::render::search::{Names, write_hits, write_sessions};

/// Runs `search`.
pub fn run(args: &SearchArgs, color: bool, out: &mut dyn Write) -> Result<ExitCode> {
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        bail!("search reads indexed files: name them (standard input cannot be indexed)");
    }
    let tz = jiff::tz::TimeZone::get(&args.tz).with_context(|| format!("--tz {:?}", args.tz))?;
    let when = |flag, text: &Option<String>, end| {
        text.as_deref()
            .map(|t| dsh_session::stats::parse_when(flag, t, &tz, end))
            .transpose()
    };
    let (since, until) = (
        when("--since", &args.since, false)?,
        when("--until", &args.until, true)?,
    );
    if args.query.trim().is_empty() {
        bail!("the query is empty: give the words to find");
    }
    let mut index = open(&args.index)?;
    let mut empty = false;
    if !args.no_update {
        let s = update(&mut index, &args.paths, Say::unless(args.quiet))?;
        empty = !s.empty_dirs.is_empty();
    }
    let names = Names::given(&args.paths)?;
    let query = Query {
        text: args.query.clone(),
        sessions: SessionFilter {
            under: names.canonical(),
            project: args.project.clone(),
            session: args.session.clone(),
            ..SessionFilter::default()
        },
        since,
        until,
        kinds: args.role.iter().map(|r| PartKind::from(*r)).collect(),
        tool: args.tool.clone(),
        include_shadowed: args.include_shadowed,
        limit: (args.limit > 0).then_some(args.limit),
    };
    let found = if args.sessions_only {
        let sessions = index.search_sessions(&query)?;
        write_sessions(out, args.format, &sessions, &names)?;
        !sessions.is_empty()
    } else {
        let hits = index.search(&query)?;
        write_hits(out, args.format, &hits, &names, color)?;
        !hits.is_empty()
    };
    Ok(ExitCode::from(match (empty, found) {
        (true, _) => 2,
        (false, true) => 0,
        (false, false) => 1,
    }))
}
