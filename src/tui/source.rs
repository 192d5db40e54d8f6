//! The TUI's one door into the scan and the views (load → check → fold → views, as every
//! command reads a log): a session's details ([`read_details`]), the provenance of one of
//! its events ([`Details::provenance`], [`nodes`]). Everything else in the TUI reads the
//! search index ([`crate::index`]) or the types below, so a change of the scan's API is
//! met here alone.
//!
//! A log the scan finds corrupt or refused is still read up to its defect, as every
//! command reads one ([`crate::scan::defect`]): [`Details::verdict`] names the defect and
//! the views hold what came before it (the `--salvage` reading of issue 29).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::provenance::{self, Edge, TreeNode};
use crate::provider::Provider;
use crate::replay::Keep;
use crate::rules::{Class, Finding, Rule};
use crate::scan::{self, Report, ScanOptions, Status};
use crate::view::inspect::{Inspect, StepRow};
use crate::view::nodes::Nodes;
use crate::view::provenance_index::ProvenanceIndex;
use crate::view::provider::ProviderRules;
use crate::view::replacements::{Replacement, Replacements};
use crate::view::stats::Stats;
use crate::view::transcript::{TranscriptFacts, Turn};

/// Which session to read: the file, and for a SQLite store the session id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The log or store.
    pub file: PathBuf,
    /// The session id, for a store (`None` for a JSONL log, which holds one).
    pub store_session: Option<String>,
}

/// The verdict of the log, with its defect when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `valid`, `torn-tail`, `corrupt` or `refused`.
    pub status: String,
    /// The defect or the torn tail behind a status other than `valid`, as the findings
    /// list shows it (its line: the header is line 1; for a store, the row's seq).
    pub finding: Option<FindingRow>,
    /// Events read (before the defect, for a corrupt or refused log).
    pub events: u64,
    /// Refused only by DSH 0.1.5 and later's frozen migration edges (GENERATIONS.md §14):
    /// the log is intact and shown whole, as DSH 0.1.1 loads it.
    pub edge: bool,
    /// The lines read before the defect, in words (`lines 1–9`,
    /// [`crate::scan::defect::read_text`]).
    pub read: String,
}

impl Verdict {
    /// True when the log is corrupt or refused: what is shown is what was read before
    /// the defect.
    pub fn salvaged(&self) -> bool {
        matches!(self.status.as_str(), "corrupt" | "refused" | "foreign")
    }
}

/// One turn with its steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnNode {
    /// The turn as a transcript shows it (its error or abort cause as recorded).
    pub turn: Turn,
    /// Its steps, in order, as the inspect view counts them.
    pub steps: Vec<StepRow>,
}

/// One finding of the log: a DSH rule, or a provider rule (P1–P7) with the providers that
/// refuse a history breaking it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingRow {
    /// The rule id.
    pub rule: String,
    /// `corrupt`, `refused`, `torn-tail` or `warning`.
    pub class: &'static str,
    /// The event concerned.
    pub seq: Option<u64>,
    /// Its line (or a store's row).
    pub line: Option<u64>,
    /// What it says.
    pub message: String,
    /// For a provider rule: the providers that refuse it (empty for a DSH rule).
    pub providers: Vec<Provider>,
}

/// A tool call and what answered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallPair {
    /// The call id.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// Seq of the assistant message that announced it.
    pub call_seq: Option<u64>,
    /// Seqs of the messages holding its results, with `isError`.
    pub results: Vec<(u64, bool)>,
}

/// A provenance chain, flattened for display: lines of the ancestor tree, then of the
/// descendant tree (FORMAT.md §1.2, §3.1; as `dsh-session provenance` prints them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// The event.
    pub seq: u64,
    /// On the surface, shadowed by a replace, or log only.
    pub status: String,
    /// The ancestor tree, depth first.
    pub ancestors: Vec<ChainLine>,
    /// The descendant tree, depth first.
    pub descendants: Vec<ChainLine>,
}

impl Chain {
    /// Every seq the chain shows.
    pub fn seqs(&self) -> BTreeSet<u64> {
        self.ancestors
            .iter()
            .chain(&self.descendants)
            .map(|l| l.seq)
            .collect()
    }
}

