//! `stats` against `show --format json` on every sample `show` reads (plain, zstd, SQLite,
//! crashed, real) and every fixture it reads: each grouping's rows are the sums of `show` over the same logs; exact
//! values, CSV and JSON lines on the real samples; what a corrupt log, a torn tail, a
//! missing price and an unreadable path do to the output and the exit code.
//!
//! The sums are over logs read as the DSH that writes their generation loads them (`--dsh
//! writer`: a v0 log as DSH 0.1.1, v4 as 0.1.7); a log only the frozen edges of DSH 0.1.5
//! and later refuse is counted in full (tests/edges.rs).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{dsh_writer, samples};
use serde_json::Value;

/// The counts `stats` and `show` share.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Sums {
    turns: u64,
    steps: u64,
    tool_calls: u64,
    interrupted: u64,
    failed: u64,
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    reasoning: u64,
    wall_ms: i64,
}

impl Sums {
    fn add(&mut self, o: &Sums) {
        self.turns += o.turns;
        self.steps += o.steps;
        self.tool_calls += o.tool_calls;
        self.interrupted += o.interrupted;
        self.failed += o.failed;
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_write += o.cache_write;
        self.reasoning += o.reasoning;
        self.wall_ms += o.wall_ms;
    }
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// The sums of one `show --format json` object (interrupted: `interrupted` and `aborted`
/// turns; failed: `error` turns; wall time: the turns' `duration_ms`).
fn from_show(s: &Value) -> Sums {
    let reasons = &s["turns_by_reason"];
    let u = &s["usage"];
    Sums {
        turns: n(&s["turns"]),
        steps: n(&s["steps"]),
        tool_calls: n(&s["tool_calls"]),
        interrupted: n(&reasons["interrupted"]) + n(&reasons["aborted"]),
        failed: n(&reasons["error"]),
        input: n(&u["input_tokens"]),
        output: n(&u["output_tokens"]),
        cache_read: n(&u["cache_read_tokens"]),
        cache_write: n(&u["cache_write_tokens"]),
        reasoning: n(&u["reasoning_tokens"]),
        wall_ms: s["per_turn"]
            .as_array()
            .expect("per_turn")
            .iter()
            .map(|t| t["duration_ms"].as_i64().unwrap_or(0))
            .sum(),
    }
}

/// The sums of one `show` per_turn row.
fn from_turn(t: &Value) -> Sums {
    let u = &t["usage"];
    let reason = t["reason"].as_str().unwrap_or_default();
    Sums {
        turns: 1,
        steps: n(&t["steps"]),
        tool_calls: n(&t["tool_calls"]),
        interrupted: u64::from(reason == "interrupted" || reason == "aborted"),
        failed: u64::from(reason == "error"),
        input: n(&u["input_tokens"]),
        output: n(&u["output_tokens"]),
        cache_read: n(&u["cache_read_tokens"]),
        cache_write: n(&u["cache_write_tokens"]),
        reasoning: n(&u["reasoning_tokens"]),
        wall_ms: t["duration_ms"].as_i64().unwrap_or(0),
    }
}

/// The sums of one `stats` row (or its total).
fn from_row(r: &Value) -> Sums {
    Sums {
        turns: n(&r["turns"]),
        steps: n(&r["steps"]),
        tool_calls: n(&r["tool_calls"]),
        interrupted: n(&r["turns_interrupted"]),
        failed: n(&r["turns_failed"]),
        input: n(&r["input_tokens"]),
        output: n(&r["output_tokens"]),
        cache_read: n(&r["cache_read_tokens"]),
        cache_write: n(&r["cache_write_tokens"]),
        reasoning: n(&r["reasoning_tokens"]),
        wall_ms: r["turn_wall_ms"].as_i64().expect("turn_wall_ms"),
    }
}

fn files_in(dir: &str) -> Vec<PathBuf> {
    files_under(&samples().join(dir))
}

/// The logs and stores directly in `dir`, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("sample directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".jsonl") || name.ends_with(".zstd") || name.ends_with(".db")
        })
        .collect();
    v.sort();
    v
}

/// `show --format json` of `path`, or `None` when `show` refuses it (corrupt or refused).
fn show(path: &Path) -> Option<Value> {
    let out = dsh_writer()
        .args(["show", "--format", "json"])
        .arg(path)
        .output()
        .expect("runs");
    if out.status.code() == Some(1) {
        return None;
    }
    assert!(out.status.success(), "show {}", path.display());
    Some(serde_json::from_slice(&out.stdout).expect("JSON"))
}

/// `stats --format json ARGS PATHS`, with its exit code.
fn stats(args: &[&str], paths: &[PathBuf]) -> (Value, i32) {
    let out = dsh_writer()
        .arg("stats")
        .args(["--format", "json"])
        .args(args)
        .args(paths)
        .output()
        .expect("runs");
    let code = out.status.code().expect("exit code");
    assert!(
        code < 2,
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (serde_json::from_slice(&out.stdout).expect("JSON"), code)
}

fn rows(v: &Value) -> &Vec<Value> {
    v["rows"].as_array().expect("rows")
}

/// Every sample `show` reads, with its `show --format json`.
fn readable_samples() -> Vec<(PathBuf, Value)> {
    let mut all = Vec::new();
    for dir in ["jsonl", "zstd", "sqlite", "crashed", "real"] {
        for path in files_in(dir) {
            if let Some(s) = show(&path) {
                all.push((path, s));
            }
        }
    }
    assert!(all.len() > 70, "{} readable samples", all.len());
    // And the hand-made fixtures of every generation (v0-v4, June 2026, Windows, SQLite).
    let mut fixtures = Vec::new();
    let mut dirs = vec![common::fixture("")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixtures") {
            let path = entry.expect("entry").path();
            let name = path.to_string_lossy().into_owned();
            if path.is_dir() {
                dirs.push(path);
            } else if name.ends_with(".jsonl") || name.ends_with(".zstd") || name.ends_with(".db") {
                fixtures.push(path);
            }
        }
    }
    fixtures.sort();
    let before = all.len();
    for path in fixtures {
        if let Some(s) = show(&path) {
            all.push((path, s));
        }
    }
    assert!(
        all.len() - before > 50,
        "{} readable fixtures",
        all.len() - before
    );
    all
}

