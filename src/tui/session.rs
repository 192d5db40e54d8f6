//! The session view: the derived messages in surface order under their turns and steps
//! (a tree: a turn folds), each on one line with its role, a tool call paired with the
//! result that answered it (and a result with its call), reasoning collapsed to a mark,
//! errors highlighted, and every replace marked with what it shadowed (it expands to show
//! the shadowed entries beneath it, nested replaces too).
//!
//! Lazy: the view holds one [`MessageSeq`] per message (a few words each) and reads the
//! texts of the lines on screen only, from the index ([`Index::messages`]), keeping at most
//! [`CACHED`] of them; a 100,000-message history opens with one list and draws a screen.

use std::collections::{HashMap, HashSet};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::source::{Details, Target};
use super::text::{fit, one_line};
use super::theme::Theme;
use crate::index::{Index, MessageRow, MessageSeq, SessionRow};
use crate::view::message_rows::PartKind;
use crate::wording::count;

/// Messages whose texts stay cached; past it the cache is emptied and refilled from what
/// is on screen.
pub const CACHED: usize = 4096;

/// One line of the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// A turn: index into [`Details::turns`].
    Turn(usize),
    /// A step: indices into [`Details::turns`] and its steps.
    Step(usize, usize),
    /// A message: index into [`SessionView::seqs`], and how deep under expanded replaces
    /// it is (0 on the surface).
    Message {
        /// Index into [`SessionView::seqs`].
        at: usize,
        /// 0 on the surface, 1 and more for shadowed entries shown under their replace.
        depth: u8,
    },
}

/// The session view's state.
pub struct SessionView {
    /// The session as the index lists it.
    pub session: SessionRow,
    /// Where it is read from.
    pub target: Target,
    /// What the scan found beyond the index's messages.
    pub details: Details,
    /// Every message, shadowed ones included, in surface order.
    pub seqs: Vec<MessageSeq>,
    /// The lines of the tree as folded now.
    pub rows: Vec<Row>,
    /// The selected line and the scroll.
    pub cursor: Cursor,
    /// Replaces shown expanded, by seq.
    pub expanded: HashSet<u64>,
    /// Turns folded, by index into [`Details::turns`].
    pub folded: HashSet<usize>,
    /// Entries each replace shadowed: indices into `seqs`, by the replace's seq.
    shadowed: HashMap<u64, Vec<usize>>,
    /// Index into `seqs` by seq.
    at_seq: HashMap<u64, usize>,
    /// Index into [`Details::turns`] by `data.turn`.
    turn_at: HashMap<i64, usize>,
    texts: HashMap<u64, Vec<MessageRow>>,
}

/// Where a scrolled tree stands: the selected line, the first line on screen and how many
/// lines the last draw showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// The selected line.
    pub selected: usize,
    /// The first line on screen.
    pub offset: usize,
    /// Lines on screen at the last draw (at least 1).
    pub height: usize,
}

impl Default for Cursor {
    /// The first line selected, at the top.
    fn default() -> Cursor {
        Cursor {
            selected: 0,
            offset: 0,
            height: 1,
        }
    }
}

impl Cursor {
    /// Selects line `i`, scrolled to the middle of the screen.
    pub fn center_on(&mut self, i: usize) {
        self.selected = i;
        self.offset = i.saturating_sub(self.height / 2);
    }

    /// Moves the selection by `delta` lines, kept among `len` lines.
    pub fn move_by(&mut self, delta: isize, len: usize) {
        let last = len.saturating_sub(1) as isize;
        self.selected = (self.selected as isize + delta).clamp(0, last.max(0)) as usize;
    }

    /// For a draw of `height` lines: scrolls as little as shows the selected line.
    pub fn fit(&mut self, height: usize) {
        self.height = height.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + self.height {
            self.offset = self.selected + 1 - self.height;
        }
    }
}

impl std::fmt::Debug for SessionView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionView")
            .field("session", &self.session.session.id)
            .field("rows", &self.rows.len())
            .field("selected", &self.cursor.selected)
            .finish_non_exhaustive()
    }
}

