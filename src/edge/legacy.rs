//! The v0→v1 edge (GENERATIONS §4): what it converts instead of refusing, then the
//! closed inventory and the payload rules for every event; and the payload check a
//! decoded v1 log gets at the v1→v2 edge.
//!
//! Converted, never reported: `steering/message` (to `user/message`), the retired
//! `compact/*` names, `turn/start.trigger`, retired `turn/end` reasons, pre-identity
//! messages (these the scan's DSH 0.1.1 conversions already did, with the same results), a
//! duplicate `request/header.header.messagePrefix`, a legacy `llm/retry` without `retryId`
//! and a legacy compaction without `compactionId` (both supplied). Refused: the retired
//! `request/header-delta`, `mode/set` and `fallback` reason, every type outside the frozen
//! inventory (`ignorable` or not), and unexpected payload members and values.
//!
//! Learnt from `packages/session/session-format-v0-to-v1/src/migration.ts` and
//! `src/validation.ts`, and `packages/session/session-format-v1-to-v2/src/migration.ts`
//! (`DecodedReleasedV1ToV2Stage`), tenyi/deepseek-harness @
//! `77afa3438160c9b45d81277b1fa64e9edcd9416d` (S-v01R, S-v01V, S-v12M).

use crate::edge::Source;
use crate::edge::inventory::{legacy_rename, released_v0};
use crate::edge::payload::{Payload, Supplied, check_payload};
use crate::edge::shape::{Checked, Label, Refusal, js_quote, record, value_refused};
use crate::header::Header;
use crate::json::Json;
use crate::rules::Rule;

/// The state the v0→v1 edge carries from event to event.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Legacy {
    session_id: String,
    parent: bool,
    seed_length: u64,
    /// The compaction a legacy `compaction/summary`, `compaction/end` or compaction
    /// checkpoint without its own `compactionId` is given.
    compaction_id: Option<String>,
    /// The `compactionId` this edge supplied to the event just checked.
    supplied_compaction: Option<String>,
}

impl Legacy {
    /// The edge's state before the first event of a log with `header`.
    pub fn new(header: Option<&Header>) -> Legacy {
        Legacy {
            session_id: header.map(|h| h.id.clone()).unwrap_or_default(),
            parent: header.is_some_and(|h| h.lineage.parent_session.is_some()),
            seed_length: header.and_then(|h| h.lineage.seed()).unwrap_or(0),
            ..Legacy::default()
        }
    }

    /// The `compactionId` the last checked event was given by this edge, if any: the
    /// relationships of the migrated log read it in place of the absent member.
    pub fn supplied_compaction(&self) -> Option<&str> {
        self.supplied_compaction.as_deref()
    }

