//! Text fitted to a terminal cell range: one line, cut to a display width with `…`.

use unicode_width::UnicodeWidthStr;

/// The first line of `text` with tabs and other control characters as spaces, leading
/// blanks dropped.
pub fn one_line(text: &str) -> String {
    let line = text.trim_start().lines().next().unwrap_or("");
    line.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

pub use crate::wording::fit;

/// `2026-11-30 14:02` (UTC) for ms since the Unix epoch.
pub fn minute(ms: i64) -> String {
    let t = crate::wording::utc(ms);
    match t.get(..16) {
        Some(m) => m.replace('T', " "),
        None => t,
    }
}

/// The last path component of a project directory (`/home/ana/proj` → `proj`).
pub fn project_name(cwd: &str) -> &str {
    let trimmed = cwd.trim_end_matches(['/', '\\']);
    trimmed
        .rsplit(['/', '\\'])
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(cwd)
}

/// The rows `text` takes at `width` columns when wrapped at spaces, as a paragraph with
/// `Wrap { trim: true }` lays it out (a word wider than a row is broken across rows).
pub fn wrapped_rows(text: &str, width: usize) -> usize {
    let width = width.max(1);
    let mut rows = 1;
    let mut used = 0;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let w = word.width();
        let needed = if used == 0 { w } else { used + 1 + w };
        if needed <= width {
            used = needed;
        } else if w <= width {
            rows += 1;
            used = w;
        } else {
            // A word wider than a row fills rows of its own.
            if used > 0 {
                rows += 1;
            }
            rows += (w - 1) / width;
            used = w - (w - 1) / width * width;
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_cuts_by_display_width() {
        assert_eq!(fit("hello", 5), "hello");
        assert_eq!(fit("hello world", 6), "hello…");
        assert_eq!(fit("指南针指南针", 5), "指南…");
        assert_eq!(one_line("\n  a\tb\nc"), "a b");
        assert_eq!(project_name("/home/ana/proj/"), "proj");
        assert_eq!(minute(1_760_000_000_100), "2025-10-09 08:53");
    }

    #[test]
    fn wrapped_rows_counts_rows_as_a_word_wrap_lays_them_out() {
        assert_eq!(wrapped_rows("", 10), 1);
        assert_eq!(wrapped_rows("aaaa bbbb", 9), 1);
        assert_eq!(wrapped_rows("aaaa bbbb", 8), 2);
        assert_eq!(wrapped_rows("aaaa bbbbbbbbbbbbbbbbbbbb", 8), 4);
        assert_eq!(wrapped_rows("指南针 指南针", 6), 2);
    }
}
