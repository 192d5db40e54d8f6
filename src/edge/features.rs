//! The frozen payload rules of the feature records: schedules, teams, tool workflows,
//! subagent model policies and the DeepSeek web search request (GENERATIONS §4).
//!
//! Learnt from `packages/session/session-format-v0-to-v1/src/payload-validation.ts`,
//! tenyi/deepseek-harness @ `77afa3438160c9b45d81277b1fa64e9edcd9416d` (S-v01P); the
//! messages are DSH's.

use crate::edge::message::content_blocks;
use crate::edge::shape::{
    Checked, Label, Lit, array, exact_keys, exact_record, literal, nonempty, one_of, optional,
    positive, record, string, value_refused,
};
use crate::json::Json;

pub fn schedule_change(data: Json<'_>, label: &Label<'_>) -> Checked {
    literal(data.get("version"), &[Lit::N(1.0)], &label.at("version"))?;
    let data_label = label.at("data");
    let operation = data.get("operation");
    if operation.is_some_and(|o| o.str_eq("create")) {
        exact_keys(
            data,
            &["version", "operation", "schedule"],
            &[],
            &data_label,
        )?;
        return schedule_record(data.get("schedule"), &label.at("schedule"));
    }
    let dispatch = operation.is_some_and(|o| o.str_eq("dispatch"));
    let accepted: &[&str] = if dispatch { &["acceptedAt"] } else { &[] };
    exact_keys(data, &["version", "operation", "id"], accepted, &data_label)?;
    one_of(operation, &["delete", "dispatch"], &label.at("operation"))?;
    schedule_id(data.get("id"), &label.at("id"))?;
    optional(data.get("acceptedAt"), |v| {
        instant(v, &label.at("acceptedAt"))
    })
}

pub fn schedule_record(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let schedule = record(value, label)?;
    let kind = schedule.get("kind");
    let is = |name: &str| kind.is_some_and(|k| k.str_eq(name));
    if is("after") {
        exact_keys(
            schedule,
            &["id", "kind", "prompt", "afterSeconds", "scheduledAt"],
            &[],
            label,
        )?;
        positive(schedule.get("afterSeconds"), &label.at("afterSeconds"))?;
    } else if is("at") {
        exact_keys(
            schedule,
            &["id", "kind", "prompt", "scheduledAt"],
            &[],
            label,
        )?;
    } else if is("every") {
        exact_keys(
            schedule,
            &["id", "kind", "prompt", "everySeconds", "scheduledAt"],
            &[],
            label,
        )?;
        if positive(schedule.get("everySeconds"), &label.at("everySeconds"))? < 300 {
            return Err(value_refused(format!(
                "{label} everySeconds must be at least 300"
            )));
        }
    } else {
        return Err(value_refused(format!("{label} has unknown schedule kind")));
    }
    schedule_id(schedule.get("id"), &label.at("id"))?;
    nonempty(schedule.get("prompt"), &label.at("prompt"))?;
    instant(schedule.get("scheduledAt"), &label.at("scheduledAt"))
}

pub fn schedule_id(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    nonempty(value, label)?;
    let text = value.and_then(Json::as_str).unwrap_or_default();
    // String.prototype.trim: JavaScript's white space and line terminators.
    let trimmed = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if trimmed != text {
        return Err(value_refused(format!(
            "{label} must not have surrounding whitespace"
        )));
    }
    Ok(())
}

/// A canonical UTC instant `YYYY-MM-DDTHH:MM:SS.mmmZ` that `Date` reads back unchanged.
pub fn instant(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let ok = value
        .and_then(Json::as_str)
        .is_some_and(|s| canonical_instant(&s));
    if ok {
        Ok(())
    } else {
        Err(value_refused(format!(
            "{label} must be a canonical UTC instant"
        )))
    }
}

pub fn canonical_instant(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 24 {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| {
        b[r.clone()]
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| s[r].parse::<u32>().unwrap_or(u32::MAX))
    };
    let shape = b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'.'
        && b[23] == b'Z';
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second), Some(_)) = (
        digits(0..4),
        digits(5..7),
        digits(8..10),
        digits(11..13),
        digits(14..16),
        digits(17..19),
        digits(20..23),
    ) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => 0,
    };
    shape
        && year != 0
        && (1..=12).contains(&month)
        && day >= 1
        && day <= days_in_month
        && hour <= 23
        && minute <= 59
        && second <= 59
}

pub fn allowed_models(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let mut seen: Vec<(String, String)> = Vec::new();
    let routes = array(value, label, |member, l| {
        let route = exact_record(Some(member), l, &["provider", "model"], &[])?;
        nonempty(route.get("provider"), &l.at("provider"))?;
        nonempty(route.get("model"), &l.at("model"))?;
        let text = |k: &str| {
            route
                .get(k)
                .and_then(Json::as_str)
                .unwrap_or_default()
                .into_owned()
        };
        let key = (text("provider"), text("model"));
        if seen.contains(&key) {
            return Err(value_refused(format!(
                "{label} repeats route {}\0{}",
                key.0, key.1
            )));
        }
        seen.push(key);
        Ok(())
    })?;
    if routes.is_empty() {
        return Err(value_refused(format!("{label} must be non-empty")));
    }
    Ok(())
}

