//! Provenance as the fold records it (FORMAT.md §1.2, §3): who cites whom and who shadowed
//! whom, built from the fold's surface changes for `provenance`. Its size is proportional
//! to the number of cited seqs.

use std::collections::HashMap;

use crate::replay::SurfaceChange;
use crate::view::View;

/// The citation index of one log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProvenanceIndex {
    /// Citing seq → its `sourceEventSeqs`, in stored order.
    pub sources: HashMap<u64, Vec<u64>>,
    /// Shadowed seq → the seq of the replace that shadowed it.
    pub shadowed_by: HashMap<u64, u64>,
}

impl View for ProvenanceIndex {
    fn on_surface(&mut self, change: &SurfaceChange<'_>) {
        if !change.cites.is_empty() {
            self.sources.insert(change.seq, change.cites.to_vec());
        }
        if let Some(r) = &change.replace {
            for s in r.shadowed {
                self.shadowed_by.insert(*s, change.seq);
            }
        }
    }
}
