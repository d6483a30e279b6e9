//! An MCP server with many tools, for tests of tools loaded on demand: `count` tools
//! named `tool_000`, `tool_001`, …, each described as an operation of one of ten
//! services ("Operation 7 of the weather service: …"), each taking a `value` string
//! and answering `tool_NNN ran with {arguments}`. Served over streamable HTTP in the
//! test's own process ([`serve_many_http`]).

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;

/// The services the tools' descriptions name, in turn.
pub const SERVICES: [&str; 10] = [
    "weather", "calendar", "billing", "mail", "storage", "search", "maps", "music", "photos",
    "notes",
];

/// The name of the `index`th tool.
#[must_use]
pub fn many_tool_name(index: usize) -> String {
    format!("tool_{index:03}")
}

/// A server with `count` generated tools.
#[derive(Debug, Clone)]
pub struct ManyToolsServer {
    tools: Arc<Vec<Tool>>,
}

impl ManyToolsServer {
    /// The server and its `count` tools.
    #[must_use]
    pub fn new(count: usize) -> Self {
        let tools = (0..count)
            .map(|index| {
                let service = SERVICES[index % SERVICES.len()];
                let schema = serde_json::json!({
                    "type": "object",
                    "properties": {
                        "value": {
                            "type": "string",
                            "description": format!("What operation {index} works on"),
                        }
                    },
                });
                let schema = match schema {
                    serde_json::Value::Object(map) => map,
                    _ => serde_json::Map::new(),
                };
                Tool::new(
                    many_tool_name(index),
                    format!(
                        "Operation {index} of the {service} service: does one {service} \
                         thing with a value"
                    ),
                    schema,
                )
            })
            .collect();
        Self {
            tools: Arc::new(tools),
        }
    }
}

impl ServerHandler for ManyToolsServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let text = format!("{} ran with {arguments}", request.name);
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// A server of `count` tools on streamable HTTP at `http://{addr}/mcp`, until `cancel`.
///
/// # Errors
/// The listener could not be bound.
pub async fn serve_many_http(
    count: usize,
    cancel: CancellationToken,
) -> std::io::Result<SocketAddr> {
    let server = ManyToolsServer::new(count);
    let service: StreamableHttpService<ManyToolsServer, LocalSessionManager> =
        StreamableHttpService::new(
            move || Ok(server.clone()),
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
