//! The surface's storage (issue 19): one 32-byte [`Slot`] per entry and the entry's
//! variable parts (replace range, tool-call ids, S18 hash, text references …) as one record
//! in a byte arena, so that an entry costs its slot plus the bytes of what it actually has.
//!
//! Slots are appended in seq order — every new surface entry is the newest event — so a seq
//! is found by binary search, without a map. The surface order is a doubly linked list of
//! slot indexes. An entry a replace removes leaves a dead slot (or a kept one, for
//! `surface --all`); once dead slots are a sixteenth of the live ones, slots and records are
//! compacted in place, so the arena stays within 1.0625 times the live entries.

use crate::provider::{CallIds, Shape, WireRole};
use crate::replay::text::TextRef;
use crate::varint;

/// No slot: the end of the list.
pub(super) const NIL: u32 = u32::MAX;
/// The slot has no record.
const NO_RECORD: u64 = u64::MAX;
/// `Slot::line` of an entry without a line.
const LINE_NONE: i32 = i32::MIN;
/// `Slot::line` of an entry whose line is too far from its seq: the line is in the record.
const LINE_IN_RECORD: i32 = i32::MIN + 1;

/// `Slot::flags`: no longer on the surface, and not kept.
const DEAD: u8 = 1;
/// `Slot::flags`: shadowed, kept for [`Arena::kept`] (`surface --all`).
const KEPT: u8 = 2;
/// `Slot::flags`: the message has a non-empty string id, which is not kept.
const STRING_ID: u8 = 4;

/// `Slot::ty` / `Slot::role` of a value spelled out in the record; `NO_ROLE`: none.
const SPELLED: u8 = u8::MAX;
const NO_ROLE: u8 = u8::MAX - 1;

// What a record holds (the presence bits are its first varint; the fields follow in the
// order `write_record` writes them). The common fields take the low seven bits, so that
// most records start with one byte.
const R_CALLS: u64 = 1 << 0;
const R_RESULTS: u64 = 1 << 1;
const R_HASH: u64 = 1 << 2;
const R_MESSAGE: u64 = 1 << 3;
const R_PREVIEW: u64 = 1 << 4;
const R_REPLACE: u64 = 1 << 5;
const R_MESSAGE_ID: u64 = 1 << 6;
const R_LINE: u64 = 1 << 7;
const R_TYPE: u64 = 1 << 8;
const R_ROLE: u64 = 1 << 9;
const R_EMPTY_TEXT: u64 = 1 << 10;
const R_MODEL: u64 = 1 << 11;

/// One surface entry's fixed part: 32 bytes.
#[derive(Debug, Clone, Copy)]
struct Slot {
    seq: u64,
    /// Offset of the entry's record in `Arena::bytes`, or `NO_RECORD`.
    record: u64,
    /// The line minus the seq, or `LINE_NONE` / `LINE_IN_RECORD`.
    line: i32,
    prev: u32,
    next: u32,
    /// Index into the dialect's surface types, or `SPELLED`.
    ty: u8,
    /// Index into `ROLES`, `NO_ROLE` or `SPELLED`.
    role: u8,
    /// [`Shape`] packed: bit 7 present, bits 0–2 the wire role, 3 has text, 4 has
    /// reasoning, 5 lone surrogate, 6 reasoning lost (the number of empty text blocks and
    /// the model key are in the record).
    shape: u8,
    flags: u8,
}

/// One entry's fields: what a new entry holds (borrowed from the event being folded), or an
/// entry read back (borrowed from the arena).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Fields<'a> {
    /// The event's seq.
    pub seq: u64,
    /// Its line (header = line 1; for SQLite the row's seq), when known.
    pub line: Option<u64>,
    /// The event type.
    pub ty: &'a str,
    /// The message role, when it carries a message.
    pub role: Option<&'a str>,
    /// `(start, end, shadowed count)` of a replace.
    pub replace: Option<(u64, u64, u64)>,
    /// The message id (quotes included) of a v0 `tool/result` ([`super::SurfaceEntry::message_id`]).
    pub message_id: Option<&'a str>,
    /// The message has a non-empty string id, not kept in `message_id`.
    pub string_id: bool,
    /// Tool-call ids the message announces.
    pub calls: CallIds<'a>,
    /// Tool-call ids the message answers.
    pub results: CallIds<'a>,
    /// S18's hash of a `tool/result` (strict dialects).
    pub hash: Option<u128>,
    /// What a provider sees of the message.
    pub shape: Option<Shape>,
    /// The derived message, when kept.
    pub message: Option<TextRef>,
    /// The one-line preview, when kept.
    pub preview: Option<TextRef>,
}

