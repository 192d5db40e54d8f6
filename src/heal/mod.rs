//! Healing a derived history a provider refuses (PROVIDERS.md §3), append-only, through the
//! surface (FORMAT.md §3): the pure part of `repair --provider` and `messages --provider`.
//!
//! A heal is a `user/message` appended with a replace `surfaceOp` whose `sourceEventSeqs`
//! cite every entry it shadows (S7–S9, S15). Nothing stored is changed; the shadowed events
//! stay in the log, `provenance` shows what replaced them, and DSH replays the decision.
//!
//! Why every heal is a `user/message`: it is the one replacement every generation accepts
//! after the log's last turn. From v2 on an `assistant/message` may not carry
//! `sourceEventSeqs`, so it can never replace (GENERATIONS §1.6); a replacing `tool/result`
//! needs an open turn and may change only its output (S16–S18; GENERATIONS §1.6); system and
//! developer messages must match the open turn and step (GENERATIONS §6, §7). A repair
//! appends after the closers, where no turn is open.
//!
//! Per class, the smallest faithful replacement:
//!
//! * a tool exchange the provider refuses (P1 unanswered call, P3 result not right after
//!   its call, P4 tool call without reasoning, P6 call id used twice) becomes a **note**: a
//!   `user/message` whose text says what the assistant wrote and called (tool, call id,
//!   arguments) and what came back, or that no result was recorded. Its results are
//!   narrated too (a result whose call left the history would be an orphan), in one note
//!   when they follow the call directly, else where they were recorded;
//! * a result whose call is not in the history (P2) becomes a note that keeps its output;
//! * an unpaired surrogate (P5) becomes U+FFFD and an empty text block (P7) is dropped: in
//!   a user message, the same message with that fixed (same source; the id says it is a
//!   heal); in any other message, through a note (whose text is decoded with U+FFFD).
//!
//! Notes carry the source `{"kind":"plugin","plugin":"dsh-session-heal"}` (v4, where the
//! plugin wrapper is retired: `{"kind":"dsh-session-heal"}`) and every heal has the message
//! id `dsh-session-heal-<rules>-<seq>` (`dsh-session-heal-P1-13`): a reader of the raw log
//! tells a heal from a compaction by either.

mod note;

pub use note::{NOTE_MARK, refusal};

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::event::Era;
use crate::json::{Json, write_js_string};
use crate::provider::{CallIds, HistoryMessage, Provider, Shape, WireRole};
use crate::replay::SurfaceEntry;
use crate::rules::{Finding, Rule};

/// Prefix of every heal's message id: `dsh-session-heal-<rules>-<seq>`.
pub const HEAL_ID_PREFIX: &str = "dsh-session-heal-";

/// The plugin name in a note's source.
pub const HEAL_PLUGIN: &str = "dsh-session-heal";

/// What a provider sees of a surface entry's message: its wire role; `None` when the entry
/// projects to no message (FORMAT.md §4).
fn role(entry: &SurfaceEntry) -> Option<WireRole> {
    entry.shape.map(|s| s.role)
}

/// A provider finding no replacement the rules allow can fix: reported, never forced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unhealed {
    /// The P-finding.
    pub finding: Finding,
    /// One sentence: why no heal fixes it.
    pub why: String,
}

/// What the heals will do, worked out from the surface alone (no message text needed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Surface positions narrated into notes, with the rules that led to each.
    pub notes: BTreeMap<usize, BTreeSet<Rule>>,
    /// Surface positions of user messages fixed in place (P5, P7), with their rules.
    pub fixes: BTreeMap<usize, BTreeSet<Rule>>,
    /// Findings left as they are.
    pub unhealed: Vec<Unhealed>,
    /// `(position of the announcing message, call id)` → positions of the messages that
    /// answer that call, in order.
    answers: HashMap<(usize, String), Vec<usize>>,
    /// `(position of the answering message, call id)` → position of the announcing message.
    announcer: HashMap<(usize, String), usize>,
}

