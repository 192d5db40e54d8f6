//! The Model Context Protocol server on standard I/O (issue 30), so that an agent can look
//! back at its own sessions: list them, search them, read a summary, a range of the
//! derived history, one message, the verdict and an event's provenance.
//!
//! Every tool answers with what the CLI computes — the index's rows
//! ([`dsh_session::sessions::Row`], the search hits of [`crate::render::search`]) or a
//! command run into a buffer (`show`, `validate`, `provenance --format json`) — so the
//! server holds no second reading of a log. What only it does is page through the derived
//! history ([`pages`]): a session's history is derived once per revision of its log and
//! kept for the pages after the first. Read-only: nothing here writes a log (the index, a
//! cache, is brought up to date before each call as `search` does). Standard output
//! carries only protocol messages; whatever a command says on standard error stays there.
//!
//! Built with the cargo feature `mcp` (the official Rust SDK `rmcp` and `tokio`).

mod pages;
mod schemas;
mod server;
mod tools;

pub use server::serve;
