//! Deterministic generator of realistic DSH sessions for benchmarks and tests.
//!
//! ```sh
//! cargo run --profile dist --example gen-session -- --turns 40000 --out big.jsonl [--zstd] [--sqlite] [--crash]
//! cargo run --profile dist --example gen-session -- --small --turns 12000 --out small-events.jsonl.zstd --zstd --frame-records 1-2
//! ```
//!
//! Each turn holds a user message, streamed chunks (runs of three or more deltas packed
//! into rows, as DSH packs them), an assistant message with usage and tool-call blocks,
//! tool calls and results of varied sizes; a compaction replaces the surface every few
//! dozen turns and tool results are pruned now and then, both inside the turn and in the
//! shapes DSH's compaction and pruner write (`compaction/start`, `compaction/summary`, the
//! `compact` plugin's checkpoint, `compaction/end`; `compaction/prune` naming the span it
//! shadows), so that every log is one both DSH lines load: valid as DSH 0.1.5 and later
//! judge it after the frozen migration edges, and under `--dsh 0.1.1` (`tests/generated.rs`
//! checks every shape). `--crash` leaves the last turn
//! open after a recorded tool call and tears the final record. The same arguments always
//! give the same bytes. `--small` writes tool-heavy turns of small events instead (one
//! event per line, about 190 bytes each). `--zstd` writes `.jsonl.zstd` frames of about
//! 200 records (one batch each; `--frame-records 1-2` as DSH frames its appends);
//! `--sqlite` writes a schema 17 store via the test suite's store writer.

#[path = "../tests/common/store.rs"]
#[allow(dead_code)]
mod store;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// A small deterministic generator (SplitMix64). `rich`: words also come from a large
/// vocabulary of made-up terms (`t123456`), so that a root of many sessions has rare words
/// as well as common ones (the search index's benchmark).
struct Rng {
    state: u64,
    rich: bool,
}

impl Rng {
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const WORDS: [&str; 24] = [
    "the",
    "build",
    "fails",
    "because",
    "a",
    "test",
    "expects",
    "UTF-8",
    "paths",
    "in",
    "src/lib.rs",
    "and",
    "we",
    "should",
    "check",
    "\"quoted\"",
    "values",
    "before",
    "running",
    "cargo",
    "again",
    "with",
    "logs",
    "now",
];

fn words(rng: &mut Rng, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        if rng.rich && rng.below(6) == 0 {
            let _ = write!(s, "t{}", rng.below(200_000));
            continue;
        }
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
    }
    s
}

