//! Header checks that need the whole header or the file's place (FORMAT.md §6.3 H6, H7;
//! GENERATIONS.md §5, §6, §7 for the later generations' headers).

use crate::check;
use crate::event::Era;
use crate::header::{Header, Lineage};
use crate::json::{Json, Kind};
use crate::load::layout::InRoot;
use crate::rules::Rule;

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

/// When the log sits in a DSH root (`in_root`), the project and session directory names
/// the header implies (§7.1) must be where it is. A loose file is not checked.
fn store_layout_mismatch(in_root: &InRoot, id: &[u16], cwd: Option<&[u16]>) -> Option<String> {
    let want_session = crate::load::layout::encode_segment_units(id);
    let want_project = cwd.map_or_else(
        || "_no-cwd".to_owned(),
        crate::load::layout::project_key_units,
    );
    let InRoot {
        project,
        session,
        name,
    } = in_root;
    if *session != want_session || *project != want_project {
        return Some(format!(
            "header id and cwd name {want_project}/{want_session}/{name}, but the file is {project}/{session}/{name}"
        ));
    }
    None
}

/// What the header line says (FORMAT.md §6.2, §6.3; GENERATIONS.md §1, §5–§7).
#[derive(Debug)]
pub struct HeaderCheck {
    /// The header's fields, when the line is JSON.
    pub header: Option<Header>,
    /// The header id as stored inside its quotes (for legacy message ids, §9.3.1).
    pub id_body: String,
    /// The era the header belongs to, or the finding that stops the load: H2, H3, G1,
    /// G2, H4, G8 or H5, in HEAD's order.
    pub verdict: Result<Era, (Rule, String)>,
    /// H7's finding, checked later, at P7 (§6.5).
    pub h7: Option<String>,
}

/// Checks the header line `text` of a log whose file name stands for generation `named`
/// (G2; [`crate::load::layout::LogPlace`]): the version gate first (§6.2), then the
/// header's shape for its era (H4, G8), the retired fields (H5), and H7 for later.
pub fn check_header(text: &str, named: Option<u64>) -> HeaderCheck {
    let json = match Json::parse(text) {
        Ok(j) => j,
        Err(e) => {
            return HeaderCheck {
                header: None,
                id_body: String::new(),
                verdict: Err((Rule::H2, format!("header line is not valid JSON: {e}"))),
                h7: None,
            };
        }
    };
    // Another harness's file under a DSH name: one verdict, and no DSH version read out of
    // a header that is not DSH's.
    if let Some(foreign) = crate::check::foreign::recognise(json) {
        return HeaderCheck {
            header: None,
            id_body: String::new(),
            verdict: Err((Rule::X1, foreign.message())),
            h7: None,
        };
    }
    let get = |k| json.get(k);
    let header = Header {
        raw: text.to_string(),
        id: get("id")
            .map(|v| {
                v.as_str()
                    .map_or_else(|| v.raw().to_owned(), |s| s.into_owned())
            })
            .unwrap_or_default(),
        version: get("version").and_then(Json::as_safe_integer),
        created_at: get("createdAt").and_then(Json::as_safe_integer),
        cwd: get("cwd").and_then(Json::as_str).map(|s| s.into_owned()),
        lineage: Lineage {
            parent_session: get("parentSession")
                .and_then(Json::as_str)
                .map(|s| s.into_owned()),
            seed_length: get("seedLength").and_then(Json::as_safe_integer),
            origin: get("origin").and_then(Json::as_str).map(|s| s.into_owned()),
            delegation_depth: get("delegationDepth").and_then(Json::as_safe_integer),
        },
        agent_preset: get("agentPreset")
            .and_then(Json::as_str)
            .map(|s| s.into_owned()),
    };
    let id_body = get("id")
        .and_then(Json::raw_str_body)
        .unwrap_or_default()
        .to_owned();
    let stop = |header: Header, rule: Rule, message: String| HeaderCheck {
        header: Some(header),
        id_body: id_body.clone(),
        verdict: Err((rule, message)),
        h7: None,
    };
    // The version gate runs on the parsed line before any shape check (§6.2): a version
    // this build cannot read is refused first; a readable one must match the file name's
    // generation (GENERATIONS §1.1, §1.3).
    let version = json
        .is_object()
        .then(|| get("version").and_then(Json::as_f64))
        .flatten();
    let later = version
        .filter(|v| v.fract() == 0.0)
        .and_then(|v| Era::of_version(v as i64));
    if let Some(version) = version
        && version != 0.0
        && later.is_none()
    {
        let shown = get("version").map_or("?", Json::raw);
        // Above v4: a lineage this build does not know (G1); below v0: none at all (H3).
        let (rule, what) = if version > 0.0 {
            (
                Rule::G1,
                ": an unknown or newer lineage (this build reads v0 to v4; versions above 4 exist only in forks); upgrade the harness or the reader",
            )
        } else {
            (
                Rule::H3,
                "; the version is older than v0 and this build has no upgrade path",
            )
        };
        let id = header.id.clone();
        return stop(
            header,
            rule,
            format!("session \"{id}\" uses log format v{shown}{what}"),
        );
    }
    if let (Some(version), Some(named)) = (version, named)
        && version != named as f64
    {
        let shown = get("version").map_or("?", Json::raw);
        return stop(
            header,
            Rule::G2,
            format!("file name says format v{named} but the header says version {shown}"),
        );
    }
    let era = if let Some(later) = later {
        later
    } else if json.is_object()
        && !json.has("delegationDepth")
        && !json.has("origin")
        && !json.has("agentPreset")
    {
        Era::June2026
    } else {
        Era::Head
    };
    let safe_nonneg = |k| get(k).is_some_and(|v| v.as_seq().is_some() && !v.is_negative_zero());
    let shape = if !json.is_object() {
        Some(format!("expected an object, found {}", json.kind().name()))
    } else if !get("type").is_some_and(|t| t.str_eq("session")) {
        Some(format!(
            "type must be \"session\", found {}",
            check::shown(get("type"))
        ))
    } else if !get("version").is_some_and(|v| v.kind() == Kind::Number) {
        Some(format!(
            "version must be a number, found {}",
            check::shown(get("version"))
        ))
    } else if !get("id").is_some_and(|v| v.kind() == Kind::String) {
        Some(format!(
            "id must be a string, found {}",
            check::shown(get("id"))
        ))
    } else if era == Era::June2026 {
        (!get("createdAt").is_some_and(|v| v.kind() == Kind::Number)).then(|| {
            format!(
                "createdAt must be a number, found {}",
                check::shown(get("createdAt"))
            )
        })
    } else if !safe_nonneg("createdAt") {
        Some(format!(
            "createdAt must be a non-negative safe integer, found {}",
            check::shown(get("createdAt"))
        ))
    } else if !safe_nonneg("delegationDepth") {
        Some(format!(
            "delegationDepth must be a non-negative safe integer, found {}",
            check::shown(get("delegationDepth"))
        ))
    } else if get("origin").is_some_and(|o| !o.str_eq("subagent")) {
        Some(format!(
            "origin must be \"subagent\" when present, found {}",
            check::shown(get("origin"))
        ))
    } else if get("agentPreset").is_some_and(|p| p.kind() != Kind::String) {
        Some(format!(
            "agentPreset must be a string when present, found {}",
            check::shown(get("agentPreset"))
        ))
    } else {
        later_header_problem(json, era)
    };
    if let Some(what) = shape {
        if what.starts_with("isSeeded") || what.starts_with("seedLength") {
            return stop(
                header,
                Rule::G8,
                format!("first line is not a {} session header: {what}", era.name()),
            );
        }
        return stop(
            header,
            Rule::H4,
            format!("first line is not a session header: {what}"),
        );
    }
    if era == Era::Head {
        for retired in ["sandboxMode", "approvalPolicy"] {
            if json.has(retired) {
                return stop(
                    header,
                    Rule::H5,
                    format!("header carries the retired policy field {retired}"),
                );
            }
        }
    }
    // H7 is checked at P7, before the first event (§6.5).
    let h7 = (era != Era::June2026)
        .then(|| header_fields_problem(json))
        .flatten();
    HeaderCheck {
        header: Some(header),
        id_body,
        verdict: Ok(era),
        h7,
    }
}