impl Selection {
    /// True when nothing is to be appended.
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty() && self.fixes.is_empty()
    }

    /// The seqs whose stored message the heal records are built from.
    pub fn source_seqs(&self, entries: &[SurfaceEntry]) -> BTreeSet<u64> {
        self.notes
            .keys()
            .chain(self.fixes.keys())
            .map(|&p| entries[p].seq)
            .collect()
    }

    /// Call ids of narrated results whose call is not in the history: their tool name is
    /// looked up in the log's `tool/call` events.
    pub fn orphan_call_ids(&self, entries: &[SurfaceEntry]) -> BTreeSet<String> {
        self.notes
            .keys()
            .flat_map(|&p| entries[p].results.iter().map(move |id| (p, id)))
            .filter(|(p, id)| !self.announcer.contains_key(&(*p, (*id).clone())))
            .map(|(_, id)| id.clone())
            .collect()
    }
}

/// Chooses what to heal for `provider`: every finding of `findings` (a scan's warnings,
/// closers folded) that the provider enforces becomes a note or a fix, or is reported as
/// [`Unhealed`]. `entries` is the surface, in order; `era` the log's generation.
pub fn select(
    entries: &[SurfaceEntry],
    findings: &[Finding],
    provider: Provider,
    era: Era,
) -> Selection {
    let mut selection = Selection::default();
    pair_calls_and_results(entries, &mut selection);
    let position: HashMap<u64, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.seq, i))
        .collect();
    let mut findings: Vec<Finding> = findings
        .iter()
        .filter(|f| provider.enforces(f.rule))
        .cloned()
        .collect();
    // A note can break what was fine around it (an orphan result narrated between a call
    // and its result): check the healed history again until nothing new is found. Notes
    // only grow, so this ends.
    loop {
        let mut queue = Vec::new();
        for f in &findings {
            let Some(&p) = f.seq.and_then(|s| position.get(&s)) else {
                continue;
            };
            if let Some(rules) = selection.notes.get_mut(&p) {
                // Narrated already: the note names this rule too, and so do its pairs.
                if rules.insert(f.rule) {
                    queue.push(p);
                }
                continue;
            }
            let known = selection.fixes.get(&p).is_some_and(|r| r.contains(&f.rule))
                || selection
                    .unhealed
                    .iter()
                    .any(|u| u.finding.seq == f.seq && u.finding.rule == f.rule);
            if known {
                continue;
            }
            let entry = &entries[p];
            if let Some(why) = unhealable(entry, f.rule, era) {
                selection.unhealed.push(Unhealed {
                    finding: f.clone(),
                    why,
                });
                continue;
            }
            let fixable_in_place = matches!(f.rule, Rule::P5 | Rule::P7)
                && entry.ty == "user/message"
                && entry.results.is_empty();
            if fixable_in_place {
                selection.fixes.entry(p).or_default().insert(f.rule);
            } else {
                selection.notes.entry(p).or_default().insert(f.rule);
                queue.push(p);
            }
        }
        let progressed = !queue.is_empty();
        cascade(entries, &mut selection, queue);
        let narrated: Vec<usize> = selection.notes.keys().copied().collect();
        for p in narrated {
            if let Some(rules) = selection.fixes.remove(&p) {
                selection.notes.entry(p).or_default().extend(rules);
            }
        }
        if !progressed {
            break;
        }
        findings = healed_history_findings(entries, &selection)
            .into_iter()
            .filter(|f| provider.enforces(f.rule))
            .collect();
    }
    selection
}

/// The P-findings of the history as the selection would leave it: each run of narrated
/// entries one user text message (under the seq of its first entry), fixed messages
/// without lone surrogates and empty text blocks.
fn healed_history_findings(entries: &[SurfaceEntry], selection: &Selection) -> Vec<Finding> {
    let note = Shape {
        role: WireRole::User,
        has_text: true,
        ..Shape::default()
    };
    let mut history = Vec::new();
    let mut p = 0;
    while p < entries.len() {
        let e = &entries[p];
        if selection.notes.contains_key(&p) {
            history.push(HistoryMessage {
                seq: e.seq,
                line: None,
                shape: note,
                calls: CallIds::default(),
                results: CallIds::default(),
            });
            while p + 1 < entries.len() && selection.notes.contains_key(&(p + 1)) {
                p += 1;
            }
        } else if let Some(mut shape) = e.shape {
            if selection.fixes.contains_key(&p) {
                shape.lone_surrogate = false;
                shape.empty_text_blocks = 0;
            }
            history.push(HistoryMessage {
                seq: e.seq,
                line: None,
                shape,
                calls: CallIds::List(&e.calls),
                results: CallIds::List(&e.results),
            });
        }
        p += 1;
    }
    crate::provider::check(&history[..], false)
}