/// The surface entries: slots in seq order, records, and the list in surface order.
#[derive(Debug, Clone)]
pub(super) struct Arena {
    /// The dialect's surface types, which `Slot::ty` indexes.
    types: &'static [&'static str],
    slots: Vec<Slot>,
    bytes: Vec<u8>,
    head: u32,
    tail: u32,
    /// Entries on the surface.
    live: usize,
    /// Dead slots not yet compacted away.
    dead: usize,
    /// Set by [`Arena::mark`]: no compaction until [`Arena::back_to`].
    held: bool,
    /// The models of assistant messages, once each: [`Shape::model`] `k` is `models[k - 1]`.
    models: Vec<Box<str>>,
}

/// Where an [`Arena`] stood ([`Arena::mark`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct ArenaMark {
    slots: usize,
    bytes: usize,
    head: u32,
    tail: u32,
    live: usize,
}

/// The roles of harness messages (FORMAT.md §2.4.1, GENERATIONS §7).
pub(super) const ROLES: [&str; 5] = ["user", "assistant", "system", "developer", "tool"];

pub(super) const WIRE_ROLES: [WireRole; 5] = [
    WireRole::System,
    WireRole::Developer,
    WireRole::User,
    WireRole::Assistant,
    WireRole::Tool,
];

fn pack_shape(shape: Option<Shape>) -> u8 {
    let Some(s) = shape else { return 0 };
    let role = WIRE_ROLES.iter().position(|r| *r == s.role).unwrap_or(2) as u8;
    0x80 | role
        | u8::from(s.has_text) << 3
        | u8::from(s.has_reasoning) << 4
        | u8::from(s.lone_surrogate) << 5
        | u8::from(s.reasoning_lost) << 6
}

