//! The v1→v2 edge (GENERATIONS §5): top-level `assistant/chunk` events and packed chunk
//! rows are consumed into the compact `stream` of the `assistant/message` that cites its
//! complete ordered attempt, or into an `assistant/attempt` placed after the last chunk;
//! the events are then numbered anew, so a reference to a consumed chunk cannot be kept.
//!
//! Refused here (F7 unless said): a message that cites part of its attempt, or another
//! run of chunks; a message without provenance while an attempt is open; a reference to a
//! consumed chunk; an inherited cut that splits an attempt; a chunk the stream
//! accumulator cannot take; a `turn/start` while a turn is still open (F6) — except the
//! restart DSH itself wrote (an open turn without an open step, then a `next-turn` inbox
//! splice, then the next turn), which the edge closes with an inserted `turn/end
//! {interrupted}` (GENERATIONS §12.5). The frozen codec's own row checks of a packed row
//! are here too ([`decode_packed`]).
//!
//! Learnt from `packages/session/session-format-v1-to-v2/src/migration.ts`,
//! `packages/session/session-format-v0-to-v1/src/codec.ts` (`decodePackedRun`) and
//! `packages/llm/llm/src/assistant-stream.ts` (`AssistantStreamAccumulator.push`),
//! tenyi/deepseek-harness @ `77afa3438160c9b45d81277b1fa64e9edcd9416d` (S-v12M, S-v01C,
//! S-stream).

use crate::edge::Source;
use crate::edge::shape::{Checked, Refusal, seqs};
use crate::header::Header;
use crate::json::{Fields, Json, Kind};
use crate::load::packed::PackedSpan;
use crate::rules::Rule;

fn chunk_refused(detail: String) -> Refusal {
    Refusal {
        rule: Rule::F7,
        detail,
    }
}

/// The open turn and step of the migrated log at a point, as its final check sees them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StepState {
    /// The open turn.
    pub turn: Option<u64>,
    /// The open step.
    pub step: Option<u64>,
}

impl StepState {
    /// True when `turn` and `step` are the open ones.
    pub fn matches(self, turn: u64, step: u64) -> bool {
        self.turn == Some(turn) && self.step == Some(step)
    }
}

/// An `assistant/attempt` the edge inserts for chunks no message cited.
#[derive(Debug, Clone, Copy)]
pub struct Attempt {
    /// Its turn.
    pub turn: u64,
    /// Its step.
    pub step: u64,
    /// The seq of its last chunk, where it is placed.
    pub last_seq: u64,
    /// The line of its last chunk.
    pub last_line: u64,
    /// The open turn and step right after its last chunk.
    pub at: StepState,
}

/// What the edge emits for one source event besides (or instead of) the event.
#[derive(Debug, Default)]
pub struct Out {
    /// An attempt finished before the event.
    pub attempt: Option<Attempt>,
    /// The turn the edge ends with an inserted `turn/end {interrupted}` before the event.
    pub interrupted_turn: Option<u64>,
    /// False for a chunk, which the edge consumes.
    pub emit: bool,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Group {
    turn: u64,
    step: u64,
    /// Runs of consecutive chunk seqs, in order.
    spans: Vec<(u64, u64)>,
    last_seq: u64,
    last_line: u64,
    at: StepState,
    terminal: bool,
}

impl Group {
    fn attempt(&self) -> Attempt {
        Attempt {
            turn: self.turn,
            step: self.step,
            last_seq: self.last_seq,
            last_line: self.last_line,
            at: self.at,
        }
    }

    fn record(&mut self, first: u64, count: u64, line: u64, at: StepState) {
        match self.spans.last_mut() {
            Some((start, n)) if *start + *n == first => *n += count,
            _ => self.spans.push((first, count)),
        }
        self.last_seq = first + count - 1;
        self.last_line = line;
        self.at = at;
    }

    /// `matchesChunkSources`: the list names every chunk of the attempt, in order.
    fn cited_by(&self, sources: Json<'_>) -> bool {
        let mut cited = seqs(Some(sources));
        self.spans
            .iter()
            .all(|&(start, n)| (start..start + n).all(|seq| cited.next() == Some(seq)))
            && cited.next().is_none()
    }
}

/// The v1→v2 edge's state: the pending attempt, the legacy turn tracking, and which seqs
/// were chunks.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Attempts {
    cut: u64,
    pending: Option<Group>,
    open_turn: Option<u64>,
    open_step: Option<u64>,
    /// The event before was a `next-turn` inbox splice with messages.
    after_next_turn_splice: bool,
    /// One bit per seq: was it a chunk (consumed).
    chunks: Vec<u64>,
}

