//! Crash repair, the pure part: which closers close an interrupted turn, byte for byte as
//! DSH writes them (FORMAT.md §5.2, §5.3, §5.6; GENERATIONS.md §12 for v1–v4: user-role
//! wrapper results through v3, tool-role results in v4). Writing them lives in `write.rs`.

use crate::event::Era;
use crate::rules::{Finding, Rule};
use crate::scan::Stats;

/// The text of a synthetic result when a `tool/call` was recorded (§5.3), verbatim.
pub const OUTCOME_UNKNOWN_TEXT: &str = "The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.";

/// The text of a synthetic result when no `tool/call` was recorded (§5.3), verbatim.
pub const NOT_STARTED_TEXT: &str = "The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.";

/// The one text of June 2026 closers (§5.6), verbatim.
pub const JUNE_TEXT: &str = "Tool call interrupted by a crash; no result was recorded.";

/// The closer records for the open turn at the end of a log, one compact JSON object
/// each, in order: a `tool/result` per pending call (map order), `step/end` when a step is
/// open, then `turn/end {interrupted}`. Empty when no turn is open or the log is empty.
///
/// `next_seq` is the seq after the last event; every closer reuses the last event's `time`
/// token. Numbers and ids are copied from the stored tokens, so the output is
/// byte-identical to DSH's (§1.4 key orders, §5.3 literals).
pub fn closers_for_open_turn(stats: &Stats, era: Era, next_seq: u64) -> Vec<String> {
    let (Some(turn), Some(time)) = (&stats.open_turn_raw, stats.last_time) else {
        return Vec::new();
    };
    if stats.open_turn.is_none() || stats.events == 0 {
        return Vec::new();
    }
    let mut seq = next_seq;
    let mut out = Vec::new();
    for call in &stats.pending {
        let mut data = format!("{{\"turn\":{turn}");
        if let Some(step) = &call.step_raw {
            data.push_str(&format!(",\"step\":{step}"));
        }
        let c = &call.call_id_raw;
        let body = &call.call_id_in_text;
        let text = match (era, call.call_seq) {
            (Era::June2026, _) => JUNE_TEXT,
            (_, Some(_)) => OUTCOME_UNKNOWN_TEXT,
            (_, None) => NOT_STARTED_TEXT,
        };
        let mut text_json = String::new();
        crate::json::write_js_string(&mut text_json, text);
        let content = format!("[{{\"type\":\"text\",\"text\":{text_json}}}]");
        match era {
            Era::June2026 => data.push_str(&format!(
                ",\"callId\":{c},\"content\":{content},\"isError\":true,\"error\":{{\"name\":\"InterruptedError\",\"code\":\"interrupted\"}}}}"
            )),
            _ => {
                let error = if call.call_seq.is_some() {
                    r#"{"name":"ToolOutcomeUnknownError","code":"TOOL_OUTCOME_UNKNOWN"}"#
                } else {
                    r#"{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"}"#
                };
                let id = format!("\"interrupted-tool-result-{body}-{seq}\"");
                let message = if era == Era::V4 {
                    // GENERATIONS §12.2: a tool-role message, no wrapper block.
                    format!(
                        "{{\"id\":{id},\"role\":\"tool\",\"toolCallId\":{c},\"isError\":true,\"source\":{{\"kind\":\"tool\",\"callId\":{c}}},\"content\":{content}}}"
                    )
                } else {
                    format!(
                        "{{\"id\":{id},\"role\":\"user\",\"source\":{{\"kind\":\"tool\",\"callId\":{c}}},\"content\":[{{\"type\":\"tool-result\",\"toolCallId\":{c},\"isError\":true,\"content\":{content}}}]}}"
                    )
                };
                data.push_str(&format!(",\"message\":{message},\"error\":{error}}}"));
            }
        }
        let mut line = format!(
            "{{\"type\":\"tool/result\",\"seq\":{seq},\"time\":{time},\"data\":{data},\"surfaceOp\":\"append\""
        );
        if let Some(call_seq) = call.call_seq {
            line.push_str(&format!(",\"sourceEventSeqs\":[{call_seq}]"));
        }
        line.push('}');
        out.push(line);
        seq += 1;
    }
    if let Some(step) = &stats.open_step_raw {
        out.push(format!(
            "{{\"type\":\"step/end\",\"seq\":{seq},\"time\":{time},\"data\":{{\"turn\":{turn},\"step\":{step}}}}}"
        ));
        seq += 1;
    }
    out.push(format!(
        "{{\"type\":\"turn/end\",\"seq\":{seq},\"time\":{time},\"data\":{{\"turn\":{turn},\"reason\":{{\"kind\":\"interrupted\"}}}}}}"
    ));
    out
}

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
        Rule::P4 => format!("the reasoning was never recorded: {no_rewrite}"),
        _ => no_rewrite.to_owned(),
    }
}
