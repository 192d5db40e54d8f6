//! The surface fold: rules S1–S18 as an incremental fold (FORMAT.md §3).
//!
//! The surface is kept as a doubly linked list over compact slots in seq order
//! (`arena.rs`), so that feeding one event costs O(that event) plus, for a replace,
//! O(log surface + number of shadowed entries): a replace finds its `start` and `end` by
//! binary search and walks from one to the other, and every entry it walks over is removed.
//! Each seq is removed at most once, so a whole log folds in O(events × log surface + cited
//! seqs). An entry costs its 32-byte slot and the bytes of its tool-call ids (plus, for a
//! `tool/result` in a strict dialect, its 16-byte S18 hash); kept texts (messages,
//! previews) go to a [`TextStore`], which may spill to a temporary file. No other I/O.

mod arena;
mod snapshot;
pub mod text;
pub mod window;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io;

use crate::provider::CallIds;

use arena::{Arena, Fields, NIL, ROLES};
pub use text::{TextRef, TextStore};

use crate::event::Dialect;
use crate::json::{Json, Kind};
use crate::rules::{Class, Finding, Rule};

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
    /// A short one-line text preview (at most 60 characters); empty unless the scan asked
    /// for previews (`ScanOptions::previews`).
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

/// One committed replace, in log order (FORMAT.md §3.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// 1 for the first replace of the log, then 2, 3 …
    pub generation: u64,
    /// The replacing event's seq.
    pub seq: u64,
    /// The replacing event's type.
    pub ty: String,
    /// Declared start seq.
    pub start: u64,
    /// Declared end seq.
    pub end: u64,
    /// The seqs removed from the surface, in surface order.
    pub shadowed: Vec<u64>,
    /// Surface length before the replace.
    pub len_before: usize,
    /// Surface length after the replace.
    pub len_after: usize,
}

/// Provenance as recorded by the fold (FORMAT.md §1.2, §3): who cites whom and who
/// shadowed whom. Its size is proportional to the number of cited seqs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProvenanceIndex {
    /// Citing seq → its `sourceEventSeqs`, in stored order.
    pub sources: HashMap<u64, Vec<u64>>,
    /// Shadowed seq → the seq of the replace that shadowed it.
    pub shadowed_by: HashMap<u64, u64>,
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

/// The surface validator as a fold. Feed events in seq order with [`Replay::push_surface`] and [`Replay::push_log_only`].
#[derive(Debug, Clone)]
pub struct Replay {
    dialect: &'static Dialect,
    /// The surface entries (and, when kept, the shadowed ones).
    arena: Arena,
    /// Kept texts: derived messages and previews.
    texts: TextStore,
    next_seq: u64,
    replacements: Vec<Replacement>,
    /// Replaces committed so far (also when their details are not kept).
    replacement_count: u64,
    /// Keep each replace's details in `replacements`.
    replacement_history: bool,
    warnings: Vec<Finding>,
    provenance: Option<ProvenanceIndex>,
    /// Keep the entries replaces shadow (`surface --all`).
    keep_shadowed: bool,
    /// The protected system head (v3, v4): the seq of the system message that heads the
    /// surface, when there is one.
    system_head: Option<u64>,
    /// A v0 log used range-encoded provenance: the 0.1.2-alpha dialect.
    alpha_dialect: bool,
    /// The last event's citations, kept for its allocation.
    cites: Vec<u64>,
}

/// Where a [`Replay`] stood ([`Replay::mark`]).
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    arena: arena::ArenaMark,
    texts: text::TextMark,
    next_seq: u64,
    warnings: usize,
    system_head: Option<u64>,
    alpha_dialect: bool,
    replacement_count: u64,
}

type Step = Result<(), (Rule, String)>;

impl Replay {
    /// An empty surface for a log of the given dialect.
    pub fn new(dialect: &'static Dialect) -> Self {
        Replay {
            dialect,
            arena: Arena::new(dialect.surface_types),
            texts: TextStore::in_memory(),
            next_seq: 0,
            replacements: Vec::new(),
            replacement_count: 0,
            replacement_history: true,
            warnings: Vec::new(),
            provenance: None,
            keep_shadowed: false,
            system_head: None,
            alpha_dialect: false,
            cites: Vec::new(),
        }
    }

