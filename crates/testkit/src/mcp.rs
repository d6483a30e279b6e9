//! A small MCP server for tests, built with the same SDK as the client: tools that
//! echo, sleep, fail, report the environment, return a large result or an image, crash
//! the process, and one
//! marked destructive, and one (`grow`) that adds a tool and announces the change; two
//! resources (text [`README_URI`] and a PNG [`PIXEL_URI`]), the template `note://{name}`
//! and the prompt `review` (`topic` required, `tone` optional); `ask` and `sample`
//! ask the client during the call (elicitation, sampling: `mcp_asking.rs`). Served over stdio ([`serve_stdio`], for a test binary started as
//! the server) or streamable HTTP ([`serve_http`], in the test's own process).
//!
//! With [`TOOLSET_ENV`] set to `colliding` the server offers `same.name` and
//! `same_name`, which clash once sanitized.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::ErrorData;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{
    Peer, RoleServer, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router,
};
use tokio_util::sync::CancellationToken;

use crate::mcp_catalog;
pub use crate::mcp_catalog::{PIXEL_URI, README_TEXT, README_URI};

/// The environment variable choosing the tool set (`colliding` for the clashing one).
pub const TOOLSET_ENV: &str = "SMALLEBOT_MCP_TOOLS";

/// The environment variable that makes a test binary act as the stdio server.
pub const SERVE_ENV: &str = "SMALLEBOT_MCP_TEST_SERVER";

/// The environment variable naming a file the stdio server writes its process id to
/// when it starts (for tests that check it does not outlive its host).
pub const PID_FILE_ENV: &str = "SMALLEBOT_MCP_PID_FILE";

/// The environment variable naming a file the `sleep` tool writes when it starts (a
/// gate for tests that need a call in progress).
pub const SLEEP_FILE_ENV: &str = "SMALLEBOT_MCP_SLEEP_FILE";

/// A one-pixel PNG, base64.
pub const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// `echo` arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// `sleep` arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct SleepArgs {
    /// How long, in milliseconds.
    pub ms: u64,
}

/// `large` arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct LargeArgs {
    /// How many characters.
    pub chars: usize,
}

/// `remove` arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct RemoveArgs {
    /// What to pretend to remove.
    pub path: String,
}

/// The test server's tools; `grow` adds `late` and announces the change.
#[derive(Debug, Clone, Default)]
pub struct TestServer {
    grown: Arc<AtomicBool>,
}

impl TestServer {
    /// The tools offered now.
    fn router(&self) -> ToolRouter<Self> {
        let mut router = Self::tool_router() + Self::asking_router();
        if self.grown.load(Ordering::SeqCst) {
            router += Self::late_router();
        }
        router
    }
}

#[tool_router(router = late_router)]
impl TestServer {
    /// Only there after `grow`.
    #[tool(description = "A tool added while running")]
    fn late(&self) -> String {
        "late tool".to_owned()
    }
}

#[tool_router]
impl TestServer {
    /// Adds the tool `late` and tells the client that the list changed.
    #[tool(description = "Add a tool and announce it")]
    async fn grow(&self, peer: Peer<RoleServer>) -> String {
        self.grown.store(true, Ordering::SeqCst);
        match peer.notify_tool_list_changed().await {
            Ok(()) => "grown".to_owned(),
            Err(error) => format!("could not announce: {error}"),
        }
    }

    /// Sends the text back.
    #[tool(description = "Echo the text back")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        format!("echo: {text}")
    }

    /// Waits, then answers.
    #[tool(description = "Sleep for ms milliseconds")]
    async fn sleep(&self, Parameters(SleepArgs { ms }): Parameters<SleepArgs>) -> String {
        if let Some(file) = std::env::var_os(SLEEP_FILE_ENV) {
            let _ = std::fs::write(file, "sleeping");
        }
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        format!("slept {ms} ms")
    }

    /// A tool error.
    #[tool(description = "Always fails")]
    fn fail(&self) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text("the tool failed on purpose")])
    }

    /// The server's own environment, one `NAME=value` line per variable, sorted.
    #[tool(description = "Report the environment")]
    fn env(&self) -> String {
        let mut lines: Vec<String> = std::env::vars_os()
            .map(|(name, value)| format!("{}={}", name.to_string_lossy(), value.to_string_lossy()))
            .collect();
        lines.sort();
        lines.join("\n")
    }

    /// `chars` characters.
    #[tool(description = "Return a large text")]
    fn large(&self, Parameters(LargeArgs { chars }): Parameters<LargeArgs>) -> String {
        "x".repeat(chars)
    }

    /// An image and a caption.
    #[tool(description = "Return an image")]
    fn image(&self) -> CallToolResult {
        CallToolResult::success(vec![
            ContentBlock::text("a pixel"),
            ContentBlock::image(PIXEL_PNG, "image/png"),
        ])
    }

    /// Ends the server process in the middle of the call.
    #[tool(description = "Crash the server")]
    fn crash(&self) -> String {
        std::process::exit(3)
    }

    /// Marked destructive.
    #[tool(
        description = "Pretend to remove a path",
        annotations(destructive_hint = true)
    )]
    fn remove(&self, Parameters(RemoveArgs { path }): Parameters<RemoveArgs>) -> String {
        format!("removed {path}")
    }
}

