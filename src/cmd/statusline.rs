//! `statusline [PATH]`: one line for a shell prompt, tmux or an editor's status bar: the
//! session's tokens and cost, today's cost over the sessions under DSH's root, and the price
//! band now (`peak ×2 until 12:00 CST`). Cut to `$COLUMNS` (or `--width`).
//!
//! Fast on a warm cache: today's cost of each log is kept in a small JSON file in the user's
//! cache directory (never beside the logs), keyed by the log's path, size and mtime, so only
//! the logs that changed are read again.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use dsh_session::prices::{Cost, PriceTable};
use dsh_session::scan::{self, ScanOptions};
use dsh_session::view::View;
use dsh_session::view::usage::{Counts, GroupBy, UsageOptions, UsageView};
use serde::{Deserialize, Serialize};
use unicode_width::UnicodeWidthStr;

use crate::cli::StatuslineArgs;
use crate::cmd::cost::{money, thousands};

/// Reads one log (every session of a store) into summed counts.
fn counts_of(path: &Path, options: &UsageOptions) -> Result<Counts> {
    let sink = Rc::default();
    let views = || -> Vec<Box<dyn View>> {
        vec![Box::new(UsageView::new(options.clone(), Rc::clone(&sink)))]
    };
    scan::scan_all(path, &ScanOptions::default(), &views)
        .map_err(|e| anyhow::anyhow!(dsh_session::wording::error_text(&e)))
        .with_context(|| path.display().to_string())?;
    Ok(crate::cmd::cost::session_total(&sink))
}

/// A log's size and mtime (ms), to know when a cached count is stale.
fn stamp(path: &Path) -> Option<(u64, i64)> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some((meta.len(), i64::try_from(mtime.as_millis()).ok()?))
}

/// One log's cost on one day, as cached.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Cached {
    len: u64,
    mtime: i64,
    /// Cost per currency, in 10⁻¹² of it (as text: JSON numbers are not u128).
    cost: BTreeMap<String, String>,
}

/// What the line shows of the session, as cached.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
struct Session {
    len: u64,
    mtime: i64,
    /// Input (cached or not) and output tokens.
    tokens: u64,
    /// Cost per currency, in 10⁻¹² of it, as text.
    cost: BTreeMap<String, String>,
    /// Some model of it has no price.
    unpriced: bool,
    /// Its provider/models, for the band.
    models: Vec<(Option<String>, Option<String>)>,
}

impl Session {
    fn of(len: u64, mtime: i64, c: &Counts) -> Session {
        let t = c.tokens();
        Session {
            len,
            mtime,
            tokens: t.input + t.cache_read + t.cache_write + t.output,
            cost: c
                .cost
                .iter()
                .map(|(cur, c): (&String, &Cost)| (cur.clone(), c.total().to_string()))
                .collect(),
            unpriced: !c.unpriced.is_empty(),
            models: c
                .usage
                .keys()
                .map(|m| (m.provider.clone(), m.model.clone()))
                .collect(),
        }
    }
}

/// The cache: the day (`YYYY-MM-DD` in the local zone) and the prices it was made with
/// (this version's table and the `--prices` file's path, size and mtime), each log's cost
/// that day, and the last session shown.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Cache {
    day: String,
    prices: String,
    logs: BTreeMap<String, Cached>,
    session: BTreeMap<String, Session>,
}

/// The cache file: `$XDG_CACHE_HOME/dsh-session/statusline.json` or the platform's cache
/// directory; `--cache FILE` over it.
fn cache_path(args: &StatuslineArgs) -> Option<PathBuf> {
    args.cache.clone().or_else(|| {
        directories::ProjectDirs::from("", "", "dsh-session")
            .map(|d| d.cache_dir().join("statusline.json"))
    })
}

