//! Arguments of `fork` and `trim`, the commands that make a new session of an existing one
//! (a module of `cli`).

use std::path::PathBuf;

use clap::Args;

use crate::cli::{RecoverEncoding, RepairFormat};

/// Where a new session goes and how, shared by `fork` and `trim`.
#[derive(Debug, Args)]
pub struct NewSessionArgs {
    /// The DSH root to write the new session under
    /// (ROOT/--<project>--/<session id>/session[.vN].jsonl[.zstd]); it may be the root the
    /// log is in.
    #[arg(long, value_name = "ROOT")]
    pub out: PathBuf,

    /// The new session's id. Default: `session-<UUID v4>`, as DSH makes one.
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,

    /// The session to read from a SQLite store: its id or a unique prefix of it (optional
    /// when the store holds one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// The encoding to write: plain (session.jsonl) or zstd (session.jsonl.zstd). Default:
    /// the log's; plain for a SQLite store.
    #[arg(long = "as", value_enum, value_name = "ENCODING")]
    pub encoding: Option<RecoverEncoding>,

    /// Print what would be written; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = RepairFormat::Text)]
    pub format: RepairFormat,
}

/// Arguments of `fork`.
#[derive(Debug, Args)]
pub struct ForkArgs {
    /// The log to fork: a file, a session directory, or a SQLite store. It is never changed.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// A seq of the log: the new session holds the history up to the end of the turn that
    /// holds it (up to the seq itself when it is outside a turn).
    #[arg(long, value_name = "SEQ")]
    pub at: u64,

    #[command(flatten)]
    pub new: NewSessionArgs,
}

/// Arguments of `trim`.
#[derive(Debug, Args)]
pub struct TrimArgs {
    /// The log to trim: a file, a session directory, or a SQLite store. It is never changed.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Cut each tool result's text to this many bytes (a marker says how much was cut).
    #[arg(long, value_name = "BYTES")]
    pub tool_output_max: Option<usize>,

    /// Leave out turns A to B (both included, by `data.turn`); the turns after them are
    /// renumbered.
    #[arg(long, value_name = "A..B", value_parser = parse_turns)]
    pub drop_turns: Option<(i64, i64)>,

    #[command(flatten)]
    pub new: NewSessionArgs,
}

/// `A..B` or `A` (one turn).
fn parse_turns(s: &str) -> Result<(i64, i64), String> {
    let bad = || format!("{s:?} is not a turn range: write A..B (e.g. 2..4) or one turn number");
    let (a, b) = s.split_once("..").unwrap_or((s, s));
    let a = a.trim().parse::<i64>().map_err(|_| bad())?;
    let b = b.trim().parse::<i64>().map_err(|_| bad())?;
    if a > b {
        return Err(format!("{s:?}: the first turn comes after the last"));
    }
    Ok((a, b))
}
