//! `GET /api/mcp/servers`: the MCP servers as the signed-in user sees them — per-user
//! servers (mcp.json's `perUser`) with that user's own sign-in — and
//! `POST /api/mcp/servers/{name}/connect`, which answers where to sign in.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The answer of `GET /api/mcp/servers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpServerList {
    /// The enabled servers of mcp.json, in file order.
    pub servers: Vec<McpServerRow>,
}

/// Where the user stands with one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum McpConnection {
    /// A server without sign-in, connected now.
    Connected,
    /// Signed in (OAuth): a token that works or can be refreshed.
    SignedIn,
    /// The sign-in ended and cannot be refreshed: connect again.
    Expired,
    /// Not connected: never signed in (connect first), or the server did not start.
    NotConnected,
}

/// One server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpServerRow {
    /// Its name in mcp.json (the prefix of its tools, `name__tool`).
    pub name: String,
    /// Whether each user connects it with their own sign-in (mcp.json's `perUser`).
    pub per_user: bool,
    /// Whether the user can connect it from the page (an OAuth server).
    pub sign_in: bool,
    /// Where the user stands with it.
    pub state: McpConnection,
    /// How many tools it offers the user now.
    pub tools: usize,
}

/// The answer of `POST /api/mcp/servers/{name}/connect`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpConnectUrl {
    /// The authorization server's page to open; it comes back to
    /// `GET /api/mcp/callback`, which stores the sign-in and connects the server.
    pub url: String,
}
