//! Token prices: a dated table compiled in ([`PriceTable::built_in`], `deepseek.toml` beside
//! this file: DeepSeek's prices as its own pricing page gives them, with its source and the date it was
//! checked) that a file given to `stats --prices FILE` overrides or extends, in the same
//! schema (TOML, or JSON of the same shape):
//!
//! ```toml
//! source = "where the figures come from"
//! checked = "2026-12-05"
//!
//! [bills_through]            # DSH provider id -> the provider that bills it
//! deepseek-official = "deepseek"
//!
//! [[price]]
//! provider = "deepseek"      # the billing provider
//! model = "deepseek-v4-flash"
//! aliases = ["deepseek-chat"]
//! currency = "CNY"
//! cache_hit = 0.02           # per 1M cacheReadTokens
//! cache_miss = 1.00          # per 1M inputTokens (and cacheWriteTokens without cache_write)
//! cache_write = 1.00         # optional: per 1M cacheWriteTokens
//! output = 2.00              # per 1M outputTokens (reasoning included)
//! from = "2026-07-01"        # optional validity: a date (in `zone`) or an RFC 3339 time
//! until = "2027-01-01"       # optional, exclusive
//! zone = "Asia/Shanghai"     # the zone of the bands and of date bounds (default UTC)
//! base_band = "off-peak"     # the name of the time outside every band (default "standard")
//! bands = [{ name = "peak", multiplier = 2, hours = ["09:00-12:00", "14:00-18:00"],
//!           days = ["mon", "tue", "wed", "thu", "fri"] }]   # days: optional, default all
//! ```
//!
//! A usage is priced by the first entry, the file's before the built-in ones, whose
//! provider (after `bills_through`), model or alias and validity match the event's
//! provider, model and `time`; at the multiplier of the band that time falls in. Nothing
//! matching: no cost, never a guess. Costs are exact integers of 10⁻¹² of the currency.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::period::Period;

pub mod money;

/// The built-in table's text (TOML), compiled in.
pub const BUILT_IN: &str = include_str!("deepseek.toml");

/// Units of a currency in one [`Cost`] unit: costs are counted in 10⁻¹² of the currency.
pub const UNITS: u128 = 1_000_000_000_000;

/// Token counts to price (FORMAT.md §2.4.4 TokenUsage, whose counts are disjoint).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// `inputTokens`: the input not read from the cache (a cache miss).
    pub input: u64,
    /// `cacheReadTokens`: the input read from the cache (a cache hit).
    pub cache_read: u64,
    /// `cacheWriteTokens`: input written to the cache.
    pub cache_write: u64,
    /// `outputTokens`, reasoning included.
    pub output: u64,
}

/// A cost split by kind of token, in 10⁻¹² of its currency ([`UNITS`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    /// Cache-hit input (`cacheReadTokens`).
    pub cache_hit: u128,
    /// Cache-miss input (`inputTokens`, and `cacheWriteTokens` priced as misses).
    pub cache_miss: u128,
    /// `cacheWriteTokens` at a `cache_write` price of their own.
    pub cache_write: u128,
    /// Output (`outputTokens`).
    pub output: u128,
}

impl Cost {
    /// The sum of the parts.
    pub fn total(&self) -> u128 {
        self.cache_hit + self.cache_miss + self.cache_write + self.output
    }

    /// Adds `other` to `self`.
    pub fn add(&mut self, other: &Cost) {
        self.cache_hit += other.cache_hit;
        self.cache_miss += other.cache_miss;
        self.cache_write += other.cache_write;
        self.output += other.output;
    }
}

/// `units` (10⁻¹² of a currency) as a number of the currency (the nearest `f64`).
pub fn amount(units: u128) -> f64 {
    units as f64 / UNITS as f64
}

/// A band of the day with its multiplier.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Its name (`peak`).
    pub name: String,
    /// What every rate is multiplied by in it.
    pub multiplier: f64,
    /// Its spans, minutes of the local day, start included, end excluded.
    pub spans: Vec<(u32, u32)>,
    /// The local days it holds on, Monday first; every day when the file names none.
    pub days: [bool; 7],
}

