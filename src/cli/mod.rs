//! Command-line definitions. Every flag is documented here, once: `--help`, the man page
//! (`man`) and the shell completions (`completions`) all come from these doc comments, and
//! those two commands live here beside them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod archive;
pub mod completions;
mod export;
pub mod lineage;
pub mod man;
mod read;
mod reference;
mod repair;
mod stats;

pub use archive::*;
pub use export::*;
pub use lineage::{ForkArgs, TrimArgs};
pub use read::*;
pub use reference::*;
pub use repair::*;
pub use stats::*;

/// Exit codes, as `--help` and the README list them.
pub const EXIT_CODES: &str = "\
Exit codes:
  0  success; for validate: every log is valid (a torn tail alone is valid, and reported)
  1  a log is corrupt or refused (the finding names the file, line, seq and rule)
  2  usage error, or a file could not be read";

/// Inspect, validate and derive messages from DeepSeek Harness (DSH) session logs.
///
/// A DSH session is an append-only event log (session.jsonl or session.jsonl.zstd).
/// dsh-session checks it the way DSH itself does on load, rule by rule
/// (run `dsh-session rules` for the list), replays its surface, and derives the
/// message history the model sees.
#[derive(Debug, Parser)]
#[command(name = "dsh-session", version, after_help = EXIT_CODES, max_term_width = 100)]
pub struct Cli {
    /// The options of every command.
    #[command(flatten)]
    pub global: GlobalArgs,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The options every command takes, listed after a command's own under their own heading.
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options", next_display_order = 900)]
pub struct GlobalArgs {
    /// When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(
        long,
        value_enum,
        global = true,
        default_value_t = ColorChoice::Auto,
        hide_possible_values = true,
        hide_default_value = true
    )]
    pub color: ColorChoice,

    /// Also print the cause chain of an error.
    #[arg(short, long, global = true)]
    pub verbose: bool,

    /// Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as
    /// it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are
    /// migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules
    /// F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and
    /// v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as
    /// the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full
    /// version (0.1.1-rc.2, 0.2.1-alpha.2) names its line.
    #[arg(long, global = true, value_name = "LINE", value_parser = parse_dsh)]
    pub dsh: Option<dsh_session::edge::DshLine>,

    /// Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log's
    /// `cwd` is absolute on one and not the other (`C:\DEV\proj` only on Windows: H8).
    /// Default: the platform that wrote each log, as its `cwd` shows.
    #[arg(long, global = true, value_name = "PLATFORM", value_parser = parse_platform)]
    pub platform: Option<dsh_session::edge::Platform>,
}

/// `--dsh LINE`: the DSH release line a version belongs to.
fn parse_dsh(text: &str) -> Result<dsh_session::edge::DshLine, String> {
    dsh_session::edge::DshLine::parse(text)
}

/// `--platform PLATFORM`.
fn parse_platform(text: &str) -> Result<dsh_session::edge::Platform, String> {
    dsh_session::edge::Platform::parse(text)
}

