//! `statusline`'s work: one line for a shell prompt, tmux or an editor's status bar, made of
//! the session's tokens and cost, today's cost over the sessions under DSH's root, and the
//! price band now (`peak ×2 until 12:00 CST`), cut to a width ([`fit`]).
//!
//! Fast on a warm cache: today's cost of each log is kept in a small JSON file in the user's
//! cache directory (never beside the logs), keyed by the log's path, size and mtime, so only
//! the logs that changed are read again. Each log is stat'ed once, and the session's log is
//! scanned once for both its own figures and its part of today.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use unicode_width::UnicodeWidthStr;

use crate::period::Period;
use crate::prices::PriceTable;
use crate::prices::money::{money, thousands};
use crate::scan::{self, ScanError, ScanOptions};
use crate::view::View;
use crate::view::usage::{Counts, GroupBy, UsageOptions, UsageView};

/// Why no line could be made.
#[derive(Debug, thiserror::Error)]
pub enum StatuslineError {
    /// No log was named and none was found under the root (named, or `~/.dsh/sessions`).
    #[error(
        "no session log under {root}: name one (`dsh-session statusline session.v4.jsonl`) or give --root"
    )]
    NoSession {
        /// The root looked under.
        root: String,
    },
    /// The session's log could not be read.
    #[error("{path}")]
    Read {
        /// The log.
        path: String,
        /// Why.
        #[source]
        source: ScanError,
    },
}

/// What the line is made from.
pub struct Request<'a> {
    /// The session's log; `None`: the log under `root` written last.
    pub path: Option<&'a Path>,
    /// DSH's sessions root (`--root`); `None`: `~/.dsh/sessions`.
    pub root: Option<PathBuf>,
    /// The price table (the built-in one under `--prices`).
    pub prices: Arc<PriceTable>,
    /// The `--prices` file, part of the cache's key.
    pub prices_file: Option<&'a Path>,
    /// Now, in ms since the Unix epoch (`--now`).
    pub now: i64,
    /// The local zone: today starts at its midnight.
    pub zone: jiff::tz::TimeZone,
    /// The cache file; `None` reads and writes no cache (`--no-cache`).
    pub cache: Option<PathBuf>,
}

/// The cache file: `$XDG_CACHE_HOME/dsh-session/statusline.json` or the platform's cache
/// directory.
pub fn default_cache() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "dsh-session")
        .map(|d| d.cache_dir().join("statusline.json"))
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

/// Reads one log (every session of a store) with one view per `options`, in one scan:
/// the summed counts of each.
fn counts_of(path: &Path, options: &[UsageOptions]) -> Result<Vec<Counts>, ScanError> {
    let sinks: Vec<_> = options.iter().map(|_| Rc::default()).collect();
    let views = || -> Vec<Box<dyn View>> {
        options
            .iter()
            .zip(&sinks)
            .map(|(o, sink)| Box::new(UsageView::new(o.clone(), Rc::clone(sink))) as Box<dyn View>)
            .collect()
    };
    scan::scan_all(path, &ScanOptions::default(), &views)?;
    Ok(sinks.iter().map(|s| crate::view::usage::total(s)).collect())
}

/// Cost per currency, in 10⁻¹² of it.
type Amounts = BTreeMap<String, u128>;

fn amounts_of(c: &Counts) -> Amounts {
    c.cost
        .iter()
        .map(|(cur, c)| (cur.clone(), c.total()))
        .collect()
}

/// One log's cost on one day, as cached.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Cached {
    len: u64,
    mtime: i64,
    cost: Amounts,
}

