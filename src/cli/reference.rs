//! Arguments of the commands about dsh-session itself: `version`, `rules`, `man`, `completions`.

use std::path::PathBuf;

use clap::Args;

use super::TableFormat;

/// Arguments of `version`.
pub type VersionArgs = super::LogArgs;

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