#[test]
fn every_grouping_sums_to_show_over_every_readable_sample() {
    if !common::have_samples() {
        return;
    }
    let mut all = readable_samples();
    // A fork's inherited history is counted in its parent, not in the fork, while `show`
    // counts the whole log (a_fork_is_counted_once_in_its_parent checks forks).
    all.retain(|(_, s)| s["parent_session"].is_null());
    let paths: Vec<PathBuf> = all.iter().map(|(p, _)| p.clone()).collect();
    let mut expected_total = Sums::default();
    for (_, s) in &all {
        expected_total.add(&from_show(s));
    }

    // By session: each row is that log's show, also for a log with no turn (zeros), and
    // names the session its header names; every log is one session of the total.
    let (by_session, code) = stats(&["--by", "session", "--subagents-apart"], &paths);
    assert_eq!(code, 0, "every sample here is valid or torn");
    for (path, s) in &all {
        let file = path.display().to_string();
        let r = rows(&by_session)
            .iter()
            .find(|r| r["file"] == file.as_str())
            .unwrap_or_else(|| panic!("{file} has its row"));
        assert_eq!(from_row(r), from_show(s), "{file}");
        assert_eq!(r["sessions"], 1);
        assert_eq!(r["session"], s["session"], "{file}");
    }
    assert_eq!(rows(&by_session).len(), all.len());
    assert_eq!(by_session["sessions_read"], all.len());
    assert_eq!(by_session["total"]["sessions"], all.len());

    // By project: show summed per cwd.
    let mut per_cwd: BTreeMap<Option<String>, Sums> = BTreeMap::new();
    for (_, s) in &all {
        per_cwd
            .entry(s["cwd"].as_str().map(str::to_owned))
            .or_default()
            .add(&from_show(s));
    }
    let (by_project, _) = stats(&["--by", "project"], &paths);
    let got: BTreeMap<Option<String>, Sums> = rows(&by_project)
        .iter()
        .map(|r| (r["project"].as_str().map(str::to_owned), from_row(r)))
        .collect();
    assert_eq!(got, per_cwd);

    // Every grouping's total, and the sum of its rows, is the sum of show.
    for by in ["day", "session", "model", "project", "band", "hour"] {
        let (v, _) = stats(&["--by", by], &paths);
        assert_eq!(from_row(&v["total"]), expected_total, "--by {by} total");
        let mut sum = Sums::default();
        for r in rows(&v) {
            sum.add(&from_row(r));
        }
        assert_eq!(sum, expected_total, "--by {by}: sum of the rows");
        assert_eq!(v["schema_version"], 2);
        assert_eq!(v["by"], by);
    }
    // The totals are not zero: the comparison above compares something.
    assert!(
        expected_total.turns > 80 && expected_total.input > 100_000,
        "{expected_total:?}"
    );
}

/// `turn/start` times of a plain JSONL log, in order.
fn turn_start_times(path: &Path) -> Vec<i64> {
    std::fs::read_to_string(path)
        .expect("log")
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "turn/start")
        .map(|e| e["time"].as_i64().expect("time"))
        .collect()
}

#[test]
fn by_day_rows_are_show_turns_summed_by_the_day_of_their_start_in_the_zone() {
    if !common::have_samples() {
        return;
    }
    // Plain JSONL samples whose activity is all inside turns: show's turns, put on the day
    // their turn/start falls on (UTC, then UTC-7 / UTC-8 in Los Angeles).
    let mut logs = Vec::new();
    for dir in ["jsonl", "real"] {
        for path in files_in(dir) {
            // A fork's inherited turns are counted in its parent (a_fork_is_counted_once_in_its_parent).
            if let Some(s) = show(&path).filter(|s| s["parent_session"].is_null()) {
                let turns = s["per_turn"].as_array().expect("per_turn").clone();
                let mut in_turns = Sums::default();
                for t in &turns {
                    in_turns.add(&from_turn(t));
                }
                assert_eq!(in_turns, from_show(&s), "{}", path.display());
                let times = turn_start_times(&path);
                assert_eq!(times.len(), turns.len(), "{}", path.display());
                logs.push((path, times, turns));
            }
        }
    }
    let paths: Vec<PathBuf> = logs.iter().map(|(p, ..)| p.clone()).collect();
    for (tz, offset_of) in [
        ("UTC", (|_| 0) as fn(i64) -> i64),
        // Los Angeles: PDT (UTC-7) from 2026-03-08 10:00 UTC to 2026-11-01 09:00 UTC.
        ("America/Los_Angeles", |t| {
            if (1_772_964_000_000..1_793_523_600_000).contains(&t) {
                -7 * 3_600_000
            } else {
                -8 * 3_600_000
            }
        }),
    ] {
        let mut expected: BTreeMap<String, (Sums, u64)> = BTreeMap::new();
        for (_, times, turns) in &logs {
            let mut days_of_log = std::collections::BTreeSet::new();
            for (t, turn) in times.iter().zip(turns) {
                let local = t + offset_of(*t);
                let secs = local.div_euclid(1000);
                let day = civil_day(secs.div_euclid(86_400));
                expected
                    .entry(day.clone())
                    .or_default()
                    .0
                    .add(&from_turn(turn));
                days_of_log.insert(day);
            }
            for day in days_of_log {
                expected.entry(day).or_default().1 += 1;
            }
        }
        let (v, _) = stats(&["--by", "day", "--tz", tz], &paths);
        let got: BTreeMap<String, (Sums, u64)> = rows(&v)
            .iter()
            .map(|r| {
                (
                    r["day"].as_str().expect("day").to_owned(),
                    (from_row(r), n(&r["sessions"])),
                )
            })
            .collect();
        assert_eq!(got, expected, "--tz {tz}");
        assert!(got.len() > 10, "{tz}: {} days", got.len());
    }
}

