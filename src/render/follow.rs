//! How `follow` prints what [`dsh_session::follow`] tells: one line of text per thing
//! said (prefixed with the log when following a root), or one JSON object per line.

use std::io::Write;

use dsh_session::follow::{Log, Printer, Said};
use dsh_session::rules::Rule;
use dsh_session::view::follow::Happening;
use dsh_session::wording::count;
use serde_json::{Value, json};

use crate::cli::FollowFormat;
use crate::render::{FindingJson, place};

/// Version of the JSON objects `follow --format jsonl` prints.
pub const SCHEMA_VERSION: u32 = 1;

/// Where happenings are printed.
pub struct FollowPrinter<'a> {
    /// Standard output.
    pub out: &'a mut dyn Write,
    /// `--format`.
    pub format: FollowFormat,
    /// The columns a `said` line may take ([`said_width`], read once).
    pub said_width: usize,
}

impl FollowPrinter<'_> {
    /// Prints one line: `text` for people, `object` (without the common fields) for
    /// machines.
    fn print(
        &mut self,
        log: &Log<'_>,
        kind: &str,
        text: &str,
        object: Value,
    ) -> std::io::Result<()> {
        match self.format {
            FollowFormat::Text => {
                if log.prefixed {
                    writeln!(self.out, "{}: {text}", log.shown)?;
                } else {
                    writeln!(self.out, "{text}")?;
                }
            }
            FollowFormat::Jsonl => {
                let mut line = json!({
                    "schema_version": SCHEMA_VERSION,
                    "kind": kind,
                    "file": log.shown,
                    "session": log.session,
                });
                if let (Some(line), Value::Object(fields)) = (line.as_object_mut(), object) {
                    line.extend(fields);
                }
                serde_json::to_writer(&mut *self.out, &line)?;
                writeln!(self.out)?;
            }
        }
        Ok(())
    }

    /// A happening's kind, text and object.
    fn happening(&self, log: &Log<'_>, happening: &Happening) -> (&'static str, String, Value) {
        let at = |seq: u64, line: u64| {
            if log.sqlite {
                format!("seq {seq}")
            } else {
                format!("seq {seq}, line {line}")
            }
        };
        match happening {
            Happening::TurnStart { turn, seq, line } => (
                "turn-start",
                format!("turn {turn} started ({})", at(*seq, *line)),
                json!({ "turn": turn, "seq": seq, "line": line }),
            ),
            Happening::TurnEnd {
                turn,
                seq,
                line,
                reason,
                input_tokens,
                output_tokens,
                duration_ms,
            } => (
                "turn-end",
                format!(
                    "turn {turn} ended: {reason}, {input_tokens} input and {output_tokens} output tokens, {} ({})",
                    duration_ms.map_or_else(|| "duration unknown".to_owned(), duration),
                    at(*seq, *line)
                ),
                json!({ "turn": turn, "seq": seq, "line": line, "reason": reason, "input_tokens": input_tokens, "output_tokens": output_tokens, "duration_ms": duration_ms }),
            ),
            Happening::ToolCall {
                seq,
                line,
                call_id,
                name,
            } => (
                "tool-call",
                format!("tool call {name} ({call_id}, {})", at(*seq, *line)),
                json!({ "seq": seq, "line": line, "call_id": call_id, "name": name }),
            ),
            Happening::ToolResult {
                seq,
                line,
                call_id,
                name,
                error,
            } => (
                "tool-result",
                format!(
                    "tool result {}: {} ({call_id}, {})",
                    name.as_deref().unwrap_or("?"),
                    if *error { "error" } else { "ok" },
                    at(*seq, *line)
                ),
                json!({ "seq": seq, "line": line, "call_id": call_id, "name": name, "error": error }),
            ),
            Happening::Replacement {
                seq,
                line,
                ty,
                shadowed,
                surface_before,
                surface_after,
            } => (
                "replacement",
                format!(
                    "replacement by {ty} shadowed {}, surface {surface_before} -> {surface_after} ({})",
                    dsh_session::wording::count(*shadowed, "entry"),
                    at(*seq, *line)
                ),
                json!({ "seq": seq, "line": line, "type": ty, "shadowed": shadowed, "surface_len_before": surface_before, "surface_len_after": surface_after }),
            ),
            Happening::Said {
                seq,
                line,
                who,
                text,
            } => {
                let at = format!(" ({})", at(*seq, *line));
                let prefix = if log.prefixed {
                    log.shown.chars().count() + 2
                } else {
                    0
                };
                let room = self
                    .said_width
                    .saturating_sub(prefix + who.len() + 2 + at.len());
                (
                    "said",
                    format!(
                        "{who}: {}{at}",
                        dsh_session::derive::one_line(text, room.max(8))
                    ),
                    json!({ "seq": seq, "line": line, "who": who, "text": text }),
                )
            }
            Happening::Provider(_) => unreachable!("`say` tells a provider finding itself"),
        }
    }
}