/// When to colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal unless NO_COLOR is set and non-empty.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check logs the way DSH does on load; the exit code tells (CI gate).
    ///
    /// Each file gets one verdict: valid, torn-tail (valid, but a crash left
    /// uncommitted bytes at the end that `repair` would cut), corrupt, or refused
    /// (intact, but written by a newer harness or with an unknown required event
    /// type, or one the frozen migration edges of DSH 0.1.5 and later refuse: rules F1-F9;
    /// `--dsh 0.1.1` judges as DSH 0.1.1, which loads such a v0 log as it is). A failing
    /// verdict names the rule id, the line and the seq.
    #[command(after_help = concat!("Examples:\n  dsh-session validate logs/*.jsonl logs/*.jsonl.zstd\n  dsh-session validate ~/.dsh/sessions            # walk a JSONL root\n  dsh-session validate --format github sessions/  # in a GitHub Actions step\n  dsh-session validate --format json session.jsonl | jq '.[] | select(.status != \"valid\")'\n\n", "Exit codes:\n  0  every log is valid or torn-tail\n  1  a log is corrupt or refused\n  2  usage error, or a file could not be read"))]
    Validate(ValidateArgs),

    /// Print the surface: the ordered events whose messages the model sees.
    #[command(
        after_help = "Examples:\n  dsh-session surface session.jsonl\n  dsh-session surface session.jsonl --at 120 --format json"
    )]
    Surface(SurfaceArgs),

    /// Print the derived message history (deriveMessages), byte for byte as stored.
    #[command(
        after_help = "Examples:\n  dsh-session messages session.jsonl | jq '.[].role'\n  dsh-session messages session.jsonl --format jsonl | tail -n 1"
    )]
    Messages(MessagesArgs),

    /// Repair a log after a crash exactly as DSH does on its next load.
    ///
    /// Cuts only the torn tail (the uncommitted bytes after the last complete record) and
    /// appends the records that close an interrupted turn: a synthetic result for every
    /// unanswered tool call, `step/end`, and `turn/end {"kind":"interrupted"}`. A corrupt or
    /// refused log is never touched. A backup `FILE.bak.<UTC time>` is kept unless
    /// --no-backup. The repaired log is validated in memory before anything is written.
    #[command(
        after_help = "Examples:\n  dsh-session repair --dry-run session.jsonl\n  dsh-session repair session.jsonl.zstd\n  dsh-session repair --session 5c40 sessions.db\n\nExit codes:\n  0  repaired, or nothing to repair\n  1  the log is corrupt or refused, or changed during the repair; nothing was written\n  2  usage error, or a file could not be read or written"
    )]
    Repair(RepairArgs),

    /// Make new sessions DSH loads from a log it refuses, losing nothing it can keep.
    ///
    /// Writes one or more new sessions under --out ROOT (in DSH's layout, with new ids
    /// derived from the old one: <id>-recovered, or <id>-branch-N when two processes wrote
    /// the log) and never changes the log. The records before the first defect are kept
    /// byte for byte; after it, whole turns whose seqs can be renumbered without changing
    /// any message; a log two writers forked becomes one session per branch. Event types no
    /// DSH loads are left out (and listed verbatim); a shape DSH 0.1.5+ refuses to migrate
    /// gets the one change its frozen rules admit, or is cut out, saying why. Each session
    /// is finished as `repair` finishes a log and checked in memory as DSH 0.1.5+ and DSH
    /// 0.1.1 load it before it is written; an existing file is never written over.
    #[command(
        after_help = "Examples:\n  dsh-session recover --dry-run session.jsonl --out ~/.dsh/sessions\n  dsh-session recover session.jsonl.zstd --out ~/.dsh/sessions\n  dsh-session recover --session 5c40 sessions.db --out ~/.dsh/sessions --format json\n\nExit codes:\n  0  recovered (or would be, with --dry-run) keeping every message, in a session or quoted in its note; or the log is valid and needs no recovery\n  1  something could not be kept (listed; the sessions are written), nothing is recoverable (no header to rebuild, a newer format), or a session to write exists already (nothing written)\n  2  usage error, or a file could not be read or written"
    )]
    Recover(RecoverArgs),

    /// Start a new session from an earlier point of a session: the history up to the end
    /// of the turn that holds SEQ.
    ///
    /// As DSH's own `SessionStore.fork` makes a child session: a new id, the events up to
    /// the boundary as stored, then a `session/end-seed`; the header names the parent
    /// (`parentSession`) and the events inherited (`seedLength`, or `isSeeded` from format
    /// v2). A tool call is never separated from its result. The log is never changed.
    #[command(
        after_help = "Examples:\n  dsh-session fork session.jsonl --at 120 --out ~/.dsh/sessions\n  dsh-session fork --dry-run session.v4.jsonl --at 40 --out ~/.dsh/sessions --format json\n\nExit codes:\n  0  written (or would be, with --dry-run)\n  1  the log is not one DSH loads, SEQ cannot be forked at, or the new session's path exists (nothing written)\n  2  usage error, or a file could not be read or written"
    )]
    Fork(ForkArgs),

    /// Make a smaller copy of a session: tool outputs cut to a size, turns left out.
    ///
    /// Every tool result over --tool-output-max BYTES keeps its first BYTES bytes and a
    /// marker that says how much was cut; every call stays answered and every other message
    /// is byte-identical. --drop-turns A..B leaves out whole turns. The new session names
    /// the log as its `parentSession`; the log is never changed.
    #[command(
        after_help = "Examples:\n  dsh-session trim --dry-run session.jsonl --tool-output-max 4096 --out ~/.dsh/sessions\n  dsh-session trim session.v4.jsonl --tool-output-max 2000 --drop-turns 2..5 --out ~/.dsh/sessions\n\nExit codes:\n  0  written (or would be, with --dry-run)\n  1  the log is not one DSH loads, the turns cannot be left out, or the new session's path exists (nothing written)\n  2  usage error, or a file could not be read or written"
    )]
    Trim(TrimArgs),

    /// Show where an event came from, what cites it, and what shadowed it.
    ///
    /// The ancestors are the transitive closure of `sourceEventSeqs`; the descendants are
    /// every event that cites SEQ directly or transitively, and every replace that
    /// shadowed SEQ or one of them. Each event appears once; a later mention is a
    /// back-reference.
    #[command(
        after_help = "Examples:\n  dsh-session provenance session.jsonl 120\n  dsh-session provenance session.jsonl 120 --format dot | dot -Tsvg > provenance.svg\n\nExit codes:\n  0  success\n  1  the log is corrupt or refused\n  2  usage error, a file could not be read, or SEQ is beyond the log"
    )]
    Provenance(ProvenanceArgs),

    /// List every replace in log order: generation, range, shadowed seqs, surface lengths.
    #[command(
        after_help = "Example:\n  dsh-session replacements session.jsonl --format json | jq '.[] | select(.type == \"tool/result\")'"
    )]
    Replacements(ReplacementsArgs),

    /// Summarise a log: header, era, turns, steps, tool calls, tokens, times.
    #[command(
        after_help = "Examples:\n  dsh-session show session.jsonl.zstd\n  dsh-session show session.jsonl --format json | jq .usage"
    )]
    Show(ShowArgs),

    /// Report usage over many logs: turns, steps, tool calls, tokens, time, and cost.
    ///
    /// Reads logs, session directories, JSONL roots and SQLite stores (walked as `validate`
    /// walks them, in parallel) and sums what their turn records and `assistant/message`
    /// usage say, one row per day, session, model, project, price band or hour, with a
    /// total. A log that is not valid is counted up to its defect and listed below the
    /// table; a torn tail counts its committed part. Cost is shown where a price is known:
    /// built in, DeepSeek's CNY prices with their peak hours (each message priced at its own
    /// time); --prices adds or overrides; a model without a price is listed, never guessed.
    #[command(after_help = concat!("Examples:\n  dsh-session stats ~/.dsh/sessions\n  dsh-session stats --by model --since 2026-11-01 ~/.dsh/sessions\n  dsh-session stats --by band --prices my-prices.toml ~/.dsh/sessions\n  dsh-session stats --by session --tz Europe/Berlin --format csv ~/.dsh/sessions > usage.csv\n\n", "Exit codes:\n  0  every log was read (torn tails included)\n  1  a log is corrupt or refused: it is counted up to its defect and listed\n  2  usage error, bad --prices, a path could not be read, or a directory holds no logs"))]
    Stats(StatsArgs),

    /// Print the log's format version, era and compression; exit 1 when refused.
    #[command(after_help = "Example:\n  dsh-session version session.jsonl.zstd")]
    Version(VersionArgs),

    /// List the sessions of a SQLite store or of a DSH JSONL root directory.
    ///
    /// A JSONL root is listed from the search index (brought up to date first, as `index`
    /// does): every session with its title, project, created and last activity, turns,
    /// model, status and size, the most recently active first.
    #[command(
        after_help = "Examples:\n  dsh-session sessions ~/.dsh/sessions.db\n  dsh-session sessions ~/.dsh/sessions --format json | jq '.[].session'\n  dsh-session sessions ~/.dsh/sessions --format csv > sessions.csv"
    )]
    Sessions(SessionsArgs),

    /// Build or update the search index of every session under the given paths.
    ///
    /// The index (a SQLite file in the cache directory, or --index FILE) keeps each
    /// session's header, verdict and counts and the text of every message on its surface,
    /// for `search` and `sessions ROOT`. It is derived data: a log whose size, mtime and
    /// inode are unchanged is not opened again, a log that only grew is read from its last
    /// indexed byte, anything else changed is read again, and a removed log is dropped.
    /// With no PATH, the paths indexed before are updated.
    #[command(
        after_help = "Examples:\n  dsh-session index ~/.dsh/sessions\n  dsh-session index                       # update what was indexed before\n  dsh-session index --rebuild --index /tmp/dsh.db ~/.dsh/sessions\n\nExit codes:\n  0  the index is up to date (logs that could not be read are named on standard error)\n  2  usage error, a path could not be read, a directory holds no logs, or the index could not be written"
    )]
    Index(IndexArgs),

    /// Search the text of every session: user and assistant messages, reasoning, tool
    /// calls and results.
    ///
    /// Brings the index up to date for the given paths first (as `index` does; with no
    /// PATH, for the paths indexed before), then prints the hits, the best first, each with
    /// the command that opens it. Plain words must all occur, as substrings and without
    /// regard to case, so `src/lib.rs` or a two-character Chinese word just work; FTS5
    /// syntax is used as it is: "exact phrase", a OR b, a NOT b, NEAR(a b, 5), prefix*.
    #[command(
        after_help = "Examples:\n  dsh-session search 'cargo test' ~/.dsh/sessions\n  dsh-session search --role user --since 2026-11-01 指南针\n  dsh-session search --tool bash -l 'rm -rf'\n  dsh-session search --format jsonl '\"connection refused\"' | jq -r .open\n\nExit codes:\n  0  hits were found\n  1  no hit\n  2  usage error, a bad query, a path could not be read, or the index could not be used"
    )]
    Search(SearchArgs),

    /// Serve the sessions to an agent: a Model Context Protocol server on standard I/O.
    ///
    /// An MCP client (DSH, Claude Code, Codex, an IDE) starts it and calls its tools:
    /// list_sessions, search, show, messages, validate and provenance, over the sessions
    /// under the --root paths (brought up to date in the search index before each call).
    /// Read-only: no tool writes a log. Standard output carries only protocol messages;
    /// notes go to standard error.
    #[command(
        after_help = "Examples:\n  dsh-session mcp --root ~/.dsh/sessions\n  dsh-session mcp --root ~/.dsh/sessions --root ~/work/sessions.db --index /tmp/dsh.db\n\nExit codes:\n  0  the client closed the connection\n  2  usage error, the index could not be opened, or this build has no MCP server"
    )]
    Mcp(McpArgs),

    /// Export a session to read (Markdown, HTML) or a SQLite store as DSH JSONL sessions.
    ///
    /// markdown and html: the derived conversation in surface order with turn boundaries,
    /// reasoning, tool calls and their results, and what each replace shadowed; the header
    /// and the findings at the top. Secrets (API keys, tokens, JWTs, private keys) and the
    /// home directory are redacted unless --no-redact; a footer counts what was redacted.
    /// dsh-jsonl: every session of a schema-17 store written under --out ROOT as
    /// ROOT/--<project>--/<id>/session.jsonl, then read back and checked.
    /// site: every session under the paths (walked as `validate` walks them) as a static
    /// site in --out DIR: index.html (by project, newest first, sortable, filterable,
    /// searchable), a page per session (as html, with a timeline and links to its parent,
    /// subagents and forks) and search.js; a damaged log's page shows what was read before
    /// its defect. A second run rewrites only what changed (DIR/manifest.json).
    #[command(
        after_help = "Examples:\n  dsh-session export session.v4.jsonl --format html -o session.html\n  dsh-session export session.jsonl --format markdown > session.md\n  dsh-session export sessions.db --format dsh-jsonl --out ~/.dsh/sessions\n  dsh-session export ~/.dsh/sessions --format site --out ~/dsh-site\n\nExit codes:\n  0  exported\n  1  the log is corrupt or refused, or a store session could not be exported (named on standard error); site: a session's log is damaged (its page says so)\n  2  usage error, or a file could not be read or written"
    )]
    Export(ExportArgs),

    /// Browse sessions in the terminal: the sessions list, full-text search, a session's
    /// turns, messages, tool calls, replaces, findings, raw events and provenance.
    ///
    /// Reads through the search index (brought up to date first, as `index` does) and the
    /// same views as `show`, `messages` and `provenance`; never writes a log. A corrupt or
    /// refused log is listed, marked, and opens with what was read before its defect. Keys
    /// are in the footer; `?` lists them all. Needs a terminal on standard input and output:
    /// in a pipe or a script use `show`, `messages` or `export`.
    #[command(
        after_help = "Examples:\n  dsh-session tui                       # the roots indexed before, else ~/.dsh/sessions\n  dsh-session tui ~/.dsh/sessions\n  dsh-session tui session.v4.jsonl.zstd\n  NO_COLOR=1 dsh-session tui ~/.dsh/sessions\n\nKeys:\n  q quit  ? help  Enter open  Esc back  f filter (list) / findings (session)\n  / search  s S sort  Space → ← fold and expand  r reasoning  v raw event\n  P provenance  p provider rules  y copy (OSC 52)  e export to Markdown\n\nExit codes:\n  0  quit with q\n  2  usage error, not a terminal, a path could not be read, or the index could not be used"
    )]
    Tui(TuiArgs),

    /// Print one line for a shell prompt, tmux or an editor: tokens and cost, today, band.
    ///
    /// The session's tokens (input, cached input and output) and cost, today's cost over the
    /// sessions under DSH's root (their turns since local midnight), and the price band now
    /// (`peak ×2 until 12:00 CST`), at the built-in prices (--prices adds or overrides). With
    /// no PATH, the session is the log under the root written last. The line fits $COLUMNS
    /// (or --width): the last parts are left out first. A cost marked * leaves out models
    /// without a price. The session's figures and today's cost of each log are cached in
    /// the user's cache directory by the log's size and mtime.
    #[command(
        after_help = "Examples:\n  dsh-session statusline\n  dsh-session statusline ~/.dsh/sessions/-home-ana-proj/session-1234/session.v4.jsonl\n  set -g status-right '#(dsh-session statusline --width 60)'   # tmux\n\nExit codes:\n  0  the line was printed\n  2  usage error, no session log found, or the session could not be read"
    )]
    Statusline(StatuslineArgs),

    /// Print what happens in a live log as it is appended: turns, tool calls, findings.
    ///
    /// Reads a plain or zstd JSONL log, a session of a SQLite store, a session directory
    /// (switching to a higher generation when DSH migrates it) or a JSONL root (every
    /// session, new ones included). At start one line sums up the log so far
    /// (--from-start prints every happening instead); then what is said (one line per
    /// message, --no-text to leave out, --reasoning to add), each new turn start and end
    /// (reason, tokens, duration), tool call and result, replacement and finding is printed
    /// the moment its record lands. A torn line in flight is waited for (--settle); a file
    /// that shrinks or is replaced is read again from the start. Runs until Ctrl-C or SIGTERM.
    #[command(
        after_help = "Examples:\n  dsh-session follow ~/.dsh/sessions/--home-ana-proj--/5c40.../session.v4.jsonl.zstd\n  dsh-session follow ~/.dsh/sessions                     # every session, new ones too\n  dsh-session follow --exit-on-finding --format jsonl session.jsonl   # in CI\n\nExit codes:\n  0  stopped by Ctrl-C or SIGTERM (after a summary), or the output pipe closed\n  1  with --exit-on-finding: a corrupt or refused finding\n  2  usage error, or the log could not be read"
    )]
    Follow(FollowArgs),

    /// List every rule id with its meaning and FORMAT.md section, or explain one (rules ID).
    #[command(
        after_help = "Examples:\n  dsh-session rules P3\n  dsh-session rules --format json | jq '.[] | select(.class == \"refused\")'"
    )]
    Rules(RulesArgs),

    /// Print a man page (roff): dsh-session(1), or one per subcommand
    /// (dsh-session-validate(1) …); `--dir` writes them all.
    #[command(
        after_help = "Examples:\n  dsh-session man | man -l -\n  dsh-session man validate | man -l -\n  dsh-session man --dir ~/.local/share/man/man1"
    )]
    Man(ManArgs),

    /// Print a shell completion script.
    #[command(
        after_help = "Example:\n  dsh-session completions bash > ~/.local/share/bash-completion/completions/dsh-session"
    )]
    Completions(CompletionsArgs),
}

