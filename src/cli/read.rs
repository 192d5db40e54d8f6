//! Arguments of the commands that read one log or check many: `validate`, `show`, `surface`,
//! `messages`, `provenance`, `replacements`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{ListFormat, MessageFormat, ProviderName, TableFormat};

/// Arguments of `validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Session logs, SQLite stores, or directories to walk for DSH's log names
    /// (`session.jsonl`, `session.vN.jsonl`, either with `.zstd`), other `*.jsonl` /
    /// `*.jsonl.zstd` files whose first line is a DSH session header, and stores (`*.db`,
    /// `*.sqlite`, `*.sqlite3`); `-` reads standard input. None: DSH's default root,
    /// ~/.dsh/sessions.
    #[arg(value_name = "PATH")]
    pub files: Vec<PathBuf>,

    /// Output format: text (one line per log and a summary), json (an array of objects),
    /// jsonl (one object per line), github (GitHub Actions annotations).
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,

    /// Print only logs that are not valid or carry warnings (in every format), and no
    /// summary.
    #[arg(short, long)]
    pub quiet: bool,

    /// The session to read from a SQLite store: its id or a unique prefix of it (optional
    /// when the store holds one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Also fail the gate (exit 1) when this provider would refuse the derived history
    /// (its P-rules; see `dsh-session rules`). Without it, provider findings are warnings.
    #[arg(long, value_enum, value_name = "NAME")]
    pub provider: Option<ProviderName>,

    /// Fail the gate (exit 1) on any warning, provider findings included.
    #[arg(long)]
    pub strict: bool,
}

/// Arguments of `surface`.
#[derive(Debug, Args)]
pub struct SurfaceArgs {
    /// The session log (`-` reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Show the surface right after the event with this seq (default: the whole log).
    #[arg(long, value_name = "SEQ")]
    pub at: Option<u64>,

    /// Also list the entries replaces shadowed, each marked with the seq that shadowed
    /// it: the whole history of the surface, in seq order.
    #[arg(long)]
    pub all: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Text)]
    pub format: TableFormat,

    /// The session to read from a SQLite store: its id or a unique prefix of it (optional
    /// when the store holds one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Read a corrupt or refused log up to its first defect and print what it held there,
    /// the defect named at the top (JSON: a `salvaged` field; jsonl: on standard error).
    /// The exit code stays 1.
    #[arg(long)]
    pub salvage: bool,
}

/// Arguments of `messages`.
#[derive(Debug, Args)]
pub struct MessagesArgs {
    /// The session log (`-` reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Derive the messages of the surface right after the event with this seq.
    #[arg(long, value_name = "SEQ", conflicts_with = "seq")]
    pub at: Option<u64>,

    /// Print only the message the event with this seq derives, on the surface or shadowed
    /// by a replace (what a `search` hit's `open` runs): the stored message itself, one
    /// line, with either --format.
    #[arg(long, value_name = "SEQ", conflicts_with = "salvage")]
    pub seq: Option<u64>,

    /// Output format: json (one array) or jsonl (one message per line).
    #[arg(long, value_enum, default_value_t = MessageFormat::Json)]
    pub format: MessageFormat,

    /// The history this provider would receive after `repair --provider NAME`: DSH's
    /// closers and the heals, computed in memory (nothing is written). The same output as
    /// `messages`; each change is a note on standard error (as data: `repair --dry-run
    /// --provider NAME --format json`).
    #[arg(long, value_enum, value_name = "NAME", conflicts_with_all = ["at", "seq"])]
    pub provider: Option<ProviderName>,

    /// The session to read from a SQLite store: its id or a unique prefix of it (optional
    /// when the store holds one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Read a corrupt or refused log up to its first defect and print the messages it held
    /// there, the defect named in a `salvaged` field (json; jsonl: on standard error). The
    /// exit code stays 1.
    #[arg(long, conflicts_with = "provider")]
    pub salvage: bool,
}

/// Arguments of `provenance`.
#[derive(Debug, Args)]
pub struct ProvenanceArgs {
    /// The session log (`-` reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// The event to explain.
    #[arg(value_name = "SEQ")]
    pub seq: u64,

    /// The session to read from a SQLite store: its id or a unique prefix of it (optional
    /// when the store holds one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Cut both trees after this many levels (at most 1000 are ever walked).
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,

    /// Output format: tree (indented text), json, or dot (Graphviz, for `dot -Tsvg`).
    #[arg(long, value_enum, default_value_t = ProvenanceFormat::Text)]
    pub format: ProvenanceFormat,

    /// Read a corrupt or refused log up to its first defect and print what it held there,
    /// the defect named at the top (JSON: a `salvaged` field; jsonl: on standard error).
    /// The exit code stays 1.
    #[arg(long)]
    pub salvage: bool,
}

/// Formats for `provenance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProvenanceFormat {
    /// Indented trees (`tree` is an alias).
    #[value(alias = "tree")]
    Text,
    /// One JSON object.
    Json,
    /// A Graphviz digraph of the neighbourhood.
    Dot,
}

/// Arguments of `replacements`.
#[derive(Debug, Args)]
pub struct ReplacementsArgs {
    /// The session log (`-` reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// The session to read from a SQLite store: its id or a unique prefix of it (optional
    /// when the store holds one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Text)]
    pub format: TableFormat,

    /// Read a corrupt or refused log up to its first defect and print what it held there,
    /// the defect named at the top (JSON: a `salvaged` field; jsonl: on standard error).
    /// The exit code stays 1.
    #[arg(long)]
    pub salvage: bool,
}

/// One session log shown as text or JSON: the arguments of `version`, and the first of
/// `show`.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// The session log (`-` reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Text)]
    pub format: TableFormat,

    /// The session to read from a SQLite store: its id or a unique prefix of it (optional
    /// when the store holds one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

/// Arguments of `show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The log and how to show it.
    #[command(flatten)]
    pub log: LogArgs,

    /// Show only the message the event with this seq derives (on the surface or shadowed
    /// by a replace): its seq, type, role and whether it is on the surface, then the
    /// stored message, indented (json: those fields and `message`).
    #[arg(long, value_name = "SEQ", conflicts_with = "salvage")]
    pub seq: Option<u64>,

    /// Read a corrupt or refused log up to its first defect and print what it held there,
    /// the defect named at the top (JSON: a `salvaged` field; jsonl: on standard error).
    /// The exit code stays 1.
    #[arg(long)]
    pub salvage: bool,
}
