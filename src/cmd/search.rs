//! `search QUERY [PATH]...`: full-text search over every indexed session (issue 28), exit
//! codes as grep's: 0 with hits, 1 with none, 2 on error. The search is the index's
//! ([`dsh_session::index::Index::search`]); the hits are written by
//! [`crate::render::search`].

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dsh_session::index::{Hit, Index, IndexError, Query, SessionFilter, SessionHits};
use dsh_session::view::message_rows::PartKind;

use crate::cli::SearchArgs;
use crate::render::index::{Say, open, update_with};
use crate::render::search::{Names, write_hits, write_sessions};

/// Runs `search`.
pub fn run(args: &SearchArgs, color: bool, out: &mut dyn Write) -> Result<ExitCode> {
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        bail!("search reads indexed files: name them (standard input cannot be indexed)");
    }
    let (_, period) = crate::cmd::zone_and_period(&args.tz, &args.since, &args.until)?;
    if args.query.trim().is_empty() {
        bail!("the query is empty: give the words to find");
    }
    let query = |names: &Names| Query {
        text: args.query.clone(),
        sessions: SessionFilter {
            under: names.canonical(),
            project: args.project.clone(),
            session: args.session.clone(),
            ..SessionFilter::default()
        },
        period,
        kinds: args.role.iter().map(|r| PartKind::from(*r)).collect(),
        tool: args.tool.clone(),
        include_shadowed: args.include_shadowed,
        limit: (args.limit > 0).then_some(args.limit),
    };
    let ask = |index: &Index, names: &Names| -> Result<Answer, IndexError> {
        let query = query(names);
        Ok(if args.sessions_only {
            Answer::Sessions(index.search_sessions(&query)?)
        } else {
            Answer::Hits(index.search(&query)?)
        })
    };
    let mut index = open(&args.index)?;
    // The query is asked while the update stats the file system (on 10,000 sessions most
    // of a search's time), and asked again only when the update changed the index; paths
    // that cannot be named yet are left to the update to report.
    let named = Names::given(&args.paths).ok();
    let mut empty = false;
    let mut early = None;
    if !args.no_update {
        let meanwhile = |index: &Index| named.as_ref().map(|names| ask(index, names));
        let (s, answer) = update_with(&mut index, &args.paths, Say::unless(args.quiet), meanwhile)?;
        empty = !s.empty_dirs.is_empty();
        early = answer.flatten().filter(|_| !s.wrote());
    }
    let names = match named {
        Some(names) => names,
        None => Names::given(&args.paths)?,
    };
    let answer = match early {
        Some(answer) => answer?,
        None => ask(&index, &names)?,
    };
    let found = match answer {
        Answer::Sessions(sessions) => {
            write_sessions(out, args.format, &sessions, &names)?;
            !sessions.is_empty()
        }
        Answer::Hits(hits) => {
            write_hits(out, args.format, &hits, &names, color)?;
            !hits.is_empty()
        }
    };
    Ok(ExitCode::from(match (empty, found) {
        (true, _) => 2,
        (false, true) => 0,
        (false, false) => 1,
    }))
}

/// What a search answers: hits, or with `-l` the sessions they are in.
enum Answer {
    Hits(Vec<Hit>),
    Sessions(Vec<SessionHits>),
}