/// The cache in `file` when it was made on `day` with `prices`, else an empty one.
fn load(file: Option<&Path>, day: &str, prices: &str) -> Cache {
    file.and_then(|f| std::fs::read(f).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .filter(|c: &Cache| c.day == day && c.prices == prices)
        .unwrap_or_else(|| Cache {
            day: day.to_owned(),
            prices: prices.to_owned(),
            ..Cache::default()
        })
}

/// Writes the cache whole beside itself and renames it over the old one, so a reader never
/// sees half; a cache that cannot be written costs speed, not correctness.
fn save(file: &Path, cache: &Cache) {
    if let (Some(dir), Ok(bytes)) = (file.parent(), serde_json::to_vec(cache)) {
        let _ = std::fs::create_dir_all(dir);
        if let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir)
            && tmp.write_all(&bytes).is_ok()
        {
            let _ = tmp.persist(file);
        }
    }
}

/// The session's figures, from the cache when the log did not change.
fn session_of(path: &Path, options: &UsageOptions, cache: &mut Cache) -> Result<Session> {
    let key = path.display().to_string();
    let (len, mtime) = stamp(path).unwrap_or((0, 0));
    if let Some(s) = cache
        .session
        .get(&key)
        .filter(|s| s.len == len && s.mtime == mtime)
    {
        return Ok(s.clone());
    }
    let s = Session::of(len, mtime, &counts_of(path, options)?);
    cache.session = BTreeMap::from([(key, s.clone())]);
    Ok(s)
}

/// Today's cost per currency over `logs`, from the cache where a log did not change.
fn today(logs: &[PathBuf], options: &UsageOptions, cache: &mut Cache) -> BTreeMap<String, u128> {
    let mut fresh = BTreeMap::new();
    let mut sum: BTreeMap<String, u128> = BTreeMap::new();
    for log in logs {
        let Some((len, mtime)) = stamp(log) else {
            continue;
        };
        let key = log.display().to_string();
        let entry = match cache.logs.remove(&key) {
            Some(c) if c.len == len && c.mtime == mtime => c,
            _ => {
                let Ok(counts) = counts_of(log, options) else {
                    continue;
                };
                Cached {
                    len,
                    mtime,
                    cost: counts
                        .cost
                        .iter()
                        .map(|(cur, c)| (cur.clone(), c.total().to_string()))
                        .collect(),
                }
            }
        };
        for (cur, units) in &entry.cost {
            *sum.entry(cur.clone()).or_default() += units.parse::<u128>().unwrap_or(0);
        }
        fresh.insert(key, entry);
    }
    cache.logs = fresh;
    sum
}

