//! The frozen payload rules of every released event type (GENERATIONS §4: exact members,
//! then each member's value: `permission/preset` with an extra `origin`, a `sandbox/mode`
//! outside its list, a `todo/write` status outside `pending|in_progress|completed` …).
//!
//! Learnt from `assertReleasedEventPayload` (`src/validation.ts`) and
//! `assertReleasedPayloadSemantics` (`src/payload-validation.ts`) of
//! `packages/session/session-format-v0-to-v1`, tenyi/deepseek-harness @
//! `77afa3438160c9b45d81277b1fa64e9edcd9416d` (S-v01V, S-v01P); the messages are DSH's.

use crate::edge::features::{
    allowed_models, deepseek_search_body, schedule_change, team_member, team_message,
    team_selector, team_task, workflow_identity,
};
use crate::edge::inventory::Disposition;
use crate::edge::message::{
    Expect, content_blocks, goal_change, llm_failure, message, message_of, stream_chunk,
    token_usage,
};
use crate::edge::shape::{
    Checked, Label, Lit, Refusal, array, boolean, count, count_of, earlier, exact_keys,
    exact_keys_waiving, exact_record, finite, literal, nonempty, one_of, optional, positive,
    record, safe_integer, seq_array, string, value_refused,
};
use crate::json::{Fields, Json};
use crate::rules::Rule;

/// One event as the payload rules read it: its (current) type, seq and data.
#[derive(Clone, Copy)]
pub struct Payload<'j> {
    /// The event type after the edge's renames.
    pub ty: &'j str,
    /// The seq (the stored one).
    pub seq: u64,
    /// The fixed record of `data` ([`Source::fields`](crate::edge::Source::fields)).
    pub fields: &'j Fields<'j>,
    /// The fixed record of the message the scan read for the event
    /// ([`Source::message_fields`](crate::edge::Source::message_fields)); a record of
    /// another value, or of none, when there is none.
    pub message: &'j Fields<'j>,
}

/// The record of `value`, the message of `event`'s `data`: the one made for the event
/// when it is of the same value, else made here (into `made`).
fn message_record<'r, 'j: 'r>(
    event: &Payload<'j>,
    value: Option<Json<'j>>,
    made: &'r mut Option<Fields<'j>>,
) -> &'r Fields<'j> {
    let at = |v: Option<Json<'_>>| v.map(|v| v.raw().as_ptr());
    if at(event.message.value()) == at(value) {
        event.message
    } else {
        made.insert(Fields::of(value))
    }
}

/// Members the v0→v1 edge supplies before it checks them (a legacy `llm/retry` without
/// `retryId`, a legacy compaction without `compactionId`), so their absence is not refused.
#[derive(Debug, Clone, Copy, Default)]
pub struct Supplied {
    /// `retryId` will be supplied.
    pub retry_id: bool,
    /// `compactionId` will be supplied.
    pub compaction_id: bool,
    /// `request/header.header.messagePrefix` (an array) is dropped.
    pub message_prefix: bool,
}

/// `assertReleasedEventPayload`: exact members by `disposition`, the descriptor version
/// first, then the semantics. `version` is 0 at the v0→v1 edge, 1 for a decoded v1 log, 2
/// at the v2→v3 edge.
pub fn check_payload(
    event: Payload<'_>,
    disposition: &Disposition,
    version: u8,
    supplied: Supplied,
) -> Checked {
    let label = Label::Event(event.ty, event.seq);
    let data = record(event.fields.value(), &label.at("data"))?;
    let version_member = event.fields.get("version");
    if event.ty == "subagent/descriptor" && !is_number(version_member, 3.0) {
        let found = count(version_member, &label.at("version"))?;
        if version == 0 {
            return Err(Refusal {
                rule: Rule::F4,
                detail: format!("{label} uses unsupported descriptor version {found}"),
            });
        }
        return Ok(());
    }
    let more_optional: &[&str] =
        if version == 1 && event.ty == "session-log-deepseek/delivery-accepted" {
            &["sessionFormatVersion"]
        } else {
            &[]
        };
    // The members the edge supplies need not be present (it supplies them only when absent).
    let waived = disposition
        .required
        .iter()
        .enumerate()
        .filter(|&(_, &k)| {
            supplied.retry_id && k == "retryId" || supplied.compaction_id && k == "compactionId"
        })
        .fold(0u64, |mask, (i, _)| mask | 1 << i);
    // The common case from the record's masks made at compile time; the members the edge
    // supplies and v1's extra optional member by the names.
    let [required, optional] = disposition.masks;
    if waived != 0
        || !more_optional.is_empty()
        || event.fields.has_exactly(required, optional) != Some(true)
    {
        exact_keys_waiving(
            data,
            disposition.required,
            waived,
            [disposition.optional, more_optional],
            &label.at("data"),
        )?;
    }
    semantics(event, data, version, supplied)
}

