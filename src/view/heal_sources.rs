//! What heal records are built from ([`crate::heal`]): the derived messages of the surface
//! entries a heal replaces, and the tool names of results whose call left the history.

use std::collections::{BTreeSet, HashSet};

use crate::derive::project;
use crate::heal::Sources;
use crate::json::Json;
use crate::view::{Checked, View};

/// Collects [`Sources`] for the seqs and call ids a [`crate::heal::Selection`] names.
#[derive(Debug, Default)]
pub struct HealSources {
    seqs: HashSet<u64>,
    call_ids: HashSet<String>,
    /// What was collected.
    pub sources: Sources,
}

impl HealSources {
    /// Collects the messages of `seqs` and the tool names of `call_ids`.
    pub fn new(seqs: BTreeSet<u64>, call_ids: BTreeSet<String>) -> Self {
        HealSources {
            seqs: seqs.into_iter().collect(),
            call_ids: call_ids.into_iter().collect(),
            sources: Sources::default(),
        }
    }
}

impl View for HealSources {
    fn on_event(&mut self, event: &Checked<'_, '_>) {
        let logical = event.event;
        if self.seqs.contains(&event.seq) {
            if let Some(message) = project(logical, event.dialect.projection) {
                self.sources.messages.insert(
                    event.seq,
                    (logical.type_str().to_owned(), message.into_owned()),
                );
            }
        } else if !self.call_ids.is_empty() && logical.type_str() == "tool/call" {
            let [id, name] = logical
                .data()
                .map_or([None, None], |d| d.lookup(["callId", "name"]));
            if let (Some(id), Some(name)) = (id.and_then(Json::as_str), name.and_then(Json::as_str))
                && self.call_ids.contains(id.as_ref())
            {
                self.sources
                    .tool_names
                    .entry(id.into_owned())
                    .or_insert_with(|| name.into_owned());
            }
        }
    }
}
