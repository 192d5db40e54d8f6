//! `stats`' usage rows for one log (FORMAT.md §2.3 turn records, §2.4.4 TokenUsage): turns,
//! steps, tool calls and errors, interrupted and failed turns, tokens per provider/model and
//! the wall time of turns, grouped by session, day, model or project.
//!
//! Memory is bounded by the rows and the one open turn, never by the events: a turn's counts
//! are held only until its `turn/end` (or the end of the log) decides where they go.
//!
//! The counting mirrors [`crate::view::stats::Stats`] (`show`), so that the sum of a grouping
//! equals the sum of `show --format json` over the same logs: a turn is a `turn/start`, a step
//! a `step/start`, a tool call a `tool/call`, tokens are the `usage` of `assistant/message`
//! events, and a turn's wall time is its `turn/end` time minus its `turn/start` time.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use crate::event::Projection;
use crate::json::Json;
use crate::period::Period;
use crate::prices::{Cost, PriceTable, Tokens};
use crate::scan::report::{Report, Status};
use crate::view::stats::Usage;
use crate::view::{Checked, View};

/// What a row of `stats` stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// One row per session (a file, or a session of a SQLite store).
    Session,
    /// One row per calendar day of a turn's `turn/start` time, in the chosen time zone.
    Day,
    /// One row per provider/model: tokens of the model that produced them; turn counts of
    /// the model of the turn's first assistant message.
    Model,
    /// One row per project: the header's `cwd`.
    Project,
    /// One row per price band (`peak`, `off-peak`; `-` for tokens without a price): tokens
    /// in the band of their own message's time; turn counts in the band of the turn's first
    /// assistant message.
    Band,
    /// One row per hour of the day in the chosen zone (`00` to `23`): tokens at their own
    /// message's time, turn counts at the turn's start.
    Hour,
}

/// How [`UsageView`] groups and filters.
#[derive(Debug, Clone)]
pub struct UsageOptions {
    /// The grouping.
    pub by: GroupBy,
    /// The time zone days are taken in ([`GroupBy::Day`]).
    pub tz: jiff::tz::TimeZone,
    /// Count only turns starting in this period.
    pub period: Period,
    /// The prices each assistant message's usage is priced at, at the message's time.
    pub prices: Arc<PriceTable>,
}

/// A provider/model, as an assistant message's `source` (FORMAT.md §2.4.2) or a
/// `model/selection` / `request/context` event names it; `None` parts are not named.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ModelKey {
    /// `provider`.
    pub provider: Option<String>,
    /// `model`.
    pub model: Option<String>,
}

impl ModelKey {
    /// `provider/model`, the key of a `--prices` entry; `-` for a part not named.
    pub fn name(&self) -> String {
        format!(
            "{}/{}",
            self.provider.as_deref().unwrap_or("-"),
            self.model.as_deref().unwrap_or("-")
        )
    }
}

/// The key of one row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowKey {
    /// [`GroupBy::Session`]: the path read and, for a SQLite store, the session id.
    Session {
        /// The path as given or found by the walk.
        file: String,
        /// The session id in a SQLite store.
        session: Option<String>,
    },
    /// [`GroupBy::Day`]: `YYYY-MM-DD` in the chosen time zone; `None` for a turn with no time.
    Day(Option<String>),
    /// [`GroupBy::Model`].
    Model(ModelKey),
    /// [`GroupBy::Project`]: the header's `cwd`, when it has one.
    Project(Option<String>),
    /// [`GroupBy::Band`]: the band's name, `-` for what has no price.
    Band(String),
    /// [`GroupBy::Hour`]: `00` to `23` in the chosen zone; `None` for no time.
    Hour(Option<String>),
}