fn is_number(v: Option<Json<'_>>, n: f64) -> bool {
    v.is_some_and(|v| v.kind() == crate::json::Kind::Number && v.as_f64() == Some(n))
}

/// `coordinatePair`.
fn coordinates(data: &Fields<'_>, label: &Label<'_>) -> Checked {
    count_of(data, "turn", &label.at("turn"))?;
    count_of(data, "step", &label.at("step")).map(|_| ())
}

/// `assertReleasedPayloadSemantics`: the values of one known event's members.
pub fn semantics(event: Payload<'_>, data: Json<'_>, version: u8, supplied: Supplied) -> Checked {
    let label = Label::Event(event.ty, event.seq);
    let l = &label;
    debug_assert_eq!(Some(data), event.fields.value());
    let fields = event.fields;
    let get = |k: &str| fields.get(k);
    let seq = event.seq;
    // `assistant/message` and `tool/result`: the turn and step, and the message.
    let coordinated_message = |expect| {
        coordinates(fields, l)?;
        message_of(
            message_record(&event, get("message"), &mut None),
            &l.at("message"),
            version,
            Some(expect),
        )
    };
    match event.ty {
        "agent-preset/selected" => string(get("agentPreset"), &l.at("agentPreset")),
        "agent/inbox/spliced" => {
            one_of(get("target"), &["next-turn", "next-step"], &l.at("target"))?;
            count(get("start"), &l.at("start"))?;
            optional(get("removedCount"), |v| {
                count(v, &l.at("removedCount")).map(|_| ())
            })?;
            let inserted = l.at("inserted");
            array(get("inserted"), &inserted, |m, _| {
                message(
                    Some(m),
                    &l.at("inserted message"),
                    version,
                    Some(Expect::User),
                )
            })?;
            optional(get("outcome"), |v| {
                one_of(v, &["canceled"], &l.at("outcome"))
            })
        }
        "approval/asked" => {
            nonempty(get("id"), &l.at("id"))?;
            nonempty(get("toolName"), &l.at("toolName"))?;
            optional(get("callId"), |v| nonempty(v, &l.at("callId")))?;
            optional(get("reason"), |v| string(v, &l.at("reason")))
        }
        "approval/decided" => {
            nonempty(get("id"), &l.at("id"))?;
            one_of(
                get("outcome"),
                &["allowed-once", "rejected", "cancelled", "unavailable"],
                &l.at("outcome"),
            )
        }
        "approval/policy" => {
            one_of(get("policy"), &["ask", "never"], &l.at("policy"))?;
            optional(get("source"), |v| {
                one_of(v, &["delegation"], &l.at("source"))
            })
        }
        "assistant/chunk" => {
            coordinates(fields, l)?;
            stream_chunk(get("chunk"), &l.at("chunk"))
        }
        "assistant/message" => {
            coordinated_message(Expect::Assistant)?;
            optional(get("usage"), |v| token_usage(v, &l.at("usage")))?;
            optional(get("interrupted"), |v| {
                literal(v, &[Lit::True], &l.at("interrupted"))
            })
        }
        "command/done" => {
            nonempty(get("commandId"), &l.at("commandId"))?;
            one_of(get("kind"), &["success", "error"], &l.at("kind"))?;
            optional(get("text"), |v| string(v, &l.at("text")))?;
            optional(get("sourceEventSeq"), |v| {
                earlier(v, seq, &l.at("sourceEventSeq")).map(|_| ())
            })
        }
        "command/run" => {
            nonempty(get("commandId"), &l.at("commandId"))?;
            nonempty(get("name"), &l.at("name"))?;
            optional(get("args"), |v| string(v, &l.at("args")))?;
            let source = exact_record(get("source"), &l.at("source"), &["kind"], &[])?;
            one_of(source.get("kind"), &["user"], &l.at("source kind"))
        }
        "compaction/start" | "compaction/end" => {
            if !supplied.compaction_id {
                nonempty(get("compactionId"), &l.at("compactionId"))?;
            }
            optional(get("sourceCommandId"), |v| {
                nonempty(v, &l.at("sourceCommandId"))
            })?;
            if !get("turn").is_some_and(Json::is_null) {
                count(get("turn"), &l.at("turn"))?;
            }
            optional(get("error"), |v| string(v, &l.at("error")))
        }
        "compaction/prune" => shadowed(data, seq, l),
        "compaction/summary" => {
            if get("llmStreamCall").and_then(Json::as_bool) == Some(true) && !data.has("rawOutput")
            {
                return Err(value_refused(format!(
                    "{l} llmStreamCall requires rawOutput"
                )));
            }
            if !supplied.compaction_id {
                nonempty(get("compactionId"), &l.at("compactionId"))?;
            }
            optional(get("sourceCommandId"), |v| {
                nonempty(v, &l.at("sourceCommandId"))
            })?;
            content_blocks(get("summary"), &l.at("summary"), version)?;
            shadowed(data, seq, l)?;
            nonempty(get("provider"), &l.at("provider"))?;
            nonempty(get("model"), &l.at("model"))?;
            optional(get("maxTokens"), |v| {
                count(v, &l.at("maxTokens")).map(|_| ())
            })?;
            optional(get("usage"), |v| token_usage(v, &l.at("usage")))?;
            optional(get("rawOutput"), |v| {
                content_blocks(v, &l.at("rawOutput"), version)
            })?;
            optional(get("llmStreamCall"), |v| {
                literal(v, &[Lit::True], &l.at("llmStreamCall"))
            })
        }
        "feedback/record" => nonempty(get("text"), &l.at("text")),
        "goal/change" => goal_change(data, l),
        "hook/invoked" => {
            count(get("turn"), &l.at("turn"))?;
            nonempty(get("point"), &l.at("point"))?;
            one_of(get("dialect"), &["claude-code", "codex"], &l.at("dialect"))?;
            optional(get("matcher"), |v| string(v, &l.at("matcher")))?;
            nonempty(get("handlerId"), &l.at("handlerId"))
        }
        "hook/result" => {
            count(get("turn"), &l.at("turn"))?;
            nonempty(get("point"), &l.at("point"))?;
            nonempty(get("handlerId"), &l.at("handlerId"))?;
            nonempty(get("decision"), &l.at("decision"))?;
            optional(get("exitCode"), |v| {
                safe_integer(v, &l.at("exitCode")).map(|_| ())
            })?;
            optional(get("stderrSummary"), |v| string(v, &l.at("stderrSummary")))?;
            if finite(get("durationMs"), &l.at("durationMs"))? < 0.0 {
                return Err(value_refused(format!(
                    "{l} durationMs must be non-negative"
                )));
            }
            Ok(())
        }
        "llm/retry" => {
            if !supplied.retry_id {
                nonempty(get("retryId"), &l.at("retryId"))?;
            }
            coordinates(fields, l)?;
            nonempty(get("provider"), &l.at("provider"))?;
            one_of(get("mode"), &["normal", "always"], &l.at("mode"))?;
            nonempty(get("policyKey"), &l.at("policyKey"))?;
            let retry = positive(get("retry"), &l.at("retry"))?;
            if get("mode").is_some_and(|m| m.str_eq("normal")) {
                let max = positive(get("maxRetries"), &l.at("maxRetries"))?;
                if retry > max {
                    return Err(value_refused(format!("{l} retry exceeds maxRetries")));
                }
            } else if data.has("maxRetries") {
                return Err(value_refused(format!(
                    "{l} always mode must omit maxRetries"
                )));
            }
            let delay = finite(get("delayMs"), &l.at("delayMs"))?;
            if delay < 0.0 {
                return Err(value_refused(format!("{l} delayMs must be non-negative")));
            }
            if delay > 2_147_483_647.0 {
                return Err(value_refused(format!(
                    "{l} delayMs exceeds the timer range"
                )));
            }
            llm_failure(get("failure"), &l.at("failure"))
        }
        "llm/retry-started" => {
            nonempty(get("retryId"), &l.at("retryId"))?;
            coordinates(fields, l)?;
            positive(get("retry"), &l.at("retry")).map(|_| ())
        }
        "model/selection" => {
            nonempty(get("provider"), &l.at("provider"))?;
            nonempty(get("model"), &l.at("model"))?;
            optional(get("reasoningEffort"), |v| {
                nonempty(v, &l.at("reasoningEffort"))
            })
        }
        "permission/preset" => nonempty(get("preset"), &l.at("preset")),
        "plan/mode" => boolean(get("active"), &l.at("active")),
        "request/context" => {
            nonempty(get("provider"), &l.at("provider"))?;
            nonempty(get("model"), &l.at("model"))?;
            optional(get("contextWindow"), |v| {
                positive(v, &l.at("contextWindow")).map(|_| ())
            })
        }
        "request/header" => {
            request_header(get("header"), &l.at("header"), supplied.message_prefix)?;
            one_of(
                get("reason"),
                &["initial", "resume", "change", "series"],
                &l.at("reason"),
            )?;
            optional(get("startsSeries"), |v| {
                literal(v, &[Lit::True], &l.at("startsSeries"))
            })
        }
        "sandbox/mode" => {
            one_of(
                get("mode"),
                &["read-only", "workspace-write", "danger-full-access"],
                &l.at("mode"),
            )?;
            optional(get("source"), |v| {
                one_of(v, &["delegation"], &l.at("source"))
            })
        }
        "schedule/change" => schedule_change(data, l),
        "session-log-deepseek/delivery-accepted" => {
            let accepted = match get("sessionFormatVersion") {
                None => 0,
                some => count(some, &l.at("sessionFormatVersion"))?,
            };
            if accepted != u64::from(version) {
                return Ok(());
            }
            nonempty(get("sessionId"), &l.at("sessionId"))?;
            earlier(get("throughSeq"), seq, &l.at("throughSeq")).map(|_| ())
        }
        "session/end-seed" => Ok(()),
        "session/title" => {
            nonempty(get("title"), &l.at("title"))?;
            seq_array(get("messageSeqs"), seq, &l.at("messageSeqs"), false)?;
            title_source(get("source"), &l.at("source"))
        }
        "session/title-llm-request" => {
            nonempty(get("titleProvider"), &l.at("titleProvider"))?;
            seq_array(get("messageSeqs"), seq, &l.at("messageSeqs"), true)?;
            model_route(get("route"), &l.at("route"))?;
            string(get("system"), &l.at("system"))?;
            array(get("messages"), &l.at("messages"), |m, _| {
                message(Some(m), &l.at("message"), version, None)
            })?;
            positive(get("maxTokens"), &l.at("maxTokens")).map(|_| ())
        }
        "step/end" | "step/start" => coordinates(fields, l),
        "subagent/descriptor" => subagent_descriptor(data, l),
        "subagent/model-selection-policy" => {
            allowed_models(get("allowedModels"), &l.at("allowedModels"))
        }
        "team/member" => {
            team_selector(data, l)?;
            team_member(get("member"), &l.at("member"))
        }
        "team/message/delivered" => {
            team_selector(data, l)?;
            nonempty(get("messageId"), &l.at("messageId"))?;
            nonempty(get("targetId"), &l.at("targetId"))
        }
        "team/message/queued" => {
            team_selector(data, l)?;
            team_message(get("message"), &l.at("message"), version)
        }
        "team/task" => {
            team_selector(data, l)?;
            team_task(get("task"), &l.at("task"))
        }
        "todo/write" => array(get("todos"), &l.at("todos"), |value, item| {
            let todo = exact_record(Some(value), item, &["content", "status"], &[])?;
            string(todo.get("content"), &item.at("content"))?;
            one_of(
                todo.get("status"),
                &["pending", "in_progress", "completed"],
                &item.at("status"),
            )
        })
        .map(|_| ()),
        "tool-workflow/agent-end" => {
            workflow_identity(data, l)?;
            one_of(
                get("outcome"),
                &["completed", "failed", "cancelled"],
                &l.at("outcome"),
            )
        }
        "tool-workflow/agent-start" => {
            workflow_identity(data, l)?;
            string(get("label"), &l.at("label"))?;
            optional(get("phase"), |v| string(v, &l.at("phase")))?;
            nonempty(get("childId"), &l.at("childId"))
        }
        "tool-workflow/run-end" => {
            nonempty(get("runId"), &l.at("runId"))?;
            one_of(
                get("stopReason"),
                &["completed", "cancelled", "error"],
                &l.at("stopReason"),
            )
        }
        "tool-workflow/run-start" => {
            nonempty(get("runId"), &l.at("runId"))?;
            nonempty(get("name"), &l.at("name"))
        }
        "tool/call" => {
            coordinates(fields, l)?;
            nonempty(get("callId"), &l.at("callId"))?;
            nonempty(get("name"), &l.at("name"))?;
            string(get("arguments"), &l.at("arguments"))
        }
        "tool/code-dispatch" | "tool/code-dispatch-start" => {
            for key in ["rootCallId", "parentCallId", "subCallId", "name"] {
                nonempty(get(key), &l.at(key))?;
            }
            if event.ty == "tool/code-dispatch" {
                boolean(get("isError"), &l.at("isError"))?;
                content_blocks(get("content"), &l.at("content"), version)?;
            }
            Ok(())
        }
        "tool/result" => {
            coordinated_message(Expect::Tool)?;
            optional(get("error"), |v| {
                let error = exact_record(v, &l.at("error"), &["name", "code"], &[])?;
                nonempty(error.get("name"), &l.at("error name"))?;
                nonempty(error.get("code"), &l.at("error code"))
            })
        }
        "turn/end" => {
            count(get("turn"), &l.at("turn"))?;
            turn_end_reason(get("reason"), &l.at("reason"))
        }
        "turn/start" => count(get("turn"), &l.at("turn")).map(|_| ()),
        "user/message" => message_of(fields, l, version, Some(Expect::User)),
        "web/deepseek-search-llm-request" => {
            nonempty(get("endpoint"), &l.at("endpoint"))?;
            nonempty(get("apiVersion"), &l.at("apiVersion"))?;
            deepseek_search_body(get("body"), &l.at("body"))
        }
        other => Err(value_refused(format!(
            "released payload validator is missing event {}",
            crate::edge::shape::js_quote(other)
        ))),
    }
}

