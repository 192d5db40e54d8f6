//! What opens over the session view: one message in full (its parts, its tool calls with
//! their results, reasoning collapsed until `r`), the raw event as the log stores it (`v`),
//! the provenance chain of the message (`P`, as `dsh-session provenance` prints it), and
//! the findings list (DSH rules, and with `p` a provider's P-rules).

use ratatui::text::{Line, Span};

use super::session::SessionView;
use super::source::{self, FindingRow};
use super::text::one_line;
use super::theme::Theme;
use crate::index::Index;
use crate::provider::Provider;
use crate::view::message_rows::PartKind;

/// What the detail pane shows of its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The derived message's parts.
    Message,
    /// The event as stored in the log.
    Raw,
    /// The provenance chain.
    Provenance,
}

/// The detail pane of one message.
#[derive(Debug, Clone)]
pub struct Detail {
    /// The message's seq.
    pub seq: u64,
    /// What is shown.
    pub mode: Mode,
    /// Reasoning shown in full.
    pub reasoning: bool,
    /// The lines (wrapped when drawn).
    pub lines: Vec<Line<'static>>,
    /// The first line on screen.
    pub scroll: u16,
}

impl Detail {
    /// The pane of message `seq` of `view` in `mode`.
    pub fn new(view: &mut SessionView, index: &Index, seq: u64, mode: Mode, theme: Theme) -> Self {
        let mut d = Detail {
            seq,
            mode,
            reasoning: false,
            lines: Vec::new(),
            scroll: 0,
        };
        d.refresh(view, index, theme);
        d
    }

    /// Rebuilds the lines after a change of mode.
    pub fn refresh(&mut self, view: &mut SessionView, index: &Index, theme: Theme) {
        self.lines = match self.mode {
            Mode::Message => message_lines(view, index, self.seq, self.reasoning, theme),
            Mode::Raw => raw_lines(view, self.seq, theme),
            Mode::Provenance => provenance_lines(view, self.seq, theme),
        };
    }

    /// The title of the pane.
    pub fn title(&self) -> String {
        match self.mode {
            Mode::Message => format!(" message #{} ", self.seq),
            Mode::Raw => format!(" event #{} as stored ", self.seq),
            Mode::Provenance => format!(" provenance of #{} ", self.seq),
        }
    }
}

fn text_lines(text: &str, style: ratatui::style::Style) -> Vec<Line<'static>> {
    text.lines()
        .map(|l| Line::styled(l.replace('\t', "    "), style))
        .collect()
}

fn message_lines(
    view: &mut SessionView,
    index: &Index,
    seq: u64,
    reasoning: bool,
    theme: Theme,
) -> Vec<Line<'static>> {
    let parts = view.parts(index, seq).to_vec();
    let d = &view.details;
    let mut out = Vec::new();
    if let Some(p) = parts.first() {
        let mut head = format!("#{seq} {}", p.part.role);
        if let Some(t) = p.part.turn {
            head.push_str(&format!(" · turn {t}"));
        }
        head.push_str(&format!(" · {}", p.part.event_type));
        if let Some(t) = p.part.time {
            head.push_str(&format!(" · {} UTC", super::text::minute(t)));
        }
        out.push(Line::styled(head, theme.heading()));
        if let Some(by) = p.part.shadowed_by {
            out.push(Line::styled(
                format!("shadowed by the replace #{by}: not on the surface"),
                theme.replace(),
            ));
        }
    }
    if let Some(r) = d.replacement(seq) {
        let shadowed: Vec<String> = r.shadowed.iter().map(|s| format!("#{s}")).collect();
        out.push(Line::styled(
            format!(
                "replace {}..{} (generation {}): shadowed {}",
                r.start,
                r.end,
                r.generation,
                shadowed.join(" ")
            ),
            theme.replace(),
        ));
    }
    if let Some(e) = d.tool_errors.get(&seq) {
        out.push(Line::styled(format!("tool error: {e}"), theme.error()));
    }
    for id in d.calls_at.get(&seq).into_iter().flatten() {
        if let Some(c) = d.calls.get(id) {
            let results: Vec<String> = c
                .results
                .iter()
                .map(|(s, e)| {
                    if *e {
                        format!("#{s} (error)")
                    } else {
                        format!("#{s}")
                    }
                })
                .collect();
            let answer = if results.is_empty() {
                "no result".to_owned()
            } else {
                format!("answered by {}", results.join(", "))
            };
            out.push(Line::styled(
                format!("tool call {} ({}): {answer}", c.name, c.call_id),
                theme.role("tool"),
            ));
        }
    }
    for id in d.results_at.get(&seq).into_iter().flatten() {
        if let Some(c) = d.calls.get(id) {
            let from = c.call_seq.map(|s| format!("#{s}")).unwrap_or("?".into());
            out.push(Line::styled(
                format!("result of {} ({}) called by {from}", c.name, c.call_id),
                theme.role("tool"),
            ));
        }
    }
    for p in &parts {
        out.push(Line::raw(""));
        let kind = p.part.kind;
        let label = match kind {
            PartKind::Tool if p.part.tool.is_some() => {
                format!("── tool {} ──", p.part.tool.as_deref().unwrap_or(""))
            }
            k => format!("── {} ──", k.name()),
        };
        if kind == PartKind::Reasoning && !reasoning {
            out.push(Line::styled(
                format!(
                    "▸ reasoning ({} characters; r shows it)",
                    p.text.chars().count()
                ),
                theme.dim(),
            ));
            continue;
        }
        out.push(Line::styled(label, theme.role(p.part.role.as_str())));
        let style = if kind == PartKind::Reasoning {
            theme.dim()
        } else {
            ratatui::style::Style::new()
        };
        out.extend(text_lines(&p.text, style));
    }
    if parts.is_empty() {
        out.push(Line::styled(
            "(the index holds no text for it)",
            theme.dim(),
        ));
    }
    out
}

