//! `mcp`: a Model Context Protocol server on standard I/O (issue 30), so that an agent can
//! look back at its own sessions: list them, search them, read a summary, a range of the
//! derived history, the verdict and an event's provenance.
//!
//! Every tool answers with what a command already computes — the index's rows
//! (`sessions ROOT`, `search --format json`) or a command run into a buffer (`show`,
//! `validate`, `provenance --format json`) — so the server holds no second reading of a
//! log. The one thing only it does is page through the derived history
//! ([`dsh_session::replay::window`]). Read-only: nothing here writes a log (the index, a
//! cache, is brought up to date before each call as `search` does). Standard output
//! carries only protocol messages; whatever a command says on standard error stays there.
//!
//! Built with the cargo feature `mcp` (on by default: the official Rust SDK `rmcp` and
//! `tokio`); without it, `mcp` says so and exits 2.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::McpArgs;

#[cfg(feature = "mcp")]
mod schemas;
#[cfg(feature = "mcp")]
mod server;
#[cfg(feature = "mcp")]
mod tools;

/// Runs `mcp` until the client closes standard input.
#[cfg(feature = "mcp")]
pub fn run(args: &McpArgs) -> Result<ExitCode> {
    server::run(args)
}

/// Runs `mcp`: this build has no MCP server.
#[cfg(not(feature = "mcp"))]
pub fn run(_: &McpArgs) -> Result<ExitCode> {
    anyhow::bail!(
        "this dsh-session was built without the MCP server (cargo feature `mcp`): build it with `cargo install dsh-session` (the feature is on by default) or `--features mcp`"
    )
}
