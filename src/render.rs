//! Shared output helpers: tables, times, colour, JSON strings; and each command's
//! renderer (text and JSON layout only: the work is the library's). The index's front ends:
//! [`index`] (opening and updating the search index, with what it says on standard error,
//! and `index`'s summary), [`search`] (hits and sessions with hits) and [`sessions`] (one
//! table spec for a store's and a root's sessions).

pub mod export;
pub mod follow;
pub mod index;
pub mod lineage;
pub mod messages;
pub mod provenance;
pub mod recover;
pub mod repair;
pub mod replacements;
pub mod salvage;
pub mod search;
pub mod sessions;
pub mod show;
pub mod stats;
pub mod surface;
pub mod validate;

use std::io::{IsTerminal, Write};
use std::path::Path;

use comfy_table::LineStyle;
use comfy_table::{ContentArrangement, Table, presets};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use dsh_session::rules::Finding;
use serde::Serialize;

use crate::cli::ColorChoice;

/// A list under its heading: nothing for no `items`; else the line `heading` says (given
/// how many there are), then each item as `line` writes it.
///
/// # Errors
/// Writing to `out` failed.
pub fn write_list<T>(
    out: &mut dyn Write,
    items: &[T],
    heading: impl FnOnce(u64) -> String,
    mut line: impl FnMut(&mut dyn Write, &T) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if items.is_empty() {
        return Ok(());
    }
    writeln!(out, "{}", heading(items.len() as u64))?;
    for item in items {
        line(out, item)?;
    }
    Ok(())
}

/// A plain ASCII table with a header row, laid out the same on a terminal and in a pipe.
pub fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    // On a terminal the table fits its width (the widest free-text column wraps); piped,
    // every row stays one line for `grep` and `cut`.
    let arrangement = if std::io::stdout().is_terminal() {
        ContentArrangement::Dynamic
    } else {
        ContentArrangement::Disabled
    };
    t.load_style(presets::NOTHING.header_separator(LineStyle::none().fill('-').junction(' ')))
        .set_content_arrangement(arrangement)
        .set_header(header.to_vec());
    t
}