/// Why a finding at `entry` cannot be healed, if it cannot.
fn unhealable(entry: &SurfaceEntry, rule: Rule, era: Era) -> Option<String> {
    if era == Era::June2026 {
        return Some(
            "heals are written in the shapes of DSH's v0–v4 logs; a June 2026 log is first converted by DSH (resume it with a current DSH), then healed"
                .to_owned(),
        );
    }
    match role(entry) {
        Some(role @ (WireRole::System | WireRole::Developer)) => {
            let name = if role == WireRole::System {
                "system"
            } else {
                "developer"
            };
            Some(format!(
                "a {name} message can be replaced only by a {name}/message inside an open turn and step (GENERATIONS §6, §7), and a repair appends after the log's last turn; {rule} stays until DSH replaces that {name} message (as it does when the {name} text changes)"
            ))
        }
        _ => None,
    }
}

/// Pairs each answered call id with the message that announced it: the latest assistant
/// message before the answer that announced the id, as the providers pair them.
fn pair_calls_and_results(entries: &[SurfaceEntry], selection: &mut Selection) {
    let mut latest: HashMap<&str, usize> = HashMap::new();
    for (j, e) in entries.iter().enumerate() {
        for id in &e.results {
            if let Some(&i) = latest.get(id.as_str()) {
                selection
                    .answers
                    .entry((i, id.clone()))
                    .or_default()
                    .push(j);
                selection.announcer.insert((j, id.clone()), i);
            }
        }
        if role(e) == Some(WireRole::Assistant) {
            for id in &e.calls {
                latest.insert(id, j);
            }
        }
    }
}

/// A narrated message takes its pairs with it: the results of the calls it announced, and
/// the announcing message of the results it carried, are narrated too (else they would be
/// orphans or unanswered calls); they inherit the rules that started the chain.
fn cascade(entries: &[SurfaceEntry], selection: &mut Selection, mut queue: Vec<usize>) {
    while let Some(k) = queue.pop() {
        let rules = selection.notes[&k].clone();
        let mut linked = Vec::new();
        for id in &entries[k].calls {
            if let Some(answers) = selection.answers.get(&(k, id.clone())) {
                linked.extend(answers.iter().copied());
            }
        }
        for id in &entries[k].results {
            if let Some(&i) = selection.announcer.get(&(k, id.clone())) {
                linked.push(i);
            }
        }
        for p in linked {
            let known = selection.notes.contains_key(&p);
            let set = selection.notes.entry(p).or_default();
            let before = set.len();
            set.extend(rules.iter().copied());
            if !known || set.len() != before {
                queue.push(p);
            }
        }
    }
}

/// What the records are built from: for each seq of [`Selection::source_seqs`], the
/// event type and its derived message (compact JSON); tool names of orphan results by
/// call id (from `tool/call` events).
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// seq → (event type, message JSON).
    pub messages: HashMap<u64, (String, String)>,
    /// call id → tool name.
    pub tool_names: HashMap<String, String>,
}

/// One record a heal appends, and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heal {
    /// The record: one compact JSON object, a `user/message` with a replace `surfaceOp`.
    pub record: String,
    /// Its seq.
    pub seq: u64,
    /// The surface seqs it shadows, in surface order.
    pub shadowed: Vec<u64>,
    /// The P-rules it heals.
    pub rules: Vec<Rule>,
    /// One line for people: what changes in the history.
    pub change: String,
}

/// What every heal record of one log is built from ([`records`]): the surface entries, the
/// selection, the source messages, the log's generation and the time every record takes.
#[derive(Clone, Copy)]
pub(super) struct Build<'a> {
    /// The surface entries, in surface order.
    pub entries: &'a [SurfaceEntry],
    /// What is healed, and how.
    pub selection: &'a Selection,
    /// The messages the records are built from.
    pub sources: &'a Sources,
    /// The log's generation.
    pub era: Era,
    /// The time every record takes (ms since the Unix epoch).
    pub time: i64,
}