fn js(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

struct Log {
    lines: Vec<String>,
    seq: u64,
    time: u64,
    surface: Vec<u64>,
}

impl Log {
    fn event(&mut self, ty: &str, data: &str, sources: Option<&[u64]>, op: Option<&str>) -> u64 {
        let seq = self.seq;
        self.time += 7;
        let mut line = format!(
            "{{\"type\":\"{ty}\",\"seq\":{seq},\"time\":{},\"data\":{data}",
            self.time
        );
        if let Some(s) = sources {
            let list: Vec<String> = s.iter().map(u64::to_string).collect();
            let _ = write!(line, ",\"sourceEventSeqs\":[{}]", list.join(","));
        }
        if let Some(op) = op {
            let _ = write!(line, ",\"surfaceOp\":{op}");
        }
        line.push('}');
        self.lines.push(line);
        self.seq += 1;
        seq
    }

    fn packed(&mut self, turn: u64, step: u64, texts: &[String]) -> Vec<u64> {
        let seq0 = self.seq;
        let time0 = self.time + 3;
        let dt: Vec<String> = (1..texts.len())
            .map(|i| ((i % 5) + 1).to_string())
            .collect();
        let texts_json: Vec<String> = texts.iter().map(|t| js(t)).collect();
        self.lines.push(format!(
            "{{\"type\":\"text-chunks\",\"seq0\":{seq0},\"time0\":{time0},\"data\":{{\"turn\":{turn},\"step\":{step},\"index\":0,\"dt\":[{}],\"texts\":[{}]}}}}",
            dt.join(","),
            texts_json.join(",")
        ));
        self.time = time0 + (1..texts.len()).map(|i| ((i % 5) + 1) as u64).sum::<u64>();
        self.seq += texts.len() as u64;
        (seq0..self.seq).collect()
    }
}

/// What grows: by default a compaction every 30 turns keeps the surface short; `flat`
/// turns compaction off (the surface grows with the log), and `chain` prunes one tool
/// result again every turn, that many times (a chain of replacements of replacements).
/// `seed`: another session (its own id, start time and words, from a rich vocabulary).
/// `small` writes tool-heavy turns of small events instead (about 190 bytes each, one
/// event per line: no packed rows), where the cost of reading is per line, not per byte.
#[derive(Clone, Copy, Default)]
pub struct Shape {
    pub flat: bool,
    pub chain: u64,
    pub seed: Option<u64>,
    pub small: bool,
}

/// The whole log, one line per record (a torn log is one string: see [`tear`]).
pub fn generate(turns: u64, crash: bool, shape: Shape) -> Vec<String> {
    let mut rng = Rng {
        state: 0x5EED_0D5C
            ^ shape
                .seed
                .map_or(0, |n| n.wrapping_mul(0x2545_F491_4F6C_DD1D)),
        rich: shape.seed.is_some(),
    };
    let (id, start) = match shape.seed {
        Some(n) => (format!("bench-session-{n}"), 1_760_000_000_000 + n * 60_000),
        None => ("bench-session".to_owned(), 1_760_000_000_000),
    };
    let header = format!(
        "{{\"type\":\"session\",\"version\":0,\"id\":\"{id}\",\"createdAt\":{start},\"cwd\":\"/home/ana/proj\",\"delegationDepth\":0}}"
    );
    let mut log = Log {
        lines: vec![header],
        seq: 0,
        time: start,
        surface: Vec::new(),
    };
    let mut last_result: Option<u64> = None;
    // The head of the prune chain (`Shape::chain`), and how many links are left.
    let mut chain_head: Option<u64> = None;
    let mut chain_left = shape.chain;
    for turn in 1..=turns {
        let open = crash && turn == turns;
        log.event("turn/start", &format!("{{\"turn\":{turn}}}"), None, None);
        if shape.small {
            if small_turn(&mut log, &mut rng, turn, open) {
                return tear(log.lines);
            }
            compact(&mut log, &mut rng, turn, shape);
            end_turn(&mut log, turn);
            continue;
        }
        let steps = 1 + rng.below(3);
        for step in 1..=steps {
            log.event(
                "step/start",
                &format!("{{\"turn\":{turn},\"step\":{step}}}"),
                None,
                None,
            );
            if step == 1 {
                let n = 8 + rng.below(40) as usize;
                let text = words(&mut rng, n);
                let seq = log.event(
                    "user/message",
                    &format!("{{\"content\":[{{\"type\":\"text\",\"text\":{}}}],\"source\":{{\"kind\":\"user\"}},\"role\":\"user\",\"id\":\"u-{turn}\"}}", js(&text)),
                    None,
                    Some("\"append\""),
                );
                log.surface.push(seq);
                if turn == 1 {
                    log.event("request/header", &format!("{{\"header\":{{\"config\":{{\"provider\":\"deepseek\",\"model\":\"deepseek-chat\"}},\"system\":{}}},\"reason\":\"initial\"}}", js(&words(&mut rng, 300))), None, None);
                }
            }
            // Streamed text: a packed run, then a few verbatim chunks.
            let deltas: Vec<String> = (0..3 + rng.below(40))
                .map(|_| format!("{} ", words(&mut rng, 3)))
                .collect();
            let mut chunks = log.packed(turn, step, &deltas);
            for _ in 0..2 {
                chunks.push(log.event("assistant/chunk", &format!("{{\"turn\":{turn},\"step\":{step},\"chunk\":{{\"type\":\"text-delta\",\"index\":0,\"text\":{}}}}}", js(&words(&mut rng, 2))), None, None));
            }
            let last_step = step == steps;
            let calls = if last_step && !open {
                0
            } else {
                1 + rng.below(2)
            };
            let ids: Vec<String> = (0..calls)
                .map(|c| format!("call-{turn}-{step}-{c}"))
                .collect();
            assistant_message(
                &mut log,
                &mut rng,
                (turn, step),
                &deltas.concat(),
                (&ids, BASH_LS),
                &chunks,
            );
            for id in &ids {
                let call = tool_call(&mut log, (turn, step), id, BASH_LS);
                if open {
                    return tear(log.lines);
                }
                let long = rng.below(10) == 0;
                let n = 5 + rng.below(if long { 10000 } else { 800 }) as usize;
                let output = words(&mut rng, n);
                let seq = log.event(
                    "tool/result",
                    &format!("{{\"turn\":{turn},\"step\":{step},\"message\":{{\"id\":\"r-{id}\",\"role\":\"user\",\"source\":{{\"kind\":\"tool\",\"callId\":\"{id}\"}},\"content\":[{{\"type\":\"tool-result\",\"toolCallId\":\"{id}\",\"content\":[{{\"type\":\"text\",\"text\":{}}}],\"isError\":false}}]}}}}", js(&output)),
                    Some(&[call]),
                    Some("\"append\""),
                );
                log.surface.push(seq);
                last_result = Some(seq);
            }
            log.event(
                "step/end",
                &format!("{{\"turn\":{turn},\"step\":{step}}}"),
                None,
                None,
            );
        }
        // Now and then a tool-result prune, every few dozen turns a compaction; with a
        // chain, the same result is pruned again every turn instead. Both happen inside
        // the turn, between its steps, as DSH's pruner and compaction run before a step
        // (a replacement `tool/result` outside an open turn is refused by the edges).
        let prune = if shape.chain > 0 {
            if chain_head.is_none() {
                chain_head = last_result.take();
            }
            chain_head.filter(|_| chain_left > 0)
        } else if turn % 7 == 0 {
            last_result.take().filter(|t| log.surface.contains(t))
        } else {
            None
        };
        if let Some(target) = prune {
            let seq = prune_result(&mut log, target, shape.chain > 0, turn);
            if shape.chain > 0 {
                chain_head = Some(seq);
                chain_left -= 1;
            }
        }
        compact(&mut log, &mut rng, turn, shape);
        end_turn(&mut log, turn);
    }
    log.lines
}

/// The `bash` call every normal turn makes: its name and its arguments (a JSON string).
const BASH_LS: (&str, &str) = ("bash", r#"{\"command\":\"ls -la\"}"#);
/// The `read` call of the small-event turns.
const READ_LIB: (&str, &str) = ("read", r#"{\"path\":\"src/lib.rs\"}"#);

/// Appends the `assistant/message` of `(turn, step)` to the surface: `text`, then a
/// tool call per id in `calls.0`, all of tool `calls.1` (name, arguments), citing the
/// streamed `chunks`; its usage draws two numbers from `rng`. Returns its seq.
fn assistant_message(
    log: &mut Log,
    rng: &mut Rng,
    (turn, step): (u64, u64),
    text: &str,
    (ids, (name, arguments)): (&[String], (&str, &str)),
    chunks: &[u64],
) -> u64 {
    let mut content = format!("[{{\"type\":\"text\",\"text\":{}}}", js(text));
    for id in ids {
        let _ = write!(
            content,
            ",{{\"type\":\"tool-call\",\"id\":\"{id}\",\"name\":\"{name}\",\"arguments\":\"{arguments}\"}}"
        );
    }
    content.push(']');
    let usage = format!(
        "{{\"inputTokens\":{},\"outputTokens\":{}}}",
        1000 + rng.below(9000),
        10 + rng.below(500)
    );
    let seq = log.event(
        "assistant/message",
        &format!("{{\"turn\":{turn},\"step\":{step},\"message\":{{\"role\":\"assistant\",\"content\":{content},\"source\":{MODEL},\"id\":\"a-{turn}-{step}\"}},\"usage\":{usage}}}"),
        Some(chunks),
        Some("\"append\""),
    );
    log.surface.push(seq);
    seq
}

/// Appends the `tool/call` event that starts call `id` of tool `(name, arguments)`.
fn tool_call(
    log: &mut Log,
    (turn, step): (u64, u64),
    id: &str,
    (name, arguments): (&str, &str),
) -> u64 {
    log.event(
        "tool/call",
        &format!("{{\"turn\":{turn},\"step\":{step},\"callId\":\"{id}\",\"name\":\"{name}\",\"arguments\":\"{arguments}\"}}"),
        None,
        None,
    )
}

/// The model every assistant message names.
const MODEL: &str = "{\"kind\":\"model\",\"provider\":\"deepseek\",\"model\":\"deepseek-chat\"}";

fn end_turn(log: &mut Log, turn: u64) {
    log.event(
        "turn/end",
        &format!("{{\"turn\":{turn},\"reason\":{{\"kind\":\"completed\"}}}}"),
        None,
        None,
    );
}

/// Puts `word` at the start of the first user message's text.
fn plant_word(lines: &mut [String], word: &str) {
    if let Some(line) = lines
        .iter_mut()
        .find(|l| l.contains("\"type\":\"user/message\""))
    {
        *line = line.replacen("\"text\":\"", &format!("\"text\":\"{word} "), 1);
    }
}

/// DSH's tool-result pruner: a `compaction/prune` naming the result it shadows (its range,
/// its seqs, the tokens freed), then the replacement `tool/result`, the same result with
/// its output cut. Returns the replacement's seq.
fn prune_result(log: &mut Log, target: u64, chained: bool, turn: u64) -> u64 {
    let line = log
        .lines
        .iter()
        .rev()
        .find(|l| l.contains(&format!("\"seq\":{target},")))
        .expect("the result line")
        .clone();
    log.event(
        "compaction/prune",
        &format!(
            "{{\"shadowedRange\":{{\"start\":{target},\"end\":{target}}},\"shadowedSeqs\":[{target}],\"shadowedTokenCount\":{}}}",
            line.len() / 4
        ),
        None,
        None,
    );
    let data_start = line.find("\"data\":").expect("data") + 7;
    let data_end = line.find(",\"sourceEventSeqs\"").expect("sources");
    let data = &line[data_start..data_end];
    let inner = data
        .find("\"content\":[{\"type\":\"text\"")
        .expect("inner content");
    let close = data[inner..]
        .find("}],\"isError\"")
        .expect("end of inner content")
        + inner;
    let pruned = format!(
        "{}\"content\":[{{\"type\":\"text\",\"text\":\"[output pruned{}]\"}}{}",
        &data[..inner],
        if chained {
            format!(" {turn}")
        } else {
            String::new()
        },
        &data[close + 1..]
    );
    let seq = log.event(
        "tool/result",
        &pruned,
        Some(&[target]),
        Some(&format!(
            "{{\"op\":\"replace\",\"start\":{target},\"end\":{target}}}"
        )),
    );
    let at = log
        .surface
        .iter()
        .position(|s| *s == target)
        .expect("on the surface");
    log.surface[at] = seq;
    seq
}

/// Every 30 turns (unless `flat`), a compaction replaces the whole surface by a summary, as
/// DSH's compaction writes it inside the turn that owns it: `compaction/start`, the
/// `compaction/summary` naming the exact surface span it shadows, the checkpoint
/// `user/message` from the `compact` plugin that replaces the span (citing the start, the
/// summary and every shadowed seq), and `compaction/end`.
fn compact(log: &mut Log, rng: &mut Rng, turn: u64, shape: Shape) {
    if shape.flat || !turn.is_multiple_of(30) || log.surface.len() <= 4 {
        return;
    }
    let id = format!("compaction-{turn}");
    let lifecycle = format!("{{\"compactionId\":\"{id}\",\"turn\":{turn}}}");
    let start_seq = log.event("compaction/start", &lifecycle, None, None);
    let shadowed = std::mem::take(&mut log.surface);
    let (first, last) = (shadowed[0], *shadowed.last().expect("non-empty"));
    let list = |seqs: &[u64]| {
        seqs.iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let summary = js(&words(rng, 120));
    let summary_seq = log.event(
        "compaction/summary",
        &format!(
            "{{\"compactionId\":\"{id}\",\"summary\":[{{\"type\":\"text\",\"text\":{summary}}}],\"shadowedRange\":{{\"start\":{first},\"end\":{last}}},\"shadowedSeqs\":[{}],\"shadowedTokenCount\":{},\"provider\":\"deepseek\",\"model\":\"deepseek-chat\",\"usage\":{{\"inputTokens\":{},\"outputTokens\":{}}}}}",
            list(&shadowed),
            20_000 + rng.below(80_000),
            20_000 + rng.below(80_000),
            200 + rng.below(800)
        ),
        None,
        None,
    );
    let mut cites = vec![start_seq, summary_seq];
    cites.extend(&shadowed);
    let seq = log.event(
        "user/message",
        &format!("{{\"content\":[{{\"type\":\"text\",\"text\":{summary}}}],\"source\":{{\"kind\":\"plugin\",\"plugin\":\"compact\",\"compactionId\":\"{id}\"}},\"role\":\"user\",\"id\":\"summary-{turn}\"}}"),
        Some(&cites),
        Some(&format!("{{\"op\":\"replace\",\"start\":{first},\"end\":{last}}}")),
    );
    log.event("compaction/end", &lifecycle, None, None);
    log.surface = vec![seq];
}

/// One tool-heavy turn of small events (`--small`), without its `turn/end`: 3 to 14
/// steps, each with two verbatim chunks, a short assistant message that calls one tool
/// (but the last), the call and a short result. Returns true when the turn was left open
/// (`--crash`).
fn small_turn(log: &mut Log, rng: &mut Rng, turn: u64, open: bool) -> bool {
    let steps = 3 + rng.below(12);
    for step in 1..=steps {
        log.event(
            "step/start",
            &format!("{{\"turn\":{turn},\"step\":{step}}}"),
            None,
            None,
        );
        if step == 1 {
            let n = 3 + rng.below(10) as usize;
            let text = words(rng, n);
            let seq = log.event(
                "user/message",
                &format!("{{\"content\":[{{\"type\":\"text\",\"text\":{}}}],\"source\":{{\"kind\":\"user\"}},\"role\":\"user\",\"id\":\"u-{turn}\"}}", js(&text)),
                None,
                Some("\"append\""),
            );
            log.surface.push(seq);
            if turn == 1 {
                log.event("request/header", &format!("{{\"header\":{{\"config\":{{\"provider\":\"deepseek\",\"model\":\"deepseek-chat\"}},\"system\":{}}},\"reason\":\"initial\"}}", js(&words(rng, 300))), None, None);
            }
        }
        let mut chunks = Vec::new();
        let mut said = String::new();
        for _ in 0..2 {
            let delta = format!("{} ", words(rng, 2));
            said.push_str(&delta);
            chunks.push(log.event("assistant/chunk", &format!("{{\"turn\":{turn},\"step\":{step},\"chunk\":{{\"type\":\"text-delta\",\"index\":0,\"text\":{}}}}}", js(&delta)), None, None));
        }
        let call = (step < steps || open).then(|| format!("c{turn}-{step}"));
        let ids = Vec::from_iter(call.clone());
        assistant_message(log, rng, (turn, step), &said, (&ids, READ_LIB), &chunks);
        if let Some(id) = call {
            let call = tool_call(log, (turn, step), &id, READ_LIB);
            if open {
                return true;
            }
            let n = 2 + rng.below(12) as usize;
            let output = words(rng, n);
            let seq = log.event(
                "tool/result",
                &format!("{{\"turn\":{turn},\"step\":{step},\"message\":{{\"id\":\"r-{id}\",\"role\":\"user\",\"source\":{{\"kind\":\"tool\",\"callId\":\"{id}\"}},\"content\":[{{\"type\":\"tool-result\",\"toolCallId\":\"{id}\",\"content\":[{{\"type\":\"text\",\"text\":{}}}],\"isError\":false}}]}}}}", js(&output)),
                Some(&[call]),
                Some("\"append\""),
            );
            log.surface.push(seq);
        }
        log.event(
            "step/end",
            &format!("{{\"turn\":{turn},\"step\":{step}}}"),
            None,
            None,
        );
    }
    false
}

/// How [`write_log`] stores a log.
#[derive(Clone, Copy)]
pub enum Encoding {
    /// JSONL.
    Plain,
    /// `.jsonl.zstd`: the header in a frame of its own, then frames of records, their
    /// counts cycling through `frame_records.0..=frame_records.1`.
    Zstd { frame_records: (usize, usize) },
    /// A schema 17 SQLite store (the test suite's store writer).
    Sqlite,
}

/// Writes the lines of [`generate`] to `out`; for zstd, returns the number of frames.
pub fn write_log(
    lines: &[String],
    out: &Path,
    encoding: Encoding,
) -> std::io::Result<Option<usize>> {
    let torn = lines.len() == 1;
    let mut text = lines.join("\n");
    if !torn {
        text.push('\n');
    }
    match encoding {
        Encoding::Plain => std::fs::write(out, &text)?,
        Encoding::Sqlite => {
            // SQLite rows are atomic: a crash leaves the open turn but no torn row.
            if torn {
                text.truncate(text.rfind('\n').map_or(0, |i| i + 1));
            }
            let plain = out.with_extension("tmp.jsonl");
            std::fs::write(&plain, &text)?;
            let _ = std::fs::remove_file(out);
            store::store_from_jsonl(&plain, out, 17);
            std::fs::remove_file(&plain)?;
        }
        Encoding::Zstd { frame_records } => {
            let mut file = std::io::BufWriter::new(std::fs::File::create(out)?);
            let mut records = text.split_inclusive('\n');
            let frame = |plain: &str| -> std::io::Result<Vec<u8>> {
                let mut enc = zstd::stream::Encoder::new(Vec::new(), 3)?;
                enc.include_checksum(true)?;
                enc.write_all(plain.as_bytes())?;
                enc.finish()
            };
            file.write_all(&frame(records.next().expect("header"))?)?;
            let rest: Vec<&str> = records.collect();
            // Batches of frame_records.0, then one more, ... up to frame_records.1, and again.
            let mut batches = Vec::new();
            let (mut at, mut size) = (0, frame_records.0);
            while at < rest.len() {
                let end = (at + size).min(rest.len());
                batches.push(&rest[at..end]);
                at = end;
                size = if size >= frame_records.1 {
                    frame_records.0
                } else {
                    size + 1
                };
            }
            for batch in &batches {
                let encoded = frame(&batch.concat())?;
                if torn
                    && std::ptr::eq(
                        batch.last().copied().unwrap_or(""),
                        rest.last().copied().unwrap_or(""),
                    )
                {
                    file.write_all(&encoded[..encoded.len() - encoded.len() / 3])?;
                } else {
                    file.write_all(&encoded)?;
                }
            }
            file.flush()?;
            return Ok(Some(batches.len() + 1));
        }
    }
    Ok(None)
}

/// Tears the final record in half: a crash in the middle of a write.
fn tear(mut lines: Vec<String>) -> Vec<String> {
    let last = lines.pop().expect("a record");
    let mut text = lines.join("\n");
    text.push('\n');
    text.push_str(&last[..last.len() / 2]);
    vec![text]
}

const USAGE: &str =
    "usage: gen-session [--turns N] [--out FILE] [--zstd [--frame-records N[-M]]] [--sqlite] [--crash]
                   [--flat] [--chain N] [--small] [--seed N] [--plant WORD]
       gen-session --sessions N --turns MAX --out DIR [--plant WORD]
  --turns N   turns to generate (default 1000; about 13 kB and 61 events per turn)
  --seed N    another session: id bench-session-N, its own start time and words (a rich
              vocabulary); the log with more turns starts with the bytes of the one with fewer
  --sessions N  a JSONL root of N sessions under DIR/pK/sJ/session.jsonl, session J of seed J
              with 1 + J % MAX turns
  --plant WORD  put WORD at the start of the first user message (with --sessions: of the
              session in the middle only)
  --flat      no compaction: the surface grows with the log (about 5 entries per turn)
  --chain N   prune one tool result again every turn, N times: a chain of N replacements
  --small     tool-heavy turns of small events (about 190 bytes and 60 events per turn,
              one event per line)
  --out FILE  where to write (default session.jsonl)
  --zstd      write .jsonl.zstd, one frame per batch of about 200 records
  --frame-records N[-M]
              with --zstd: records per frame after the header frame (default 200); N-M
              cycles through N..=M (DSH writes a frame per append: 1-2 is a real file)
  --sqlite    write a schema 17 SQLite store instead of JSONL
  --crash     leave the last turn open after a tool call and tear the final record";

fn main() -> std::io::Result<()> {
    let mut turns = 1000;
    let mut out = PathBuf::from("session.jsonl");
    let (mut zstd, mut sqlite, mut crash) = (false, false, false);
    let mut shape = Shape::default();
    let mut sessions: Option<u64> = None;
    let mut plant: Option<String> = None;
    let mut frame_records = (200, 200);
    let mut args = std::env::args().skip(1);
    let usage_error = |what: String| -> ! {
        eprintln!("gen-session: {what}\n{USAGE}");
        std::process::exit(2)
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--turns" => match args.next().and_then(|v| v.parse().ok()) {
                Some(n) => turns = n,
                None => usage_error("--turns needs a number".into()),
            },
            "--out" => match args.next() {
                Some(path) => out = PathBuf::from(path),
                None => usage_error("--out needs a file".into()),
            },
            "--zstd" => zstd = true,
            "--sqlite" => sqlite = true,
            "--crash" => crash = true,
            "--flat" => shape.flat = true,
            "--small" => shape.small = true,
            "--frame-records" => {
                let spec = args.next().unwrap_or_default();
                let (lo, hi) = spec.split_once('-').unwrap_or((&spec, &spec));
                match (lo.parse(), hi.parse()) {
                    (Ok(lo), Ok(hi)) if 0 < lo && lo <= hi => frame_records = (lo, hi),
                    _ => usage_error("--frame-records needs N or N-M, 0 < N <= M".into()),
                }
            }
            "--chain" => match args.next().and_then(|v| v.parse().ok()) {
                Some(n) => shape.chain = n,
                None => usage_error("--chain needs a number".into()),
            },
            "--seed" => match args.next().and_then(|v| v.parse().ok()) {
                Some(n) => shape.seed = Some(n),
                None => usage_error("--seed needs a number".into()),
            },
            "--sessions" => match args.next().and_then(|v| v.parse().ok()) {
                Some(n) => sessions = Some(n),
                None => usage_error("--sessions needs a number".into()),
            },
            "--plant" => match args.next() {
                Some(word) => plant = Some(word),
                None => usage_error("--plant needs a word".into()),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => usage_error(format!("unknown argument {other}")),
        }
    }
    if let Some(n) = sessions {
        for j in 0..n {
            let dir = out.join(format!("p{}", j % 40)).join(format!("s{j}"));
            std::fs::create_dir_all(&dir)?;
            let shape = Shape {
                seed: Some(j),
                ..shape
            };
            let mut lines = generate(1 + j % turns.max(1), false, shape);
            if j == n / 2
                && let Some(word) = &plant
            {
                plant_word(&mut lines, word);
            }
            std::fs::write(dir.join("session.jsonl"), lines.join("\n") + "\n")?;
        }
        return Ok(());
    }
    let mut lines = generate(turns, crash, shape);
    if let Some(word) = &plant {
        plant_word(&mut lines, word);
    }
    let encoding = if sqlite {
        Encoding::Sqlite
    } else if zstd {
        Encoding::Zstd { frame_records }
    } else {
        Encoding::Plain
    };
    if let Some(frames) = write_log(&lines, &out, encoding)? {
        eprintln!("frames: {frames}");
    }
    eprintln!(
        "{}: {turns} turns, {} bytes",
        out.display(),
        std::fs::metadata(&out)?.len()
    );
    Ok(())
}
