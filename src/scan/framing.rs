//! Framing the JSONL records (FORMAT.md §5.5.1 J2–J7, §7.4): each line after the header is
//! an event, a packed row, or a defect that the torn-tail bookkeeping weighs until a
//! committed `turn/end` shows it is not torn (J5). SQLite rows arrive as the same lines.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::event::Event;
use crate::json::{Document, Json};
use crate::load::Line;
use crate::load::packed::{PackedRow, PackedSpan, packed_row_of_type, packed_span};
use crate::load::read_ahead::{PackedAhead, Prepared, leading_seq};
use crate::rules::{Finding, Rule};
use crate::scan::torn::TornScan;

/// What framing a line needs to know of the scan.
#[derive(Debug)]
pub struct FrameContext<'a> {
    /// The seq the next event must have.
    pub expected: u64,
    /// The generation has packed chunk rows (v0, v1).
    pub packed_rows: bool,
    /// The lines are SQLite rows (J5 becomes Q7).
    pub sqlite: bool,
    /// A second pass wants only these seqs.
    pub only_seqs: Option<&'a HashSet<u64>>,
    /// The judged DSH reads a historical log in the recoverable reading (0.1.5 and later):
    /// a JSON `null` line is a defect like any other (a torn tail, or J5 once a `turn/end`
    /// follows). DSH 0.1.1's store aborts the whole load on one (J7).
    pub recoverable: bool,
}

/// A good record, handed to the scan.
// Moved into the sink once per line and never stored: boxing the event would allocate
// once per event on the hot path.
#[allow(clippy::large_enum_variant)]
pub enum Record<'a> {
    /// One event and its line.
    Event(Event<'a>, u64),
    /// A packed row: the row's JSON, its span and its line.
    Packed(Json<'a>, &'a PackedSpan, u64),
}

/// What the scan does after a line.
#[derive(Debug)]
pub enum Framed {
    /// Go on with the next line.
    Next,
    /// A second pass skipped an unwanted event: count it and go on.
    Skipped,
    /// The load stops with this finding (J5, J7, Q7).
    Stop(Finding),
}

