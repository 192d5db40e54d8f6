//! The text of a heal note: what the narrated messages said, called and got back, so that
//! nothing a heal takes out of the history is lost from it (see the module above).

use std::collections::BTreeSet;

use crate::event::Era;
use crate::heal::{Build, HEAL_PLUGIN, Heal, Selection, Sources, heal_id, replace_record};
use crate::json::Json;
use crate::provider::WireRole;
use crate::replay::SurfaceEntry;
use crate::rules::Rule;

/// Marks the first line of every note.
pub const NOTE_MARK: &str = "[dsh-session heal]";

/// A note's `source`: the plugin wrapper up to v3, a producer-owned kind in v4
/// (GENERATIONS §7: the generic wrapper is retired there).
pub(super) fn heal_source(era: Era) -> String {
    match era {
        Era::V4 => format!("{{\"kind\":\"{HEAL_PLUGIN}\"}}"),
        _ => format!("{{\"kind\":\"plugin\",\"plugin\":\"{HEAL_PLUGIN}\"}}"),
    }
}

/// What breaking a P-rule means, in the words of a note (`a tool call without a result`).
pub fn refusal(rule: Rule) -> &'static str {
    match rule {
        Rule::P1 => "a tool call without a result",
        Rule::P2 => "a tool result without its call",
        Rule::P3 => "a tool result that does not follow its call",
        Rule::P4 => "a tool call without the reasoning that thinking mode requires",
        Rule::P5 => "text with an unpaired UTF-16 surrogate",
        Rule::P6 => "a tool call id used twice",
        Rule::P7 => "an empty text block",
        _ => "a shape the provider refuses",
    }
}

/// The note replacing the adjacent surface entries at `span` (positions), or `None` when a
/// source message is missing.
pub(super) fn note_record(b: &Build<'_>, span: &[usize], seq: u64) -> Option<Heal> {
    let Build {
        entries,
        selection,
        sources,
        era,
        time,
    } = *b;
    let mut rules = BTreeSet::new();
    for p in span {
        rules.extend(selection.notes.get(p).into_iter().flatten().copied());
    }
    let rules: Vec<Rule> = rules.into_iter().collect();
    let shadowed: Vec<u64> = span.iter().map(|&p| entries[p].seq).collect();
    let why = rules
        .iter()
        .map(|r| format!("{}: {}", r.id(), refusal(*r)))
        .collect::<Vec<_>>()
        .join("; ");
    let (recorded, it, originals) = if span.len() == 1 {
        ("The message recorded here", "it", "the original")
    } else {
        ("The messages recorded here", "them", "the originals")
    };
    let mut paragraphs = vec![format!(
        "{NOTE_MARK} {recorded} would make the provider refuse the history ({why}). dsh-session replaced {it} with this note; the log keeps {originals} at seq {}.",
        seq_list(&shadowed)
    )];
    let mut kinds = Vec::new();
    for &p in span {
        let (ty, raw) = sources.messages.get(&entries[p].seq)?;
        let message = Json::parse(raw).ok()?;
        kinds.push(kind_name(ty, super::role(&entries[p])));
        let narrator = Narrator {
            entries,
            selection,
            sources,
            span,
            position: p,
        };
        narrator.narrate(message, &mut paragraphs);
    }
    let mut text = String::new();
    crate::json::write_js_string(&mut text, &paragraphs.join("\n\n"));
    let content = format!("[{{\"type\":\"text\",\"text\":{text}}}]");
    let data = super::user_message(era, &heal_id(&rules, seq), &content, &heal_source(era));
    let subject = if span.len() == 1 {
        format!("the {} at seq {} becomes a note", kinds[0], shadowed[0])
    } else {
        format!(
            "the {} at seq {} become one note",
            kinds.join(", "),
            seq_list(&shadowed)
        )
    };
    Some(Heal {
        record: replace_record(era, seq, time, &data, &shadowed),
        seq,
        shadowed,
        rules,
        change: format!("{subject} ({why})"),
    })
}

fn kind_name(ty: &str, role: Option<WireRole>) -> &'static str {
    match (ty, role) {
        ("assistant/message", _) => "assistant message",
        ("tool/result", _) => "tool result",
        (_, Some(WireRole::User)) => "user message",
        _ => "message",
    }
}

