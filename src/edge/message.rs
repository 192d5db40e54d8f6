//! The frozen rules for what events carry inside their payload: messages, content blocks,
//! message sources, stream chunks, token usage, LLM failures and goal changes
//! (GENERATIONS §4: "exact payload members per event type").
//!
//! Learnt from the nested validators of
//! `packages/session/session-format-v0-to-v1/src/payload-validation.ts`,
//! tenyi/deepseek-harness @ `77afa3438160c9b45d81277b1fa64e9edcd9416d` (S-v01P); the
//! messages are DSH's. `version` is the payload generation the edge validates against (0
//! at the v0→v1 edge, 1 for a decoded v1 log, 2 at the v2→v3 edge).

use crate::edge::shape::{
    Checked, Label, Lit, array, boolean, count, exact_fields, exact_keys, exact_record, finite,
    js_stringify, literal, members, nonempty, one_of, optional, positive, record, safe_integer,
    string, value_refused,
};
use crate::json::{Fields, Json, Kind};

/// The role a message must have where DSH reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A user message (`user/message`, an inbox insert).
    User,
    /// An assistant message.
    Assistant,
    /// A tool result: a user-role message wrapping one `tool-result` block.
    Tool,
}

/// `messageValue`: exactly `{id, role, content, source}`, with the role, content and
/// source rules of the place it is read in (`expected`; `None` admits system, user and
/// assistant messages, as in a title request).
pub fn message(
    value: Option<Json<'_>>,
    label: &Label<'_>,
    version: u8,
    expected: Option<Expect>,
) -> Checked {
    // The message's members, read in one pass.
    message_of(&Fields::of(value), label, version, expected)
}

/// [`message`] of the value whose fixed record `fields` is (made once for the event, so
/// that the message is not walked again).
pub fn message_of(
    fields: &Fields<'_>,
    label: &Label<'_>,
    version: u8,
    expected: Option<Expect>,
) -> Checked {
    let message = record(fields.value(), label)?;
    // The exact members, checked from the record.
    exact_fields(
        message,
        fields,
        members!["id", "role", "content", "source"],
        members![],
        label,
    )?;
    nonempty(fields.get("id"), &label.at("id"))?;
    let role_label = label.at("role");
    match expected {
        Some(Expect::Assistant) => one_of(fields.get("role"), &["assistant"], &role_label)?,
        Some(Expect::User | Expect::Tool) => one_of(fields.get("role"), &["user"], &role_label)?,
        None => one_of(
            fields.get("role"),
            &["system", "user", "assistant"],
            &role_label,
        )?,
    }
    content_blocks(fields.get("content"), &label.at("content"), version)?;
    let source_label = label.at("source");
    let source = record(fields.get("source"), &source_label)?;
    let kind = source.get("kind");
    if version < 2
        && expected == Some(Expect::User)
        && kind.is_some_and(|k| k.str_eq("goal"))
        && source.has("change")
    {
        legacy_goal_message(message, source, label)?;
    } else {
        message_source(source, &source_label, version, expected)?;
    }
    if expected == Some(Expect::Tool) {
        let content = fields.get("content").filter(|c| c.is_array());
        let block = match content {
            Some(c) if c.len() == 1 => Some(record(c.elements().next(), &label.at("tool result"))?),
            _ => None,
        };
        let wraps = block.is_some_and(|b| {
            b.get("type").is_some_and(|t| t.str_eq("tool-result"))
                && js_equal(b.get("toolCallId"), source.get("callId"))
        });
        if !wraps {
            return Err(value_refused(format!(
                "{label} must contain exactly one tool-result block"
            )));
        }
    }
    Ok(())
}

/// JavaScript's `===` on two optional JSON scalars (`undefined === undefined`).
pub fn js_equal(a: Option<Json<'_>>, b: Option<Json<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => match (a.kind(), b.kind()) {
            (Kind::String, Kind::String) => a.same_string(b),
            (Kind::Number, Kind::Number) => a.as_f64() == b.as_f64(),
            (Kind::Bool, Kind::Bool) | (Kind::Null, Kind::Null) => a.raw() == b.raw(),
            _ => false,
        },
        _ => false,
    }
}

