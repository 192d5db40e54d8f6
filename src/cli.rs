//! Command-line definitions. Every flag is documented here, once: `--help`, the man page
//! and the shell completions all come from these doc comments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[path = "cli_lineage.rs"]
pub mod lineage;
pub use lineage::{ForkArgs, TrimArgs};

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
    /// When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(
        long,
        value_enum,
        global = true,
        default_value_t = ColorChoice::Auto,
        hide_possible_values = true,
        hide_default_value = true,
        help_heading = "Global options",
        display_order = 900
    )]
    pub color: ColorChoice,

    /// Also print the cause chain of an error.
    #[arg(
        short,
        long,
        global = true,
        help_heading = "Global options",
        display_order = 901
    )]
    pub verbose: bool,

    /// Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as
    /// it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are
    /// migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules
    /// F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and
    /// v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as
    /// the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full
    /// version (0.1.1-rc.2, 0.2.1-alpha.2) names its line.
    #[arg(
        long,
        global = true,
        value_name = "LINE",
        value_parser = parse_dsh,
        help_heading = "Global options",
        display_order = 902
    )]
    pub dsh: Option<dsh_session::edge::DshLine>,

    /// Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log's
    /// `cwd` is absolute on one and not the other (`C:\DEV\proj` only on Windows: H8).
    /// Default: the platform that wrote each log, as its `cwd` shows.
    #[arg(
        long,
        global = true,
        value_name = "PLATFORM",
        value_parser = parse_platform,
        help_heading = "Global options",
        display_order = 903
    )]
    pub platform: Option<dsh_session::edge::Platform>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
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
            Command::Show(a) => Some(&mut a.file),
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

/// Arguments of `show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
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

/// Arguments of `version`.
#[derive(Debug, Args)]
pub struct VersionArgs {
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

/// Arguments of `rules`.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// One rule to explain (`J5`, `P3`): its section, class, meaning, an example message
    /// and what to do; or why no file makes this reader report it.
    #[arg(value_name = "ID")]
    pub id: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Text)]
    pub format: TableFormat,
}

/// Arguments of `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (dsh-session-COMMAND(1)); the main page when
    /// absent.
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,

    /// Write every page (dsh-session.1 and dsh-session-COMMAND.1) into this directory
    /// instead of printing one.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
}

/// Arguments of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
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
