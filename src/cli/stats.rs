//! Arguments of `stats` and `statusline`, the commands that count usage and cost.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// Arguments of `stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Session logs, session directories, SQLite stores (every session in them), or
    /// directories to walk as `validate` walks them; `-` reads standard input. None: DSH's
    /// default root, ~/.dsh/sessions.
    #[arg(value_name = "PATH")]
    pub files: Vec<PathBuf>,

    /// One row per: day (of each turn's start, in --tz), session (a log, or a session of a
    /// store), model (the provider/model that produced the tokens; a turn counts for the
    /// model of its first answer), project (the header's cwd), band (the price band of each
    /// message's time: peak, off-peak) or hour (of the day, in --tz).
    #[arg(long, value_enum, default_value_t = StatsBy::Day)]
    pub by: StatsBy,

    /// With --by session: a row of its own for each subagent, instead of its counts in its
    /// parent's row (when the parent is among the logs read).
    #[arg(long)]
    pub subagents_apart: bool,

    /// Count only turns that start at or after WHEN: a date (2026-11-30, from its first
    /// moment), a date and time (2026-11-30T14:00), both in --tz, or a time with an offset
    /// (2026-11-30T14:00:00Z).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Count only turns that start before WHEN (as for --since); a date includes that whole
    /// day, so `--since 2026-11-01 --until 2026-11-30` is all of November 1 to 30.
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,

    /// The time zone of days and of --since/--until without an offset: an IANA name such
    /// as Europe/Berlin.
    #[arg(long, value_name = "ZONE", default_value = "UTC")]
    pub tz: String,

    /// A price table (TOML or JSON, the built-in table's schema, README "stats") tried
    /// before the built-in one (DeepSeek's CNY prices and peak hours): it overrides and
    /// extends it. A model without a price gets no cost, never a guess: it is listed.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,

    /// Output format: text (a table, a total row and notes), json (one object with
    /// schema_version), csv or jsonl (flat rows, no total, for DuckDB or a spreadsheet).
    #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
    pub format: StatsFormat,
}

/// What one row of `stats` stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsBy {
    /// A calendar day of the turns' start times, in --tz.
    Day,
    /// A session: a log file, or one session of a SQLite store.
    Session,
    /// A provider/model.
    Model,
    /// A project: the header's cwd.
    Project,
    /// A price band (peak, off-peak; `-` for tokens without a price), by each message's time.
    Band,
    /// An hour of the day in --tz (00 to 23), by each message's time.
    Hour,
}

/// Formats for `stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    /// A table with a total row, then notes on logs not counted in full.
    Text,
    /// One JSON object: rows, total and notes.
    Json,
    /// Comma-separated rows with a header line; notes go to standard error.
    Csv,
    /// One JSON object per row; notes go to standard error.
    Jsonl,
}

/// Arguments of `statusline`.
#[derive(Debug, Args)]
pub struct StatuslineArgs {
    /// The session log [default: the log under --root written last].
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// DSH's sessions root, for the newest session and today's cost [default:
    /// ~/.dsh/sessions].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// A price table over the built-in one (as `stats --prices`).
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,

    /// The line's width in columns [default: $COLUMNS, else 80].
    #[arg(long, value_name = "N")]
    pub width: Option<usize>,

    /// Now, for the band and today (as `stats --since` takes a time; for scripts and tests).
    #[arg(long, value_name = "WHEN")]
    pub now: Option<String>,

    /// The cache file [default: statusline.json in the user's cache directory].
    #[arg(long, value_name = "FILE")]
    pub cache: Option<PathBuf>,

    /// Read every log of today again, without the cache.
    #[arg(long)]
    pub no_cache: bool,
}