/// `contentBlocksValue`.
pub fn content_blocks(value: Option<Json<'_>>, label: &Label<'_>, version: u8) -> Checked {
    array(value, label, |member, member_label| {
        content_block(member, member_label, version)
    })
    .map(|_| ())
}

/// `contentBlockValue`: the known kinds exactly, any other kind by a non-empty `type`.
pub fn content_block(value: Json<'_>, label: &Label<'_>, version: u8) -> Checked {
    let object = record(Some(value), label)?;
    // The block's members, read in one pass.
    let block = Fields::of(Some(object));
    let ty = block.get("type");
    // One decode of the tag, then plain comparisons (the hot path of a long log).
    let tag = ty.and_then(Json::as_str);
    let is = |name: &str| tag.as_deref() == Some(name);
    if is("text") || is("reasoning") {
        exact_fields(object, &block, members!["type", "text"], members![], label)?;
        string(block.get("text"), &label.at("text"))
    } else if is("image") {
        exact_fields(
            object,
            &block,
            members!["type", "attachment"],
            members![],
            label,
        )?;
        image_attachment(block.get("attachment"), &label.at("attachment"))
    } else if is("tool-call") {
        exact_fields(
            object,
            &block,
            members!["type", "id", "name", "arguments"],
            members![],
            label,
        )?;
        nonempty(block.get("id"), &label.at("id"))?;
        nonempty(block.get("name"), &label.at("name"))?;
        string(block.get("arguments"), &label.at("arguments"))
    } else if is("tool-result") {
        exact_fields(
            object,
            &block,
            members!["type", "toolCallId", "content"],
            members!["isError"],
            label,
        )?;
        nonempty(block.get("toolCallId"), &label.at("toolCallId"))?;
        content_blocks(block.get("content"), &label.at("content"), version)?;
        optional(block.get("isError"), |v| boolean(v, &label.at("isError")))
    } else {
        nonempty(ty, &label.at("type"))
    }
}

fn image_attachment(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let attachment = exact_record(
        value,
        label,
        &["attachmentId", "mediaType", "bytes", "width", "height"],
        &["name", "originalDimensions"],
    )?;
    nonempty(attachment.get("attachmentId"), &label.at("attachmentId"))?;
    one_of(
        attachment.get("mediaType"),
        &["image/png", "image/jpeg", "image/webp", "image/gif"],
        &label.at("mediaType"),
    )?;
    count(attachment.get("bytes"), &label.at("bytes"))?;
    positive(attachment.get("width"), &label.at("width"))?;
    positive(attachment.get("height"), &label.at("height"))?;
    optional(attachment.get("name"), |v| string(v, &label.at("name")))?;
    optional(attachment.get("originalDimensions"), |v| {
        let dimensions = exact_record(
            v,
            &label.at("originalDimensions"),
            &["width", "height"],
            &[],
        )?;
        positive(dimensions.get("width"), &label.at("original width"))?;
        positive(dimensions.get("height"), &label.at("original height"))?;
        Ok(())
    })
}

