//! A [`Transcript`] as GitHub-flavoured Markdown. Collapsed parts (reasoning, system and
//! developer messages, shadowed entries) use `<details>`, which GitHub renders. Message
//! text is Markdown already (what the model wrote) and is kept as written, except that
//! `<details>` and `<summary>` tags in it are neutralised so they cannot break the
//! transcript's own structure; tool arguments and outputs go in code fences longer than
//! any backtick run they hold.
//!
//! Every surface message starts with a line `### #<seq> · …` and every turn boundary with
//! `## Turn <n>`, so a reader (or a test) finds them with `grep`.

use std::fmt::Write as _;

use crate::export::layout::{self, Layout};
use crate::export::{Message, ResultOf, Transcript, Turn};
use crate::wording::utc;

/// Renders `t` as Markdown.
pub fn render(t: &Transcript) -> String {
    let mut out = String::new();
    let title = t
        .title
        .as_deref()
        .map_or_else(|| format!("Session transcript: {}", t.file), one_line);
    let _ = writeln!(out, "# {}\n", inline(&title));
    out.push_str("| | |\n|---|---|\n");
    let _ = writeln!(out, "| file | {} |", cell(&t.file));
    for (k, v) in &t.header {
        let _ = writeln!(out, "| {k} | {} |", cell(v));
    }
    let _ = writeln!(out, "\n**Verdict:** {}\n", inline(&t.verdict));
    if t.findings.is_empty() {
        out.push_str("**Findings:** none\n\n");
    } else {
        let _ = writeln!(out, "**Findings ({}):**\n", t.findings.len());
        for f in &t.findings {
            let _ = writeln!(out, "- {}", inline(f));
        }
        out.push('\n');
    }
    if !t.turns.is_empty() {
        out.push('|');
        for (heading, _) in TURN_COLUMNS {
            let _ = write!(out, " {heading} |");
        }
        out.push_str("\n|");
        for (_, words) in TURN_COLUMNS {
            out.push_str(if words { "---|" } else { "---:|" });
        }
        out.push('\n');
        for turn in &t.turns {
            out.push('|');
            for c in turn_cells(turn) {
                let _ = write!(out, " {} |", cell(&c));
            }
            out.push('\n');
        }
        out.push('\n');
    }
    layout::items(&mut out, t, &Markdown);
    let _ = writeln!(out, "---\n\n_{}_", t.redaction);
    out
}

/// The columns of a transcript's table of turns, for every format: each one's heading,
/// and whether it holds words (aligned left) rather than a number.
pub const TURN_COLUMNS: [(&str, bool); 9] = [
    ("turn", false),
    ("models", true),
    ("input", false),
    ("output", false),
    ("cache read", false),
    ("cache write", false),
    ("reasoning", false),
    ("duration", false),
    ("end", true),
];

/// One turn's row of the table of turns, in the order of [`TURN_COLUMNS`], not escaped.
pub fn turn_cells(turn: &Turn) -> [String; 9] {
    let u = turn.counts.usage;
    [
        turn.number().to_string(),
        turn.models.join(", "),
        u.input.to_string(),
        u.output.to_string(),
        u.cache_read.to_string(),
        u.cache_write.to_string(),
        u.reasoning_text(),
        duration(turn.counts.duration_ms()),
        end(turn),
    ]
}

/// The turn's end in words: `completed`, `error: <message>`, `aborted by user`.
pub fn end(turn: &Turn) -> String {
    match &turn.detail {
        Some(d) if turn.counts.reason == "aborted" => format!("aborted {d}"),
        Some(d) => format!("{}: {}", turn.counts.reason, one_line(d)),
        None if turn.counts.reason == "open" => "still open".to_owned(),
        None => turn.counts.reason.clone(),
    }
}

/// One line of facts under a turn's heading.
pub fn facts(turn: &Turn) -> String {
    let u = turn.counts.usage;
    let models = if turn.models.is_empty() {
        "no model".to_owned()
    } else {
        turn.models.join(", ")
    };
    format!(
        "{models} · seqs {}..{} · {}, {} · tokens: input {}, output {}, cache read {}, cache write {}, reasoning {} · {}",
        turn.counts.start_seq,
        turn.counts
            .end_seq
            .map_or("-".to_owned(), |s| s.to_string()),
        crate::wording::count(turn.counts.steps, "step"),
        crate::wording::count(turn.counts.tool_calls, "tool call"),
        u.input,
        u.output,
        u.cache_read,
        u.cache_write,
        u.reasoning_text(),
        duration(turn.counts.duration_ms())
    )
}

/// `850 ms` under a second, `1.2 s` from there on, `-` when the turn did not end.
pub fn duration(ms: Option<i64>) -> String {
    match ms {
        None => "-".to_owned(),
        Some(d) if d.abs() < 1000 => format!("{d} ms"),
        Some(d) => format!("{:.1} s", d as f64 / 1000.0),
    }
}

