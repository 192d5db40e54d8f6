//! `dsh-session tui` (issue 29): an interactive inspector of sessions in the terminal, on
//! ratatui and crossterm. It reads through the search index ([`crate::index`]: the
//! sessions list, the full-text search, each message's text) and the scan with the
//! existing views ([`source`]: turns, steps, tool calls and results, replaces, findings,
//! raw events, provenance); it has no parser of its own and never writes a log.
//!
//! Screens: the sessions list ([`list`]), the hits of a search, a session ([`session`]),
//! and what opens over them ([`detail`]); [`app`] holds the state and the keys, [`draw`]
//! draws a frame. The caller owns the terminal ([`run`] takes any ratatui backend, so
//! tests draw into a `TestBackend`).

pub mod app;
pub mod detail;
pub mod draw;
pub mod list;
pub mod session;
pub mod source;
pub mod text;
pub mod theme;

use std::io;

use crossterm::event::{Event, KeyEventKind};
use ratatui::Terminal;
use ratatui::backend::Backend;

pub use app::{App, Effect};
pub use theme::Theme;

/// Feeds one terminal event to `app`: a key press; a resize needs nothing (the next draw
/// takes the new size). The mouse is not captured, so that text on screen can still be
/// selected and copied; most terminals turn the wheel into ↑ ↓ on the alternate screen.
pub fn on_event(app: &mut App, event: Event) {
    if let Event::Key(key) = event
        && key.kind != KeyEventKind::Release
    {
        app.on_key(key);
    }
}

/// Draws `app` and feeds it the events `next` gives until `q`; `effects` is called with
/// each effect the app queued (the clipboard, an export) and returns a line for the footer.
///
/// # Errors
/// Drawing or reading an event failed.
pub fn run<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    mut next: impl FnMut() -> io::Result<Event>,
    mut effects: impl FnMut(Effect) -> Option<String>,
) -> io::Result<()>
where
    B::Error: Into<io::Error>,
{
    loop {
        terminal
            .draw(|frame| draw::draw(frame, app))
            .map_err(Into::into)?;
        if app.quit {
            return Ok(());
        }
        on_event(app, next()?);
        for effect in std::mem::take(&mut app.effects) {
            if let Some(line) = effects(effect) {
                app.status = Some(line);
            }
        }
        if app.quit {
            return Ok(());
        }
    }
}
