//! A surface entry going into the fold ([`SurfaceInput`]) and read back from it
//! ([`SurfaceEntry`]): one at a time from the fold's compact storage, with the texts a view
//! asked it to keep (FORMAT.md §3, §4).

use std::borrow::Cow;
use std::io;

use crate::json::Json;
use crate::replay::Replay;
use crate::replay::arena::{Fields, ROLES};
use crate::replay::text::TextRef;

/// How an event joined the surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceOp {
    /// `"append"`
    Append,
    /// `{"op":"replace","start":S,"end":E}`: `start` and `end` are seqs.
    Replace {
        /// First shadowed seq (in surface order).
        start: u64,
        /// Last shadowed seq (in surface order).
        end: u64,
    },
}

impl std::fmt::Display for SurfaceOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SurfaceOp::Append => f.write_str("append"),
            SurfaceOp::Replace { start, end } => write!(f, "replace {start}..{end}"),
        }
    }
}

/// One entry of the surface, with what the views need to show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurfaceEntry {
    /// The event's seq.
    pub seq: u64,
    /// The event type (after legacy conversion): one of the dialect's surface types, or
    /// owned for a type outside them (June 2026 logs accept any).
    pub ty: Cow<'static, str>,
    /// How it joined.
    pub op: SurfaceOp,
    /// Number of entries it shadowed (0 for an append).
    pub shadowed: usize,
    /// The message role, when the event carries a message (borrowed for the roles DSH
    /// writes, so that a surface entry holds no copy of them).
    pub role: Option<Cow<'static, str>>,
    /// The message id as stored, quotes included, of a `tool/result` in a dialect with
    /// legacy conversions (a v0 legacy `tool/result` replace takes the id of the result it
    /// replaces); `None` for other entries, which no rule reads it of.
    pub message_id: Option<String>,
    /// A short one-line text preview (at most 60 characters); empty unless a view asked
    /// the fold to keep previews ([`crate::replay::Keep::previews`]).
    pub preview: String,
    /// The derived message (FORMAT.md §4), byte for byte, when the fold was asked to keep
    /// messages and the event projects to one.
    pub message: Option<String>,
    /// Tool-call ids the derived message announces (assistant `tool-call` blocks).
    pub calls: Vec<String>,
    /// Tool-call ids the derived message answers (`tool-result` blocks).
    pub results: Vec<String>,
    /// The event's line (header = line 1; for SQLite, the row's seq), when known.
    pub line: Option<u64>,
    /// What a provider sees of the derived message; `None` when the event projects to no
    /// message (FORMAT.md §4).
    pub shape: Option<crate::provider::Shape>,
}

/// What the fold needs to know about one surface-eligible event.
#[derive(Debug, Clone)]
pub struct SurfaceInput<'e> {
    /// The event's seq (already checked by E3/E7).
    pub seq: u64,
    /// The (converted) type.
    pub ty: &'e str,
    /// `surfaceOp`, when present.
    pub surface_op: Option<Json<'e>>,
    /// `sourceEventSeqs`, when present.
    pub source_event_seqs: Option<Json<'e>>,
    /// The (converted) `data`.
    pub data: Option<Json<'e>>,
    /// The derived message text, when it projects to one and messages are kept.
    pub message: Option<&'e str>,
    /// The message role.
    pub role: Option<&'e str>,
    /// The message id token, quotes included.
    pub message_id: Option<&'e str>,
    /// The text preview.
    pub preview: &'e str,
    /// Tool-call ids the derived message announces.
    pub calls: Vec<String>,
    /// Tool-call ids the derived message answers.
    pub results: Vec<String>,
    /// The event's line, when known.
    pub line: Option<u64>,
    /// What a provider sees of the derived message, when the event projects to one.
    pub shape: Option<crate::provider::Shape>,
}

