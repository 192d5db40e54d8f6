//! Redaction of secrets and home directories in exported transcripts (issue 17). It works
//! on decoded text only, as the transcript shows it: the log and `messages` are never
//! changed. Each kind is one pattern; what matched is replaced by a marker naming the
//! kind, and counted, so the export's footer can say what was hidden.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// One kind of secret: its name (as the footer counts it), its pattern and what replaces a
/// match.
struct Kind {
    name: &'static str,
    pattern: Regex,
    /// Keeps the matched text's first capture group (a prefix that is not secret).
    keep_prefix: bool,
}

fn kind(name: &'static str, pattern: &str, keep_prefix: bool) -> Kind {
    Kind {
        name,
        pattern: Regex::new(pattern).expect("the redaction patterns are valid"),
        keep_prefix,
    }
}

/// The kinds in the order they are applied: the longest, most specific forms first, so a
/// JWT after `Bearer` or an `sk-ant-` key is counted once, under its own kind.
static KINDS: LazyLock<Vec<Kind>> = LazyLock::new(|| {
    vec![
        kind(
            "private-key",
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----",
            false,
        ),
        kind(
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}",
            false,
        ),
        kind(
            "bearer-token",
            r"(\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{8,}",
            true,
        ),
        kind("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{16,}", false),
        kind("sk-key", r"\bsk-[A-Za-z0-9_-]{16,}", false),
        kind("aws-access-key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", false),
        kind(
            "github-token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
            false,
        ),
        kind("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", false),
        // The user's home directory: `/home/<user>`, `/Users/<user>`, `C:\Users\<user>`
        // (either slash), not when the path continues a longer one (`/mnt/home/x`).
        kind(
            "home-path",
            r"(^|[^A-Za-z0-9._/\\-])(?:/home/|/Users/|[A-Za-z]:[\\/]+Users[\\/]+)[A-Za-z0-9._-]+",
            true,
        ),
    ]
});

/// Replaces secrets and home directories, counting what it replaced by kind. Off
/// (`--no-redact`), it passes text through and counts nothing.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    on: bool,
    counts: BTreeMap<&'static str, u64>,
}

impl Redactor {
    /// A redactor that redacts (`on`) or passes everything through.
    pub fn new(on: bool) -> Self {
        Redactor {
            on,
            counts: BTreeMap::new(),
        }
    }

    /// Whether redaction is on.
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// `text` with every secret replaced by `[REDACTED <kind>]` and every home directory
    /// by `~`.
    pub fn text<'t>(&mut self, text: &'t str) -> Cow<'t, str> {
        if !self.on {
            return Cow::Borrowed(text);
        }
        let mut out = Cow::Borrowed(text);
        for kind in KINDS.iter() {
            let mut n = 0;
            let replaced = kind.pattern.replace_all(&out, |c: &Captures<'_>| {
                n += 1;
                let prefix = if kind.keep_prefix {
                    c.get(1).map_or("", |m| m.as_str())
                } else {
                    ""
                };
                if kind.name == "home-path" {
                    format!("{prefix}~")
                } else {
                    format!("{prefix}[REDACTED {}]", kind.name)
                }
            });
            if n > 0 {
                *self.counts.entry(kind.name).or_insert(0) += n;
                out = Cow::Owned(replaced.into_owned());
            }
        }
        out
    }

    /// Redacts every string inside a JSON value (keys are kept), in place.
    pub fn json(&mut self, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(s) => {
                if let Cow::Owned(new) = self.text(s) {
                    *s = new;
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| self.json(v)),
            serde_json::Value::Object(map) => map.values_mut().for_each(|v| self.json(v)),
            _ => {}
        }
    }

    /// What was redacted, by kind (names as [`Redactor::text`] writes them), in name order.
    pub fn counts(&self) -> &BTreeMap<&'static str, u64> {
        &self.counts
    }

    /// The footer line: `Redacted: 2 sk-key, 1 home-path.`, `Redaction found nothing to
    /// hide.` or, off, that nothing was redacted.
    pub fn summary(&self) -> String {
        if !self.on {
            return "Redaction off (--no-redact): secrets and home directories are shown as recorded.".to_owned();
        }
        if self.counts.is_empty() {
            return "Redaction on: nothing to redact was found.".to_owned();
        }
        let parts: Vec<String> = self
            .counts
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        format!("Redacted: {}.", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(text: &str) -> (String, Vec<(&'static str, u64)>) {
        let mut r = Redactor::new(true);
        let out = r.text(text).into_owned();
        (out, r.counts().iter().map(|(k, n)| (*k, *n)).collect())
    }

    #[test]
    fn every_kind() {
        let cases = [
            (
                "key sk-proj-abcdefghijklmnop1234 end",
                "key [REDACTED sk-key] end",
                "sk-key",
            ),
            (
                "sk-ant-api03-abcdefghijklmnopqrst",
                "[REDACTED anthropic-key]",
                "anthropic-key",
            ),
            (
                "AKIAIOSFODNN7EXAMPLE.",
                "[REDACTED aws-access-key].",
                "aws-access-key",
            ),
            (
                "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                "[REDACTED github-token]",
                "github-token",
            ),
            (
                "xoxb-1234567890-abcdef",
                "[REDACTED slack-token]",
                "slack-token",
            ),
            (
                "Authorization: Bearer abc.def-ghi_123",
                "Authorization: Bearer [REDACTED bearer-token]",
                "bearer-token",
            ),
            (
                "t=eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl",
                "t=[REDACTED jwt]",
                "jwt",
            ),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
                "[REDACTED private-key]",
                "private-key",
            ),
            ("cd /home/ana/proj", "cd ~/proj", "home-path"),
            ("/Users/bob", "~", "home-path"),
            (r"C:\Users\ana\src", r"~\src", "home-path"),
        ];
        for (text, want, name) in cases {
            assert_eq!(redact(text), (want.to_owned(), vec![(name, 1)]), "{text}");
        }
    }

    #[test]
    fn what_is_not_a_secret_stays() {
        for text in [
            "task-force",
            "sk-short",
            "/mnt/home/ana",
            "the bearer of news",
            "AKIA",
        ] {
            assert_eq!(redact(text), (text.to_owned(), vec![]));
        }
    }

    #[test]
    fn off_passes_through() {
        let mut r = Redactor::new(false);
        assert_eq!(
            r.text("sk-proj-abcdefghijklmnop1234 /home/ana"),
            "sk-proj-abcdefghijklmnop1234 /home/ana"
        );
        assert!(r.counts().is_empty());
    }
}
