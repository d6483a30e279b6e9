//! `smallebot mcp list` and `smallebot mcp tools [SERVER]`: the servers of mcp.json are
//! started (as a conversation would start them), described, and stopped.

use smallebot_agent::assembly::Home;
use smallebot_agent::config::MCP_FILE;
use smallebot_mcp::McpServers;

use crate::cli::McpCommand;
use crate::error::HostError;
use crate::wiring;
use smallebot_terminal::mcp_status::{pin_warnings, status_lines};

/// Runs one `mcp` subcommand.
pub async fn run(home: &Home, command: McpCommand) -> Result<(), HostError> {
    let servers = wiring::start_mcp(home).await?;
    let pins = pin_warnings(home.root(), &servers);
    for warning in servers.warnings().iter().chain(&pins) {
        errln!("warning: {warning}");
    }
    let result = match command {
        McpCommand::List => print_status(home, &servers).await,
        McpCommand::Tools { server } => print_tools(&servers, server.as_deref()).await,
    };
    servers.shutdown().await;
    result
}

/// Says how each server is doing, or where to add servers when there are none.
async fn print_status(home: &Home, servers: &McpServers) -> Result<(), HostError> {
    let status = servers.status().await;
    if status.is_empty() {
        outln!(
            "no MCP servers: add them to {} (docs/configuration.md)",
            home.root().join(MCP_FILE).display()
        )?;
    }
    for line in status_lines(&status) {
        outln!("{line}")?;
    }
    Ok(())
}

/// The tools of `server` (or all), one per line with its description.
async fn print_tools(servers: &McpServers, server: Option<&str>) -> Result<(), HostError> {
    if let Some(name) = server
        && !servers.status().await.iter().any(|s| s.name == name)
    {
        return Err(HostError::UnknownMcpServer(name.to_owned()));
    }
    for (owner, name, description) in servers.tool_list() {
        if server.is_none_or(|s| s == owner) {
            outln!("{name}  {description}")?;
        }
    }
    Ok(())
}
