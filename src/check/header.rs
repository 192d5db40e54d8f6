//! Header checks that need the whole header or the file's place (FORMAT.md §6.3 H6, H7;
//! GENERATIONS.md §5, §6, §7 for the later generations' headers).

use std::path::Path;

use crate::check;
use crate::event::Era;
use crate::json::{Json, Kind};

/// The header keys of v1 (v0's) and v2–v4 (GENERATIONS §4, §5): exact sets, `isSeeded` a
/// boolean from v2 on, `seedLength` retired.
pub(crate) fn later_header_problem(json: Json<'_>, era: Era) -> Option<String> {
    let keys: &[&str] = match era {
        Era::V1 => &[
            "type",
            "version",
            "id",
            "createdAt",
            "delegationDepth",
            "cwd",
            "parentSession",
            "seedLength",
            "origin",
            "agentPreset",
        ],
        Era::V2 | Era::V3 | Era::V4 => &[
            "type",
            "version",
            "id",
            "createdAt",
            "isSeeded",
            "delegationDepth",
            "cwd",
            "parentSession",
            "origin",
            "agentPreset",
        ],
        _ => return None,
    };
    if era != Era::V1 {
        if json.has("seedLength") {
            return Some(
                "seedLength is retired from v2 on (the inherited cut is a tagged session/end-seed)"
                    .into(),
            );
        }
        if json.get("isSeeded").and_then(Json::as_bool).is_none() {
            return Some(format!(
                "isSeeded must be a boolean, found {}",
                check::shown(json.get("isSeeded"))
            ));
        }
    }
    json.keys()
        .into_iter()
        .find(|k| !keys.iter().any(|want| k.str_eq(want)))
        .map(|k| {
            format!(
                "unexpected header key {} in a {} header",
                k.raw(),
                era.name()
            )
        })
}

/// H7 (§6.3): `cwd` absolute string (on either platform: [`crate::load::layout::is_absolute_cwd`]),
/// `parentSession` string, `seedLength` non-negative.
pub(crate) fn header_fields_problem(json: Json<'_>) -> Option<String> {
    if let Some(cwd) = json.get("cwd")
        && !cwd
            .as_str()
            .is_some_and(|c| crate::load::layout::is_absolute_cwd(&c))
    {
        return Some(format!(
            "header cwd must be an absolute path string, found {}",
            check::shown(Some(cwd))
        ));
    }
    if let Some(parent) = json.get("parentSession")
        && parent.kind() != Kind::String
    {
        return Some(format!(
            "header parentSession must be a string, found {}",
            check::shown(Some(parent))
        ));
    }
    if let Some(seed) = json.get("seedLength")
        && seed.as_seq().is_none()
    {
        return Some(format!(
            "header seedLength must be a non-negative safe integer, found {}",
            check::shown(Some(seed))
        ));
    }
    None
}

/// When `path` sits in a DSH store layout (`<root>/<project>/<session>/session.jsonl[.zstd]`
/// with a `--…--` or `_no-cwd` project directory), the project and session directory
/// names the header implies (§7.1) must match. A loose file is not checked.
pub(crate) fn store_layout_mismatch(
    path: &Path,
    id: &[u16],
    cwd: Option<&[u16]>,
) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    if !crate::load::layout::is_session_file_name(name) {
        return None;
    }
    let session_dir = path.parent()?;
    let project_dir = session_dir.parent()?;
    let project = project_dir.file_name()?.to_str()?;
    let in_store = project == "_no-cwd"
        || (project.len() >= 4 && project.starts_with("--") && project.ends_with("--"));
    if !in_store {
        return None;
    }
    let want_session = crate::load::layout::encode_segment_units(id);
    let want_project = cwd.map_or_else(
        || "_no-cwd".to_owned(),
        crate::load::layout::project_key_units,
    );
    let session = session_dir.file_name()?.to_str()?;
    if session != want_session || project != want_project {
        return Some(format!(
            "header id and cwd name {want_project}/{want_session}/{name}, but the file is {project}/{session}/{name}"
        ));
    }
    None
}
