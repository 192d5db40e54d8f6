//! The surface fold: rules S1–S18 as an incremental fold (FORMAT.md §3).
//!
//! The surface is kept as a doubly linked list keyed by seq, so that feeding one event
//! costs O(that event) plus, for a replace, O(number of shadowed entries): a replace
//! walks from its `start` to its `end`, and every entry it walks over is removed. Each
//! seq is removed at most once, so a whole log folds in O(events + cited seqs). No I/O.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use crate::event::Dialect;
use crate::json::{Json, Kind};
use crate::rules::{Class, Finding, Rule};

const NONE: u64 = u64::MAX;

/// How an event joined the surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceOp {
    /// `"append"`
    Append,
    /// `{"op":"replace","start":S,"end":E}`: `start` and `end` are seqs.
    Replace {
        /// First shadowed seq (in surface order).
        start: u64,
        /// Last shadowed seq (in surface order).
        end: u64,
    },
}

impl std::fmt::Display for SurfaceOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SurfaceOp::Append => f.write_str("append"),
            SurfaceOp::Replace { start, end } => write!(f, "replace {start}..{end}"),
        }
    }
}

/// One entry of the surface, with what the views need to show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurfaceEntry {
    /// The event's seq.
    pub seq: u64,
    /// The event type (after legacy conversion): one of the dialect's surface types, or
    /// owned for a type outside them (June 2026 logs accept any).
    pub ty: Cow<'static, str>,
    /// How it joined.
    pub op: SurfaceOp,
    /// Number of entries it shadowed (0 for an append).
    pub shadowed: usize,
    /// The message role, when the event carries a message (borrowed for the roles DSH
    /// writes, so that a surface entry holds no copy of them).
    pub role: Option<Cow<'static, str>>,
    /// The message id as stored, quotes included, when present.
    pub message_id: Option<String>,
    /// A short one-line text preview (at most 60 characters); empty unless the scan asked
    /// for previews (`ScanOptions::previews`).
    pub preview: String,
    /// The derived message (FORMAT.md §4), byte for byte, when the fold was asked to keep
    /// messages and the event projects to one.
    pub message: Option<String>,
    /// Tool-call ids the derived message announces (assistant `tool-call` blocks).
    pub calls: Vec<String>,
    /// Tool-call ids the derived message answers (`tool-result` blocks).
    pub results: Vec<String>,
    /// The event's line (header = line 1; for SQLite, the row's seq), when known.
    pub line: Option<u64>,
    /// What a provider sees of the derived message; `None` when the event projects to no
    /// message (FORMAT.md §4).
    pub shape: Option<crate::provider::Shape>,
    /// Hash of a `tool/result`'s `data` with its content nulled, for S18 (strict dialects only).
    content_free_hash: Option<u128>,
}

/// One committed replace, in log order (FORMAT.md §3.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// 1 for the first replace of the log, then 2, 3 …
    pub generation: u64,
    /// The replacing event's seq.
    pub seq: u64,
    /// The replacing event's type.
    pub ty: String,
    /// Declared start seq.
    pub start: u64,
    /// Declared end seq.
    pub end: u64,
    /// The seqs removed from the surface, in surface order.
    pub shadowed: Vec<u64>,
    /// Surface length before the replace.
    pub len_before: usize,
    /// Surface length after the replace.
    pub len_after: usize,
}

/// Provenance as recorded by the fold (FORMAT.md §1.2, §3): who cites whom and who
/// shadowed whom. Its size is proportional to the number of cited seqs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProvenanceIndex {
    /// Citing seq → its `sourceEventSeqs`, in stored order.
    pub sources: HashMap<u64, Vec<u64>>,
    /// Shadowed seq → the seq of the replace that shadowed it.
    pub shadowed_by: HashMap<u64, u64>,
}