/// `messageSourceValue`: the source of a message, by kind.
pub fn message_source(
    source: Json<'_>,
    label: &Label<'_>,
    version: u8,
    expected: Option<Expect>,
) -> Checked {
    // The source's members, read in one pass.
    let fields = Fields::of(Some(source));
    let kind = fields.get("kind");
    let tag = kind.and_then(Json::as_str);
    let is = |name: &str| tag.as_deref() == Some(name);
    if expected == Some(Expect::Assistant) && !is("model") {
        return Err(value_refused(format!("{label} must be model source")));
    }
    if expected == Some(Expect::Tool) && !is("tool") {
        return Err(value_refused(format!("{label} must be tool source")));
    }
    let field = |name: &'static str| fields.get(name);
    if is("user") {
        exact_fields(
            source,
            &fields,
            members!["kind"],
            members!["rpcId", "clientTimeZone"],
            label,
        )?;
        optional(field("rpcId"), |v| nonempty(v, &label.at("rpcId")))?;
        optional(field("clientTimeZone"), |v| {
            nonempty(v, &label.at("clientTimeZone"))
        })
    } else if is("plugin") {
        plugin_source(source, label)
    } else if is("model") {
        exact_fields(
            source,
            &fields,
            members!["kind", "provider", "model"],
            members!["replayState"],
            label,
        )?;
        nonempty(field("provider"), &label.at("provider"))?;
        nonempty(field("model"), &label.at("model"))
    } else if is("tool") {
        exact_fields(
            source,
            &fields,
            members!["kind", "callId"],
            members![],
            label,
        )?;
        nonempty(field("callId"), &label.at("callId"))
    } else if is("agent-instructions") {
        exact_fields(
            source,
            &fields,
            members!["kind", "form", "changes"],
            members!["baseline", "baselineIdentity"],
            label,
        )?;
        one_of(field("form"), &["instructions"], &label.at("form"))?;
        optional(field("baseline"), |v| {
            literal(v, &[Lit::True], &label.at("baseline"))
        })?;
        optional(field("baselineIdentity"), |v| {
            nonempty(v, &label.at("baselineIdentity"))
        })?;
        array(
            field("changes"),
            &label.at("changes"),
            |member, member_label| {
                let change = exact_record(
                    Some(member),
                    member_label,
                    &["action", "scope", "path"],
                    &["digest"],
                )?;
                one_of(
                    change.get("action"),
                    &["set", "replace", "remove"],
                    &member_label.at("action"),
                )?;
                string(change.get("scope"), &member_label.at("scope"))?;
                string(change.get("path"), &member_label.at("path"))?;
                optional(change.get("digest"), |v| {
                    string(v, &member_label.at("digest"))
                })
            },
        )
        .map(|_| ())
    } else if is("session-reference") {
        session_reference_source(source, label, version)
    } else if is("team-message") {
        exact_fields(
            source,
            &fields,
            members!["kind", "teamId", "messageId", "senderId", "senderName"],
            members![],
            label,
        )?;
        for key in ["teamId", "messageId", "senderId"] {
            nonempty(field(key), &label.at(key))?;
        }
        string(field("senderName"), &label.at("senderName"))
    } else if is("goal") {
        exact_fields(
            source,
            &fields,
            members!["kind", "goalId", "revision", "round"],
            members![],
            label,
        )?;
        nonempty(field("goalId"), &label.at("goalId"))?;
        positive(field("revision"), &label.at("revision"))?;
        positive(field("round"), &label.at("round")).map(|_| ())
    } else if is("skill-invocation") {
        exact_fields(
            source,
            &fields,
            members!["kind", "name", "form"],
            members![],
            label,
        )?;
        nonempty(field("name"), &label.at("name"))?;
        one_of(field("form"), &["instructions"], &label.at("form"))
    } else if is("skill-catalog") {
        exact_fields(
            source,
            &fields,
            members!["kind", "form", "entries"],
            members!["update"],
            label,
        )?;
        one_of(field("form"), &["catalog"], &label.at("form"))?;
        optional(field("update"), |v| {
            literal(v, &[Lit::True], &label.at("update"))
        })?;
        array(
            field("entries"),
            &label.at("entries"),
            |member, member_label| {
                let entry =
                    exact_record(Some(member), member_label, &["name", "description"], &[])?;
                nonempty(entry.get("name"), &member_label.at("name"))?;
                string(entry.get("description"), &member_label.at("description"))
            },
        )
        .map(|_| ())
    } else if is("coordinator") || is("subagent-report") {
        exact_fields(
            source,
            &fields,
            members!["kind", "form", "senderSessionId"],
            members![],
            label,
        )?;
        one_of(field("form"), &["relay"], &label.at("form"))?;
        nonempty(field("senderSessionId"), &label.at("senderSessionId"))
    } else if is("subagent-settled") {
        exact_fields(
            source,
            &fields,
            members!["kind", "form", "summary", "senderSessionId"],
            members![],
            label,
        )?;
        one_of(field("form"), &["notice"], &label.at("form"))?;
        string(field("summary"), &label.at("summary"))?;
        nonempty(field("senderSessionId"), &label.at("senderSessionId"))
    } else if is("webhook") {
        exact_fields(
            source,
            &fields,
            members![
                "kind",
                "provider",
                "source",
                "deliveryId",
                "ruleId",
                "form",
                "summary",
            ],
            members![],
            label,
        )?;
        for key in ["provider", "source", "deliveryId", "ruleId"] {
            nonempty(field(key), &label.at(key))?;
        }
        one_of(field("form"), &["notice"], &label.at("form"))?;
        string(field("summary"), &label.at("summary"))
    } else {
        nonempty(kind, &label.at("kind"))
    }
}

