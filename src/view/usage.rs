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

use crate::event::Projection;
use crate::json::Json;
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
}

/// How [`UsageView`] groups and filters.
#[derive(Debug, Clone)]
pub struct UsageOptions {
    /// The grouping.
    pub by: GroupBy,
    /// The time zone days are taken in ([`GroupBy::Day`]).
    pub tz: jiff::tz::TimeZone,
    /// Count only turns starting at or after this time, ms since the Unix epoch.
    pub since: Option<i64>,
    /// Count only turns starting before this time, ms since the Unix epoch.
    pub until: Option<i64>,
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
}

impl Counts {
    /// Adds `other` to `self`.
    pub fn add(&mut self, other: &Counts) {
        self.sessions += other.sessions;
        self.add_turn_counts(other);
        for (model, usage) in &other.usage {
            add_usage(self.usage.entry(model.clone()).or_default(), usage);
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
}

/// Where the counts of one log go before the log's own keys (path, `cwd`) are known.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    /// The log's one row ([`GroupBy::Session`], [`GroupBy::Project`]).
    Log,
    Day(Option<String>),
    Model(ModelKey),
}

/// The turn being read.
#[derive(Debug, Default)]
struct OpenTurn {
    /// Its `turn/start` time.
    start: Option<i64>,
    /// Inside `--since`/`--until`.
    counted: bool,
    /// The model of its first assistant message ([`GroupBy::Model`]).
    model: Option<ModelKey>,
    /// Its counts so far; the tokens are per model.
    counts: Counts,
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
        }
    }

    /// Inside `--since`/`--until`; a time that is not known is outside any bound given.
    fn in_range(&self, time: Option<i64>) -> bool {
        let o = &self.options;
        match time {
            Some(t) => o.since.is_none_or(|s| t >= s) && o.until.is_none_or(|u| t < u),
            None => o.since.is_none() && o.until.is_none(),
        }
    }

    /// The row a turn (or an event outside any turn) starting at `time` goes to, except
    /// under [`GroupBy::Model`].
    fn slot_at(&self, time: Option<i64>) -> Slot {
        match self.options.by {
            GroupBy::Day => Slot::Day(time.and_then(|t| day_of(t, &self.options.tz))),
            _ => Slot::Log,
        }
    }

    /// Counts `f` for one event outside any turn, at its own time.
    fn outside_turn(
        &mut self,
        time: Option<i64>,
        model: Option<ModelKey>,
        f: impl FnOnce(&mut Counts),
    ) {
        if !self.in_range(time) {
            return;
        }
        let slot = match self.options.by {
            GroupBy::Model => Slot::Model(
                model
                    .or_else(|| self.last_model.clone())
                    .unwrap_or_default(),
            ),
            _ => self.slot_at(time),
        };
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
            model,
            counts,
            ..
        } = turn;
        if self.options.by != GroupBy::Model {
            self.rows
                .entry(self.slot_at(start))
                .or_default()
                .add(&counts);
            return;
        }
        // The turn's own counts go to the model of its first answer (else the model last
        // named before it ended); each model's tokens to that model.
        let owner = model
            .or_else(|| self.last_model.clone())
            .unwrap_or_default();
        self.rows
            .entry(Slot::Model(owner))
            .or_default()
            .add_turn_counts(&counts);
        for (model, usage) in counts.usage {
            let row = self.rows.entry(Slot::Model(model.clone())).or_default();
            add_usage(row.usage.entry(model).or_default(), &usage);
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
                    model: None,
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
                if let Some(turn) = self.turn.as_mut()
                    && turn.model.is_none()
                {
                    turn.model = Some(model.clone());
                }
                let Some(usage) = data.and_then(|d| d.get("usage")).filter(|u| u.is_object())
                else {
                    return;
                };
                let mut tokens = Usage::default();
                tokens.add(usage);
                match &mut self.turn {
                    Some(turn) => {
                        if turn.counted {
                            add_usage(turn.counts.usage.entry(model).or_default(), &tokens);
                        }
                    }
                    None => self.outside_turn(time, Some(model.clone()), |c| {
                        add_usage(c.usage.entry(model).or_default(), &tokens)
                    }),
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
        let mut out = LogUsage::default();
        // A session with no turn is still a session read (`show` counts it too).
        let loaded = matches!(report.status, Status::Valid | Status::TornTail);
        let unfiltered = self.options.since.is_none() && self.options.until.is_none();
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
            };
            out.rows.entry(key).or_default().add(&counts);
        }
        self.sink.borrow_mut().push(out);
    }
}