impl Command {
    /// The one log a command reads (`FILE`), for the commands that take one; `None` for
    /// the others. `main` turns a session directory given there into its current log.
    pub fn log_file_mut(&mut self) -> Option<&mut PathBuf> {
        match self {
            Command::Surface(a) => Some(&mut a.file),
            Command::Messages(a) => Some(&mut a.file),
            Command::Show(a) => Some(&mut a.log.file),
            Command::Repair(a) => Some(&mut a.file),
            Command::Recover(a) => Some(&mut a.file),
            Command::Fork(a) => Some(&mut a.file),
            Command::Trim(a) => Some(&mut a.file),
            Command::Provenance(a) => Some(&mut a.file),
            Command::Replacements(a) => Some(&mut a.file),
            Command::Version(a) => Some(&mut a.file),
            // A site walks its paths as `validate` does.
            Command::Export(a) if a.format != ExportFormat::Site => Some(&mut a.file),
            _ => None,
        }
    }
}

/// A provider profile: which provider-readiness rules (P*) make a log fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[cfg_attr(
    feature = "mcp",
    derive(serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "lowercase")
)]
pub enum ProviderName {
    /// Anthropic Messages API: P1, P2, P3, P5, P6, P7.
    Anthropic,
    /// OpenAI chat completions and OpenAI-compatible gateways: P1, P2, P3, P5.
    Openai,
    /// DeepSeek, DSH's default provider (OpenAI-compatible plus thinking mode): P1-P5.
    Deepseek,
}

impl ProviderName {
    /// The library's profile.
    pub fn profile(self) -> dsh_session::provider::Provider {
        use dsh_session::provider::Provider;
        match self {
            ProviderName::Anthropic => Provider::Anthropic,
            ProviderName::Openai => Provider::Openai,
            ProviderName::Deepseek => Provider::Deepseek,
        }
    }
}

/// Formats for commands that print a list of verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// Human-readable lines.
    Text,
    /// One JSON array.
    Json,
    /// One JSON object per line.
    Jsonl,
    /// GitHub Actions workflow commands: `::error` for corrupt and refused logs,
    /// `::warning` for torn tails and warnings.
    Github,
}

/// Formats for commands that print a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    /// A text table that fits the terminal (`table` is an alias).
    #[value(alias = "table")]
    Text,
    /// One JSON value.
    Json,
    /// One JSON object per line.
    Jsonl,
}

/// Formats for `messages`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MessageFormat {
    /// One JSON array of messages.
    Json,
    /// One message per line.
    Jsonl,
}
