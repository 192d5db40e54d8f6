//! The note a recovered session ends with: a `user/message` that says where the session
//! came from and what of it is not here, marked as the tool's (as heal notes are,
//! [`crate::heal`]): its text starts with `[dsh-session recover]`, its source is the plugin
//! `dsh-session-recover` (v4: the producer kind of that name, GENERATIONS §7) and its id
//! `dsh-session-recover-<seq>`. It is appended after DSH's closers, where no turn is open,
//! with the last event's time (no time is invented, FORMAT.md §5.2).

use std::collections::BTreeSet;

use super::assemble::{Candidate, Policy};
use super::recovery::{ranges, show_ranges};
use super::stored::{self, Item, Stored};
use super::writers;
use crate::event::Era;
use crate::json::write_js_string;
use crate::rules::{Finding, Rule};

/// Marks the first words of every note.
pub const NOTE_MARK: &str = "[dsh-session recover]";

/// The plugin (v4: the source kind) of every note.
pub const RECOVER_PLUGIN: &str = "dsh-session-recover";

/// The note record at `seq`, with `time`, saying `text` (after [`NOTE_MARK`]), in the
/// shapes of `era`: envelope `type, seq, time, data, surfaceOp` (FORMAT.md §1.4).
pub fn note_record(era: Era, seq: u64, time: i64, text: &str) -> String {
    let source = match era {
        Era::V4 => format!("{{\"kind\":\"{RECOVER_PLUGIN}\"}}"),
        _ => format!("{{\"kind\":\"plugin\",\"plugin\":\"{RECOVER_PLUGIN}\"}}"),
    };
    let mut body = String::new();
    write_js_string(&mut body, &format!("{NOTE_MARK} {text}"));
    let content = format!("[{{\"type\":\"text\",\"text\":{body}}}]");
    let data =
        crate::heal::user_message(era, &format!("{RECOVER_PLUGIN}-{seq}"), &content, &source);
    format!(
        "{{\"type\":\"user/message\",\"seq\":{seq},\"time\":{time},\"data\":{data},\"surfaceOp\":\"append\"}}"
    )
}

