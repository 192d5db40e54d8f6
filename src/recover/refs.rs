//! The seqs a record names, and the record renumbered (GENERATIONS §5, §7: the same-session
//! references DSH's own migration edges remap when they renumber a log): its own `seq`
//! (`seq0` for a packed row), `sourceEventSeqs` (plain seqs and `[start, end]` pairs),
//! the endpoints of a replace `surfaceOp` (`start`/`end`, `startSeq`/`endSeq`), and in
//! `data`: `command/done.sourceEventSeq`, a compaction's `shadowedRange` and
//! `shadowedSeqs`, a title's `messageSeqs`, a v4 `developer/message.headerSeq`.
//!
//! Learnt from (never copied) tenyi/deepseek-harness @
//! `77afa3438160c9b45d81277b1fa64e9edcd9416d`,
//! `packages/session/session-format-v1-to-v2/src/migration.ts` (`remapReferences`).

use std::ops::Range;

use crate::json::Json;
use crate::recover::edit::{Splice, apply};

/// One seq a record names, where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeqRef {
    /// The byte range of the number in the record's text.
    pub at: Range<usize>,
    /// The seq.
    pub seq: u64,
    /// A `[start, end]` pair's end (the pair is renumbered as one: `at` is the start,
    /// `pair_end` the end's range and seq).
    pub pair_end: Option<(Range<usize>, u64)>,
}

/// What a record names: its own seq, and the seqs it refers to.
#[derive(Debug, Clone, Default)]
pub struct Refs {
    /// Its own (first) seq, where written.
    pub own: Option<Range<usize>>,
    /// The earlier events it refers to.
    pub cited: Vec<SeqRef>,
    /// A number where a seq reference belongs that is not a seq: the record cannot be
    /// renumbered.
    pub unreadable: bool,
}

fn offset(text: &str, v: Json<'_>) -> Range<usize> {
    let start = v.raw().as_ptr() as usize - text.as_ptr() as usize;
    start..start + v.raw().len()
}

/// The seqs `text` (one record of type `ty`) names. `packed`: a packed chunk row.
pub fn refs_of(text: &str, ty: &str, packed: bool) -> Refs {
    let mut refs = Refs::default();
    let Ok(json) = Json::parse(text) else {
        refs.unreadable = true;
        return refs;
    };
    refs.own = json
        .get(if packed { "seq0" } else { "seq" })
        .map(|v| offset(text, v));
    let one = |refs: &mut Refs, v: Option<Json<'_>>| {
        let Some(v) = v else { return };
        match v.as_seq() {
            Some(seq) => refs.cited.push(SeqRef {
                at: offset(text, v),
                seq,
                pair_end: None,
            }),
            None => refs.unreadable = true,
        }
    };
    let list = |refs: &mut Refs, v: Option<Json<'_>>| {
        let Some(v) = v else { return };
        if !v.is_array() {
            refs.unreadable = true;
            return;
        }
        for member in v.elements() {
            if member.is_array() {
                let pair: Vec<Json<'_>> = member.elements().collect();
                match (
                    pair.first().and_then(|s| s.as_seq()),
                    pair.get(1).and_then(|e| e.as_seq()),
                ) {
                    (Some(start), Some(end)) if pair.len() == 2 => refs.cited.push(SeqRef {
                        at: offset(text, pair[0]),
                        seq: start,
                        pair_end: Some((offset(text, pair[1]), end)),
                    }),
                    _ => refs.unreadable = true,
                }
            } else {
                one(refs, Some(member));
            }
        }
    };
    list(&mut refs, json.get("sourceEventSeqs"));
    if let Some(op) = json.get("surfaceOp").filter(|op| op.is_object()) {
        for key in ["start", "end", "startSeq", "endSeq"] {
            one(&mut refs, op.get(key));
        }
    }
    let data = json.get("data");
    let field = |k: &str| data.and_then(|d| d.get(k));
    match ty {
        "command/done" => one(&mut refs, field("sourceEventSeq")),
        t if (t.ends_with("/prune") || t.ends_with("/summary")) && t.starts_with("compact") => {
            if let Some(range) = field("shadowedRange") {
                one(&mut refs, range.get("start"));
                one(&mut refs, range.get("end"));
            }
            list(&mut refs, field("shadowedSeqs"));
        }
        "session/title" | "session/title-llm-request" => list(&mut refs, field("messageSeqs")),
        "developer/message" => one(&mut refs, field("headerSeq")),
        _ => {}
    }
    refs
}

/// `text` with its own seq written as `own` and each cited seq as `map` gives it; `None`
/// when a cited seq has no new seq (its event is not in the recovered session), or a pair
/// would not stay a run of consecutive seqs.
pub fn renumbered(
    text: &str,
    refs: &Refs,
    own: u64,
    map: &dyn Fn(u64) -> Option<u64>,
    extra: Vec<Splice>,
) -> Option<String> {
    let mut splices = extra;
    if let Some(at) = &refs.own {
        splices.push((at.clone(), own.to_string()));
    }
    for r in &refs.cited {
        let to = map(r.seq)?;
        if to != r.seq {
            splices.push((r.at.clone(), to.to_string()));
        }
        if let Some((at, end)) = &r.pair_end {
            let end_to = map(*end)?;
            if end_to.checked_sub(to) != end.checked_sub(r.seq) {
                return None;
            }
            if end_to != *end {
                splices.push((at.clone(), end_to.to_string()));
            }
        }
    }
    Some(apply(text, splices))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reference_moves_and_nothing_else() {
        let text = r#"{"type":"user/message","seq":20,"time":5,"data":{"id":"m-20","n":20},"sourceEventSeqs":[12,[14,16],19],"surfaceOp":{"op":"replace","start":12,"end":19}}"#;
        let refs = refs_of(text, "user/message", false);
        assert_eq!(refs.cited.len(), 5);
        let map = |s: u64| (s >= 12).then(|| s - 2);
        let out = renumbered(text, &refs, 18, &map, Vec::new()).expect("every seq maps");
        assert_eq!(
            out,
            r#"{"type":"user/message","seq":18,"time":5,"data":{"id":"m-20","n":20},"sourceEventSeqs":[10,[12,14],17],"surfaceOp":{"op":"replace","start":10,"end":17}}"#
        );
        let lost = |s: u64| (s != 19).then_some(s);
        assert!(renumbered(text, &refs, 20, &lost, Vec::new()).is_none());
    }

    #[test]
    fn payload_references_are_those_the_edges_remap() {
        let text = r#"{"type":"compaction/summary","seq":9,"time":1,"data":{"shadowedRange":{"start":2,"end":4},"shadowedSeqs":[2,4],"turn":2}}"#;
        let seqs: Vec<u64> = refs_of(text, "compaction/summary", false)
            .cited
            .iter()
            .map(|r| r.seq)
            .collect();
        assert_eq!(seqs, [2, 4, 2, 4]);
        let packed = r#"{"type":"text-chunks","seq0":7,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"]}}"#;
        let refs = refs_of(packed, "text-chunks", true);
        assert!(refs.cited.is_empty());
        assert_eq!(&packed[refs.own.expect("seq0")], "7");
    }
}