/// `pluginSourceValue`: `{kind: "plugin", plugin}` with an optional `form` whose
/// `sections` (snapshot) and `summary` (notice) must match it; the `compact` plugin also
/// names its compaction.
fn plugin_source(source: Json<'_>, label: &Label<'_>) -> Checked {
    let plugin = source.get("plugin");
    let compact = plugin.is_some_and(|p| p.str_eq("compact"));
    let optional_members: &[&str] = if compact {
        &[
            "form",
            "sections",
            "summary",
            "compactionId",
            "sourceCommandId",
        ]
    } else {
        &["form", "sections", "summary"]
    };
    exact_keys(source, &["kind", "plugin"], optional_members, label)?;
    nonempty(plugin, &label.at("plugin"))?;
    if compact {
        nonempty(source.get("compactionId"), &label.at("compactionId"))?;
        optional(source.get("sourceCommandId"), |v| {
            nonempty(v, &label.at("sourceCommandId"))
        })?;
    }
    let Some(form) = source.get("form") else {
        return Ok(());
    };
    one_of(
        Some(form),
        &[
            "instructions",
            "catalog",
            "snapshot",
            "notice",
            "relay",
            "recall",
        ],
        &label.at("form"),
    )?;
    if form.str_eq("snapshot") {
        array(
            source.get("sections"),
            &label.at("sections"),
            |member, member_label| {
                let section = exact_record(Some(member), member_label, &["name", "text"], &[])?;
                nonempty(section.get("name"), &member_label.at("name"))?;
                string(section.get("text"), &member_label.at("text"))
            },
        )?;
    } else if source.has("sections") {
        return Err(value_refused(format!(
            "{label} sections require snapshot form"
        )));
    }
    if form.str_eq("notice") {
        string(source.get("summary"), &label.at("summary"))
    } else if source.has("summary") {
        Err(value_refused(format!(
            "{label} summary requires notice form"
        )))
    } else {
        Ok(())
    }
}

fn session_reference_source(source: Json<'_>, label: &Label<'_>, version: u8) -> Checked {
    exact_keys(
        source,
        &["kind", "form", "version", "references"],
        &[],
        label,
    )?;
    one_of(source.get("form"), &["recall"], &label.at("form"))?;
    literal(source.get("version"), &[Lit::N(1.0)], &label.at("version"))?;
    let mut expected_index = 0u64;
    let mut session_ids: Vec<String> = Vec::new();
    let references_label = label.at("references");
    let references = array(source.get("references"), &references_label, |member, l| {
        let captured: &[&str] = if version >= 1 {
            &["capturedFormatVersion"]
        } else {
            &[]
        };
        let reference = exact_record(
            Some(member),
            l,
            &[
                "sessionId",
                "label",
                "capturedThroughSeq",
                "compacted",
                "originalMessages",
                "retainedMessages",
                "omittedMessages",
                "omittedBytes",
                "truncated",
                "inputIndex",
            ],
            captured,
        )?;
        let get = |k: &str| reference.get(k);
        nonempty(get("sessionId"), &l.at("sessionId"))?;
        string(get("label"), &l.at("label"))?;
        if !get("capturedThroughSeq").is_some_and(Json::is_null) {
            count(get("capturedThroughSeq"), &l.at("capturedThroughSeq"))?;
        }
        if let Some(v) = get("capturedFormatVersion") {
            let captured = count(Some(v), &l.at("capturedFormatVersion"))?;
            if captured < 1 || captured > u64::from(version) {
                return Err(value_refused(format!(
                    "{l} capturedFormatVersion must be between 1 and {version}"
                )));
            }
        }
        boolean(get("compacted"), &l.at("compacted"))?;
        let original = count(get("originalMessages"), &l.at("originalMessages"))?;
        let retained = count(get("retainedMessages"), &l.at("retainedMessages"))?;
        let omitted = count(get("omittedMessages"), &l.at("omittedMessages"))?;
        let omitted_bytes = count(get("omittedBytes"), &l.at("omittedBytes"))?;
        let input_index = count(get("inputIndex"), &l.at("inputIndex"))?;
        boolean(get("truncated"), &l.at("truncated"))?;
        let truncated = get("truncated").and_then(Json::as_bool) == Some(true);
        if retained > original || omitted != original - retained {
            return Err(value_refused(format!(
                "{l} message counts are inconsistent"
            )));
        }
        if truncated != (omitted > 0 || omitted_bytes > 0) {
            return Err(value_refused(format!(
                "{l} truncated disagrees with omitted content"
            )));
        }
        if input_index != expected_index {
            return Err(value_refused(format!(
                "{label} inputIndex must match reference position"
            )));
        }
        expected_index += 1;
        let id = get("sessionId")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .into_owned();
        if session_ids.contains(&id) {
            return Err(value_refused(format!("{label} repeats sessionId {id}")));
        }
        session_ids.push(id);
        Ok(())
    })?;
    if references.is_empty() {
        return Err(value_refused(format!(
            "{label} references must be non-empty"
        )));
    }
    Ok(())
}

