//! What a replace may do (FORMAT.md §3.2): its `surfaceOp` (S5, S6), its range on the
//! surface (S7–S9), and the protected system head of v3 and v4 (G5).

use crate::json::{Json, Kind};
use crate::replay::arena::NIL;
use crate::replay::{Replay, Step, SurfaceOp};
use crate::rules::Rule;

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

impl Replay {
    /// G5, the protected system head of v3 and v4 (GENERATIONS §6, §7): a system message
    /// may head only an empty surface or replace the head alone; nothing else may remove it.
    pub(super) fn check_system_head(
        &self,
        seq: u64,
        ty: &str,
        op: SurfaceOp,
        shadowed: &[u64],
    ) -> Step {
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
    pub(super) fn locate_range(&self, start: u64, end: u64) -> Result<Vec<u64>, (Rule, String)> {
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
}