impl Band {
    /// Whether the band holds on `day` (local).
    fn on(&self, day: jiff::civil::Weekday) -> bool {
        self.days[usize::from(day.to_monday_zero_offset().unsigned_abs())]
    }
}

/// An entry's rates: per 1M tokens of each kind, in 10⁻⁶ of its currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rates {
    /// Cache-hit input (`cacheReadTokens`).
    pub cache_hit: u64,
    /// Cache-miss input (`inputTokens`).
    pub cache_miss: u64,
    /// `cacheWriteTokens`; `None`: at the miss price.
    pub cache_write: Option<u64>,
    /// Output (`outputTokens`).
    pub output: u64,
}

impl Rates {
    /// The cost of `tokens` at these rates times `multiplier`.
    pub fn cost(&self, tokens: &Tokens, multiplier: f64) -> Cost {
        let rate = |per_million: u64| (per_million as f64 * multiplier).round() as u128;
        // Tokens times 10⁻⁶ of the currency per 1M tokens: 10⁻¹² of the currency.
        let part = |n: u64, per_million: u64| u128::from(n) * rate(per_million);
        let (write_as_miss, cache_write) = match self.cache_write {
            Some(p) => (0, part(tokens.cache_write, p)),
            None => (tokens.cache_write, 0),
        };
        Cost {
            cache_hit: part(tokens.cache_read, self.cache_hit),
            cache_miss: part(tokens.input + write_as_miss, self.cache_miss),
            cache_write,
            output: part(tokens.output, self.output),
        }
    }
}

/// One price entry.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The billing provider.
    pub provider: String,
    /// The model id.
    pub model: String,
    /// Other model ids billed as this one.
    pub aliases: Vec<String>,
    /// ISO 4217 code (`CNY`); costs in different currencies are never added.
    pub currency: String,
    /// What each kind of token costs.
    pub rates: Rates,
    /// When it is valid: from the file's `from`, before its `until`.
    pub valid: Period,
    /// The zone of the bands.
    pub zone: jiff::tz::TimeZone,
    /// The zone as the file names it.
    pub zone_name: String,
    /// The name of the time outside every band (multiplier 1).
    pub base_band: String,
    /// The bands.
    pub bands: Vec<Band>,
}

/// What [`PriceTable::key`] writes: the table's `Debug` text with [`EntryKey`] entries.
struct TableKey<'a>(&'a PriceTable);

impl std::fmt::Debug for TableKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = self.0;
        let entries: Vec<EntryKey<'_>> = t.entries.iter().map(EntryKey).collect();
        f.debug_struct("PriceTable")
            .field("sources", &t.sources)
            .field("bills_through", &t.bills_through)
            .field("entries", &entries)
            .finish()
    }
}

/// What [`PriceTable::key`] writes of an entry: its rates and validity flat, as the first
/// sites' manifests keep them (before an entry held the [`Rates`] and the [`Period`]).
struct EntryKey<'a>(&'a Entry);

impl std::fmt::Debug for EntryKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = self.0;
        f.debug_struct("Entry")
            .field("provider", &e.provider)
            .field("model", &e.model)
            .field("aliases", &e.aliases)
            .field("currency", &e.currency)
            .field("cache_hit", &e.rates.cache_hit)
            .field("cache_miss", &e.rates.cache_miss)
            .field("cache_write", &e.rates.cache_write)
            .field("output", &e.rates.output)
            .field("from", &e.valid.since)
            .field("until", &e.valid.until)
            .field("zone", &e.zone)
            .field("zone_name", &e.zone_name)
            .field("base_band", &e.base_band)
            .field("bands", &e.bands)
            .finish()
    }
}

/// The band a time falls in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BandAt<'a> {
    /// The band's name.
    pub name: &'a str,
    /// Its multiplier (1 for the base band).
    pub multiplier: f64,
    /// When it ends: the local time of day in the entry's zone, minutes since midnight.
    pub until_minute: u32,
}

