//! A surface event's `sourceEventSeqs` (FORMAT.md §3.2 S10–S14; GENERATIONS §1.6 G3, G4):
//! checked and expanded (range pairs of v0 alpha and v1) into the seqs it cites.

use std::collections::HashSet;

use crate::json::Json;
use crate::replay::Replay;
use crate::rules::Rule;

impl Replay {
    /// S10–S14; returns the cited seqs.
    pub(super) fn check_sources(
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
            if alpha_pair && !self.dialect.v0_alpha {
                // DSH 0.1.1-rc.2's store: plain integers only (GENERATIONS §1.5, §3).
                return Err((
                    Rule::G10,
                    format!(
                        "sourceEventSeqs holds the range pair {}: the v0-alpha form DSH 0.1.2-alpha and later write; DSH 0.1.1 refuses it (\"must densely contain non-negative safe integers\"): the log was written by a newer harness",
                        element.raw()
                    ),
                ));
            }
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