    /// The v0→v1 edge on one event: its current type name, or the refusal.
    ///
    /// # Errors
    /// What DSH's edge refuses first in this event.
    pub fn check<'j>(&mut self, ev: &Source<'j>) -> Checked<&'j str> {
        self.supplied_compaction = None;
        let ty = match legacy_rename(ev.stored_type) {
            Some(current) if ev.stored_type.starts_with("compact/") => current,
            _ => ev.ty,
        };
        let label = Label::Event(ty, ev.seq);
        let unsupported = |what: String| Refusal {
            rule: Rule::F1,
            detail: format!(
                "session {} contains unsupported legacy {what} at seq {}",
                js_quote(&self.session_id),
                ev.seq
            ),
        };
        if matches!(ty, "request/header-delta" | "mode/set") {
            return Err(unsupported(format!("{ty} event")));
        }
        let mut supplied = Supplied::default();
        if ty == "request/header" {
            let data = record(ev.data, &label.at("data"))?;
            if data.get("reason").is_some_and(|r| r.str_eq("fallback")) {
                return Err(Refusal {
                    rule: Rule::F1,
                    detail: format!(
                        "session {} contains unsupported request/header reason \"fallback\" at seq {}",
                        js_quote(&self.session_id),
                        ev.seq
                    ),
                });
            }
            let header = record(data.get("header"), &label.at("header"))?;
            if let Some(prefix) = header.get("messagePrefix") {
                if !prefix.is_array() {
                    return Err(value_refused(format!(
                        "session {} contains malformed request/header messagePrefix at seq {}",
                        js_quote(&self.session_id),
                        ev.seq
                    )));
                }
                supplied.message_prefix = true;
            }
        }
        // Every event's data must be an object before the messages are normalised.
        let data = record(ev.data, &label.at("data"))?;
        if ty == "llm/retry" && !data.has("retryId") {
            supplied.retry_id = true;
        }
        self.legacy_compaction(ty, ev.seq, data, &mut supplied)?;
        if ty != "assistant/chunk" {
            let Some(disposition) = released_v0(ty) else {
                return Err(Refusal {
                    rule: Rule::F1,
                    detail: format!(
                        "format v0 contains unknown historical event type {} at seq {}; migration refuses unknown historical events even when ignorable",
                        js_quote(ty),
                        ev.seq
                    ),
                });
            };
            let payload = Payload {
                ty,
                seq: ev.seq,
                fields: ev.fields,
                message: ev.message_fields,
            };
            check_payload(payload, disposition, 0, supplied)?;
        }
        if ty == "session-log-deepseek/delivery-accepted" {
            self.delivery_marker(data, ev.seq, 0)?;
        }
        Ok(ty)
    }

    /// `normalizeLegacyCompaction`: which compaction events get a `compactionId`.
    fn legacy_compaction(
        &mut self,
        ty: &str,
        seq: u64,
        data: Json<'_>,
        supplied: &mut Supplied,
    ) -> Checked {
        match ty {
            "session/end-seed" => self.compaction_id = None,
            "compaction/start" => match data.get("compactionId") {
                Some(id) if id.is_nonempty_string() => {
                    self.compaction_id = id.as_str().map(|s| s.into_owned());
                }
                Some(_) => {}
                None => {
                    let id = format!("legacy-compaction:{}:{seq}", self.session_id);
                    supplied.compaction_id = true;
                    self.supplied_compaction = Some(id.clone());
                    self.compaction_id = Some(id);
                }
            },
            "compaction/summary" | "compaction/end" => {
                if let Some(id) = &self.compaction_id
                    && !data.has("compactionId")
                {
                    supplied.compaction_id = true;
                    self.supplied_compaction = Some(id.clone());
                }
                if ty == "compaction/end" && self.compaction_id.is_some() {
                    self.compaction_id = None;
                }
            }
            "user/message" => {
                let source = data.get("source").filter(|s| s.is_object());
                let checkpoint = source.is_some_and(|s| {
                    s.get("kind").is_some_and(|k| k.str_eq("plugin"))
                        && s.get("plugin").is_some_and(|p| p.str_eq("compact"))
                        && !s.has("compactionId")
                });
                if checkpoint && let Some(id) = &self.compaction_id {
                    self.supplied_compaction = Some(id.clone());
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The delivery marker of the log's own generation must name this session, unless it
    /// was inherited from the parent.
    fn delivery_marker(&self, data: Json<'_>, seq: u64, generation: u64) -> Checked {
        let accepted = data
            .get("sessionFormatVersion")
            .and_then(Json::as_seq)
            .unwrap_or(0);
        let inherited = self.parent && seq < self.seed_length;
        let names_us = data
            .get("sessionId")
            .is_some_and(|id| id.str_eq(&self.session_id));
        if accepted == generation && !inherited && !names_us {
            return Err(Refusal {
                rule: Rule::F9,
                detail: "current-generation delivery marker names the wrong Session".into(),
            });
        }
        Ok(())
    }

    /// The payload check a decoded v1 log gets before the v1→v2 edge: the inventory (no
    /// legacy names, no descriptor version but 3 checked), version-1 payload rules.
    ///
    /// # Errors
    /// What the v1→v2 edge refuses first in this event.
    pub fn check_decoded_v1(&mut self, ev: &Source<'_>) -> Checked {
        if ev.ty == "assistant/chunk" {
            return Ok(());
        }
        let Some(disposition) = released_v0(ev.ty) else {
            return Err(Refusal {
                rule: Rule::F1,
                detail: format!(
                    "format v1 contains unknown event type {} at seq {}",
                    js_quote(ev.ty),
                    ev.seq
                ),
            });
        };
        let payload = Payload {
            ty: ev.ty,
            seq: ev.seq,
            fields: ev.fields,
            message: ev.message_fields,
        };
        check_payload(payload, disposition, 1, Supplied::default())?;
        if ev.ty == "session-log-deepseek/delivery-accepted"
            && let Some(data) = ev.data
            && data.get("sessionFormatVersion").and_then(Json::as_seq) == Some(1)
        {
            self.delivery_marker(data, ev.seq, 1)?;
        }
        Ok(())
    }
}