impl SessionView {
    /// The view of `session`, with its `details` and the index's `seqs`.
    pub fn new(
        session: SessionRow,
        target: Target,
        details: Details,
        seqs: Vec<MessageSeq>,
    ) -> SessionView {
        let mut shadowed: HashMap<u64, Vec<usize>> = HashMap::new();
        let mut at_seq = HashMap::new();
        for (at, m) in seqs.iter().enumerate() {
            at_seq.insert(m.seq, at);
            if let Some(by) = m.shadowed_by {
                shadowed.entry(by).or_default().push(at);
            }
        }
        let mut turn_at = HashMap::new();
        for (i, t) in details.turns.iter().enumerate() {
            turn_at.entry(t.turn.number()).or_insert(i);
        }
        let mut view = SessionView {
            session,
            target,
            details,
            seqs,
            rows: Vec::new(),
            cursor: Cursor::default(),
            expanded: HashSet::new(),
            folded: HashSet::new(),
            shadowed,
            at_seq,
            turn_at,
            texts: HashMap::new(),
        };
        view.rebuild();
        view
    }

    /// Recomputes [`SessionView::rows`] after a fold or an expansion.
    pub fn rebuild(&mut self) {
        let mut rows = Vec::with_capacity(self.seqs.len() + self.details.turns.len());
        let mut turn: Option<usize> = None;
        let mut step: Option<usize> = None;
        for (at, m) in self.seqs.iter().enumerate() {
            if m.shadowed_by.is_some() {
                continue;
            }
            let t = m.turn.and_then(|n| self.turn_at.get(&n).copied());
            if t != turn {
                turn = t;
                step = None;
                if let Some(t) = t {
                    rows.push(Row::Turn(t));
                }
            }
            if let Some(t) = turn {
                if self.folded.contains(&t) {
                    continue;
                }
                let s = step_of(&self.details, t, m.seq);
                if s.is_some() && s != step {
                    step = s;
                    rows.push(Row::Step(t, s.unwrap_or(0)));
                }
            }
            rows.push(Row::Message { at, depth: 0 });
            self.push_shadowed(m.seq, 1, &mut rows);
        }
        self.rows = rows;
        // The selection stays on a line that is still there.
        self.cursor.move_by(0, self.rows.len());
    }

    fn push_shadowed(&self, seq: u64, depth: u8, rows: &mut Vec<Row>) {
        if !self.expanded.contains(&seq) || depth > 16 {
            return;
        }
        for &at in self.shadowed.get(&seq).map(Vec::as_slice).unwrap_or(&[]) {
            rows.push(Row::Message { at, depth });
            self.push_shadowed(self.seqs[at].seq, depth + 1, rows);
        }
    }

    /// The seq of the message on the selected line.
    pub fn selected_seq(&self) -> Option<u64> {
        match self.rows.get(self.cursor.selected)? {
            Row::Message { at, .. } => Some(self.seqs[*at].seq),
            _ => None,
        }
    }

    /// Selects the line of message `seq`, unfolding its turn and expanding the replaces
    /// that shadowed it; false when the session has no such message.
    pub fn select_seq(&mut self, seq: u64) -> bool {
        let Some(&at) = self.at_seq.get(&seq) else {
            return false;
        };
        let mut by = self.seqs[at].shadowed_by;
        let mut top = at;
        while let Some(r) = by {
            self.expanded.insert(r);
            match self.at_seq.get(&r) {
                Some(&a) => {
                    top = a;
                    by = self.seqs[a].shadowed_by;
                }
                None => break,
            }
        }
        if let Some(t) = self.seqs[top].turn.and_then(|n| self.turn_at.get(&n)) {
            self.folded.remove(t);
        }
        self.rebuild();
        match self
            .rows
            .iter()
            .position(|r| matches!(r, Row::Message { at: a, .. } if *a == at))
        {
            Some(i) => {
                self.cursor.center_on(i);
                true
            }
            None => false,
        }
    }

    /// Selects the first message at or after `seq` (a finding's event may be no message).
    pub fn select_near(&mut self, seq: u64) {
        if self.select_seq(seq) {
            return;
        }
        let found = self.rows.iter().position(|r| match r {
            Row::Message { at, depth: 0 } => self.seqs[*at].seq >= seq,
            _ => false,
        });
        if let Some(i) = found {
            self.cursor.center_on(i);
        }
    }