fn turn_end_reason(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let reason = record(value, label)?;
    let kind = reason.get("kind");
    let is = |name: &str| kind.is_some_and(|k| k.str_eq(name));
    if is("completed") || is("blocked") || is("max-tokens") || is("interrupted") {
        exact_keys(reason, &["kind"], &[], label)
    } else if is("aborted") {
        exact_keys(reason, &["kind", "reason"], &[], label)?;
        let cause_label = label.at("abort cause");
        let cause = record(reason.get("reason"), &cause_label)?;
        if cause.get("kind").is_some_and(|k| k.str_eq("hook")) {
            exact_keys(cause, &["kind", "reason"], &[], &cause_label)?;
            string(cause.get("reason"), &label.at("abort reason"))
        } else {
            exact_keys(cause, &["kind"], &[], &cause_label)?;
            one_of(
                cause.get("kind"),
                &["user", "parent", "disposed", "legacy"],
                &label.at("abort kind"),
            )
        }
    } else if is("error") {
        exact_keys(reason, &["kind", "error"], &[], label)?;
        llm_failure(reason.get("error"), &label.at("error"))
    } else {
        nonempty(kind, &label.at("kind"))
    }
}

fn request_header(value: Option<Json<'_>>, label: &Label<'_>, prefix_dropped: bool) -> Checked {
    let optional_members: &[&str] = if prefix_dropped {
        &["adapterDefaults", "system", "tools", "messagePrefix"]
    } else {
        &["adapterDefaults", "system", "tools"]
    };
    let header = exact_record(value, label, &["config"], optional_members)?;
    let config = exact_record(
        header.get("config"),
        &label.at("config"),
        &["provider", "model"],
        &["reasoningEffort", "temperature", "maxTokens", "stop"],
    )?;
    nonempty(config.get("provider"), &label.at("provider"))?;
    nonempty(config.get("model"), &label.at("model"))?;
    optional(config.get("reasoningEffort"), |v| {
        nonempty(v, &label.at("reasoningEffort"))
    })?;
    optional(config.get("temperature"), |v| {
        finite(v, &label.at("temperature")).map(|_| ())
    })?;
    optional(config.get("maxTokens"), |v| {
        positive(v, &label.at("maxTokens")).map(|_| ())
    })?;
    optional(config.get("stop"), |v| {
        array(v, &label.at("stop"), |m, l| string(Some(m), l)).map(|_| ())
    })?;
    if let Some(defaults) = header.get("adapterDefaults") {
        let defaults_label = label.at("adapterDefaults");
        let defaults = exact_record(
            Some(defaults),
            &defaults_label,
            &[],
            &["reasoningEffort", "maxTokens"],
        )?;
        for (key, marker) in defaults.members() {
            let name = key.as_str().unwrap_or_default();
            literal(Some(marker), &[Lit::True], &defaults_label.at(&name))?;
            if !config.has(&name) {
                return Err(value_refused(format!(
                    "{label} adapter default {name} lacks config value"
                )));
            }
        }
    }
    optional(header.get("system"), |v| string(v, &label.at("system")))?;
    optional(header.get("tools"), |v| {
        array(v, &label.at("tools"), |tool, l| {
            let schema = exact_record(Some(tool), l, &["name", "description", "parameters"], &[])?;
            nonempty(schema.get("name"), &l.at("name"))?;
            string(schema.get("description"), &l.at("description"))?;
            record(schema.get("parameters"), &l.at("parameters")).map(|_| ())
        })
        .map(|_| ())
    })
}

