//! Exports (issue 17): a session as a transcript a person reads ([`markdown`], [`html`]),
//! and the sessions of a SQLite store as DSH JSONL session directories ([`jsonl`]).
//!
//! A transcript is built once ([`Transcript::build`]) from one finished scan: the derived
//! messages in surface order (FORMAT.md §4), each replace with the entries it shadowed
//! (§3), the turns with `show`'s per-turn counts ([`crate::view::stats`]) and the facts of
//! [`crate::view::transcript`], the header (§6.3) and the verdict with its findings. All
//! text passes through the [`redact::Redactor`] while the transcript is built, so both
//! renderers show the same redacted text and the footer counts each secret once.

pub mod html;
pub mod jsonl;
pub(crate) mod layout;
pub mod markdown;
pub mod redact;
pub mod site;

use std::collections::HashMap;

use serde_json::Value;

use crate::replay::{SurfaceEntry, SurfaceOp};
use crate::scan::{Report, ScanError, ScanOptions};
use crate::view::replacements::Replacement;
use crate::view::stats::Stats;
use crate::view::transcript::TranscriptFacts;
pub use crate::view::transcript::Turn;
use crate::wording::utc;
use redact::Redactor;

/// Longest tool output shown, in characters; longer output is cut there, with its full
/// length noted.
pub const RESULT_CHARS: usize = 4000;

/// One exported session.
#[derive(Debug, Clone)]
pub struct Transcript {
    /// The file the session was read from, as the user named it.
    pub file: String,
    /// Header and session-level facts, as `(label, value)` rows, redacted.
    pub header: Vec<(String, String)>,
    /// The latest `session/title`, redacted.
    pub title: Option<String>,
    /// The verdict (`valid`, `torn-tail`) with what it means, one line.
    pub verdict: String,
    /// Warnings and provider findings, one line each (`P1 at line 15 (seq 17): …`).
    pub findings: Vec<String>,
    /// The turns, in order.
    pub turns: Vec<Turn>,
    /// What is shown, in order: turn boundaries and messages.
    pub items: Vec<Item>,
    /// The redaction footer ([`Redactor::summary`]).
    pub redaction: String,
    /// What was redacted, by kind.
    pub redacted: Vec<(String, u64)>,
}

/// What a transcript shows, in order.
#[derive(Debug, Clone)]
pub enum Item {
    /// A turn boundary: index into [`Transcript::turns`]. `continued` when the turn was
    /// shown before and the surface comes back to it after a replace put a later entry
    /// first.
    Turn {
        /// Index into [`Transcript::turns`].
        index: usize,
        /// The turn's boundary was shown before.
        continued: bool,
    },
    /// Surface entries that belong to no turn follow.
    OutsideTurns,
    /// One derived message (boxed: a message is large, a boundary small).
    Message(Box<Message>),
}

/// One derived message (FORMAT.md §4) as the transcript shows it.
#[derive(Debug, Clone)]
pub struct Message {
    /// The event's seq.
    pub seq: u64,
    /// The event type (`user/message`, `tool/result`, …).
    pub ty: String,
    /// The message role (`user`, `assistant`, `system`, `developer`, `tool`).
    pub role: String,
    /// The event's time, ms since the Unix epoch.
    pub time: Option<i64>,
    /// `replace S..E` for a replacing entry.
    pub replace: Option<(u64, u64)>,
    /// The message's content, in order.
    pub parts: Vec<Part>,
    /// A v4 tool-role result: the call it answers and whether it failed.
    pub result_of: Option<ResultOf>,
    /// A note on the event: a tool result's `data.error`, an interrupted assistant message.
    pub note: Option<String>,
    /// The seqs this replace shadowed: those shown below it and those not kept.
    pub replaced: Replaced,
    /// Every entry below this one, in the order shown (pre-order): the entries it shadowed
    /// at depth 1, each followed by the entries that one had shadowed at depth 2, and so
    /// on. Flat, with depths, so that a replace chain as long as the log is built, shown
    /// and dropped without recursion. Empty in the entries of this list themselves.
    pub shadowed: Vec<Shadowed>,
}