/// The counts of one row. Every count is a plain sum, so rows of many logs add up.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    /// Sessions with something counted in the row.
    pub sessions: u64,
    /// `turn/start` events.
    pub turns: u64,
    /// `step/start` events.
    pub steps: u64,
    /// `tool/call` events.
    pub tool_calls: u64,
    /// Appended `tool/result` events whose result is an error (`isError: true`); a replace
    /// of a result (a prune) is not a new result and is not counted.
    pub tool_errors: u64,
    /// Turns that ended `interrupted` (a crash, closed on load) or `aborted` (cancelled).
    pub interrupted: u64,
    /// Turns that ended `error` (an LLM failure).
    pub failed: u64,
    /// Sum over ended turns of `turn/end` time minus `turn/start` time, in ms.
    pub wall_ms: i64,
    /// Tokens per provider/model (the prices apply per model).
    pub usage: BTreeMap<ModelKey, Usage>,
    /// The cost of the priced tokens, per currency (never converted).
    pub cost: BTreeMap<String, Cost>,
    /// The models (`provider/model`) with tokens in the row that have no price, with why:
    /// their tokens are not in [`Counts::cost`].
    pub unpriced: BTreeMap<String, String>,
}

impl Counts {
    /// Adds `other` to `self`.
    pub fn add(&mut self, other: &Counts) {
        self.sessions += other.sessions;
        self.add_turn_counts(other);
        self.add_tokens(other);
    }

    /// Adds the tokens, costs and unpriced models of `other`.
    fn add_tokens(&mut self, other: &Counts) {
        for (model, usage) in &other.usage {
            add_usage(self.usage.entry(model.clone()).or_default(), usage);
        }
        for (currency, cost) in &other.cost {
            self.cost.entry(currency.clone()).or_default().add(cost);
        }
        for (model, why) in &other.unpriced {
            self.unpriced
                .entry(model.clone())
                .or_insert_with(|| why.clone());
        }
    }

    /// Adds every count but the sessions and the tokens.
    fn add_turn_counts(&mut self, other: &Counts) {
        self.turns += other.turns;
        self.steps += other.steps;
        self.tool_calls += other.tool_calls;
        self.tool_errors += other.tool_errors;
        self.interrupted += other.interrupted;
        self.failed += other.failed;
        self.wall_ms += other.wall_ms;
    }

    /// The tokens of every model together.
    pub fn tokens(&self) -> Usage {
        let mut all = Usage::default();
        for usage in self.usage.values() {
            add_usage(&mut all, usage);
        }
        all
    }
}

/// Adds the token counts of `b` to `a`.
pub fn add_usage(a: &mut Usage, b: &Usage) {
    a.input += b.input;
    a.output += b.output;
    a.cache_read += b.cache_read;
    a.cache_write += b.cache_write;
    a.reasoning += b.reasoning;
    a.reasoning_reported |= b.reasoning_reported;
    a.reasoning_shown |= b.reasoning_shown;
}

/// The rows of one log (one session), in key order.
#[derive(Debug, Clone, Default)]
pub struct LogUsage {
    /// Each row's counts; `sessions` is 1 in each.
    pub rows: BTreeMap<RowKey, Counts>,
    /// The session counts in the total: something of it is counted, or it is a session DSH
    /// loads that has no turn at all (and no `--since`/`--until` picks turns). Under
    /// [`GroupBy::Session`] and [`GroupBy::Project`] such a session also gets its row, with
    /// zero counts; no day or model has it.
    pub counted: bool,
    /// A fork or a forked subagent: its parent's id and the events it inherited from it,
    /// which are not counted here (they are the parent's, counted in the parent's log).
    pub inherited: Option<(String, u64)>,
    /// A subagent (header `origin: "subagent"`) with its parent's id (`parentSession`):
    /// `stats --by session` rolls it into its parent's row.
    pub subagent_of: Option<String>,
}

/// Where the counts of one log go before the log's own keys (path, `cwd`) are known.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    /// The log's one row ([`GroupBy::Session`], [`GroupBy::Project`]).
    Log,
    Day(Option<String>),
    Model(ModelKey),
    Band(String),
    Hour(Option<String>),
}

/// The turn being read.
#[derive(Debug, Default)]
struct OpenTurn {
    /// Its `turn/start` time.
    start: Option<i64>,
    /// Inside `--since`/`--until`.
    counted: bool,
    /// The row of its first assistant message ([`GroupBy::Model`], [`GroupBy::Band`]).
    first: Option<Slot>,
    /// Its counts so far; the tokens are per model.
    counts: Counts,
    /// Its tokens by the row of their message, when the grouping splits a turn's tokens
    /// from its own counts ([`GroupBy::Model`], [`GroupBy::Band`], [`GroupBy::Hour`]).
    split: BTreeMap<Slot, Counts>,
}

