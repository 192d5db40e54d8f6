//! Saving the fold's state and taking it up again ([`crate::scan::resume`]): what a later
//! scan of the same log, grown by appends, needs to fold the new events exactly as a scan
//! of the whole log would (FORMAT.md §3: a replace in the new events shadows old entries,
//! S7–S18 read old entries, and seqs continue).
//!
//! Saved: the surface entries in surface order, each with every field the arena keeps
//! (seq, line, type, role, replace range, legacy message id, tool-call ids, the S18 hash,
//! the provider's view of its message), the next seq, the number of replaces, the system
//! head (v3, v4), the v0 alpha dialect flag, the warnings and the models assistant
//! messages named (in the order first named, so that each entry's model key means the
//! same after the fold is taken up). Not saved, so a fold that
//! keeps them cannot be saved: kept texts (messages, previews) and kept shadowed entries
//! ([`super::Keep`]). What views built from the surface changes (each replace's details,
//! the citation index) is theirs, not the fold's: a view of a scan taken up is told only of
//! the changes it folds itself.

use super::Replay;
use super::arena::{Fields, NIL, WIRE_ROLES};
use crate::provider::{CallIds, Shape, WireRole};
use crate::saved::{In, Out};

/// One entry read back from a saved state (owned, as [`Fields`] borrows).
struct Entry {
    seq: u64,
    line: Option<u64>,
    ty: String,
    role: Option<String>,
    replace: Option<(u64, u64, u64)>,
    message_id: Option<String>,
    string_id: bool,
    calls: Vec<String>,
    results: Vec<String>,
    hash: Option<u128>,
    shape: Option<Shape>,
}

impl Replay {
    /// Writes the fold's state to `out` (see the module docs). False when the fold keeps
    /// something that is not saved (texts, shadowed entries): then `out` holds nothing
    /// usable.
    pub(crate) fn save(&self, out: &mut Out) -> bool {
        if self.keep_shadowed {
            return false;
        }
        out.u64(self.next_seq);
        out.u64(self.replacement_count);
        out.opt_u64(self.system_head);
        out.bool(self.alpha_dialect);
        if !out.findings(&self.warnings) {
            return false;
        }
        let models: Vec<&str> = (1..=u16::MAX)
            .map_while(|key| self.arena.model_name(key))
            .collect();
        out.u64(models.len() as u64);
        for name in models {
            out.str(name);
        }
        out.u64(self.arena.len() as u64);
        for at in self.arena.order() {
            let v = self.arena.view(at);
            if v.message.is_some() || v.preview.is_some() {
                return false;
            }
            out.u64(v.seq);
            out.opt_u64(v.line);
            out.str(v.ty);
            out.opt_str(v.role);
            out.bool(v.replace.is_some());
            if let Some((start, end, n)) = v.replace {
                out.u64(start);
                out.u64(end);
                out.u64(n);
            }
            out.opt_str(v.message_id);
            out.bool(v.string_id);
            for ids in [v.calls, v.results] {
                out.u64(ids.len() as u64);
                for id in ids.iter() {
                    out.str(id);
                }
            }
            out.bool(v.hash.is_some());
            if let Some(hash) = v.hash {
                out.u64(hash as u64);
                out.u64((hash >> 64) as u64);
            }
            out.bool(v.shape.is_some());
            if let Some(s) = v.shape {
                let role = WIRE_ROLES.iter().position(|r| *r == s.role).unwrap_or(2);
                out.u64(role as u64);
                out.bool(s.has_text);
                out.bool(s.has_reasoning);
                out.bool(s.lone_surrogate);
                out.u64(u64::from(s.empty_text_blocks));
                out.bool(s.reasoning_lost);
                out.u64(u64::from(s.model));
            }
        }
        true
    }

