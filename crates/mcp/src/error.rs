//! Why signing in to a remote MCP server failed.

use crate::settings::TOKEN_KEY_ENV;

/// What went wrong signing in to a server, storing its sign-in, or reading it back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpAuthError {
    /// The sealing key is not configured.
    #[error(
        "MCP sign-ins are stored encrypted, and the key is not set: set {TOKEN_KEY_ENV} to 32 \
         random bytes in base64 (openssl rand -base64 32) and keep it; see \
         docs/configuration.md"
    )]
    NoKey,
    /// The sealing key is not a key.
    #[error(
        "{TOKEN_KEY_ENV} is not a usable key: {0}; it must be 32 random bytes in base64 \
         (openssl rand -base64 32)"
    )]
    Key(String),
    /// Sealing failed.
    #[error("could not encrypt the MCP sign-in: {0}")]
    Seal(String),
    /// A stored sign-in does not open (another key, or altered).
    #[error(
        "the stored sign-in of user '{user}' to MCP server '{server}' cannot be decrypted \
         ({TOKEN_KEY_ENV} changed, or the row was altered); sign in again with \
         `smallebot mcp login {server}`"
    )]
    Open {
        /// Whose sign-in.
        user: String,
        /// To which server.
        server: String,
    },
    /// The store failed.
    #[error("the store of MCP sign-ins failed: {0}")]
    Store(String),
    /// The server is not one a person signs in to.
    #[error(
        "MCP server '{0}' is not configured for OAuth sign-in: give it \
         \"auth\": {{\"type\": \"oauth\"}} in mcp.json"
    )]
    NotOAuth(String),
    /// The OAuth exchange failed.
    #[error("signing in to MCP server '{server}' failed: {reason}")]
    SignIn {
        /// The server.
        server: String,
        /// What the SDK or the authorization server said.
        reason: String,
    },
    /// No redirect came back in time.
    #[error(
        "signing in to MCP server '{server}' timed out after {seconds} s waiting for the \
         browser to come back to {redirect}; run `smallebot mcp login {server}` again"
    )]
    Timeout {
        /// The server.
        server: String,
        /// How long it waited.
        seconds: u64,
        /// The loopback address it listened on.
        redirect: String,
    },
}