/// Builds the heal records for `selection`, in surface order: a note per run of adjacent
/// narrated entries, one fixed message per fix. Seqs start at `next_seq`; every record
/// takes `time` (the last event's, as closers do, FORMAT.md §5.2).
///
/// A span whose source message is missing from `sources` gets no record (a caller that
/// collected [`Selection::source_seqs`] never sees that; the validation of the healed log
/// would then report the finding as left).
pub fn records(
    entries: &[SurfaceEntry],
    selection: &Selection,
    sources: &Sources,
    era: Era,
    next_seq: u64,
    time: i64,
) -> Vec<Heal> {
    let build = Build {
        entries,
        selection,
        sources,
        era,
        time,
    };
    let mut heals = Vec::new();
    let mut seq = next_seq;
    let mut positions = selection
        .notes
        .keys()
        .chain(selection.fixes.keys())
        .copied()
        .collect::<Vec<_>>();
    positions.sort_unstable();
    let mut k = 0;
    while k < positions.len() {
        let start = positions[k];
        if let Some(rules) = selection.fixes.get(&start) {
            if let Some(heal) = fix_record(&build, start, rules, seq) {
                heals.push(heal);
                seq += 1;
            }
            k += 1;
            continue;
        }
        // A run of adjacent narrated entries becomes one note.
        let mut end = k;
        while end + 1 < positions.len()
            && positions[end + 1] == positions[end] + 1
            && selection.notes.contains_key(&positions[end + 1])
        {
            end += 1;
        }
        let span: Vec<usize> = positions[k..=end].to_vec();
        if let Some(heal) = note::note_record(&build, &span, seq) {
            heals.push(heal);
            seq += 1;
        }
        k = end + 1;
    }
    heals
}

/// A user message with its lone surrogates replaced (P5) and its empty text blocks dropped
/// (P7), same source, id `dsh-session-heal-…`.
fn fix_record(b: &Build<'_>, position: usize, rules: &BTreeSet<Rule>, seq: u64) -> Option<Heal> {
    let Build {
        entries,
        sources,
        era,
        time,
        ..
    } = *b;
    let entry = &entries[position];
    let (_, message) = sources.messages.get(&entry.seq)?;
    let message = Json::parse(message).ok()?;
    let [content, source] = message.lookup(["content", "source"]);
    let mut blocks = Vec::new();
    let mut dropped = 0;
    for block in content.into_iter().flat_map(Json::elements) {
        let [ty, text] = block.lookup(["type", "text"]);
        let empty_text =
            ty.is_some_and(|t| t.str_eq("text")) && !text.is_some_and(Json::is_nonempty_string);
        if empty_text && rules.contains(&Rule::P7) {
            dropped += 1;
            continue;
        }
        blocks.push(crate::provider::replace_lone_surrogates(block.raw()).into_owned());
    }
    if blocks.is_empty() {
        // A message of empty blocks only: the providers refuse empty content too.
        blocks.push("{\"type\":\"text\",\"text\":\"(empty message)\"}".to_owned());
    }
    let content = format!("[{}]", blocks.join(","));
    let source = source.map_or_else(
        || note::heal_source(era),
        |s| crate::provider::replace_lone_surrogates(s.raw()).into_owned(),
    );
    let mut what = Vec::new();
    if rules.contains(&Rule::P5) {
        what.push("its unpaired surrogates become U+FFFD".to_owned());
    }
    if dropped > 0 {
        what.push(format!(
            "{dropped} empty text block{} dropped",
            if dropped == 1 { " is" } else { "s are" }
        ));
    }
    let rules: Vec<Rule> = rules.iter().copied().collect();
    let data = user_message(era, &heal_id(&rules, seq), &content, &source);
    Some(Heal {
        record: replace_record(era, seq, time, &data, &[entry.seq]),
        seq,
        shadowed: vec![entry.seq],
        rules,
        change: format!(
            "the user message at seq {} is written again: {}",
            entry.seq,
            what.join(", ")
        ),
    })
}

/// `dsh-session-heal-<rules>-<seq>`.
fn heal_id(rules: &[Rule], seq: u64) -> String {
    let mut id = HEAL_ID_PREFIX.to_owned();
    for r in rules {
        id.push_str(r.id());
        id.push('-');
    }
    id.push_str(&seq.to_string());
    id
}