#[tool_handler(router = self.router())]
impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(mcp_catalog::resources())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(mcp_catalog::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        mcp_catalog::read(request.uri)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(mcp_catalog::prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        mcp_catalog::prompt(&request)
    }
}

/// Tools whose names clash once sanitized.
#[derive(Debug, Clone)]
pub struct CollidingServer {
    tool_router: ToolRouter<Self>,
}

impl Default for CollidingServer {
    fn default() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl CollidingServer {
    /// One name.
    #[tool(name = "same.name", description = "One")]
    fn dotted(&self) -> String {
        "one".to_owned()
    }

    /// The other.
    #[tool(name = "same_name", description = "Two")]
    fn underscored(&self) -> String {
        "two".to_owned()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for CollidingServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Serves on standard input and output until the client goes away.
///
/// # Errors
/// The transport failed.
pub async fn serve_stdio() -> std::io::Result<()> {
    let colliding = std::env::var(TOOLSET_ENV).is_ok_and(|v| v == "colliding");
    let result = if colliding {
        match CollidingServer::default()
            .serve(rmcp::transport::stdio())
            .await
        {
            Ok(running) => running.waiting().await.map(drop),
            Err(error) => return Err(std::io::Error::other(error.to_string())),
        }
    } else {
        match TestServer::default().serve(rmcp::transport::stdio()).await {
            Ok(running) => running.waiting().await.map(drop),
            Err(error) => return Err(std::io::Error::other(error.to_string())),
        }
    };
    result.map_err(|error| std::io::Error::other(error.to_string()))
}

/// When [`SERVE_ENV`] is set: serves over stdio on a fresh runtime and returns `true`
/// (the caller then exits). For test binaries with `harness = false` that double as the
/// stdio server.
#[must_use]
pub fn serve_stdio_if_asked() -> bool {
    if std::env::var_os(SERVE_ENV).is_none() {
        return false;
    }
    if let Some(file) = std::env::var_os(PID_FILE_ENV) {
        // Written beside, then renamed: a test that sees the file reads the whole pid.
        let file = std::path::PathBuf::from(file);
        let mut partial = file.clone().into_os_string();
        partial.push(".partial");
        if std::fs::write(&partial, std::process::id().to_string()).is_ok() {
            let _ = std::fs::rename(&partial, &file);
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build();
    let served = match runtime {
        Ok(runtime) => runtime.block_on(serve_stdio()),
        Err(error) => Err(error),
    };
    if let Err(error) = served {
        eprintln!("mcp test server: {error}");
    }
    true
}

/// One test of a `harness = false` test binary.
pub type TestFn = fn() -> futures::future::BoxFuture<'static, ()>;

/// The `main` of a `harness = false` test binary that doubles as the stdio server:
/// serves when [`SERVE_ENV`] is set, else runs `tests` one after another on a runtime
/// (only those whose name contains an argument, when some are given), printing
/// `test NAME ... ok`. A failing test panics, failing the binary.
///
/// # Panics
/// When the runtime cannot start, or a test fails.
pub fn test_main(tests: &[(&str, TestFn)]) {
    if serve_stdio_if_asked() {
        return;
    }
    #[allow(clippy::expect_used)]
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime for the tests");
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        runtime.block_on(test());
        #[allow(clippy::print_stdout)]
        {
            println!("test {name} ... ok");
        }
    }
}

/// A test server on streamable HTTP at `http://{addr}/mcp`, until `cancel`.
///
/// # Errors
/// The listener could not be bound.
pub async fn serve_http(cancel: CancellationToken) -> std::io::Result<SocketAddr> {
    let service: StreamableHttpService<TestServer, LocalSessionManager> =
        StreamableHttpService::new(
            || Ok(TestServer::default()),
            LocalSessionManager::default().into(),
            StreamableHttpServerConfig::default()
                .with_sse_keep_alive(None)
                .with_cancellation_token(cancel.child_token()),
        );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move { cancel.cancelled_owned().await })
            .await;
    });
    Ok(addr)
}