    /// Expands (`Some(true)`), collapses (`Some(false)`) or toggles (`None`) the selected
    /// turn or replace; collapsing a message that is neither (or a replace already
    /// collapsed) selects its parent instead: the replace above a shadowed entry, else its
    /// turn, as ← goes up a tree in jless.
    pub fn fold(&mut self, open: Option<bool>) {
        match self.rows.get(self.cursor.selected).copied() {
            Some(Row::Turn(t)) => {
                let is_open = !self.folded.contains(&t);
                if open.unwrap_or(!is_open) {
                    self.folded.remove(&t);
                } else {
                    self.folded.insert(t);
                }
            }
            Some(Row::Message { at, depth }) => {
                let seq = self.seqs[at].seq;
                let is_replace = self.shadowed.contains_key(&seq);
                let is_open = self.expanded.contains(&seq);
                match (is_replace, open.unwrap_or(!is_open)) {
                    (true, true) => {
                        self.expanded.insert(seq);
                    }
                    (true, false) if is_open => {
                        self.expanded.remove(&seq);
                    }
                    _ if open == Some(false) => {
                        // Up to the replace above a shadowed entry, or the turn above.
                        let up = (0..self.cursor.selected)
                            .rev()
                            .find(|&i| match self.rows[i] {
                                Row::Turn(_) => depth == 0,
                                Row::Message { depth: d, .. } => d + 1 == depth,
                                Row::Step(..) => false,
                            });
                        if let Some(i) = up {
                            self.cursor.selected = i;
                        }
                        return;
                    }
                    _ => return,
                }
            }
            _ => return,
        }
        self.rebuild();
    }

