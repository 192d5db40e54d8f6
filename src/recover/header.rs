//! A header in place of a broken one (FORMAT.md §6.3, §7.1, §7.2): when the first line of
//! a log is not a header DSH accepts — not JSON, cut short, behind a byte order mark, of a
//! type or version below v0 DSH refuses, with a retired policy field, a cwd that is null
//! or relative, a parentSession that is not a string — the records after it still belong
//! to one session. [`rebuild`] writes the header DSH would have written for it, from
//! every member of the broken one that DSH accepts, and says what it assumed for the
//! others: the file's name for an id it cannot read, the first record's time for
//! `createdAt`, no cwd (the session goes under `_no-cwd`, as DSH lays out a session
//! without one, §7.1) for one that names no absolute directory, version 0 for one below.
//!
//! A June 2026 header (no `delegationDepth`, FORMAT.md §9.1) is rebuilt the same way: the
//! session is written as DSH writes v0 now, and its records are then kept, changed or
//! quoted in the note as any other v0 log's are.
//!
//! A header of a version above 4 (G1) is not rebuilt: its records are of a format this
//! build cannot read, and writing them under a v0 header would make DSH read them as
//! something they are not. Another harness's file (X1) is not a DSH session at all.

use std::path::Path;

use crate::check::header::{HeaderCheck, check_header, header_fields_problem};
use crate::json::{Json, Kind};
use crate::rules::Rule;

/// A rebuilt header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebuilt {
    /// The header line (no newline), keys in DSH's order (§7.2).
    pub text: String,
    /// What the broken header said that DSH refuses: `<rule> <message>`.
    pub why: String,
    /// What was assumed or left out, one sentence each.
    pub assumed: Vec<String>,
    /// The log has no header: line 1 is an event (it has a `seq` and is not of type
    /// `session`), kept as the session's first record.
    pub first_is_record: bool,
}

/// The header to write in place of `line` (the first line of the log at `path`, as
/// stored), or `None` when it needs no rebuilding or must not be rebuilt (G1: a newer
/// format; X1: another harness's file). `first_time` is the time of the first record
/// (ms since the Unix epoch), for a `createdAt` that cannot be read.
pub fn rebuild(line: &str, path: &Path, first_time: Option<i64>) -> Option<Rebuilt> {
    let named = crate::load::layout::generation_of_path(path);
    rebuild_checked(line, &check_header(line, named), path, first_time)
}

/// [`rebuild`], with the verdict `checked` of `line` as [`check_header`] gives it for the
/// generation `path`'s name stands for: a header that needs no rebuilding is checked once.
pub fn rebuild_checked(
    line: &str,
    checked: &HeaderCheck,
    path: &Path,
    first_time: Option<i64>,
) -> Option<Rebuilt> {
    let why = match &checked.verdict {
        Err((Rule::G1 | Rule::X1 | Rule::G2, _)) => return None,
        Err((rule, message)) => format!("{} {message}", rule.id()),
        // June 2026 wrote no delegationDepth (FORMAT.md §9.1): DSH 0.1.1 and later refuse
        // the header, and nothing but a current header makes its records loadable.
        Ok(crate::event::Era::June2026) => {
            "a June 2026 header (no delegationDepth), which DSH 0.1.1 and later refuse".to_owned()
        }
        Ok(_) => {
            let json = Json::parse(line).ok()?;
            format!("{} {}", Rule::H7.id(), header_fields_problem(json)?)
        }
    };
    let mut assumed = Vec::new();
    let mut text = line;
    if let Some(rest) = text.strip_prefix('\u{feff}') {
        assumed.push("a byte order mark before the header was taken out".to_owned());
        text = rest;
    }
    let cut_short;
    let json = match Json::parse(text) {
        // No header at all: line 1 is an event, which the session keeps; the header is
        // made from nothing but the file's name and the first record's time.
        Ok(j)
            if j.is_object()
                && j.has("seq")
                && !j.get("type").is_some_and(|t| t.str_eq("session")) =>
        {
            assumed.push(format!(
                "the log has no header (line 1 is a {} event, kept as the first record)",
                j.get("type").map_or("?", Json::raw)
            ));
            let mut r = finish(None, path, first_time, why, assumed)?;
            r.first_is_record = true;
            return Some(r);
        }
        Ok(j) if j.is_object() => Some(j),
        Ok(_) => None,
        Err(_) => {
            // A header cut short after a member: closed where it ends.
            cut_short = format!("{}}}", text.trim_end().trim_end_matches(','));
            let j = Json::parse(&cut_short).ok().filter(|j| j.is_object());
            if j.is_some() {
                assumed.push(
                    "the header line is cut short; it is read up to its last whole member"
                        .to_owned(),
                );
            }
            return finish(j, path, first_time, why, assumed);
        }
    };
    finish(json, path, first_time, why, assumed)
}

