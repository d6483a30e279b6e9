//! What the client is told to start: the servers of mcp.json as the agent's
//! configuration read them (the file format, its defaults and its errors live there).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// How the agent reaches one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process spoken to over its standard input and output.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables (references resolved).
        env: BTreeMap<String, String>,
        /// The directory it starts in (default: the host's).
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint URL.
        url: String,
        /// Headers sent with every request (references resolved).
        headers: BTreeMap<String, String>,
    },
}

/// One server of mcp.json.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerSettings {
    /// Its name: the prefix of its tools (`{name}__{tool}`).
    pub name: String,
    /// How it is reached.
    pub transport: McpTransport,
    /// `enabled`: whether it is started (default true).
    pub enabled: bool,
    /// `startupTimeoutSeconds`: how long starting and listing its tools may take.
    pub startup_timeout: Duration,
    /// `toolTimeoutSeconds`: how long one call may take.
    pub tool_timeout: Duration,
    /// `confirm`: `Some(true)` asks before every call, `Some(false)` never asks,
    /// `None` asks for tools the server marks destructive.
    pub confirm: Option<bool>,
    /// `maxResultMegabytes`: the largest message the server may send (a tool result
    /// as JSON on the wire), in bytes; a larger one fails the call at once, naming it.
    pub max_message_bytes: usize,
}

/// Everything mcp.json configures.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpSettings {
    /// The servers, in file order.
    pub servers: Vec<McpServerSettings>,
}

impl McpSettings {
    /// The servers to start.
    pub fn enabled(&self) -> impl Iterator<Item = &McpServerSettings> {
        self.servers.iter().filter(|s| s.enabled)
    }
}