/// `YYYY-MM-DD` of a day number since 1970-01-01 (Howard Hinnant's civil_from_days).
fn civil_day(z: i64) -> String {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[test]
fn by_model_tokens_are_the_assistant_messages_of_each_source_model_and_errors_count() {
    if !common::have_samples() {
        return;
    }
    // Summed straight from the stored assistant/message records of the plain samples.
    let mut paths = Vec::new();
    let mut expected: BTreeMap<(String, String), [u64; 5]> = BTreeMap::new();
    let mut tool_errors = 0;
    for dir in ["jsonl", "real"] {
        for path in files_in(dir) {
            // A fork's inherited messages are counted in its parent (a_fork_is_counted_once_in_its_parent).
            if show(&path).is_none_or(|s| !s["parent_session"].is_null()) {
                continue;
            }
            // A message that names no model is the model last named before it.
            let mut last: Option<(String, String)> = None;
            for line in std::fs::read_to_string(&path).expect("log").lines().skip(1) {
                let Ok(e) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                if e["type"] == "tool/result" && !e["surfaceOp"].is_object() {
                    // An error result: `isError` on June's data, on a v4 tool-role message,
                    // or in a tool-result block of a v0-v3 user-role wrapper.
                    let d = &e["data"];
                    let blocks = d["message"]["content"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    if d["isError"] == true
                        || d["message"]["isError"] == true
                        || blocks
                            .iter()
                            .any(|b| b["type"] == "tool-result" && b["isError"] == true)
                    {
                        tool_errors += 1;
                    }
                }
                let named = match e["type"].as_str() {
                    Some("model/selection" | "request/context") => &e["data"],
                    // A pre-identity message names it in `provenance` (FORMAT.md §9.3).
                    Some("assistant/message") if e["data"]["message"].is_object() => {
                        &e["data"]["message"]["source"]
                    }
                    Some("assistant/message") => &e["data"]["provenance"],
                    _ => continue,
                };
                if named["provider"].is_string() || named["model"].is_string() {
                    last = Some((
                        named["provider"].as_str().unwrap_or("-").to_owned(),
                        named["model"].as_str().unwrap_or("-").to_owned(),
                    ));
                }
                if e["type"] != "assistant/message" || !e["data"]["usage"].is_object() {
                    continue;
                }
                let key = last.clone().unwrap_or(("-".into(), "-".into()));
                let u = &e["data"]["usage"];
                let sums = expected.entry(key).or_default();
                for (i, k) in [
                    "inputTokens",
                    "outputTokens",
                    "cacheReadTokens",
                    "cacheWriteTokens",
                    "reasoningTokens",
                ]
                .iter()
                .enumerate()
                {
                    sums[i] += n(&u[*k]);
                }
            }
            paths.push(path);
        }
    }
    let (v, _) = stats(&["--by", "model"], &paths);
    let got: BTreeMap<(String, String), [u64; 5]> = rows(&v)
        .iter()
        .filter(|r| n(&r["input_tokens"]) + n(&r["output_tokens"]) > 0)
        .map(|r| {
            let s = from_row(r);
            (
                (
                    r["provider"].as_str().unwrap_or("-").to_owned(),
                    r["model"].as_str().unwrap_or("-").to_owned(),
                ),
                [s.input, s.output, s.cache_read, s.cache_write, s.reasoning],
            )
        })
        .collect();
    expected.retain(|_, s| s[0] + s[1] > 0);
    assert_eq!(got, expected);
    assert_eq!(v["total"]["tool_errors"], tool_errors);
    assert!(tool_errors >= 5, "{tool_errors}");
    assert!(got.len() >= 4, "{got:?}");
}

fn real(name: &str) -> PathBuf {
    samples().join("real").join(name)
}

fn run(args: &[&str]) -> (String, String, i32) {
    let out = dsh_writer().args(args).output().expect("runs");
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
        out.status.code().expect("exit code"),
    )
}

#[test]
fn real_sample_rows_csv_and_jsonl_exactly() {
    if !common::have_samples() {
        return;
    }
    let log = real("capital-generation.session.v4.jsonl");
    let log = log.to_str().expect("utf-8");
    let (csv, _, code) = run(&["stats", "--by", "model", "--format", "csv", log]);
    assert_eq!(code, 0);
    // Its model has no price: no cost column, the model in `unpriced`; its messages
    // reason without a count, so reasoning is unknown (empty), not 0.
    assert_eq!(
        csv,
        "provider,model,sessions,turns,steps,tool_calls,tool_errors,turns_interrupted,turns_failed,input_total_tokens,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,reasoning_tokens,turn_wall_ms,unpriced\n\
         xiaomi-token-plan-cn,mimo-v2.6-flash,1,11,23,13,0,0,0,786566,55750,11911,730816,0,,414571,xiaomi-token-plan-cn/mimo-v2.6-flash\n"
    );
    let (jsonl, _, _) = run(&["stats", "--format", "jsonl", log]);
    assert_eq!(
        jsonl,
        "{\"schema_version\":2,\"day\":\"2026-09-27\",\"sessions\":1,\"turns\":11,\"steps\":23,\"tool_calls\":13,\"tool_errors\":0,\"turns_interrupted\":0,\"turns_failed\":0,\"input_total_tokens\":786566,\"input_tokens\":55750,\"output_tokens\":11911,\"cache_read_tokens\":730816,\"cache_write_tokens\":0,\"reasoning_tokens\":null,\"turn_wall_ms\":414571,\"cost\":{},\"unpriced\":[\"xiaomi-token-plan-cn/mimo-v2.6-flash\"]}\n"
    );
    // The text table: one row, the total, then the note on the model without a price.
    let (text, _, _) = run(&["stats", "--by", "project", log]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with(" project "), "{text}");
    for (line, name) in [(lines[2], "/home/shawn/investment"), (lines[3], "total")] {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            cells,
            [
                name, "1", "11", "23", "13", "0", "0", "0", "786,566", "55,750", "11,911",
                "730,816", "0", "-", "0:06:54"
            ]
        );
    }
    assert_eq!(
        lines[4..].join("\n"),
        "\n1 model has no price, its tokens are in no cost (a cost marked * is the known part):\n  \
         xiaomi-token-plan-cn/mimo-v2.6-flash: no price in the built-in table (add one with --prices); 786,566 input (55,750 uncached), 11,911 output",
        "{text}"
    );
}

#[test]
fn since_until_and_tz_pick_turns_by_their_start() {
    if !common::have_samples() {
        return;
    }
    let log = vec![real("capital-generation.session.v4.jsonl")];
    // Its 11 turns start between 03:04:44 and 03:25:33 UTC on 2026-09-27; the last four at
    // 03:15:02, 03:15:16, 03:15:30 and 03:25:33.
    let (v, _) = stats(&["--since", "2026-09-27T03:15:00Z"], &log);
    assert_eq!(v["total"]["turns"], 4);
    assert_eq!(v["since"], "2026-09-27T03:15:00.000Z");
    let (v, _) = stats(&["--until", "2026-09-27T03:15:00Z"], &log);
    assert_eq!(v["total"]["turns"], 7);
    let (v, _) = stats(&["--since", "2026-09-27", "--until", "2026-09-27"], &log);
    assert_eq!(v["total"]["turns"], 11);
    assert_eq!(v["until"], "2026-09-28T00:00:00.000Z");
    let (v, _) = stats(&["--until", "2026-09-26"], &log);
    assert_eq!(v["total"]["turns"], 0);
    assert_eq!(rows(&v).len(), 0);
    // In Los Angeles the session is on the evening of the 26th, and a local date bound is
    // local midnight: the 27th there starts at 07:00 UTC.
    let (v, _) = stats(&["--tz", "America/Los_Angeles"], &log);
    assert_eq!(rows(&v)[0]["day"], "2026-09-26");
    let (v, _) = stats(
        &["--tz", "America/Los_Angeles", "--since", "2026-09-27"],
        &log,
    );
    assert_eq!(v["since"], "2026-09-27T07:00:00.000Z");
    assert_eq!(v["total"]["turns"], 0);
    // Bad bounds and zones are usage errors.
    let name = log[0].to_str().expect("utf-8");
    for args in [
        vec!["stats", "--since", "yesterday", name],
        vec!["stats", "--tz", "Mars/Olympus", name],
        vec![
            "stats",
            "--since",
            "2026-09-28",
            "--until",
            "2026-09-27",
            name,
        ],
    ] {
        let (_, err, code) = run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.starts_with("dsh-session: --"), "{err}");
    }
}

