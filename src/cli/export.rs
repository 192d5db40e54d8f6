//! Arguments of `export` and `follow`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::ProviderName;

/// Arguments of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The session log (`-` reads standard input), a session directory, or a SQLite store;
    /// with --format site, any number of roots, session directories, logs and stores.
    #[arg(value_name = "PATH")]
    pub file: PathBuf,

    /// More paths, for --format site.
    #[arg(value_name = "PATH", hide = true)]
    pub more: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ExportFormat::Markdown)]
    pub format: ExportFormat,

    /// Write the transcript to FILE (atomically: a temporary file renamed into place)
    /// instead of standard output (markdown and html).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        conflicts_with = "out"
    )]
    pub output: Option<PathBuf>,

    /// The JSONL root to write the store's sessions under (dsh-jsonl), or the directory
    /// of the site (site); required for both.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Keep secrets and home directories as recorded (redaction is on by default).
    #[arg(long)]
    pub no_redact: bool,

    /// The session to read from a SQLite store: its id or a unique prefix of it (optional
    /// when the store holds one; dsh-jsonl exports every session without it).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// A price table (TOML or JSON, the schema of `stats --prices`) tried before the
    /// built-in one for the site's cost column (site only). A session with a model without a
    /// price, or of two currencies, gets no cost, never a guess.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,

    /// Export a corrupt or refused log up to its first defect (markdown, html), the defect
    /// named at the top; the exit code stays 1. A store's damaged session becomes a session
    /// DSH loads with `dsh-session recover`.
    #[arg(long)]
    pub salvage: bool,
}

/// `export` formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// A Markdown transcript (GitHub-flavoured, `<details>` for collapsed parts).
    Markdown,
    /// One self-contained HTML page (no network request), light and dark.
    Html,
    /// A SQLite store's sessions as DSH JSONL session directories under --out.
    DshJsonl,
    /// A browsable static site of every session under the paths, in --out DIR: an index
    /// by project, a page per session, search; a second run rewrites only what changed.
    Site,
}

/// Arguments of `follow`.
#[derive(Debug, Args)]
pub struct FollowArgs {
    /// A session log (plain or zstd JSONL), a SQLite store, a session directory, or a
    /// JSONL root directory.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,

    /// Output format: text (one line per happening) or jsonl (one object per happening,
    /// with schema_version and kind).
    #[arg(long, value_enum, default_value_t = FollowFormat::Text)]
    pub format: FollowFormat,

    /// Print every happening from the start of the log, not only a summary of what it
    /// held when following began.
    #[arg(long)]
    pub from_start: bool,

    /// Seconds a torn line (or zstd frame) may stay incomplete before it is reported as a
    /// torn tail (J2, Z3); it is reported once, and followed on if completed later.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub settle: f64,

    /// Milliseconds between polls when no file notification arrives (the fallback where
    /// notifications are missing, and a safety net).
    #[arg(long, value_name = "MS", default_value_t = 250)]
    pub poll_ms: u64,

    /// Exit 1 at the first corrupt or refused finding (for CI).
    #[arg(long)]
    pub exit_on_finding: bool,

    /// Do not print what is said (user and assistant messages, one line each).
    #[arg(long)]
    pub no_text: bool,

    /// Also print the assistant's reasoning, one line per message.
    #[arg(long, conflicts_with = "no_text")]
    pub reasoning: bool,

    /// Also report, at each turn's end, the findings of this provider's rules that the
    /// derived history newly has (see `dsh-session rules`).
    #[arg(long, value_enum, value_name = "NAME")]
    pub provider: Option<ProviderName>,

    /// The session to follow in a SQLite store: its id or a unique prefix of it (optional
    /// when the store holds one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

/// Formats for `follow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FollowFormat {
    /// One line per happening.
    Text,
    /// One JSON object per happening.
    Jsonl,
}