impl Attempts {
    /// The edge's state for a log with `header` (its inherited cut is `seedLength`).
    pub fn new(header: Option<&Header>) -> Attempts {
        Attempts {
            cut: header.and_then(|h| h.lineage.seed()).unwrap_or(0),
            ..Attempts::default()
        }
    }

    fn mark_chunk(&mut self, seq: u64) {
        let word = (seq / 64) as usize;
        if self.chunks.len() <= word {
            self.chunks.resize(word + 1, 0);
        }
        self.chunks[word] |= 1 << (seq % 64);
    }

    fn is_chunk(&self, seq: u64) -> bool {
        self.chunks
            .get((seq / 64) as usize)
            .is_some_and(|w| w & (1 << (seq % 64)) != 0)
    }

    fn finish_attempt(&mut self) -> Option<Attempt> {
        self.pending.take().map(|g| g.attempt())
    }

    /// `assertAttemptCut`: an attempt lies wholly before or wholly after the cut.
    fn check_cut(&self, first: u64, member: u64) -> Checked {
        if (first < self.cut) != (member < self.cut) {
            return Err(chunk_refused(format!(
                "inherited Session cut {} splits one Assistant attempt",
                self.cut
            )));
        }
        Ok(())
    }

    /// One event: chunks are consumed, messages take or leave the pending attempt.
    /// `at` is the open turn and step before the event.
    ///
    /// # Errors
    /// What the edge refuses first in this event.
    pub fn event(&mut self, ev: &Source<'_>, at: StepState) -> Checked<Out> {
        let mut out = Out {
            emit: true,
            ..Out::default()
        };
        let data = ev.data.filter(|d| d.is_object());
        let fields = ev.fields;
        let field = |k: &str| fields.seq(k);
        let interrupted = if ev.ty == "turn/start" {
            self.restart(ev, field("turn"))
        } else {
            None
        };
        if ev.ty == "turn/start" && self.open_turn.is_some() && interrupted.is_none() {
            let turn = data
                .and_then(|d| d.get("turn"))
                .map_or("undefined", Json::raw);
            return Err(Refusal {
                rule: Rule::F6,
                detail: format!("turn/start {turn} does not close the prior turn"),
            });
        }
        match ev.ty {
            "turn/start" => (self.open_turn, self.open_step) = (field("turn"), None),
            "turn/end" => (self.open_turn, self.open_step) = (None, None),
            "step/start" => self.open_step = field("step"),
            "step/end" => self.open_step = None,
            _ => {}
        }
        self.after_next_turn_splice = ev.ty == "agent/inbox/spliced"
            && data.is_some_and(|d| {
                d.get("target").is_some_and(|t| t.str_eq("next-turn"))
                    && d.get("inserted")
                        .is_some_and(|i| i.is_array() && !i.is_empty())
            });
        if let Some(turn) = interrupted {
            out.attempt = self.finish_attempt();
            out.interrupted_turn = Some(turn);
        }
        match ev.ty {
            "assistant/chunk" => {
                out.emit = false;
                if let Some(done) = self.chunk(ev, data, at)? {
                    out.attempt = Some(done);
                }
                return Ok(out);
            }
            "assistant/message" => {
                if let Some(done) = self.message(ev, field("turn"), field("step"))? {
                    out.attempt = Some(done);
                }
            }
            "turn/end" | "step/end" | "llm/retry" | "llm/retry-started" => {
                if let Some(done) = self.finish_attempt() {
                    out.attempt = Some(done);
                }
            }
            _ => {}
        }
        self.references(ev, data)?;
        Ok(out)
    }

    /// `legacyInterruptedTurn`: the restart pattern, as the turn the edge closes.
    fn restart(&self, ev: &Source<'_>, turn: Option<u64>) -> Option<u64> {
        let open = self.open_turn?;
        (ev.ty == "turn/start"
            && self.open_step.is_none()
            && turn == Some(open + 1)
            && self.after_next_turn_splice)
            .then_some(open)
    }

    fn chunk(
        &mut self,
        ev: &Source<'_>,
        data: Option<Json<'_>>,
        at: StepState,
    ) -> Checked<Option<Attempt>> {
        // `data` is the event's when an object: its record holds the members.
        let fields = if data.is_some() {
            *ev.fields
        } else {
            Fields::default()
        };
        let turn = fields.seq("turn").unwrap_or(0);
        let step = fields.seq("step").unwrap_or(0);
        let chunk = fields.get("chunk");
        let mut done = None;
        if self
            .pending
            .as_ref()
            .is_some_and(|g| g.terminal || g.turn != turn || g.step != step)
        {
            done = self.finish_attempt();
        }
        let group = self.pending.get_or_insert_with(|| Group {
            turn,
            step,
            spans: Vec::new(),
            last_seq: ev.seq,
            last_line: ev.line,
            at,
            terminal: false,
        });
        let first = group.spans.first().map_or(ev.seq, |s| s.0);
        self.check_cut(first, ev.seq)?;
        accumulate(chunk, ev.seq)?;
        let group = self.pending.as_mut().expect("inserted above");
        let after = at;
        group.record(ev.seq, 1, ev.line, after);
        if chunk
            .and_then(|c| c.get("type"))
            .is_some_and(|t| t.str_eq("finish"))
        {
            group.terminal = true;
        }
        self.mark_chunk(ev.seq);
        Ok(done)
    }