impl Printer for FollowPrinter<'_> {
    fn say(&mut self, log: &Log<'_>, said: Said<'_>) -> std::io::Result<()> {
        let (kind, text, object) = match said {
            Said::Summary {
                kind,
                events,
                surface_len,
                era,
                encoding,
                open_turn,
            } => {
                let turn = if open_turn { ", a turn open" } else { "" };
                let verb = if kind == "session" {
                    "following"
                } else {
                    "stopped following"
                };
                // Following a root, every line already starts with the log's name.
                let what = if log.prefixed {
                    format!("{verb},")
                } else {
                    format!("{verb} {}:", log.shown)
                };
                let text = format!(
                    "{what} {} so far, surface {surface_len}, {}{turn}",
                    count(events, "event"),
                    era.unwrap_or("unknown")
                );
                let object = json!({
                    "events": events,
                    "surface_len": surface_len,
                    "era": era,
                    "encoding": encoding,
                    "open_turn": open_turn,
                });
                (kind, text, object)
            }
            Said::Finding(f) => {
                let status = f.class.name();
                let object = with_status(FindingJson::from(f), status)?;
                ("finding", format!("{status} {f}"), object)
            }
            // A provider finding is told the same way however it comes.
            Said::Provider(f) | Said::Happening(Happening::Provider(f)) => {
                let finding = FindingJson::from(f);
                let refused = finding
                    .refused_by
                    .as_ref()
                    .map(|r| format!(" [refused by {}]", r.join(", ")))
                    .unwrap_or_default();
                let text = format!(
                    "provider {}{}: {}{refused}",
                    finding.rule,
                    place(&finding),
                    finding.message
                );
                ("finding", text, with_status(finding, "provider")?)
            }
            Said::Happening(h) => self.happening(log, h),
            Said::Uncommitted { rule, defect } => {
                let at = if log.sqlite { "row" } else { "line" };
                let text = format!(
                    "torn-tail {rule} at {at} {}: {}; DSH drops it and what follows on load, unless a turn/end commits it (J5)",
                    defect.line, defect.message
                );
                let object = json!({ "rule": rule, "defect": defect.rule.id(), "line": defect.line, "message": defect.message });
                ("torn-tail", text, object)
            }
            Said::InFlight { flight: f, settle } => {
                let what = match f.rule {
                    Rule::Z3 => "the file ends inside a zstd frame",
                    Rule::J1 => "the header line has no newline",
                    _ => "the final line has no newline",
                };
                let text = format!(
                    "torn-tail {} at line {}: {what} after {} s ({} at byte offset {}); DSH drops it on load unless it is completed",
                    f.rule,
                    f.line,
                    settle.as_secs_f64(),
                    count(f.bytes, "byte"),
                    f.offset
                );
                let object = json!({ "rule": f.rule.id(), "line": f.line, "offset": f.offset, "bytes": f.bytes });
                ("torn-tail", text, object)
            }
            Said::Reread { why } => (
                "reread",
                format!("reread: {why}; reading it from the start"),
                json!({ "reason": why }),
            ),
            Said::Generation { from, to } => {
                let name = |p: &std::path::Path| {
                    p.file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                };
                let text = format!(
                    "generation: {} replaces {} (DSH migrated the session); reading it from the start",
                    name(to),
                    name(from)
                );
                let object =
                    json!({ "from": from.display().to_string(), "to": to.display().to_string() });
                ("generation", text, object)
            }
            Said::NewSession => ("session", "new session".to_owned(), json!({ "new": true })),
        };
        self.print(log, kind, &text, object)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    fn reader_gone(&self) -> bool {
        reader_gone()
    }
}

/// A duration for people: `450 ms`, `1.2 s`, `3 min 5 s`.
fn duration(ms: i64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

/// A finding's JSON object with its `status` (its class, or `provider`).
fn with_status(finding: FindingJson, status: &str) -> std::io::Result<Value> {
    let mut object = serde_json::to_value(finding)?;
    if let Some(fields) = object.as_object_mut() {
        fields.insert("status".into(), json!(status));
    }
    Ok(object)
}

/// The columns a `said` line may take: the terminal's width on a terminal, else `$COLUMNS`,
/// else 160.
pub fn said_width() -> usize {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal()
        && let Ok((columns, _)) = crossterm::terminal::size()
    {
        return usize::from(columns);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(160)
}

/// Whether standard output is a pipe or socket whose reader has gone (its write end polls
/// as an error or a hang-up). A quiet log may bring no write that would fail for a long
/// time, so `follow … | head -1` would otherwise outlive `head`; `tail -f` ends the same
/// way. `false` on a terminal, a file, and where the platform cannot tell.
#[cfg(unix)]
fn reader_gone() -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let out = std::io::stdout();
    let mut fds = [PollFd::new(&out, PollFlags::empty())];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&now)).is_ok_and(|ready| {
        ready > 0 && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
    })
}

#[cfg(not(unix))]
fn reader_gone() -> bool {
    false
}
