//! `provenance FILE SEQ` planned: one pass builds the citation index and the replaces'
//! details ([`scan_index`]), a second collects what the trees show of each seq in them
//! ([`trace`]): where the event stands, its ancestors and descendants, the replace it is,
//! and, for a heal, why `repair --provider` wrote it (FORMAT.md §1.2, §3).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use crate::heal;
use crate::provenance::{self, Status, TreeNode};
use crate::rules::Rule;
use crate::scan::{Report, ScanError, ScanOptions, scan_path_with};
use crate::view::View;
use crate::view::nodes::{NodeInfo, Nodes};
use crate::view::provenance_index::ProvenanceIndex;
use crate::view::replacements::{Replacement, Replacements};

/// What the first pass of `provenance` computes: the citation index and the replaces.
pub type Index = (ProvenanceIndex, Replacements);

/// The first pass: the log at `path` scanned with the citation index and the replaces'
/// views.
///
/// # Errors
/// As [`scan_path_with`].
pub fn scan_index(path: &Path, options: &ScanOptions) -> Result<(Report, Index), ScanError> {
    let mut index = ProvenanceIndex::default();
    let mut replacements = Replacements::default();
    let views: &mut [&mut dyn View] = &mut [&mut index, &mut replacements];
    let report = scan_path_with(path, options, views)?;
    Ok((report, (index, replacements)))
}

/// One event's provenance, as `provenance` shows it.
#[derive(Debug)]
pub struct Trace {
    /// The event's seq.
    pub seq: u64,
    /// Where it stands after the replay.
    pub status: Status,
    /// What it was built from (via `sourceEventSeqs`).
    pub up: TreeNode,
    /// What cites it, and what shadowed it.
    pub down: TreeNode,
    /// Every seq in the two trees.
    pub seqs: BTreeSet<u64>,
    /// What each of them is.
    pub nodes: HashMap<u64, NodeInfo>,
    /// The replace the event is, when it is one.
    pub replaced: Option<Replacement>,
    /// For a heal: its message id and the rules it was written for.
    pub heal: Option<(String, Vec<Rule>)>,
    /// The first pass's citation index (the graph's edges).
    pub index: ProvenanceIndex,
}

/// Why an event cannot be traced.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The seq is past the log's last (`None`: the log has no events).
    #[error("seq {seq} is beyond the log: its last seq is {}", last.map_or("none (no events)".into(), |s| s.to_string()))]
    Beyond {
        /// The seq asked for.
        seq: u64,
        /// The log's last seq.
        last: Option<u64>,
    },
    /// The second pass failed.
    #[error(transparent)]
    Scan(#[from] ScanError),
}

/// The provenance of `seq` in the log at `path` (`session` of a store), `depth` levels of
/// each tree at most, from the first pass's `report` and `index` ([`scan_index`]); a
/// second pass reads the log again for what the trees show.
///
/// # Errors
/// [`TraceError::Beyond`] for a seq past the log's end; the second pass's scan errors.
pub fn trace(
    path: &Path,
    session: Option<&String>,
    seq: u64,
    depth: Option<usize>,
    report: &Report,
    (index, replacements): Index,
) -> Result<Trace, TraceError> {
    if seq >= report.events {
        return Err(TraceError::Beyond {
            seq,
            last: report.events.checked_sub(1),
        });
    }
    let replacements = replacements.list;
    let status = provenance::status(&report.replay, &index, &replacements, seq);
    let up = provenance::ancestors(&index, seq, depth);
    let down = provenance::descendants(&index, seq, depth);
    let mut seqs = BTreeSet::new();
    up.seqs(&mut seqs);
    down.seqs(&mut seqs);
    let wanted: HashSet<u64> = seqs.iter().copied().collect();
    let options = ScanOptions {
        session: session.cloned(),
        only_seqs: Some(wanted.clone()),
        ..ScanOptions::default()
    };
    // The first pass reported the verdict and any torn tail; this one only collects.
    let mut collected = Nodes::new(wanted);
    scan_path_with(path, &options, &mut [&mut collected])?;
    let nodes = collected.nodes;
    let heal = (nodes.get(&seq))
        .and_then(|n| n.message_id.as_deref())
        .and_then(|id| Some((id.to_owned(), heal::heal_rules(id)?)));
    Ok(Trace {
        seq,
        status,
        up,
        down,
        seqs,
        nodes,
        replaced: replacements.into_iter().find(|r| r.seq == seq),
        heal,
        index,
    })
}