    /// Also records the provenance index (see [`Replay::provenance`]).
    pub fn with_provenance(mut self) -> Self {
        self.provenance = Some(ProvenanceIndex::default());
        self
    }

    /// Keeps only the number of replaces ([`Replay::replacement_count`]), not their details
    /// ([`Replay::replacements`] stays empty), so that memory does not grow with the log's
    /// history.
    pub fn counting_replacements_only(mut self) -> Self {
        self.replacement_history = false;
        self
    }

    /// Also keeps every shadowed entry (see [`Replay::shadowed_entries`]).
    pub fn keeping_shadowed(mut self) -> Self {
        self.keep_shadowed = true;
        self
    }

    /// Where the fold stands, to go back to with [`Replay::back_to`] after events that only
    /// append (a crash repair's closers, checked and then forgotten): far cheaper than a
    /// clone of the whole surface. Until then, nothing is compacted or spilled.
    pub fn mark(&mut self) -> Mark {
        Mark {
            arena: self.arena.mark(),
            texts: self.texts.mark(),
            next_seq: self.next_seq,
            warnings: self.warnings.len(),
            system_head: self.system_head,
            alpha_dialect: self.alpha_dialect,
            replacement_count: self.replacement_count,
        }
    }

    /// Goes back to `mark`: the events folded since are forgotten. False, with the fold
    /// left as it is, when one of them was a replace (only appends can be undone).
    pub fn back_to(&mut self, mark: Mark) -> bool {
        // A replace takes entries off the surface, which the arena sees.
        let back =
            self.arena.back_to(mark.arena) && self.replacement_count == mark.replacement_count;
        self.texts.back_to(mark.texts, back);
        if !back {
            return false;
        }
        if let Some(index) = &mut self.provenance {
            for seq in mark.next_seq..self.next_seq {
                index.sources.remove(&seq);
            }
        }
        self.next_seq = mark.next_seq;
        self.warnings.truncate(mark.warnings);
        self.system_head = mark.system_head;
        self.alpha_dialect = mark.alpha_dialect;
        true
    }

    /// Keeps messages and previews in memory up to `limit` bytes, then in a temporary file
    /// (see [`TextStore`]); reading them back ([`Replay::iter`]) may then fail with an I/O
    /// error. By default they stay in memory.
    pub fn spilling_texts_after(mut self, limit: usize) -> Self {
        self.texts = TextStore::spilling_after(limit);
        self
    }

    /// True when a v0 log turned out to be the 0.1.2-alpha dialect (range pairs seen).
    pub fn alpha_dialect(&self) -> bool {
        self.alpha_dialect
    }

    /// The provenance index, when recorded.
    pub fn provenance(&self) -> Option<&ProvenanceIndex> {
        self.provenance.as_ref()
    }

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

    /// Number of entries on the surface.
    pub fn len(&self) -> usize {
        self.arena.len()
    }

    /// True when the surface is empty.
    pub fn is_empty(&self) -> bool {
        self.arena.len() == 0
    }

    /// The seq the next event must have.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Every committed replace so far, in log order (empty when the fold was built with
    /// [`Replay::counting_replacements_only`]).
    pub fn replacements(&self) -> &[Replacement] {
        &self.replacements
    }

    /// The number of committed replaces so far.
    pub fn replacement_count(&self) -> u64 {
        self.replacement_count
    }

