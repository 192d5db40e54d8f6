//! Where a session written by dsh-session came from, as its own events say: no header
//! member of any generation can say it (FORMAT.md §6.3: `parentSession` and
//! `seedLength`/`isSeeded` are DSH's fork lineage, and later headers admit no other
//! member), so the marks the tool leaves in the session are read instead:
//!
//! * `recover`: its note, the `user/message` of the plugin `dsh-session-recover` whose
//!   text starts with [`NOTE_MARK`] and names the original session
//!   ([`crate::recover::note`]);
//! * `trim`: the [`TRIM_MARK`] a cut leaves in a tool result's text (the header's
//!   `parentSession` names the source, [`crate::lineage::trim`]).

use crate::lineage::trim::TRIM_MARK;
use crate::recover::note::NOTE_MARK;
use crate::view::{Checked, View};

/// The words of a recovery note before the original session's id.
const RECOVERED_FROM: &str = "This session was recovered by dsh-session from session ";

/// What the session's events say of the tool that made it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Derived {
    /// The original session a `recover` note names, and the note's whole text.
    pub recovered_from: Option<(String, String)>,
    /// Tool results that hold a `trim` cut.
    pub trimmed_results: u64,
}

impl View for Derived {
    fn on_event(&mut self, event: &Checked<'_, '_>) {
        let ty = event.event.type_str();
        let raw = event.event.ev.object.raw();
        match ty {
            "user/message" if self.recovered_from.is_none() && raw.contains(NOTE_MARK) => {
                if let Some(text) = note_text(raw)
                    && let Some(rest) = text
                        .strip_prefix(NOTE_MARK)
                        .map(str::trim_start)
                        .and_then(|t| t.strip_prefix(RECOVERED_FROM))
                    && let Some(end) = rest.find(", whose log").or_else(|| rest.find('.'))
                {
                    self.recovered_from = Some((rest[..end].to_owned(), text));
                }
            }
            "tool/result" if raw.contains(TRIM_MARK) => self.trimmed_results += 1,
            _ => {}
        }
    }
}

/// The first text of the record `raw` that starts with the note mark.
fn note_text(raw: &str) -> Option<String> {
    fn walk(v: &serde_json::Value) -> Option<String> {
        match v {
            serde_json::Value::String(s) if s.starts_with(NOTE_MARK) => Some(s.clone()),
            serde_json::Value::Array(list) => list.iter().find_map(walk),
            serde_json::Value::Object(map) => map.values().find_map(walk),
            _ => None,
        }
    }
    walk(
        &serde_json::from_str::<serde_json::Value>(raw)
            .ok()?
            .get("data")?
            .clone(),
    )
}