fn raw_lines(view: &SessionView, seq: u64, theme: Theme) -> Vec<Line<'static>> {
    match view.details.raw_event(seq) {
        Some(Ok(text)) => {
            let pretty = serde_json::from_str::<serde_json::Value>(&text)
                .and_then(|v| serde_json::to_string_pretty(&v))
                .unwrap_or(text);
            text_lines(&pretty, ratatui::style::Style::new())
        }
        Some(Err(e)) => vec![Line::styled(e, theme.error())],
        None => vec![Line::styled(
            format!("seq {seq} is not kept (an assistant/chunk, or beyond the log)"),
            theme.dim(),
        )],
    }
}

fn provenance_lines(view: &SessionView, seq: u64, theme: Theme) -> Vec<Line<'static>> {
    let chain = view.details.provenance(seq);
    let nodes = source::nodes(&view.target, &chain.seqs()).unwrap_or_default();
    let mut out = vec![Line::styled(
        format!("#{seq}: {}", chain.status),
        theme.heading(),
    )];
    for (title, tree) in [
        ("where it came from", &chain.ancestors),
        ("what cites it", &chain.descendants),
    ] {
        out.push(Line::raw(""));
        out.push(Line::styled(title.to_owned(), theme.heading()));
        for l in tree {
            let node = nodes.get(&l.seq).cloned().unwrap_or_default();
            let mut spans = vec![Span::raw("  ".repeat(l.depth + 1))];
            if let Some(e) = l.edge {
                spans.push(Span::styled(format!("{e} "), theme.replace()));
            }
            spans.push(Span::styled(format!("#{} ", l.seq), theme.dim()));
            spans.push(Span::raw(format!("{} {} ", node.ty, node.place)));
            if l.back_reference {
                spans.push(Span::styled("(shown above)", theme.dim()));
            } else {
                spans.push(Span::raw(one_line(&node.preview)));
            }
            out.push(Line::from(spans));
        }
    }
    out
}

/// The findings pane: the log's findings, DSH rules always, P-rules for the provider
/// chosen with `p` (none, then each of [`Provider::ALL`]).
#[derive(Debug, Clone, Default)]
pub struct Findings {
    /// The provider whose refusals are listed, if any.
    pub provider: Option<Provider>,
    /// The selected line.
    pub selected: usize,
}

impl Findings {
    /// The findings shown: DSH rules, and the P-rules `provider` refuses.
    pub fn rows<'d>(&self, all: &'d [FindingRow]) -> Vec<&'d FindingRow> {
        all.iter()
            .filter(|f| match self.provider {
                _ if f.providers.is_empty() => true,
                Some(p) => source::refused_by(f, p),
                None => false,
            })
            .collect()
    }

    /// The next provider (`p`).
    pub fn cycle_provider(&mut self) {
        let all = Provider::ALL;
        self.provider = match self.provider {
            None => all.first().copied(),
            Some(p) => all.iter().skip_while(|q| **q != p).nth(1).copied(),
        };
        self.selected = 0;
    }

    /// The lines of the pane.
    pub fn lines(&self, all: &[FindingRow], theme: Theme) -> Vec<Line<'static>> {
        let which = match self.provider {
            Some(p) => format!("DSH rules and what {} refuses (p: next provider)", p.name()),
            None => "DSH rules (p: a provider's rules too)".to_owned(),
        };
        let mut out = vec![Line::styled(which, theme.heading())];
        let rows = self.rows(all);
        if rows.is_empty() {
            out.push(Line::styled("no findings", theme.dim()));
        }
        for (i, f) in rows.iter().enumerate() {
            let style = match f.class {
                "corrupt" | "refused" => theme.error(),
                _ => theme.warning(),
            };
            let at = match (f.seq, f.line) {
                (Some(s), _) => format!("seq {s}"),
                (None, Some(l)) => format!("line {l}"),
                _ => String::new(),
            };
            let mut line = Line::from(vec![
                Span::styled(format!("{:<5} ", f.rule), style),
                Span::styled(format!("{:<9} {at:<9} ", f.class), theme.dim()),
                Span::raw(one_line(&f.message)),
            ]);
            if i == self.selected {
                line = line.patch_style(theme.selected());
            }
            out.push(line);
            if let Some(answer) = self
                .provider
                .and_then(|p| source::provider_answer(f, p))
                .filter(|_| i == self.selected)
            {
                out.push(Line::styled(
                    format!("      answers: {answer}"),
                    theme.dim(),
                ));
            }
        }
        out
    }
}

/// The keys, for the help pane (`?`).
pub const KEYS: &[(&str, &str)] = &[
    ("q", "quit"),
    ("?", "this help (any key closes it)"),
    ("↑ ↓ j k", "move; PgUp PgDn, Home End (g G) page and jump"),
    (
        "Enter",
        "open the session, the search hit, the message, the finding",
    ),
    ("Esc", "back (or clear the filter)"),
    ("f", "sessions: fuzzy filter as you type; session: findings"),
    ("/", "full-text search of every session (the index)"),
    ("s S", "sort by the next column; reverse the sort"),
    (
        "Space → ←",
        "fold or unfold a turn; expand or collapse a replace",
    ),
    ("r", "message: show or hide reasoning"),
    ("v", "the raw event as the log stores it"),
    ("P", "the provenance chain of the message"),
    ("p", "findings: a provider's rules (next provider)"),
    ("y", "copy the message JSON (OSC 52 clipboard)"),
    ("e", "write a Markdown export of the session"),
];
