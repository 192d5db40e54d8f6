//! How messages say counts: `1 line`, `3 lines`, `1 entry`, `2 entries`, never `line(s)`.

/// `n` and `noun`, the noun in the plural unless `n` is 1: `count(1, "event")` is
/// `1 event`, `count(2, "tool call")` is `2 tool calls`, `count(0, "entry")` is `0 entries`.
pub fn count(n: u64, noun: &str) -> String {
    format!("{n} {}", noun_for(n, noun))
}

/// `noun` as it goes with `n`: itself for 1, else its plural (English rules for the nouns
/// this tool uses: `entry` → `entries`, `box` → `boxes`, `line` → `lines`).
pub fn noun_for(n: u64, noun: &str) -> String {
    if n == 1 {
        return noun.to_owned();
    }
    let consonant_y = noun.len() >= 2
        && noun.ends_with('y')
        && !matches!(
            noun.as_bytes()[noun.len() - 2],
            b'a' | b'e' | b'i' | b'o' | b'u'
        );
    if consonant_y {
        format!("{}ies", &noun[..noun.len() - 1])
    } else if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

/// An I/O error in the tool's words: what happened, without the operating system's error
/// number (`permission denied`, `no such file or directory`, `is a directory`).
pub fn io_error(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::NotFound => "no such file or directory".to_owned(),
        ErrorKind::PermissionDenied => "permission denied".to_owned(),
        ErrorKind::IsADirectory => "is a directory".to_owned(),
        ErrorKind::NotADirectory => "a part of the path is not a directory".to_owned(),
        ErrorKind::UnexpectedEof => "the input ended early".to_owned(),
        _ => without_os_error(&e.to_string()),
    }
}

/// A message that ends in the operating system's error number (`Permission denied (os error
/// 13)`, as std prints I/O errors) without it and lowercased (`permission denied`); any other
/// message as it is.
pub fn without_os_error(text: &str) -> String {
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => {
            let mut chars = text[..at].chars();
            match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => String::new(),
            }
        }
        _ => text.to_owned(),
    }
}

/// One cause of an error chain in the tool's words: an I/O error as [`io_error`] says it,
/// any other without a trailing OS error number ([`without_os_error`]).
pub fn cause_text(cause: &(dyn std::error::Error + 'static)) -> String {
    match cause.downcast_ref::<std::io::Error>() {
        Some(io) => io_error(io),
        None => without_os_error(&cause.to_string()),
    }
}

/// An error and its causes in one line, `what: why: why`, each said once and in the tool's
/// words: a cause whose text its parent already ends with (the `{0}` of a wrapper), or that
/// only adds a code before its parent's words, is not repeated, and the parent then ends in
/// the cause's words (`cannot read the prices: no
/// such file or directory`, never `…: No such file or directory: no such file or
/// directory`).
pub fn error_line<'a>(
    chain: impl IntoIterator<Item = &'a (dyn std::error::Error + 'static)>,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in chain {
        let text = cause_text(cause);
        if let Some(last) = parts.last_mut() {
            let raw = cause.to_string();
            let bare = raw
                .rfind(" (os error ")
                .map_or(raw.as_str(), |at| &raw[..at]);
            if !bare.is_empty() && last.ends_with(bare) {
                let keep = last.len() - bare.len();
                last.truncate(keep);
                last.push_str(&text);
                continue;
            }
            // The same words again, or with a code before them (SQLite's `Error code 26:
            // file is not a database` under `file is not a database`).
            if last.ends_with(&text) || text.ends_with(last.as_str()) {
                continue;
            }
        }
        parts.push(text);
    }
    parts.join(": ")
}

/// [`error_line`] of `e` and its sources.
pub fn error_text(e: &(dyn std::error::Error + 'static)) -> String {
    error_line(std::iter::successors(Some(e), |c| c.source()))
}

/// Where a finding is, as the text forms say it: ` at line L`, ` at row R` (a SQLite
/// store's physical row) and ` (seq S)`, each only when known; empty when none is.
pub fn place(line: Option<u64>, row: Option<u64>, seq: Option<u64>) -> String {
    let mut at = String::new();
    if let Some(line) = line {
        at.push_str(&format!(" at line {line}"));
    }
    if let Some(row) = row {
        at.push_str(&format!(" at row {row}"));
    }
    if let Some(seq) = seq {
        at.push_str(&format!(" (seq {seq})"));
    }
    at
}

/// How a log is named in one-line output (FORMAT.md §8: a store holds sessions): the file, with `[session ID]` for a SQLite store.
pub fn log_name(file: &str, session: Option<&str>) -> String {
    match session {
        Some(id) => format!("{file} [session {id}]"),
        None => file.to_owned(),
    }
}

/// `2025-10-09T08:53:20.000Z` for a time in ms since the Unix epoch; `<ms> ms` outside
/// years 1970 to 9999, which RFC 3339 cannot spell.
pub fn utc(ms: i64) -> String {
    const YEAR_10000: u64 = 253_402_300_800_000;
    match u64::try_from(ms).ok().filter(|&ms| ms < YEAR_10000) {
        Some(ms) => humantime::format_rfc3339_millis(
            std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms),
        )
        .to_string(),
        None => format!("{ms} ms"),
    }
}

/// What a torn tail leaves out, when it can be counted: `3 lines, 2 events`.
pub fn lines_and_events(lines: u64, events: u64) -> String {
    format!("{}, {}", count(lines, "line"), count(events, "event"))
}

/// `text` cut to at most `width` display columns (a CJK character takes two), ending in `…`
/// when it was cut: the TUI's cells and the status line.
pub fn fit(text: &str, width: usize) -> String {
    if unicode_width::UnicodeWidthStr::width(text) <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn singular_for_one_plural_otherwise() {
        assert_eq!(count(1, "line"), "1 line");
        assert_eq!(count(0, "line"), "0 lines");
        assert_eq!(lines_and_events(1, 0), "1 line, 0 events");
        assert_eq!(count(2, "closer record"), "2 closer records");
        assert_eq!(count(3, "entry"), "3 entries");
        assert_eq!(count(3, "day"), "3 days");
        assert_eq!(count(2, "byte"), "2 bytes");
        assert_eq!(count(2, "match"), "2 matches");
    }

    #[test]
    fn a_cause_its_parent_repeats_is_said_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot read the prices: {0}")]
        struct Read(#[source] std::io::Error);
        let e = Read(std::io::Error::from_raw_os_error(2));
        assert_eq!(
            error_text(&e),
            "cannot read the prices: no such file or directory"
        );
        let e = std::io::Error::from_raw_os_error(13);
        assert_eq!(error_text(&e), "permission denied");
    }

    #[test]
    fn io_errors_lose_the_os_error_number() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(io_error(&e), "no such file or directory");
        let e = std::io::Error::from_raw_os_error(5);
        assert_eq!(io_error(&e), "input/output error");
    }
}
