//! The surface's messages as the provider rules read them (P1–P7, PROVIDERS.md §3), in
//! place: a position is a slot, and the entries that project to no message are skipped.

use crate::replay::Replay;
use crate::replay::arena::{Arena, NIL};
use crate::rules::Finding;

/// The surface's messages as the P-rules read them, in place: a position is a slot, and
/// the entries that project to no message are skipped.
struct SurfaceHistory<'a> {
    arena: &'a Arena,
}

impl SurfaceHistory<'_> {
    /// The first slot from `at` on (`NIL`: none) whose entry projects to a message.
    fn message_from(&self, mut at: u32) -> Option<usize> {
        while at != NIL {
            if self.arena.projects(at) {
                return Some(at as usize);
            }
            at = self.arena.next(at);
        }
        None
    }
}

impl crate::provider::History for SurfaceHistory<'_> {
    fn model_name(&self, key: u16) -> Option<&str> {
        self.arena.model_name(key)
    }

    fn first(&self) -> Option<usize> {
        self.message_from(self.arena.head())
    }

    fn after(&self, at: usize) -> Option<usize> {
        self.message_from(self.arena.next(at as u32))
    }

    fn message(&self, at: usize) -> crate::provider::HistoryMessage<'_> {
        let v = self.arena.view(at as u32);
        crate::provider::HistoryMessage {
            seq: v.seq,
            line: v.line,
            shape: v.shape.unwrap_or_default(),
            calls: v.calls,
            results: v.results,
        }
    }
}

impl Replay {
    /// The provider rules (P1–P7, [`crate::provider::check`]) on the derived history: the
    /// surface entries that project to a message, in order, read in place. `system_prompt`:
    /// the request header in force has a system prompt (sent as message 0 by
    /// OpenAI-compatible adapters). Memory: what [`crate::provider::check`] keeps.
    pub fn provider_findings(&self, system_prompt: bool) -> Vec<Finding> {
        crate::provider::check(&SurfaceHistory { arena: &self.arena }, system_prompt)
    }

    /// The key an assistant message's `provider/model` goes by in its
    /// [`crate::provider::Shape::model`] (the provider rules read the model of a message
    /// without a copy of its name per entry).
    pub fn model_key(&mut self, name: &str) -> u16 {
        self.arena.model_key(name)
    }
}
