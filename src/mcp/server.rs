//! The MCP side: the tools as the official Rust SDK (`rmcp`) routes them, each run on a
//! blocking thread ([`super::tools`], [`super::pages`]) and answered as JSON text, or as a tool error result
//! (`isError`) in the words the command line would use. No failure of a tool ends the
//! server or reaches the protocol as anything but a result.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, Result};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};

use super::pages::{self, Histories};
use super::tools::{self, Context};
use crate::cli::McpArgs;

/// What a client is told about the server when it connects.
const INSTRUCTIONS: &str = "Reads DeepSeek Harness (DSH) session logs: an agent's own past sessions. \
Find a session with list_sessions (newest first) or search (full-text, with a seq per hit); \
read it with show (summary, turns, usage), messages (the derived message history, or a range \
of it by seq or turn, cut to about 100 KB with the next range to ask for), get_message (one \
message by seq, as a search hit names it), validate (whether \
DSH and a provider would accept the log) and provenance (where an event came from and what \
cites it). Sessions are named by id or a unique prefix of it. Nothing here changes a log.";

/// The server: the context every call shares, the derived histories `messages` pages
/// through, and the tool routes.
#[derive(Clone)]
pub struct Server {
    context: Arc<Context>,
    histories: Arc<Histories>,
    tool_router: ToolRouter<Self>,
}

impl Server {
    fn new(context: Context) -> Server {
        Server {
            context: Arc::new(context),
            histories: Arc::default(),
            tool_router: Self::tool_router(),
        }
    }

    /// Runs `work` on a blocking thread: its text is the result, its error a tool error.
    async fn answer(
        &self,
        work: impl FnOnce(&Context) -> Result<String> + Send + 'static,
    ) -> Result<CallToolResult, ErrorData> {
        let context = Arc::clone(&self.context);
        let done = tokio::task::spawn_blocking(move || work(&context)).await;
        Ok(match done {
            // The object as `structuredContent` (its tool's `outputSchema` describes it),
            // and the same JSON as text for clients that read only text.
            Ok(Ok(text)) => match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(value @ serde_json::Value::Object(_)) => {
                    let mut result = CallToolResult::structured(value);
                    result.content = vec![ContentBlock::text(text)];
                    result
                }
                _ => CallToolResult::success(vec![ContentBlock::text(text)]),
            },
            Ok(Err(e)) => CallToolResult::error(vec![ContentBlock::text(crate::in_our_words(&e))]),
            // A panic (the hook has said where on standard error): the server goes on.
            Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
                "internal error in dsh-session ({e}); please report it with the session that caused it"
            ))]),
        })
    }
}

/// The tools, one entry each: what a client is told it does (its doc comment, the tool's
/// description), its name (also its output schema's, in [`super::schemas`]), its parameters
/// and the function answering it (given the context, the histories and the parameters).
/// Each becomes a method of [`Server`] for `rmcp`'s router that runs its function on a
/// blocking thread ([`Server::answer`]).
macro_rules! tools {
    ($(#[doc = $description:tt] $name:ident($params:ty) = $run:expr;)*) => {
        #[tool_router]
        impl Server {
            $(
                #[doc = $description]
                #[tool(output_schema = super::schemas::$name())]
                async fn $name(
                    &self,
                    Parameters(p): Parameters<$params>,
                ) -> Result<CallToolResult, ErrorData> {
                    let histories = Arc::clone(&self.histories);
                    self.answer(move |cx| ($run)(cx, &*histories, p)).await
                }
            )*
        }
    };
}

tools! {
    /// List the sessions, the most recently active first: id, title, project (cwd), created and last activity, turns, events, main model, verdict (status), file. Filters: project, since, until, status; limit (default 50).
    list_sessions(tools::ListSessions) = |cx, _, p| tools::list_sessions(cx, p);
    /// Full-text search over every session's messages (user, assistant, reasoning, tool calls and results, system). Each hit: session, title, seq, turn, role, tool, time and a snippet. Read around a hit with messages (session and a from_seq/to_seq near its seq).
    search(tools::Search) = |cx, _, p| tools::search(cx, p);
    /// A session's summary: header (project, created, parent session), title, models, presets, verdict, counts of events, turns, steps and tool calls, token usage, warnings, and one row per turn (turn number, start and end seq, end reason, steps, tool calls, usage).
    show(tools::SessionName) = |cx, _, p| tools::show(cx, p);
    /// A session's derived message history (what the model was sent), each message with its seq: all of it, or a range by seq (from_seq, to_seq) or by turn (from_turn, to_turn). Cut to max_bytes (default 100000): when cut, `next` is the range to ask for next. A range never parts a tool call from its results: it is widened, and `notes` says so.
    messages(pages::Messages) = pages::messages;
    /// One message of a session by seq (a search hit's seq, or a messages entry's): the derived message as stored, its event type and role, and whether it is on the history or a replace (a compaction, a prune) took it off.
    get_message(tools::GetMessage) = |cx, _, p| tools::get_message(cx, p);
    /// A session's verdict as DSH would load it: valid, torn-tail, corrupt or refused, with the rule, seq and line of a finding, and warnings. With provider (anthropic, openai, deepseek): whether that provider would accept the derived history.
    validate(tools::Validate) = |cx, _, p| tools::validate(cx, p);
    /// Where an event (by seq) came from and what came of it: its ancestors (the events it cites, recursively), its descendants (the events citing it), and the replace that shadowed it, if one did.
    provenance(tools::Provenance) = |cx, _, p| tools::provenance(cx, p);
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "dsh-session",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(INSTRUCTIONS)
    }
}

/// Serves on standard I/O until the client closes it.
///
/// # Errors
/// A `--root` cannot be read, the index cannot be opened, nothing to serve; the client did
/// not initialize the connection.
pub fn serve(args: &McpArgs) -> Result<ExitCode> {
    let context = Context::new(args)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let service = Server::new(context)
            .serve(rmcp::transport::stdio())
            .await
            .context("the MCP client did not initialize the connection")?;
        service.waiting().await.context("the MCP server stopped")?;
        Ok(ExitCode::SUCCESS)
    })
}
