//! A [`Transcript`] as one self-contained HTML page: inline CSS, one small inline script
//! (expand or collapse every part), no URL of any kind, and a Content-Security-Policy that
//! forbids every request, so opening the file never touches the network. Light and dark
//! follow `prefers-color-scheme`; a viewport meta and wrapping `pre` make it readable on a
//! phone. A per-turn chart of tokens and duration is inline SVG.
//!
//! Structure (what the browser test counts): one `section.turn` per turn boundary (a
//! continued turn is `section.turn-continued`), one `article.message` per derived
//! message, shadowed entries as `article.shadowed` inside a `details.replaced`;
//! collapsed parts are `details` elements.

use std::fmt::Write as _;

use html_escape::{encode_double_quoted_attribute as attr, encode_text as text};

use crate::export::layout::{self, Layout};
use crate::export::markdown::{TURN_COLUMNS, duration, end, facts, heading, turn_cells};
use crate::export::{Message, Part, ResultOf, Transcript, Turn};

const STYLE: &str = r#"
:root{--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--card:#f6f8fa;--user:#ddf4ff;--assistant:#fff;--tool:#f6f8fa;--err:#cf222e;--errbg:#ffebe9;--accent:#0969da;--accent2:#bf8700;--shadow:#fff8c5}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--card:#151b23;--user:#0c2d4a;--assistant:#0d1117;--tool:#151b23;--err:#ff7b72;--errbg:#3a1214;--accent:#4493f8;--accent2:#d29922;--shadow:#2d2505}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:60rem;padding:1rem;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;overflow-wrap:anywhere}
h1{font-size:1.4rem;margin:.2rem 0 .8rem}
h2{font-size:1.1rem;margin:0}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:0 0 1rem}
dl.meta dt{color:var(--muted)}
dl.meta dd{margin:0}
.verdict{padding:.4rem .6rem;border-left:4px solid var(--accent);background:var(--card)}
.findings li{color:var(--err)}
.chart svg{width:100%;height:auto;display:block}
.chart .tokens{fill:var(--accent)}
.chart .duration{fill:var(--accent2)}
.chart text{fill:var(--muted);font-size:12px}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;font-size:.85rem}
th,td{border:1px solid var(--line);padding:.2rem .4rem;text-align:right;white-space:nowrap;overflow-wrap:normal}
td.l,th.l{text-align:left}
section.turn,section.turn-continued,section.outside{margin:1.5rem 0 .5rem;padding:.5rem .7rem;border-top:3px solid var(--accent);background:var(--card)}
.turn .facts{color:var(--muted);font-size:.85rem;margin:.2rem 0 0}
article{border:1px solid var(--line);border-radius:6px;margin:.6rem 0;padding:.5rem .7rem;background:var(--assistant)}
article.role-user{background:var(--user)}
article.role-tool,article.result{background:var(--tool)}
article.shadowed{background:var(--shadow);opacity:.9}
article.error{border-color:var(--err)}
.head{color:var(--muted);font-size:.8rem;margin-bottom:.3rem}
.head b{color:var(--fg)}
.note{color:var(--err);font-weight:600}
.text{white-space:pre-wrap}
pre{white-space:pre-wrap;word-break:break-word;background:var(--card);border:1px solid var(--line);border-radius:4px;padding:.4rem;margin:.3rem 0;font-size:.85rem;max-height:40rem;overflow:auto}
pre.error{background:var(--errbg);border-color:var(--err)}
details{margin:.3rem 0}
details>summary{cursor:pointer;color:var(--muted)}
.call-name{font-family:ui-monospace,monospace;font-weight:600}
.shortened{color:var(--muted);font-size:.8rem}
footer{margin-top:2rem;color:var(--muted);font-size:.85rem;border-top:1px solid var(--line);padding-top:.5rem}
button{font:inherit;font-size:.8rem;margin:0 .3rem .5rem 0}
"#;

const SCRIPT: &str = "for(const[id,open]of[['expand',true],['collapse',false]])document.getElementById(id).onclick=()=>document.querySelectorAll('details').forEach(d=>d.open=open);";

/// What a page of the site export ([`crate::export::site`]) adds to a transcript's page;
/// each is HTML, inserted as given.
#[derive(Debug, Clone, Default)]
pub struct Extra<'a> {
    /// CSS appended to the page's style.
    pub style: &'a str,
    /// Put first in the page's header, before the title: navigation, a banner.
    pub top: &'a str,
    /// Put after the findings, before the chart: the timeline, links to other sessions.
    pub after_findings: &'a str,
}

/// Renders `t` as a self-contained HTML page.
pub fn render(t: &Transcript) -> String {
    render_with(t, &Extra::default())
}