#[test]
fn a_prices_file_extends_the_built_in_table_and_a_model_without_a_price_is_listed() {
    if !common::have_samples() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("prices.json");
    std::fs::write(
        &json,
        r#"{"price": [{"provider": "xiaomi-token-plan-cn", "model": "mimo-v2.6-flash", "currency": "CNY", "cache_hit": 0.1, "cache_miss": 1.0, "output": 2.0}]}"#,
    )
    .expect("write");
    let toml = dir.path().join("prices.toml");
    std::fs::write(
        &toml,
        "[[price]]\nprovider = \"xiaomi-token-plan-cn\"\nmodel = \"mimo-v2.6-flash\"\ncurrency = \"CNY\"\ncache_hit = 0.1\ncache_miss = 1.0\noutput = 2.0\n",
    )
    .expect("write");
    let capital = real("capital-generation.session.v4.jsonl");
    // Without a price for its model, the real session has no cost, and says why.
    let (v, code) = stats(&[], std::slice::from_ref(&capital));
    assert_eq!(code, 0);
    assert_eq!(v["total"]["cost"], serde_json::json!({}));
    assert_eq!(
        v["unpriced"],
        serde_json::json!([{"model": "xiaomi-token-plan-cn/mimo-v2.6-flash", "reason": "no price"}])
    );
    // 55750 uncached input, 11911 output, 730816 cache read: 0.05575 + 0.023822 + 0.0730816.
    for prices in [&json, &toml] {
        let p = prices.to_str().expect("utf-8");
        let (v, code) = stats(&["--prices", p], std::slice::from_ref(&capital));
        assert_eq!(code, 0);
        assert_eq!(cny(&v["total"]), Some(0.1526536), "{p}");
        assert_eq!(cny(&rows(&v)[0]), Some(0.1526536));
        assert_eq!(v["unpriced"], serde_json::json!([]));
        assert_eq!(v["prices"]["file"], p);
    }
    // A DSH snapshot on 2026-07-06, before DeepSeek billed by peak and off-peak hours
    // (2026-08-16 16:00 UTC): V4-Flash's flat USD list price, 3045 × 0.14 + 2816 × 0.0028 +
    // 115 × 0.28 per 1M.
    let other = samples()
        .join("jsonl")
        .join("examples__acp-agent__tests__snapshots__bash-tool-turn__session.jsonl");
    let p = json.to_str().expect("utf-8");
    let (v, _) = stats(
        &["--by", "model", "--prices", p],
        &[capital.clone(), other.clone()],
    );
    let costs: Vec<(String, Option<f64>)> = rows(&v)
        .iter()
        .map(|r| (r["model"].as_str().unwrap_or("-").to_owned(), cny(r)))
        .collect();
    assert_eq!(
        costs,
        [
            ("deepseek-v4-flash".to_owned(), None),
            ("mimo-v2.6-flash".to_owned(), Some(0.1526536)),
        ]
    );
    assert_eq!(
        rows(&v)[0]["cost"]["USD"]["total"].as_f64(),
        Some(0.0004663848)
    );
    assert_eq!(cny(&v["total"]), Some(0.1526536));
    assert_eq!(
        v["total"]["cost"]["USD"]["total"].as_f64(),
        Some(0.0004663848)
    );
    assert_eq!(v["unpriced"], serde_json::json!([]));
    // A bad file: exit 2, naming --prices.
    for bad in [
        r#"{"price": [{"provider": "a", "model": "b", "currency": "CNY", "cache_hit": 1, "cache_miss": 1}]}"#,
        r#"{"price": [{"provider": "a", "model": "b", "currency": "CNY", "cache_hit": 1, "cache_miss": -1, "output": 1}]}"#,
        r#"{"price": [{"provider": "a", "model": "b", "currency": "CNY", "cache_hit": 1, "cache_miss": 1, "output": 1, "reasoning": 1}]}"#,
        r#"{"a/b": {"input": 1, "output": 1}}"#,
    ] {
        std::fs::write(&json, bad).expect("write");
        let (_, err, code) = run(&["stats", "--prices", p, capital.to_str().expect("utf-8")]);
        assert_eq!(code, 2, "{bad}");
        assert!(err.contains("--prices"), "{err}");
    }
}

#[test]
fn a_corrupt_log_is_counted_up_to_its_defect_listed_and_exits_1() {
    if !common::have_samples() {
        return;
    }
    let crashed = samples().join("crashed");
    let bad = crashed.join(
        "examples__acp-agent__tests__snapshots__packed-chunks__session.d-garbage-committed.jsonl",
    );
    // What is before the defect (line 14) is a log show reads: the header and 12 events.
    let dir = tempfile::tempdir().expect("tempdir");
    let prefix = dir.path().join("prefix.jsonl");
    let text = std::fs::read_to_string(&bad).expect("log");
    let head: Vec<&str> = text.lines().take(13).collect();
    std::fs::write(&prefix, format!("{}\n", head.join("\n"))).expect("write");
    let expected = from_show(&show(&prefix).expect("the prefix reads"));
    assert!(expected.turns == 1 && expected.steps == 1, "{expected:?}");
    let (v, code) = stats(&["--by", "session"], std::slice::from_ref(&bad));
    assert_eq!(code, 1);
    assert_eq!(from_row(&rows(&v)[0]), expected);
    assert_eq!(v["not_valid"][0]["rule"], "J5");
    assert_eq!(v["not_valid"][0]["line"], 14);
    let (text, _, code) = run(&["stats", bad.to_str().expect("utf-8")]);
    assert_eq!(code, 1);
    assert!(
        text.ends_with(&format!(
            "\n1 log not valid, counted up to its defect:\n  {}: corrupt J5 at line 14: unparsable committed event; a turn/end follows at line 37 (counted: lines 1–13)\n",
            bad.display()
        )),
        "{text}"
    );
    // csv keeps its rows clean: the note goes to standard error.
    let (csv, err, code) = run(&["stats", "--format", "csv", bad.to_str().expect("utf-8")]);
    assert_eq!(code, 1);
    assert_eq!(csv.lines().count(), 2, "{csv}");
    assert!(err.contains("corrupt J5 at line 14"), "{err}");
}

#[test]
fn a_torn_tail_counts_its_committed_part_and_exits_0() {
    if !common::have_samples() {
        return;
    }
    let torn = samples().join("crashed").join(
        "examples__acp-agent__tests__snapshots__packed-chunks__session.c-torn-final-line.jsonl",
    );
    let expected = from_show(&show(&torn).expect("show reads a torn log"));
    let (v, code) = stats(&["--by", "session"], std::slice::from_ref(&torn));
    assert_eq!(code, 0);
    assert_eq!(from_row(&rows(&v)[0]), expected);
    assert_eq!(v["torn_tails"][0]["status"], "torn-tail");
    assert_eq!(v["not_valid"], serde_json::json!([]));
}