/// Prints a table without trailing spaces on any line.
pub fn write_table(out: &mut dyn Write, t: &Table) -> std::io::Result<()> {
    for line in t.lines() {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// Whether to colour standard output.
pub fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

/// Wraps `text` in an ANSI colour when `on`.
pub fn paint(on: bool, code: &str, text: &str) -> String {
    if on {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// A table cell or text field for an optional value: the value, or `-`.
pub fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// A torn tail as the JSON outputs show it (`validate`'s `torn_tail`, `repair`'s `cut`):
/// the rule, where it starts (byte offset; SQLite: the first row's seq) and what it holds.
/// `lines` and `events` are `null` when they cannot be counted: `undecodable_bytes` of a
/// torn zstd frame do not decode (FORMAT.md §5.5.2).
#[derive(Debug, serde::Serialize)]
pub struct TornTailJson {
    pub rule: &'static str,
    pub offset: u64,
    pub bytes: u64,
    pub line: u64,
    pub lines: Option<u64>,
    pub events: Option<u64>,
    /// zstd: complete lines of the torn frame that are kept.
    pub recovered_lines: u64,
    pub undecodable_bytes: u64,
}

impl From<&dsh_session::scan::TornTail> for TornTailJson {
    fn from(t: &dsh_session::scan::TornTail) -> Self {
        let counted = t.counted();
        TornTailJson {
            rule: t.rule.id(),
            offset: t.offset,
            bytes: t.bytes,
            line: t.line,
            lines: counted.map(|(lines, _)| lines),
            events: counted.map(|(_, events)| events),
            recovered_lines: t.recovered_lines,
            undecodable_bytes: t.undecodable,
        }
    }
}

pub use dsh_session::wording::log_name;

/// Writes rows as one pretty JSON array (`json`), one object per line (`jsonl`), or
/// through `table` (`table`).
pub fn write_rows<T: serde::Serialize>(
    out: &mut dyn Write,
    format: crate::cli::TableFormat,
    rows: &[T],
    table: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    match format {
        // One line per row; `json` and the table show the rows as one value.
        crate::cli::TableFormat::Jsonl => {
            for r in rows {
                write_one(out, format, r, |_| Ok(()))?;
            }
            Ok(())
        }
        _ => write_one(out, format, &rows, table),
    }
}

/// Writes a table in the same layout as [`table`], one row at a time: widths come from a
/// first pass over `rows`, so no table of the whole log is held in memory (`show` on a log
/// of tens of thousands of turns).
pub fn write_aligned<T>(
    out: &mut dyn Write,
    header: &[&str],
    rows: &[T],
    cells: impl Fn(&T) -> Vec<String>,
) -> std::io::Result<()> {
    let rows = || rows.iter().map(|r| Ok(cells(r)));
    write_streamed(out, header, Layout::default(), rows).map_err(std::io::Error::other)
}

/// Writes a table in the layout [`table`] gives when piped, from rows produced twice by
/// `rows`: a first pass finds the column widths (in terminal columns: a CJK character
/// takes two), the second prints, so only one row is held at a time (`surface` on a log
/// whose surface has hundreds of thousands of entries).
/// `layout`: which columns align right, and how the table fits a terminal.
///
/// # Errors
/// A row's error, or writing failed.
pub fn write_streamed<I>(
    out: &mut dyn Write,
    header: &[&str],
    layout: Layout,
    rows: impl Fn() -> I,
) -> anyhow::Result<()>
where
    I: Iterator<Item = anyhow::Result<Vec<String>>>,
{
    // Widths in terminal columns (a CJK character takes two), as `table` measures them.
    let mut widths: Vec<usize> = header.iter().map(|h| h.width()).collect();
    for row in rows() {
        for (w, cell) in widths.iter_mut().zip(row?) {
            *w = (*w).max(cell.width());
        }
    }
    if let Some(Fit { columns, cut }) = layout.fit
        && cut < widths.len()
    {
        // Each column takes its width plus a space either side and one between columns.
        let used: usize = (widths.iter().enumerate())
            .filter(|(i, _)| *i != cut)
            .map(|(_, w)| w + 3)
            .sum::<usize>()
            + 2;
        let room = columns.saturating_sub(used).max(header[cut].width());
        widths[cut] = widths[cut].min(room);
    }
    let line = |out: &mut dyn Write, cells: &[String]| -> std::io::Result<()> {
        let text: Vec<String> = (cells.iter().zip(&widths).enumerate())
            .map(|(i, (c, w))| {
                let n = c.width();
                if n > *w {
                    let (cut, used) = cut_to_width(c, w.saturating_sub(1));
                    format!(" {cut}…{} ", " ".repeat(w.saturating_sub(1 + used)))
                } else if i >= layout.right_from {
                    format!(" {}{c} ", " ".repeat(w - n))
                } else {
                    format!(" {c}{} ", " ".repeat(w - n))
                }
            })
            .collect();
        writeln!(out, "{}", text.join(" ").trim_end())
    };
    line(
        out,
        &header.iter().map(|h| h.to_string()).collect::<Vec<_>>(),
    )?;
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(w + 2)).collect();
    writeln!(out, "{}", rule.join(" "))?;
    for row in rows() {
        line(out, &row?)?;
    }
    Ok(())
}

/// How a column of a table gives way when the table is wider than the terminal
/// ([`write_fitted`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Give {
    /// Kept whole: ids, dates, numbers, whatever a user copies.
    Never,
    /// Left out when shortening the free text is not enough; lower ranks go first (the
    /// rightmost of a rank first).
    Drop(u8),
    /// Free text that stays (a session's title and project): cut to fit, ending in `…`,
    /// down to its header or 10 columns before any column is left out, and when every
    /// column that can be left out is, cut further, down to its header.
    Squeeze,
}

/// The terminal's width in columns, when standard output is one: `$COLUMNS` when it is set
/// to a number, else the width the terminal reports.
pub fn terminal_columns() -> Option<usize> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let set = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0);
    set.or_else(|| Table::new().width().map(usize::from))
}

/// `text` in at most `columns` terminal columns (a CJK character takes two): as it is when
/// it fits, else its start and `…`.
pub fn cut_end(text: &str, columns: usize) -> String {
    if text.width() <= columns {
        return text.to_owned();
    }
    let (start, _) = cut_to_width(text, columns.saturating_sub(1));
    format!("{start}…")
}