    /// Rules a June-era log broke that June's loader did not enforce (FORMAT.md §9.2).
    pub fn warnings(&self) -> &[Finding] {
        &self.warnings
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

    /// The provider rules (P1–P7, [`crate::provider::check`]) on the derived history: the
    /// surface entries that project to a message, in order, read in place. `system_prompt`:
    /// the request header in force has a system prompt (sent as message 0 by
    /// OpenAI-compatible adapters). Memory: what [`crate::provider::check`] keeps.
    pub fn provider_findings(&self, system_prompt: bool) -> Vec<Finding> {
        crate::provider::check(&SurfaceHistory { arena: &self.arena }, system_prompt)
    }

    /// The surface as a list of seqs.
    pub fn seqs(&self) -> Vec<u64> {
        self.arena.order().map(|at| self.arena.seq(at)).collect()
    }

    /// True when `seq` is on the surface now.
    pub fn contains(&self, seq: u64) -> bool {
        self.arena.find(seq).is_some()
    }

    /// The message id (quotes included) of a surface entry, in dialects with legacy
    /// conversions: the stored id of a `tool/result` (see [`SurfaceEntry::message_id`]);
    /// for another entry whose id is a non-empty string, the stand-in `"-"` (a legacy
    /// `tool/result` replace of it is refused by S17 whatever the id).
    pub fn message_id(&self, seq: u64) -> Option<&str> {
        let v = self.arena.view(self.arena.find(seq)?);
        v.message_id.or(v.string_id.then_some("\"-\""))
    }

    /// Feeds a non-surface event (S1–S3).
    ///
    /// # Errors
    /// S1, S2 or S3 with a one-line message; the surface is unchanged.
    pub fn push_log_only(
        &mut self,
        seq: u64,
        ty: &str,
        surface_op: bool,
        sources: bool,
    ) -> Result<(), (Rule, String)> {
        self.check_seq(seq)?;
        if surface_op {
            self.lenient(
                Rule::S2,
                seq,
                format!("{ty} is not surface-eligible and cannot carry surfaceOp"),
            )?;
        }
        if sources {
            self.lenient(
                Rule::S3,
                seq,
                format!("{ty} is not surface-eligible and cannot carry sourceEventSeqs"),
            )?;
        }
        self.next_seq = seq + 1;
        Ok(())
    }

    fn check_seq(&self, seq: u64) -> Step {
        if seq != self.next_seq {
            return Err((
                Rule::S1,
                format!(
                    "seq is not contiguous; expected {}, found {seq}",
                    self.next_seq
                ),
            ));
        }
        Ok(())
    }

    /// A rule June 2026 did not enforce becomes a warning there (FORMAT.md §9.2).
    fn lenient(&mut self, rule: Rule, seq: u64, message: String) -> Step {
        if self.dialect.strict {
            return Err((rule, message));
        }
        let mut f = Finding::new(rule, Some(seq), None, message);
        f.class = Class::Warning;
        self.warnings.push(f);
        Ok(())
    }

    /// Feeds a surface-eligible event (S1, S4–S18) and applies it.
    ///
    /// # Errors
    /// The first rule broken, in FORMAT.md §3.2 order; the surface is unchanged.
    pub fn push_surface(&mut self, input: SurfaceInput<'_>) -> Step {
        let seq = input.seq;
        self.check_seq(seq)?;
        let Some(op_json) = input.surface_op else {
            return Err((
                Rule::S4,
                format!(
                    "{} is surface-eligible and requires a surfaceOp marker",
                    input.ty
                ),
            ));
        };
        let op = parse_surface_op_keys(op_json, self.dialect.replace_keys)?;
        let shadowed = match op {
            SurfaceOp::Append => Vec::new(),
            SurfaceOp::Replace { start, end } => self.locate_range(start, end)?,
        };
        let cites = self.check_sources(seq, input.ty, input.source_event_seqs)?;
        if let SurfaceOp::Replace { .. } = op
            && let cited = cites.iter().copied().collect::<HashSet<u64>>()
            && let Some(missing) = shadowed.iter().find(|s| !cited.contains(s))
        {
            self.lenient(
                Rule::S15,
                seq,
                format!("replace sourceEventSeqs must include every shadowed surface node; missing {missing}"),
            )?;
        }
        self.check_system_head(seq, input.ty, op, &shadowed)?;
        // v0–v3 results may change only the wrapper block's content; v4 results (no wrapper)
        // only `message.content` (GENERATIONS §1.6).
        let content_free: &[&str] = if self.dialect.tool_role_results {
            &["message", "content"]
        } else {
            &["message", "content", "0", "content"]
        };
        // Only S18 reads the hash, and only in strict dialects: hash once, and only then.
        let content_free_hash = (input.ty == "tool/result" && self.dialect.strict)
            .then(|| {
                input
                    .data
                    .map(|d| crate::json::canonical_hash(d, content_free))
            })
            .flatten();
        if input.ty == "tool/result"
            && self.dialect.strict
            && let SurfaceOp::Replace { .. } = op
        {
            if shadowed.len() != 1 {
                return Err((
                    Rule::S16,
                    format!(
                        "tool/result replace must rewrite exactly one current node; range shadows {}",
                        shadowed.len()
                    ),
                ));
            }
            let target = self.arena.view(self.arena.find(shadowed[0]).unwrap_or(NIL));
            if target.ty != "tool/result" {
                return Err((
                    Rule::S17,
                    format!(
                        "tool/result replace must target a current tool/result; seq {} is {}",
                        target.seq, target.ty
                    ),
                ));
            }
            if target.hash != content_free_hash {
                return Err((
                    Rule::S18,
                    format!(
                        "tool/result replace of seq {} may change only the tool-result content",
                        target.seq
                    ),
                ));
            }
        }
        // Accepted: apply.
        match &mut self.provenance {
            Some(index) if !cites.is_empty() => {
                index.sources.insert(seq, cites);
            }
            _ => self.cites = cites,
        }
        if self.dialect.system_head && input.ty == "system/message" {
            let head_replaced =
                matches!(op, SurfaceOp::Replace { .. }) && self.system_head == Some(shadowed[0]);
            if self.arena.len() == 0 || head_replaced {
                self.system_head = Some(seq);
            }
        }
        let legacy_ids = self.dialect.legacy_conversions;
        let is_result = input.ty == "tool/result";
        let message = input.message.map(|m| self.texts.push(m));
        let preview = (!input.preview.is_empty()).then(|| self.texts.push(input.preview));
        let mut parts = Fields {
            seq,
            line: input.line,
            ty: input.ty,
            role: input.role,
            replace: None,
            // Only a legacy `tool/result` replace reads an id, of the entry it replaces: a
            // `tool/result` (S17 refuses any other target after M1 saw whether the id it
            // took is a non-empty string, which is all that is kept for other entries).
            message_id: input.message_id.filter(|_| legacy_ids && is_result),
            string_id: legacy_ids
                && !is_result
                && input
                    .message_id
                    .is_some_and(|id| id.len() > 2 && id.starts_with('"')),
            calls: CallIds::List(&input.calls),
            results: CallIds::List(&input.results),
            hash: content_free_hash,
            shape: input.shape,
            message,
            preview,
        };
        match op {
            SurfaceOp::Append => {
                self.arena.insert_after(self.arena.tail(), &parts);
            }
            SurfaceOp::Replace { start, end } => {
                let len_before = self.arena.len();
                let first = self.arena.find(shadowed[0]).unwrap_or(NIL);
                let prev = self.arena.prev(first);
                for s in &shadowed {
                    if let Some(at) = self.arena.find(*s) {
                        self.arena.unlink(at, self.keep_shadowed);
                    }
                    if let Some(index) = &mut self.provenance {
                        index.shadowed_by.insert(*s, seq);
                    }
                }
                parts.replace = Some((start, end, shadowed.len() as u64));
                self.arena.insert_after(prev, &parts);
                self.replacement_count += 1;
                if self.replacement_history {
                    self.replacements.push(Replacement {
                        generation: self.replacement_count,
                        seq,
                        ty: input.ty.to_owned(),
                        start,
                        end,
                        shadowed,
                        len_before,
                        len_after: self.arena.len(),
                    });
                }
            }
        }
        self.arena.compact_if_sparse();
        self.next_seq = seq + 1;
        Ok(())
    }

    /// G5, the protected system head of v3 and v4 (GENERATIONS §6, §7): a system message
    /// may head only an empty surface or replace the head alone; nothing else may remove it.
    fn check_system_head(&self, seq: u64, ty: &str, op: SurfaceOp, shadowed: &[u64]) -> Step {
        if !self.dialect.system_head {
            return Ok(());
        }
        let g5 = |what: String| Err((Rule::G5, format!("protected system head: {what}")));
        if ty == "system/message" && self.system_head.is_none() && self.arena.len() > 0 {
            return g5(format!(
                "system/message at seq {seq} on a surface whose first node is not a system message"
            ));
        }
        if let (Some(head), SurfaceOp::Replace { .. }) = (self.system_head, op)
            && shadowed.contains(&head)
            && !(ty == "system/message" && shadowed == [head])
        {
            return g5(format!(
                "{ty} at seq {seq} would remove the system head {head}; only a system/message replacing exactly the head may"
            ));
        }
        Ok(())
    }

    /// S7–S9: the shadowed seqs from `start` to `end` in surface order.
    fn locate_range(&self, start: u64, end: u64) -> Result<Vec<u64>, (Rule, String)> {
        let Some(first) = self.arena.find(start) else {
            return Err((
                Rule::S7,
                format!("replace start seq {start} not found in surface"),
            ));
        };
        if self.arena.find(end).is_none() {
            return Err((
                Rule::S8,
                format!("replace end seq {end} not found in surface"),
            ));
        }
        let mut shadowed = Vec::new();
        let mut cur = first;
        while cur != NIL {
            let seq = self.arena.seq(cur);
            shadowed.push(seq);
            if seq == end {
                return Ok(shadowed);
            }
            cur = self.arena.next(cur);
        }
        let position = |seq| self.seqs().iter().position(|s| *s == seq).unwrap_or(0);
        Err((
            Rule::S9,
            format!(
                "replace start seq {start} (index {}) is after end seq {end} (index {})",
                position(start),
                position(end)
            ),
        ))
    }

    /// S10–S14; returns the cited seqs.
    fn check_sources(
        &mut self,
        seq: u64,
        ty: &str,
        sources: Option<Json<'_>>,
    ) -> Result<Vec<u64>, (Rule, String)> {
        let mut order = std::mem::take(&mut self.cites);
        order.clear();
        // Citations in increasing order (as DSH writes them) cannot repeat: the set that
        // finds repeats is built only once an element is not above the one before it.
        let mut cited: Option<HashSet<u64>> = None;
        let Some(sources) = sources else {
            return Ok(order);
        };
        if !self.dialect.assistant_sources && ty == "assistant/message" {
            return Err((
                Rule::G4,
                format!(
                    "assistant/message must omit sourceEventSeqs from {} on",
                    self.dialect.era.name()
                ),
            ));
        }
        if !sources.is_array() {
            self.lenient(
                Rule::S10,
                seq,
                format!(
                    "sourceEventSeqs must be an array when present, found {}",
                    sources.kind().name()
                ),
            )?;
            return Ok(order);
        }
        if sources.is_empty() && (ty != "assistant/message" || !self.dialect.strict) {
            self.lenient(
                Rule::S11,
                seq,
                format!("sourceEventSeqs must not be empty except on assistant/message ({ty})"),
            )?;
        }
        let mut duplicate = None;
        let mut not_earlier = None;
        let mut pairs = false;
        for element in sources.elements() {
            // v0 as 0.1.2-alpha writes it uses range pairs too (GENERATIONS §3): read them
            // with the frozen v0/v1 codec and mark the log as that dialect.
            // In v0 only a well-formed pair is the alpha form; anything else stays S12.
            let alpha_pair = self.dialect.generation == 0
                && self.dialect.strict
                && element.len() == 2
                && element.elements().all(|e| e.as_seq().is_some());
            let ranges = self.dialect.range_provenance || alpha_pair;
            let run = match (element.as_seq(), ranges && element.is_array()) {
                (Some(cite), _) => cite..=cite,
                (None, true) => {
                    let ends: Vec<Option<u64>> = element.elements().map(Json::as_seq).collect();
                    let (Some(Some(start)), Some(Some(end)), 2) =
                        (ends.first().copied(), ends.get(1).copied(), ends.len())
                    else {
                        return Err((
                            Rule::G3,
                            format!(
                                "range pair must be [start, end] of seqs, found {}",
                                element.raw()
                            ),
                        ));
                    };
                    if start > end || end >= seq || order.len() as u64 + (end - start + 1) > seq {
                        return Err((
                            Rule::G3,
                            format!(
                                "range pair {} must have start <= end < {seq}",
                                element.raw()
                            ),
                        ));
                    }
                    pairs = true;
                    if !self.dialect.range_provenance {
                        self.alpha_dialect = true;
                    }
                    start..=end
                }
                (None, false) => {
                    self.lenient(
                        Rule::S12,
                        seq,
                        format!(
                            "sourceEventSeqs must contain non-negative safe integers, found {}",
                            element.raw()
                        ),
                    )?;
                    continue;
                }
            };
            for cite in run {
                let repeated = match &mut cited {
                    None if order.last().is_none_or(|&last| last < cite) => false,
                    None => !cited.insert(order.iter().copied().collect()).insert(cite),
                    Some(set) => !set.insert(cite),
                };
                if repeated {
                    duplicate.get_or_insert(cite);
                }
                if cite >= seq {
                    not_earlier.get_or_insert(cite);
                }
                order.push(cite);
            }
        }
        if pairs && order.windows(2).any(|w| w[0] >= w[1]) {
            return Err((
                Rule::G3,
                "sourceEventSeqs with range pairs must expand to a strictly increasing list".into(),
            ));
        }
        if let Some(d) = duplicate {
            self.lenient(
                Rule::S13,
                seq,
                format!("sourceEventSeqs must not contain duplicates; {d} repeats"),
            )?;
        } else if let Some(n) = not_earlier {
            self.lenient(
                Rule::S14,
                seq,
                format!("sourceEventSeqs must reference earlier events; {n} is not before {seq}"),
            )?;
        }
        Ok(order)
    }
}

/// S5–S6 with the replace keys of a generation: `start`/`end` through v2, `startSeq`/`endSeq`
/// from v3 (GENERATIONS §1.6).
///
/// # Errors
/// S5 or S6.
pub fn parse_surface_op_keys(op: Json<'_>, keys: [&str; 2]) -> Result<SurfaceOp, (Rule, String)> {
    if op.str_eq("append") {
        return Ok(SurfaceOp::Append);
    }
    if op.kind() != Kind::Object {
        return Err((
            Rule::S5,
            format!(
                "invalid surfaceOp: expected \"append\" or a replace object, found {}",
                crate::check::shown(Some(op))
            ),
        ));
    }
    let [start_key, end_key] = keys;
    let exact = op.has_exactly_keys(&["op", start_key, end_key]);
    let [kind, start, end] = op.lookup(["op", start_key, end_key]);
    match (
        exact,
        kind.is_some_and(|o| o.str_eq("replace")),
        start.and_then(Json::as_seq),
        end.and_then(Json::as_seq),
    ) {
        (true, true, Some(start), Some(end)) => Ok(SurfaceOp::Replace { start, end }),
        _ => Err((
            Rule::S6,
            format!(
                "invalid replace surfaceOp: expected exactly {{\"op\":\"replace\",\"{start_key}\":S,\"{end_key}\":E}} with seqs, found {}",
                crate::check::shown(Some(op))
            ),
        )),
    }
}

/// The surface's messages as the P-rules read them, in place: a position is a slot, and
/// the entries that project to no message are skipped.
struct SurfaceHistory<'a> {
    arena: &'a Arena,
}

impl SurfaceHistory<'_> {
    /// The first slot from `at` on (`NIL`: none) whose entry projects to a message.
    fn message_from(&self, mut at: u32) -> Option<usize> {
        while at != NIL {
            if self.arena.projects(at) {
                return Some(at as usize);
            }
            at = self.arena.next(at);
        }
        None
    }
}

impl crate::provider::History for SurfaceHistory<'_> {
    fn first(&self) -> Option<usize> {
        self.message_from(self.arena.head())
    }

    fn after(&self, at: usize) -> Option<usize> {
        self.message_from(self.arena.next(at as u32))
    }

    fn message(&self, at: usize) -> crate::provider::HistoryMessage<'_> {
        let v = self.arena.view(at as u32);
        crate::provider::HistoryMessage {
            seq: v.seq,
            line: v.line,
            shape: v.shape.unwrap_or_default(),
            calls: v.calls,
            results: v.results,
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

#[cfg(test)]
mod tests;