/// `legacyGoalMessageValue`: a pre-v2 goal message carries its change, and its text is
/// exactly the `<goal_state>` the change implies.
fn legacy_goal_message(message: Json<'_>, source: Json<'_>, label: &Label<'_>) -> Checked {
    let source_label = label.at("source");
    exact_keys(
        source,
        &["kind", "goalId", "revision", "round", "change"],
        &[],
        &source_label,
    )?;
    nonempty(source.get("goalId"), &source_label.at("goalId"))?;
    positive(source.get("revision"), &source_label.at("revision"))?;
    if !source
        .get("round")
        .is_some_and(|r| r.as_f64() == Some(0.0) && r.kind() == Kind::Number)
    {
        return Err(value_refused(format!(
            "{label} legacy goal source round must be 0"
        )));
    }
    let change_label = source_label.at("change");
    let change = record(source.get("change"), &change_label)?;
    goal_change(change, &change_label)?;
    let clear = change.get("operation").is_some_and(|o| o.str_eq("clear"));
    let reference = record(
        change.get(if clear { "cleared" } else { "goal" }),
        &change_label.at("ref"),
    )?;
    if !js_equal(source.get("goalId"), reference.get("id"))
        || !js_equal(source.get("revision"), reference.get("revision"))
    {
        return Err(value_refused(format!(
            "{label} legacy goal source does not match its change"
        )));
    }
    let mut text = String::from("<goal_state>{");
    let keys: &[&str] = if clear {
        &["cleared", "clearedAt"]
    } else {
        &["goal", "roundsStarted", "createdAt", "updatedAt"]
    };
    let mut first = true;
    for key in keys {
        // JSON.stringify leaves out undefined members.
        if let Some(value) = change.get(key) {
            if !first {
                text.push(',');
            }
            first = false;
            crate::json::write_js_string(&mut text, key);
            text.push(':');
            js_stringify(value, &mut text);
        }
    }
    text.push_str("}</goal_state>");
    let content = message.get("content");
    let matches = content.is_some_and(|c| {
        c.len() == 1
            && c.elements().next().is_some_and(|b| {
                b.keys().len() == 2
                    && b.get("type").is_some_and(|t| t.str_eq("text"))
                    && b.get("text")
                        .is_some_and(|t| t.as_str().is_some_and(|s| s == text))
            })
    });
    if !matches {
        return Err(value_refused(format!(
            "{label} legacy goal content does not match its change"
        )));
    }
    Ok(())
}