/// `text` in at most `columns` terminal columns: as it is when it fits, else `…` and its
/// end (a path keeps its file name).
pub fn cut_start(text: &str, columns: usize) -> String {
    if text.width() <= columns {
        return text.to_owned();
    }
    let room = columns.saturating_sub(1);
    let mut used = 0;
    let mut from = text.len();
    for (i, c) in text.char_indices().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        from = i;
    }
    format!("…{}", &text[from..])
}

/// Writes a table in the layout [`table`] gives when piped, fitted to `columns` terminal
/// columns (`None`: piped, every row whole on one line). An id, a date or a number is never
/// broken: free text ([`Give::Squeeze`]) is cut first, down to its header or 10 columns;
/// if the table is still too wide, columns are left out by rank ([`Give::Drop`]), lowest
/// first, until it fits; then free text is cut down to its header; what is
/// [`Give::Never`] stays, even wider than the terminal. A header cell may hold several
/// lines (`tool\ncalls`). Returns the headers left out (one line each), for the caller to
/// say so under the table.
///
/// # Errors
/// Writing failed.
pub fn write_fitted(
    out: &mut dyn Write,
    header: &[&str],
    gives: &[Give],
    right_from: usize,
    rows: &[Vec<String>],
    columns: Option<usize>,
) -> std::io::Result<Vec<String>> {
    let head_width = |h: &str| h.lines().map(UnicodeWidthStr::width).max().unwrap_or(0);
    let mut natural: Vec<usize> = header.iter().map(|h| head_width(h)).collect();
    for row in rows {
        for (w, cell) in natural.iter_mut().zip(row) {
            *w = (*w).max(cell.width());
        }
    }
    let give = |i: usize| gives.get(i).copied().unwrap_or(Give::Never);
    let mut kept: Vec<usize> = (0..header.len()).collect();
    // Each column takes its width plus a space either side, and one between columns.
    let total = |widths: &[usize], kept: &[usize]| -> usize {
        kept.iter()
            .map(|&i| widths[i] + 3)
            .sum::<usize>()
            .saturating_sub(1)
    };
    let mut widths = natural.clone();
    if let Some(columns) = columns {
        loop {
            widths.clone_from(&natural);
            // Shorten the widest free text first, one column at a time.
            while total(&widths, &kept) > columns {
                let floor = |i: usize| head_width(header[i]).max(10).min(natural[i]);
                let Some(&i) = kept
                    .iter()
                    .filter(|&&i| give(i) == Give::Squeeze && widths[i] > floor(i))
                    .max_by_key(|&&i| widths[i])
                else {
                    break;
                };
                widths[i] -= 1;
            }
            if total(&widths, &kept) <= columns {
                break;
            }
            let lowest = kept
                .iter()
                .filter_map(|&i| match give(i) {
                    Give::Drop(rank) => Some((rank, std::cmp::Reverse(i))),
                    Give::Never | Give::Squeeze => None,
                })
                .min();
            match lowest {
                Some((_, std::cmp::Reverse(i))) => kept.retain(|&k| k != i),
                None => {
                    // Nothing left to leave out: what stays is cut down to its header.
                    while total(&widths, &kept) > columns {
                        let Some(&i) = kept
                            .iter()
                            .filter(|&&i| {
                                give(i) == Give::Squeeze
                                    && widths[i] > head_width(header[i]).min(natural[i])
                            })
                            .max_by_key(|&&i| widths[i])
                        else {
                            break;
                        };
                        widths[i] -= 1;
                    }
                    // Wider than the terminal only when ids alone are: nothing broken.
                    break;
                }
            }
        }
    }
    let line = |out: &mut dyn Write, cells: &[&str]| -> std::io::Result<()> {
        let text: Vec<String> = kept
            .iter()
            .map(|&i| {
                let (c, w) = (cells.get(i).copied().unwrap_or(""), widths[i]);
                let n = c.width();
                if n > w {
                    let (cut, used) = cut_to_width(c, w.saturating_sub(1));
                    format!(" {cut}…{} ", " ".repeat(w.saturating_sub(1 + used)))
                } else if i >= right_from {
                    format!(" {}{c} ", " ".repeat(w - n))
                } else {
                    format!(" {c}{} ", " ".repeat(w - n))
                }
            })
            .collect();
        writeln!(out, "{}", text.join(" ").trim_end())
    };
    let header_lines = header.iter().map(|h| h.lines().count()).max().unwrap_or(1);
    for n in 0..header_lines {
        let cells: Vec<&str> = header
            .iter()
            .map(|h| h.lines().nth(n).unwrap_or(""))
            .collect();
        line(out, &cells)?;
    }
    let rule: Vec<String> = kept.iter().map(|&i| "-".repeat(widths[i] + 2)).collect();
    writeln!(out, "{}", rule.join(" "))?;
    for row in rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        line(out, &cells)?;
    }
    Ok((0..header.len())
        .filter(|i| !kept.contains(i))
        .map(|i| header[i].replace('\n', " "))
        .collect())
}

