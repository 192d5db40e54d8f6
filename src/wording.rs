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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn singular_for_one_plural_otherwise() {
        assert_eq!(count(1, "line"), "1 line");
        assert_eq!(count(0, "line"), "0 lines");
        assert_eq!(count(2, "closer record"), "2 closer records");
        assert_eq!(count(3, "entry"), "3 entries");
        assert_eq!(count(3, "day"), "3 days");
        assert_eq!(count(2, "byte"), "2 bytes");
        assert_eq!(count(2, "match"), "2 matches");
    }
}
