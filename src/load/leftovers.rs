//! What DSH leaves beside a session log that is not a log: named here so that a directory
//! walk (`validate DIR`, `stats DIR`, `sessions ROOT`) says what each such file is instead
//! of passing over it in silence.
//!
//! * An **unpublished write**: DSH builds a new log (and from 0.1.5 a migrated generation)
//!   in a temporary file beside it, `<log name>.<12 lowercase hex>.tmp`, fsyncs it and
//!   publishes it with a hard link, then removes the temporary name (FORMAT.md §7.3;
//!   `writeSyncedTempFile` in `packages/session/session-persistence-jsonl/src/index.ts`,
//!   deepseek-ai/deepseek-harness@b150a551b8 and
//!   tenyi/deepseek-harness@77afa3438160c9b45d81277b1fa64e9edcd9416d). A crash between the
//!   two leaves the temporary file; DSH ignores it (FORMAT.md §7.1).
//! * A **quarantined log**, `<log name>.corrupt-<suffix>`: a log set aside because it
//!   could not be read, as users find it beside a session (issue 24). Neither DSH source
//!   above writes such a name, so the suffix after `.corrupt` is not pinned down: any is
//!   taken.
//!
//! Both are recognised only after a canonical log name (`session.jsonl`,
//! `session.vN.jsonl`, either with `.zstd`; GENERATIONS §1.1), so other files keep the
//! walk's own note.

use std::path::Path;

use crate::load::log_name::is_session_file_name;

/// A file DSH left beside a session log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leftover {
    /// `<log name>.<hex>.tmp`: a write that was never published.
    UnpublishedWrite,
    /// `<log name>.corrupt-…`: a log set aside as unreadable.
    Quarantined,
}

/// What the file named `name` is, when it is one of the [`Leftover`]s: the longest
/// canonical log name it starts with, followed by `.`, then `….tmp` or `corrupt…`.
pub fn leftover(name: &str) -> Option<Leftover> {
    let rest = name
        .rmatch_indices('.')
        .find(|(at, _)| is_session_file_name(&name[..*at]))
        .map(|(at, _)| &name[at + 1..])?;
    if rest.starts_with("corrupt") {
        Some(Leftover::Quarantined)
    } else if rest == "tmp" || rest.ends_with(".tmp") {
        Some(Leftover::UnpublishedWrite)
    } else {
        None
    }
}

impl Leftover {
    /// The walk's note on the file at `path`: what it is, and what to do.
    pub fn note(self, path: &Path) -> String {
        let path = path.display();
        match self {
            Leftover::UnpublishedWrite => format!(
                "{path}: not checked: a temporary file of a DSH write that was never published (a crash before the log was linked in place); DSH ignores it: delete it when no DSH process is writing this session"
            ),
            Leftover::Quarantined => format!(
                "{path}: not checked: a session log set aside as corrupt (quarantined); DSH does not read it: to see what is wrong with it, name it: dsh-session validate {path}"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_after_a_log_name() {
        for (name, kind) in [
            (
                "session.jsonl.0a1b2c3d4e5f.tmp",
                Some(Leftover::UnpublishedWrite),
            ),
            (
                "session.jsonl.zstd.0a1b2c3d4e5f.tmp",
                Some(Leftover::UnpublishedWrite),
            ),
            (
                "session.v4.jsonl.zstd.9f8e7d6c5b4a.tmp",
                Some(Leftover::UnpublishedWrite),
            ),
            (
                "session.jsonl.corrupt-1760000000000",
                Some(Leftover::Quarantined),
            ),
            (
                "session.v3.jsonl.zstd.corrupt-2026-03-01",
                Some(Leftover::Quarantined),
            ),
            ("session.jsonl", None),
            ("session.jsonl.tmp", Some(Leftover::UnpublishedWrite)),
            ("session.jsonl.tmp.txt", None),
            ("notes.jsonl.0a1b.tmp", None),
            ("session.v0.jsonl.corrupt-1", None),
            ("session.jsonl.repair", None),
        ] {
            assert_eq!(leftover(name), kind, "{name}");
        }
    }
}