/// `amount CUR` for each currency, joined by ` + `; `0` for none.
fn amounts(cost: &BTreeMap<String, u128>) -> String {
    if cost.is_empty() {
        return "0".to_owned();
    }
    cost.iter()
        .map(|(cur, units)| format!("{} {cur}", money(*units)))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The band now at the entry of the session's last priced model, else at the table's
/// first entry: `peak ×2 until 12:00 CST`.
fn band_now(
    table: &PriceTable,
    models: &[(Option<String>, Option<String>)],
    now: i64,
) -> Option<String> {
    let entry = models
        .iter()
        .rev()
        .find_map(|(provider, model)| {
            table
                .entry(provider.as_deref(), model.as_deref(), Some(now))
                .ok()
        })
        .or_else(|| table.entries.first())?;
    let band = entry.band_at(now);
    let at = jiff::Timestamp::from_millisecond(now).ok()?;
    let zone = at
        .to_zoned_datetime(entry.zone.clone())
        .strftime("%Z")
        .to_string();
    let until = format!(
        "{:02}:{:02}",
        band.until_minute / 60,
        band.until_minute % 60
    );
    let times = if band.multiplier == 1.0 {
        String::new()
    } else {
        format!(" ×{}", band.multiplier)
    };
    Some(format!("{}{times} until {until} {zone}", band.name))
}

/// The parts joined by ` · `, the last ones left out until the line fits `width`; a first
/// part wider than that is cut, ending in `…`.
pub fn fit(parts: &[String], width: usize) -> String {
    for n in (1..=parts.len()).rev() {
        let line = parts[..n].join(" · ");
        if line.width() <= width {
            return line;
        }
    }
    dsh_session::tui::text::fit(parts.first().map_or("", String::as_str), width)
}

/// Runs `statusline`.
pub fn run(args: &StatuslineArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let table = crate::cmd::stats::price_table(args.prices.as_deref())?;
    let zone = jiff::tz::TimeZone::system();
    let now = args
        .now
        .as_deref()
        .map(|t| crate::cmd::stats::parse_when("--now", t, &zone, false))
        .transpose()?
        .unwrap_or_else(|| jiff::Timestamp::now().as_millisecond());
    let root = args
        .root
        .clone()
        .or_else(dsh_session::load::layout::dsh_root);
    // The session: the path given, else the log under the root written last.
    let logs: Vec<PathBuf> = match &root {
        Some(r) if r.is_dir() => {
            dsh_session::load::layout::discover(std::slice::from_ref(r), "statusline").0
        }
        _ => Vec::new(),
    };
    let session = match &args.path {
        Some(p) => p.clone(),
        None => match logs.iter().max_by_key(|p| stamp(p).map(|s| s.1)) {
            Some(p) => p.clone(),
            None => bail!(
                "no session log under {}: name one (`dsh-session statusline session.v4.jsonl`) or give --root",
                root.map_or_else(|| "~/.dsh/sessions".to_owned(), |r| r.display().to_string())
            ),
        },
    };
    let options = |since: Option<i64>| UsageOptions {
        by: GroupBy::Session,
        tz: zone.clone(),
        since,
        until: None,
        prices: Arc::clone(&table),
    };
    // The cache is made for one day and one price table.
    let day = dsh_session::view::usage::day_of(now, &zone).unwrap_or_default();
    let prices_key = format!(
        "{} {:?}",
        env!("CARGO_PKG_VERSION"),
        args.prices
            .as_deref()
            .map(|p| (p.display().to_string(), stamp(p)))
    );
    let cache_file = if args.no_cache {
        None
    } else {
        cache_path(args)
    };
    let mut cache = load(cache_file.as_deref(), &day, &prices_key);
    let this = session_of(&session, &options(None), &mut cache)?;
    let cost: BTreeMap<String, u128> = this
        .cost
        .iter()
        .map(|(cur, units)| (cur.clone(), units.parse::<u128>().unwrap_or(0)))
        .collect();
    let mut session_part = format!("{} tok {}", thousands(this.tokens), amounts(&cost));
    if this.unpriced {
        session_part.push('*');
    }
    let mut parts = vec![session_part];
    // Today: the logs under the root written since local midnight, their turns of today.
    let midnight = jiff::Timestamp::from_millisecond(now)
        .ok()
        .and_then(|at| at.to_zoned_datetime(zone.clone()).start_of_day().ok())
        .map(|z| z.timestamp().as_millisecond());
    if let Some(midnight) = midnight {
        let mut today_logs: Vec<PathBuf> = logs
            .iter()
            .filter(|p| stamp(p).is_some_and(|(_, m)| m >= midnight))
            .cloned()
            .collect();
        if args.path.is_some() && !today_logs.contains(&session) {
            today_logs.push(session.clone());
        }
        let sum = today(&today_logs, &options(Some(midnight)), &mut cache);
        parts.push(format!("today {}", amounts(&sum)));
    }
    if let Some(file) = &cache_file {
        save(file, &cache);
    }
    if let Some(band) = band_now(&table, &this.models, now) {
        parts.push(band);
    }
    let width = args
        .width
        .or_else(|| std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()))
        .unwrap_or(80);
    writeln!(out, "{}", fit(&parts, width))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_left_out_from_the_right_to_fit() {
        let parts = ["abc".to_owned(), "de".to_owned(), "f".to_owned()];
        assert_eq!(fit(&parts, 20), "abc · de · f");
        assert_eq!(fit(&parts, 8), "abc · de");
        assert_eq!(fit(&parts, 3), "abc");
        assert_eq!(fit(&parts, 2), "a…");
    }
}