/// The seqs a replace shadowed ([`Message::replaced`]).
#[derive(Debug, Clone, Default)]
pub struct Replaced {
    /// The seqs of the entries shown below the replace, in surface order.
    pub shown: Vec<u64>,
    /// Seqs whose entries were not kept (none in practice).
    pub missing: Vec<u64>,
}

/// An entry shown below the replace that shadowed it ([`Message::shadowed`]).
#[derive(Debug, Clone)]
pub struct Shadowed {
    /// 1 for an entry the shown message shadowed, 2 for one that entry had shadowed, …
    pub depth: usize,
    /// The entry's message (its own `shadowed` is empty).
    pub message: Message,
}

impl Message {
    /// Walks this message and the entries it shadowed in the order shown, without
    /// recursion: `visit(m, depth, true)` opens each (depth 0 for this message), and
    /// `visit(m, depth, false)` closes it once everything below it was opened and closed. A
    /// renderer opens an entry's block on the first and ends it on the second, nesting them
    /// as the replaces did.
    pub fn walk(&self, mut visit: impl FnMut(&Message, usize, bool)) {
        visit(self, 0, true);
        let mut stack: Vec<(&Message, usize)> = vec![(self, 0)];
        for s in &self.shadowed {
            while let Some(&(m, d)) = stack.last() {
                if d < s.depth {
                    break;
                }
                visit(m, d, false);
                stack.pop();
            }
            visit(&s.message, s.depth, true);
            stack.push((&s.message, s.depth));
        }
        while let Some((m, d)) = stack.pop() {
            visit(m, d, false);
        }
    }

    /// The seqs this entry replaced (shown, then missing from the log), and the words that
    /// sum them up in a collapsed part: `Replaced 2 entries (seqs 3, 9): what the model no
    /// longer sees`; `None` when it replaced nothing.
    pub fn replaced_summary(&self) -> Option<String> {
        let Replaced { shown, missing } = &self.replaced;
        if shown.is_empty() && missing.is_empty() {
            return None;
        }
        let seqs: Vec<String> = (shown.iter().chain(missing))
            .map(|s| s.to_string())
            .collect();
        Some(format!(
            "Replaced {} (seqs {}): what the model no longer sees",
            crate::wording::count(seqs.len() as u64, "entry"),
            seqs.join(", ")
        ))
    }
}

impl Message {
    /// System and developer messages are shown collapsed.
    pub fn collapsed(&self) -> bool {
        matches!(self.role.as_str(), "system" | "developer")
    }
}

/// The call a tool result answers.
#[derive(Debug, Clone)]
pub struct ResultOf {
    /// The call id.
    pub call_id: String,
    /// The tool's name, when an earlier assistant message named the call.
    pub tool: Option<String>,
    /// `isError: true`.
    pub is_error: bool,
}

/// One content block (FORMAT.md §2.4.3), redacted.
#[derive(Debug, Clone)]
pub enum Part {
    /// `text`.
    Text(String),
    /// `reasoning` (shown collapsed).
    Reasoning(String),
    /// `tool-call`: its name and its arguments pretty-printed (as stored when they are not
    /// JSON).
    ToolCall {
        /// The call id.
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments, pretty-printed JSON.
        arguments: String,
    },
    /// A tool's output (a `tool-result` block, or a v4 tool message's content).
    ToolOutput {
        /// The call answered.
        of: ResultOf,
        /// The output text, cut at [`RESULT_CHARS`].
        text: String,
        /// The output's full length in characters, when it was cut.
        full_chars: Option<usize>,
    },
    /// `image`: what the log records of it (the bytes are not in the log).
    Image(String),
    /// Any other block, as pretty-printed JSON.
    Other {
        /// The block's `type`.
        ty: String,
        /// The block, pretty-printed.
        json: String,
    },
}

/// What a transcript is built from ([`read_session`]): the report, `show`'s counts with
/// turn rows, the transcript facts, the replaces and the session's priced usage.
pub struct SessionRead {
    /// The scan's report (its fold keeps messages and shadowed entries).
    pub report: Report,
    /// `show`'s counts, with turn rows.
    pub stats: Stats,
    /// The transcript facts.
    pub facts: TranscriptFacts,
    /// Each replace's details.
    pub replacements: Vec<Replacement>,
    /// The session's own usage and cost at the prices given.
    pub usage: crate::view::usage::Counts,
}