    /// `transformMessage`.
    fn message(
        &mut self,
        ev: &Source<'_>,
        turn: Option<u64>,
        step: Option<u64>,
    ) -> Checked<Option<Attempt>> {
        let (turn, step) = (turn.unwrap_or(0), step.unwrap_or(0));
        let Some(group) = &self.pending else {
            return match ev.sources {
                Some(s) if s.is_array() && !s.is_empty() => Err(chunk_refused(format!(
                    "assistant/message {} chunk provenance is not one complete ordered attempt",
                    ev.seq
                ))),
                _ => Ok(None),
            };
        };
        if group.turn != turn || group.step != step {
            return Ok(self.finish_attempt());
        }
        match ev.sources.filter(|s| s.is_array()) {
            None => Err(chunk_refused(format!(
                "assistant/message {} does not cite its complete v1 chunk attempt",
                ev.seq
            ))),
            Some(s) if s.is_empty() => Ok(self.finish_attempt()),
            Some(s) if !group.cited_by(s) => Err(chunk_refused(format!(
                "assistant/message {} chunk provenance is not one complete ordered attempt",
                ev.seq
            ))),
            Some(_) => {
                self.check_cut(group.spans.first().map_or(ev.seq, |s| s.0), ev.seq)?;
                self.pending = None;
                Ok(None)
            }
        }
    }

    /// `remapReferences`: every same-log reference must name an event that survives.
    fn references(&self, ev: &Source<'_>, data: Option<Json<'_>>) -> Checked {
        let consumed = |value: Option<Json<'_>>, what: &str| -> Checked {
            match value.and_then(Json::as_seq) {
                Some(seq) if self.is_chunk(seq) => Err(chunk_refused(format!(
                    "{} {} {what} targets consumed assistant/chunk {seq}",
                    ev.ty, ev.seq
                ))),
                _ => Ok(()),
            }
        };
        let each = |list: Option<Json<'_>>, what: &str| -> Checked {
            for value in list.into_iter().flat_map(Json::elements) {
                consumed(Some(value), what)?;
            }
            Ok(())
        };
        if ev.ty != "assistant/message" {
            for seq in seqs(ev.sources) {
                if self.is_chunk(seq) {
                    return Err(chunk_refused(format!(
                        "{} {} sources targets consumed assistant/chunk {seq}",
                        ev.ty, ev.seq
                    )));
                }
            }
        }
        if let Some(op) = ev.surface_op.filter(|op| op.is_object()) {
            consumed(op.get("start"), "surface start")?;
            consumed(op.get("end"), "surface end")?;
        }
        let field = |k: &str| data.and_then(|d| d.get(k));
        match ev.ty {
            "command/done" => consumed(field("sourceEventSeq"), "sourceEventSeq"),
            "compaction/prune" | "compaction/summary" => {
                let range = field("shadowedRange");
                consumed(range.and_then(|r| r.get("start")), "shadowedRange start")?;
                consumed(range.and_then(|r| r.get("end")), "shadowedRange end")?;
                each(field("shadowedSeqs"), "shadowedSeqs")
            }
            "session/title" | "session/title-llm-request" => {
                each(field("messageSeqs"), "messageSeqs")
            }
            _ => Ok(()),
        }
    }

    /// One packed row, decoded by [`decode_packed`]: the same as its chunks one by one.
    ///
    /// # Errors
    /// An inherited cut that splits the attempt.
    pub fn run(&mut self, run: &Run, line: u64, at: StepState) -> Checked<Option<Attempt>> {
        self.after_next_turn_splice = false;
        let mut done = None;
        if self
            .pending
            .as_ref()
            .is_some_and(|g| g.terminal || g.turn != run.turn || g.step != run.step)
        {
            done = self.finish_attempt();
        }
        let group = self.pending.get_or_insert_with(|| Group {
            turn: run.turn,
            step: run.step,
            spans: Vec::new(),
            last_seq: run.first,
            last_line: line,
            at,
            terminal: false,
        });
        group.record(run.first, run.count, line, at);
        let last = run.first + run.count - 1;
        self.check_cut(run.first, last)?;
        for seq in run.first..=last {
            self.mark_chunk(seq);
        }
        Ok(done)
    }

    /// The attempt still pending at the end of the log.
    pub fn finish(&mut self) -> Option<Attempt> {
        self.finish_attempt()
    }
}

