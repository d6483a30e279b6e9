//! The MCP servers each user sees, and connecting one with the user's own sign-in
//! (`GET /api/mcp/servers`, `POST /api/mcp/servers/{name}/connect`, the OAuth redirect
//! back to `GET /api/mcp/callback`).

use async_trait::async_trait;
use smallebot_protocol::api::McpServerList;

/// Why a server could not be connected from the page.
#[derive(Debug, thiserror::Error)]
pub enum McpConnectError {
    /// No enabled server has that name.
    #[error("no enabled MCP server is called '{0}' in mcp.json")]
    UnknownServer(String),
    /// The server is not signed in to with OAuth.
    #[error(
        "MCP server '{0}' is not signed in to with OAuth, so there is nothing to connect: \
         give it \"auth\": {{\"type\": \"oauth\"}} in mcp.json"
    )]
    NoSignIn(String),
    /// A server every user shares: the operator signs in to it, users cannot.
    #[error(
        "MCP server '{0}' is shared by every user and signed in to by the operator \
         (`smallebot mcp login {0}` on the server); give it \"perUser\": true in mcp.json \
         for each user to connect their own account"
    )]
    Shared(String),
    /// The redirect names no sign-in under way (unknown, used, or too old).
    #[error(
        "this sign-in link is unknown, already used or older than 10 minutes: press \
         Connect again"
    )]
    UnknownState,
    /// The redirect came to a browser other than the one that started the sign-in (or
    /// to no browser that started one): finishing it would store someone else's
    /// account under the user who pressed Connect.
    #[error(
        "this sign-in was started in another browser (or by another user): press Connect \
         on SmallEBot's page in this browser and sign in from there"
    )]
    OtherBrowser,
    /// Sign-ins cannot be stored here (the operator's key is missing or unusable, or the
    /// store failed).
    #[error("{0}")]
    Unavailable(String),
    /// Discovery, registration, the exchange or storing the sign-in failed.
    #[error("{0}")]
    Failed(String),
}

/// The MCP servers of each user, and their sign-ins made on the page.
#[async_trait]
pub trait UserMcpServers: Send + Sync {
    /// The enabled servers as `user` sees them.
    async fn servers(&self, user: &str) -> McpServerList;

    /// Starts `user`'s sign-in to `server` (PKCE, the `resource` indicator): the
    /// authorization URL to open, which comes back to `redirect_uri`. `browser` is the
    /// digest of a secret only the browser that asked holds; the redirect must come
    /// back to that browser ([`UserMcpServers::finish`]).
    ///
    /// # Errors
    /// An unknown server, one without OAuth, or discovery or registration failed.
    async fn connect(
        &self,
        user: &str,
        server: &str,
        redirect_uri: &str,
        browser: &str,
    ) -> Result<String, McpConnectError>;

    /// Finishes the sign-in the redirect's `state` names with its `code`, when
    /// `browser` (the digest of the secret the redirected browser holds) is the one
    /// the sign-in started with: the tokens stored sealed for that user, the server
    /// connected. Whose and which server. A sign-in reached from another browser is
    /// dropped, never finished.
    ///
    /// # Errors
    /// An unknown `state`, another browser, or the exchange or the store failed.
    async fn finish(
        &self,
        state: &str,
        code: &str,
        browser: Option<&str>,
    ) -> Result<(String, String), McpConnectError>;
}
