//! Arguments of the commands that write a log anew: `repair` and `recover`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::ProviderName;

/// Arguments of `repair`.
#[derive(Debug, Args)]
pub struct RepairArgs {
    /// The session log (a file; standard input cannot be repaired).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// The session to repair in a SQLite store (optional when the store holds one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Print what would be cut and the closer records byte for byte; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Do not keep a copy of the original as FILE.bak.<UTC time>.
    #[arg(long)]
    pub no_backup: bool,

    /// After DSH's repair, also heal the derived history for this provider: append the
    /// fewest surface replacements (user messages citing what they shadow) that make it
    /// pass the provider's P-rules. Nothing stored is changed or removed.
    #[arg(long, value_enum, value_name = "NAME")]
    pub provider: Option<ProviderName>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = RepairFormat::Text)]
    pub format: RepairFormat,
}

/// Arguments of `recover`.
#[derive(Debug, Args)]
pub struct RecoverArgs {
    /// The log DSH refuses: a file, a session directory, or a SQLite store (standard input
    /// cannot be recovered).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// The DSH root to write the new sessions under
    /// (ROOT/--<project>--/<session id>/session[.vN].jsonl[.zstd]); it may be the root the
    /// log is in.
    #[arg(long, value_name = "ROOT")]
    pub out: PathBuf,

    /// The session to recover from a SQLite store: its id or a unique prefix of it
    /// (optional when the store holds one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Print what would be written (sessions, closers, changes, records left out, what
    /// cannot be recovered); write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// The encoding to write: plain (session.jsonl) or zstd (session.jsonl.zstd). Default:
    /// the log's; plain for a SQLite store. A DSH root holds one encoding.
    #[arg(long = "as", value_enum, value_name = "ENCODING")]
    pub encoding: Option<RecoverEncoding>,

    /// Also heal each session for this provider, as `repair --provider NAME` does: append
    /// the fewest surface replacements that make its history pass the provider's P-rules.
    #[arg(long, value_enum, value_name = "NAME")]
    pub provider: Option<ProviderName>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = RepairFormat::Text)]
    pub format: RepairFormat,
}

/// Encodings `recover` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RecoverEncoding {
    /// Plain JSONL (`session.jsonl`).
    #[value(alias = "jsonl")]
    Plain,
    /// zstd JSONL (`session.jsonl.zstd`).
    Zstd,
}

impl RecoverEncoding {
    /// The encoding it names.
    pub fn encoding(self) -> dsh_session::load::Encoding {
        match self {
            RecoverEncoding::Plain => dsh_session::load::Encoding::Plain,
            RecoverEncoding::Zstd => dsh_session::load::Encoding::Zstd,
        }
    }
}

/// Formats for `repair`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RepairFormat {
    /// Human-readable lines, closers verbatim.
    Text,
    /// One JSON object.
    Json,
}