/// `goalChangeValue`: a version-1 `goal/change` (also the `change` of a legacy goal
/// message).
pub fn goal_change(data: Json<'_>, label: &Label<'_>) -> Checked {
    one_of(data.get("kind"), &["goal/change"], &label.at("kind"))?;
    literal(data.get("version"), &[Lit::N(1.0)], &label.at("version"))?;
    let data_label = label.at("data");
    if data.get("operation").is_some_and(|o| o.str_eq("clear")) {
        exact_keys(
            data,
            &["kind", "version", "operation", "cleared", "clearedAt"],
            &[],
            &data_label,
        )?;
        let cleared_label = label.at("cleared");
        let cleared = exact_record(
            data.get("cleared"),
            &cleared_label,
            &["id", "revision"],
            &[],
        )?;
        nonempty(cleared.get("id"), &cleared_label.at("id"))?;
        positive(cleared.get("revision"), &cleared_label.at("revision"))?;
        return count(data.get("clearedAt"), &label.at("clearedAt")).map(|_| ());
    }
    exact_keys(
        data,
        &[
            "kind",
            "version",
            "operation",
            "goal",
            "roundsStarted",
            "createdAt",
            "updatedAt",
        ],
        &[],
        &data_label,
    )?;
    one_of(
        data.get("operation"),
        &["create", "edit", "pause", "resume", "complete", "block"],
        &label.at("operation"),
    )?;
    let goal_label = label.at("goal");
    let goal = exact_record(
        data.get("goal"),
        &goal_label,
        &["id", "revision", "objective", "phase", "maxGoalRounds"],
        &["blockedReason"],
    )?;
    nonempty(goal.get("id"), &goal_label.at("id"))?;
    positive(goal.get("revision"), &goal_label.at("revision"))?;
    nonempty(goal.get("objective"), &goal_label.at("objective"))?;
    one_of(
        goal.get("phase"),
        &["active", "paused", "blocked", "complete"],
        &goal_label.at("phase"),
    )?;
    positive(goal.get("maxGoalRounds"), &goal_label.at("maxGoalRounds"))?;
    if goal.get("phase").is_some_and(|p| p.str_eq("blocked")) {
        let reason = exact_record(
            goal.get("blockedReason"),
            &goal_label.at("blockedReason"),
            &["code", "message"],
            &[],
        )?;
        nonempty(reason.get("code"), &goal_label.at("blocked code"))?;
        nonempty(reason.get("message"), &goal_label.at("blocked message"))?;
    } else if goal.has("blockedReason") {
        return Err(value_refused(format!(
            "{goal_label} blockedReason requires blocked phase"
        )));
    }
    count(data.get("roundsStarted"), &label.at("roundsStarted"))?;
    count(data.get("createdAt"), &label.at("createdAt"))?;
    count(data.get("updatedAt"), &label.at("updatedAt")).map(|_| ())
}

/// `tokenUsageValue`.
pub fn token_usage(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let usage = exact_record(
        value,
        label,
        &["inputTokens", "outputTokens"],
        &[
            "totalTokens",
            "cacheReadTokens",
            "cacheWriteTokens",
            "reasoningTokens",
        ],
    )?;
    for (key, value) in usage.members() {
        let name = key.as_str().unwrap_or_default();
        count(Some(value), &label.at(&name))?;
    }
    Ok(())
}

/// `llmFailureValue`.
pub fn llm_failure(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let failure = exact_record(
        value,
        label,
        &["message", "code"],
        &["status", "providerRetryAfterMs", "requestId"],
    )?;
    nonempty(failure.get("message"), &label.at("message"))?;
    nonempty(failure.get("code"), &label.at("code"))?;
    if let Some(status) = failure.get("status") {
        let status = safe_integer(Some(status), &label.at("status"))?;
        if !(100..=599).contains(&status) {
            return Err(value_refused(format!(
                "{label} status must be 100 through 599"
            )));
        }
    }
    if let Some(after) = failure.get("providerRetryAfterMs")
        && finite(Some(after), &label.at("providerRetryAfterMs"))? <= 0.0
    {
        return Err(value_refused(format!(
            "{label} providerRetryAfterMs must be positive"
        )));
    }
    optional(failure.get("requestId"), |v| {
        nonempty(v, &label.at("requestId"))
    })
}