/// The rule ids a heal's message id names, when `id` is one (`dsh-session-heal-P1-P3-13`).
pub fn heal_rules(id: &str) -> Option<Vec<Rule>> {
    let rest = id.strip_prefix(HEAL_ID_PREFIX)?;
    let mut parts: Vec<&str> = rest.split('-').collect();
    parts.pop()?.parse::<u64>().ok()?;
    parts.into_iter().map(Rule::from_id).collect()
}

/// A `user/message`'s `data` (the message itself) in the key order DSH's message
/// constructor writes in every generation: `content, source, role, id` (84 of the 89 user
/// messages of the v0 samples DSH 0.1.1 wrote, and every one of the real v3 and v4 logs;
/// issue 44.6: the notes of v0 sessions were written `id, role, content, source`).
pub(crate) fn user_message(_era: Era, id: &str, content: &str, source: &str) -> String {
    let mut id_json = String::new();
    write_js_string(&mut id_json, id);
    format!("{{\"content\":{content},\"source\":{source},\"role\":\"user\",\"id\":{id_json}}}")
}

/// A `user/message` event replacing the surface entries `shadowed` (in surface order;
/// first and last name the range), citing them all, in the envelope order of an event
/// appended by the live session (FORMAT.md §1.4) and the generation's replace keys and
/// provenance encoding (GENERATIONS §1.5, §1.6).
fn replace_record(era: Era, seq: u64, time: i64, data: &str, shadowed: &[u64]) -> String {
    let [start_key, end_key] = era.dialect().replace_keys;
    let start = shadowed.first().copied().unwrap_or_default();
    let end = shadowed.last().copied().unwrap_or_default();
    let mut cited = shadowed.to_vec();
    cited.sort_unstable();
    let sources = source_seqs_json(era, &cited);
    format!(
        "{{\"type\":\"user/message\",\"seq\":{seq},\"time\":{time},\"data\":{data},\"sourceEventSeqs\":{sources},\"surfaceOp\":{{\"op\":\"replace\",\"{start_key}\":{start},\"{end_key}\":{end}}}}}"
    )
}

