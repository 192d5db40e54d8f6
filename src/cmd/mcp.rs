//! `mcp`: serve the sessions to an agent over the Model Context Protocol (issue 30); the
//! server is [`crate::mcp`]. Built with the cargo feature `mcp` (on by default); without
//! it, `mcp` says so and exits 2.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::McpArgs;

/// Runs `mcp` until the client closes standard input.
#[cfg(feature = "mcp")]
pub fn run(args: &McpArgs) -> Result<ExitCode> {
    crate::mcp::serve(args)
}

/// Runs `mcp`: this build has no MCP server.
#[cfg(not(feature = "mcp"))]
pub fn run(_: &McpArgs) -> Result<ExitCode> {
    anyhow::bail!(
        "this dsh-session was built without the MCP server (cargo feature `mcp`): build it with `cargo install dsh-session` (the feature is on by default) or `--features mcp`"
    )
}
