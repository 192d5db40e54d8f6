//! The TUI's state and what each key does ([`App::on_key`]); drawing is in
//! [`super::draw`]. Nothing here touches the terminal: effects that need it (the OSC 52
//! clipboard, an export) are queued in [`App::effects`] for the caller.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::detail::{Detail, Findings, Mode};
use super::list::SessionList;
use super::session::SessionView;
use super::source::{self, Target};
use super::theme::Theme;
use crate::index::{Hit, Index, Query, SessionFilter, SessionRow};

/// Hits a `/` search lists at most.
pub const SEARCH_LIMIT: usize = 500;

/// The screen under any overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// The sessions list.
    List,
    /// The hits of a `/` search.
    Search,
    /// One session.
    Session,
}

/// What opens over the screen.
#[derive(Debug, Clone)]
pub enum Overlay {
    /// The keys.
    Help,
    /// One message.
    Detail(Detail),
    /// The findings.
    Findings(Findings),
    /// A message to read (an error); any key closes it.
    Note(String),
}

/// A line being typed at the bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// The fuzzy filter of the sessions list (applied as it is typed).
    Filter,
    /// A full-text search (run on Enter).
    Search,
}

/// Something for the caller to do with the terminal or the file system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Put this text on the clipboard (OSC 52).
    Copy(String),
    /// Write a Markdown export of this session.
    Export(Target),
}

/// The hits of a `/` search.
#[derive(Debug, Default)]
pub struct SearchHits {
    /// The query.
    pub query: String,
    /// The hits, the best first.
    pub hits: Vec<Hit>,
    /// The selected hit.
    pub selected: usize,
}

/// The whole state.
pub struct App {
    /// The index everything is read through.
    pub index: Index,
    /// The paths listed (absolute): the list and the search stay under them.
    pub under: Vec<PathBuf>,
    /// The styles.
    pub theme: Theme,
    /// The sessions list.
    pub list: SessionList,
    /// The last search.
    pub search: SearchHits,
    /// The open session.
    pub session: Option<SessionView>,
    /// The screen.
    pub screen: Screen,
    /// Where Esc goes from the session view.
    pub back: Screen,
    /// What is open over it.
    pub overlay: Option<Overlay>,
    /// The line being typed, if any, and its text.
    pub input: Option<(Input, String)>,
    /// A one-line message for the footer (cleared by the next key).
    pub status: Option<String>,
    /// Effects for the caller.
    pub effects: Vec<Effect>,
    /// `q` was pressed.
    pub quit: bool,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("screen", &self.screen)
            .field("sessions", &self.list.sessions.len())
            .finish_non_exhaustive()
    }
}

impl App {
    /// The app over the sessions `index` holds under `under` (all when empty).
    ///
    /// # Errors
    /// The index cannot be read.
    pub fn new(index: Index, under: Vec<PathBuf>, theme: Theme) -> Result<App, String> {
        let filter = SessionFilter {
            under: under.clone(),
            ..SessionFilter::default()
        };
        let sessions = index.sessions(&filter).map_err(|e| error_text(&e))?;
        Ok(App {
            index,
            under,
            theme,
            list: SessionList::new(sessions),
            search: SearchHits::default(),
            session: None,
            screen: Screen::List,
            back: Screen::List,
            overlay: None,
            input: None,
            status: None,
            effects: Vec::new(),
            quit: false,
        })
    }

    /// Opens `row`'s session; `at` selects a message. A file that could not be read opens
    /// a note saying why.
    pub fn open(&mut self, row: SessionRow, at: Option<u64>) {
        let s = &row.session;
        if s.id.is_empty() {
            let why = row.message.clone().unwrap_or_else(|| "unreadable".into());
            self.overlay = Some(Overlay::Note(format!("{}: {why}", s.file.display())));
            return;
        }
        let target = Target {
            file: s.file.clone(),
            store_session: (s.encoding == "sqlite").then(|| s.id.clone()),
        };
        let details = match source::read_details(&target) {
            Ok(d) => d,
            Err(e) => {
                self.overlay = Some(Overlay::Note(format!("{}: {e}", s.file.display())));
                return;
            }
        };
        let seqs = match self.index.message_seqs(&s.file, &s.id) {
            Ok(s) => s,
            Err(e) => {
                self.overlay = Some(Overlay::Note(error_text(&e)));
                return;
            }
        };
        let mut view = SessionView::new(row, target, details, seqs);
        if let Some(seq) = at {
            view.select_near(seq);
        }
        self.back = self.screen;
        self.session = Some(view);
        self.screen = Screen::Session;
    }