/// What the fold needs to know about one surface-eligible event.
#[derive(Debug, Clone)]
pub struct SurfaceInput<'e> {
    /// The event's seq (already checked by E3/E7).
    pub seq: u64,
    /// The (converted) type.
    pub ty: &'e str,
    /// `surfaceOp`, when present.
    pub surface_op: Option<Json<'e>>,
    /// `sourceEventSeqs`, when present.
    pub source_event_seqs: Option<Json<'e>>,
    /// The (converted) `data`.
    pub data: Option<Json<'e>>,
    /// The derived message text, when it projects to one and messages are kept.
    pub message: Option<&'e str>,
    /// The message role.
    pub role: Option<&'e str>,
    /// The message id token, quotes included.
    pub message_id: Option<&'e str>,
    /// The text preview.
    pub preview: &'e str,
    /// Tool-call ids the derived message announces.
    pub calls: Vec<String>,
    /// Tool-call ids the derived message answers.
    pub results: Vec<String>,
    /// The event's line, when known.
    pub line: Option<u64>,
    /// What a provider sees of the derived message, when the event projects to one.
    pub shape: Option<crate::provider::Shape>,
}

impl<'e> SurfaceInput<'e> {
    /// An event that only takes part in the surface rules: no data and no derived message
    /// (the fold's own tests, the fuzz entry points and the property tests).
    pub fn surface_only(
        seq: u64,
        ty: &'e str,
        surface_op: Option<Json<'e>>,
        source_event_seqs: Option<Json<'e>>,
    ) -> Self {
        SurfaceInput {
            seq,
            ty,
            surface_op,
            source_event_seqs,
            data: None,
            message: None,
            role: None,
            message_id: None,
            preview: "",
            calls: Vec::new(),
            results: Vec::new(),
            line: None,
            shape: None,
        }
    }
}

#[derive(Debug, Clone)]
struct Node {
    prev: u64,
    next: u64,
    /// Boxed: the map's spare buckets then cost a pointer, not a whole entry (issue 19).
    entry: Box<SurfaceEntry>,
}

/// The surface validator as a fold. Feed events in seq order with [`Replay::push_surface`] and [`Replay::push_log_only`].
#[derive(Debug, Clone)]
pub struct Replay {
    dialect: &'static Dialect,
    nodes: HashMap<u64, Node>,
    head: u64,
    tail: u64,
    next_seq: u64,
    replacements: Vec<Replacement>,
    /// Replaces committed so far (also when their details are not kept).
    replacement_count: u64,
    /// Keep each replace's details in `replacements`.
    replacement_history: bool,
    warnings: Vec<Finding>,
    provenance: Option<ProvenanceIndex>,
    /// Entries removed by replaces, kept when asked for (`surface --all`).
    shadowed: Option<Vec<SurfaceEntry>>,
    /// The protected system head (v3, v4): the seq of the system message that heads the
    /// surface, when there is one.
    system_head: Option<u64>,
    /// A v0 log used range-encoded provenance: the 0.1.2-alpha dialect.
    alpha_dialect: bool,
    /// The last event's citations, kept for its allocation.
    cites: Vec<u64>,
}

type Step = Result<(), (Rule, String)>;

impl Replay {
    /// An empty surface for a log of the given dialect.
    pub fn new(dialect: &'static Dialect) -> Self {
        Replay {
            dialect,
            nodes: HashMap::new(),
            head: NONE,
            tail: NONE,
            next_seq: 0,
            replacements: Vec::new(),
            replacement_count: 0,
            replacement_history: true,
            warnings: Vec::new(),
            provenance: None,
            shadowed: None,
            system_head: None,
            alpha_dialect: false,
            cites: Vec::new(),
        }
    }

    /// Also records the provenance index (see [`Replay::provenance`]).
    pub fn with_provenance(mut self) -> Self {
        self.provenance = Some(ProvenanceIndex::default());
        self
    }

    /// Keeps only the number of replaces ([`Replay::replacement_count`]), not their details
    /// ([`Replay::replacements`] stays empty), so that memory does not grow with the log's
    /// history.
    pub fn counting_replacements_only(mut self) -> Self {
        self.replacement_history = false;
        self
    }

    /// Also keeps every shadowed entry (see [`Replay::shadowed_entries`]).
    pub fn keeping_shadowed(mut self) -> Self {
        self.shadowed = Some(Vec::new());
        self
    }

    /// True when a v0 log turned out to be the 0.1.2-alpha dialect (range pairs seen).
    pub fn alpha_dialect(&self) -> bool {
        self.alpha_dialect
    }

    /// The provenance index, when recorded.
    pub fn provenance(&self) -> Option<&ProvenanceIndex> {
        self.provenance.as_ref()
    }

    /// Entries that left the surface, in the order they were shadowed, when kept.
    pub fn shadowed_entries(&self) -> &[SurfaceEntry] {
        self.shadowed.as_deref().unwrap_or_default()
    }

