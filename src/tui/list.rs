//! The sessions list: every session the index holds under the given paths, sorted, and
//! narrowed as the user types by a fuzzy match (`nucleo-matcher`, as in the Helix editor)
//! on title, project, session id and model.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Row, Table, TableState};

use super::text::{fit, minute, project_name};
use super::theme::Theme;
use crate::index::SessionRow;

/// What the list is sorted by (`s` cycles, `S` reverses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// The last event's time, the newest first.
    Activity,
    /// The title, A to Z.
    Title,
    /// The project, A to Z.
    Project,
    /// Turns, the most first.
    Turns,
    /// Status: corrupt, refused and unreadable first.
    Status,
}

impl SortKey {
    /// The name the header shows.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Activity => "last activity",
            SortKey::Title => "title",
            SortKey::Project => "project",
            SortKey::Turns => "turns",
            SortKey::Status => "status",
        }
    }

    fn next(self) -> SortKey {
        match self {
            SortKey::Activity => SortKey::Title,
            SortKey::Title => SortKey::Project,
            SortKey::Project => SortKey::Turns,
            SortKey::Turns => SortKey::Status,
            SortKey::Status => SortKey::Activity,
        }
    }
}

/// The list's state.
#[derive(Debug)]
pub struct SessionList {
    /// Every session, as the index gave them.
    pub sessions: Vec<SessionRow>,
    /// The fuzzy filter.
    pub filter: String,
    /// The sort.
    pub sort: SortKey,
    /// The sort reversed.
    pub reversed: bool,
    /// Indices into `sessions` of the rows shown, in order.
    pub shown: Vec<usize>,
    /// The table's selection and scroll.
    pub state: TableState,
}

/// The session's title, else its id, else its file name.
pub fn title_of(s: &SessionRow) -> String {
    let s = &s.session;
    s.title.clone().unwrap_or_else(|| {
        if s.id.is_empty() {
            s.file.display().to_string()
        } else {
            s.id.clone()
        }
    })
}

fn status_rank(status: &str) -> u8 {
    match status {
        "corrupt" | "refused" | "unreadable" => 0,
        "torn-tail" => 1,
        _ => 2,
    }
}

impl SessionList {
    /// The list of `sessions` (in the index's order: the most recently active first).
    pub fn new(sessions: Vec<SessionRow>) -> SessionList {
        let mut list = SessionList {
            sessions,
            filter: String::new(),
            sort: SortKey::Activity,
            reversed: false,
            shown: Vec::new(),
            state: TableState::default(),
        };
        list.refresh();
        list
    }

    /// The selected session.
    pub fn selected(&self) -> Option<&SessionRow> {
        let at = *self.shown.get(self.state.selected()?)?;
        self.sessions.get(at)
    }

    /// Next sort key.
    pub fn cycle_sort(&mut self) {
        self.sort = self.sort.next();
        self.refresh();
    }

    /// Reverse the sort.
    pub fn reverse(&mut self) {
        self.reversed = !self.reversed;
        self.refresh();
    }

    /// Sets the filter and narrows the list.
    pub fn set_filter(&mut self, filter: String) {
        self.filter = filter;
        self.refresh();
    }