/// Reads the log at `path` (one session of a store with `session`) for a transcript, up to
/// its defect as every command reads a damaged log ([`crate::scan::defect`]; twice when the
/// defect is found after later lines, so `path` cannot be standard input), pricing it at
/// `prices`. Used by `export` and the site export.
///
/// # Errors
/// [`ScanError`]: the file cannot be opened or read.
pub fn read_session(
    path: &std::path::Path,
    session: Option<String>,
    prices: std::sync::Arc<crate::prices::PriceTable>,
) -> Result<SessionRead, ScanError> {
    use crate::replay::Keep;
    use crate::view::provider::ProviderRules;
    use crate::view::replacements::Replacements;
    let options = ScanOptions {
        session,
        ..ScanOptions::default()
    };
    let (report, read) = crate::scan::defect::read_up_to_defect(&options, |options| {
        let mut stats = Stats::with_turn_rows();
        let mut provider = ProviderRules::default();
        let mut facts = TranscriptFacts::default();
        let mut replacements = Replacements::default();
        let (mut usage, sink) = crate::view::usage::session_view(std::sync::Arc::clone(&prices));
        let mut keep = Keep {
            messages: true,
            shadowed: true,
            ..Keep::NOTHING
        };
        let report = crate::scan::scan_path_with(
            path,
            options,
            &mut [
                &mut stats,
                &mut provider,
                &mut facts,
                &mut replacements,
                &mut usage,
                // The transcript copies what it shows; the fold's own texts wait on disk.
                &mut keep,
            ],
        )?;
        Ok::<_, ScanError>((report, (stats, facts, replacements.list, sink)))
    })?;
    let (stats, facts, replacements, sink) = read;
    Ok(SessionRead {
        report,
        stats,
        facts,
        replacements,
        usage: crate::view::usage::total(&sink),
    })
}

impl SessionRead {
    /// The transcript of this session ([`Transcript::build`]), the log named `file`, its
    /// cost line `cost` when priced, redacted unless `redact` is false: what `export` and
    /// each page of the site render.
    ///
    /// # Errors
    /// As [`Transcript::build`].
    pub fn transcript(
        &self,
        file: &str,
        cost: Option<&str>,
        redact: bool,
    ) -> std::io::Result<Transcript> {
        let sources = Sources {
            file,
            report: &self.report,
            replacements: &self.replacements,
            stats: &self.stats,
            facts: &self.facts,
            cost,
        };
        Transcript::build(&sources, Redactor::new(redact))
    }

    /// The transcript as `export --format markdown|html` writes it: the log named `file`,
    /// with the session's cost at the prices it was read with, redacted unless `redact` is
    /// false.
    ///
    /// # Errors
    /// As [`Transcript::build`].
    pub fn transcript_text(
        &self,
        file: &str,
        format: TranscriptFormat,
        redact: bool,
    ) -> std::io::Result<String> {
        let cost = crate::prices::money::cost_text(&self.usage);
        let transcript = self.transcript(file, Some(&cost), redact)?;
        Ok(match format {
            TranscriptFormat::Markdown => markdown::render(&transcript),
            TranscriptFormat::Html => html::render(&transcript),
        })
    }
}

/// The text a transcript is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranscriptFormat {
    /// Markdown ([`markdown::render`]).
    Markdown,
    /// One HTML page ([`html::render`]).
    Html,
}

/// What [`Transcript::build`] reads.
pub struct Sources<'a> {
    /// The file as the user named it.
    pub file: &'a str,
    /// The finished scan, its messages and shadowed entries kept.
    pub report: &'a Report,
    /// The log's replaces, in log order.
    pub replacements: &'a [Replacement],
    /// `show`'s counts with turn rows.
    pub stats: &'a Stats,
    /// The transcript facts.
    pub facts: &'a TranscriptFacts,
    /// The session's cost as one line (`show`'s `cost`), when the caller priced it.
    pub cost: Option<&'a str>,
}