fn shadowed(data: Json<'_>, seq: u64, label: &Label<'_>) -> Checked {
    let range_label = label.at("shadowedRange");
    let range = exact_record(
        data.get("shadowedRange"),
        &range_label,
        &["start", "end"],
        &[],
    )?;
    let start = earlier(range.get("start"), seq, &range_label.at("start"))?;
    let end = earlier(range.get("end"), seq, &range_label.at("end"))?;
    let seqs = seq_array(
        data.get("shadowedSeqs"),
        seq,
        &label.at("shadowedSeqs"),
        true,
    )?;
    if seqs.first() != Some(&start) || seqs.last() != Some(&end) {
        return Err(value_refused(format!(
            "{label} shadowedRange must match shadowedSeqs endpoints"
        )));
    }
    count(
        data.get("shadowedTokenCount"),
        &label.at("shadowedTokenCount"),
    )
    .map(|_| ())
}

fn title_source(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let source = record(value, label)?;
    if source.get("kind").is_some_and(|k| k.str_eq("provider")) {
        exact_keys(source, &["kind", "provider"], &["model"], label)?;
        nonempty(source.get("provider"), &label.at("provider"))?;
        return optional(source.get("model"), |v| model_route(v, &label.at("model")));
    }
    exact_keys(source, &["kind"], &[], label)?;
    one_of(source.get("kind"), &["fallback", "user"], &label.at("kind"))
}