/// A [`View`] computing the `stats` rows of one log. At [`View::finish`] it hands its
/// [`LogUsage`] to the sink it was made with, so that a command reading a store of many
/// sessions gets one entry per session, in the order of the reports.
///
/// Only what can be read before the first defect is counted: an event the fold did not take
/// ([`Checked::folded`] false) stops the counting, so a corrupt log contributes the events
/// before its defect, and a torn tail (never handed to the views) its committed part.
pub struct UsageView {
    options: UsageOptions,
    sink: Rc<RefCell<Vec<LogUsage>>>,
    rows: BTreeMap<Slot, Counts>,
    turn: Option<OpenTurn>,
    /// The model the last `model/selection`, `request/context` or assistant message named.
    last_model: Option<ModelKey>,
    /// A defect was met: nothing after it is counted.
    stopped: bool,
    /// The rows counted before each `session/end-seed`: its seq, whether it is tagged
    /// `inherited: true` (v2+), and the rows since the one before. At the end the segments up
    /// to a fork's inherited cut are dropped, the others counted.
    segments: Vec<(u64, bool, BTreeMap<Slot, Counts>)>,
}

impl UsageView {
    /// A view for one log, handing its rows to `sink` when the log is read.
    pub fn new(options: UsageOptions, sink: Rc<RefCell<Vec<LogUsage>>>) -> Self {
        UsageView {
            options,
            sink,
            rows: BTreeMap::new(),
            turn: None,
            last_model: None,
            stopped: false,
            segments: Vec::new(),
        }
    }

    /// Inside `--since`/`--until`; a time that is not known is outside any bound given.
    fn in_range(&self, time: Option<i64>) -> bool {
        self.options.period.contains(time)
    }

    /// The row a turn (or an event outside any turn) starting at `time` goes to, except
    /// under [`GroupBy::Model`] and [`GroupBy::Band`].
    fn slot_at(&self, time: Option<i64>) -> Slot {
        match self.options.by {
            GroupBy::Day => Slot::Day(time.and_then(|t| day_of(t, &self.options.tz))),
            GroupBy::Hour => Slot::Hour(time.and_then(|t| hour_of(t, &self.options.tz))),
            _ => Slot::Log,
        }
    }

    /// The price band of `model` at `time`: `-` when it has no price then.
    fn band_of(&self, model: &ModelKey, time: Option<i64>) -> String {
        let entry =
            self.options
                .prices
                .entry(model.provider.as_deref(), model.model.as_deref(), time);
        match (entry, time) {
            (Ok(e), Some(t)) => e.band_at(t).name.to_owned(),
            (Ok(e), None) => e.base_band.clone(),
            (Err(_), _) => "-".to_owned(),
        }
    }

    /// The row of tokens of `model` at `time` under a grouping that splits them from
    /// their turn; `None` under the others.
    fn token_slot(&self, model: &ModelKey, time: Option<i64>) -> Option<Slot> {
        match self.options.by {
            GroupBy::Model => Some(Slot::Model(model.clone())),
            GroupBy::Band => Some(Slot::Band(self.band_of(model, time))),
            GroupBy::Hour => Some(self.slot_at(time)),
            GroupBy::Day | GroupBy::Session | GroupBy::Project => None,
        }
    }

    /// Counts `f` for one event outside any turn, at its own time, in `slot` when given.
    fn outside_turn(&mut self, time: Option<i64>, slot: Option<Slot>, f: impl FnOnce(&mut Counts)) {
        if !self.in_range(time) {
            return;
        }
        let last = self.last_model.clone().unwrap_or_default();
        let slot = slot
            .or_else(|| self.token_slot(&last, time))
            .unwrap_or_else(|| self.slot_at(time));
        f(self.rows.entry(slot).or_default());
    }

