//! What the fold tells of each event it takes onto the surface (FORMAT.md §3.1, §3.2), and
//! what it keeps of each entry beyond what the rules read. A consumer that needs more than
//! the surface the rules keep (each replace's details, the citation index) builds it from
//! these changes, in a view of its own ([`crate::view::View::on_surface`]); the texts and
//! the shadowed entries stay in the fold's compact storage, kept when a view asks
//! ([`crate::view::View::keeps`]).

/// How one event changed the surface, as the fold made the change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceChange<'a> {
    /// The event's seq.
    pub seq: u64,
    /// Its type (after legacy conversion).
    pub ty: &'a str,
    /// Its `sourceEventSeqs`, range pairs expanded, in stored order (empty when absent).
    pub cites: &'a [u64],
    /// For a replace: what it took off the surface; `None` for an append.
    pub replace: Option<Replaced<'a>>,
}

/// What a replace took off the surface (FORMAT.md §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replaced<'a> {
    /// 1 for the first replace of the log, then 2, 3 …
    pub generation: u64,
    /// Declared start seq.
    pub start: u64,
    /// Declared end seq.
    pub end: u64,
    /// The seqs removed from the surface, in surface order.
    pub shadowed: &'a [u64],
    /// Surface length before the replace.
    pub len_before: usize,
    /// Surface length after the replace.
    pub len_after: usize,
}

/// What the fold keeps of each surface entry beyond what the rules read (memory and time
/// grow with each): asked for by the views that read them ([`crate::view::View::keeps`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Keep {
    /// The derived message bytes (`messages`, `export`).
    pub messages: bool,
    /// A one-line preview (`surface`).
    pub previews: bool,
    /// The entries replaces take off the surface (`surface --all`, `export`).
    pub shadowed: bool,
}

impl Keep {
    /// Nothing beyond what the rules read.
    pub const NOTHING: Keep = Keep {
        messages: false,
        previews: false,
        shadowed: false,
    };
    /// Each entry's derived message.
    pub const MESSAGES: Keep = Keep {
        messages: true,
        ..Keep::NOTHING
    };
    /// Each entry's one-line preview.
    pub const PREVIEWS: Keep = Keep {
        previews: true,
        ..Keep::NOTHING
    };

    /// What either keeps.
    pub fn and(self, other: Keep) -> Keep {
        Keep {
            messages: self.messages || other.messages,
            previews: self.previews || other.previews,
            shadowed: self.shadowed || other.shadowed,
        }
    }

    /// True when texts (messages or previews) are kept.
    pub fn texts(self) -> bool {
        self.messages || self.previews
    }
}
