//! What `show` tells of one session, composed from one scan: the counts and turn rows
//! ([`Stats`]), the provider rules' warnings, where a session dsh-session wrote came from
//! ([`Derived`]), and its cost at the built-in prices ([`usage`]).

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use crate::prices::PriceTable;
use crate::scan::{Report, ScanError, ScanOptions, scan_path_with};
use crate::view::View;
use crate::view::derived::Derived;
use crate::view::provider::ProviderRules;
use crate::view::stats::Stats;
use crate::view::usage::{self, Counts, LogUsage};

/// One session's summary: what the views of its scan computed.
#[derive(Debug)]
pub struct Summary {
    /// Counts, models, presets and the turn rows.
    pub stats: Stats,
    /// Where a session dsh-session wrote came from.
    pub derived: Derived,
    /// The cost of the session's own events at the built-in prices, per currency, and the
    /// models without a price.
    pub cost: Counts,
}

/// The options `show` reads a log with (of `session` in a store): verdicts of both DSH
/// lines, so that the summary can say what each does with the log.
pub fn options(session: Option<String>) -> ScanOptions {
    ScanOptions {
        session,
        dsh: crate::edge::Judge::default().with_both_lines(),
        ..ScanOptions::default()
    }
}

/// Scans the log at `path` with `options` for its [`Summary`] (the provider rules' view
/// adds its warnings to the report).
///
/// # Errors
/// As [`scan_path_with`].
pub fn scan(path: &Path, options: &ScanOptions) -> Result<(Report, Summary), ScanError> {
    let mut stats = Stats::with_turn_rows();
    let mut provider = ProviderRules::default();
    let mut derived = Derived::default();
    let (mut priced, sink): (_, Rc<RefCell<Vec<LogUsage>>>) =
        usage::session_view(Arc::new(PriceTable::built_in().clone()));
    let views: &mut [&mut dyn View] = &mut [&mut stats, &mut provider, &mut derived, &mut priced];
    let report = scan_path_with(path, options, views)?;
    let cost = usage::total(&sink);
    Ok((
        report,
        Summary {
            stats,
            derived,
            cost,
        },
    ))
}
