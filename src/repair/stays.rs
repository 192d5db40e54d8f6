//! What a DSH-exact repair leaves unsendable, and why (FORMAT.md §5.2; PROVIDERS.md §3):
//! pure, from the warnings of a scan that folded the closers.

use crate::rules::{Finding, Rule};
use crate::view::stats::Stats;

/// A provider finding (PROVIDERS.md §3) that DSH's crash repair leaves in the derived
/// history, and why its rules do not close it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staying {
    /// The P-finding on the repaired history (stored events plus closers).
    pub finding: Finding,
    /// One sentence: why DSH's closers (§5.2) do not fix it.
    pub why: String,
}

/// The provider findings of a log repaired as DSH repairs it, each with why DSH's rules
/// leave it: `warnings` of a scan that folded the closers (`ScanOptions::append_closers`,
/// with `turn_rows` so turns can be told apart), `stored_events` the number of events
/// before the closers.
pub fn staying(warnings: &[Finding], stats: &Stats, stored_events: u64) -> Vec<Staying> {
    warnings
        .iter()
        .filter(|w| !crate::provider::providers_of(w.rule).is_empty())
        .map(|w| Staying {
            finding: w.clone(),
            why: why_it_stays(w, stats, stored_events),
        })
        .collect()
}

fn why_it_stays(w: &Finding, stats: &Stats, stored_events: u64) -> String {
    let seq = w.seq.unwrap_or_default();
    let turn = stats.turns.iter().rev().find(|t| t.start_seq <= seq);
    let no_rewrite = "DSH's crash repair only appends closers to an open final turn; it never changes recorded history";
    match w.rule {
        Rule::P1 => match turn {
            Some(t) if t.end_seq.is_some_and(|e| e < stored_events) => format!(
                "the call's turn {} ended at seq {} ({}) without a result: DSH closes only an open final turn",
                t.turn,
                t.end_seq.unwrap_or_default(),
                t.reason
            ),
            Some(_) => "the call's step ended (step/end) before the crash: DSH's closers answer only the calls of the step still open".to_owned(),
            None => format!("the call is outside any turn: {no_rewrite}"),
        },
        Rule::P3
            if w
                .provider
                .as_ref()
                .and_then(|d| d.answer_seq)
                .is_some_and(|seq| seq >= stored_events) =>
        {
            "DSH's closer answers the call at the end of the log, after the messages recorded since the call".to_owned()
        }
        Rule::P3 => format!("the result stays where it was recorded: {no_rewrite}"),
        Rule::P2 => format!("the result's call is not on the surface before it (never recorded, or shadowed by a replace): {no_rewrite}"),
        Rule::P4 => format!(
            "the message does not carry the reasoning DeepSeek wants passed back: {no_rewrite}"
        ),
        _ => no_rewrite.to_owned(),
    }
}