/// One line of a provenance tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainLine {
    /// 0 for the root.
    pub depth: usize,
    /// The event.
    pub seq: u64,
    /// How it hangs off the line above it at `depth - 1` (`cited by`, `shadowed by`, …).
    pub edge: Option<&'static str>,
    /// Shown earlier in the tree: its children are not repeated.
    pub back_reference: bool,
}

/// What one event is, for a provenance line: its type, turn/step and a preview.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Node {
    /// The (converted) type.
    pub ty: String,
    /// `t1/s2`, or empty.
    pub place: String,
    /// One line.
    pub preview: String,
}

/// Everything the session view shows beyond the index's messages.
pub struct Details {
    /// The verdict.
    pub verdict: Verdict,
    /// The turns, in order.
    pub turns: Vec<TurnNode>,
    /// The findings: the verdict's, then the warnings (DSH rules first, then P-rules).
    pub findings: Vec<FindingRow>,
    /// Tool calls by call id.
    pub calls: HashMap<String, CallPair>,
    /// Call ids announced by each assistant message, by seq, in block order.
    pub calls_at: HashMap<u64, Vec<String>>,
    /// Call ids answered by each result message, by seq.
    pub results_at: HashMap<u64, Vec<String>>,
    /// `tool/result` events with `data.error`: seq → `name (code)`.
    pub tool_errors: HashMap<u64, String>,
    /// Assistant messages cut by a cancellation.
    pub interrupted: HashSet<u64>,
    /// Where each replace is in `kept.replacements`, by the replacing event's seq.
    replacement_at: HashMap<u64, usize>,
    kept: Kept,
}

impl std::fmt::Debug for Details {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Details")
            .field("verdict", &self.verdict)
            .field("turns", &self.turns.len())
            .field("findings", &self.findings.len())
            .finish_non_exhaustive()
    }
}

/// What stays of the scan for reading single events later.
struct Kept {
    report: Report,
    inspect: Inspect,
    citations: ProvenanceIndex,
    replacements: Vec<Replacement>,
}

impl Details {
    /// The replace made by the event with `seq` (FORMAT.md §3): its declared range, its
    /// generation and the seqs it shadowed; `None` when that event replaced nothing.
    pub fn replacement(&self, seq: u64) -> Option<&Replacement> {
        let i = *self.replacement_at.get(&seq)?;
        self.kept.replacements.get(i)
    }

    /// The derived message of the entry with `seq` (on the surface or shadowed), byte for
    /// byte as `dsh-session messages` prints it.
    ///
    /// # Errors
    /// The kept texts cannot be read back (their temporary file failed).
    pub fn message_json(&self, seq: u64) -> Option<Result<String, String>> {
        let entry = self.kept.report.replay.entry_by_seq(seq)?;
        Some(
            entry
                .map_err(|e| crate::wording::io_error(&e))
                .and_then(|e| e.message.ok_or_else(|| "no message".to_owned())),
        )
    }

    /// The event with `seq` as stored in the log (one JSON object).
    ///
    /// # Errors
    /// As [`Details::message_json`].
    pub fn raw_event(&self, seq: u64) -> Option<Result<String, String>> {
        let text = self.kept.inspect.raw_event(seq)?;
        Some(
            text.map(|t| t.into_owned())
                .map_err(|e| crate::wording::io_error(&e)),
        )
    }

    /// The provenance chain of the event `seq`: where it came from (the transitive closure
    /// of `sourceEventSeqs`), what cites it and which replace shadowed it.
    pub fn provenance(&self, seq: u64) -> Chain {
        let (replay, index) = (&self.kept.report.replay, &self.kept.citations);
        let status = match provenance::status(replay, index, &self.kept.replacements, seq) {
            provenance::Status::OnSurface { position } => {
                format!("on the surface at position {position}")
            }
            provenance::Status::Shadowed { replacement: r } => format!(
                "shadowed by seq {} ({} replace {}..{})",
                r.seq, r.ty, r.start, r.end
            ),
            provenance::Status::LogOnly => "not a surface event (log only)".to_owned(),
        };
        let mut ancestors = Vec::new();
        flatten(&provenance::ancestors(index, seq, None), 0, &mut ancestors);
        let mut descendants = Vec::new();
        flatten(
            &provenance::descendants(index, seq, None),
            0,
            &mut descendants,
        );
        Chain {
            seq,
            status,
            ancestors,
            descendants,
        }
    }
}