/// `3`, `3 and 5`, `3, 5 and 9`.
fn seq_list(seqs: &[u64]) -> String {
    match seqs {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!(
            "{} and {last}",
            init.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Tells one narrated message.
struct Narrator<'a> {
    entries: &'a [SurfaceEntry],
    selection: &'a Selection,
    sources: &'a Sources,
    span: &'a [usize],
    position: usize,
}

impl Narrator<'_> {
    fn narrate(&self, message: Json<'_>, out: &mut Vec<String>) {
        let [role, tool_call_id, is_error, content] =
            message.lookup(["role", "toolCallId", "isError", "content"]);
        let assistant = super::role(&self.entries[self.position]) == Some(WireRole::Assistant);
        if role.is_some_and(|r| r.str_eq("tool")) {
            // v4: the message is the result (GENERATIONS §7).
            let id = text_of(tool_call_id);
            out.push(self.result(&id, is_error, content));
            return;
        }
        for block in content.into_iter().flat_map(Json::elements) {
            let [ty, text] = block.lookup(["type", "text"]);
            let ty = text_of(ty);
            match ty.as_str() {
                "text" if text.is_some_and(Json::is_nonempty_string) => {
                    let who = if assistant {
                        "The assistant wrote:"
                    } else {
                        "The user wrote:"
                    };
                    out.push(format!("{who}\n{}", text_of(text)));
                }
                "text" => {}
                "reasoning" if text.is_some_and(Json::is_nonempty_string) => {
                    out.push(format!("The assistant's reasoning:\n{}", text_of(text)));
                }
                "reasoning" => {}
                "tool-call" => out.push(self.call(block)),
                "tool-result" => {
                    let [id, is_error, content] =
                        block.lookup(["toolCallId", "isError", "content"]);
                    out.push(self.result(&text_of(id), is_error, content));
                }
                other => out.push(other_block(other, block)),
            }
        }
    }

    /// `The assistant called the tool bash (call id call_1) with the arguments {…}.` and
    /// what became of the call.
    fn call(&self, block: Json<'_>) -> String {
        let [id, name, arguments] = block.lookup(["id", "name", "arguments"]);
        let id = text_of(id);
        let answers = self
            .selection
            .answers
            .get(&(self.position, id.clone()))
            .filter(|a| !a.is_empty());
        let outcome = match answers {
            None => "No result was recorded.",
            Some(a) if self.span.contains(&a[0]) => "Its result follows.",
            Some(_) => "Its result came back later and is given below.",
        };
        format!(
            "The assistant called the tool {} (call id {id}) with the arguments {}. {outcome}",
            text_of(name),
            text_of(arguments)
        )
    }

    /// `Result of the tool bash (call id call_1):` and the output.
    fn result(&self, id: &str, is_error: Option<Json<'_>>, content: Option<Json<'_>>) -> String {
        let announcer = self
            .selection
            .announcer
            .get(&(self.position, id.to_owned()))
            .copied();
        let name = match announcer {
            Some(a) => self.call_name(a, id),
            None => self.sources.tool_names.get(id).cloned(),
        };
        let tool = name.map_or_else(
            || "an unrecorded tool".to_owned(),
            |n| format!("the tool {n}"),
        );
        let when = match announcer {
            Some(a) if self.span.contains(&a) => "",
            Some(_) => ", which came back after the messages above",
            None => {
                ", whose call is not in this history (never recorded, or removed by an earlier replacement)"
            }
        };
        let error = if is_error.and_then(Json::as_bool) == Some(true) {
            " It reported an error."
        } else {
            ""
        };
        let mut output = Vec::new();
        for block in content.into_iter().flat_map(Json::elements) {
            let [ty, text] = block.lookup(["type", "text"]);
            match text_of(ty).as_str() {
                "text" => output.push(text_of(text)),
                other => output.push(other_block(other, block)),
            }
        }
        let output = output.join("\n");
        let output = if output.is_empty() {
            "(no output)".to_owned()
        } else {
            output
        };
        format!("Result of {tool} (call id {id}){when}:{error}\n{output}")
    }

    /// The tool name of call `id` in the assistant message at position `at`.
    fn call_name(&self, at: usize, id: &str) -> Option<String> {
        let (_, raw) = self.sources.messages.get(&self.entries[at].seq)?;
        let message = Json::parse(raw).ok()?;
        let content = message.get("content")?;
        content.elements().find_map(|block| {
            let [ty, block_id, name] = block.lookup(["type", "id", "name"]);
            (ty.is_some_and(|t| t.str_eq("tool-call")) && block_id.is_some_and(|b| b.str_eq(id)))
                .then(|| text_of(name))
        })
    }
}

/// A block a note cannot carry as text (an image, a block of a type it does not know).
fn other_block(ty: &str, block: Json<'_>) -> String {
    if ty == "image" {
        let [attachment] = block.lookup(["attachment"]);
        let [media, width, height] = attachment.map_or([None, None, None], |a| {
            a.lookup(["mediaType", "width", "height"])
        });
        let size = match (width.and_then(Json::as_f64), height.and_then(Json::as_f64)) {
            (Some(w), Some(h)) => format!(", {w}x{h}"),
            _ => String::new(),
        };
        return format!(
            "[an image ({}{size}) is not carried into this note]",
            media.map_or_else(|| "of unknown type".to_owned(), |m| text_of(Some(m)))
        );
    }
    format!("[a {ty} block is not carried into this note]")
}

/// A JSON string's text (lone surrogates as U+FFFD), or any other value's JSON text.
fn text_of(value: Option<Json<'_>>) -> String {
    match value {
        None => String::new(),
        Some(v) => v
            .as_str()
            .map_or_else(|| v.raw().to_owned(), |s| s.into_owned()),
    }
}