impl Entry {
    /// Whether `model` is this entry's model or one of its aliases.
    fn names(&self, model: &str) -> bool {
        self.model == model || self.aliases.iter().any(|a| a == model)
    }

    /// The band of `time` (ms since the Unix epoch) in the entry's zone.
    pub fn band_at(&self, time: i64) -> BandAt<'_> {
        let at = jiff::Timestamp::from_millisecond(time)
            .map(|t| self.zone.to_datetime(t))
            .unwrap_or_default();
        let (local, day) = (at.time(), at.weekday());
        let minute =
            u32::from(local.hour().unsigned_abs()) * 60 + u32::from(local.minute().unsigned_abs());
        // The bands of this local day (a band may hold on weekdays only); no allocation,
        // as `stats --by band` asks once per message.
        let today = || self.bands.iter().filter(move |b| b.on(day));
        // The next boundary of any band after `minute`, else the first one tomorrow.
        let (mut next, mut first) = (None::<u32>, None::<u32>);
        for edge in today().flat_map(|b| b.spans.iter().flat_map(|&(a, z)| [a, z])) {
            first = Some(first.map_or(edge, |f| f.min(edge)));
            if edge > minute {
                next = Some(next.map_or(edge, |n| n.min(edge)));
            }
        }
        let until_minute = next.or(first).map_or(0, |e| e % 1440);
        for band in today() {
            if band.spans.iter().any(|&(a, z)| a <= minute && minute < z) {
                return BandAt {
                    name: &band.name,
                    multiplier: band.multiplier,
                    until_minute,
                };
            }
        }
        BandAt {
            name: &self.base_band,
            multiplier: 1.0,
            until_minute,
        }
    }
}

/// A usage priced.
#[derive(Debug, Clone, Copy)]
pub struct Priced<'a> {
    /// The entry that priced it.
    pub entry: &'a Entry,
    /// The band of its time.
    pub band: BandAt<'a>,
    /// The cost.
    pub cost: Cost,
}

/// The price table: entries in the order they are tried, and the provider ids' billing
/// providers.
#[derive(Debug, Clone, Default)]
pub struct PriceTable {
    /// `(source, checked)` of each file the table is made of, the built-in one last.
    pub sources: Vec<(String, Option<String>)>,
    /// DSH provider id -> billing provider.
    pub bills_through: BTreeMap<String, String>,
    /// The entries, the first match wins.
    pub entries: Vec<Entry>,
}