impl<'e> SurfaceInput<'e> {
    /// An event that only takes part in the surface rules: no data and no derived message
    /// (the fold's own tests, the fuzz entry points and the property tests).
    pub fn surface_only(
        seq: u64,
        ty: &'e str,
        surface_op: Option<Json<'e>>,
        source_event_seqs: Option<Json<'e>>,
    ) -> Self {
        SurfaceInput {
            seq,
            ty,
            surface_op,
            source_event_seqs,
            data: None,
            message: None,
            role: None,
            message_id: None,
            preview: "",
            calls: Vec::new(),
            results: Vec::new(),
            line: None,
            shape: None,
        }
    }
}

/// `text` borrowed from `known` when it is one of them, else owned.
fn static_or_owned(text: &str, known: &[&'static str]) -> Cow<'static, str> {
    match known.iter().find(|k| **k == text) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(text.to_owned()),
    }
}

impl Replay {
    /// Entries that left the surface, in seq order, when kept ([`Replay::keeping_shadowed`]).
    ///
    /// # Errors
    /// As [`Replay::iter`].
    pub fn shadowed_entries(&self) -> io::Result<Vec<SurfaceEntry>> {
        self.arena.kept().map(|at| self.entry(at)).collect()
    }

    /// The seqs of the kept shadowed entries, in seq order ([`Replay::keeping_shadowed`]).
    pub fn shadowed_seqs(&self) -> impl Iterator<Item = u64> + '_ {
        self.arena.kept().map(|at| self.arena.seq(at))
    }

    /// The entry with `seq`, on the surface or kept after a replace shadowed it; `None`
    /// for any other seq.
    ///
    /// # Errors
    /// As [`Replay::iter`].
    pub fn entry_by_seq(&self, seq: u64) -> Option<io::Result<SurfaceEntry>> {
        self.arena.find_listed(seq).map(|at| self.entry(at))
    }

    /// The surface entries in order, each read back from the fold's compact storage (one at
    /// a time: the iterator holds no copy of the surface).
    ///
    /// # Errors
    /// An item is an error when a kept text cannot be read back from the spill file
    /// ([`Replay::spilling_texts_after`]); texts kept in memory cannot fail.
    pub fn iter(&self) -> impl Iterator<Item = io::Result<SurfaceEntry>> + '_ {
        self.arena.order().map(|at| self.entry(at))
    }

    /// The surface entries in order without their kept texts (`message` is `None`,
    /// `preview` empty): nothing is read back, so nothing can fail.
    pub fn iter_without_texts(&self) -> impl Iterator<Item = SurfaceEntry> + '_ {
        (self.arena.order()).map(|at| self.owned(self.arena.view(at), None, String::new()))
    }

    /// The surface entries in order, as [`Replay::iter`] reads them.
    ///
    /// # Errors
    /// As [`Replay::iter`].
    pub fn entries(&self) -> io::Result<Vec<SurfaceEntry>> {
        self.iter().collect()
    }

    /// The entry in slot `at`, owned.
    fn entry(&self, at: u32) -> io::Result<SurfaceEntry> {
        self.entry_of(self.arena.view(at))
    }

    /// An entry read back, owned, with its texts.
    fn entry_of(&self, v: Fields<'_>) -> io::Result<SurfaceEntry> {
        let text = |r: Option<TextRef>| -> io::Result<Option<String>> {
            r.map(|r| self.texts.get(r).map(Cow::into_owned))
                .transpose()
        };
        let (message, preview) = (text(v.message)?, text(v.preview)?);
        Ok(self.owned(v, message, preview.unwrap_or_default()))
    }

    /// An entry read back, owned, with the texts given.
    fn owned(&self, v: Fields<'_>, message: Option<String>, preview: String) -> SurfaceEntry {
        SurfaceEntry {
            seq: v.seq,
            ty: static_or_owned(v.ty, self.dialect.surface_types),
            op: match v.replace {
                Some((start, end, _)) => SurfaceOp::Replace { start, end },
                None => SurfaceOp::Append,
            },
            shadowed: v.replace.map_or(0, |(_, _, n)| n as usize),
            role: v.role.map(|r| static_or_owned(r, &ROLES)),
            message_id: v.message_id.map(str::to_owned),
            preview,
            message,
            calls: v.calls.to_vec(),
            results: v.results.to_vec(),
            line: v.line,
            shape: v.shape,
        }
    }
}