fn model_route(value: Option<Json<'_>>, label: &Label<'_>) -> Checked {
    let route = exact_record(value, label, &["provider", "model"], &[])?;
    nonempty(route.get("provider"), &label.at("provider"))?;
    nonempty(route.get("model"), &label.at("model"))
}

/// `subagentDescriptorValue` (version 3 only: the edge refuses other versions first).
fn subagent_descriptor(data: Json<'_>, label: &Label<'_>) -> Checked {
    literal(data.get("version"), &[Lit::N(3.0)], &label.at("version"))?;
    nonempty(data.get("provider"), &label.at("provider"))?;
    if data.get("mode").is_some_and(|m| m.str_eq("one-shot")) {
        exact_keys(
            data,
            &["mode", "version", "provider"],
            &["label"],
            &label.at("data"),
        )?;
        return optional(data.get("label"), |v| string(v, &label.at("label")));
    }
    one_of(data.get("mode"), &["continuable"], &label.at("mode"))?;
    nonempty(data.get("label"), &label.at("label"))?;
    for key in [
        "agentProvider",
        "agentModel",
        "agentReasoningEffort",
        "persona",
    ] {
        optional(data.get(key), |v| nonempty(v, &label.at(key)))?;
    }
    if data.has("agentProvider") != data.has("agentModel") {
        return Err(value_refused(format!(
            "{label} agentProvider and agentModel must be paired"
        )));
    }
    optional(data.get("toolFilter"), |v| {
        let filter = exact_record(v, &label.at("toolFilter"), &[], &["allow", "deny"])?;
        if !filter.has("allow") && !filter.has("deny") {
            return Err(value_refused(format!(
                "{label} toolFilter requires allow or deny"
            )));
        }
        for key in ["allow", "deny"] {
            optional(filter.get(key), |v| {
                array(v, &label.at(key), |m, l| nonempty(Some(m), l)).map(|_| ())
            })?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::inventory::released_v0;

    fn refusal(ty: &str, seq: u64, data: &str) -> Option<Refusal> {
        let (fields, message) = (Fields::of(Json::parse(data).ok()), Fields::default());
        let payload = Payload {
            ty,
            seq,
            fields: &fields,
            message: &message,
        };
        check_payload(payload, released_v0(ty).unwrap(), 0, Supplied::default()).err()
    }

    #[test]
    fn the_descriptor_version_is_read_first() {
        for (data, rule, detail) in [
            (
                r#"{"mode":"one-shot","version":2,"provider":"p","extra":1}"#,
                Rule::F4,
                "subagent/descriptor 4 uses unsupported descriptor version 2",
            ),
            (
                r#"{"mode":"forever","version":3,"provider":"p"}"#,
                Rule::F3,
                "subagent/descriptor 4 mode must be one of continuable",
            ),
            (
                r#"{"mode":"continuable","version":3,"provider":"p"}"#,
                Rule::F3,
                "subagent/descriptor 4 label must be a non-empty string",
            ),
        ] {
            let r = refusal("subagent/descriptor", 4, data).unwrap();
            assert_eq!((r.rule, r.detail.as_str()), (rule, detail), "{data}");
        }
    }

    #[test]
    fn members_then_values() {
        let r = refusal(
            "permission/preset",
            1,
            r#"{"preset":"read-only","origin":"user"}"#,
        )
        .unwrap();
        assert_eq!(
            (r.rule, r.detail.as_str()),
            (
                Rule::F2,
                r#"permission/preset 1 data has unexpected member "origin""#
            )
        );
        let r = refusal(
            "hook/result",
            0,
            r#"{"point":"Stop","handlerId":"h","decision":"block","durationMs":1}"#,
        )
        .unwrap();
        assert_eq!(
            r.detail,
            r#"hook/result 0 data lacks required member "turn""#
        );
        let r = refusal(
            "todo/write",
            9,
            r#"{"todos":[{"content":"a","status":"done"}]}"#,
        )
        .unwrap();
        assert_eq!(
            (r.rule, r.detail.as_str()),
            (
                Rule::F3,
                "todo/write 9 todos[0] status must be one of pending, in_progress, completed"
            )
        );
        let r = refusal(
            "request/header",
            2,
            r#"{"reason":"initial","header":{"config":{"provider":"p","model":"m"},"tools":[1]}}"#,
        )
        .unwrap();
        assert_eq!(
            r.detail,
            "request/header 2 header tools[0] must be a JSON object"
        );
        assert!(refusal("sandbox/mode", 3, r#"{"mode":"read-only"}"#).is_none());
    }
}