/// Renders `t` as [`render`] does, with what a site page adds.
pub fn render_with(t: &Transcript, extra: &Extra<'_>) -> String {
    let title = t
        .title
        .clone()
        .unwrap_or_else(|| format!("Session transcript: {}", t.file));
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<meta name=\"color-scheme\" content=\"light dark\">\n<title>{}</title>\n<style>{STYLE}{}</style>\n</head>\n<body>\n<header>\n{}<h1>{}</h1>\n<dl class=\"meta\">\n",
        text(&title),
        extra.style,
        extra.top,
        text(&title)
    );
    let _ = writeln!(out, "<dt>file</dt><dd>{}</dd>", text(&t.file));
    for (k, v) in &t.header {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", text(k), text(v));
    }
    out.push_str("</dl>\n");
    let _ = writeln!(out, "<p class=\"verdict\">{}</p>", text(&t.verdict));
    if t.findings.is_empty() {
        out.push_str("<p class=\"findings\">Findings: none</p>\n");
    } else {
        let _ = writeln!(
            out,
            "<div class=\"findings\"><p>Findings ({}):</p><ul>",
            t.findings.len()
        );
        for f in &t.findings {
            let _ = writeln!(out, "<li>{}</li>", text(f));
        }
        out.push_str("</ul></div>\n");
    }
    out.push_str(extra.after_findings);
    chart(&mut out, t);
    turn_table(&mut out, t);
    out.push_str("</header>\n<main>\n<button id=\"expand\" type=\"button\">Expand all</button><button id=\"collapse\" type=\"button\">Collapse all</button>\n");
    layout::items(&mut out, t, &Html);
    let _ = write!(
        out,
        "</main>\n<footer><p class=\"redaction\">{}</p></footer>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        text(&t.redaction)
    );
    out
}

/// HTML's way of writing a transcript's body: each message an `article.message`, and
/// inside it, in `details.replaced`, the entries it shadowed as `article.shadowed`, nested
/// as the replaces were.
struct Html;

impl Layout for Html {
    fn turn(&self, out: &mut String, turn: &Turn, continued: bool) {
        if continued {
            let _ = writeln!(
                out,
                "<section class=\"turn-continued\" data-turn=\"{}\"><h2>Turn {} (continued)</h2></section>",
                turn.number(),
                turn.number()
            );
        } else {
            let _ = writeln!(
                out,
                "<section class=\"turn\" id=\"turn-{}\" data-turn=\"{}\"><h2>Turn {}: {}</h2><p class=\"facts\">{}</p></section>",
                turn.number(),
                turn.number(),
                turn.number(),
                text(&end(turn)),
                text(&facts(turn))
            );
        }
    }

    fn outside_turns(&self, out: &mut String) {
        out.push_str("<section class=\"outside\"><h2>Outside any turn</h2></section>\n");
    }

    fn open(&self, out: &mut String, m: &Message, depth: usize) {
        let class = if depth == 0 { "message" } else { "shadowed" };
        let error = m.result_of.as_ref().is_some_and(|o| o.is_error)
            || m.parts
                .iter()
                .any(|p| matches!(p, Part::ToolOutput { of, .. } if of.is_error));
        let _ = writeln!(
            out,
            "<article class=\"{class} role-{}{}{}\" id=\"{}seq-{}\" data-seq=\"{}\">",
            attr(&m.role),
            // v0-v3 results are user-role messages; they look like v4 tool results.
            if m.ty == "tool/result" { " result" } else { "" },
            if error { " error" } else { "" },
            if class == "shadowed" { "shadowed-" } else { "" },
            m.seq,
            m.seq
        );
        let _ = writeln!(
            out,
            "<div class=\"head\"><b>{}</b></div>",
            text(&heading(m))
        );
    }

    fn note(&self, out: &mut String, note: &str) {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", text(note));
    }

    fn open_collapsed(&self, out: &mut String, m: &Message) {
        let _ = writeln!(
            out,
            "<details class=\"collapsed-message\"><summary>{} message ({})</summary>",
            text(&m.role),
            crate::wording::count(m.parts.len() as u64, "part")
        );
    }

    fn close_collapsed(&self, out: &mut String) {
        out.push_str("</details>\n");
    }

    fn open_replaced(&self, out: &mut String, summary: &str) {
        let _ = writeln!(
            out,
            "<details class=\"replaced\"><summary>{summary}</summary>"
        );
    }

    fn close(&self, out: &mut String, m: &Message) {
        if m.replaced_summary().is_some() {
            out.push_str("</details>\n");
        }
        out.push_str("</article>\n");
    }

    fn text(&self, out: &mut String, t: &str) {
        let _ = writeln!(out, "<div class=\"text\">{}</div>", text(t));
    }

    fn reasoning(&self, out: &mut String, t: &str) {
        let _ = writeln!(
            out,
            "<details class=\"reasoning\"><summary>Reasoning ({} characters)</summary><div class=\"text\">{}</div></details>",
            t.chars().count(),
            text(t)
        );
    }

    fn tool_call(&self, out: &mut String, id: &str, name: &str, arguments: &str) {
        let _ = writeln!(
            out,
            "<div class=\"tool-call\">Tool call <span class=\"call-name\">{}</span> ({})<pre>{}</pre></div>",
            text(name),
            text(id),
            text(arguments)
        );
    }

