//! How the MCP servers are shown, by `smallebot mcp list` and the REPL's `/mcp`, and
//! the pinned tools no server offers.

use std::path::Path;

use smallebot_agent::config::AgentSettings;
use smallebot_mcp::{McpServerStatus, McpServers};

/// A warning for each agent.json `mcp.pinnedTools` entry of the home `home` that none
/// of `servers` offers (or one saying why the pins could not be read).
pub fn pin_warnings(home: &Path, servers: &McpServers) -> Vec<String> {
    match AgentSettings::load(home) {
        Ok(settings) => servers.pin_warnings(&settings.mcp.pinned),
        Err(error) => vec![format!("the pinned MCP tools are not checked: {error}")],
    }
}

/// One line per server: `name  running  3 tools` (the sign-in of an OAuth server:
/// `signed in`, `expired`, `not signed in`; and the last error).
pub fn status_lines(status: &[McpServerStatus]) -> Vec<String> {
    status
        .iter()
        .map(|s| {
            let state = match (s.enabled, s.running) {
                (false, _) => "disabled",
                (true, true) => "running",
                (true, false) => "not running",
            };
            let mut line = format!("{}  {state}  {} tool(s)", s.name, s.tools);
            if let Some(sign_in) = s.sign_in {
                line.push_str(&format!("  {}", sign_in.label()));
            }
            if let Some(error) = &s.last_error {
                line.push_str(&format!("  last error: {error}"));
            }
            line
        })
        .collect()
}