fn finish(
    json: Option<Json<'_>>,
    path: &Path,
    first_time: Option<i64>,
    why: String,
    mut assumed: Vec<String>,
) -> Option<Rebuilt> {
    let get = |k: &str| json.and_then(|j| j.get(k));
    let shown = |v: Option<Json<'_>>| v.map_or("nothing".to_owned(), |v| v.raw().to_owned());
    if json.is_none()
        && !assumed
            .iter()
            .any(|a| a.starts_with("the log has no header"))
    {
        assumed.push("nothing of the header line can be read as JSON".to_owned());
    }
    if let Some(t) = get("type")
        && !t.str_eq("session")
    {
        assumed.push(format!("its type {} is read as \"session\"", t.raw()));
    }
    let version = match get("version").and_then(Json::as_safe_integer) {
        Some(v @ 0..=4) => v,
        Some(v) if v > 4 => return None,
        other => {
            if json.is_some() {
                assumed.push(format!(
                    "its version {} is not one DSH reads; the session is written as v0",
                    other.map_or_else(|| shown(get("version")), |v| v.to_string())
                ));
            }
            0
        }
    };
    let id = match get("id") {
        Some(id) if id.kind() == Kind::String && id.is_nonempty_string() => id.raw().to_owned(),
        other => {
            let name = file_id(path)?;
            assumed.push(format!(
                "its id ({}) cannot be read; the session is named after the file, {name}",
                shown(other)
            ));
            serde_json::to_string(&name).ok()?
        }
    };
    let created = match get("createdAt") {
        Some(c) if c.as_seq().is_some() && !c.is_negative_zero() => c.raw().to_owned(),
        other => {
            let t = first_time.unwrap_or(0).max(0);
            assumed.push(format!(
                "its createdAt ({}) cannot be read; the first record's time, {t}, is taken",
                shown(other)
            ));
            t.to_string()
        }
    };
    let mut out =
        format!(r#"{{"type":"session","version":{version},"id":{id},"createdAt":{created}"#);
    match get("cwd") {
        Some(cwd) if cwd.as_str().is_some_and(|c| crate::load::layout::is_absolute_cwd(&c)) => {
            out.push_str(&format!(r#","cwd":{}"#, cwd.raw()));
        }
        Some(cwd) => assumed.push(format!(
            "its cwd {} is not an absolute directory; the session has none and goes under _no-cwd, as DSH lays out a session without a cwd",
            cwd.raw()
        )),
        None => {}
    }
    let parent = get("parentSession").filter(|p| p.kind() == Kind::String);
    match get("parentSession") {
        Some(p) if p.kind() == Kind::String => {
            out.push_str(&format!(r#","parentSession":{}"#, p.raw()));
            if let Some(seed) = get("seedLength").filter(|s| s.as_seq().is_some() && version < 2) {
                out.push_str(&format!(r#","seedLength":{}"#, seed.raw()));
            }
        }
        Some(p) => assumed.push(format!(
            "its parentSession {} is not a session id; the session is written without a parent",
            p.raw()
        )),
        None => {}
    }
    if version >= 2 {
        // From v2 on a header says whether the session is seeded (GENERATIONS.md §5).
        let seeded = match get("isSeeded").and_then(Json::as_bool) {
            Some(b) => b,
            None => {
                let seeded = parent.is_some() && get("seedLength").is_some();
                assumed.push(format!(
                    "its isSeeded (a v{version} header's) is absent; {seeded} is taken, as its parentSession and seedLength say"
                ));
                seeded
            }
        };
        out.push_str(&format!(r#","isSeeded":{seeded}"#));
    }
    if let Some(o) = get("origin").filter(|o| o.str_eq("subagent")) {
        out.push_str(&format!(r#","origin":{}"#, o.raw()));
    }
    let depth = match get("delegationDepth") {
        Some(d) if d.as_seq().is_some() && !d.is_negative_zero() => d.raw().to_owned(),
        Some(d) => {
            assumed.push(format!(
                "its delegationDepth {} is not a depth; 0 is taken",
                d.raw()
            ));
            "0".to_owned()
        }
        None => "0".to_owned(),
    };
    out.push_str(&format!(r#","delegationDepth":{depth}"#));
    if let Some(p) = get("agentPreset").filter(|p| p.kind() == Kind::String) {
        out.push_str(&format!(r#","agentPreset":{}"#, p.raw()));
    }
    for retired in ["sandboxMode", "approvalPolicy"] {
        if let Some(v) = get(retired) {
            assumed.push(format!(
                "its retired policy field {retired} ({}) is left out",
                v.raw()
            ));
        }
    }
    out.push('}');
    Some(Rebuilt {
        text: out,
        why,
        assumed,
        first_is_record: false,
    })
}

/// The id a session takes from its file when its header's cannot be read: the session
/// directory's name for `…/<id>/session[.vN].jsonl[.zstd]`, else the file's name without
/// its log suffix.
fn file_id(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    if (name.starts_with("session.") || name == "session")
        && let Some(dir) = path
            .parent()
            .and_then(Path::file_name)
            .and_then(|d| d.to_str())
        && !dir.is_empty()
    {
        return Some(dir.to_owned());
    }
    let stem = name
        .trim_end_matches(".zstd")
        .trim_end_matches(".jsonl")
        .to_owned();
    (!stem.is_empty()).then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header `line` of the log `file` rebuilt, with `time` as the first record's.
    fn rebuilt(line: &str, file: &str, time: Option<i64>) -> Rebuilt {
        rebuild(line, Path::new(file), time).expect("rebuilt")
    }

    #[test]
    fn a_cwd_that_is_null_goes_under_no_cwd() {
        let r = rebuilt(
            r#"{"type":"session","version":0,"id":"s-1","createdAt":1,"cwd":null,"delegationDepth":0}"#,
            "/x/H6.jsonl",
            Some(5),
        );
        let want = r#"{"type":"session","version":0,"id":"s-1","createdAt":1,"delegationDepth":0}"#;
        assert_eq!(r.text, want);
        assert!(r.assumed[0].contains("_no-cwd"), "{:?}", r.assumed);
    }

    #[test]
    fn a_header_cut_short_keeps_what_it_holds() {
        let r = rebuilt(
            r#"{"type":"session","version":0,"id":"s-1","#,
            "/x/H2.jsonl",
            Some(1760000000100),
        );
        let want = r#"{"type":"session","version":0,"id":"s-1","createdAt":1760000000100,"delegationDepth":0}"#;
        assert_eq!(r.text, want);
        assert!(r.why.starts_with("H2 "), "{}", r.why);
    }

    #[test]
    fn a_newer_version_is_not_rebuilt() {
        let line = r#"{"type":"session","version":5,"id":"s-1","createdAt":1,"cwd":"/a","delegationDepth":0}"#;
        assert_eq!(rebuild(line, Path::new("/x/G1.jsonl"), None), None);
    }
}