/// G8 (v2+, GENERATIONS §5): the header's `isSeeded` must agree with whether a
/// `session/end-seed {inherited: true}` marks the inherited cut (`tagged`). The problem, if
/// any, in one line.
pub fn seeded_cut_problem(header: &Header, tagged: bool) -> Option<&'static str> {
    let seeded = Json::parse(&header.raw)
        .ok()
        .and_then(|h| h.get("isSeeded"))
        .and_then(Json::as_bool);
    match (seeded, tagged) {
        (Some(true), false) => Some(
            "the header says isSeeded but no session/end-seed {inherited: true} marks the inherited cut",
        ),
        (Some(false), true) => Some(
            "a session/end-seed {inherited: true} marks an inherited cut but the header says isSeeded: false",
        ),
        _ => None,
    }
}

/// H6 (§6.3, §7.1): a path must be derivable from the header's `id` and `cwd`, and when the
/// log sits in a DSH root (`in_root`) it must be that path. The problem, if any, in one line.
pub fn store_path_problem(header: &Header, in_root: Option<&InRoot>) -> Option<String> {
    let json = Json::parse(&header.raw).ok()?;
    let cwd = json.get("cwd");
    if header.id.is_empty() {
        return Some("header id cannot name a storage path: id is empty".to_owned());
    }
    if cwd.is_some_and(|c| c.is_null() || c.str_eq("")) {
        return Some(format!(
            "header id cannot name a storage path: cwd is {}",
            cwd.map_or("", Json::raw)
        ));
    }
    let id_units: Vec<u16> = json
        .get("id")
        .map(|i| i.code_units().collect())
        .unwrap_or_default();
    let cwd_units: Option<Vec<u16>> = cwd
        .filter(|c| c.kind() == Kind::String)
        .map(|c| c.code_units().collect());
    store_layout_mismatch(in_root?, &id_units, cwd_units.as_deref())
}