fn flatten(node: &TreeNode, depth: usize, out: &mut Vec<ChainLine>) {
    out.push(ChainLine {
        depth,
        seq: node.seq,
        edge: node.edge.map(Edge::name),
        back_reference: node.back_reference,
    });
    for child in &node.children {
        flatten(child, depth + 1, out);
    }
}

fn options(target: &Target) -> ScanOptions {
    ScanOptions {
        session: target.store_session.clone(),
        ..ScanOptions::default()
    }
}

/// Reads the session at `target` once through the scan with the views the session view
/// shows: `show`'s turn rows, the transcript facts, the provider rules, the replaces, the
/// citation index and [`Inspect`]; the fold keeps messages (spilled to a temporary file
/// past a few MiB) and shadowed entries, for `y` and the raw view.
///
/// # Errors
/// The file cannot be opened or read (a corrupt or refused log is not an error: see the
/// module docs).
pub fn read_details(target: &Target) -> Result<Details, String> {
    let (report, views) = scan::defect::read_up_to_defect(&options(target), |options| {
        let mut views = SessionViews::default();
        let mut keep = Keep {
            messages: true,
            shadowed: true,
            ..Keep::NOTHING
        };
        let v = &mut views;
        let report = scan::scan_path_with(
            &target.file,
            options,
            &mut [
                &mut v.stats,
                &mut v.facts,
                &mut v.provider,
                &mut v.inspect,
                &mut v.citations,
                &mut v.replacements,
                &mut keep,
            ],
        )?;
        Ok::<_, scan::ScanError>((report, views))
    })
    .map_err(|e| crate::wording::without_os_error(&e.to_string()))?;
    let kept = Kept {
        report,
        inspect: views.inspect,
        citations: views.citations,
        replacements: views.replacements.list,
    };
    Ok(details(kept, &views.stats, &views.facts))
}

/// The views [`read_details`] composes, made anew for each pass.
struct SessionViews {
    stats: Stats,
    facts: TranscriptFacts,
    provider: ProviderRules,
    inspect: Inspect,
    citations: ProvenanceIndex,
    replacements: Replacements,
}

impl Default for SessionViews {
    fn default() -> Self {
        SessionViews {
            stats: Stats::with_turn_rows(),
            facts: TranscriptFacts::default(),
            provider: ProviderRules::default(),
            inspect: Inspect::default(),
            citations: ProvenanceIndex::default(),
            replacements: Replacements::default(),
        }
    }
}

fn details(kept: Kept, stats: &Stats, facts: &TranscriptFacts) -> Details {
    let (report, inspect) = (&kept.report, &kept.inspect);
    let verdict = verdict(report);
    let turns = facts
        .turns_of(&stats.turns)
        .into_iter()
        .map(|turn| {
            let end = turn.counts.end_seq.unwrap_or(u64::MAX);
            let steps = inspect
                .steps
                .iter()
                .filter(|s| s.start_seq > turn.counts.start_seq && s.start_seq < end)
                .cloned()
                .collect();
            TurnNode { turn, steps }
        })
        .collect();
    let mut findings: Vec<FindingRow> = report.finding.iter().map(finding_row).collect();
    findings.extend(report.torn.as_ref().map(torn_row));
    let (provider_rules, dsh_rules): (Vec<&Finding>, Vec<&Finding>) = report
        .warnings
        .iter()
        .partition(|w| !crate::provider::providers_of(w.rule).is_empty());
    findings.extend(dsh_rules.into_iter().map(finding_row));
    findings.extend(provider_rules.into_iter().map(finding_row));
    let replacement_at = (kept.replacements.iter().enumerate())
        .map(|(i, r)| (r.seq, i))
        .collect();
    let mut calls: HashMap<String, CallPair> = HashMap::new();
    let mut calls_at: HashMap<u64, Vec<String>> = HashMap::new();
    let mut results_at: HashMap<u64, Vec<String>> = HashMap::new();
    for c in &inspect.calls {
        calls_at.entry(c.seq).or_default().push(c.call_id.clone());
        let pair = calls.entry(c.call_id.clone()).or_insert_with(|| CallPair {
            call_id: c.call_id.clone(),
            name: c.name.clone(),
            call_seq: None,
            results: Vec::new(),
        });
        pair.call_seq.get_or_insert(c.seq);
    }
    for r in &inspect.results {
        results_at.entry(r.seq).or_default().push(r.call_id.clone());
        let pair = calls.entry(r.call_id.clone()).or_insert_with(|| CallPair {
            call_id: r.call_id.clone(),
            name: facts
                .tool_names
                .get(&r.call_id)
                .cloned()
                .unwrap_or_default(),
            call_seq: None,
            results: Vec::new(),
        });
        pair.results.push((r.seq, r.is_error));
    }
    Details {
        verdict,
        turns,
        findings,
        calls,
        calls_at,
        results_at,
        tool_errors: facts.tool_errors.clone(),
        interrupted: facts.interrupted.clone(),
        replacement_at,
        kept,
    }
}