    /// Counts `f` for one event: in the open turn, or outside any turn.
    fn count(&mut self, time: Option<i64>, f: impl FnOnce(&mut Counts)) {
        match &mut self.turn {
            Some(turn) => {
                if turn.counted {
                    f(&mut turn.counts);
                }
            }
            None => self.outside_turn(time, None, f),
        }
    }

    /// Moves the open turn's counts into the rows.
    fn close_turn(&mut self) {
        let Some(turn) = self.turn.take() else {
            return;
        };
        if !turn.counted {
            return;
        }
        let OpenTurn {
            start,
            first,
            counts,
            split,
            ..
        } = turn;
        let owner = match self.options.by {
            GroupBy::Day | GroupBy::Session | GroupBy::Project => {
                self.rows
                    .entry(self.slot_at(start))
                    .or_default()
                    .add(&counts);
                return;
            }
            GroupBy::Hour => self.slot_at(start),
            // The turn's own counts go to the row of its first answer (else of the model
            // last named before it ended).
            GroupBy::Model | GroupBy::Band => first.unwrap_or_else(|| {
                let last = self.last_model.clone().unwrap_or_default();
                self.token_slot(&last, start).unwrap_or(Slot::Log)
            }),
        };
        // Each message's tokens go to their own row.
        self.rows.entry(owner).or_default().add_turn_counts(&counts);
        for (slot, tokens) in split {
            self.rows.entry(slot).or_default().add_tokens(&tokens);
        }
    }

    fn record(&mut self, event: &Checked<'_, '_>) {
        let logical = event.event;
        let ty = logical.type_str();
        let time = logical.ev.time_value();
        let data = logical.data();
        match ty {
            "turn/start" => {
                // A turn/start inside an open turn is a defect the fold refuses (T2), so
                // this only closes a turn left open by a log that ended oddly.
                self.close_turn();
                self.turn = Some(OpenTurn {
                    start: time,
                    counted: self.in_range(time),
                    first: None,
                    split: BTreeMap::new(),
                    counts: Counts {
                        turns: 1,
                        ..Counts::default()
                    },
                });
            }
            "turn/end" => {
                let kind = data
                    .and_then(|d| d.get("reason"))
                    .and_then(|r| r.get("kind"))
                    .and_then(Json::as_str);
                if let Some(turn) = self.turn.as_mut() {
                    match kind.as_deref() {
                        Some("interrupted" | "aborted") => turn.counts.interrupted += 1,
                        Some("error") => turn.counts.failed += 1,
                        _ => {}
                    }
                    if let (Some(a), Some(b)) = (turn.start, time) {
                        turn.counts.wall_ms += b - a;
                    }
                }
                self.close_turn();
            }
            // A fork's inherited events end here (FORMAT.md §2.3, GENERATIONS.md §5): keep
            // what came before apart until the header at the end says whose it is.
            "session/end-seed" if self.turn.is_none() => {
                let tagged = data
                    .and_then(|d| d.get("inherited"))
                    .and_then(Json::as_bool)
                    == Some(true);
                let rows = std::mem::take(&mut self.rows);
                self.segments.push((event.seq, tagged, rows));
            }
            "step/start" => self.count(time, |c| c.steps += 1),
            "tool/call" => self.count(time, |c| c.tool_calls += 1),
            "tool/result" => {
                let replace = logical.ev.surface_op.is_some_and(|op| op.is_object());
                if !replace && is_error_result(data, logical.message()) {
                    self.count(time, |c| c.tool_errors += 1);
                }
            }
            "model/selection" | "request/context" => {
                if let Some(named) = data.and_then(model_key) {
                    self.last_model = Some(named);
                }
            }
            "assistant/message" => {
                let source = match event.dialect.projection {
                    Projection::Stored => logical.message().and_then(|m| m.get("source")),
                    // June assistant messages name no model.
                    Projection::June => None,
                };
                let named = source.and_then(model_key);
                if let Some(named) = &named {
                    self.last_model = Some(named.clone());
                }
                let model = named
                    .or_else(|| self.last_model.clone())
                    .unwrap_or_default();
                let usage = data.and_then(|d| d.get("usage")).filter(|u| u.is_object());
                // Reasoning shown with no count makes the count unknown, as `show` says.
                let reasoned = crate::view::stats::has_reasoning(logical.message());
                let counted = usage.is_some() || reasoned;
                let mut tokens = Usage::default();
                if let Some(usage) = usage {
                    tokens.add(usage);
                }
                tokens.reasoning_shown = reasoned;
                let billed = Tokens {
                    input: tokens.input,
                    cache_read: tokens.cache_read,
                    cache_write: tokens.cache_write,
                    output: tokens.output,
                };
                // One lookup of the price: it gives the cost and, under `--by band`, the
                // band the message falls in (`-` when it has no price then).
                let by_band = matches!(self.options.by, GroupBy::Band);
                let priced = (counted || by_band).then(|| {
                    self.options.prices.price(
                        &billed,
                        model.provider.as_deref(),
                        model.model.as_deref(),
                        time,
                    )
                });
                let slot = match &priced {
                    Some(p) if by_band => Some(Slot::Band(
                        p.as_ref().map_or("-", |p| p.band.name).to_owned(),
                    )),
                    _ => self.token_slot(&model, time),
                };
                if let Some(turn) = self.turn.as_mut()
                    && turn.first.is_none()
                {
                    turn.first = slot.clone();
                }
                let Some(priced) = priced.filter(|_| counted) else {
                    return;
                };
                let mut counts = Counts::default();
                counts.usage.insert(model.clone(), tokens);
                let any = billed != Tokens::default();
                match priced {
                    Ok(p) => {
                        counts.cost.insert(p.entry.currency.clone(), p.cost);
                    }
                    Err(why) if any => {
                        counts.unpriced.insert(model.name(), why);
                    }
                    Err(_) => {}
                }
                match &mut self.turn {
                    Some(turn) => {
                        if turn.counted {
                            match slot {
                                Some(slot) => {
                                    turn.split.entry(slot).or_default().add_tokens(&counts)
                                }
                                None => turn.counts.add_tokens(&counts),
                            }
                        }
                    }
                    None => self.outside_turn(time, slot, |c| c.add_tokens(&counts)),
                }
            }
            _ => {}
        }
    }
}