    /// The texts of message `seq`, read from the index when not cached.
    pub fn parts(&mut self, index: &Index, seq: u64) -> &[MessageRow] {
        if !self.texts.contains_key(&seq) {
            if self.texts.len() >= CACHED {
                self.texts.clear();
            }
            let rows = index
                .messages(&self.target.file, &self.session.session.id, seq..=seq, true)
                .unwrap_or_default();
            self.texts.insert(seq, rows);
        }
        self.texts.get(&seq).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Messages whose texts are cached (for the lazy-loading test and the bench).
    pub fn cached(&self) -> usize {
        self.texts.len()
    }

    /// Draws the view in `area`: a status line (for a corrupt or refused log, its defect
    /// on up to three lines), then the tree.
    pub fn render(&mut self, frame: &mut Frame<'_>, area: Rect, theme: Theme, index: &Index) {
        let width = area.width as usize;
        let (status, status_height) = self.status(theme, width);
        let status_height = status_height.min(area.height);
        let status_area = Rect {
            height: status_height,
            ..area
        };
        frame.render_widget(
            Paragraph::new(status).wrap(ratatui::widgets::Wrap { trim: true }),
            status_area,
        );
        let tree = Rect {
            y: area.y + status_height,
            height: area.height - status_height,
            ..area
        };
        let tree_height = tree.height as usize;
        self.cursor.fit(tree_height);
        let end = (self.cursor.offset + tree_height).min(self.rows.len());
        let mut lines = Vec::with_capacity(tree_height);
        for i in self.cursor.offset..end {
            let mut line = self.row_line(i, theme, index, width);
            if i == self.cursor.selected {
                line = line.patch_style(theme.selected());
            }
            lines.push(line);
        }
        if self.rows.is_empty() {
            lines.push(Line::styled("  (no messages)", theme.dim()));
        }
        frame.render_widget(Paragraph::new(lines), tree);
    }

    /// The status line, and the lines it takes at `width` (a defect wraps to three).
    fn status(&self, theme: Theme, width: usize) -> (Line<'static>, u16) {
        let v = &self.details.verdict;
        if v.salvaged() {
            let f = v.finding.as_ref();
            let at = match (f.and_then(|f| f.line), f.and_then(|f| f.seq)) {
                (Some(l), Some(s)) => format!(" at line {l} (seq {s})"),
                (Some(l), None) => format!(" at line {l}"),
                _ => String::new(),
            };
            let shown = if v.edge {
                "shown whole, as DSH 0.1.1 loads it".to_owned()
            } else {
                format!(
                    "shown: the {} read before it ({})",
                    count(v.events, "event"),
                    v.read
                )
            };
            let text = format!(
                "{} {}{at}: {} · {shown}",
                v.status,
                f.map_or("?", |f| f.rule.as_str()),
                one_line(f.map_or("", |f| f.message.as_str())),
            );
            let height = crate::tui::text::wrapped_rows(&text, width).clamp(1, 3);
            return (Line::styled(text, theme.error()), height as u16);
        }
        let surface = self.seqs.iter().filter(|m| m.shadowed_by.is_none()).count() as u64;
        let shadowed = self.seqs.len() as u64 - surface;
        let mut spans = vec![Span::styled(
            format!(
                "{} on the surface, {} shadowed · {}",
                count(surface, "message"),
                shadowed,
                count(self.details.turns.len() as u64, "turn")
            ),
            theme.dim(),
        )];
        if v.status != "valid" {
            spans.push(Span::styled(format!(" · {}", v.status), theme.warning()));
        }
        let provider = self
            .details
            .findings
            .iter()
            .filter(|f| !f.providers.is_empty())
            .count() as u64;
        let dsh = self.details.findings.len() as u64 - provider;
        if dsh > 0 {
            spans.push(Span::styled(
                format!(" · {} (f)", count(dsh, "finding")),
                theme.warning(),
            ));
        }
        if provider > 0 {
            spans.push(Span::styled(
                format!(" · {} (f, p)", count(provider, "provider finding")),
                theme.warning(),
            ));
        }
        (Line::from(spans), 1)
    }

    fn row_line(&mut self, i: usize, theme: Theme, index: &Index, width: usize) -> Line<'static> {
        match self.rows[i] {
            Row::Turn(t) => {
                let node = &self.details.turns[t];
                let turn = &node.turn;
                let mark = if self.folded.contains(&t) {
                    "▸"
                } else {
                    "▾"
                };
                let mut text = format!(
                    "{mark} turn {} · {} · {} · {}",
                    turn.number(),
                    turn.counts.reason,
                    count(node.steps.len() as u64, "step"),
                    count(turn.counts.tool_calls, "tool call")
                );
                if let Some(d) = turn.counts.duration_ms() {
                    text.push_str(&format!(" · {:.1}s", d as f64 / 1000.0));
                }
                let style = if turn.counts.reason == "error" || turn.detail.is_some() {
                    theme.error()
                } else {
                    theme.heading()
                };
                if let Some(d) = &turn.detail {
                    text.push_str(&format!(" · {d}"));
                }
                Line::styled(fit(&text, width), style)
            }
            Row::Step(t, s) => {
                let step = &self.details.turns[t].steps[s];
                let n = step.step.map(|n| n.to_string()).unwrap_or_default();
                let text = format!("  · step {n} · {}", count(step.tool_calls, "tool call"));
                Line::styled(fit(&text, width), theme.dim())
            }
            Row::Message { at, depth } => self.message_line(at, depth, theme, index, width),
        }
    }

