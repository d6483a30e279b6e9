//! How the MCP servers are shown, by `smallebot mcp list` and the REPL's `/mcp`.

use smallebot_mcp::McpServerStatus;

/// One line per server: `name  running  3 tools` (and the last error).
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
            if let Some(error) = &s.last_error {
                line.push_str(&format!("  last error: {error}"));
            }
            line
        })
        .collect()
}