/// `provider` and `model` of an object, when at least one is a string.
fn model_key(object: Json<'_>) -> Option<ModelKey> {
    let [provider, model] = object.lookup(["provider", "model"]);
    // `as_str` is `None` for anything but a string.
    let text = |v: Option<Json<'_>>| v.and_then(Json::as_str).map(|s| s.into_owned());
    let key = ModelKey {
        provider: text(provider),
        model: text(model),
    };
    (key.provider.is_some() || key.model.is_some()).then_some(key)
}

/// A tool result that reports an error: `isError: true` on the v4 tool-role message, in a
/// `tool-result` block of a v0–v3 user-role wrapper, or on June's `data`.
fn is_error_result(data: Option<Json<'_>>, message: Option<Json<'_>>) -> bool {
    let yes = |v: Option<Json<'_>>| v.and_then(Json::as_bool) == Some(true);
    if yes(data.and_then(|d| d.get("isError"))) {
        return true;
    }
    let Some(message) = message else {
        return false;
    };
    if yes(message.get("isError")) {
        return true;
    }
    message
        .get("content")
        .filter(|c| c.is_array())
        .is_some_and(|content| {
            content.elements().any(|block| {
                block.is_object()
                    && block.get("type").is_some_and(|t| t.str_eq("tool-result"))
                    && yes(block.get("isError"))
            })
        })
}

/// The hour of the day (`00` to `23`) of `ms` since the Unix epoch in `tz`.
pub fn hour_of(ms: i64, tz: &jiff::tz::TimeZone) -> Option<String> {
    let at = jiff::Timestamp::from_millisecond(ms).ok()?;
    Some(format!("{:02}", tz.to_datetime(at).hour()))
}

/// The calendar day (`YYYY-MM-DD`) of `ms` since the Unix epoch in `tz`; `None` for a time
/// outside the range of dates.
pub fn day_of(ms: i64, tz: &jiff::tz::TimeZone) -> Option<String> {
    let at = jiff::Timestamp::from_millisecond(ms).ok()?;
    Some(tz.to_datetime(at).date().to_string())
}