    /// Runs the search typed.
    pub fn run_search(&mut self, text: String) {
        let query = Query {
            text: text.clone(),
            sessions: SessionFilter {
                under: self.under.clone(),
                ..SessionFilter::default()
            },
            include_shadowed: true,
            limit: Some(SEARCH_LIMIT),
            ..Query::default()
        };
        match self.index.search(&query) {
            Ok(hits) => {
                self.status = Some(format!(
                    "{} for {text}",
                    crate::wording::count(hits.len() as u64, "hit")
                ));
                self.search = SearchHits {
                    query: text,
                    hits,
                    selected: 0,
                };
                self.screen = Screen::Search;
            }
            Err(e) => self.overlay = Some(Overlay::Note(error_text(&e))),
        }
    }

    /// What `key` does, on the screen, overlay or input in front.
    pub fn on_key(&mut self, key: KeyEvent) {
        self.status = None;
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.quit = true;
            return;
        }
        if let Some((kind, text)) = self.input.take() {
            self.on_input(kind, text, key);
            return;
        }
        if let Some(overlay) = self.overlay.take() {
            self.on_overlay(overlay, key);
            return;
        }
        match key.code {
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Char('?') => self.overlay = Some(Overlay::Help),
            KeyCode::Char('/') => self.input = Some((Input::Search, String::new())),
            _ => match self.screen {
                Screen::List => self.on_list(key),
                Screen::Search => self.on_search(key),
                Screen::Session => self.on_session(key),
            },
        }
    }

    fn on_input(&mut self, kind: Input, mut text: String, key: KeyEvent) {
        match key.code {
            KeyCode::Esc => {
                if kind == Input::Filter {
                    self.list.set_filter(String::new());
                }
                return;
            }
            KeyCode::Enter => {
                if kind == Input::Search && !text.trim().is_empty() {
                    self.run_search(text);
                }
                return;
            }
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => text.push(c),
            KeyCode::Up | KeyCode::Down if kind == Input::Filter => {
                self.list
                    .move_by(if key.code == KeyCode::Up { -1 } else { 1 });
            }
            _ => {}
        }
        if kind == Input::Filter {
            self.list.set_filter(text.clone());
        }
        self.input = Some((kind, text));
    }

    fn on_overlay(&mut self, overlay: Overlay, key: KeyEvent) {
        let code = key.code;
        match overlay {
            Overlay::Help | Overlay::Note(_) => {
                if code == KeyCode::Char('q') && matches!(overlay, Overlay::Note(_)) {
                    self.quit = true;
                }
            }
            Overlay::Detail(mut d) => {
                if code == KeyCode::Char('y') {
                    self.copy(d.seq);
                }
                let Some(view) = self.session.as_mut() else {
                    return;
                };
                let mode = |m| if d.mode == m { Mode::Message } else { m };
                match code {
                    KeyCode::Esc | KeyCode::Enter | KeyCode::Backspace => return,
                    KeyCode::Char('q') => {
                        self.quit = true;
                        return;
                    }
                    KeyCode::Char('v') => d.mode = mode(Mode::Raw),
                    KeyCode::Char('P') => d.mode = mode(Mode::Provenance),
                    KeyCode::Char('r') => d.reasoning = !d.reasoning,
                    KeyCode::Down | KeyCode::Char('j') => d.scroll = d.scroll.saturating_add(1),
                    KeyCode::Up | KeyCode::Char('k') => d.scroll = d.scroll.saturating_sub(1),
                    KeyCode::PageDown | KeyCode::Char(' ') => {
                        d.scroll = d.scroll.saturating_add(10)
                    }
                    KeyCode::PageUp => d.scroll = d.scroll.saturating_sub(10),
                    KeyCode::Home | KeyCode::Char('g') => d.scroll = 0,
                    _ => {}
                }
                if matches!(code, KeyCode::Char('v' | 'P' | 'r')) {
                    d.scroll = 0;
                    d.refresh(view, &self.index, self.theme);
                }
                self.overlay = Some(Overlay::Detail(d));
            }
            Overlay::Findings(mut f) => {
                let Some(view) = self.session.as_mut() else {
                    return;
                };
                let n = f.rows(&view.details.findings).len();
                match code {
                    KeyCode::Esc | KeyCode::Char('f') => return,
                    KeyCode::Char('q') => {
                        self.quit = true;
                        return;
                    }
                    KeyCode::Char('p') => f.cycle_provider(),
                    KeyCode::Down | KeyCode::Char('j') => {
                        f.selected = (f.selected + 1).min(n.saturating_sub(1));
                    }
                    KeyCode::Up | KeyCode::Char('k') => f.selected = f.selected.saturating_sub(1),
                    KeyCode::Enter => {
                        let seq = f
                            .rows(&view.details.findings)
                            .get(f.selected)
                            .and_then(|r| r.seq);
                        match seq {
                            Some(seq) => view.select_near(seq),
                            None => self.status = Some("this finding names no seq".into()),
                        }
                        return;
                    }
                    _ => {}
                }
                self.overlay = Some(Overlay::Findings(f));
            }
        }
    }

    fn on_list(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Char('f') => self.input = Some((Input::Filter, self.list.filter.clone())),
            KeyCode::Esc => self.list.set_filter(String::new()),
            KeyCode::Char('s') => self.list.cycle_sort(),
            KeyCode::Char('S') => self.list.reverse(),
            KeyCode::Enter => {
                if let Some(row) = self.list.selected().cloned() {
                    self.open(row, None);
                }
            }
            code => {
                let len = self.list.shown.len();
                let at = self.list.state.selected().unwrap_or(0);
                if let Some(to) = moved(code, at, len, 10) {
                    self.list.state.select(Some(to));
                }
            }
        }
    }

    fn on_search(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Esc | KeyCode::Backspace => self.screen = Screen::List,
            KeyCode::Enter => {
                let Some(hit) = self.search.hits.get(self.search.selected) else {
                    return;
                };
                let (session, seq) = (&hit.session, hit.part.seq);
                let row = self
                    .list
                    .sessions
                    .iter()
                    .find(|s| s.session.file == session.file && s.session.id == session.id)
                    .cloned();
                match row {
                    Some(row) => self.open(row, Some(seq)),
                    None => self.status = Some("that session is no longer listed".into()),
                }
            }
            code => {
                let len = self.search.hits.len();
                if let Some(to) = moved(code, self.search.selected, len, 10) {
                    self.search.selected = to;
                }
            }
        }
    }

    fn on_session(&mut self, key: KeyEvent) {
        let Some(view) = self.session.as_mut() else {
            self.screen = Screen::List;
            return;
        };
        let seq = view.selected_seq();
        match key.code {
            KeyCode::Esc | KeyCode::Backspace => self.screen = self.back,
            KeyCode::Char(' ') => view.fold(None),
            KeyCode::Right | KeyCode::Char('l') => view.fold(Some(true)),
            KeyCode::Left | KeyCode::Char('h') => view.fold(Some(false)),
            KeyCode::Char('f') => self.overlay = Some(Overlay::Findings(Findings::default())),
            KeyCode::Enter | KeyCode::Char('v') | KeyCode::Char('P') => {
                let mode = match key.code {
                    KeyCode::Char('v') => Mode::Raw,
                    KeyCode::Char('P') => Mode::Provenance,
                    _ => Mode::Message,
                };
                match seq {
                    Some(seq) => {
                        let d = Detail::new(view, &self.index, seq, mode, self.theme);
                        self.overlay = Some(Overlay::Detail(d));
                    }
                    None => view.fold(None),
                }
            }
            KeyCode::Char('y') => {
                if let Some(seq) = seq {
                    self.copy(seq);
                }
            }
            KeyCode::Char('e') => {
                self.effects.push(Effect::Export(view.target.clone()));
            }
            code => {
                // At least 1: the cursor keeps its height above 0.
                let page = view.cursor.height;
                if let Some(to) = moved(code, view.cursor.selected, view.rows.len(), page) {
                    view.cursor.selected = to;
                }
            }
        }
    }

    fn copy(&mut self, seq: u64) {
        let Some(view) = self.session.as_ref() else {
            return;
        };
        match view.details.message_json(seq) {
            Some(Ok(json)) => {
                self.effects.push(Effect::Copy(json));
                self.status = Some(format!("copied message #{seq} (OSC 52)"));
            }
            Some(Err(e)) => self.status = Some(e),
            None => self.status = Some(format!("#{seq} is not kept")),
        }
    }
}

/// Where a movement key takes a selection at `at` of `len` lines, `page` lines a page.
fn moved(code: KeyCode, at: usize, len: usize, page: usize) -> Option<usize> {
    let last = len.checked_sub(1)?;
    let to = match code {
        KeyCode::Down | KeyCode::Char('j') => at + 1,
        KeyCode::Up | KeyCode::Char('k') => at.saturating_sub(1),
        KeyCode::PageDown => at + page,
        KeyCode::PageUp => at.saturating_sub(page),
        KeyCode::Home | KeyCode::Char('g') => 0,
        KeyCode::End | KeyCode::Char('G') => last,
        _ => return None,
    };
    Some(to.min(last))
}

/// An index error in one line (path: cause).
pub fn error_text(e: &crate::index::IndexError) -> String {
    use std::error::Error;
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    crate::wording::without_os_error(&text)
}
