//! Each recovered session's identity and account: the header with its new id, where it
//! goes under the root ([`crate::load::layout::session_path`]), and what of the original it holds
//! ([`NewSession`]).

use std::path::{Path, PathBuf};

use super::NewSession;
use super::assemble::Kept;
use super::branch::Recovered;
use super::edit::{Edit, MemberPath, Object};
use super::recovery::ranges;
use super::stored::{self, Stored};
use crate::json::Json;
use crate::load::Encoding;

/// The header with the new id (read once, [`Object`]), the id, and where the session goes.
pub(super) fn new_identity(
    stored: &Stored,
    suffix: &str,
    root: &Path,
    encoding: Encoding,
) -> Option<(Object, String, PathBuf)> {
    let json = Json::parse(&stored.header_text).ok()?;
    let id = json.get("id")?;
    let raw = id.raw();
    let token = format!("{}{suffix}\"", raw.strip_suffix('"')?);
    let edit = Edit::Set(MemberPath::of(&["id"]), token.clone());
    let (header, _) = Object::parse(stored.header_text.clone())?.changed(&[edit]);
    let new = Json::parse(&token).ok()?;
    let text_id = new.as_str()?.into_owned();
    let path = crate::load::layout::session_path(
        root,
        json.get("cwd"),
        new,
        stored.header.version.unwrap_or(0),
        encoding,
    );
    Some((header, text_id, path))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn new_session(
    stored: &Stored,
    id: &str,
    path: &Path,
    branch: Option<usize>,
    fork: Option<(u64, u64)>,
    r: &Recovered,
    encoding: Encoding,
) -> NewSession {
    let records: Vec<&stored::Record> = (r.candidate.kept.iter())
        .filter_map(|(i, _)| stored.record(*i))
        .collect();
    let count = |want: Kept| r.candidate.kept.iter().filter(|(_, k)| *k == want).count() as u64;
    let mut closers: Vec<String> = (r.candidate.closers.iter())
        .flat_map(|(_, c)| c.iter().cloned())
        .collect();
    closers.extend(r.closers.iter().cloned());
    NewSession {
        id: id.to_owned(),
        path: path.to_path_buf(),
        branch,
        fork,
        text: r.text.clone(),
        encoding,
        events: r.events,
        turns: records.iter().filter(|x| x.ty == "turn/start").count() as u64,
        last_time: records.iter().rev().find_map(|x| x.time),
        lines: ranges(records.iter().map(|x| x.line)),
        verbatim: count(Kept::Verbatim),
        renumbered: count(Kept::Renumbered),
        changed: count(Kept::Changed),
        closers,
        heals: r.heals.clone(),
        unhealed: r.unhealed.clone(),
        note: r.note.clone(),
        // Told where the plan is handed to the writer ([`super::publish::mark_taken`]).
        exists: false,
    }
}
