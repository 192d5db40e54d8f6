//! The TUI's styles: colours on a terminal that allows them, and with `NO_COLOR` (or
//! `--color never`) only bold, dim, underline and reverse video, so that every mark stays
//! visible without colour (<https://no-color.org>).

use ratatui::style::{Color, Modifier, Style};

/// The styles of every screen; [`Theme::mono`] has no colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Colours on (off with `NO_COLOR`).
    pub color: bool,
}

impl Theme {
    /// With colours.
    pub fn colored() -> Theme {
        Theme { color: true }
    }

    /// Without colours (`NO_COLOR`).
    pub fn mono() -> Theme {
        Theme { color: false }
    }

    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    /// The selected row.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// Titles and headings.
    pub fn heading(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// Less important text: seqs, times, shadowed entries.
    pub fn dim(self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    /// Errors, corrupt and refused logs.
    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// Warnings and torn tails.
    pub fn warning(self) -> Style {
        self.fg(Color::Yellow)
    }

    /// Replacements and what they shadowed.
    pub fn replace(self) -> Style {
        self.fg(Color::Magenta)
    }

    /// A role's label.
    pub fn role(self, role: &str) -> Style {
        match role {
            "user" => self.fg(Color::Green),
            "assistant" => self.fg(Color::Blue),
            "tool" => self.fg(Color::Yellow),
            _ => self.fg(Color::Magenta),
        }
        .add_modifier(Modifier::BOLD)
    }

    /// Matched characters and search hits.
    pub fn matched(self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::UNDERLINED)
    }

    /// The footer's key names.
    pub fn key(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
}