/// Frames one record line after the header (§5.5.1 J2–J7): a defect joins the torn-tail
/// bookkeeping in `torn`, a committed `turn/end` after a defect (J5) or, for DSH 0.1.1, a
/// JSON `null` (J7) stops the load, and a good line goes to `sink` as an event or a packed
/// row.
pub(crate) fn frame_line(
    line: &Line,
    prepared: &Prepared,
    torn: &mut TornScan,
    context: &FrameContext<'_>,
    sink: &mut dyn FnMut(Record<'_>),
) -> Framed {
    if let Some(wanted) = context.only_seqs
        && let Some(seq) = leading_seq(&line.bytes)
        && !wanted.contains(&seq)
        && seq == context.expected
    {
        // A second pass for a view that wants a few events only: the first pass checked
        // everything, so an event it does not want is counted, not parsed.
        torn.next_line = line.number + 1;
        return Framed::Skipped;
    }
    // Invalid UTF-8 becomes U+FFFD, as DSH's decoder does (§1.5); a line the reader
    // parsed is UTF-8 already.
    let text = match prepared.text(line) {
        Some(text) => Cow::Borrowed(text),
        None => String::from_utf8_lossy(&line.bytes),
    };
    torn.next_line = line.number + 1;
    if let Some(why) = &line.defect {
        if torn.first.is_some() {
            torn.lines += 1;
        } else {
            torn.defect(line, 0, Rule::Q8, format!("row fails to decode: {why}"));
        }
        return Framed::Next;
    }
    if torn.first.is_some()
        && line.terminated
        && line.bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
    {
        // A blank line after the first defect holds no event: no parse needed.
        torn.lines += 1;
        return Framed::Next;
    }
    if line.too_long {
        if torn.first.is_some() {
            torn.lines += 1;
        } else {
            let what = format!(
                "line longer than {} bytes is not parsed",
                crate::load::MAX_LINE_BYTES
            );
            torn.defect(line, 0, Rule::J3, what);
        }
        return Framed::Next;
    }
    if !line.terminated && torn.first.is_some() {
        torn.lines += 1;
        return Framed::Next;
    }
    if !line.terminated {
        torn.defect(
            line,
            0,
            Rule::J2,
            "final line has no newline (torn final line)".into(),
        );
        return Framed::Next;
    }
    let parsed_here;
    let parsed = match (prepared.parsed(), &text) {
        (Some(Ok(skips)), Cow::Borrowed(text)) => Ok(Json::indexed_root(text, skips)),
        (Some(Err(e)), Cow::Borrowed(_)) => Err(e.clone()),
        _ => {
            parsed_here = Document::parse(&text);
            parsed_here
                .as_ref()
                .map(Document::root)
                .map_err(Clone::clone)
        }
    };
    if let Ok(json) = parsed
        && json.is_null()
    {
        if context.recoverable {
            if torn.first.is_some() {
                torn.lines += 1;
            } else {
                torn.defect(line, 0, Rule::J7, "line is JSON null".into());
            }
            return Framed::Next;
        }
        return Framed::Stop(Finding::new(
            Rule::J7,
            None,
            Some(line.number),
            "event line is JSON null (DSH 0.1.1 aborts the whole load)",
        ));
    }
    let is_turn_end = |json: Json<'_>| json.get("type").is_some_and(|t| t.str_eq("turn/end"));
    if let Some(first) = &torn.first {
        // After the first defect, lines are only parsed to look for a turn/end (J5).
        if let Ok(json) = parsed {
            // Events the line holds: a packed row's members, none for a broken row.
            let events = |row: Option<&Result<PackedSpan, String>>| {
                row.map_or(1, |r| r.as_ref().map_or(0, |span| span.len() as u64))
            };
            let members = match &prepared.packed {
                _ if !context.packed_rows => 1,
                PackedAhead::NotRead => events(packed_span(json).as_ref()),
                PackedAhead::NotPacked => events(None),
                PackedAhead::Row(row) => events(Some(row)),
            };
            if is_turn_end(json) {
                return Framed::Stop(first.j5(line.number, context.sqlite));
            }
            torn.events += members;
        }
        torn.lines += 1;
        return Framed::Next;
    }
    let json = match parsed {
        Ok(json) => json,
        Err(e) => {
            torn.defect(line, 0, Rule::J3, format!("line is not valid JSON: {e}"));
            return Framed::Next;
        }
    };
    let expected = context.expected;
    let packed_here;
    let (ev, packed) = match &prepared.packed {
        // A packed row read ahead: no event to split.
        PackedAhead::Row(row) => (None, Some(row.as_ref())),
        PackedAhead::NotPacked => (Event::from_object(json), None),
        PackedAhead::NotRead => {
            // One pass over the envelope's members serves the packed-row test, the seq
            // check and the event.
            let ev = Event::from_object(json);
            packed_here = ev
                .as_ref()
                .and_then(|ev| ev.ty)
                .filter(|_| context.packed_rows)
                .and_then(|tag| packed_row_of_type(json, tag))
                .map(|row| row.map(PackedRow::into_span));
            (ev, packed_here.as_ref().map(Result::as_ref))
        }
    };
    match packed {
        Some(Err(what)) => torn.defect(
            line,
            0,
            Rule::J3,
            format!("invalid packed chunk row: {what}"),
        ),
        Some(Ok(row)) => {
            let seq0 = row.seq0;
            if seq0 != expected {
                torn.defect(
                    line,
                    row.len() as u64,
                    Rule::J4,
                    seq_problem(expected, Some(seq0 as f64), &seq0.to_string()),
                );
                torn.first.as_mut().expect("just set").seq_gap = Some((
                    expected,
                    json.get("seq0").map_or("?".into(), |s| s.raw().to_owned()),
                ));
                return Framed::Next;
            }
            sink(Record::Packed(json, row, line.number));
            torn.committed_end = line.offset + line.bytes.len() as u64 + 1;
        }
        None => {
            let seq = ev.as_ref().and_then(|ev| ev.seq);
            let seq_ok = seq.and_then(Json::as_f64) == Some(expected as f64);
            if !seq_ok {
                let found = seq.map_or_else(|| "no seq".to_owned(), |s| s.raw().to_owned());
                let problem = match seq {
                    None => format!("no seq (expected {expected})"),
                    Some(s) => seq_problem(expected, s.as_f64(), s.raw()),
                };
                torn.defect(line, u64::from(json.is_object()), Rule::J4, problem);
                torn.first.as_mut().expect("just set").seq_gap = Some((expected, found));
                if is_turn_end(json) {
                    let first = torn.first.as_ref().expect("just set");
                    return Framed::Stop(first.j5(line.number, context.sqlite));
                }
                return Framed::Next;
            }
            let ev = ev.expect("objects only: seq matched");
            sink(Record::Event(ev, line.number));
            torn.committed_end = line.offset + line.bytes.len() as u64 + 1;
        }
    }
    if line.from_torn_frame {
        torn.recovered_lines += 1;
    }
    Framed::Next
}

/// What is wrong with a record's seq (J4), in words that say which case it is: a gap
/// (a larger integer), a repeat or step back (a smaller one), or not a seq at all.
fn seq_problem(expected: u64, number: Option<f64>, raw: &str) -> String {
    // A seq is a non-negative safe integer (E3): 2^53 and above are not seqs at all.
    let seq = number.filter(|n| n.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(n));
    match seq {
        Some(n) if n > expected as f64 => format!("seq gap (expected {expected}, got {raw})"),
        Some(_) => format!("seq repeats or goes back (expected {expected}, got {raw})"),
        None => format!("seq is not a non-negative safe integer (got {raw}, expected {expected})"),
    }
}