impl Transcript {
    /// Builds the transcript of one scanned session, redacting with `redactor`.
    ///
    /// # Errors
    /// The scan's kept messages cannot be read back (see [`crate::replay::Replay::iter`]).
    pub fn build(src: &Sources<'_>, mut redactor: Redactor) -> std::io::Result<Transcript> {
        let shadowed = src.report.replay.shadowed_entries()?;
        let entries = src.report.replay.entries()?;
        let r = &mut redactor;
        let report = src.report;
        let stats = src.stats;
        let mut turns = src.facts.turns_of(&stats.turns);
        for turn in &mut turns {
            // The error message or abort cause, redacted.
            turn.detail = turn.detail.take().map(|d| r.text(&d).into_owned());
        }
        // The path the user named may hold their home directory too.
        let file = r.text(src.file).into_owned();
        let mut header = header_rows(report, stats, r);
        if let Some(cost) = src.cost {
            // Right after the tokens, as `show` prints it.
            let at = header
                .iter()
                .position(|(k, _)| k == "tokens")
                .map_or(header.len(), |i| i + 1);
            header.insert(at, ("cost".to_owned(), cost.to_owned()));
        }
        let title = stats.title.as_deref().map(|t| r.text(t).into_owned());
        let verdict = verdict(report);
        let findings = report
            .warnings
            .iter()
            .map(|w| r.text(&w.to_string()).into_owned())
            .collect();
        let mut builder = Builder {
            facts: src.facts,
            shadowed: shadowed.iter().map(|e| (e.seq, e)).collect(),
            replaced: (src.replacements.iter())
                .map(|x| (x.seq, x.shadowed.clone()))
                .collect(),
            tools: HashMap::new(),
            redactor: r,
        };
        let entries: Vec<&SurfaceEntry> = entries.iter().collect();
        let items = order(&turns, &entries, &mut builder);
        let redacted = redactor
            .counts()
            .iter()
            .map(|(k, n)| ((*k).to_owned(), *n))
            .collect();
        Ok(Transcript {
            file,
            header,
            title,
            verdict,
            findings,
            turns,
            items,
            redaction: redactor.summary(),
            redacted,
        })
    }

    /// The messages shown on the surface (not counting shadowed ones).
    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.items.iter().filter_map(|i| match i {
            Item::Message(m) => Some(&**m),
            _ => None,
        })
    }
}

fn header_rows(report: &Report, stats: &Stats, r: &mut Redactor) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut add = |k: &str, v: String| rows.push((k.to_owned(), v));
    let h = report.header.as_ref();
    if let Some(h) = h {
        add("session id", r.text(&h.id).into_owned());
        if let Some(cwd) = &h.cwd {
            add("cwd", r.text(cwd).into_owned());
        }
        if let Some(t) = h.created_at {
            add("created", utc(t));
        }
        if let Some(p) = &h.lineage.parent_session {
            add("parent session", r.text(p).into_owned());
        }
    }
    if !stats.models.is_empty() {
        let models: Vec<String> = stats
            .models
            .iter()
            .map(|m| format!("{}/{}", m.provider, m.model))
            .collect();
        add("models", models.join(", "));
    }
    let preset = stats
        .selected_agent_preset
        .as_deref()
        .or_else(|| h.and_then(|h| h.agent_preset.as_deref()));
    if let Some(p) = preset {
        add("agent preset", crate::header::agent_preset_shown(p));
    }
    add(
        "format",
        format!(
            "v{} ({} era), {}",
            h.and_then(|h| h.version)
                .map_or("?".to_owned(), |v| v.to_string()),
            report.era.map_or("?", |e| e.name()),
            match report.encoding.name() {
                "sqlite" => "SQLite store".to_owned(),
                other => format!("compression {other}"),
            }
        ),
    );
    let u = stats.usage;
    add(
        "tokens",
        format!(
            "input {}, output {}, cache read {}, cache write {}, reasoning {}",
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            u.reasoning_text()
        ),
    );
    add(
        "events",
        format!(
            "{} ({}, {}, surface {}, {})",
            stats.events,
            crate::wording::count(stats.turn_count, "turn"),
            crate::wording::count(stats.tool_calls, "tool call"),
            crate::wording::count(report.replay.len() as u64, "entry"),
            crate::wording::count(report.replay.replacement_count(), "replacement")
        ),
    );
    rows
}