/// `sourceEventSeqs` as the generation's writer encodes a strictly increasing list: plain
/// integers up to v1 (a 0.1.1-rc.2 reader refuses pairs), runs of three or more as
/// `[start, end]` pairs from v2 (GENERATIONS §1.5).
fn source_seqs_json(era: Era, sorted: &[u64]) -> String {
    let pairs = matches!(era, Era::V2 | Era::V3 | Era::V4);
    let mut parts = Vec::new();
    let mut k = 0;
    while k < sorted.len() {
        let mut end = k;
        while end + 1 < sorted.len() && sorted[end + 1] == sorted[end] + 1 {
            end += 1;
        }
        if pairs && end - k >= 2 {
            parts.push(format!("[{},{}]", sorted[k], sorted[end]));
        } else {
            parts.extend(sorted[k..=end].iter().map(u64::to_string));
        }
        k = end + 1;
    }
    format!("[{}]", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u64, role: WireRole, calls: &[&str], results: &[&str]) -> SurfaceEntry {
        SurfaceEntry {
            seq,
            ty: match role {
                WireRole::Assistant => "assistant/message",
                WireRole::Tool => "tool/result",
                _ => "user/message",
            }
            .into(),
            op: crate::replay::SurfaceOp::Append,
            shadowed: 0,
            role: None,
            message_id: None,
            preview: String::new(),
            message: None,
            calls: calls.iter().map(|s| s.to_string()).collect(),
            results: results.iter().map(|s| s.to_string()).collect(),
            line: None,
            shape: Some(Shape {
                role,
                ..Shape::default()
            }),
        }
    }

    fn finding(rule: Rule, seq: u64) -> Finding {
        Finding::new(rule, Some(seq), None, String::new())
    }

    #[test]
    fn a_narrated_call_takes_its_results_and_their_calls_with_it() {
        // 0 user, 1 assistant (c1, c2), 2 result c1, 3 user, 4 result c2, 5 assistant c3,
        // 6 result c3.
        let entries = [
            entry(0, WireRole::User, &[], &[]),
            entry(1, WireRole::Assistant, &["c1", "c2"], &[]),
            entry(2, WireRole::Tool, &[], &["c1"]),
            entry(3, WireRole::User, &[], &[]),
            entry(4, WireRole::Tool, &[], &["c2"]),
            entry(5, WireRole::Assistant, &["c3"], &[]),
            entry(6, WireRole::Tool, &[], &["c3"]),
        ];
        let s = select(
            &entries,
            &[finding(Rule::P3, 1)],
            Provider::Deepseek,
            Era::V4,
        );
        let notes: Vec<usize> = s.notes.keys().copied().collect();
        assert_eq!(notes, [1, 2, 4]);
        assert!(s.notes.values().all(|r| r.iter().eq([&Rule::P3])));
        assert!(s.orphan_call_ids(&entries).is_empty());
    }

    #[test]
    fn an_orphan_narrated_between_a_call_and_its_result_takes_the_exchange_with_it() {
        // The orphan c9 rides in the run of results after the call: narrating it alone
        // would put text between c1 and its result (a new P3).
        let entries = [
            entry(0, WireRole::Assistant, &["c1"], &[]),
            entry(1, WireRole::Tool, &[], &["c9"]),
            entry(2, WireRole::Tool, &[], &["c1"]),
        ];
        let s = select(&entries, &[finding(Rule::P2, 1)], Provider::Openai, Era::V4);
        assert_eq!(s.notes.keys().copied().collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(s.notes[&0].iter().collect::<Vec<_>>(), [&Rule::P3]);
        assert_eq!(s.notes[&1].iter().collect::<Vec<_>>(), [&Rule::P2]);
        assert!(healed_history_findings(&entries, &s).is_empty());
    }

    #[test]
    fn a_second_announcement_pairs_with_the_results_after_it() {
        let entries = [
            entry(0, WireRole::Assistant, &["c1"], &[]),
            entry(1, WireRole::Tool, &[], &["c1"]),
            entry(2, WireRole::Assistant, &["c1"], &[]),
            entry(3, WireRole::Tool, &[], &["c1"]),
        ];
        let s = select(
            &entries,
            &[finding(Rule::P6, 2)],
            Provider::Anthropic,
            Era::Head,
        );
        assert_eq!(s.notes.keys().copied().collect::<Vec<_>>(), [2, 3]);
    }

    #[test]
    fn findings_the_provider_does_not_enforce_are_left_alone() {
        let entries = [entry(0, WireRole::Assistant, &["c1"], &[])];
        let s = select(
            &entries,
            &[finding(Rule::P6, 0)],
            Provider::Deepseek,
            Era::Head,
        );
        assert!(s.is_empty() && s.unhealed.is_empty());
    }

    #[test]
    fn system_messages_and_june_logs_are_not_healed() {
        let entries = [entry(0, WireRole::System, &[], &[])];
        let s = select(&entries, &[finding(Rule::P5, 0)], Provider::Openai, Era::V4);
        assert!(s.is_empty());
        assert_eq!(s.unhealed.len(), 1);
        assert!(
            s.unhealed[0]
                .why
                .starts_with("a system message can be replaced only by a system/message")
        );
        let entries = [entry(0, WireRole::User, &[], &["c9"])];
        let s = select(
            &entries,
            &[finding(Rule::P2, 0)],
            Provider::Openai,
            Era::June2026,
        );
        assert!(s.is_empty());
        assert!(
            s.unhealed[0]
                .why
                .starts_with("heals are written in the shapes")
        );
    }

    #[test]
    fn heal_ids_name_their_rules() {
        assert_eq!(
            heal_id(&[Rule::P1, Rule::P3], 13),
            "dsh-session-heal-P1-P3-13"
        );
        assert_eq!(
            heal_rules("dsh-session-heal-P1-P3-13"),
            Some(vec![Rule::P1, Rule::P3])
        );
        assert_eq!(heal_rules("dsh-session-heal-P5-7"), Some(vec![Rule::P5]));
        assert_eq!(heal_rules("dsh-session-heal-x-7"), None);
        assert_eq!(heal_rules("u-7"), None);
    }

    #[test]
    fn provenance_is_encoded_as_the_generation_writes_it() {
        assert_eq!(source_seqs_json(Era::Head, &[3, 4, 5, 9]), "[3,4,5,9]");
        assert_eq!(source_seqs_json(Era::V4, &[3, 4, 5, 9]), "[[3,5],9]");
        assert_eq!(source_seqs_json(Era::V4, &[3, 4, 9]), "[3,4,9]");
    }
}
