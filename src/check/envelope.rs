//! The envelope and the request header (FORMAT.md §1.3 E0–E6, §2.5 R1–R4), and what the
//! closer scan and the unknown-type stage ask of an event (E8, U1).

use crate::check::{Broken, Logical, shown};
use crate::event::{CLOSER_SCAN_TYPES, Dialect};
use crate::json::{Json, Kind};
use crate::rules::Rule;

/// R1–R3 on a `request/header` (FORMAT.md §2.5); R4 is checked in the per-event stage.
///
/// # Errors
/// The first of R1–R3 broken.
pub fn check_request_header(data: Option<Json<'_>>) -> Result<(), Broken> {
    let header = data.and_then(|d| d.get("header")).filter(|h| h.is_object());
    let config = header
        .and_then(|h| h.get("config"))
        .filter(|c| c.is_object());
    let named = |key| {
        config
            .and_then(|c| c.get(key))
            .is_some_and(Json::is_nonempty_string)
    };
    let (Some(header), Some(config), true, true) =
        (header, config, named("provider"), named("model"))
    else {
        return Err((
            Rule::R1,
            "request/header needs data.header.config with non-empty provider and model".into(),
        ));
    };
    if let Some(effort) = config.get("reasoningEffort")
        && !effort.is_nonempty_string()
    {
        return Err((
            Rule::R2,
            format!(
                "config.reasoningEffort must be a non-empty string, found {}",
                effort.raw()
            ),
        ));
    }
    if let Some(defaults) = header.get("adapterDefaults") {
        let problem = if !defaults.is_object() {
            Some(format!(
                "must be an object, found {}",
                shown(Some(defaults))
            ))
        } else {
            defaults.members().find_map(|(k, v)| {
                let key = k.as_str().unwrap_or_default();
                if !["reasoningEffort", "maxTokens"].contains(&key.as_ref()) {
                    Some(format!("unexpected key {}", k.raw()))
                } else if v.as_bool() != Some(true) {
                    Some(format!("{} must be true, found {}", k.raw(), v.raw()))
                } else if !config.has(&key) {
                    Some(format!("{} is marked but config.{key} is absent", k.raw()))
                } else {
                    None
                }
            })
        };
        if let Some(problem) = problem {
            return Err((Rule::R3, format!("header.adapterDefaults {problem}")));
        }
    }
    Ok(())
}

/// True when a `request/header`'s `data.reason` is the retired `"fallback"` (R4, L3).
pub fn is_fallback_reason(data: Option<Json<'_>>) -> bool {
    data.and_then(|d| d.get("reason"))
        .is_some_and(|r| r.str_eq("fallback"))
}

/// E0–E6 on the stored envelope (FORMAT.md §1.3).
///
/// # Errors
/// The first of E0–E6 broken.
pub fn check_envelope(logical: &Logical<'_>) -> Result<(), Broken> {
    let ev = &logical.ev;
    if logical.type_str() == "request/header-delta" {
        return Err((
            Rule::E0,
            "legacy request/header-delta format is unsupported".into(),
        ));
    }
    if let Some(key) = ev.extra_key {
        return Err((
            Rule::E1,
            format!("invalid event envelope: unexpected key {}", key.raw()),
        ));
    }
    // E2–E4: a member of the wrong kind; the message shows what was found.
    let wrong = |rule: Rule, must: &str, found: Option<Json<'_>>| {
        let found = shown(found);
        Err((
            rule,
            format!("invalid event envelope: {must}, found {found}"),
        ))
    };
    if !ev.ty.is_some_and(|t| t.kind() == Kind::String) {
        return wrong(Rule::E2, "type must be a string", ev.ty);
    }
    if ev.seq_value().is_none() {
        return wrong(Rule::E3, "seq must be a non-negative safe integer", ev.seq);
    }
    if ev.time_value().is_none() {
        return wrong(Rule::E4, "time must be a safe integer", ev.time);
    }
    if ev.data.is_none() {
        return Err((Rule::E5, "invalid event envelope: data key missing".into()));
    }
    if let Some(ig) = ev.ignorable
        && ig.as_bool() != Some(true)
    {
        return Err((
            Rule::E6,
            format!(
                "invalid event envelope: ignorable must be true when present, found {}",
                ig.raw()
            ),
        ));
    }
    Ok(())
}

/// E8: the closer scan dereferences `data` of `turn/start`, `step/start` and `tool/call`.
pub fn breaks_closer_scan(logical: &Logical<'_>) -> bool {
    CLOSER_SCAN_TYPES.contains(&logical.type_str()) && logical.data().is_none_or(Json::is_null)
}

/// U1: an unknown type without `ignorable: true` (FORMAT.md §2.2). Non-string types are
/// unknown too.
pub fn is_unknown_required(logical: &Logical<'_>, dialect: &Dialect) -> bool {
    let known = logical.ev.ty.is_some_and(|t| t.kind() == Kind::String)
        && dialect.is_known_type(logical.type_str());
    let alpha = || {
        dialect.generation == 0
            && dialect.v0_alpha
            && crate::event::V0_ALPHA_TYPES.contains(&logical.type_str())
    };
    !(known || logical.ev.is_ignorable() || alpha())
}
