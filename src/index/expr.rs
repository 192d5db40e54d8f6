//! What a search query asks of a text, and how the full-text table narrows the texts to
//! read: the query's words and FTS5 operators parsed into an [`Expr`], its grams
//! ([`grams`]) as the FTS5 expression that finds every candidate (a superset), and
//! [`Expr::holds`], which checks a candidate's text.
//!
//! The full-text table (`texts`, index schema 5, `detail=none`: no positions) indexes each
//! message part as the set of its grams, of its text [`fold`]ed: every trigram of
//! characters that are not CJK, exactly (written in hex), and every pair of CJK
//! characters, hashed into [`CJK_BUCKETS`] buckets. A CJK text has about as many distinct
//! trigrams as characters, which made a table of exact trigrams (or even of exact pairs)
//! larger than half the logs on the real samples; the pairs' buckets bound that part of
//! the dictionary, and a two-character CJK word gets a gram of its own. A query's term is
//! the AND of its grams, and every candidate's text is checked ([`Expr::holds`]), so a
//! bucket shared by chance, or grams that occur apart, never make a hit.

/// The buckets pairs of CJK characters hash to. More buckets: a larger table, fewer false
/// candidates (a CJK part with 800 distinct pairs fills about a fifth of them; a
/// three-character word, two pairs, then lets about one such part in 25 through to the
/// check).
pub const CJK_BUCKETS: u32 = 4096;

/// Whether `c` is written without spaces between words (CJK ideographs, kana, hangul,
/// their punctuation and full-width forms): such text is indexed by pairs of characters.
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{2E80}'..='\u{D7FF}' | '\u{F900}'..='\u{FAFF}' | '\u{FE30}'..='\u{FE4F}' | '\u{FF00}'..='\u{FFEF}' | '\u{20000}'..='\u{3FFFF}')
}

/// A Latin letter with a diacritic as its base letter (Latin-1 Supplement and Latin
/// Extended-A), so that `cafe` finds `café`, as FTS5's `remove_diacritics` did; other
/// characters as they are.
fn base_letter(c: char) -> char {
    match c {
        'à'..='å' | '\u{100}'..='\u{105}' => 'a',
        'ç' | '\u{106}'..='\u{10D}' => 'c',
        '\u{10E}'..='\u{111}' => 'd',
        'è'..='ë' | '\u{112}'..='\u{11B}' => 'e',
        '\u{11C}'..='\u{123}' => 'g',
        '\u{124}'..='\u{127}' => 'h',
        'ì'..='ï' | '\u{128}'..='\u{131}' => 'i',
        '\u{134}'..='\u{135}' => 'j',
        '\u{136}'..='\u{137}' => 'k',
        '\u{139}'..='\u{142}' => 'l',
        'ñ' | '\u{143}'..='\u{148}' => 'n',
        'ò'..='ö' | 'ø' | '\u{14C}'..='\u{151}' => 'o',
        '\u{154}'..='\u{159}' => 'r',
        '\u{15A}'..='\u{161}' => 's',
        '\u{162}'..='\u{167}' => 't',
        'ù'..='ü' | '\u{168}'..='\u{173}' => 'u',
        '\u{174}'..='\u{175}' => 'w',
        'ý' | 'ÿ' | '\u{176}'..='\u{178}' => 'y',
        '\u{179}'..='\u{17E}' => 'z',
        _ => c,
    }
}

/// `text` as both sides of a search are compared: letters in lower case (Unicode), Latin
/// letters without their diacritics.
pub fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.chars()
        .flat_map(char::to_lowercase)
        .map(base_letter)
        .collect()
}

