//! `ReadMcpResource`: the model reads a resource of an MCP server (`server`, `uri`):
//! text parts returned, binary parts described (MIME type, size), never inlined. Its
//! calls pass the permission gate as `ReadMcpResource(server:uri)`.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::rules::permission::CallSubject;
use smallebot_mcp::McpServers;

use super::call_view::CallView;
use super::typed::TypedTool;

/// Reads a resource of an MCP server.
pub struct ReadMcpResource {
    servers: Arc<McpServers>,
    /// The servers that offer resources, named in the description.
    offering: Vec<String>,
}

impl ReadMcpResource {
    /// The name the model calls it by.
    pub const NAME: &'static str = "ReadMcpResource";

    /// The tool over `servers`, when one of them offers resources.
    #[must_use]
    pub fn new(servers: Arc<McpServers>) -> Option<Self> {
        let offering = servers.servers_with_resources();
        (!offering.is_empty()).then_some(Self { servers, offering })
    }
}

/// `ReadMcpResource`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadMcpResourceArgs {
    /// The MCP server's name, as in mcp.json.
    pub server: String,
    /// The resource's URI, as the server lists it (or filled in from one of its
    /// templates), e.g. 'note://readme'.
    pub uri: String,
}

#[async_trait]
impl TypedTool for ReadMcpResource {
    type Args = ReadMcpResourceArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn description(&self) -> String {
        format!(
            "Read a resource of an MCP server by its URI. Servers with resources: {}. \
             Text is returned; binary contents are described (type, size), not shown.",
            self.offering.join(", ")
        )
    }

    fn permission(&self, args: &ReadMcpResourceArgs) -> Result<CallView, ToolOutcome> {
        Ok(CallView::new(CallSubject::resource(
            Self::NAME,
            &args.server,
            &args.uri,
        )))
    }

    async fn run(&self, args: ReadMcpResourceArgs, context: &ToolContext) -> ToolOutcome {
        let read = tokio::select! {
            read = self.servers.read_resource(&args.server, &args.uri) => read,
            () = context.cancel.cancelled() => {
                return ToolOutcome {
                    content: "[cancelled; the resource read was abandoned]".to_owned(),
                    status: ToolCallStatus::Cancelled,
                };
            }
        };
        match read {
            Ok(parts) if parts.is_empty() => ToolOutcome::ok(format!("{} is empty", args.uri)),
            Ok(parts) => ToolOutcome::ok(
                parts
                    .iter()
                    .map(smallebot_mcp::McpResourceContents::describe)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            Err(error) => ToolOutcome::error(format!("Error: {error}")),
        }
    }
}
