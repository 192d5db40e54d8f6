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
//!
//! This file holds the fold itself (S1–S4, S15–S18 and applying a change); the replace
//! rules are in `replace.rs` (S5–S9, G5), the citation rules in `citations.rs` (S10–S14,
//! G3, G4), the entries going in and read back in `entry.rs`, the P-rules' view of the
//! surface in `history.rs`, and what the fold tells and keeps for the views in
//! `change.rs` ([`SurfaceChange`], [`Keep`]).

mod arena;
mod change;
mod citations;
mod entry;
mod history;
mod replace;
mod snapshot;
pub mod text;
pub mod window;

use std::collections::HashSet;

use crate::provider::CallIds;

use arena::{Arena, Fields, NIL};
pub use change::{Keep, Replaced, SurfaceChange};
pub use entry::{SurfaceEntry, SurfaceInput, SurfaceOp};
pub use replace::parse_surface_op_keys;
pub use text::{TextRef, TextStore};

use crate::event::Dialect;
use crate::rules::{Class, Finding, Rule};

/// The surface validator as a fold. Feed events in seq order with [`Replay::push_surface`] and [`Replay::push_log_only`].
#[derive(Debug, Clone)]
pub struct Replay {
    dialect: &'static Dialect,
    /// The surface entries (and, when kept, the shadowed ones).
    arena: Arena,
    /// Kept texts: derived messages and previews.
    texts: TextStore,
    next_seq: u64,
    /// Replaces committed so far.
    replacement_count: u64,
    warnings: Vec<Finding>,
    /// Keep the entries replaces shadow (`surface --all`).
    keep_shadowed: bool,
    /// The protected system head (v3, v4): the seq of the system message that heads the
    /// surface, when there is one.
    system_head: Option<u64>,
    /// A v0 log used range-encoded provenance: the 0.1.2-alpha dialect.
    alpha_dialect: bool,
    /// The last event's citations (its change's, and kept for the allocation).
    cites: Vec<u64>,
    /// The last replace's shadowed seqs (its change's, and kept for the allocation).
    shadowed: Vec<u64>,
    /// The last event's type, when it changed the surface (kept for the allocation).
    last_ty: String,
    /// How the last event pushed changed the surface, if it did ([`Replay::change`]).
    last: Option<Last>,
}

/// The last surface change, less what the fold keeps in its buffers.
#[derive(Debug, Clone, Copy)]
struct Last {
    seq: u64,
    /// `(start, end, len_before, len_after)` of a replace.
    replace: Option<(u64, u64, usize, usize)>,
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
    /// An empty surface of this fold's dialect: what takes a finished fold's place when only
    /// its verdict is kept, letting its entries and texts go.
    pub fn emptied(&self) -> Replay {
        Replay::new(self.dialect)
    }

    /// An empty surface for a log of the given dialect.
    pub fn new(dialect: &'static Dialect) -> Self {
        Replay {
            dialect,
            arena: Arena::new(dialect.surface_types),
            texts: TextStore::in_memory(),
            next_seq: 0,
            replacement_count: 0,
            warnings: Vec::new(),
            keep_shadowed: false,
            system_head: None,
            alpha_dialect: false,
            cites: Vec::new(),
            shadowed: Vec::new(),
            last_ty: String::new(),
            last: None,
        }
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
        self.next_seq = mark.next_seq;
        self.last = None;
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

    /// How the last event pushed changed the surface: `None` when it was not taken onto
    /// the surface (a log-only event, or one the rules refused). A view is told of each
    /// change as it happens ([`crate::view::View::on_surface`]).
    pub fn change(&self) -> Option<SurfaceChange<'_>> {
        let last = self.last?;
        Some(SurfaceChange {
            seq: last.seq,
            ty: &self.last_ty,
            cites: &self.cites,
            replace: last
                .replace
                .map(|(start, end, len_before, len_after)| Replaced {
                    generation: self.replacement_count,
                    start,
                    end,
                    shadowed: &self.shadowed,
                    len_before,
                    len_after,
                }),
        })
    }

    /// The number of committed replaces so far.
    pub fn replacement_count(&self) -> u64 {
        self.replacement_count
    }

    /// Rules a June-era log broke that June's loader did not enforce (FORMAT.md §9.2).
    pub fn warnings(&self) -> &[Finding] {
        &self.warnings
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
        self.last = None;
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
        self.last = None;
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
        self.cites = cites;
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
        let replace = match op {
            SurfaceOp::Append => {
                self.arena.insert_after(self.arena.tail(), &parts);
                None
            }
            SurfaceOp::Replace { start, end } => {
                let len_before = self.arena.len();
                let first = self.arena.find(shadowed[0]).unwrap_or(NIL);
                let prev = self.arena.prev(first);
                for s in &shadowed {
                    if let Some(at) = self.arena.find(*s) {
                        self.arena.unlink(at, self.keep_shadowed);
                    }
                }
                parts.replace = Some((start, end, shadowed.len() as u64));
                self.arena.insert_after(prev, &parts);
                self.replacement_count += 1;
                self.shadowed = shadowed;
                Some((start, end, len_before, self.arena.len()))
            }
        };
        self.arena.compact_if_sparse();
        self.next_seq = seq + 1;
        self.last_ty.clear();
        self.last_ty.push_str(input.ty);
        self.last = Some(Last { seq, replace });
        Ok(())
    }
}

#[cfg(test)]
mod tests;
