//! The site's search index (`search.js`, loaded by `index.html` when a search starts, no
//! server): per session its page, title, and the text of each message on its surface,
//! lower-cased and cut, joined with newlines (a message's own line breaks are spaces), with the messages' seqs. The page scans the
//! text for the query as a substring (CJK included: no word splitting to get wrong) and
//! opens a hit at its message (`PAGE#seq-N`, the id each message has on its page).

use serde::{Deserialize, Serialize};

use crate::export::{Message, Part, Transcript};

/// Characters of one message kept for search.
pub const MESSAGE_CHARS: usize = 2000;
/// Characters of a tool call's arguments or a tool's output kept for search.
const TOOL_CHARS: usize = 300;

/// One session's searchable text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Doc {
    /// The seq of each message, in the order of `text`'s parts.
    pub seqs: Vec<u64>,
    /// Each message's text, lower-cased, whitespace runs made one space, cut at
    /// [`MESSAGE_CHARS`], joined with `\n` (within a message every whitespace run is one
    /// space, so the newlines part the messages).
    pub text: String,
}

/// The searchable text of `t`'s surface messages (already redacted).
pub fn doc(t: &Transcript) -> Doc {
    let mut d = Doc::default();
    for m in t.messages() {
        let text = message_text(m);
        if text.is_empty() {
            continue;
        }
        if !d.seqs.is_empty() {
            d.text.push('\n');
        }
        d.seqs.push(m.seq);
        d.text.push_str(&text);
    }
    d
}

fn message_text(m: &Message) -> String {
    let mut raw = String::new();
    let cut = |s: &str, n: usize| s.chars().take(n).collect::<String>();
    for p in &m.parts {
        match p {
            Part::Text(t) | Part::Reasoning(t) => raw.push_str(t),
            Part::ToolCall {
                name, arguments, ..
            } => {
                raw.push_str(name);
                raw.push(' ');
                raw.push_str(&cut(arguments, TOOL_CHARS));
            }
            Part::ToolOutput { text, .. } => raw.push_str(&cut(text, TOOL_CHARS)),
            Part::Image(_) | Part::Other { .. } => {}
        }
        raw.push(' ');
    }
    let mut out = String::with_capacity(raw.len().min(MESSAGE_CHARS * 3));
    let mut chars = 0;
    let mut space = true;
    for c in raw.chars().flat_map(char::to_lowercase) {
        if chars >= MESSAGE_CHARS {
            break;
        }
        if c.is_whitespace() {
            if space {
                continue;
            }
            space = true;
            out.push(' ');
        } else {
            space = false;
            out.push(c);
        }
        chars += 1;
    }
    out.trim_end().to_owned()
}

/// `search.js`: `window.DSH_SEARCH=[[PAGE,TITLE,[SEQ…],TEXT],…];`, one line per session.
pub fn script(docs: &[(&str, &str, &Doc)]) -> String {
    let mut out = String::from("window.DSH_SEARCH=[\n");
    for (page, title, doc) in docs {
        let line = serde_json::to_string(&(page, title, &doc.seqs, &doc.text)).unwrap_or_default();
        out.push_str(&line);
        out.push_str(",\n");
    }
    out.push_str("];\n");
    out
}