/// The note's text for branch `k` of `n` (see the module).
#[allow(clippy::too_many_arguments)]
pub(super) fn note_text(
    stored: &Stored,
    finding: &Option<Finding>,
    strays: &[writers::Stray],
    branch: &writers::Branch,
    k: usize,
    n: usize,
    candidate: &Candidate,
    policy: &Policy,
    quotes: &Quotes<'_>,
) -> String {
    let mut text = format!(
        "This session was recovered by dsh-session from session {}, whose log DSH refuses",
        stored.header.id
    );
    if let Some(f) = finding {
        let at = f
            .line
            .or(f.row)
            .map(|l| format!(" at line {l}"))
            .unwrap_or_default();
        text.push_str(&format!(" ({}{at}: {})", f.rule.id(), f.message));
    }
    text.push('.');
    if let Some(r) = &stored.rebuilt {
        text.push_str(&format!(" Its header was rebuilt ({})", r.why));
        if !r.assumed.is_empty() {
            text.push_str(&format!(": {}", r.assumed.join("; ")));
        }
        text.push('.');
    }
    if n > 1 {
        text.push_str(&format!(
            " {n} processes wrote that log at the same time; this is the history of writer {} of {n}",
            k + 1
        ));
        if let Some((seq, _)) = branch.fork {
            text.push_str(&format!(", which leaves the first writer's at seq {seq}"));
        }
        text.push('.');
    }
    let lost: Vec<u64> = candidate
        .lost
        .iter()
        .flat_map(|l| l.items.iter())
        .filter_map(|&i| stored.record(i).map(|r| r.line))
        .chain(stored.items.iter().filter_map(|it| match it {
            Item::Hole(h) if h.rule != Rule::J2 && h.rule != Rule::Z3 => h.line,
            _ => None,
        }))
        .collect::<BTreeSet<u64>>()
        .into_iter()
        .collect();
    if !lost.is_empty() {
        text.push_str(&format!(
            " The original log's {} could not be recovered; the conversation here may miss what they held.",
            show_ranges(&ranges(lost.into_iter()))
        ));
    }
    let mut quoted = String::new();
    let stray = strays
        .iter()
        .filter(|x| x.copy_of.is_none())
        .map(|x| &x.item);
    // A record of a type no DSH loads that held a message (June 2026's context/message)
    // is quoted too.
    let mut quoting: Vec<usize> = (candidate.lost.iter())
        .flat_map(|l| l.items.iter().copied())
        .chain(stray.copied())
        .chain(policy.dropped.iter().copied())
        .collect();
    quoting.sort_unstable();
    quoting.dedup();
    for i in quoting {
        let Some(r) = stored.record(i) else { continue };
        let quotes = quotes.of(i);
        if !quotes.is_empty() {
            quoted.push_str(&format!(
                " Line {} ({}) is not here; it said: {}.",
                r.line,
                r.ty,
                quotes.join("; ")
            ));
        }
    }
    for item in &stored.items {
        if let Item::Hole(h) = item
            && let (Some(line), Some(held)) = (h.line, &h.text)
        {
            quoted.push_str(&format!(
                " Line {line} could not be read ({} {}); it held: {held}.",
                h.rule.id(),
                h.why
            ));
        }
    }
    text.push_str(&quoted);
    let log_only: Vec<&stored::Record> = (policy.dropped.iter())
        .filter(|&&i| quotes.of(i).is_empty())
        .filter_map(|&i| stored.record(i))
        .collect();
    if !log_only.is_empty() {
        let types: BTreeSet<&str> = log_only.iter().map(|r| r.ty.as_str()).collect();
        text.push_str(&format!(
            " {} log-only record(s) of types no DSH release loads ({}) were left out; the model never saw them.",
            log_only.len(),
            types.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    if !candidate.opened.is_empty() {
        text.push_str(&format!(
            " {} message(s) on the surface before any step (which DSH's migration cannot put after the system prompt) were each given a step of their own (and a turn, where none was open), as DSH writes user input.",
            candidate.opened.len()
        ));
    }
    if !policy.edits.is_empty() {
        text.push_str(&format!(
            " {} record(s) were changed where DSH's migration refuses them.",
            policy.edits.len()
        ));
    }
    text
}

/// What each record of the log quotes ([`message_quotes`]), worked out once for the
/// notes and for [`super::fates`] alike, when first asked.
pub struct Quotes<'a> {
    stored: &'a Stored,
    of: Vec<std::cell::OnceCell<Vec<String>>>,
}

impl<'a> Quotes<'a> {
    /// The quotes of `stored`'s records, none worked out yet.
    pub fn new(stored: &'a Stored) -> Self {
        Quotes {
            stored,
            of: vec![std::cell::OnceCell::new(); stored.items.len()],
        }
    }

    /// What the record at index `i` quotes (empty for a hole or a record that holds no
    /// message).
    pub fn of(&self, i: usize) -> &[String] {
        match (self.of.get(i), self.stored.record(i)) {
            (Some(cell), Some(r)) => cell.get_or_init(|| message_quotes(r)),
            _ => &[],
        }
    }
}

/// What a record of a message type (`*/message`, `tool/result`) says, for the note that
/// quotes a record the session cannot hold: each text (a message's, a reasoning's, a tool
/// result's) and each tool call as `call ID NAME ARGUMENTS`, in order; empty for any
/// other record.
pub fn message_quotes(r: &stored::Record) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(map) => {
                if let (Some(serde_json::Value::String(name)), Some(args)) =
                    (map.get("name"), map.get("arguments"))
                {
                    let id = map.get("id").and_then(|i| i.as_str()).unwrap_or("");
                    let args = match args {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    out.push(format!("call {id} {name} {args}"));
                }
                for key in ["text", "reasoning", "thinking"] {
                    if let Some(serde_json::Value::String(t)) = map.get(key) {
                        out.push(t.clone());
                    }
                }
                for (k, x) in map {
                    if k != "text" && k != "arguments" {
                        walk(x, out);
                    }
                }
            }
            serde_json::Value::Array(list) => list.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if (r.ty.ends_with("/message") || r.ty == "tool/result")
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(&r.text)
    {
        walk(&v["data"], &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_a_user_message_of_the_generation() {
        assert_eq!(
            note_record(Era::Head, 7, 100, "From s-1."),
            r#"{"type":"user/message","seq":7,"time":100,"data":{"content":[{"type":"text","text":"[dsh-session recover] From s-1."}],"source":{"kind":"plugin","plugin":"dsh-session-recover"},"role":"user","id":"dsh-session-recover-7"},"surfaceOp":"append"}"#
        );
        // DSH's message constructor writes `content, source, role, id` in every generation
        // (issue 44.6: v0 notes were `id, role, content, source`, v3 ones DSH's order).
        assert_eq!(
            note_record(Era::V3, 7, 100, "From s-1."),
            note_record(Era::Head, 7, 100, "From s-1.")
        );
        assert!(
            note_record(Era::V4, 7, 100, "x")
                .contains(r#""source":{"kind":"dsh-session-recover"},"role":"user""#)
        );
    }
}