/// What the line shows of the session, as cached.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
struct Session {
    len: u64,
    mtime: i64,
    /// Input (cached or not) and output tokens.
    tokens: u64,
    cost: Amounts,
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
            cost: amounts_of(c),
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
/// that day, and the last session shown. Amounts are JSON integers (128-bit).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Cache {
    day: String,
    prices: String,
    logs: BTreeMap<String, Cached>,
    session: BTreeMap<String, Session>,
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

/// The usage options of the line: by session, from `since` on.
fn options(req: &Request<'_>, since: Option<i64>) -> UsageOptions {
    UsageOptions {
        by: GroupBy::Session,
        tz: req.zone.clone(),
        period: Period { since, until: None },
        prices: Arc::clone(&req.prices),
    }
}

/// The session's figures, from the cache when the log did not change. A log read again is
/// read once for its figures and, from `midnight` on, its cost today (put in the cache).
fn session_of(
    req: &Request<'_>,
    path: &Path,
    at: Option<(u64, i64)>,
    midnight: Option<i64>,
    cache: &mut Cache,
) -> Result<Session, StatuslineError> {
    let key = path.display().to_string();
    let (len, mtime) = at.unwrap_or((0, 0));
    if let Some(s) = cache
        .session
        .get(&key)
        .filter(|s| s.len == len && s.mtime == mtime)
    {
        return Ok(s.clone());
    }
    let mut wanted = vec![options(req, None)];
    wanted.extend(midnight.map(|m| options(req, Some(m))));
    let counts = counts_of(path, &wanted).map_err(|source| StatuslineError::Read {
        path: key.clone(),
        source,
    })?;
    if let (Some(today), Some(_)) = (counts.get(1), at) {
        let cost = amounts_of(today);
        cache.logs.insert(key.clone(), Cached { len, mtime, cost });
    }
    let s = Session::of(len, mtime, &counts[0]);
    cache.session = BTreeMap::from([(key, s.clone())]);
    Ok(s)
}

/// Today's cost per currency over `logs` (each with its stamp), from the cache where a log
/// did not change.
fn today(
    req: &Request<'_>,
    logs: &[(&Path, (u64, i64))],
    midnight: i64,
    cache: &mut Cache,
) -> Amounts {
    let mut fresh = BTreeMap::new();
    let mut sum = Amounts::new();
    let since = [options(req, Some(midnight))];
    for &(log, (len, mtime)) in logs {
        let key = log.display().to_string();
        let entry = match cache.logs.remove(&key) {
            Some(c) if c.len == len && c.mtime == mtime => c,
            _ => {
                let Ok(counts) = counts_of(log, &since) else {
                    continue;
                };
                Cached {
                    len,
                    mtime,
                    cost: amounts_of(&counts[0]),
                }
            }
        };
        for (cur, units) in &entry.cost {
            *sum.entry(cur.clone()).or_default() += units;
        }
        fresh.insert(key, entry);
    }
    cache.logs = fresh;
    sum
}

/// `amount CUR` for each currency, joined by ` + `; `0` for none.
fn amounts(cost: &Amounts) -> String {
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

/// The parts of the line, in order of importance: the session (`12,345 tok 0.0123 CNY`,
/// `*` when some model has no price), today (`today 0.0456 CNY`), the band now.
///
/// # Errors
/// No session log named or found; the session's log cannot be read.
pub fn parts(req: &Request<'_>) -> Result<Vec<String>, StatuslineError> {
    let root = req.root.clone().or_else(crate::load::layout::dsh_root);
    // Every log under the root, stat'ed once.
    let logs: Vec<(PathBuf, Option<(u64, i64)>)> = match &root {
        Some(r) if r.is_dir() => crate::load::layout::discover(std::slice::from_ref(r))
            .0
            .into_iter()
            .map(|p| {
                let at = stamp(&p);
                (p, at)
            })
            .collect(),
        _ => Vec::new(),
    };
    // The session: the path given, else the log under the root written last.
    let (session, at) = match req.path {
        Some(p) => (p.to_path_buf(), stamp(p)),
        None => match logs.iter().max_by_key(|(_, at)| at.map(|s| s.1)) {
            Some((p, at)) => (p.clone(), *at),
            None => {
                return Err(StatuslineError::NoSession {
                    root: root
                        .map_or_else(|| "~/.dsh/sessions".to_owned(), |r| r.display().to_string()),
                });
            }
        },
    };
    // The cache is made for one day and one price table.
    let day = crate::view::usage::day_of(req.now, &req.zone).unwrap_or_default();
    let prices_key = format!(
        "{} {:?}",
        env!("CARGO_PKG_VERSION"),
        req.prices_file.map(|p| (p.display().to_string(), stamp(p)))
    );
    let mut cache = load(req.cache.as_deref(), &day, &prices_key);
    // Today: the logs under the root written since local midnight, their turns of today.
    let midnight = jiff::Timestamp::from_millisecond(req.now)
        .ok()
        .and_then(|at| at.to_zoned_datetime(req.zone.clone()).start_of_day().ok())
        .map(|z| z.timestamp().as_millisecond());
    let this = session_of(req, &session, at, midnight, &mut cache)?;
    let mut session_part = format!("{} tok {}", thousands(this.tokens), amounts(&this.cost));
    if this.unpriced {
        session_part.push('*');
    }
    let mut parts = vec![session_part];
    if let Some(midnight) = midnight {
        let mut today_logs: Vec<(&Path, (u64, i64))> = logs
            .iter()
            .filter_map(|(p, at)| {
                at.filter(|(_, m)| *m >= midnight)
                    .map(|at| (p.as_path(), at))
            })
            .collect();
        if req.path.is_some() && !today_logs.iter().any(|(p, _)| *p == session) {
            today_logs.extend(at.map(|at| (session.as_path(), at)));
        }
        let sum = today(req, &today_logs, midnight, &mut cache);
        parts.push(format!("today {}", amounts(&sum)));
    }
    if let Some(file) = &req.cache {
        save(file, &cache);
    }
    parts.extend(band_now(&req.prices, &this.models, req.now));
    Ok(parts)
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
    crate::wording::fit(parts.first().map_or("", String::as_str), width)
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