/// `AssistantStreamAccumulator.push`: what it needs of a chunk to compact it.
fn accumulate(chunk: Option<Json<'_>>, seq: u64) -> Checked {
    let refuse = |what: &str| {
        Err(chunk_refused(format!(
            "assistant/chunk {seq} cannot join the compact stream: {what}"
        )))
    };
    let Some(chunk) = chunk.filter(|c| c.is_object()) else {
        return refuse("its chunk is not an object");
    };
    let ty = chunk.get("type");
    let is = |name: &str| ty.is_some_and(|t| t.str_eq(name));
    let index_ok = || {
        chunk.get("index").is_some_and(|i| {
            i.kind() == Kind::Number && !i.is_negative_zero() && i.as_seq().is_some()
        })
    };
    let string = |k: &str| chunk.get(k).is_some_and(|v| v.kind() == Kind::String);
    if is("text-delta") || is("reasoning-delta") {
        if !index_ok() {
            return refuse("index must be a non-negative safe integer");
        }
        if !string("text") {
            return refuse("text must be a string");
        }
    } else if is("tool-call-delta") {
        if !index_ok() {
            return refuse("index must be a non-negative safe integer");
        }
        if !string("id") {
            return refuse("tool-call-delta id must be a string");
        }
        if chunk.has("name") && !string("name") {
            return refuse("tool-call-delta name must be a string");
        }
        if !string("argumentsDelta") {
            return refuse("tool-call-delta argumentsDelta must be a string");
        }
    } else if !(is("block-start") || is("block-end") || is("usage") || is("finish")) {
        return refuse(&format!(
            "chunk type {} is not a model stream chunk",
            ty.map_or_else(|| "undefined".to_owned(), |t| t.raw().to_owned())
        ));
    }
    Ok(())
}

/// A packed chunk row as the frozen codec decodes it.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// Seq of the first member.
    pub first: u64,
    /// Number of members.
    pub count: u64,
    /// `data.turn`.
    pub turn: u64,
    /// `data.step`.
    pub step: u64,
}

/// `decodePackedRun`: the frozen codec's checks of a packed row beyond those of DSH 0.1.1
/// (counts for `turn`, `step` and `index`; a non-empty tool-call `id`).
///
/// # Errors
/// The codec's refusal (F7): DSH 0.1.5 and later cannot decode the row.
pub fn decode_packed(row: Json<'_>, span: &PackedSpan, line: u64) -> Checked<Run> {
    let ty = row.get("type").and_then(Json::raw_str_body).unwrap_or("");
    // The codec counts rows from 0 after the header (line 1).
    let label = || format!("released {ty} row {}", line.saturating_sub(2));
    let data = row.get("data").filter(|d| d.is_object());
    let field = |k: &str| data.and_then(|d| d.get(k));
    let count_of = |k: &str| -> Checked<u64> {
        match field(k) {
            Some(v) if v.kind() == Kind::Number && !v.is_negative_zero() => v.as_seq().ok_or(()),
            _ => Err(()),
        }
        .map_err(|()| {
            chunk_refused(format!(
                "{} {k} must be a non-negative safe integer",
                label()
            ))
        })
    };
    let turn = count_of("turn")?;
    let step = count_of("step")?;
    count_of("index")?;
    if ty == "tool-call-chunks" {
        let id_ok = field("id").is_some_and(Json::is_nonempty_string);
        let name_ok = field("name").is_none_or(|n| n.kind() == Kind::String);
        if !id_ok || !name_ok {
            return Err(chunk_refused(format!(
                "{} id and optional name must be strings",
                label()
            )));
        }
    }
    Ok(Run {
        first: span.seq0,
        count: span.len() as u64,
        turn,
        step,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_must_cite_its_whole_attempt_in_order() {
        let group = Group {
            turn: 1,
            step: 1,
            spans: vec![(3, 2), (7, 1)],
            last_seq: 7,
            last_line: 9,
            at: StepState::default(),
            terminal: false,
        };
        let cites = |text: &str| group.cited_by(Json::parse(text).unwrap());
        assert!(cites("[3,4,7]"));
        assert!(!cites("[3,4]"));
        assert!(!cites("[4,3,7]"));
        // A list that goes on past the attempt, as a seq or as a range, cites more than it.
        assert!(!cites("[3,4,7,8]"));
        assert!(!cites("[3,4,[7,8]]"));
        assert!(cites("[[3,4],7]"));
    }
}