pub fn team_selector(data: Json<'_>, label: &Label<'_>) -> Checked {
    literal(data.get("version"), &[Lit::N(1.0)], &label.at("version"))?;
    nonempty(data.get("teamId"), &label.at("teamId"))
}

pub fn team_member(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let member = exact_record(
        value,
        label,
        &["id", "name", "description", "provider", "context", "phase"],
        &["error"],
    )?;
    nonempty(member.get("id"), &label.at("id"))?;
    for key in ["name", "description", "provider"] {
        string(member.get(key), &label.at(key))?;
    }
    one_of(
        member.get("context"),
        &["fresh", "fork"],
        &label.at("context"),
    )?;
    one_of(
        member.get("phase"),
        &["provisioning", "active", "failed"],
        &label.at("phase"),
    )?;
    optional(member.get("error"), |v| string(v, &label.at("error")))
}

pub fn team_task(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let task = exact_record(
        value,
        label,
        &[
            "id",
            "revision",
            "subject",
            "description",
            "status",
            "blockedBy",
            "writeScopes",
        ],
        &["ownerId"],
    )?;
    nonempty(task.get("id"), &label.at("id"))?;
    positive(task.get("revision"), &label.at("revision"))?;
    string(task.get("subject"), &label.at("subject"))?;
    string(task.get("description"), &label.at("description"))?;
    one_of(
        task.get("status"),
        &["pending", "in_progress", "completed", "deleted"],
        &label.at("status"),
    )?;
    optional(task.get("ownerId"), |v| nonempty(v, &label.at("ownerId")))?;
    array(task.get("blockedBy"), &label.at("blockedBy"), |m, l| {
        nonempty(Some(m), l)
    })?;
    array(task.get("writeScopes"), &label.at("writeScopes"), |m, l| {
        string(Some(m), l)
    })
    .map(|_| ())
}

pub fn team_message(value: Option<Json<'_>>, label: &Label<'_>, version: u8) -> Checked {
    let message = exact_record(
        value,
        label,
        &[
            "id",
            "senderId",
            "senderName",
            "targetId",
            "delivery",
            "content",
        ],
        &[],
    )?;
    for key in ["id", "senderId", "targetId"] {
        nonempty(message.get(key), &label.at(key))?;
    }
    string(message.get("senderName"), &label.at("senderName"))?;
    one_of(
        message.get("delivery"),
        &["quiet", "wakeup"],
        &label.at("delivery"),
    )?;
    content_blocks(message.get("content"), &label.at("content"), version)
}

pub fn workflow_identity(data: Json<'_>, label: &Label<'_>) -> Checked {
    nonempty(data.get("runId"), &label.at("runId"))?;
    positive(data.get("seq"), &label.at("seq")).map(|_| ())
}

pub fn deepseek_search_body(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let body = exact_record(
        value,
        label,
        &["model", "max_tokens", "messages", "tools"],
        &[],
    )?;
    nonempty(body.get("model"), &label.at("model"))?;
    positive(body.get("max_tokens"), &label.at("max_tokens"))?;
    let messages = array(body.get("messages"), &label.at("messages"), |member, l| {
        let message = exact_record(Some(member), l, &["role", "content"], &[])?;
        one_of(message.get("role"), &["user"], &l.at("role"))?;
        let content = array(message.get("content"), &l.at("content"), |block, bl| {
            let text = exact_record(Some(block), bl, &["type", "text"], &[])?;
            one_of(text.get("type"), &["text"], &bl.at("type"))?;
            string(text.get("text"), &bl.at("text"))
        })?;
        if content.len() != 1 {
            return Err(value_refused(format!(
                "{l} content must contain one text block"
            )));
        }
        Ok(())
    })?;
    if messages.len() != 1 {
        return Err(value_refused(format!(
            "{label} messages must contain one user message"
        )));
    }
    let tools = array(body.get("tools"), &label.at("tools"), |member, l| {
        let tool = exact_record(Some(member), l, &["type", "name", "max_uses"], &[])?;
        one_of(tool.get("type"), &["web_search_20250305"], &l.at("type"))?;
        one_of(tool.get("name"), &["web_search"], &l.at("name"))?;
        positive(tool.get("max_uses"), &l.at("max_uses")).map(|_| ())
    })?;
    if tools.len() != 1 {
        return Err(value_refused(format!(
            "{label} tools must contain one web search tool"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_are_canonical() {
        assert!(canonical_instant("2026-02-28T23:59:59.000Z"));
        assert!(!canonical_instant("2026-02-29T00:00:00.000Z"));
        assert!(!canonical_instant("2026-02-28T24:00:00.000Z"));
        assert!(!canonical_instant("2026-02-28T23:59:59Z"));
    }
}
