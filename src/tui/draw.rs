//! Drawing a frame of the [`App`]: a title line, the screen, an overlay over it, and the
//! footer with the keys of what is in front (or the line being typed). Fits 80×24 and
//! follows any resize (ratatui redraws the whole frame at the new size).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::app::{App, Input, Overlay, Screen};
use super::detail::KEYS;
use super::list::title_of;
use super::text::{fit, one_line};
use super::theme::Theme;

/// Draws the whole frame.
pub fn draw(frame: &mut Frame<'_>, app: &mut App) {
    let [top, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let theme = app.theme;
    frame.render_widget(Paragraph::new(title_line(app, top.width as usize)), top);
    match app.screen {
        Screen::List => app.list.render(frame, body, theme),
        Screen::Search => search(frame, body, app),
        Screen::Session => {
            if let Some(view) = app.session.as_mut() {
                view.render(frame, body, theme, &app.index);
            }
        }
    }
    if let Some(overlay) = &app.overlay {
        draw_overlay(frame, body, app, overlay.clone());
    }
    frame.render_widget(
        Paragraph::new(footer_line(app, footer.width as usize)),
        footer,
    );
}

fn title_line(app: &App, width: usize) -> Line<'static> {
    let theme = app.theme;
    let text = match app.screen {
        Screen::List => {
            let l = &app.list;
            let mut t = format!(
                "dsh-session · {} of {} sessions · sort: {}{}",
                l.shown.len(),
                l.sessions.len(),
                l.sort.name(),
                if l.reversed { " (reversed)" } else { "" }
            );
            if !l.filter.is_empty() {
                t.push_str(&format!(" · filter: {}", l.filter));
            }
            t
        }
        Screen::Search => format!(
            "search: {} · {}",
            app.search.query,
            crate::wording::count(app.search.hits.len() as u64, "hit")
        ),
        Screen::Session => match &app.session {
            Some(v) => {
                let file = v
                    .target
                    .file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let title = title_of(&v.session);
                if title == v.session.session.id {
                    format!("{title} · {file}")
                } else {
                    format!("{title} · {} · {file}", v.session.session.id)
                }
            }
            None => String::new(),
        },
    };
    Line::styled(fit(&one_line(&text), width), theme.heading())
}

fn footer_line(app: &App, width: usize) -> Line<'static> {
    let theme = app.theme;
    if let Some((kind, text)) = &app.input {
        let label = match kind {
            Input::Filter => "filter: ",
            Input::Search => "search: ",
        };
        let hint = match kind {
            Input::Filter => "  (Enter keep, Esc clear)",
            Input::Search => "  (Enter search, Esc cancel)",
        };
        return Line::from(vec![
            Span::styled(label, theme.key()),
            Span::raw(format!("{text}▏")),
            Span::styled(hint, theme.dim()),
        ]);
    }
    if let Some(status) = &app.status {
        return Line::styled(fit(status, width), theme.warning());
    }
    let keys: &[(&str, &str)] = match (&app.overlay, app.screen) {
        (Some(Overlay::Detail(_)), _) => &[
            ("Esc", "back"),
            ("↑↓", "scroll"),
            ("r", "reasoning"),
            ("v", "raw"),
            ("P", "provenance"),
            ("y", "copy"),
            ("q", "quit"),
        ],
        (Some(Overlay::Findings(_)), _) => &[
            ("Esc", "back"),
            ("Enter", "go to seq"),
            ("p", "provider"),
            ("q", "quit"),
        ],
        (Some(_), _) => &[("any key", "close")],
        (None, Screen::List) => &[
            ("q", "quit"),
            ("?", "help"),
            ("Enter", "open"),
            ("f", "filter"),
            ("/", "search"),
            ("s", "sort"),
        ],
        (None, Screen::Search) => &[
            ("q", "quit"),
            ("?", "help"),
            ("Enter", "open"),
            ("Esc", "back"),
            ("/", "search"),
        ],
        (None, Screen::Session) => &[
            ("q", "quit"),
            ("?", "help"),
            ("Esc", "back"),
            ("Enter", "message"),
            ("Space", "fold"),
            ("f", "findings"),
            ("v", "raw"),
            ("P", "provenance"),
        ],
    };
    let mut spans = Vec::new();
    let mut used = 0;
    for (key, what) in keys {
        let w = key.chars().count() + what.chars().count() + 3;
        if used + w > width {
            break;
        }
        used += w;
        spans.push(Span::styled(key.to_string(), theme.key()));
        spans.push(Span::raw(format!(" {what}  ")));
    }
    Line::from(spans)
}