/// The note under a table [`write_fitted`] left columns out of.
pub fn left_out_note(left_out: &[String], columns: Option<usize>) -> Option<String> {
    let columns = columns.filter(|_| !left_out.is_empty())?;
    Some(format!(
        "left out to fit {columns} columns: {} (a wider terminal, a pipe or --format json shows them)",
        left_out.join(", ")
    ))
}

/// The longest start of `text` that takes at most `columns` terminal columns, and the
/// columns it takes.
fn cut_to_width(text: &str, columns: usize) -> (&str, usize) {
    let mut used = 0;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > columns {
            return (&text[..i], used);
        }
        used += w;
    }
    (text, used)
}

/// How a streamed table is laid out ([`write_streamed`]).
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Columns from this one on (0-based) align right; the others left.
    pub right_from: usize,
    /// On a terminal: its width and the column cut to fit it.
    pub fit: Option<Fit>,
}

impl Default for Layout {
    /// Every column aligned left, nothing cut.
    fn default() -> Self {
        Layout {
            right_from: usize::MAX,
            fit: None,
        }
    }
}

/// How a streamed table fits a terminal ([`write_streamed`]).
#[derive(Debug, Clone, Copy)]
pub struct Fit {
    /// The terminal's width in columns.
    pub columns: usize,
    /// The column cut to fit (0-based).
    pub cut: usize,
}

/// Fitting column `cut` to the terminal, when standard output is one.
pub fn fit_terminal(cut: usize) -> Option<Fit> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let columns = usize::from(Table::new().width()?);
    Some(Fit { columns, cut })
}

/// Writes rows one at a time as one pretty JSON array (`json`, the layout
/// `serde_json::to_writer_pretty` gives a list), one object per line (`jsonl`), or through
/// `text`.
///
/// # Errors
/// A row's error, or writing failed.
pub fn write_row_stream<T: serde::Serialize>(
    out: &mut dyn Write,
    format: crate::cli::TableFormat,
    rows: impl Iterator<Item = anyhow::Result<T>>,
    text: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    match format {
        crate::cli::TableFormat::Jsonl => {
            for r in rows {
                serde_json::to_writer(&mut *out, &r?)?;
                writeln!(out)?;
            }
        }
        crate::cli::TableFormat::Json => {
            let mut any = false;
            for r in rows {
                let pretty = serde_json::to_string_pretty(&r?)?;
                out.write_all(if any { b",\n" } else { b"[\n" })?;
                for (i, l) in pretty.lines().enumerate() {
                    if i > 0 {
                        out.write_all(b"\n")?;
                    }
                    write!(out, "  {l}")?;
                }
                any = true;
            }
            out.write_all(if any { b"\n]\n" } else { b"[]\n" })?;
        }
        crate::cli::TableFormat::Text => text(out)?,
    }
    Ok(())
}

/// Writes one value as pretty JSON (`json`), one line (`jsonl`), or through `text`.
pub fn write_one<T: serde::Serialize>(
    out: &mut dyn Write,
    format: crate::cli::TableFormat,
    value: &T,
    text: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    match format {
        crate::cli::TableFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, value)?;
            writeln!(out)?;
        }
        crate::cli::TableFormat::Jsonl => {
            serde_json::to_writer(&mut *out, value)?;
            writeln!(out)?;
        }
        crate::cli::TableFormat::Text => text(out)?,
    }
    Ok(())
}

