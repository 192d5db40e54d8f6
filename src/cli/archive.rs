//! Arguments of the commands over many sessions: `sessions`, `index`, `search`, `mcp`, `tui`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::TableFormat;

/// Arguments of `sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// A SQLite store, or a JSONL root directory (`<root>/<project>/<session>/session.jsonl[.zstd]`,
    /// walked as `validate` walks it). None: DSH's default root, ~/.dsh/sessions.
    #[arg(value_name = "STORE")]
    pub store: Option<PathBuf>,

    /// Output format: text (a table), json (an array), jsonl (an object per line) or csv
    /// (with a header line).
    #[arg(long, value_enum, default_value_t = SessionsFormat::Text)]
    pub format: SessionsFormat,

    #[command(flatten)]
    pub index: IndexLocation,

    /// A JSONL root: list what the index holds without bringing it up to date first.
    #[arg(long)]
    pub no_update: bool,
}

/// Formats for `sessions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SessionsFormat {
    /// A text table that fits the terminal (`table` is an alias).
    #[value(alias = "table")]
    Text,
    /// One JSON value.
    Json,
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header line.
    Csv,
}

/// Where the search index is (`index`, `search`, `sessions ROOT`).
#[derive(Debug, Args)]
pub struct IndexLocation {
    /// The index file [default: $DSH_SESSION_INDEX, else index.db in the cache directory:
    /// $XDG_CACHE_HOME/dsh-session, ~/Library/Caches/dsh-session, %LOCALAPPDATA%\dsh-session\cache].
    #[arg(long = "index", value_name = "FILE")]
    pub file: Option<PathBuf>,
}

/// Arguments of `index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// JSONL roots, session directories, logs and SQLite stores to index (directories are
    /// walked as `validate` walks them); none: the paths indexed before.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub index: IndexLocation,

    /// Empty the index first and read every log again.
    #[arg(long)]
    pub rebuild: bool,

    /// Check the whole index file first (PRAGMA quick_check; slow on a large index) and
    /// rebuild it when SQLite finds damage.
    #[arg(long)]
    pub check: bool,

    /// Print nothing but errors: no progress bar, no summary, no notes.
    #[arg(short, long)]
    pub quiet: bool,

    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = TableFormat::Text)]
    pub format: TableFormat,
}

/// Arguments of `search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to find: plain words (all must occur, as substrings, in one message part), or
    /// FTS5 syntax ("a phrase", AND, OR, NOT, NEAR(...), prefix*).
    #[arg(value_name = "QUERY")]
    pub query: String,

    /// JSONL roots, logs and stores to search (brought up to date first); none: every path
    /// indexed before.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub index: IndexLocation,

    /// Search the index as it is, without reading changed logs first.
    #[arg(long)]
    pub no_update: bool,

    /// Only sessions whose project (the header's cwd) contains TEXT.
    #[arg(long, value_name = "TEXT")]
    pub project: Option<String>,

    /// Only the session with this id, or whose id starts with it.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Only messages at or after WHEN: a date (2026-11-30), a date and time
    /// (2026-11-30T14:00), both in --tz, or a time with an offset (2026-11-30T14:00:00Z).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Only messages before WHEN (as for --since; a date includes that whole day).
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,

    /// The time zone of --since/--until without an offset: an IANA name.
    #[arg(long, value_name = "ZONE", default_value = "UTC")]
    pub tz: String,

    /// Only this kind of text (repeat for several): user, assistant, reasoning, tool (calls
    /// and results), system.
    #[arg(long, value_enum, value_name = "ROLE")]
    pub role: Vec<SearchRole>,

    /// Only the calls and results of this tool.
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,

    /// Also search messages a replace took off the surface (compacted or pruned).
    #[arg(long)]
    pub include_shadowed: bool,

    /// Print only the sessions with hits, the best first.
    #[arg(short = 'l', long = "sessions-with-matches")]
    pub sessions_only: bool,

    /// At most N hits (with -l, sessions); 0 for all.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,

    /// Output format: text, json (an array), jsonl (an object per line).
    #[arg(long, value_enum, default_value_t = TableFormat::Text)]
    pub format: TableFormat,

    /// No progress bar and no notes while the index is brought up to date.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Arguments of `mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// A JSONL root, session directory, log or SQLite store whose sessions the tools serve
    /// (repeat for several); none: every path indexed before.
    #[arg(long = "root", value_name = "ROOT")]
    pub roots: Vec<PathBuf>,

    #[command(flatten)]
    pub index: IndexLocation,
}

/// What part of a message `search --role` keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[cfg_attr(
    feature = "mcp",
    derive(serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "lowercase")
)]
pub enum SearchRole {
    /// What the user (or a plugin, as the user) wrote.
    User,
    /// What the assistant wrote.
    Assistant,
    /// The assistant's reasoning.
    Reasoning,
    /// Tool calls (name and arguments) and tool results.
    Tool,
    /// System and developer messages.
    System,
}

impl From<SearchRole> for dsh_session::view::message_rows::PartKind {
    /// The kind of message text a `--role` names.
    fn from(role: SearchRole) -> Self {
        use dsh_session::view::message_rows::PartKind;
        match role {
            SearchRole::User => PartKind::User,
            SearchRole::Assistant => PartKind::Assistant,
            SearchRole::Reasoning => PartKind::Reasoning,
            SearchRole::Tool => PartKind::Tool,
            SearchRole::System => PartKind::System,
        }
    }
}

/// Arguments of `tui`.
#[derive(Debug, Args)]
pub struct TuiArgs {
    /// JSONL roots, session directories, logs and SQLite stores to browse [default: the
    /// paths indexed before, else ~/.dsh/sessions].
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub index: IndexLocation,

    /// Browse the index as it is, without reading changed logs first.
    #[arg(long)]
    pub no_update: bool,
}