/// Why a prices file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PricesError {
    /// The file cannot be read.
    #[error("cannot read the prices: {0}")]
    Io(#[from] std::io::Error),
    /// Not JSON of the table's schema.
    #[error("prices are not valid JSON of the price table's schema (README \"stats\"): {0}")]
    Json(#[from] serde_json::Error),
    /// Not TOML of the table's schema.
    #[error("prices are not valid TOML of the price table's schema (README \"stats\"): {0}")]
    Toml(#[from] toml::de::Error),
    /// A value is out of its range: a negative price, a bad zone, band or date.
    #[error("{0}")]
    Invalid(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTable {
    source: Option<String>,
    checked: Option<String>,
    #[serde(default)]
    bills_through: BTreeMap<String, String>,
    #[serde(default)]
    price: Vec<FileEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    provider: String,
    model: String,
    #[serde(default)]
    aliases: Vec<String>,
    currency: String,
    cache_hit: f64,
    cache_miss: f64,
    cache_write: Option<f64>,
    output: f64,
    from: Option<String>,
    until: Option<String>,
    zone: Option<String>,
    base_band: Option<String>,
    #[serde(default)]
    bands: Vec<FileBand>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileBand {
    name: String,
    multiplier: f64,
    hours: Vec<String>,
    /// `["mon", …, "fri"]`: the local days the band holds on (default: every day).
    days: Option<Vec<String>>,
}

/// The days a band names (`mon` … `sun`), Monday first; every day for `None`.
fn days_of(days: Option<&[String]>) -> Option<[bool; 7]> {
    let Some(days) = days else {
        return Some([true; 7]);
    };
    let mut on = [false; 7];
    for d in days {
        let i = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
            .iter()
            .position(|n| n.eq_ignore_ascii_case(d.trim()))?;
        on[i] = true;
    }
    Some(on)
}

/// `HH:MM` as minutes since midnight (`24:00` allowed as an end).
fn minute_of(text: &str) -> Option<u32> {
    let (h, m) = text.trim().split_once(':')?;
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    (m < 60 && (h < 24 || (h == 24 && m == 0))).then_some(h * 60 + m)
}

/// A bound: an RFC 3339 time, or a date whose first moment in `zone` is meant.
fn bound(text: &str, zone: &jiff::tz::TimeZone) -> Option<i64> {
    if let Ok(at) = text.parse::<jiff::Timestamp>() {
        return Some(at.as_millisecond());
    }
    let date = text.parse::<jiff::civil::Date>().ok()?;
    let at = zone
        .to_timestamp(date.to_datetime(jiff::civil::Time::midnight()))
        .ok()?;
    Some(at.as_millisecond())
}

impl FileEntry {
    fn into_entry(self) -> Result<Entry, PricesError> {
        let key = format!("{}/{}", self.provider, self.model);
        let bad = |what: String| PricesError::Invalid(format!("price {key:?}: {what}"));
        if self.provider.is_empty() || self.model.is_empty() {
            return Err(bad("provider and model must not be empty".into()));
        }
        if self.currency.len() != 3 || !self.currency.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(bad(format!(
                "currency {:?} is not an ISO 4217 code such as CNY or USD",
                self.currency
            )));
        }
        let micro = |what: &str, v: f64| {
            if (0.0..1e9).contains(&v) {
                Ok((v * 1e6).round() as u64)
            } else {
                Err(bad(format!(
                    "{what} is {v}: a price is a finite number >= 0"
                )))
            }
        };
        let zone_name = self.zone.unwrap_or_else(|| "UTC".to_owned());
        let zone = jiff::tz::TimeZone::get(&zone_name)
            .map_err(|_| bad(format!("zone {zone_name:?} is not an IANA time zone name")))?;
        let when = |what: &str, t: Option<String>| {
            t.map(|t| {
                bound(&t, &zone).ok_or_else(|| {
                    bad(format!(
                        "{what} {t:?} is not a date (2026-07-01) or a time with an offset"
                    ))
                })
            })
            .transpose()
        };
        let from = when("from", self.from)?;
        let until = when("until", self.until)?;
        if let (Some(a), Some(b)) = (from, until)
            && a >= b
        {
            return Err(bad("from is not before until".into()));
        }
        let mut bands = Vec::new();
        for b in self.bands {
            if !(b.multiplier.is_finite() && b.multiplier >= 0.0) {
                return Err(bad(format!(
                    "band {:?}: multiplier {} is not a finite number >= 0",
                    b.name, b.multiplier
                )));
            }
            let mut spans = Vec::new();
            for h in &b.hours {
                let span = h
                    .split_once('-')
                    .and_then(|(a, z)| Some((minute_of(a)?, minute_of(z)?)))
                    .filter(|(a, z)| a < z)
                    .ok_or_else(|| {
                        bad(format!(
                            "band {:?}: hours {h:?} are not HH:MM-HH:MM with the start first",
                            b.name
                        ))
                    })?;
                spans.push(span);
            }
            let days = days_of(b.days.as_deref()).ok_or_else(|| {
                bad(format!(
                    "band {:?}: days {:?} are not names among mon, tue, wed, thu, fri, sat, sun",
                    b.name,
                    b.days.clone().unwrap_or_default()
                ))
            })?;
            bands.push(Band {
                name: b.name,
                multiplier: b.multiplier,
                spans,
                days,
            });
        }
        Ok(Entry {
            rates: Rates {
                cache_hit: micro("cache_hit", self.cache_hit)?,
                cache_miss: micro("cache_miss", self.cache_miss)?,
                cache_write: self
                    .cache_write
                    .map(|v| micro("cache_write", v))
                    .transpose()?,
                output: micro("output", self.output)?,
            },
            provider: self.provider,
            model: self.model,
            aliases: self.aliases,
            currency: self.currency,
            valid: Period { since: from, until },
            zone,
            zone_name,
            base_band: self.base_band.unwrap_or_else(|| "standard".to_owned()),
            bands,
        })
    }
}

impl PriceTable {
    /// The table as a key for work done at its prices (a site's manifest keeps its pages'
    /// prices under `format!("{:?}", table.key())`, `export/site`): its `Debug` text
    /// in the layout of the first sites, each entry's rates and validity flat
    /// ([`EntryKey`]), so that a site made by an earlier build keeps its pages. It changes
    /// with any price, band or source.
    pub fn key(&self) -> impl std::fmt::Debug + '_ {
        TableKey(self)
    }

    /// The built-in table, under the table read from `file` when one is given (`--prices
    /// FILE` of `stats`, `statusline` and `export --format site`): its entries are tried
    /// first.
    ///
    /// # Errors
    /// As [`PriceTable::read`].
    pub fn built_in_under(file: Option<&Path>) -> Result<PriceTable, PricesError> {
        let built_in = PriceTable::built_in();
        Ok(match file {
            Some(p) => PriceTable::read(p)?.over(built_in),
            None => built_in.clone(),
        })
    }

    /// The table compiled in (`src/prices/deepseek.toml`).
    pub fn built_in() -> &'static PriceTable {
        static TABLE: OnceLock<PriceTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            // The unit test `the_built_in_table_parses` keeps this from failing.
            PriceTable::parse(BUILT_IN, true).unwrap_or_default()
        })
    }

    /// A table from its text, TOML or JSON.
    ///
    /// # Errors
    /// [`PricesError`] when the text is not of the schema or a value is out of range.
    pub fn parse(text: &str, toml: bool) -> Result<PriceTable, PricesError> {
        let file: FileTable = if toml {
            toml::from_str(text)?
        } else {
            serde_json::from_str(text)?
        };
        let entries = file
            .price
            .into_iter()
            .map(FileEntry::into_entry)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(PriceTable {
            sources: vec![(
                file.source
                    .unwrap_or_else(|| "(no source given)".to_owned()),
                file.checked,
            )],
            bills_through: file.bills_through,
            entries,
        })
    }

    /// Reads a prices file: TOML when its name ends in `.toml`, JSON when it ends in
    /// `.json`, otherwise JSON when its first non-blank character is `{`, else TOML.
    ///
    /// # Errors
    /// [`PricesError`] when the file cannot be read or is not of the schema.
    pub fn read(path: &Path) -> Result<PriceTable, PricesError> {
        let text = std::fs::read_to_string(path)?;
        let name = path.to_string_lossy();
        let toml = name.ends_with(".toml")
            || (!name.ends_with(".json") && !text.trim_start().starts_with('{'));
        PriceTable::parse(&text, toml)
    }

    /// This table over `base`: its entries tried first, its `bills_through` winning.
    pub fn over(mut self, base: &PriceTable) -> PriceTable {
        self.entries.extend(base.entries.iter().cloned());
        self.sources.extend(base.sources.iter().cloned());
        for (id, bills) in &base.bills_through {
            self.bills_through
                .entry(id.clone())
                .or_insert_with(|| bills.clone());
        }
        self
    }

    /// The entry pricing `provider`/`model` at `time` (ms since the Unix epoch).
    ///
    /// # Errors
    /// Why there is none, in words for a note: `no price`, `no price at <date>` (an entry
    /// exists for other times), `no time`.
    pub fn entry(
        &self,
        provider: Option<&str>,
        model: Option<&str>,
        time: Option<i64>,
    ) -> Result<&Entry, String> {
        let (Some(provider), Some(model)) = (provider, model) else {
            return Err("no provider/model named".to_owned());
        };
        let billing = self
            .bills_through
            .get(provider)
            .map_or(provider, String::as_str);
        let mut named = self
            .entries
            .iter()
            .filter(|e| e.provider == billing && e.names(model))
            .peekable();
        if named.peek().is_none() {
            return Err("no price".to_owned());
        }
        let Some(time) = time else {
            return Err("no price: the event has no time".to_owned());
        };
        named.find(|e| e.valid.contains(Some(time))).ok_or_else(|| {
            let day = jiff::Timestamp::from_millisecond(time)
                .map(|t| t.strftime("%Y-%m-%d").to_string())
                .unwrap_or_default();
            format!("no price valid on {day} UTC")
        })
    }

    /// The cost of `tokens` of `provider`/`model` at `time`.
    ///
    /// # Errors
    /// As [`PriceTable::entry`].
    pub fn price(
        &self,
        tokens: &Tokens,
        provider: Option<&str>,
        model: Option<&str>,
        time: Option<i64>,
    ) -> Result<Priced<'_>, String> {
        let entry = self.entry(provider, model, time)?;
        let band = match time {
            Some(t) => entry.band_at(t),
            None => BandAt {
                name: &entry.base_band,
                multiplier: 1.0,
                until_minute: 0,
            },
        };
        Ok(Priced {
            entry,
            band,
            cost: entry.rates.cost(tokens, band.multiplier),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-09-01 at `hh:mm` Beijing time (UTC+8), in ms since the Unix epoch.
    /// `text` (RFC 3339) in ms since the Unix epoch.
    fn ms(text: &str) -> i64 {
        text.parse::<jiff::Timestamp>()
            .expect("time")
            .as_millisecond()
    }

    fn beijing(hh: i64, mm: i64) -> i64 {
        // 2026-09-01T00:00:00+08:00 is 2026-08-31T16:00:00Z.
        ms("2026-08-31T16:00:00Z") + (hh * 60 + mm) * 60_000
    }

    #[test]
    fn the_built_in_table_parses_with_its_source_and_date() {
        let t = PriceTable::parse(BUILT_IN, true).expect("built-in table");
        assert_eq!(t.entries.len(), 4);
        assert_eq!(t.sources[0].1.as_deref(), Some("2026-12-05"));
        assert!(t.sources[0].0.contains("DeepSeek"));
        assert_eq!(PriceTable::built_in().entries.len(), 4);
    }

    /// A site's manifest keys its prices by the table's key: an entry keeps the flat layout
    /// it had before its rates and validity were grouped, so an earlier site is not
    /// rewritten whole.
    #[test]
    fn the_key_writes_an_entry_flat_as_the_site_manifest_keeps_it() {
        let t = PriceTable::built_in();
        let key = format!("{:?}", t.key());
        assert!(key.starts_with("PriceTable { sources: [("), "{key}");
        let entry = &key[key.find("entries: [").expect("entries") + "entries: [".len()..];
        assert!(
            entry.starts_with("Entry { provider: \"deepseek\", model: \"deepseek-v4-pro\", aliases: [], currency: \"CNY\", cache_hit: 150000, cache_miss: 4500000, cache_write: None, output: 13500000, from: Some(1786896000000), until: None, zone: TimeZone(TZif(\"Asia/Shanghai\")), zone_name: \"Asia/Shanghai\", base_band: \"off-peak\", bands: [Band { name: \"peak\""),
            "{key}"
        );
    }

    #[test]
    fn peak_hours_in_beijing_double_every_rate_and_aliases_price_as_flash() {
        let t = PriceTable::built_in();
        let tokens = Tokens {
            input: 1_000_000,
            cache_read: 1_000_000,
            cache_write: 0,
            output: 1_000_000,
        };
        let at = |provider, model, time| t.price(&tokens, Some(provider), Some(model), time);
        // Off-peak 08:59 on a Tuesday: 0.02 + 1.00 + 4.00 CNY (the legacy name at the Flash
        // price).
        let p = at(
            "deepseek-official",
            "deepseek-v4-flash",
            Some(beijing(8, 59)),
        )
        .expect("p");
        assert_eq!(p.entry.currency, "CNY");
        assert_eq!(p.entry.model, "deepseek-flash");
        assert_eq!(p.band.name, "off-peak");
        assert_eq!(p.band.until_minute, 9 * 60);
        assert_eq!(
            (p.cost.cache_hit, p.cost.cache_miss, p.cost.output),
            (20_000_000_000, 1_000_000_000_000, 4_000_000_000_000)
        );
        // Peak 09:00, 11:59, 14:00, 17:59: twice; 12:00 and 18:00 off-peak again.
        let one = 150_000_000_000 + 4_500_000_000_000 + 13_500_000_000_000;
        for (h, m, peak) in [
            (9, 0, true),
            (11, 59, true),
            (12, 0, false),
            (13, 59, false),
            (14, 0, true),
            (17, 59, true),
            (18, 0, false),
        ] {
            let p = at("deepseek", "deepseek-v4-pro", Some(beijing(h, m))).expect("priced");
            assert_eq!(p.cost.total(), if peak { 2 * one } else { one }, "{h}:{m}");
            assert_eq!(p.band.name, if peak { "peak" } else { "off-peak" });
        }
        assert_eq!(
            at("deepseek", "deepseek-v4-pro", Some(beijing(10, 0)))
                .expect("p")
                .band
                .until_minute,
            12 * 60
        );
        // A Saturday (2026-09-05) is off-peak all day.
        let saturday = beijing(10, 0) + 4 * 86_400_000;
        let p = at("deepseek", "deepseek-v4-pro", Some(saturday)).expect("priced");
        assert_eq!((p.band.name, p.cost.total()), ("off-peak", one));
        for alias in [
            "deepseek-chat",
            "deepseek-reasoner",
            "deepseek-v4-flash",
            "deepseek-v4-flash-vision-exp",
        ] {
            let p = at("deepseek-account", alias, Some(beijing(20, 0))).expect(alias);
            assert_eq!(p.entry.model, "deepseek-flash");
            assert_eq!(p.cost.total(), 5_020_000_000_000);
        }
        // Unknown models, providers, and times before peak/off-peak billing are not guessed.
        assert_eq!(
            at("deepseek-official", "deepseek-coder", Some(beijing(9, 0))).map(|p| p.cost),
            Err("no price".to_owned())
        );
        assert_eq!(
            at("openrouter", "deepseek-flash", Some(beijing(9, 0))).map(|p| p.cost),
            Err("no price".to_owned())
        );
        let before = ms("2026-08-16T15:59:59Z");
        assert_eq!(
            at("deepseek", "deepseek-flash", Some(before)).map(|p| p.cost),
            Err("no price valid on 2026-08-16 UTC".to_owned())
        );
        assert!(at("deepseek", "deepseek-flash", Some(before + 1000)).is_ok());
        // Before peak/off-peak billing, V4-Flash's flat USD list price: 0.0028 + 0.14 + 0.28.
        let p = at("deepseek-official", "deepseek-v4-flash", Some(before)).expect("flat");
        assert_eq!((p.entry.currency.as_str(), p.band.multiplier), ("USD", 1.0));
        assert_eq!(p.cost.total(), 422_800_000_000);
        let june = ms("2026-06-30T15:59:59Z");
        assert_eq!(
            at("deepseek", "deepseek-v4-flash", Some(june)).map(|p| p.cost),
            Err("no price valid on 2026-06-30 UTC".to_owned())
        );
    }

    #[test]
    fn a_band_names_the_days_it_holds_on() {
        let file = "[[price]]\nprovider = \"a\"\nmodel = \"b\"\ncurrency = \"CNY\"\ncache_hit = 0\ncache_miss = 1\noutput = 0\nbands = [{ name = \"p\", multiplier = 3, hours = [\"00:00-24:00\"], days = [\"sun\"] }]\n";
        let t = PriceTable::parse(file, true).expect("file");
        let tokens = Tokens {
            input: 1_000_000,
            ..Tokens::default()
        };
        // 2026-09-06 is a Sunday, 2026-09-07 a Monday (UTC, the default zone).
        let sunday = "2026-09-06T12:00:00Z".parse::<jiff::Timestamp>().unwrap();
        let monday = "2026-09-07T12:00:00Z".parse::<jiff::Timestamp>().unwrap();
        let price = |at: jiff::Timestamp| {
            t.price(&tokens, Some("a"), Some("b"), Some(at.as_millisecond()))
                .expect("priced")
                .cost
                .total()
        };
        assert_eq!(price(sunday), 3_000_000_000_000);
        assert_eq!(price(monday), 1_000_000_000_000);
        let bad = file.replace("\"sun\"", "\"sunday\"");
        assert!(PriceTable::parse(&bad, true).is_err());
    }

    #[test]
    fn a_file_overrides_and_extends_the_built_in_table() {
        let file = r#"
            source = "my contract"
            [bills_through]
            my-gateway = "deepseek"
            [[price]]
            provider = "deepseek"
            model = "deepseek-v4-pro"
            currency = "USD"
            cache_hit = 0.1
            cache_miss = 1
            cache_write = 2
            output = 3
            [[price]]
            provider = "xiaomi-token-plan-cn"
            model = "mimo-v2.6-flash"
            currency = "CNY"
            cache_hit = 0.1
            cache_miss = 1
            output = 2
        "#;
        let t = PriceTable::parse(file, true)
            .expect("file")
            .over(PriceTable::built_in());
        let tokens = Tokens {
            input: 3,
            cache_read: 5,
            cache_write: 7,
            output: 11,
        };
        let p = t
            .price(
                &tokens,
                Some("my-gateway"),
                Some("deepseek-v4-pro"),
                Some(0),
            )
            .expect("override");
        assert_eq!(p.entry.currency, "USD");
        assert_eq!(p.band.name, "standard");
        assert_eq!(
            p.cost,
            Cost {
                cache_hit: 500_000,
                cache_miss: 3_000_000,
                cache_write: 14_000_000,
                output: 33_000_000
            }
        );
        let flash = t
            .price(
                &tokens,
                Some("deepseek"),
                Some("deepseek-chat"),
                Some(beijing(9, 0)),
            )
            .expect("built-in still there");
        assert_eq!(flash.entry.currency, "CNY");
        // Cache writes without a price of their own are misses: (3 + 7) × 1.00 × 2.
        assert_eq!(flash.cost.cache_miss, 20_000_000);
        assert_eq!(t.sources.len(), 2);
        for bad in [
            "[[price]]\nprovider = \"a\"\nmodel = \"b\"\ncurrency = \"CNY\"\ncache_hit = -1\ncache_miss = 1\noutput = 1\n",
            "[[price]]\nprovider = \"a\"\nmodel = \"b\"\ncurrency = \"yuan\"\ncache_hit = 1\ncache_miss = 1\noutput = 1\n",
            "[[price]]\nprovider = \"a\"\nmodel = \"b\"\ncurrency = \"CNY\"\ncache_hit = 1\ncache_miss = 1\noutput = 1\nzone = \"Mars/Base\"\n",
            "[[price]]\nprovider = \"a\"\nmodel = \"b\"\ncurrency = \"CNY\"\ncache_hit = 1\ncache_miss = 1\noutput = 1\nbands = [{ name = \"p\", multiplier = 2, hours = [\"12:00-09:00\"] }]\n",
            "[[price]]\nprovider = \"a\"\nmodel = \"b\"\ncurrency = \"CNY\"\ncache_hit = 1\ncache_miss = 1\noutput = 1\ninput = 1\n",
            "[\"a/b\"]\ninput = 1\noutput = 1\n",
        ] {
            assert!(PriceTable::parse(bad, true).is_err(), "{bad}");
        }
    }
}