fn verdict(report: &Report) -> Verdict {
    Verdict {
        status: report.status.name().to_owned(),
        finding: match (&report.finding, &report.torn) {
            (Some(f), _) => Some(finding_row(f)),
            (None, torn) => torn.as_ref().map(torn_row),
        },
        events: report.events,
        edge: report.finding.as_ref().is_some_and(|f| f.rule.is_edge()),
        read: scan::defect::read_text(report),
    }
}

/// The torn tail as a row of the findings list.
fn torn_row(t: &scan::TornTail) -> FindingRow {
    FindingRow {
        rule: t.rule.id().to_owned(),
        class: "torn-tail",
        seq: None,
        line: Some(t.line),
        message: t.message.clone(),
        providers: Vec::new(),
    }
}

fn finding_row(f: &Finding) -> FindingRow {
    let class = match f.class {
        Class::Corrupt => Status::Corrupt.name(),
        Class::Refused => Status::Refused.name(),
        Class::TornTail => Status::TornTail.name(),
        Class::Foreign => Status::Foreign.name(),
        Class::Warning => "warning",
    };
    let providers = Provider::ALL
        .into_iter()
        .filter(|p| p.enforces(f.rule))
        .collect();
    FindingRow {
        rule: f.rule.id().to_owned(),
        class,
        seq: f.seq,
        line: f.line.or(f.row),
        message: f.message.clone(),
        providers,
    }
}

/// What each of `seqs` is (type, turn/step, preview), read by a second pass over the log
/// that parses only those events, as `dsh-session provenance` does for its trees.
///
/// # Errors
/// As [`read_details`].
pub fn nodes(target: &Target, seqs: &BTreeSet<u64>) -> Result<HashMap<u64, Node>, String> {
    let wanted: HashSet<u64> = seqs.iter().copied().collect();
    let mut collected = Nodes::new(wanted.clone());
    let options = ScanOptions {
        only_seqs: Some(wanted),
        ..options(target)
    };
    scan::scan_path_with(&target.file, &options, &mut [&mut collected])
        .map_err(|e| crate::wording::without_os_error(&e.to_string()))?;
    Ok(collected
        .nodes
        .into_iter()
        .map(|(seq, n)| {
            let place = match (n.turn, n.step) {
                (Some(t), Some(s)) => format!("t{t}/s{s}"),
                (Some(t), None) => format!("t{t}"),
                _ => String::new(),
            };
            (
                seq,
                Node {
                    ty: n.ty,
                    place,
                    preview: n.preview,
                },
            )
        })
        .collect())
}

/// True when `rule` is a provider rule that `provider` refuses.
pub fn refused_by(row: &FindingRow, provider: Provider) -> bool {
    row.providers.contains(&provider)
}

/// The DSH rule behind a finding row (for a note that names it), when the id is known.
pub fn rule(row: &FindingRow) -> Option<Rule> {
    Rule::ALL.iter().copied().find(|r| r.id() == row.rule)
}

/// What a provider answers to a history breaking a P-rule, as users report it.
pub fn provider_answer(row: &FindingRow, provider: Provider) -> Option<&'static str> {
    rule(row).and_then(|r| provider.error_text(r))
}

/// True when the file at `path` is the one `target` reads (the only file the TUI must
/// never write: an export to it is refused).
pub fn is_the_log(target: &Target, path: &Path) -> bool {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    match (canonical(&target.file), canonical(path)) {
        (Some(a), Some(b)) => a == b,
        _ => target.file == path,
    }
}