/// `streamChunkValue`: one `assistant/chunk` model chunk.
pub fn stream_chunk(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let chunk = record(value, label)?;
    let ty = chunk.get("type");
    let is = |name: &str| ty.is_some_and(|t| t.str_eq(name));
    let index = || count(chunk.get("index"), &label.at("index")).map(|_| ());
    if is("block-start") {
        exact_keys(chunk, &["type", "index", "blockType"], &[], label)?;
        index()?;
        nonempty(chunk.get("blockType"), &label.at("blockType"))
    } else if is("text-delta") || is("reasoning-delta") {
        exact_keys(chunk, &["type", "index", "text"], &[], label)?;
        index()?;
        string(chunk.get("text"), &label.at("text"))
    } else if is("tool-call-delta") {
        exact_keys(
            chunk,
            &["type", "index", "id", "argumentsDelta"],
            &["name"],
            label,
        )?;
        index()?;
        nonempty(chunk.get("id"), &label.at("id"))?;
        optional(chunk.get("name"), |v| string(v, &label.at("name")))?;
        string(chunk.get("argumentsDelta"), &label.at("argumentsDelta"))
    } else if is("block-end") {
        exact_keys(chunk, &["type", "index", "block"], &[], label)?;
        index()?;
        match chunk.get("block") {
            Some(block) => content_block(block, &label.at("block"), 1),
            None => Err(value_refused(format!(
                "{} must be a JSON object",
                label.at("block")
            ))),
        }
    } else if is("usage") {
        exact_keys(chunk, &["type", "usage"], &[], label)?;
        token_usage(chunk.get("usage"), &label.at("usage"))
    } else if is("finish") {
        exact_keys(chunk, &["type", "reason"], &["replayState"], label)?;
        finish_reason(chunk.get("reason"), &label.at("reason"))?;
        optional(chunk.get("replayState"), |v| {
            // The nested form `{response, blocks?}`; the flat one of the early alphas is
            // refused (GENERATIONS §3).
            let replay = exact_record(v, &label.at("replayState"), &["response"], &["blocks"])?;
            if replay.get("blocks").is_some_and(|b| !b.is_array()) {
                return Err(value_refused(format!(
                    "{} blocks must be an array",
                    label.at("replayState")
                )));
            }
            Ok(())
        })
    } else {
        Err(value_refused(format!(
            "{label} has unknown stream chunk type {}",
            ty.map_or_else(|| "undefined".to_owned(), |t| t.raw().to_owned())
        )))
    }
}

fn finish_reason(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let reason = record(value, label)?;
    let kind = reason.get("kind");
    let is = |name: &str| kind.is_some_and(|k| k.str_eq(name));
    if is("aborted") || is("error") {
        exact_keys(reason, &["kind", "failure"], &[], label)?;
        return llm_failure(reason.get("failure"), &label.at("failure"));
    }
    if is("stop") || is("tool-calls") || is("max-tokens") {
        exact_keys(reason, &["kind"], &[], label)?;
    }
    nonempty(kind, &label.at("kind"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: Option<Expect>) -> Result<(), String> {
        let label = Label::Event("user/message", 3);
        message(Json::parse(text).ok(), &label, 0, expected).map_err(|r| r.detail)
    }

    #[test]
    fn a_plugin_source_form_must_match_its_summary_and_sections() {
        let ok = r#"{"id":"m","role":"user","content":[],"source":{"kind":"plugin","plugin":"p","form":"notice","summary":"s"}}"#;
        assert_eq!(check(ok, Some(Expect::User)), Ok(()));
        let bad = r#"{"id":"m","role":"user","content":[],"source":{"kind":"plugin","plugin":"p","form":"snapshot","summary":"s","sections":[]}}"#;
        assert_eq!(
            check(bad, Some(Expect::User)).unwrap_err(),
            "user/message 3 source summary requires notice form"
        );
        let compact = r#"{"id":"m","role":"user","content":[],"source":{"kind":"plugin","plugin":"compact"}}"#;
        assert_eq!(
            check(compact, Some(Expect::User)).unwrap_err(),
            "user/message 3 source compactionId must be a non-empty string"
        );
    }

    #[test]
    fn a_tool_result_wraps_exactly_one_block_for_its_call() {
        let ok = r#"{"id":"r","role":"user","content":[{"type":"tool-result","toolCallId":"c","content":[]}],"source":{"kind":"tool","callId":"c"}}"#;
        assert_eq!(check(ok, Some(Expect::Tool)), Ok(()));
        let other = ok.replace(r#""toolCallId":"c""#, r#""toolCallId":"d""#);
        assert_eq!(
            check(&other, Some(Expect::Tool)).unwrap_err(),
            "user/message 3 must contain exactly one tool-result block"
        );
    }

    #[test]
    fn a_flat_replay_state_is_refused() {
        let label = Label::Event("assistant/chunk", 5).at("chunk");
        let flat = r#"{"type":"finish","reason":{"kind":"stop"},"replayState":{"kind":"pi-ai","version":1}}"#;
        assert_eq!(
            stream_chunk(Json::parse(flat).ok(), &label)
                .unwrap_err()
                .detail,
            r#"assistant/chunk 5 chunk replayState has unexpected member "kind""#
        );
    }
}