impl Arena {
    /// An empty surface whose entries' types are mostly among `types`.
    pub fn new(types: &'static [&'static str]) -> Self {
        Arena {
            types,
            slots: Vec::new(),
            bytes: Vec::new(),
            head: NIL,
            tail: NIL,
            live: 0,
            dead: 0,
            held: false,
            models: Vec::new(),
        }
    }

    /// The [`Shape::model`] key of `name` (`provider/model`), added on first use; 0 once
    /// 65,535 models are known (a key then says nothing).
    pub fn model_key(&mut self, name: &str) -> u16 {
        if let Some(at) = self.models.iter().position(|m| &**m == name) {
            return u16::try_from(at + 1).unwrap_or(0);
        }
        let Ok(key) = u16::try_from(self.models.len() + 1) else {
            return 0;
        };
        self.models.push(name.into());
        key
    }

    /// The `provider/model` of a [`Shape::model`] key.
    pub fn model_name(&self, key: u16) -> Option<&str> {
        let at = usize::from(key).checked_sub(1)?;
        self.models.get(at).map(|m| &**m)
    }

    /// Where the arena stands; until [`Arena::back_to`], nothing is compacted.
    pub fn mark(&mut self) -> ArenaMark {
        self.held = true;
        ArenaMark {
            slots: self.slots.len(),
            bytes: self.bytes.len(),
            head: self.head,
            tail: self.tail,
            live: self.live,
        }
    }

    /// Goes back to `mark`, when entries were only appended at the tail since (no unlink):
    /// the appended slots and their records are dropped. False, changing nothing, when an
    /// entry was taken off the surface since. Compaction resumes either way.
    pub fn back_to(&mut self, mark: ArenaMark) -> bool {
        self.held = false;
        let appended = self.slots.len() - mark.slots;
        if self.live != mark.live + appended {
            return false;
        }
        self.slots.truncate(mark.slots);
        self.bytes.truncate(mark.bytes);
        self.head = mark.head;
        self.tail = mark.tail;
        if mark.tail != NIL {
            self.slots[mark.tail as usize].next = NIL;
        }
        self.live = mark.live;
        true
    }

    /// Entries on the surface.
    pub fn len(&self) -> usize {
        self.live
    }

    /// The first entry's slot (`NIL`: the surface is empty).
    pub fn head(&self) -> u32 {
        self.head
    }

    /// The last entry's slot (`NIL`: the surface is empty).
    pub fn tail(&self) -> u32 {
        self.tail
    }

    /// The slot after `at` in surface order (`NIL`: none).
    pub fn next(&self, at: u32) -> u32 {
        self.slots[at as usize].next
    }

    /// The slot before `at` in surface order (`NIL`: none).
    pub fn prev(&self, at: u32) -> u32 {
        self.slots[at as usize].prev
    }

    /// True when entry `at` projects to a message (it has a [`Shape`]).
    pub fn projects(&self, at: u32) -> bool {
        self.slots[at as usize].shape & 0x80 != 0
    }

    /// The seq of the entry in slot `at`.
    pub fn seq(&self, at: u32) -> u64 {
        self.slots[at as usize].seq
    }

    /// The slot of the surface entry with `seq`, if it is on the surface.
    pub fn find(&self, seq: u64) -> Option<u32> {
        let at = self.slots.binary_search_by_key(&seq, |s| s.seq).ok()?;
        (self.slots[at].flags & (DEAD | KEPT) == 0).then_some(at as u32)
    }

    /// The slot of the entry with `seq`, on the surface or kept.
    pub fn find_listed(&self, seq: u64) -> Option<u32> {
        let at = self.slots.binary_search_by_key(&seq, |s| s.seq).ok()?;
        (self.slots[at].flags & DEAD == 0).then_some(at as u32)
    }

    /// Surface order, as slot indexes.
    pub fn order(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors((self.head != NIL).then_some(self.head), |&at| {
            let next = self.slots[at as usize].next;
            (next != NIL).then_some(next)
        })
    }

    /// The kept shadowed entries, in seq order.
    pub fn kept(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.slots.len() as u32).filter(|&at| self.slots[at as usize].flags & KEPT != 0)
    }

    /// Adds an entry (its seq above every entry's so far) after slot `prev` (`NIL`: at the
    /// head) and returns its slot.
    pub fn insert_after(&mut self, prev: u32, parts: &Fields<'_>) -> u32 {
        let at = self.slots.len() as u32;
        let ty = self.types.iter().position(|t| *t == parts.ty);
        let role = match parts.role {
            None => Some(NO_ROLE as usize),
            Some(r) => ROLES.iter().position(|k| *k == r),
        };
        let line = match parts.line {
            None => LINE_NONE,
            Some(line) => i32::try_from(line as i128 - parts.seq as i128)
                .ok()
                .filter(|d| *d > LINE_IN_RECORD)
                .unwrap_or(LINE_IN_RECORD),
        };
        let record = self.write_record(parts, ty.is_none(), role.is_none(), line);
        let next = if prev == NIL {
            self.head
        } else {
            self.slots[prev as usize].next
        };
        self.slots.push(Slot {
            seq: parts.seq,
            record,
            line,
            prev,
            next,
            ty: ty.map_or(SPELLED, |t| t as u8),
            role: role.map_or(SPELLED, |r| r as u8),
            shape: pack_shape(parts.shape),
            flags: if parts.string_id { STRING_ID } else { 0 },
        });
        self.join(prev, at);
        self.join(at, next);
        self.live += 1;
        at
    }

    /// Makes `prev` and `next` neighbours on the surface; [`NIL`] for `prev` makes `next`
    /// the head, for `next` makes `prev` the tail.
    fn join(&mut self, prev: u32, next: u32) {
        if prev == NIL {
            self.head = next;
        } else {
            self.slots[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.slots[next as usize].prev = prev;
        }
    }

    fn write_record(&mut self, p: &Fields<'_>, spell_ty: bool, spell_role: bool, line: i32) -> u64 {
        let empty_text = p.shape.map_or(0, |s| s.empty_text_blocks);
        let model = p.shape.map_or(0, |s| s.model);
        let has = [
            (R_REPLACE, p.replace.is_some()),
            (R_LINE, line == LINE_IN_RECORD),
            (R_TYPE, spell_ty),
            (R_ROLE, spell_role),
            (R_MESSAGE_ID, p.message_id.is_some()),
            (R_CALLS, !p.calls.is_empty()),
            (R_RESULTS, !p.results.is_empty()),
            (R_HASH, p.hash.is_some()),
            (R_EMPTY_TEXT, empty_text > 0),
            (R_MODEL, model != 0),
            (R_MESSAGE, p.message.is_some()),
            (R_PREVIEW, p.preview.is_some()),
        ];
        let bits = has
            .iter()
            .filter(|(_, on)| *on)
            .fold(0, |b, (bit, _)| b | bit);
        if bits == 0 {
            return NO_RECORD;
        }
        let at = self.bytes.len() as u64;
        let out = &mut self.bytes;
        varint::write(out, bits);
        if let Some((start, end, shadowed)) = p.replace {
            varint::write(out, start);
            varint::write(out, end);
            varint::write(out, shadowed);
        }
        if bits & R_LINE != 0 {
            varint::write(out, p.line.unwrap_or_default());
        }
        if spell_ty {
            varint::write_bytes(out, p.ty.as_bytes());
        }
        if let (true, Some(role)) = (spell_role, p.role) {
            varint::write_bytes(out, role.as_bytes());
        }
        if let Some(id) = p.message_id {
            varint::write_bytes(out, id.as_bytes());
        }
        for ids in [p.calls, p.results] {
            if !ids.is_empty() {
                varint::write(out, ids.len() as u64);
                let mut packed = Vec::new();
                crate::provider::pack_ids(&mut packed, ids.iter());
                varint::write_bytes(out, &packed);
            }
        }
        if let Some(hash) = p.hash {
            out.extend_from_slice(&hash.to_le_bytes());
        }
        if empty_text > 0 {
            varint::write(out, u64::from(empty_text));
        }
        if model != 0 {
            varint::write(out, u64::from(model));
        }
        for text in [p.message, p.preview].into_iter().flatten() {
            varint::write(out, text.offset);
            varint::write(out, text.len);
        }
        at
    }

    /// Entry `at`, read back.
    pub fn view(&self, at: u32) -> Fields<'_> {
        let slot = &self.slots[at as usize];
        let mut v = Fields {
            seq: slot.seq,
            line: match slot.line {
                LINE_NONE | LINE_IN_RECORD => None,
                delta => Some((slot.seq as i128 + delta as i128) as u64),
            },
            ty: self.types.get(slot.ty as usize).copied().unwrap_or(""),
            role: ROLES.get(slot.role as usize).copied(),
            string_id: slot.flags & STRING_ID != 0,
            shape: (slot.shape & 0x80 != 0).then(|| Shape {
                role: WIRE_ROLES[usize::from(slot.shape & 7).min(4)],
                has_text: slot.shape & 1 << 3 != 0,
                has_reasoning: slot.shape & 1 << 4 != 0,
                lone_surrogate: slot.shape & 1 << 5 != 0,
                reasoning_lost: slot.shape & 1 << 6 != 0,
                empty_text_blocks: 0,
                model: 0,
            }),
            ..Fields::default()
        };
        if slot.record != NO_RECORD {
            self.read_record(slot.record as usize, &mut v);
        }
        v
    }

    /// Reads the record at `pos` into `v`; returns where it ends.
    fn read_record<'a>(&'a self, mut pos: usize, v: &mut Fields<'a>) -> usize {
        let bytes = &self.bytes[..];
        let bits = varint::read(bytes, &mut pos);
        if bits & R_REPLACE != 0 {
            let start = varint::read(bytes, &mut pos);
            let end = varint::read(bytes, &mut pos);
            v.replace = Some((start, end, varint::read(bytes, &mut pos)));
        }
        if bits & R_LINE != 0 {
            v.line = Some(varint::read(bytes, &mut pos));
        }
        if bits & R_TYPE != 0 {
            v.ty = varint::read_str(bytes, &mut pos);
        }
        if bits & R_ROLE != 0 {
            v.role = Some(varint::read_str(bytes, &mut pos));
        }
        if bits & R_MESSAGE_ID != 0 {
            v.message_id = Some(varint::read_str(bytes, &mut pos));
        }
        for (bit, ids) in [(R_CALLS, &mut v.calls), (R_RESULTS, &mut v.results)] {
            if bits & bit != 0 {
                let count = varint::read(bytes, &mut pos) as usize;
                *ids = CallIds::Packed {
                    count,
                    bytes: varint::read_bytes(bytes, &mut pos),
                };
            }
        }
        if bits & R_HASH != 0 {
            let mut hash = [0u8; 16];
            if let Some(stored) = bytes.get(pos..pos + 16) {
                hash.copy_from_slice(stored);
            }
            v.hash = Some(u128::from_le_bytes(hash));
            pos += 16;
        }
        if bits & R_EMPTY_TEXT != 0 {
            let n = varint::read(bytes, &mut pos);
            if let Some(shape) = &mut v.shape {
                shape.empty_text_blocks = u32::try_from(n).unwrap_or(u32::MAX);
            }
        }
        if bits & R_MODEL != 0 {
            let key = varint::read(bytes, &mut pos);
            if let Some(shape) = &mut v.shape {
                shape.model = u16::try_from(key).unwrap_or(0);
            }
        }
        for (bit, text) in [(R_MESSAGE, &mut v.message), (R_PREVIEW, &mut v.preview)] {
            if bits & bit != 0 {
                let offset = varint::read(bytes, &mut pos);
                *text = Some(TextRef {
                    offset,
                    len: varint::read(bytes, &mut pos),
                });
            }
        }
        pos.min(bytes.len())
    }

    /// Takes entry `at` off the surface; `keep`: keep it for [`Arena::kept`].
    pub fn unlink(&mut self, at: u32, keep: bool) {
        let Slot { prev, next, .. } = self.slots[at as usize];
        self.join(prev, next);
        let slot = &mut self.slots[at as usize];
        slot.prev = NIL;
        slot.next = NIL;
        slot.flags |= if keep { KEPT } else { DEAD };
        self.live -= 1;
        if !keep {
            self.dead += 1;
        }
    }

    /// Compacts slots and records once dead slots are a sixteenth of the live ones (and
    /// more than a few thousand): O(slots), so O(1) per removed entry over a log. Slot
    /// indexes change; call it only between pushes.
    pub fn compact_if_sparse(&mut self) {
        if self.held || self.dead < 4096 || self.dead * 16 < self.slots.len() - self.dead {
            return;
        }
        let mut moved = vec![NIL; self.slots.len()];
        let mut kept = 0usize;
        let mut bytes_kept = 0usize;
        for (at, moved_to) in moved.iter_mut().enumerate() {
            let mut slot = self.slots[at];
            if slot.flags & DEAD != 0 {
                continue;
            }
            if slot.record != NO_RECORD {
                let start = slot.record as usize;
                let end = self.read_record(start, &mut Fields::default());
                self.bytes.copy_within(start..end, bytes_kept);
                slot.record = bytes_kept as u64;
                bytes_kept += end - start;
            }
            *moved_to = kept as u32;
            self.slots[kept] = slot;
            kept += 1;
        }
        self.slots.truncate(kept);
        self.bytes.truncate(bytes_kept);
        let map = |i: u32| if i == NIL { NIL } else { moved[i as usize] };
        for slot in &mut self.slots {
            slot.prev = map(slot.prev);
            slot.next = map(slot.next);
        }
        self.head = map(self.head);
        self.tail = map(self.tail);
        self.dead = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPES: &[&str] = &["user/message", "tool/result"];

    fn parts(seq: u64) -> Fields<'static> {
        Fields {
            seq,
            line: Some(seq + 2),
            ty: "user/message",
            role: Some("user"),
            ..Fields::default()
        }
    }

    #[test]
    fn a_slot_is_32_bytes() {
        assert_eq!(std::mem::size_of::<Slot>(), 32);
    }

    #[test]
    fn entries_read_back_as_written() {
        let mut arena = Arena::new(TYPES);
        let calls = ["c1".to_owned()];
        let results = ["r1".to_owned(), "r2".to_owned()];
        let shape = Shape {
            role: WireRole::Tool,
            has_text: true,
            has_reasoning: false,
            lone_surrogate: true,
            reasoning_lost: true,
            empty_text_blocks: 3,
            model: 300,
        };
        let a = arena.insert_after(NIL, &parts(0));
        let b = arena.insert_after(
            a,
            &Fields {
                seq: 7,
                line: Some(3),
                ty: "odd/type",
                role: Some("narrator"),
                replace: Some((0, 0, 1)),
                message_id: Some("\"m1\""),
                string_id: true,
                calls: CallIds::List(&calls),
                results: CallIds::List(&results),
                hash: Some(u128::MAX - 5),
                shape: Some(shape),
                message: Some(TextRef { offset: 9, len: 4 }),
                preview: Some(TextRef {
                    offset: 1 << 40,
                    len: 0,
                }),
            },
        );
        let far = arena.insert_after(
            b,
            &Fields {
                seq: u64::MAX - 1,
                line: Some(1),
                ty: "tool/result",
                role: None,
                ..Fields::default()
            },
        );
        let v = arena.view(b);
        assert_eq!(
            (v.seq, v.line, v.ty, v.role),
            (7, Some(3), "odd/type", Some("narrator"))
        );
        assert_eq!(v.replace, Some((0, 0, 1)));
        assert_eq!((v.message_id, v.string_id), (Some("\"m1\""), true));
        assert_eq!(
            (v.calls.to_vec(), v.results.to_vec()),
            (calls.to_vec(), results.to_vec())
        );
        assert_eq!(v.hash, Some(u128::MAX - 5));
        let got = v.shape.expect("shape");
        assert_eq!(
            (
                got.role,
                got.has_text,
                got.has_reasoning,
                got.lone_surrogate,
                got.reasoning_lost,
                got.empty_text_blocks,
                got.model
            ),
            (WireRole::Tool, true, false, true, true, 3, 300)
        );
        assert_eq!(v.message, Some(TextRef { offset: 9, len: 4 }));
        assert_eq!(v.preview.map(|p| p.offset), Some(1 << 40));
        let v = arena.view(far);
        assert_eq!(
            (v.line, v.ty, v.role, v.shape),
            (Some(1), "tool/result", None, None)
        );
        let v = arena.view(a);
        assert_eq!(
            (v.line, v.ty, v.role, v.replace),
            (Some(2), "user/message", Some("user"), None)
        );
    }

    #[test]
    fn compaction_keeps_order_records_and_kept_entries() {
        let mut arena = Arena::new(TYPES);
        let ids: Vec<String> = (0..20_000).map(|i| format!("call_{i}")).collect();
        let mut prev = NIL;
        for seq in 0..20_000u64 {
            let calls = std::slice::from_ref(&ids[seq as usize]);
            prev = arena.insert_after(
                prev,
                &Fields {
                    calls: CallIds::List(if seq % 3 == 0 { calls } else { &[] }),
                    ..parts(seq)
                },
            );
        }
        // Remove every other entry after the first 5,000, and keep seq 1 for --all.
        arena.unlink(arena.find(1).expect("on"), true);
        for seq in (5_001..20_000).step_by(2) {
            arena.unlink(arena.find(seq).expect("on"), false);
        }
        let before: Vec<(u64, Vec<String>)> = arena
            .order()
            .map(|at| (arena.seq(at), arena.view(at).calls.to_vec()))
            .collect();
        arena.compact_if_sparse();
        assert_eq!(arena.slots.len(), 20_000 - 7_500);
        let after: Vec<(u64, Vec<String>)> = arena
            .order()
            .map(|at| (arena.seq(at), arena.view(at).calls.to_vec()))
            .collect();
        assert_eq!(before, after);
        assert_eq!(arena.len(), after.len());
        assert_eq!(
            arena.kept().map(|at| arena.seq(at)).collect::<Vec<_>>(),
            [1]
        );
        assert_eq!(arena.find(5_001), None);
        assert_eq!(arena.find(1), None);
        let last = arena.find(19_998).expect("on");
        assert_eq!(arena.view(last).calls.to_vec(), ["call_19998"]);
        let no_call = arena.find(19_996).expect("on");
        assert_eq!(arena.view(no_call).calls.to_vec(), Vec::<String>::new());
        assert_eq!(
            arena.view(arena.find(9_000).expect("on")).calls.to_vec(),
            ["call_9000"]
        );
        assert_eq!(arena.seq(arena.tail()), 19_998);
        assert_eq!(arena.prev(arena.tail()), arena.find(19_996).expect("on"));
    }
}