fn verdict(report: &Report) -> String {
    let status = report.status.name();
    if let Some(f) = &report.finding {
        return match crate::scan::defect::reach(report) {
            crate::scan::defect::Reach::Whole => format!(
                "{status} {f}. DSH 0.1.5 and later refuse to load this session; DSH 0.1.1 loads it, and what follows is the whole log as it loads it"
            ),
            _ => format!(
                "{status} {f}. DSH refuses to load this session; what follows is what was read before the failure ({})",
                crate::scan::defect::read_text(report)
            ),
        };
    }
    match &report.torn {
        Some(t) => format!(
            "{status}: {} from line {}: the bytes after offset {} are left out, as DSH drops them on load",
            t.rule, t.line, t.offset
        ),
        None => format!("{status}: every check DSH makes on load passes"),
    }
}

struct Builder<'a, 'r> {
    facts: &'a TranscriptFacts,
    shadowed: HashMap<u64, &'a SurfaceEntry>,
    replaced: HashMap<u64, Vec<u64>>,
    /// Call id → tool name, from the assistant messages seen so far.
    tools: HashMap<String, String>,
    redactor: &'r mut Redactor,
}

/// Lays the messages out in surface order with the turn boundaries between them: a turn's
/// boundary comes before its first message on the surface; turns with nothing on the
/// surface (their messages were compacted away) come in turn order before the next turn
/// shown, or at the end, so every turn is shown exactly once.
fn order(turns: &[Turn], entries: &[&SurfaceEntry], b: &mut Builder<'_, '_>) -> Vec<Item> {
    let turn_of = |seq: u64| {
        let i = turns
            .partition_point(|t| t.counts.start_seq <= seq)
            .checked_sub(1)?;
        let t = &turns[i];
        t.counts.end_seq.is_none_or(|end| seq <= end).then_some(i)
    };
    let mut items = Vec::new();
    let mut shown = vec![false; turns.len()];
    let mut next_unshown = 0;
    let mut current: Option<Option<usize>> = None;
    for entry in entries {
        let Some(message) = b.message(entry) else {
            continue;
        };
        let turn = turn_of(entry.seq);
        if current != Some(turn) {
            match turn {
                Some(t) => {
                    while next_unshown < t {
                        if !shown[next_unshown] {
                            shown[next_unshown] = true;
                            items.push(Item::Turn {
                                index: next_unshown,
                                continued: false,
                            });
                        }
                        next_unshown += 1;
                    }
                    items.push(Item::Turn {
                        index: t,
                        continued: shown[t],
                    });
                    shown[t] = true;
                }
                None if current.is_some() => items.push(Item::OutsideTurns),
                None => {}
            }
            current = Some(turn);
        }
        items.push(Item::Message(Box::new(message)));
    }
    for (index, done) in shown.iter().enumerate() {
        if !done {
            items.push(Item::Turn {
                index,
                continued: false,
            });
        }
    }
    items
}