#[test]
fn every_sample_directory_runs_without_panic_and_unreadable_paths_exit_2() {
    if !common::have_samples() {
        return;
    }
    for dir in ["jsonl", "zstd", "sqlite", "crashed", "real"] {
        let paths = files_in(dir);
        for format in ["text", "json", "csv", "jsonl"] {
            let out = dsh_writer()
                .args(["stats", "--format", format, "--by", "session"])
                .args(&paths)
                .output()
                .expect("runs");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!err.contains("internal error"), "{dir}: {err}");
            assert!(out.status.code().is_some_and(|c| c <= 1), "{dir}: {err}");
        }
    }
    // A store walked from its directory is read session by session, as validate reads it.
    let (v, code) = stats(&["--by", "session"], &[samples().join("sqlite")]);
    assert_eq!(code, 0);
    assert_eq!(v["sessions_read"], files_in("sqlite").len());
    let (_, err, code) = run(&["stats", "no/such/log.jsonl"]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such/log.jsonl"), "{err}");
    let empty = tempfile::tempdir().expect("tempdir");
    let (_, err, code) = run(&["stats", empty.path().to_str().expect("utf-8")]);
    assert_eq!(code, 2);
    assert!(err.contains("no session logs"), "{err}");
}

#[test]
fn on_a_terminal_the_table_fits_its_width_and_numbers_stay_whole() {
    // `script` gives the command a terminal of 100 columns.
    if !common::have_program("script", "util-linux `script` runs a command on a terminal")
        || !common::have_samples()
    {
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("dsh-session");
    let log = real("capital-generation.session.v4.jsonl");
    let command = format!(
        "stty cols 100; NO_COLOR= {} stats --by session {}",
        bin.display(),
        log.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qc", &command, "/dev/null"])
        .output()
        .expect("script runs");
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let lines: Vec<&str> = text.lines().collect();
    // Two header lines, the rule, then the row: its name and every number whole on one
    // line; the columns of least use are left out to fit, and the note says which.
    assert!(
        lines[0].contains(" tool ") && lines[1].ends_with(" calls"),
        "{text}"
    );
    assert!(lines[2].starts_with("---"), "{text}");
    let cells: Vec<&str> = lines[3].split_whitespace().collect();
    assert_eq!(
        cells,
        [log.to_str().unwrap(), "1", "11", "13", "786,566", "11,911"],
        "{text}"
    );
    assert_eq!(
        lines[6],
        "left out to fit 100 columns: steps, tool errors, interrupted, failed, uncached, cache read, cache write, reasoning, turn time (a wider terminal, a pipe or --format json shows them)",
        "{text}"
    );
    // A pipe gets the full width: one line per row.
    let (piped, _, _) = run(&["stats", "--by", "session", log.to_str().expect("utf-8")]);
    // The table, then a blank line and the two lines on the model without a price.
    assert_eq!(piped.lines().count(), 7);
    assert!(piped.lines().next().is_some_and(|l| l.len() > 100));
}

#[test]
fn the_readme_duckdb_recipe_reads_the_jsonl_rows() {
    // DuckDB through its Python package (`pip install duckdb`); skipped when it is absent.
    let python = |code: &str, arg: &str| {
        std::process::Command::new("python3")
            .args(["-c", code, arg])
            .output()
    };
    if !common::require(
        "DuckDB for python3",
        python("import duckdb", "").is_ok_and(|o| o.status.success()),
        "the README's DuckDB recipe runs through DuckDB's Python package (`pip install duckdb`)",
    ) || !common::have_samples()
    {
        return;
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    let start = readme.find("duckdb -c \"").expect("the recipe") + "duckdb -c \"".len();
    let query = &readme[start..start + readme[start..].find('"').expect("its end")];
    let paths: Vec<PathBuf> = ["jsonl", "real"].iter().flat_map(|d| files_in(d)).collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let usage = dir.path().join("usage.jsonl");
    let out = dsh_writer()
        .args(["stats", "--by", "day", "--format", "jsonl"])
        .args(&paths)
        .output()
        .expect("runs");
    std::fs::write(&usage, &out.stdout).expect("write");
    let query = query.replace("'usage.jsonl'", &format!("'{}'", usage.display()));
    let result = python(
        "import duckdb, json, sys; print(json.dumps(duckdb.sql(sys.argv[1]).fetchall()))",
        &query,
    )
    .expect("python3 runs");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let months: Vec<(String, u64, u64, u64)> =
        serde_json::from_slice(&result.stdout).expect("rows as JSON");
    let (total, _) = stats(&["--by", "day"], &paths);
    let t = from_row(&total["total"]);
    assert!(months.len() >= 4, "{months:?}");
    assert_eq!(months.iter().map(|m| m.1).sum::<u64>(), t.turns);
    assert_eq!(
        months.iter().map(|m| m.2).sum::<u64>(),
        t.input + t.cache_read
    );
    assert_eq!(months.iter().map(|m| m.3).sum::<u64>(), t.output);
}

#[test]
fn every_rule_fixture_with_a_defective_event_counts_the_events_before_it() {
    // For each corrupt or refused rule fixture whose finding names an event (a seq and its
    // line), the counts are those of `show` on the lines before that line: what DSH's
    // checks accepted before refusing.
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut compared, mut counted) = (0, 0);
    for path in files_under(&common::fixture("rules")) {
        let v = common::verdict_011(&path);
        if !matches!(v["status"].as_str(), Some("corrupt" | "refused")) || v["seq"].is_null() {
            continue;
        }
        let line = v["line"].as_u64().expect("a line") as usize;
        let text = std::fs::read_to_string(&path).expect("log");
        let head: Vec<&str> = text.lines().take(line - 1).collect();
        let prefix = dir.path().join("prefix.jsonl");
        std::fs::write(&prefix, format!("{}\n", head.join("\n"))).expect("write");
        let expected = show(&prefix).map_or_else(Sums::default, |s| from_show(&s));
        let (got, code) = stats(&["--by", "session"], std::slice::from_ref(&path));
        assert_eq!(code, 1, "{}", path.display());
        let got = rows(&got).first().map_or_else(Sums::default, from_row);
        assert_eq!(got, expected, "{}", path.display());
        compared += 1;
        counted += u64::from(expected.turns > 0);
    }
    assert!(compared > 30, "{compared} fixtures compared");
    assert!(
        counted > 10,
        "{counted} of them count a turn before the defect"
    );
}

#[test]
fn a_log_under_another_sessions_directory_is_counted_in_full_and_listed() {
    // H6 is found once every event was read: DSH refuses the log, no event of it.
    let root = tempfile::tempdir().expect("tempdir");
    let dir = root.path().join("--home-ana-proj--").join("wrong");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let log = dir.join("session.jsonl");
    let original = common::fixture("open-turn-after-tool-call.jsonl");
    std::fs::copy(&original, &log).expect("copy");
    let expected = from_show(&show(&original).expect("valid where it was"));
    assert_eq!(expected.input, 900);
    let (v, code) = stats(&["--by", "session"], &[root.path().to_path_buf()]);
    assert_eq!(code, 1);
    assert_eq!(from_row(&rows(&v)[0]), expected);
    assert_eq!(v["not_valid"][0]["rule"], "H6");
}

#[test]
fn under_by_model_a_turn_counts_for_its_first_answer_and_tokens_for_their_own_model() {
    // The fixture's turn 2 answers twice with deepseek-chat; here its second answer comes
    // from deepseek-reasoner, and both carry usage.
    let text = std::fs::read_to_string(common::fixture("models-presets-and-children.jsonl"))
        .expect("fixture")
        .replace(
            r#""model":"deepseek-chat"}},"stream":[]}}"#,
            r#""model":"deepseek-chat"}},"stream":[],"usage":{"inputTokens":100,"outputTokens":10}}}"#,
        )
        .replacen(
            r#""id":"m3","role":"assistant","content":[{"type":"text","text":"Done."}],"source":{"kind":"model","provider":"deepseek","model":"deepseek-chat"}},"stream":[],"usage":{"inputTokens":100,"outputTokens":10}}"#,
            r#""id":"m3","role":"assistant","content":[{"type":"text","text":"Done."}],"source":{"kind":"model","provider":"deepseek","model":"deepseek-reasoner"}},"stream":[],"usage":{"inputTokens":7,"outputTokens":3,"reasoningTokens":2}}"#,
            1,
        );
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("switch.jsonl");
    std::fs::write(&log, text).expect("write");
    let (v, code) = stats(&["--by", "model"], std::slice::from_ref(&log));
    assert_eq!(code, 0);
    let got: Vec<(String, u64, u64, u64, u64, u64)> = rows(&v)
        .iter()
        .map(|r| {
            (
                r["model"].as_str().expect("model").to_owned(),
                n(&r["turns"]),
                n(&r["steps"]),
                n(&r["input_tokens"]),
                n(&r["output_tokens"]),
                n(&r["reasoning_tokens"]),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            // Turn 2: its first answer is deepseek-chat's; its own 100 + 10 tokens.
            ("deepseek-chat".to_owned(), 1, 1, 100, 10, 0),
            // Turn 1 (deepseek-reasoner, no usage) and turn 2's second answer's tokens.
            ("deepseek-reasoner".to_owned(), 1, 1, 7, 3, 2),
        ]
    );
    assert_eq!(v["total"]["sessions"], 1);
    assert_eq!(
        from_row(&v["total"]),
        from_show(&show(&log).expect("valid"))
    );
}

/// A v4 log of one turn per answer: `(UTC time "2026-09-01T00:30:00Z", provider, model,
/// inputTokens, cacheReadTokens, outputTokens)`, each answer `shift_h` hours later.
fn priced_log(
    dir: &Path,
    name: &str,
    shift_h: i64,
    answers: &[(&str, &str, &str, u64, u64, u64)],
) -> PathBuf {
    let ms = |t: &str| {
        let secs = std::process::Command::new("date")
            .args(["-u", "-d", t, "+%s"])
            .output()
            .expect("date runs");
        String::from_utf8(secs.stdout)
            .expect("utf-8")
            .trim()
            .parse::<i64>()
            .expect("secs")
            * 1000
            + shift_h * 3_600_000
    };
    let first = ms(answers[0].0) - 1000;
    let mut lines = vec![format!(
        r#"{{"type":"session","version":4,"id":"s-cost","createdAt":{first},"cwd":"/home/ana/proj","isSeeded":false,"delegationDepth":0,"agentPreset":"standard"}}"#
    )];
    let mut seq = 0;
    let mut push = |line: String| {
        lines.push(line.replace("SEQ", &seq.to_string()));
        seq += 1;
    };
    for (i, (time, provider, model, input, cache_read, output)) in answers.iter().enumerate() {
        let t = ms(time);
        let turn = i + 1;
        push(format!(
            r#"{{"type":"turn/start","seq":SEQ,"time":{t},"data":{{"turn":{turn}}}}}"#
        ));
        push(format!(
            r#"{{"type":"step/start","seq":SEQ,"time":{t},"data":{{"turn":{turn},"step":1}}}}"#
        ));
        push(format!(
            r#"{{"type":"user/message","seq":SEQ,"time":{t},"surfaceOp":"append","data":{{"id":"u{turn}","role":"user","content":[{{"type":"text","text":"Go."}}],"source":{{"kind":"user"}}}}}}"#
        ));
        push(format!(
            r#"{{"type":"assistant/message","seq":SEQ,"time":{t},"surfaceOp":"append","data":{{"turn":{turn},"step":1,"message":{{"id":"m{turn}","role":"assistant","content":[{{"type":"text","text":"Done."}}],"source":{{"kind":"model","provider":"{provider}","model":"{model}"}}}},"stream":[],"usage":{{"inputTokens":{input},"outputTokens":{output},"cacheReadTokens":{cache_read}}}}}}}"#
        ));
        push(format!(
            r#"{{"type":"step/end","seq":SEQ,"time":{t},"data":{{"turn":{turn},"step":1}}}}"#
        ));
        push(format!(
            r#"{{"type":"turn/end","seq":SEQ,"time":{},"data":{{"turn":{turn},"reason":{{"kind":"completed"}}}}}}"#,
            t + 1000
        ));
    }
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    path
}

/// Five answers on 2026-09-01, Beijing time (UTC+8): 08:30 off-peak, 10:00 peak, 11:00 peak
/// (a model without a price), 15:00 peak, 20:00 off-peak.
const DAY: [(&str, &str, &str, u64, u64, u64); 5] = [
    // 1.00 miss + 0.04 hit + 0.20 output = 1.24 (V4-Flash, off-peak).
    (
        "2026-09-01T00:30:00Z",
        "deepseek-official",
        "deepseek-v4-flash",
        1_000_000,
        2_000_000,
        100_000,
    ),
    // (1.50 + 0.10 + 1.20) × 2 = 5.60 (V4-Pro, peak).
    (
        "2026-09-01T02:00:00Z",
        "deepseek-official",
        "deepseek-v4-pro",
        500_000,
        4_000_000,
        200_000,
    ),
    // Not in the table: never guessed.
    (
        "2026-09-01T03:00:00Z",
        "deepseek-official",
        "deepseek-v5-preview",
        1_000,
        0,
        10,
    ),
    // (0.10 + 0.10) × 2 = 0.40 (deepseek-chat is V4-Flash, peak).
    (
        "2026-09-01T07:00:00Z",
        "deepseek",
        "deepseek-chat",
        100_000,
        0,
        50_000,
    ),
    // 0.02 + 0.02 = 0.04 (deepseek-reasoner through a DeepSeek account, off-peak).
    (
        "2026-09-01T12:00:00Z",
        "deepseek-account",
        "deepseek-reasoner",
        0,
        1_000_000,
        10_000,
    ),
];

fn cny(v: &Value) -> Option<f64> {
    v["cost"]["CNY"]["total"].as_f64()
}

#[test]
fn each_answer_is_priced_in_cny_at_the_band_of_its_own_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The fixture is DAY as written here.
    let log = common::fixture("usage/deepseek-peak-and-off-peak.jsonl");
    assert_eq!(
        std::fs::read_to_string(priced_log(dir.path(), "day.jsonl", 0, &DAY)).expect("log"),
        std::fs::read_to_string(&log).expect("fixture")
    );
    let (v, code) = stats(&["--by", "band"], std::slice::from_ref(&log));
    assert_eq!(code, 0);
    assert_eq!(v["schema_version"], 2);
    let bands: Vec<(String, u64, Option<f64>, Value)> = rows(&v)
        .iter()
        .map(|r| {
            (
                r["band"].as_str().expect("band").to_owned(),
                n(&r["turns"]),
                cny(r),
                r["unpriced"].clone(),
            )
        })
        .collect();
    assert_eq!(
        bands,
        [
            (
                "-".to_owned(),
                1,
                None,
                serde_json::json!(["deepseek-official/deepseek-v5-preview"])
            ),
            ("off-peak".to_owned(), 2, Some(1.5), serde_json::json!([])),
            ("peak".to_owned(), 2, Some(11.7), serde_json::json!([])),
        ]
    );
    let total = &v["total"];
    assert_eq!(
        total["cost"]["CNY"],
        serde_json::json!({"total": 13.2, "cache_hit": 1.26, "cache_miss": 5.7, "cache_write": 0.0, "output": 6.24})
    );
    assert_eq!(
        total["unpriced"],
        serde_json::json!(["deepseek-official/deepseek-v5-preview"])
    );
    assert_eq!(total["input_total_tokens"], 8_601_000);
    assert_eq!(total["input_tokens"], 1_601_000);
    assert_eq!(
        v["unpriced"],
        serde_json::json!([{"model": "deepseek-official/deepseek-v5-preview", "reason": "no price"}])
    );
    assert_eq!(v["prices"]["sources"][0]["checked"], "2026-12-05");

    // One hour later: 09:30 is peak too (1.44 × 2), 21:00 still off-peak.
    let later = priced_log(dir.path(), "later.jsonl", 1, &DAY);
    let (v, _) = stats(&["--by", "band"], std::slice::from_ref(&later));
    let costs: Vec<(String, Option<f64>)> = rows(&v)
        .iter()
        .map(|r| (r["band"].as_str().expect("band").to_owned(), cny(r)))
        .collect();
    assert_eq!(
        costs,
        [
            ("-".to_owned(), None),
            ("off-peak".to_owned(), Some(0.06)),
            ("peak".to_owned(), Some(14.58))
        ]
    );
    assert_eq!(cny(&v["total"]), Some(14.64));

    // By hour of the day in Beijing, and by model: the aliases stay apart as the log names
    // them, each at V4-Flash's price.
    let (v, _) = stats(
        &["--by", "hour", "--tz", "Asia/Shanghai"],
        std::slice::from_ref(&log),
    );
    let hours: Vec<(String, Option<f64>)> = rows(&v)
        .iter()
        .map(|r| (r["hour"].as_str().expect("hour").to_owned(), cny(r)))
        .collect();
    assert_eq!(
        hours,
        [
            ("08".to_owned(), Some(1.44)),
            ("10".to_owned(), Some(11.1)),
            ("11".to_owned(), None),
            ("15".to_owned(), Some(0.6)),
            ("20".to_owned(), Some(0.06)),
        ]
    );
    let (v, _) = stats(&["--by", "model"], std::slice::from_ref(&log));
    let models: Vec<(String, Option<f64>)> = rows(&v)
        .iter()
        .map(|r| (r["model"].as_str().expect("model").to_owned(), cny(r)))
        .collect();
    assert_eq!(
        models,
        [
            ("deepseek-chat".to_owned(), Some(0.6)),
            ("deepseek-reasoner".to_owned(), Some(0.06)),
            ("deepseek-v4-flash".to_owned(), Some(1.44)),
            ("deepseek-v4-pro".to_owned(), Some(11.1)),
            ("deepseek-v5-preview".to_owned(), None),
        ]
    );
}

#[test]
fn the_text_shows_the_known_cost_with_separators_and_lists_the_unpriced_model() {
    let log = common::fixture("usage/deepseek-peak-and-off-peak.jsonl");
    let (text, _, code) = run(&["stats", "--by", "band", log.to_str().expect("utf-8")]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = text.lines().collect();
    let cells = |i: usize| lines[i].split_whitespace().collect::<Vec<_>>();
    assert_eq!(
        cells(0),
        [
            "band",
            "sessions",
            "turns",
            "steps",
            "tool",
            "calls",
            "tool",
            "errors",
            "interrupted",
            "failed",
            "input",
            "uncached",
            "output",
            "cache",
            "read",
            "cache",
            "write",
            "reasoning",
            "turn",
            "time",
            "hit",
            "CNY",
            "miss",
            "CNY",
            "output",
            "CNY",
            "cost",
            "CNY"
        ],
        "{text}"
    );
    assert_eq!(
        cells(2),
        [
            "-", "1", "1", "1", "0", "0", "0", "0", "1,000", "1,000", "10", "0", "0", "0",
            "0:00:01", "-", "-", "-", "-"
        ],
        "{text}"
    );
    assert_eq!(
        cells(5),
        [
            "total",
            "1",
            "5",
            "5",
            "0",
            "0",
            "0",
            "0",
            "8,601,000",
            "1,601,000",
            "360,010",
            "7,000,000",
            "0",
            "0",
            "0:00:05",
            "1.2600",
            "5.7000",
            "6.2400",
            "13.2000*"
        ],
        "{text}"
    );
    assert_eq!(
        lines[7..].join("\n"),
        "1 model has no price, its tokens are in no cost (a cost marked * is the known part):\n  \
         deepseek-official/deepseek-v5-preview: no price in the built-in table (add one with --prices); 1,000 input (1,000 uncached), 10 output\n\
         prices: DeepSeek API pricing, api-docs.deepseek.com/zh-cn/quick_start/pricing (模型 & 价格) from 2026-08-16 16:00 UTC, flat USD list prices before it (api-docs.deepseek.com/quick_start/pricing) (checked 2026-12-05)",
        "{text}"
    );
}

#[test]
fn reasoning_is_unknown_not_zero_when_messages_reason_without_a_count() {
    let log = common::fixture("usage/reasoning-without-a-token-count.jsonl");
    let (v, _) = stats(&["--by", "session"], std::slice::from_ref(&log));
    assert_eq!(v["total"]["reasoning_tokens"], Value::Null);
    let (text, _, _) = run(&["stats", "--by", "session", log.to_str().expect("utf-8")]);
    let total: Vec<&str> = text
        .lines()
        .find(|l| l.trim_start().starts_with("total"))
        .expect("total")
        .split_whitespace()
        .collect();
    // reasoning is the 14th column.
    assert_eq!(total[13], "-", "{text}");
}

/// The `inputTokens` of the `assistant/message` events of a JSONL log with a seq below
/// `below`.
fn input_tokens_below(path: &Path, below: u64) -> u64 {
    std::fs::read_to_string(path)
        .expect("log")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| {
            e["type"] == "assistant/message" && e["seq"].as_u64().is_some_and(|s| s < below)
        })
        .map(|e| n(&e["data"]["usage"]["inputTokens"]))
        .sum()
}

#[test]
fn a_fork_is_counted_once_in_its_parent() {
    if !common::have_samples() {
        return;
    }
    // A subagent forked in process: its first 42 events (seedLength 42, then a
    // session/end-seed) are a copy of its parent's.
    let dir = samples().join("jsonl");
    let parent =
        dir.join("examples__acp-agent__tests__snapshots__subagent-fork-in-process__session.jsonl");
    let child = dir
        .join("examples__acp-agent__tests__snapshots__subagent-fork-in-process__session.1.jsonl");
    let inherited = input_tokens_below(&child, 42);
    assert!(inherited > 0, "the seed holds answers with usage");
    let whole_child = n(&show(&child).expect("valid")["usage"]["input_tokens"]);
    let (p, _) = stats(&[], std::slice::from_ref(&parent));
    let (c, _) = stats(&[], std::slice::from_ref(&child));
    let (both, _) = stats(&["--by", "session"], &[parent.clone(), child.clone()]);
    assert_eq!(n(&c["total"]["input_tokens"]), whole_child - inherited);
    // By session the subagent is rolled into its parent's row, or shown apart.
    assert_eq!(rows(&both).len(), 1);
    assert_eq!(rows(&both)[0]["file"], parent.display().to_string());
    assert_eq!(rows(&both)[0]["sessions"], 2);
    let (apart, _) = stats(
        &["--by", "session", "--subagents-apart"],
        &[parent.clone(), child.clone()],
    );
    assert_eq!(rows(&apart).len(), 2);
    // `session.1.jsonl` sorts before `session.jsonl`.
    assert_eq!(rows(&apart)[0]["file"], child.display().to_string());
    assert_eq!(n(&rows(&apart)[0]["input_tokens"]), whole_child - inherited);
    assert_eq!(
        n(&both["total"]["input_tokens"]),
        n(&p["total"]["input_tokens"]) + whole_child - inherited
    );
    assert_eq!(
        c["inherited"],
        serde_json::json!([{"file": child.display().to_string(), "parent": "96cf59c9-b347-48b9-b234-a5200913ad05", "events": 42}])
    );
    let (text, _, _) = run(&["stats", child.to_str().expect("utf-8")]);
    assert!(
        text.contains(&format!(
            "1 log is a fork: what it inherited from its parent is counted in the parent, not again:\n  {}: the first 42 events of 96cf59c9-b347-48b9-b234-a5200913ad05\n",
            child.display()
        )),
        "{text}"
    );
}

#[test]
fn statusline_prints_the_session_today_and_the_band_now_in_its_width() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = common::fixture("usage/deepseek-peak-and-off-peak.jsonl");
    let empty_root = dir.path().join("root");
    std::fs::create_dir(&empty_root).expect("root");
    let line = |width: &str, now: &str| {
        let out = dsh_writer()
            .env("TZ", "Asia/Shanghai")
            .args([
                "statusline",
                "--no-cache",
                "--width",
                width,
                "--now",
                now,
                "--root",
            ])
            .arg(&empty_root)
            .arg(&log)
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    };
    // 8,601,000 input + 360,010 output; 13.20 CNY priced (one model has no price: *); all of
    // it today in Beijing; 10:30 there is peak until noon.
    let full = "8,961,010 tok 13.2000 CNY* · today 13.2000 CNY · peak ×2 until 12:00 CST";
    assert_eq!(line("80", "2026-09-01T10:30:00+08:00"), format!("{full}\n"));
    assert_eq!(
        line("80", "2026-09-01T12:30:00+08:00"),
        "8,961,010 tok 13.2000 CNY* · today 13.2000 CNY · off-peak until 14:00 CST\n"
    );
    // Narrower: the last parts go first; narrower than the first part, it is cut with `…`.
    assert_eq!(
        line("50", "2026-09-01T10:30:00+08:00"),
        "8,961,010 tok 13.2000 CNY* · today 13.2000 CNY\n"
    );
    assert_eq!(line("12", "2026-09-01T10:30:00+08:00"), "8,961,010 t…\n");
    // With the cache: the same line twice, the second from the cache file (never beside
    // the log), which a changed log makes stale.
    let cache = dir.path().join("cache/statusline.json");
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(&log, &copy).expect("copy");
    let cached = |log: &Path| {
        let out = dsh_writer()
            .env("TZ", "Asia/Shanghai")
            .args([
                "statusline",
                "--width",
                "80",
                "--now",
                "2026-09-01T10:30:00+08:00",
            ])
            .arg("--cache")
            .arg(&cache)
            .arg("--root")
            .arg(&empty_root)
            .arg(log)
            .output()
            .expect("runs");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    assert_eq!(cached(&copy), format!("{full}\n"));
    let kept: Value =
        serde_json::from_slice(&std::fs::read(&cache).expect("cache written")).expect("JSON");
    assert_eq!(
        kept["session"][copy.display().to_string()]["tokens"],
        8_961_010
    );
    // Amounts are kept as JSON integers of 10⁻¹² CNY (not as text), and the session's log,
    // read in one scan, gave both its own figures and its cost today.
    let name = copy.display().to_string();
    assert_eq!(kept["session"][&name]["cost"]["CNY"], 13_200_000_000_000u64);
    assert_eq!(kept["logs"][&name]["cost"]["CNY"], 13_200_000_000_000u64);
    assert_eq!(cached(&copy), format!("{full}\n"));
    // A log that grew is read again: one answer more (200,000 uncached V4-Flash tokens at
    // 10:30, peak: 0.40 CNY).
    let mut text = std::fs::read_to_string(&copy).expect("copy");
    for line in [
        r#"{"type":"turn/start","seq":30,"time":1788230000000,"data":{"turn":6}}"#,
        r#"{"type":"step/start","seq":31,"time":1788230000000,"data":{"turn":6,"step":1}}"#,
        r#"{"type":"user/message","seq":32,"time":1788230000000,"surfaceOp":"append","data":{"id":"u6","role":"user","content":[{"type":"text","text":"More."}],"source":{"kind":"user"}}}"#,
        r#"{"type":"assistant/message","seq":33,"time":1788230000000,"surfaceOp":"append","data":{"turn":6,"step":1,"message":{"id":"m6","role":"assistant","content":[{"type":"text","text":"More."}],"source":{"kind":"model","provider":"deepseek-official","model":"deepseek-v4-flash"}},"stream":[],"usage":{"inputTokens":200000,"outputTokens":0}}}"#,
        r#"{"type":"step/end","seq":34,"time":1788230000000,"data":{"turn":6,"step":1}}"#,
        r#"{"type":"turn/end","seq":35,"time":1788230001000,"data":{"turn":6,"reason":{"kind":"completed"}}}"#,
    ] {
        text.push_str(line);
        text.push('\n');
    }
    std::fs::write(&copy, text).expect("grow");
    assert!(cached(&copy).starts_with("9,161,010 tok 13.6000 CNY* · today 13.6000 CNY"));
    // The next day, nothing of it is today's.
    assert_eq!(
        line("80", "2026-09-02T20:00:00+08:00"),
        "8,961,010 tok 13.2000 CNY* · today 0 · off-peak until 09:00 CST\n"
    );
}
