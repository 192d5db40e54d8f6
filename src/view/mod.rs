//! Views: the consumers of one scan (STYLE.md "views"). The scan drives load → check →
//! fold and hands each checked event, and each change the fold made to the surface, to the
//! views a command composes; each view computes what one output needs, and none knows
//! another. `validate` composes only the provider rules; `show` adds the counts;
//! `replacements` the replaces' details; `provenance` the citation index and the node
//! details. What the fold keeps of each surface entry beyond what its rules read (messages,
//! previews, shadowed entries) is asked for by the views that read it ([`View::keeps`]; a
//! bare [`Keep`] is a view that only asks), never by a flag on the scan.
//!
//! Adding a view is one new file implementing [`View`] and one line where a command
//! composes it ([`crate::scan::scan_path_with`]).

pub mod derived;
pub mod follow;
pub mod heal_sources;
pub mod inspect;
pub mod message_at;
pub mod message_rows;
pub mod nodes;
pub mod provenance_index;
pub mod provider;
pub mod replacements;
pub mod stats;
pub mod summary;
pub mod surface_at;
pub mod surface_list;
pub mod transcript;
pub mod usage;

use crate::check::Logical;
use crate::event::Dialect;
use crate::replay::{Keep, Replay, SurfaceChange};
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
    /// What the view reads of each surface entry beyond what the fold's rules keep (its
    /// message, its preview, the entries replaces shadow), asked of the scan once, before
    /// the first event: the fold then keeps what any composed view asks for.
    fn keeps(&self) -> Keep {
        Keep::NOTHING
    }

    /// Each change of the surface, as the fold makes it (FORMAT.md §3.2): an append, or a
    /// replace with what it shadowed. Told right before [`View::on_event`] of the same
    /// event, and only of events the views are told of.
    fn on_surface(&mut self, _change: &SurfaceChange<'_>) {}

    /// Every event, in seq order (stored events only: the closers DSH would append are
    /// checked but not shown, unless a repair asks the scan to append them).
    fn on_event(&mut self, _event: &Checked<'_, '_>) {}

    /// The `assistant/chunk` members of a packed row (v0/v1, FORMAT.md §7.4).
    fn on_packed_chunks(&mut self, _chunks: &PackedChunks<'_>) {}

    /// True when the view reads the history DSH derives after its own load
    /// ([`View::on_closed_history`]): the scan then computes the closers of an open final
    /// turn in every generation, not only where it checks them (FORMAT.md §5.1).
    fn needs_closed_history(&self) -> bool {
        false
    }

    /// Once, after the last stored event, when DSH would append closers on load (an open
    /// final turn, FORMAT.md §5.1–§5.3): the fold with the stored events and those closers
    /// (and, for a repair, the records it appends after them), before the scan forgets
    /// them. Not called when there is nothing to append: the stored history is then the
    /// one DSH loads.
    fn on_closed_history(&mut self, _replay: &Replay) {}

    /// Once, after the last event, with the verdict made: a view may add its findings to
    /// `report.warnings` (only for a log that is not corrupt or refused).
    fn finish(&mut self, _report: &mut Report) {}
}

/// A bare request: the fold keeps these parts of each surface entry, for a command that reads
/// them from the finished report (`messages`, `surface`, `export`).
impl View for Keep {
    fn keeps(&self) -> Keep {
        *self
    }
}
