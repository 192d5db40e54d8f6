//! The surface right after one event (`surface --at SEQ`, `messages --at SEQ`; FORMAT.md
//! §3.1): a snapshot of the fold's entries when the fold takes that seq.

use crate::replay::{Keep, SurfaceEntry};
use crate::view::{Checked, PackedChunks, View};

/// Snapshots the surface right after the event with seq `at`; `entries` stays `None` when
/// the log has no such event or the fold stopped before it.
#[derive(Debug)]
pub struct SurfaceAt {
    at: u64,
    /// What the entries hold besides what the rules keep (their messages, their previews).
    keep: Keep,
    /// The surface entries in order, once taken (an error when a kept text could not be
    /// read back, see [`crate::replay::Replay::iter`]).
    pub entries: Option<std::io::Result<Vec<SurfaceEntry>>>,
}

impl SurfaceAt {
    /// A snapshot to take right after seq `at`, its entries holding what `keep` says.
    pub fn new(at: u64, keep: Keep) -> Self {
        SurfaceAt {
            at,
            keep,
            entries: None,
        }
    }
}

impl View for SurfaceAt {
    fn keeps(&self) -> Keep {
        self.keep
    }

    fn on_event(&mut self, event: &Checked<'_, '_>) {
        if event.seq == self.at && event.folded {
            self.entries = Some(event.replay.entries());
        }
    }

    fn on_packed_chunks(&mut self, chunks: &PackedChunks<'_>) {
        let seqs = chunks.first_seq..chunks.first_seq + chunks.times.len() as u64;
        if seqs.contains(&self.at) && chunks.folded {
            // Chunks are log-only: the surface is the same after each member.
            self.entries = Some(chunks.replay.entries());
        }
    }
}