impl View for UsageView {
    fn on_event(&mut self, event: &Checked<'_, '_>) {
        if self.stopped || !event.folded {
            self.stopped = true;
            return;
        }
        self.record(event);
    }

    fn finish(&mut self, report: &mut Report) {
        if crate::scan::defect::read_again(report) {
            // Told of records past the defect: a second pass counts the log.
            return;
        }
        // A turn still open at the end (a crash) is counted with what it holds.
        self.close_turn();
        // A fork's inherited history is its parent's: v0/v1 name the cut in the header's
        // `seedLength`, v2+ with a `session/end-seed` tagged `inherited: true`.
        let header = report.header.as_ref();
        let parent = header.and_then(|h| h.lineage.parent_session.clone());
        let cut = header
            .filter(|h| h.lineage.parent_session.is_some())
            .and_then(|h| h.lineage.seed())
            .or_else(|| {
                self.segments
                    .iter()
                    .rev()
                    .find(|(_, tagged, _)| *tagged)
                    .map(|(seq, _, _)| *seq)
            });
        let mut inherited = None;
        for (seq, _, rows) in std::mem::take(&mut self.segments) {
            if cut.is_some_and(|c| seq <= c) {
                inherited = Some((parent.clone().unwrap_or_else(|| "-".to_owned()), seq));
                continue;
            }
            for (slot, counts) in rows {
                self.rows.entry(slot).or_default().add(&counts);
            }
        }
        let log_key = || match self.options.by {
            GroupBy::Project => RowKey::Project(report.header.as_ref().and_then(|h| h.cwd.clone())),
            // A store's session id, else the id the log's header names.
            _ => RowKey::Session {
                file: report.path.display().to_string(),
                session: report
                    .session
                    .clone()
                    .or_else(|| report.header.as_ref().map(|h| h.id.clone())),
            },
        };
        let mut out = LogUsage {
            inherited,
            subagent_of: header
                .filter(|h| h.lineage.origin.as_deref() == Some("subagent"))
                .and_then(|h| h.lineage.parent_session.clone()),
            ..LogUsage::default()
        };
        // A session with no turn is still a session read (`show` counts it too).
        let loaded = matches!(report.status, Status::Valid | Status::TornTail);
        let unfiltered = self.options.period.is_all();
        if self.rows.is_empty()
            && loaded
            && unfiltered
            && matches!(self.options.by, GroupBy::Session | GroupBy::Project)
        {
            self.rows.insert(Slot::Log, Counts::default());
        }
        out.counted = !self.rows.is_empty() || (loaded && unfiltered);
        for (slot, mut counts) in std::mem::take(&mut self.rows) {
            counts.sessions = 1;
            let key = match slot {
                Slot::Log => log_key(),
                Slot::Day(day) => RowKey::Day(day),
                Slot::Model(model) => RowKey::Model(model),
                Slot::Band(band) => RowKey::Band(band),
                Slot::Hour(hour) => RowKey::Hour(hour),
            };
            out.rows.entry(key).or_default().add(&counts);
        }
        self.sink.borrow_mut().push(out);
    }
}

/// A [`UsageView`] pricing one session's own events at `prices` (a fork's inherited history
/// left to its parent, as `stats` counts it), one row per session, and the sink its rows
/// go to ([`total`] sums them).
pub fn session_view(prices: Arc<PriceTable>) -> (UsageView, Rc<RefCell<Vec<LogUsage>>>) {
    let sink = Rc::default();
    let options = UsageOptions {
        by: GroupBy::Session,
        tz: jiff::tz::TimeZone::UTC,
        period: Period::default(),
        prices,
    };
    (UsageView::new(options, Rc::clone(&sink)), sink)
}

/// The counts the views of a scan handed to `sink`, summed.
pub fn total(sink: &RefCell<Vec<LogUsage>>) -> Counts {
    let mut total = Counts::default();
    for log in sink.borrow().iter() {
        for counts in log.rows.values() {
            total.add(counts);
        }
    }
    total
}
