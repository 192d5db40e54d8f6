//! One walk over a [`Transcript`]'s items for every format: [`items`] goes through the
//! turns, the messages and what each shadowed, and the parts of each message, in order,
//! and a [`Layout`] (Markdown's, HTML's) only says how each piece is written.

use super::{Item, Message, Part, ResultOf, Transcript, Turn};

/// How a format writes the pieces of a transcript's body, in the order [`items`] hands
/// them over.
pub(crate) trait Layout {
    /// A turn's boundary (`continued`: the turn goes on after messages outside it).
    fn turn(&self, out: &mut String, turn: &Turn, continued: bool);
    /// The boundary before messages outside any turn.
    fn outside_turns(&self, out: &mut String);
    /// A message's start and heading, at `depth` (0: on the surface; 1 and more: an entry
    /// the message above shadowed).
    fn open(&self, out: &mut String, m: &Message, depth: usize);
    /// The message's note (why it is shown as it is).
    fn note(&self, out: &mut String, note: &str);
    /// Starts a collapsed message's parts (system and developer messages).
    fn open_collapsed(&self, out: &mut String, m: &Message);
    /// Ends a collapsed message's parts.
    fn close_collapsed(&self, out: &mut String);
    /// Starts what the message shadowed, `summary` saying what.
    fn open_replaced(&self, out: &mut String, summary: &str);
    /// Ends the message, after what it shadowed.
    fn close(&self, out: &mut String, m: &Message);
    /// Text as written.
    fn text(&self, out: &mut String, text: &str);
    /// Reasoning, collapsed.
    fn reasoning(&self, out: &mut String, text: &str);
    /// A tool call: its id, the tool's name and the arguments.
    fn tool_call(&self, out: &mut String, id: &str, name: &str, arguments: &str);
    /// A tool's output, shortened from `full_chars` characters when it was.
    fn tool_output(&self, out: &mut String, of: &ResultOf, text: &str, full_chars: Option<usize>);
    /// An image, as what it is.
    fn image(&self, out: &mut String, what: &str);
    /// Another block, as its JSON.
    fn other(&self, out: &mut String, ty: &str, json: &str);
}

/// Writes the transcript's items through `layout`.
pub(crate) fn items(out: &mut String, t: &Transcript, layout: &impl Layout) {
    for item in &t.items {
        match item {
            Item::Turn { index, continued } => layout.turn(out, &t.turns[*index], *continued),
            Item::OutsideTurns => layout.outside_turns(out),
            Item::Message(m) => message(out, m, layout),
        }
    }
}

/// A message, and nested inside it as the replaces were, the entries it shadowed.
fn message(out: &mut String, m: &Message, layout: &impl Layout) {
    m.walk(|m, depth, opening| {
        if !opening {
            layout.close(out, m);
            return;
        }
        layout.open(out, m, depth);
        if let Some(note) = &m.note {
            layout.note(out, note);
        }
        if m.collapsed() {
            layout.open_collapsed(out, m);
        }
        for part in &m.parts {
            match part {
                Part::Text(text) => layout.text(out, text),
                Part::Reasoning(text) => layout.reasoning(out, text),
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => layout.tool_call(out, id, name, arguments),
                Part::ToolOutput {
                    of,
                    text,
                    full_chars,
                } => layout.tool_output(out, of, text, *full_chars),
                Part::Image(what) => layout.image(out, what),
                Part::Other { ty, json } => layout.other(out, ty, json),
            }
        }
        if m.collapsed() {
            layout.close_collapsed(out);
        }
        if let Some(summary) = m.replaced_summary() {
            layout.open_replaced(out, &summary);
        }
    });
}