impl Builder<'_, '_> {
    /// The message of one surface entry with the entries it shadowed; `None` when it
    /// projects to no message (an empty system head).
    ///
    /// A replace chain can be as long as the log, so the entries below are found with an
    /// explicit stack, and built children first (each entry's shadowed entries before the
    /// entry itself, as the history was written, so a tool named by an older assistant
    /// message is known to a newer result).
    fn message(&mut self, entry: &SurfaceEntry) -> Option<Message> {
        let root = parse_message(entry)?;
        // The tree in pre-order: entry, parsed message, depth, parent index.
        let mut nodes: Vec<(&SurfaceEntry, Value, usize, Option<usize>)> =
            vec![(entry, root, 0, None)];
        // Per node: the seqs shown below it and those missing.
        let mut replaced: Vec<Replaced> = vec![Replaced::default()];
        let mut todo: Vec<(u64, usize)> = Vec::new();
        let children = |b: &Self, seq: u64| b.replaced.get(&seq).cloned().unwrap_or_default();
        todo.extend(children(self, entry.seq).into_iter().rev().map(|s| (s, 0)));
        let mut seen = std::collections::HashSet::from([entry.seq]);
        while let Some((seq, parent)) = todo.pop() {
            let old = self.shadowed.get(&seq).copied();
            let parsed = old
                .filter(|_| seen.insert(seq))
                .and_then(|o| Some((o, parse_message(o)?)));
            let Some((old, value)) = parsed else {
                replaced[parent].missing.push(seq);
                continue;
            };
            replaced[parent].shown.push(seq);
            let index = nodes.len();
            nodes.push((old, value, nodes[parent].2 + 1, Some(parent)));
            replaced.push(Replaced::default());
            todo.extend(children(self, seq).into_iter().rev().map(|s| (s, index)));
        }
        // Build in post-order (children before their parent), store in pre-order.
        let mut kids: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            if let Some(p) = n.3 {
                kids[p].push(i);
            }
        }
        let mut built: Vec<Option<Message>> = Vec::with_capacity(nodes.len());
        built.resize_with(nodes.len(), || None);
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        while let Some((i, next)) = stack.pop() {
            if let Some(&k) = kids[i].get(next) {
                stack.push((i, next + 1));
                stack.push((k, 0));
                continue;
            }
            // Taken, so that a message's JSON lives only until its entry is built.
            let value = std::mem::take(&mut nodes[i].1);
            built[i] =
                Some(self.message_alone(nodes[i].0, &value, std::mem::take(&mut replaced[i])));
        }
        let mut built = built
            .into_iter()
            .zip(&nodes)
            .filter_map(|(m, n)| Some((n.2, m?)));
        let (_, mut top) = built.next()?;
        top.shadowed = built
            .map(|(depth, message)| Shadowed { depth, message })
            .collect();
        Some(top)
    }

    /// The message of one entry, without what it shadowed (their seqs are given).
    fn message_alone(
        &mut self,
        entry: &SurfaceEntry,
        value: &Value,
        replaced: Replaced,
    ) -> Message {
        let role = value
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        let result_of = (role == "tool").then(|| self.result_of(value));
        let blocks = content(value);
        let parts = match &result_of {
            Some(of) => vec![self.output(of.clone(), &blocks)],
            None => blocks.iter().map(|b| self.part(b)).collect(),
        };
        let note = match entry.ty.as_ref() {
            "tool/result" => self
                .facts
                .tool_errors
                .get(&entry.seq)
                .map(|e| format!("error: {}", self.redactor.text(e))),
            "assistant/message" if self.facts.interrupted.contains(&entry.seq) => {
                Some("interrupted: the text delivered before a cancellation".to_owned())
            }
            _ => None,
        };
        Message {
            seq: entry.seq,
            ty: entry.ty.to_string(),
            role,
            time: self.facts.times.get(&entry.seq).copied(),
            replace: match entry.op {
                SurfaceOp::Replace { start, end } => Some((start, end)),
                SurfaceOp::Append => None,
            },
            parts,
            result_of,
            note,
            replaced,
            shadowed: Vec::new(),
        }
    }

    /// What a tool result (a `tool` message, a `tool-result` block) answers: its
    /// `toolCallId`, the tool's name by that id, and its `isError`.
    fn result_of(&self, value: &Value) -> ResultOf {
        let call_id = value
            .get("toolCallId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        ResultOf {
            tool: self
                .tools
                .get(&call_id)
                .or_else(|| self.facts.tool_names.get(&call_id))
                .cloned(),
            is_error: value.get("isError").and_then(Value::as_bool) == Some(true),
            call_id,
        }
    }

    fn part(&mut self, block: &Value) -> Part {
        let ty = block.get("type").and_then(Value::as_str).unwrap_or("?");
        let s = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or_default();
        match ty {
            "text" => Part::Text(self.redactor.text(s("text")).into_owned()),
            "reasoning" => Part::Reasoning(self.redactor.text(s("text")).into_owned()),
            "tool-call" => {
                let (id, name) = (s("id").to_owned(), s("name").to_owned());
                self.tools.insert(id.clone(), name.clone());
                Part::ToolCall {
                    id: self.redactor.text(&id).into_owned(),
                    name: self.redactor.text(&name).into_owned(),
                    arguments: self.pretty_arguments(s("arguments")),
                }
            }
            "tool-result" => self.output(self.result_of(block), &content(block)),
            "image" => Part::Image(image(block)),
            _ => {
                let mut copy = block.clone();
                self.redactor.json(&mut copy);
                Part::Other {
                    ty: ty.to_owned(),
                    json: serde_json::to_string_pretty(&copy).unwrap_or_default(),
                }
            }
        }
    }

    /// A tool's output: its text blocks joined by newlines, other blocks described, cut
    /// at [`RESULT_CHARS`].
    fn output(&mut self, of: ResultOf, blocks: &[Value]) -> Part {
        let mut text = String::new();
        for (i, block) in blocks.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            match block.get("type").and_then(Value::as_str) {
                Some("text") => text.push_str(
                    block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                ),
                Some("image") => text.push_str(&format!("[{}]", image(block))),
                _ => text.push_str(&serde_json::to_string(block).unwrap_or_default()),
            }
        }
        let text = self.redactor.text(&text).into_owned();
        let chars = text.chars().count();
        let (text, full_chars) = if chars > RESULT_CHARS {
            (text.chars().take(RESULT_CHARS).collect(), Some(chars))
        } else {
            (text, None)
        };
        Part::ToolOutput {
            of: ResultOf {
                call_id: self.redactor.text(&of.call_id).into_owned(),
                ..of
            },
            text,
            full_chars,
        }
    }

    /// Tool-call arguments (raw JSON text, FORMAT.md §2.4.3) pretty-printed with their
    /// strings redacted; kept as stored (redacted) when they are not JSON.
    fn pretty_arguments(&mut self, raw: &str) -> String {
        match serde_json::from_str::<Value>(raw) {
            Ok(mut v) => {
                self.redactor.json(&mut v);
                serde_json::to_string_pretty(&v).unwrap_or_default()
            }
            Err(_) => self.redactor.text(raw).into_owned(),
        }
    }
}