    fn tool_output(&self, out: &mut String, of: &ResultOf, body: &str, full_chars: Option<usize>) {
        let _ = writeln!(
            out,
            "<div class=\"tool-output\">{} of <span class=\"call-name\">{}</span> ({})<pre{}>{}</pre>",
            if of.is_error {
                "Error output"
            } else {
                "Output"
            },
            text(of.tool.as_deref().unwrap_or("?")),
            text(&of.call_id),
            if of.is_error { " class=\"error\"" } else { "" },
            text(body)
        );
        if let Some(n) = full_chars {
            let _ = writeln!(
                out,
                "<p class=\"shortened\">Output shortened: the first {} of {n} characters.</p>",
                super::RESULT_CHARS
            );
        }
        out.push_str("</div>\n");
    }

    fn image(&self, out: &mut String, what: &str) {
        let _ = writeln!(out, "<p class=\"image\">[{}]</p>", text(what));
    }

    fn other(&self, out: &mut String, ty: &str, json: &str) {
        let _ = writeln!(
            out,
            "<div class=\"block\">Block <code>{}</code><pre>{}</pre></div>",
            text(ty),
            text(json)
        );
    }
}

/// Two bar rows per turn, tokens (input + output + cache read + cache write) above and
/// duration below, each scaled to its own maximum; every bar has a `<title>` tooltip.
fn chart(out: &mut String, t: &Transcript) {
    if t.turns.is_empty() {
        return;
    }
    let n = t.turns.len();
    let tokens: Vec<u64> = t
        .turns
        .iter()
        .map(|turn| {
            let u = turn.counts.usage;
            u.input + u.output + u.cache_read + u.cache_write
        })
        .collect();
    let durations: Vec<i64> = t
        .turns
        .iter()
        .map(|turn| turn.counts.duration_ms().unwrap_or(0).max(0))
        .collect();
    let max_tokens = tokens.iter().copied().max().unwrap_or(0).max(1) as f64;
    let max_ms = durations.iter().copied().max().unwrap_or(0).max(1) as f64;
    let (width, row, gap, label) = (600.0_f64, 60.0_f64, 20.0_f64, 14.0_f64);
    let slot = width / n as f64;
    let bar = (slot * 0.7).max(1.0);
    let height = label + row + gap + label + row + 14.0;
    let _ = writeln!(
        out,
        "<section class=\"chart\"><svg viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"tokens and duration per turn\">"
    );
    let _ = writeln!(
        out,
        "<text x=\"0\" y=\"10\">tokens per turn (max {})</text>",
        max_tokens as u64
    );
    let top2 = label + row + gap;
    let _ = writeln!(
        out,
        "<text x=\"0\" y=\"{}\">duration per turn (max {})</text>",
        top2 + 10.0,
        duration(Some(max_ms as i64))
    );
    for (i, turn) in t.turns.iter().enumerate() {
        let x = i as f64 * slot + (slot - bar) / 2.0;
        let h1 = (tokens[i] as f64 / max_tokens * row).max(if tokens[i] > 0 { 1.0 } else { 0.0 });
        let h2 = (durations[i] as f64 / max_ms * row).max(if durations[i] > 0 { 1.0 } else { 0.0 });
        let _ = writeln!(
            out,
            "<rect class=\"tokens\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{h1:.1}\"><title>turn {}: {} tokens</title></rect>",
            label + row - h1,
            turn.number(),
            tokens[i]
        );
        let _ = writeln!(
            out,
            "<rect class=\"duration\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{h2:.1}\"><title>turn {}: {}</title></rect>",
            top2 + label + row - h2,
            turn.number(),
            duration(turn.counts.duration_ms())
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"0\" y=\"{}\">turn 1</text><text x=\"{width}\" y=\"{}\" text-anchor=\"end\">turn {}</text>",
        height - 2.0,
        height - 2.0,
        t.turns.last().map_or(0, |x| x.number())
    );
    out.push_str("</svg></section>\n");
}

/// The table of turns, one row a turn ([`TURN_COLUMNS`]).
fn turn_table(out: &mut String, t: &Transcript) {
    if t.turns.is_empty() {
        return;
    }
    out.push_str("<div class=\"table-wrap\"><table class=\"turns\"><thead><tr>");
    for (heading, words) in TURN_COLUMNS {
        let class = if words { " class=\"l\"" } else { "" };
        let _ = write!(out, "<th{class}>{heading}</th>");
    }
    out.push_str("</tr></thead><tbody>\n");
    for turn in &t.turns {
        out.push_str("<tr>");
        for ((_, words), c) in TURN_COLUMNS.into_iter().zip(turn_cells(turn)) {
            let class = if words { " class=\"l\"" } else { "" };
            let _ = write!(out, "<td{class}>{}</td>", text(&c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}