    /// Number of entries on the surface.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the surface is empty.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The seq the next event must have.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Every committed replace so far, in log order (empty when the fold was built with
    /// [`Replay::counting_replacements_only`]).
    pub fn replacements(&self) -> &[Replacement] {
        &self.replacements
    }

    /// The number of committed replaces so far.
    pub fn replacement_count(&self) -> u64 {
        self.replacement_count
    }

    /// Rules a June-era log broke that June's loader did not enforce (FORMAT.md §9.2).
    pub fn warnings(&self) -> &[Finding] {
        &self.warnings
    }

    /// The surface entries in order.
    pub fn entries(&self) -> Vec<&SurfaceEntry> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut cur = self.head;
        while cur != NONE {
            let node = &self.nodes[&cur];
            out.push(&*node.entry);
            cur = node.next;
        }
        out
    }

    /// The provider rules (P1–P7, [`crate::provider::check`]) on the derived history: the
    /// surface entries that project to a message, in order. `system_prompt`: the request
    /// header in force has a system prompt (sent as message 0 by OpenAI-compatible
    /// adapters).
    pub fn provider_findings(&self, system_prompt: bool) -> Vec<Finding> {
        let history: Vec<crate::provider::HistoryMessage<'_>> = self
            .entries()
            .into_iter()
            .filter_map(|e| {
                Some(crate::provider::HistoryMessage {
                    seq: e.seq,
                    line: e.line,
                    shape: e.shape?,
                    calls: &e.calls,
                    results: &e.results,
                })
            })
            .collect();
        crate::provider::check(&history, system_prompt)
    }

    /// The surface as a list of seqs.
    pub fn seqs(&self) -> Vec<u64> {
        self.entries().iter().map(|e| e.seq).collect()
    }

    /// True when `seq` is on the surface now.
    pub fn contains(&self, seq: u64) -> bool {
        self.nodes.contains_key(&seq)
    }

    /// The message id (quotes included) of a surface entry.
    pub fn message_id(&self, seq: u64) -> Option<&str> {
        self.nodes.get(&seq)?.entry.message_id.as_deref()
    }

    /// Feeds a non-surface event (S1–S3).
    ///
    /// # Errors
    /// S1, S2 or S3 with a one-line message; the surface is unchanged.
    pub fn push_log_only(
        &mut self,
        seq: u64,
        ty: &str,
        surface_op: bool,
        sources: bool,
    ) -> Result<(), (Rule, String)> {
        self.check_seq(seq)?;
        if surface_op {
            self.lenient(
                Rule::S2,
                seq,
                format!("{ty} is not surface-eligible and cannot carry surfaceOp"),
            )?;
        }
        if sources {
            self.lenient(
                Rule::S3,
                seq,
                format!("{ty} is not surface-eligible and cannot carry sourceEventSeqs"),
            )?;
        }
        self.next_seq = seq + 1;
        Ok(())
    }

    fn check_seq(&self, seq: u64) -> Step {
        if seq != self.next_seq {
            return Err((
                Rule::S1,
                format!(
                    "seq is not contiguous; expected {}, found {seq}",
                    self.next_seq
                ),
            ));
        }
        Ok(())
    }

    /// A rule June 2026 did not enforce becomes a warning there (FORMAT.md §9.2).
    fn lenient(&mut self, rule: Rule, seq: u64, message: String) -> Step {
        if self.dialect.strict {
            return Err((rule, message));
        }
        let mut f = Finding::new(rule, Some(seq), None, message);
        f.class = Class::Warning;
        self.warnings.push(f);
        Ok(())
    }

    /// Feeds a surface-eligible event (S1, S4–S18) and applies it.
    ///
    /// # Errors
    /// The first rule broken, in FORMAT.md §3.2 order; the surface is unchanged.
    pub fn push_surface(&mut self, input: SurfaceInput<'_>) -> Step {
        let seq = input.seq;
        self.check_seq(seq)?;
        let Some(op_json) = input.surface_op else {
            return Err((
                Rule::S4,
                format!(
                    "{} is surface-eligible and requires a surfaceOp marker",
                    input.ty
                ),
            ));
        };
        let op = parse_surface_op_keys(op_json, self.dialect.replace_keys)?;
        let shadowed = match op {
            SurfaceOp::Append => Vec::new(),
            SurfaceOp::Replace { start, end } => self.locate_range(start, end)?,
        };
        let cites = self.check_sources(seq, input.ty, input.source_event_seqs)?;
        if let SurfaceOp::Replace { .. } = op
            && let cited = cites.iter().copied().collect::<HashSet<u64>>()
            && let Some(missing) = shadowed.iter().find(|s| !cited.contains(s))
        {
            self.lenient(
                Rule::S15,
                seq,
                format!("replace sourceEventSeqs must include every shadowed surface node; missing {missing}"),
            )?;
        }
        self.check_system_head(seq, input.ty, op, &shadowed)?;
        // v0–v3 results may change only the wrapper block's content; v4 results (no wrapper)
        // only `message.content` (GENERATIONS §1.6).
        let content_free: &[&str] = if self.dialect.tool_role_results {
            &["message", "content"]
        } else {
            &["message", "content", "0", "content"]
        };
        // Only S18 reads the hash, and only in strict dialects: hash once, and only then.
        let content_free_hash = (input.ty == "tool/result" && self.dialect.strict)
            .then(|| {
                input
                    .data
                    .map(|d| crate::json::canonical_hash(d, content_free))
            })
            .flatten();
        if input.ty == "tool/result"
            && self.dialect.strict
            && let SurfaceOp::Replace { .. } = op
        {
            if shadowed.len() != 1 {
                return Err((
                    Rule::S16,
                    format!(
                        "tool/result replace must rewrite exactly one current node; range shadows {}",
                        shadowed.len()
                    ),
                ));
            }
            let target = &self.nodes[&shadowed[0]].entry;
            if target.ty != "tool/result" {
                return Err((
                    Rule::S17,
                    format!(
                        "tool/result replace must target a current tool/result; seq {} is {}",
                        target.seq, target.ty
                    ),
                ));
            }
            if target.content_free_hash != content_free_hash {
                return Err((
                    Rule::S18,
                    format!(
                        "tool/result replace of seq {} may change only the tool-result content",
                        target.seq
                    ),
                ));
            }
        }
        // Accepted: apply.
        match &mut self.provenance {
            Some(index) if !cites.is_empty() => {
                index.sources.insert(seq, cites);
            }
            _ => self.cites = cites,
        }
        if self.dialect.system_head && input.ty == "system/message" {
            let head_replaced =
                matches!(op, SurfaceOp::Replace { .. }) && self.system_head == Some(shadowed[0]);
            if self.nodes.is_empty() || head_replaced {
                self.system_head = Some(seq);
            }
        }
        let entry = SurfaceEntry {
            seq,
            ty: static_or_owned(input.ty, self.dialect.surface_types),
            op,
            shadowed: shadowed.len(),
            role: input.role.map(|r| static_or_owned(r, &ROLES)),
            message_id: input.message_id.map(str::to_owned),
            preview: input.preview.to_owned(),
            message: input.message.map(str::to_owned),
            calls: input.calls,
            results: input.results,
            line: input.line,
            shape: input.shape,
            content_free_hash,
        };
        match op {
            SurfaceOp::Append => self.link_after(self.tail, entry),
            SurfaceOp::Replace { start, end } => {
                let len_before = self.nodes.len();
                let prev = self.nodes[&shadowed[0]].prev;
                for s in &shadowed {
                    if let Some(entry) = self.unlink(*s)
                        && let Some(kept) = &mut self.shadowed
                    {
                        kept.push(entry);
                    }
                    if let Some(index) = &mut self.provenance {
                        index.shadowed_by.insert(*s, seq);
                    }
                }
                self.link_after(prev, entry);
                self.replacement_count += 1;
                if self.replacement_history {
                    self.replacements.push(Replacement {
                        generation: self.replacement_count,
                        seq,
                        ty: input.ty.to_owned(),
                        start,
                        end,
                        shadowed,
                        len_before,
                        len_after: self.nodes.len(),
                    });
                }
            }
        }
        self.next_seq = seq + 1;
        Ok(())
    }

    /// G5, the protected system head of v3 and v4 (GENERATIONS §6, §7): a system message
    /// may head only an empty surface or replace the head alone; nothing else may remove it.
    fn check_system_head(&self, seq: u64, ty: &str, op: SurfaceOp, shadowed: &[u64]) -> Step {
        if !self.dialect.system_head {
            return Ok(());
        }
        let g5 = |what: String| Err((Rule::G5, format!("protected system head: {what}")));
        if ty == "system/message" && self.system_head.is_none() && !self.nodes.is_empty() {
            return g5(format!(
                "system/message at seq {seq} on a surface whose first node is not a system message"
            ));
        }
        if let (Some(head), SurfaceOp::Replace { .. }) = (self.system_head, op)
            && shadowed.contains(&head)
            && !(ty == "system/message" && shadowed == [head])
        {
            return g5(format!(
                "{ty} at seq {seq} would remove the system head {head}; only a system/message replacing exactly the head may"
            ));
        }
        Ok(())
    }

    /// S7–S9: the shadowed seqs from `start` to `end` in surface order.
    fn locate_range(&self, start: u64, end: u64) -> Result<Vec<u64>, (Rule, String)> {
        if !self.nodes.contains_key(&start) {
            return Err((
                Rule::S7,
                format!("replace start seq {start} not found in surface"),
            ));
        }
        if !self.nodes.contains_key(&end) {
            return Err((
                Rule::S8,
                format!("replace end seq {end} not found in surface"),
            ));
        }
        let mut shadowed = Vec::new();
        let mut cur = start;
        while cur != NONE {
            shadowed.push(cur);
            if cur == end {
                return Ok(shadowed);
            }
            cur = self.nodes[&cur].next;
        }
        let position = |seq| self.seqs().iter().position(|s| *s == seq).unwrap_or(0);
        Err((
            Rule::S9,
            format!(
                "replace start seq {start} (index {}) is after end seq {end} (index {})",
                position(start),
                position(end)
            ),
        ))
    }

    /// S10–S14; returns the cited seqs.
    fn check_sources(
        &mut self,
        seq: u64,
        ty: &str,
        sources: Option<Json<'_>>,
    ) -> Result<Vec<u64>, (Rule, String)> {
        let mut order = std::mem::take(&mut self.cites);
        order.clear();
        // Citations in increasing order (as DSH writes them) cannot repeat: the set that
        // finds repeats is built only once an element is not above the one before it.
        let mut cited: Option<HashSet<u64>> = None;
        let Some(sources) = sources else {
            return Ok(order);
        };
        if !self.dialect.assistant_sources && ty == "assistant/message" {
            return Err((
                Rule::G4,
                format!(
                    "assistant/message must omit sourceEventSeqs from {} on",
                    self.dialect.era.name()
                ),
            ));
        }
        if !sources.is_array() {
            self.lenient(
                Rule::S10,
                seq,
                format!(
                    "sourceEventSeqs must be an array when present, found {}",
                    sources.kind().name()
                ),
            )?;
            return Ok(order);
        }
        if sources.is_empty() && (ty != "assistant/message" || !self.dialect.strict) {
            self.lenient(
                Rule::S11,
                seq,
                format!("sourceEventSeqs must not be empty except on assistant/message ({ty})"),
            )?;
        }
        let mut duplicate = None;
        let mut not_earlier = None;
        let mut pairs = false;
        for element in sources.elements() {
            // v0 as 0.1.2-alpha writes it uses range pairs too (GENERATIONS §3): read them
            // with the frozen v0/v1 codec and mark the log as that dialect.
            // In v0 only a well-formed pair is the alpha form; anything else stays S12.
            let alpha_pair = self.dialect.generation == 0
                && self.dialect.strict
                && element.len() == 2
                && element.elements().all(|e| e.as_seq().is_some());
            let ranges = self.dialect.range_provenance || alpha_pair;
            let run = match (element.as_seq(), ranges && element.is_array()) {
                (Some(cite), _) => cite..=cite,
                (None, true) => {
                    let ends: Vec<Option<u64>> = element.elements().map(Json::as_seq).collect();
                    let (Some(Some(start)), Some(Some(end)), 2) =
                        (ends.first().copied(), ends.get(1).copied(), ends.len())
                    else {
                        return Err((
                            Rule::G3,
                            format!(
                                "range pair must be [start, end] of seqs, found {}",
                                element.raw()
                            ),
                        ));
                    };
                    if start > end || end >= seq || order.len() as u64 + (end - start + 1) > seq {
                        return Err((
                            Rule::G3,
                            format!(
                                "range pair {} must have start <= end < {seq}",
                                element.raw()
                            ),
                        ));
                    }
                    pairs = true;
                    if !self.dialect.range_provenance {
                        self.alpha_dialect = true;
                    }
                    start..=end
                }
                (None, false) => {
                    self.lenient(
                        Rule::S12,
                        seq,
                        format!(
                            "sourceEventSeqs must contain non-negative safe integers, found {}",
                            element.raw()
                        ),
                    )?;
                    continue;
                }
            };
            for cite in run {
                let repeated = match &mut cited {
                    None if order.last().is_none_or(|&last| last < cite) => false,
                    None => !cited.insert(order.iter().copied().collect()).insert(cite),
                    Some(set) => !set.insert(cite),
                };
                if repeated {
                    duplicate.get_or_insert(cite);
                }
                if cite >= seq {
                    not_earlier.get_or_insert(cite);
                }
                order.push(cite);
            }
        }
        if pairs && order.windows(2).any(|w| w[0] >= w[1]) {
            return Err((
                Rule::G3,
                "sourceEventSeqs with range pairs must expand to a strictly increasing list".into(),
            ));
        }
        if let Some(d) = duplicate {
            self.lenient(
                Rule::S13,
                seq,
                format!("sourceEventSeqs must not contain duplicates; {d} repeats"),
            )?;
        } else if let Some(n) = not_earlier {
            self.lenient(
                Rule::S14,
                seq,
                format!("sourceEventSeqs must reference earlier events; {n} is not before {seq}"),
            )?;
        }
        Ok(order)
    }

    fn link_after(&mut self, prev: u64, entry: SurfaceEntry) {
        let seq = entry.seq;
        let next = if prev == NONE {
            self.head
        } else {
            self.nodes[&prev].next
        };
        self.nodes.insert(
            seq,
            Node {
                prev,
                next,
                entry: Box::new(entry),
            },
        );
        if prev == NONE {
            self.head = seq;
        } else if let Some(p) = self.nodes.get_mut(&prev) {
            p.next = seq;
        }
        if next == NONE {
            self.tail = seq;
        } else if let Some(n) = self.nodes.get_mut(&next) {
            n.prev = seq;
        }
    }

    fn unlink(&mut self, seq: u64) -> Option<SurfaceEntry> {
        let node = self.nodes.remove(&seq)?;
        if node.prev == NONE {
            self.head = node.next;
        } else if let Some(p) = self.nodes.get_mut(&node.prev) {
            p.next = node.next;
        }
        if node.next == NONE {
            self.tail = node.prev;
        } else if let Some(n) = self.nodes.get_mut(&node.next) {
            n.prev = node.prev;
        }
        Some(*node.entry)
    }
}