/// The heading of a message: `#<seq> · <role> · <type> · <time>` with what it answers or
/// replaces.
pub fn heading(m: &Message) -> String {
    let mut h = format!("#{} · {}", m.seq, m.role);
    if let Some(of) = &m.result_of {
        let _ = write!(
            h,
            " · result of {} ({})",
            of.tool.as_deref().unwrap_or("?"),
            of.call_id
        );
        if of.is_error {
            h.push_str(" · error");
        }
    }
    let _ = write!(h, " · {}", m.ty);
    if let Some((s, e)) = m.replace {
        let _ = write!(h, " · replaces {s}..{e}");
    }
    if let Some(t) = m.time {
        let _ = write!(h, " · {}", utc(t));
    }
    h
}

/// Markdown's way of writing a transcript's body: each message under a heading three
/// levels down (one more for each entry it shadowed, down to `######`).
struct Markdown;

impl Layout for Markdown {
    fn turn(&self, out: &mut String, turn: &Turn, continued: bool) {
        if continued {
            let _ = writeln!(out, "---\n\n## Turn {} (continued)\n", turn.number());
        } else {
            let _ = writeln!(
                out,
                "---\n\n## Turn {}: {}\n",
                turn.number(),
                inline(&end(turn))
            );
            let _ = writeln!(out, "<sub>{}</sub>\n", facts(turn));
        }
    }

    fn outside_turns(&self, out: &mut String) {
        out.push_str("---\n\n## Outside any turn\n\n");
    }

    fn open(&self, out: &mut String, m: &Message, depth: usize) {
        let hashes = "#".repeat((3 + depth).min(6));
        let _ = writeln!(out, "{hashes} {}\n", inline(&heading(m)));
    }

    fn note(&self, out: &mut String, note: &str) {
        let _ = writeln!(out, "> **{}**\n", inline(note));
    }

    fn open_collapsed(&self, out: &mut String, m: &Message) {
        let _ = writeln!(
            out,
            "<details><summary>{} message ({})</summary>\n",
            m.role,
            crate::wording::count(m.parts.len() as u64, "part")
        );
    }

    fn close_collapsed(&self, out: &mut String) {
        out.push_str("</details>\n\n");
    }

    fn open_replaced(&self, out: &mut String, summary: &str) {
        let _ = writeln!(out, "<details><summary>{summary}</summary>\n");
    }

    fn close(&self, out: &mut String, m: &Message) {
        if m.replaced_summary().is_some() {
            out.push_str("</details>\n\n");
        }
    }

    fn text(&self, out: &mut String, text: &str) {
        let _ = writeln!(out, "{}\n", neutralise(text));
    }

    fn reasoning(&self, out: &mut String, text: &str) {
        let _ = writeln!(
            out,
            "<details><summary>Reasoning ({} characters)</summary>\n\n{}\n\n</details>\n",
            text.chars().count(),
            neutralise(text)
        );
    }

    fn tool_call(&self, out: &mut String, id: &str, name: &str, arguments: &str) {
        let _ = writeln!(
            out,
            "**Tool call** `{}` ({})\n",
            code_span(name),
            inline(id)
        );
        fenced(out, "json", arguments);
    }

    fn tool_output(&self, out: &mut String, of: &ResultOf, text: &str, full_chars: Option<usize>) {
        let _ = writeln!(
            out,
            "**{}** of `{}` ({})\n",
            if of.is_error {
                "Error output"
            } else {
                "Output"
            },
            code_span(of.tool.as_deref().unwrap_or("?")),
            inline(&of.call_id)
        );
        fenced(out, "text", text);
        if let Some(n) = full_chars {
            let _ = writeln!(
                out,
                "_Output shortened: the first {} of {n} characters._\n",
                super::RESULT_CHARS
            );
        }
    }

    fn image(&self, out: &mut String, what: &str) {
        let _ = writeln!(out, "_[{}]_\n", inline(what));
    }

    fn other(&self, out: &mut String, ty: &str, json: &str) {
        let _ = writeln!(out, "_Block `{}`:_\n", code_span(ty));
        fenced(out, "json", json);
    }
}

/// A code fence around `text`, one backtick longer than the longest run inside it.
fn fenced(out: &mut String, lang: &str, text: &str) {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "{fence}{lang}\n{text}\n{fence}\n");
}

/// Text for a single line of Markdown (a heading, a table cell, a list item): newlines
/// become spaces and HTML is escaped.
fn inline(text: &str) -> String {
    html_escape::encode_text(&one_line(text)).into_owned()
}

fn cell(text: &str) -> String {
    inline(text).replace('|', "\\|")
}

fn code_span(text: &str) -> String {
    one_line(text).replace('`', "'")
}

fn one_line(text: &str) -> String {
    text.split(['\n', '\r'])
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Message text with `<details>`/`<summary>` tags (either case, opening or closing) made
/// inert, so they cannot close or open the transcript's own collapsed parts.
fn neutralise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let name = after.strip_prefix('/').unwrap_or(after);
        let tag = name.get(..7).map(str::to_ascii_lowercase);
        if matches!(tag.as_deref(), Some("details" | "summary")) {
            out.push_str("&lt;");
        } else {
            out.push('<');
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_tags_in_text_are_inert() {
        assert_eq!(
            neutralise("a </details> <Summary>x <b>"),
            "a &lt;/details> &lt;Summary>x <b>"
        );
    }

    #[test]
    fn fences_outgrow_backticks() {
        let mut out = String::new();
        fenced(&mut out, "text", "a ```` b");
        assert_eq!(out, "`````text\na ```` b\n`````\n\n");
    }
}
