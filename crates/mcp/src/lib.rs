//! Model Context Protocol servers as tool providers, through the official SDK (`rmcp`):
//! the servers of mcp.json start in parallel ([`McpServers::start`]), each within its
//! startup timeout; one that fails leaves its tools out and a warning, never blocks.
//! Each tool joins the registry as [`McpTool`] named `{server}__{tool}`; a call checks
//! its arguments against the tool's schema, asks first when the tool is destructive
//! (or `confirm` says so), and restarts a server that stopped. Their resources, resource
//! templates and prompts are listed, read and got through [`McpServers`] too.

mod catalog;
mod client;
mod connect;
mod connection;
mod content;
mod http_client;
mod names;
mod process;
mod requests;
mod schema;
mod settings;
mod start;
mod tool;

pub use catalog::{
    McpPrompt, McpPromptArgument, McpPromptMessage, McpPromptRole, McpRequestError, McpResource,
    McpResourceContents, McpResourceTemplate,
};
pub use settings::{McpServerSettings, McpSettings, McpTransport};
pub use start::{McpServerStatus, McpServers, McpStartError};
pub use tool::McpTool;