fn search(frame: &mut Frame<'_>, area: Rect, app: &mut App) {
    let theme = app.theme;
    let s = &mut app.search;
    let height = area.height as usize;
    let per = 2;
    let visible = (height / per).max(1);
    let first = s.selected.saturating_sub(visible.saturating_sub(1));
    let width = area.width as usize;
    let mut lines = Vec::new();
    if s.hits.is_empty() {
        lines.push(Line::styled("  no hit", theme.dim()));
    }
    for (i, hit) in s.hits.iter().enumerate().skip(first).take(visible) {
        let title = hit
            .session
            .title
            .clone()
            .unwrap_or_else(|| hit.session.id.clone());
        let mut head = Line::from(vec![
            Span::styled(format!("#{:<5} ", hit.part.seq), theme.dim()),
            Span::styled(
                format!(
                    "{:<9} ",
                    match hit.field {
                        crate::index::Field::Message => hit.part.kind.name(),
                        field => field.name(),
                    }
                ),
                theme.role(&hit.part.role),
            ),
            Span::raw(fit(&title, width.saturating_sub(16))),
        ]);
        if hit.part.shadowed_by.is_some() {
            head.push_span(Span::styled(" (shadowed)", theme.replace()));
        }
        if let Some(lineage) = hit.session.lineage.kind() {
            head.push_span(Span::styled(format!(" ({lineage})"), theme.dim()));
        }
        if i == s.selected {
            head = head.patch_style(theme.selected());
        }
        lines.push(head);
        lines.push(snippet_line(&hit.snippet, theme, width));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

fn snippet_line(s: &crate::index::Snippet, theme: Theme, width: usize) -> Line<'static> {
    let mut spans = vec![Span::raw("       ")];
    let mut at = 0;
    for m in &s.matches {
        if m.start < at || m.end > s.text.len() {
            continue;
        }
        spans.push(Span::raw(s.text[at..m.start].to_owned()));
        spans.push(Span::styled(s.text[m.clone()].to_owned(), theme.matched()));
        at = m.end;
    }
    spans.push(Span::raw(s.text[at.min(s.text.len())..].to_owned()));
    let mut line = Line::from(spans);
    if line.width() > width {
        // Cut at the width (ratatui clips; the mark says there is more).
        line.push_span(Span::raw(""));
    }
    line
}

fn draw_overlay(frame: &mut Frame<'_>, body: Rect, app: &App, overlay: Overlay) {
    let theme = app.theme;
    let area = body;
    let (title, lines, scroll) = match overlay {
        Overlay::Help => {
            let lines = KEYS
                .iter()
                .map(|(k, what)| {
                    Line::from(vec![
                        Span::styled(format!("{k:<10} "), theme.key()),
                        Span::raw(*what),
                    ])
                })
                .collect();
            (" keys ".to_owned(), lines, 0)
        }
        Overlay::Note(text) => (
            " note ".to_owned(),
            vec![Line::styled(text, theme.error())],
            0,
        ),
        Overlay::Detail(d) => (d.title(), d.lines.clone(), d.scroll),
        Overlay::Findings(f) => {
            let all = app
                .session
                .as_ref()
                .map(|v| v.details.findings.as_slice())
                .unwrap_or(&[]);
            (" findings ".to_owned(), f.lines(all, theme), 0)
        }
    };
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, theme.heading()));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        area,
    );
}
