//! A person's sign-in to a remote MCP server: the OAuth client and tokens, sealed
//! (encrypted and authenticated) by the MCP client before they reach the store, which
//! never sees them in the clear.

use crate::time::Timestamp;

/// One user's sealed sign-in to one MCP server (mcp.json's name).
#[derive(Clone, PartialEq, Eq)]
pub struct McpCredential {
    /// Whose sign-in it is.
    pub user_name: String,
    /// The server's name in mcp.json.
    pub server: String,
    /// The sealed credentials, base64: opaque bytes only the MCP client can open.
    pub sealed: String,
    /// When they were last stored (a sign-in or a refresh).
    pub updated_at: Timestamp,
}

impl std::fmt::Debug for McpCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Sealed, but still nothing to print: only its size.
        f.debug_struct("McpCredential")
            .field("user_name", &self.user_name)
            .field("server", &self.server)
            .field("sealed_chars", &self.sealed.len())
            .field("updated_at", &self.updated_at)
            .finish()
    }
}