/// S5–S6 with the replace keys of a generation: `start`/`end` through v2, `startSeq`/`endSeq`
/// from v3 (GENERATIONS §1.6).
///
/// # Errors
/// S5 or S6.
pub fn parse_surface_op_keys(op: Json<'_>, keys: [&str; 2]) -> Result<SurfaceOp, (Rule, String)> {
    if op.str_eq("append") {
        return Ok(SurfaceOp::Append);
    }
    if op.kind() != Kind::Object {
        return Err((
            Rule::S5,
            format!(
                "invalid surfaceOp: expected \"append\" or a replace object, found {}",
                crate::check::shown(Some(op))
            ),
        ));
    }
    let [start_key, end_key] = keys;
    let exact = op.has_exactly_keys(&["op", start_key, end_key]);
    let [kind, start, end] = op.lookup(["op", start_key, end_key]);
    match (
        exact,
        kind.is_some_and(|o| o.str_eq("replace")),
        start.and_then(Json::as_seq),
        end.and_then(Json::as_seq),
    ) {
        (true, true, Some(start), Some(end)) => Ok(SurfaceOp::Replace { start, end }),
        _ => Err((
            Rule::S6,
            format!(
                "invalid replace surfaceOp: expected exactly {{\"op\":\"replace\",\"{start_key}\":S,\"{end_key}\":E}} with seqs, found {}",
                crate::check::shown(Some(op))
            ),
        )),
    }
}

/// The roles of harness messages (FORMAT.md §2.4.1, GENERATIONS §7).
const ROLES: [&str; 5] = ["user", "assistant", "system", "developer", "tool"];

/// `text` borrowed from `known` when it is one of them, else owned.
fn static_or_owned(text: &str, known: &[&'static str]) -> Cow<'static, str> {
    match known.iter().find(|k| **k == text) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(text.to_owned()),
    }
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
