//! How the MCP servers are shown, by `smallebot mcp list` and the REPL's `/mcp`.

use smallebot_mcp::McpServerStatus;

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