    fn message_line(
        &mut self,
        at: usize,
        depth: u8,
        theme: Theme,
        index: &Index,
        width: usize,
    ) -> Line<'static> {
        let m = self.seqs[at];
        let parts = self.parts(index, m.seq).to_vec();
        let d = &self.details;
        let in_step = m.turn.is_some();
        let indent = if in_step { 4 } else { 0 } + 2 * depth as usize;
        let is_result = d.results_at.contains_key(&m.seq);
        let role = if is_result {
            "tool".to_owned()
        } else {
            parts
                .first()
                .map(|p| p.part.role.clone())
                .unwrap_or_default()
        };
        let error = d.tool_errors.contains_key(&m.seq)
            || d.results_at.get(&m.seq).is_some_and(|ids| {
                ids.iter().any(|id| {
                    d.calls
                        .get(id)
                        .is_some_and(|c| c.results.iter().any(|r| r.0 == m.seq && r.1))
                })
            });
        let mut spans = vec![
            Span::raw(" ".repeat(indent)),
            Span::styled(format!("#{:<5} ", m.seq), theme.dim()),
            Span::styled(format!("{role:<9} "), theme.role(&role)),
        ];
        if let Some(by) = m.shadowed_by.filter(|_| depth > 0) {
            spans.push(Span::styled(format!("shadowed by #{by} "), theme.replace()));
        }
        if let Some(r) = d.replacement(m.seq) {
            let mark = if self.expanded.contains(&m.seq) {
                "▾"
            } else {
                "▸"
            };
            spans.push(Span::styled(
                format!(
                    "{mark} replaces {}..{} ({} shadowed) ",
                    r.start,
                    r.end,
                    r.shadowed.len()
                ),
                theme.replace(),
            ));
        }
        if error {
            spans.push(Span::styled("✗ error ", theme.error()));
        }
        if d.interrupted.contains(&m.seq) {
            spans.push(Span::styled("interrupted ", theme.warning()));
        }
        if parts.iter().any(|p| p.part.kind == PartKind::Reasoning) {
            spans.push(Span::styled("▸ reasoning ", theme.dim()));
        }
        for id in d.calls_at.get(&m.seq).into_iter().flatten() {
            if let Some(c) = d.calls.get(id) {
                let answered = match c.results.first() {
                    Some((s, false)) => format!("⇒ #{s}"),
                    Some((s, true)) => format!("⇒ #{s} ✗"),
                    None => "⇒ no result".to_owned(),
                };
                let style = if c.results.iter().any(|r| r.1) || c.results.is_empty() {
                    theme.error()
                } else {
                    theme.role("tool")
                };
                spans.push(Span::styled(format!("→ {} {answered} ", c.name), style));
            }
        }
        for id in d.results_at.get(&m.seq).into_iter().flatten() {
            if let Some(c) = d.calls.get(id) {
                let from = c.call_seq.map(|s| format!(" #{s}")).unwrap_or_default();
                spans.push(Span::styled(
                    format!("⇐ {}{from} ", c.name),
                    theme.role("tool"),
                ));
            }
        }
        let preview = parts
            .iter()
            .find(|p| {
                p.part.kind != PartKind::Reasoning && (p.part.kind != PartKind::Tool || is_result)
            })
            .or_else(|| parts.iter().find(|p| p.part.kind != PartKind::Reasoning))
            .map(|p| one_line(&p.text))
            .unwrap_or_default();
        let used: usize = spans.iter().map(Span::width).sum();
        let text_style = if error {
            theme.error()
        } else if depth > 0 {
            theme.dim()
        } else {
            ratatui::style::Style::new()
        };
        spans.push(Span::styled(
            fit(&preview, width.saturating_sub(used)),
            text_style,
        ));
        Line::from(spans)
    }
}

/// The step of turn `t` that holds `seq`, by the steps' seq ranges.
fn step_of(details: &Details, t: usize, seq: u64) -> Option<usize> {
    let steps = &details.turns.get(t)?.steps;
    let i = steps
        .partition_point(|s| s.start_seq <= seq)
        .checked_sub(1)?;
    let s = &steps[i];
    (s.end_seq.is_none_or(|e| seq <= e)).then_some(i)
}

#[cfg(test)]
mod cursor_tests {
    use super::Cursor;

    #[test]
    fn the_cursor_centres_a_line_it_jumps_to_and_scrolls_as_little_as_shows_a_line_it_moves_to() {
        let mut c = Cursor::default();
        c.fit(10);
        c.center_on(42);
        assert_eq!((c.selected, c.offset, c.height), (42, 37, 10));
        c.move_by(-40, 100);
        c.fit(10);
        assert_eq!((c.selected, c.offset), (2, 2));
        c.move_by(500, 100);
        c.fit(10);
        assert_eq!((c.selected, c.offset), (99, 90));
        c.move_by(0, 0);
        assert_eq!(c.selected, 0);
        c.fit(0);
        assert_eq!(c.height, 1);
    }
}
