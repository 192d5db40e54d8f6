//! Provenance queries over a finished fold: where an event came from, what cites it,
//! what shadowed it (FORMAT.md §1.2, §3.1).

pub mod trace;

use std::collections::{BTreeSet, HashSet};

use crate::replay::Replay;
use crate::view::provenance_index::ProvenanceIndex;
use crate::view::replacements::Replacement;

/// Where a seq stands after the replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// On the surface at this 0-based position.
    OnSurface {
        /// Position in the surface.
        position: usize,
    },
    /// Shadowed by a replace.
    Shadowed {
        /// The replace that removed it.
        replacement: Replacement,
    },
    /// An event that never joined the surface (chunks, tool calls, plugin records …).
    LogOnly,
}

/// Where `seq` stands after `replay`, with the `index` and the `replacements` of the same
/// scan; the caller checks it is inside the log.
pub fn status(
    replay: &Replay,
    index: &ProvenanceIndex,
    replacements: &[Replacement],
    seq: u64,
) -> Status {
    if let Some(position) = replay.seqs().iter().position(|s| *s == seq) {
        return Status::OnSurface { position };
    }
    let by = index.shadowed_by.get(&seq).copied();
    match by.and_then(|by| replacements.iter().find(|r| r.seq == by)) {
        Some(r) => Status::Shadowed {
            replacement: r.clone(),
        },
        None => Status::LogOnly,
    }
}

/// Deepest tree level walked, whatever `--depth` says, so a hostile chain of a million
/// citations cannot exhaust the stack; deeper nodes are marked `cut`.
pub const MAX_TREE_DEPTH: usize = 1000;

/// How a tree node hangs off its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// Ancestors: the parent cites this node in `sourceEventSeqs`.
    Cited,
    /// Descendants: this node cites the parent.
    CitedBy,
    /// Descendants: this node is the replace that shadowed the parent.
    ShadowedBy,
    /// Descendants: this node cites the parent and shadowed it.
    CitedAndShadowedBy,
}

impl Edge {
    /// `cites`, `cited by`, `shadowed by`, `cited and shadowed by`.
    pub fn name(self) -> &'static str {
        match self {
            Edge::Cited => "cited",
            Edge::CitedBy => "cited by",
            Edge::ShadowedBy => "shadowed by",
            Edge::CitedAndShadowedBy => "cited and shadowed by",
        }
    }
}

/// A node of an ancestor or descendant tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeNode {
    /// The event.
    pub seq: u64,
    /// How it hangs off its parent (`None` for the root).
    pub edge: Option<Edge>,
    /// True when the event already appears earlier in the tree (a back-reference: its
    /// children are not repeated).
    pub back_reference: bool,
    /// True when `--depth` stopped the walk here while the node had more to show.
    pub cut: bool,
    /// Children, in `sourceEventSeqs` order (ancestors) or seq order (descendants).
    pub children: Vec<TreeNode>,
}

impl TreeNode {
    /// Every seq in the tree.
    pub fn seqs(&self, out: &mut BTreeSet<u64>) {
        out.insert(self.seq);
        for c in &self.children {
            c.seqs(out);
        }
    }
}

fn walk(
    seq: u64,
    edge: Option<Edge>,
    depth: usize,
    max_depth: Option<usize>,
    seen: &mut HashSet<u64>,
    next: &dyn Fn(u64) -> Vec<(u64, Edge)>,
) -> TreeNode {
    let mut node = TreeNode {
        seq,
        edge,
        back_reference: !seen.insert(seq),
        cut: false,
        children: Vec::new(),
    };
    if node.back_reference {
        return node;
    }
    let children = next(seq);
    if max_depth.unwrap_or(MAX_TREE_DEPTH).min(MAX_TREE_DEPTH) <= depth {
        node.cut = !children.is_empty();
        return node;
    }
    // Recursion is bounded by MAX_TREE_DEPTH.
    for (child, edge) in children {
        node.children
            .push(walk(child, Some(edge), depth + 1, max_depth, seen, next));
    }
    node
}

/// The transitive closure of `sourceEventSeqs` from `seq`, each event once.
pub fn ancestors(index: &ProvenanceIndex, seq: u64, max_depth: Option<usize>) -> TreeNode {
    let next = |s: u64| -> Vec<(u64, Edge)> {
        index
            .sources
            .get(&s)
            .map(|cites| cites.iter().map(|c| (*c, Edge::Cited)).collect())
            .unwrap_or_default()
    };
    walk(seq, None, 0, max_depth, &mut HashSet::new(), &next)
}

/// Every event that cites `seq` directly or transitively, and every replace that shadowed
/// `seq` or one of them, each event once.
pub fn descendants(index: &ProvenanceIndex, seq: u64, max_depth: Option<usize>) -> TreeNode {
    // The citations reversed, as (cited, citing) pairs sorted for look-up: 16 bytes per
    // citation, where a map of vectors took several times that.
    let mut cited_by: Vec<(u64, u64)> = index
        .sources
        .iter()
        .flat_map(|(citing, cites)| cites.iter().map(move |cited| (*cited, *citing)))
        .collect();
    cited_by.sort_unstable();
    let next = |s: u64| -> Vec<(u64, Edge)> {
        let from = cited_by.partition_point(|&(cited, _)| cited < s);
        let mut kids: Vec<(u64, Edge)> = cited_by[from..]
            .iter()
            .take_while(|&&(cited, _)| cited == s)
            .map(|&(_, citing)| (citing, Edge::CitedBy))
            .collect();
        if let Some(by) = index.shadowed_by.get(&s) {
            match kids.iter_mut().find(|(c, _)| c == by) {
                Some(k) => k.1 = Edge::CitedAndShadowedBy,
                None => kids.push((*by, Edge::ShadowedBy)),
            }
        }
        kids.sort_by_key(|k| k.0);
        kids
    };
    walk(seq, None, 0, max_depth, &mut HashSet::new(), &next)
}

/// The Graphviz edges among `seqs`: `source -> cited-by` (solid) and
/// `shadowed -> replacement` (dashed), sorted.
pub fn dot_edges(index: &ProvenanceIndex, seqs: &BTreeSet<u64>) -> Vec<(u64, u64, bool)> {
    let mut edges = BTreeSet::new();
    for citing in seqs {
        for cited in index.sources.get(citing).into_iter().flatten() {
            if seqs.contains(cited) {
                edges.insert((*cited, *citing, false));
            }
        }
    }
    for shadowed in seqs {
        if let Some(by) = index.shadowed_by.get(shadowed)
            && seqs.contains(by)
        {
            edges.insert((*shadowed, *by, true));
        }
    }
    edges.into_iter().collect()
}