    /// Takes up the state [`Replay::save`] wrote, into this fold, which must be new (no
    /// event folded) and set up for the same dialect. False, leaving the fold as new, when
    /// the bytes are not a saved state (the entries out of seq order, a seq not below the
    /// next seq, a read past the end).
    pub(crate) fn restore(&mut self, r: &mut In<'_>) -> bool {
        let next_seq = r.u64();
        let replacement_count = r.u64();
        let system_head = r.opt_u64();
        let alpha_dialect = r.bool();
        let warnings = r.findings();
        let models = r.count();
        for key in 1..=models {
            let name = r.str();
            if !r.ok() || usize::from(self.arena.model_key(name)) != key {
                return false;
            }
        }
        let n = r.count();
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            entries.push(read_entry(r));
            if !r.ok() {
                return false;
            }
        }
        let mut seqs: Vec<u64> = entries.iter().map(|e| e.seq).collect();
        seqs.sort_unstable();
        if seqs.windows(2).any(|w| w[0] == w[1]) || seqs.last().is_some_and(|&s| s >= next_seq) {
            return false;
        }
        // Slots are added in seq order, each after the entry that comes before it in surface
        // order among those already added: the nearest earlier entry (in surface order) with
        // a lower seq, found for all entries with one stack.
        let mut before = vec![None; entries.len()];
        let mut stack: Vec<usize> = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            while stack.last().is_some_and(|&j| entries[j].seq > e.seq) {
                stack.pop();
            }
            before[i] = stack.last().copied();
            stack.push(i);
        }
        let mut by_seq: Vec<usize> = (0..entries.len()).collect();
        by_seq.sort_unstable_by_key(|&i| entries[i].seq);
        let mut slot_of = vec![NIL; entries.len()];
        for i in by_seq {
            let e = &entries[i];
            let prev = before[i].map_or(NIL, |j| slot_of[j]);
            let fields = Fields {
                seq: e.seq,
                line: e.line,
                ty: &e.ty,
                role: e.role.as_deref(),
                replace: e.replace,
                message_id: e.message_id.as_deref(),
                string_id: e.string_id,
                calls: CallIds::List(&e.calls),
                results: CallIds::List(&e.results),
                hash: e.hash,
                shape: e.shape,
                message: None,
                preview: None,
            };
            slot_of[i] = self.arena.insert_after(prev, &fields);
        }
        self.next_seq = next_seq;
        self.replacement_count = replacement_count;
        self.system_head = system_head;
        self.alpha_dialect = alpha_dialect;
        self.warnings = warnings;
        true
    }
}

fn read_entry(r: &mut In<'_>) -> Entry {
    let seq = r.u64();
    let line = r.opt_u64();
    let ty = r.str().to_owned();
    let role = r.opt_str().map(str::to_owned);
    let replace = r.bool().then(|| (r.u64(), r.u64(), r.u64()));
    let message_id = r.opt_str().map(str::to_owned);
    let string_id = r.bool();
    let mut ids = || {
        let n = r.count();
        (0..n).map(|_| r.str().to_owned()).collect::<Vec<_>>()
    };
    let (calls, results) = (ids(), ids());
    let hash = r
        .bool()
        .then(|| u128::from(r.u64()) | u128::from(r.u64()) << 64);
    let shape = r.bool().then(|| {
        let role = usize::try_from(r.u64()).unwrap_or(usize::MAX);
        let role = WIRE_ROLES.get(role).copied().unwrap_or_else(|| {
            r.fail();
            WireRole::User
        });
        Shape {
            role,
            has_text: r.bool(),
            has_reasoning: r.bool(),
            lone_surrogate: r.bool(),
            empty_text_blocks: u32::try_from(r.u64()).unwrap_or(u32::MAX),
            reasoning_lost: r.bool(),
            model: u16::try_from(r.u64()).unwrap_or_else(|_| {
                r.fail();
                0
            }),
        }
    });
    Entry {
        seq,
        line,
        ty,
        role,
        replace,
        message_id,
        string_id,
        calls,
        results,
        hash,
        shape,
    }
}