/// A finding in JSON output (`validate`, `show`): rule, seq, line (or SQLite row), message,
/// and for provider rules the wire indexes, the call id and the providers that refuse it.
#[derive(Debug, Clone, Serialize)]
pub struct FindingJson {
    pub rule: &'static str,
    pub seq: Option<u64>,
    pub line: Option<u64>,
    pub row: Option<u64>,
    pub message: String,
    /// Provider rules only: the index of the message in the OpenAI-compatible request
    /// (DeepSeek's and OpenAI's "message index N").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_index: Option<u64>,
    /// Provider rules only: the index in Anthropic's `messages` array (`messages.N`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anthropic_index: Option<u64>,
    /// Provider rules only: the tool-call id concerned, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Provider rules only: the providers that refuse the history for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused_by: Option<Vec<&'static str>>,
}

impl From<&Finding> for FindingJson {
    fn from(f: &Finding) -> Self {
        let detail = f.provider.as_deref();
        let refused_by = dsh_session::provider::providers_of(f.rule);
        FindingJson {
            rule: f.rule.id(),
            seq: f.seq,
            line: f.line,
            row: f.row,
            message: f.message.clone(),
            message_index: detail.map(|d| d.message_index),
            anthropic_index: detail.map(|d| d.anthropic_index),
            call_id: detail.and_then(|d| d.call_id.clone()),
            refused_by: (!refused_by.is_empty())
                .then(|| refused_by.iter().map(|p| p.name()).collect()),
        }
    }
}

/// Where a warning points: ` at line L (seq S, message index N)`, the index as DeepSeek and
/// OpenAI count it.
pub fn place(w: &FindingJson) -> String {
    place_for(w, None)
}

/// [`place`], the message's index as `provider` counts and names it (`messages.N` for
/// Anthropic, PROVIDERS.md §3); DeepSeek's and OpenAI's "message index N" without one.
pub fn place_for(w: &FindingJson, provider: Option<dsh_session::provider::Provider>) -> String {
    let mut at = dsh_session::wording::place(w.line, w.row, None);
    let mut inside = Vec::new();
    if let Some(seq) = w.seq {
        inside.push(format!("seq {seq}"));
    }
    if let (Some(index), Some(anthropic)) = (w.message_index, w.anthropic_index) {
        inside.push(match provider {
            Some(p) => p.index_words(p.counted_index(index, anthropic)),
            None => format!("message index {index}"),
        });
    }
    if !inside.is_empty() {
        at.push_str(&format!(" ({})", inside.join(", ")));
    }
    at
}

/// Why a directory given to `validate` or `sessions` is a usage error (exit 2): nothing
/// below it is a session log or a SQLite store.
pub fn no_logs_in(dir: &Path) -> String {
    format!(
        "{}: no session logs (session.jsonl, session.vN.jsonl, .zstd) or SQLite stores found",
        dir.display()
    )
}

/// What a walk ([`dsh_session::load::layout::discover`]) passed over, one note a line on
/// standard error, in path order (each note starts with its path) whatever order the walk
/// met them: every walking command says it in the same words.
pub fn say_passed_over(mut notes: Vec<String>) {
    notes.sort();
    for s in &notes {
        stderr!("dsh-session: {s}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn streamed(layout: Layout, rows: &[[&str; 2]]) -> String {
        let mut out = Vec::new();
        let rows = || {
            rows.iter()
                .map(|r| Ok(r.iter().map(|c| c.to_string()).collect()))
        };
        write_streamed(&mut out, &["name", "n"], layout, rows).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn columns_line_up_in_terminal_columns_and_numbers_align_right() {
        let layout = Layout {
            right_from: 1,
            fit: None,
        };
        // "会话" takes four columns, like "abcd".
        assert_eq!(
            streamed(layout, &[["会话", "1"], ["abcd", "22"]]),
            " name    n\n------ ----\n 会话    1\n abcd   22\n"
        );
    }

    #[test]
    fn a_terminal_cuts_the_named_column_to_fit() {
        let layout = Layout {
            fit: Some(Fit {
                columns: 16,
                cut: 0,
            }),
            ..Layout::default()
        };
        let text = streamed(layout, &[["a long name here", "1"]]);
        assert_eq!(text, " name         n\n------------ ---\n a long na…   1\n");
        assert!(text.lines().all(|l| l.chars().count() <= 16));
    }
}