    /// Recomputes the rows shown, keeping the selected session selected when it stays.
    pub fn refresh(&mut self) {
        let keep = self
            .state
            .selected()
            .and_then(|i| self.shown.get(i).copied());
        let mut order: Vec<(u32, usize)> = if self.filter.trim().is_empty() {
            (0..self.sessions.len()).map(|i| (0, i)).collect()
        } else {
            let pattern = Pattern::parse(&self.filter, CaseMatching::Ignore, Normalization::Smart);
            let mut matcher = Matcher::new(Config::DEFAULT);
            let mut buf = Vec::new();
            self.sessions
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    let hay = haystack(s);
                    pattern
                        .score(Utf32Str::new(&hay, &mut buf), &mut matcher)
                        .map(|score| (score, i))
                })
                .collect()
        };
        let sessions = &self.sessions;
        let (sort, reversed) = (self.sort, self.reversed);
        order.sort_by(|a, b| {
            let (x, y) = (&sessions[a.1], &sessions[b.1]);
            let by_key = match sort {
                SortKey::Activity => y.times.last_time.cmp(&x.times.last_time),
                SortKey::Title => title_of(x).to_lowercase().cmp(&title_of(y).to_lowercase()),
                SortKey::Project => x.session.cwd.cmp(&y.session.cwd),
                SortKey::Turns => y.turns.cmp(&x.turns),
                SortKey::Status => {
                    status_rank(&x.session.status).cmp(&status_rank(&y.session.status))
                }
            };
            let by_key = if reversed { by_key.reverse() } else { by_key };
            // The best fuzzy match first; the sort among equals; the index's order last.
            b.0.cmp(&a.0).then(by_key).then(a.1.cmp(&b.1))
        });
        self.shown = order.into_iter().map(|(_, i)| i).collect();
        let at = keep
            .and_then(|k| self.shown.iter().position(|&i| i == k))
            .or((!self.shown.is_empty()).then_some(0));
        self.state.select(at);
    }

    /// Moves the selection by `delta` rows (clamped).
    pub fn move_by(&mut self, delta: isize) {
        if self.shown.is_empty() {
            return;
        }
        let at = self.state.selected().unwrap_or(0) as isize + delta;
        let last = self.shown.len() as isize - 1;
        self.state.select(Some(at.clamp(0, last) as usize));
    }

    /// Draws the list in `area`.
    pub fn render(&mut self, frame: &mut Frame<'_>, area: Rect, theme: Theme) {
        let header = Row::new(["", "title", "project", "last activity", "turns", "model"])
            .style(theme.heading());
        // Columns: mark, title, project, last activity, turns, model. Every one is cut
        // with `…` (never mid-word by the table): the title takes what the fixed columns
        // and the five gaps between the six leave.
        let [
            mark_width,
            project_width,
            time_width,
            turns_width,
            model_width,
        ] = [1, 12, 16, 5, 16];
        let title_width = usize::from(area.width).saturating_sub(
            mark_width + project_width + time_width + turns_width + model_width + 5,
        );
        let rows: Vec<Row<'_>> = self
            .shown
            .iter()
            .map(|&i| {
                let s = &self.sessions[i];
                let mark = match s.session.status.as_str() {
                    "valid" => Span::raw(" "),
                    "torn-tail" => Span::styled("~", theme.warning()),
                    _ => Span::styled("✗", theme.error()),
                };
                let title = if matches!(s.session.status.as_str(), "valid" | "torn-tail") {
                    Line::raw(fit(&title_of(s), title_width))
                } else {
                    let status = format!("{} ", s.session.status);
                    let rest = title_width.saturating_sub(status.chars().count());
                    Line::from(vec![
                        Span::styled(status, theme.error()),
                        Span::raw(fit(&title_of(s), rest)),
                    ])
                };
                let model = s
                    .main_model()
                    .map(|m| fit(&m.model, model_width))
                    .unwrap_or_default();
                Row::new(vec![
                    Cell::from(mark),
                    Cell::from(title),
                    Cell::from(fit(
                        s.session.cwd.as_deref().map(project_name).unwrap_or(""),
                        project_width,
                    )),
                    Cell::from(s.times.last_time.map(minute).unwrap_or_default()),
                    Cell::from(format!("{:>5}", s.turns)),
                    Cell::from(model),
                ])
            })
            .collect();
        let widths = [
            Constraint::Length(mark_width as u16),
            Constraint::Fill(1),
            Constraint::Max(project_width as u16),
            Constraint::Length(time_width as u16),
            Constraint::Length(turns_width as u16),
            Constraint::Max(model_width as u16),
        ];
        let table = Table::new(rows, widths)
            .header(header)
            .column_spacing(1)
            .row_highlight_style(theme.selected());
        frame.render_stateful_widget(table, area, &mut self.state);
    }
}

/// What the fuzzy filter matches: title, project, id, model and status.
fn haystack(s: &SessionRow) -> String {
    let model = s.main_model().map(|m| m.model.as_str()).unwrap_or("");
    format!(
        "{} {} {} {} {}",
        s.session.title.as_deref().unwrap_or(""),
        s.session.cwd.as_deref().unwrap_or(""),
        s.session.id,
        model,
        s.session.status
    )
}