/// An entry's message as JSON; `None` when it projects to none (an empty system head).
///
/// serde_json refuses a lone surrogate escape (P5) and nesting past 128 levels, both of
/// which DSH stores; such a message is read with this crate's parser instead
/// ([`shallow_value`]), so the transcript never leaves a stored message out.
fn parse_message(entry: &SurfaceEntry) -> Option<Value> {
    let text = entry.message.as_deref()?;
    serde_json::from_str(text).ok().or_else(|| {
        let v = crate::json::Json::parse(text).ok()?;
        Some(shallow_value(v, SHALLOW_DEPTH))
    })
}

/// How deep [`shallow_value`] builds a value; deeper values are shown as their stored text.
const SHALLOW_DEPTH: usize = 64;

/// `v` as a serde value down to `depth` levels (a bound of ours, so the recursion never
/// follows the data): what is nested deeper becomes its stored JSON text, and a lone
/// surrogate becomes U+FFFD, as text is shown.
fn shallow_value(v: crate::json::Json<'_>, depth: usize) -> Value {
    use crate::json::Kind;
    match v.kind() {
        Kind::Array | Kind::Object if depth == 0 => Value::String(v.raw().to_owned()),
        Kind::Array => Value::Array(v.elements().map(|e| shallow_value(e, depth - 1)).collect()),
        Kind::Object => Value::Object(
            v.members()
                .map(|(k, e)| {
                    let key = k.as_str().unwrap_or_default().into_owned();
                    (key, shallow_value(e, depth - 1))
                })
                .collect(),
        ),
        Kind::String => Value::String(v.as_str().unwrap_or_default().into_owned()),
        Kind::Null | Kind::Bool | Kind::Number => {
            serde_json::from_str(v.raw()).unwrap_or(Value::Null)
        }
    }
}

/// `image image/png 800×600, 12345 bytes (name)` from an ImageAttachmentRef (§2.4.3).
/// The `content` blocks of a message or a `tool-result` block (none when it has no array).
fn content(value: &Value) -> Vec<Value> {
    value
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn image(block: &Value) -> String {
    let a = block.get("attachment").unwrap_or(block);
    let mut out = format!(
        "image {}",
        a.get("mediaType").and_then(Value::as_str).unwrap_or("?")
    );
    if let (Some(w), Some(h)) = (a.get("width"), a.get("height")) {
        out.push_str(&format!(" {w}×{h}"));
    }
    if let Some(b) = a.get("bytes") {
        out.push_str(&format!(", {b} bytes"));
    }
    out.push_str(", not stored in the log");
    out
}
