//! Views: the consumers of one scan (STYLE.md "views"). The scan drives load → check →
//! fold and hands each checked event to the views a command composes; each view computes
//! what one output needs, and none knows another. `validate` composes only the provider
//! rules; `show` adds the counts; `provenance` the node details.
//!
//! Adding a view is one new file implementing [`View`] and one line where a command
//! composes it ([`crate::scan::scan_path_with`]).

pub mod follow;
pub mod heal_sources;
pub mod inspect;
pub mod message_rows;
pub mod nodes;
pub mod provider;
pub mod stats;
pub mod surface_at;
pub mod transcript;
pub mod usage;

use crate::check::Logical;
use crate::event::Dialect;
use crate::replay::Replay;
use crate::scan::report::Report;

/// One event as the scan hands it to the views, after the checks and the fold took it.
pub struct Checked<'a, 'e> {
    /// The event's seq.
    pub seq: u64,
    /// Its 1-based line in the decoded text (for SQLite, the row's seq).
    pub line: u64,
    /// The event after HEAD's legacy conversions (FORMAT.md §9.3).
    pub event: &'a Logical<'e>,
    /// The log's generation rules.
    pub dialect: &'static Dialect,
    /// The fold took this event without a finding (false once a per-event check failed).
    pub folded: bool,
    /// The fold right after this event: the surface as it stands.
    pub replay: &'a Replay,
}

/// The `assistant/chunk` members of one packed row (v0/v1, FORMAT.md §7.4): valid events by
/// construction, so they are handed over in one call.
pub struct PackedChunks<'a> {
    /// The first member's seq; the others follow one by one.
    pub first_seq: u64,
    /// Each member's time, ms since the Unix epoch.
    pub times: &'a [i64],
    /// The fold took every member.
    pub folded: bool,
    /// The fold after the last member.
    pub replay: &'a Replay,
}

/// A consumer of one scan. Every method has a default that does nothing, so a view
/// implements only what it reads.
pub trait View {
    /// Every event, in seq order (stored events only: the closers DSH would append are
    /// checked but not shown, unless a repair asks the scan to append them).
    fn on_event(&mut self, _event: &Checked<'_, '_>) {}

    /// The `assistant/chunk` members of a packed row (v0/v1, FORMAT.md §7.4).
    fn on_packed_chunks(&mut self, _chunks: &PackedChunks<'_>) {}

    /// Once, after the last event, with the verdict made: a view may add its findings to
    /// `report.warnings` (only for a log that is not corrupt or refused).
    fn finish(&mut self, _report: &mut Report) {}
}