/// The distinct grams of `text` (folded), as the full-text table's tokens: a trigram of
/// characters that are not CJK as the hex of its UTF-8 (`616263`), a pair of CJK
/// characters as `x` and its bucket (`x1f3`), and four digits in a row as `n` and the
/// digits (`n1234`). Sorted.
///
/// Why four digits: there are only a thousand trigrams of digits, so in a text of numbers
/// (ids, times, line numbers) each is in most parts, and without positions a number's
/// trigrams are found together, apart, in thousands of parts that do not hold it (at
/// 10,000 sessions, about 2,100 parts for `t123456`, which is in 30); four digits tell
/// about as much as three letters.
fn gram_tokens(text: &str) -> Vec<String> {
    use std::fmt::Write as _;
    let chars: Vec<char> = fold(text).chars().collect();
    let mut out: Vec<String> = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        let mut buf = [0u8; 12];
        if is_cjk(c) {
            if let Some(&d) = chars.get(i + 1).filter(|d| is_cjk(**d)) {
                let n = c.encode_utf8(&mut buf).len();
                let m = d.encode_utf8(&mut buf[n..]).len();
                let bucket = crate::saved::fnv1a(&buf[..n + m]) % u64::from(CJK_BUCKETS);
                out.push(format!("x{bucket:x}"));
            }
        } else if let [_, b, d] = chars.get(i..i + 3).unwrap_or(&[]) {
            if is_cjk(*b) || is_cjk(*d) {
                continue;
            }
            let mut token = String::with_capacity(6);
            for ch in [c, *b, *d] {
                for byte in ch.encode_utf8(&mut buf).bytes() {
                    let _ = write!(token, "{byte:02x}");
                }
            }
            out.push(token);
            if let Some(four) = chars
                .get(i..i + 4)
                .filter(|w| w.iter().all(char::is_ascii_digit))
            {
                out.push(std::iter::once('n').chain(four.iter().copied()).collect());
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether `token` is the gram of a trigram of ASCII digits (`313233`).
fn is_digit_trigram(token: &str) -> bool {
    let b = token.as_bytes();
    b.len() == 6 && b.chunks(2).all(|p| p[0] == b'3' && p[1].is_ascii_digit())
}

/// What the full-text table indexes of a text: its grams' tokens, space-separated.
pub fn grams(text: &str) -> String {
    gram_tokens(text).join(" ")
}

/// The most grams a term asks the table for: a longer term is narrowed by these (spread
/// over it) and checked for the rest.
const MAX_TERM_GRAMS: usize = 48;

/// A query: terms (each found as a substring, letters without case) joined by FTS5's
/// operators. `NEAR(a b, N)` is read as `a AND b`: the table keeps no positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// A word or a quoted phrase, [`fold`]ed.
    Term(String),
    /// All of them.
    And(Vec<Expr>),
    /// Any of them.
    Or(Vec<Expr>),
    /// The first and not the second.
    Not(Box<Expr>, Box<Expr>),
}

impl Expr {
    /// Plain words: each must occur.
    pub fn words(text: &str) -> Expr {
        Expr::And(
            text.split_whitespace()
                .map(|w| Expr::Term(fold(w)))
                .collect(),
        )
    }

    /// FTS5 syntax ([`super::search::syntax_problem`] found nothing wrong with it):
    /// phrases, `AND`, `OR`, `NOT`, `NEAR(...)`, parentheses; the marks `*`, `^`, `+` and a
    /// column filter are left out.
    pub fn fts(text: &str) -> Expr {
        let tokens = lex(text);
        let mut at = 0;
        let e = parse_or(&tokens, &mut at);
        e.unwrap_or(Expr::And(Vec::new()))
    }

    /// Whether `folded` (a text through [`fold`]) holds what the query asks.
    pub fn holds(&self, folded: &str) -> bool {
        match self {
            Expr::Term(t) => folded.contains(t.as_str()),
            Expr::And(all) => all.iter().all(|e| e.holds(folded)),
            Expr::Or(any) => any.iter().any(|e| e.holds(folded)),
            Expr::Not(a, b) => a.holds(folded) && !b.holds(folded),
        }
    }

    /// The FTS5 expression over grams ([`grams`]) that every text [`Expr::holds`] for
    /// matches, or `None` when the table cannot narrow the texts (a term with no gram: of
    /// fewer than three characters, or one CJK character; alone or in an `OR`).
    pub fn candidates(&self) -> Option<String> {
        match self {
            Expr::Term(t) => {
                let mut g = gram_tokens(t);
                // A run of four digits makes its trigrams of digits redundant, and they
                // are the longest lists the table has.
                if g.iter().any(|t| t.starts_with('n')) {
                    g.retain(|t| !is_digit_trigram(t));
                }
                if g.len() > MAX_TERM_GRAMS {
                    let step = g.len().div_ceil(MAX_TERM_GRAMS);
                    g = g.into_iter().step_by(step).collect();
                }
                (!g.is_empty()).then(|| {
                    let all: Vec<String> = g.into_iter().map(|t| format!("\"{t}\"")).collect();
                    format!("({})", all.join(" AND "))
                })
            }
            Expr::And(all) => {
                let parts: Vec<String> = all.iter().filter_map(Expr::candidates).collect();
                (!parts.is_empty()).then(|| format!("({})", parts.join(" AND ")))
            }
            Expr::Or(any) => {
                let parts: Option<Vec<String>> = any.iter().map(Expr::candidates).collect();
                parts
                    .filter(|p| !p.is_empty())
                    .map(|p| format!("({})", p.join(" OR ")))
            }
            // A false candidate of the second part must not hide a true one of the first.
            Expr::Not(a, _) => a.candidates(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(String),
    Open,
    Close,
    And,
    Or,
    Not,
}

fn lex(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut near = 0usize;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            let mut phrase = String::new();
            i += 1;
            while i < chars.len() {
                if chars[i] == '"' {
                    if chars.get(i + 1) == Some(&'"') {
                        phrase.push('"');
                        i += 2;
                        continue;
                    }
                    break;
                }
                phrase.push(chars[i]);
                i += 1;
            }
            i += 1;
            out.push(Tok::Word(phrase));
        } else if c == '(' {
            out.push(Tok::Open);
            i += 1;
        } else if c == ')' {
            out.push(Tok::Close);
            near = near.saturating_sub(1);
            i += 1;
        } else if c.is_whitespace() || c == ',' {
            i += 1;
        } else {
            let start = i;
            while i < chars.len()
                && !chars[i].is_whitespace()
                && !matches!(chars[i], '"' | '(' | ')' | ',')
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let word = word.trim_matches(|c| matches!(c, '*' | '^' | '+'));
            match word {
                "AND" => out.push(Tok::And),
                "OR" => out.push(Tok::Or),
                "NOT" => out.push(Tok::Not),
                "NEAR" if chars.get(i) == Some(&'(') => near += 1,
                // NEAR's distance.
                w if near > 0 && !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) => {}
                "" => {}
                // A column filter (`text:`) names the one column.
                w if w.ends_with(':') => {}
                w => out.push(Tok::Word(w.to_owned())),
            }
        }
    }
    out
}

fn parse_or(t: &[Tok], at: &mut usize) -> Option<Expr> {
    let mut any = vec![parse_and(t, at)?];
    while t.get(*at) == Some(&Tok::Or) {
        *at += 1;
        any.extend(parse_and(t, at));
    }
    Some(joined(any, Expr::Or))
}

/// `all` joined by `join`, or its one expression alone.
fn joined(mut all: Vec<Expr>, join: fn(Vec<Expr>) -> Expr) -> Expr {
    if all.len() == 1 {
        all.remove(0)
    } else {
        join(all)
    }
}

fn parse_and(t: &[Tok], at: &mut usize) -> Option<Expr> {
    let mut all = vec![parse_not(t, at)?];
    loop {
        match t.get(*at) {
            Some(Tok::And) => *at += 1,
            Some(Tok::Word(_) | Tok::Open) => {}
            _ => break,
        }
        all.extend(parse_not(t, at));
    }
    Some(joined(all, Expr::And))
}

fn parse_not(t: &[Tok], at: &mut usize) -> Option<Expr> {
    let mut e = parse_atom(t, at)?;
    while t.get(*at) == Some(&Tok::Not) {
        *at += 1;
        if let Some(b) = parse_atom(t, at) {
            e = Expr::Not(Box::new(e), Box::new(b));
        }
    }
    Some(e)
}

fn parse_atom(t: &[Tok], at: &mut usize) -> Option<Expr> {
    match t.get(*at)? {
        Tok::Word(w) => {
            *at += 1;
            Some(Expr::Term(fold(w)))
        }
        Tok::Open => {
            *at += 1;
            let e = parse_or(t, at);
            if t.get(*at) == Some(&Tok::Close) {
                *at += 1;
            }
            e
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_parse_with_fts5_precedence() {
        let t = |s: &str| Expr::Term(s.into());
        assert_eq!(
            Expr::fts("a OR b c NOT d"),
            Expr::Or(vec![
                t("a"),
                Expr::And(vec![t("b"), Expr::Not(Box::new(t("c")), Box::new(t("d")))])
            ])
        );
        assert_eq!(
            Expr::fts("NEAR(foo bar*, 5) \"x \"\"y\"\"\""),
            Expr::And(vec![Expr::And(vec![t("foo"), t("bar")]), t("x \"y\"")])
        );
        assert_eq!(
            Expr::fts("(a OR b) AND c"),
            Expr::And(vec![Expr::Or(vec![t("a"), t("b")]), t("c")])
        );
    }

    #[test]
    fn texts_are_checked_and_candidates_are_a_superset() {
        let e = Expr::fts("\"Cargo Test\" NOT wombat");
        assert!(e.holds(&fold("run CARGO TEST now")));
        assert!(!e.holds(&fold("cargo test a wombat")));
        let text = grams("前面的话 指南针 后面 src/Lib.rs Café");
        let tokens: std::collections::HashSet<&str> = text.split(' ').collect();
        let q = Expr::words("指南针 LIB.rs cafe 南针").candidates().unwrap();
        // 指南 and 南针 (twice), lib.rs (4 trigrams), cafe (2).
        assert_eq!(q.matches('"').count(), 2 * 9, "{q}");
        for tok in q
            .split(['"', '(', ')', ' '])
            .filter(|t| !t.is_empty() && *t != "AND")
        {
            assert!(tokens.contains(tok), "{tok} of {q}");
        }
        assert!(q.contains("\"6c6962\""), "{q}");
        // Four digits in a row are a gram of their own.
        let q = Expr::words("T12345").candidates().unwrap();
        assert!(q.contains("\"n1234\" AND \"n2345\""), "{q}");
        assert!(q.contains("\"743132\"") && !q.contains("\"313233\""), "{q}");
        assert!(grams("x12345").contains("n2345"));
        assert!(!grams("x123 45").contains('n'));
        assert_eq!(Expr::words("ab").candidates(), None);
        assert_eq!(Expr::words("指").candidates(), None);
        assert!(Expr::words("指南").candidates().is_some());
        assert!(Expr::words("Crème").holds(&fold("la CREME brûlée")));
        assert_eq!(Expr::fts("abc OR de").candidates(), None);
        assert!(Expr::fts("abc NOT de").candidates().is_some());
    }
}
