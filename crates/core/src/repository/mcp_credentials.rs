//! The MCP sign-ins' repository.

use async_trait::async_trait;

use super::RepoResult;
use crate::entities::McpCredential;

/// Sign-ins to remote MCP servers, one per user and server, sealed by the MCP client.
/// A sign-in is stored when a person signs in and again at each token refresh: a
/// normal write.
#[async_trait]
pub trait McpCredentialRepository: Send + Sync {
    /// `user`'s sign-in to `server`, if any.
    async fn mcp_credential(&self, user: &str, server: &str) -> RepoResult<Option<McpCredential>>;

    /// Stores `credential`, replacing the user's earlier one for that server.
    async fn save_mcp_credential(&self, credential: &McpCredential) -> RepoResult<()>;

    /// Removes `user`'s sign-in to `server`; whether there was one.
    async fn delete_mcp_credential(&self, user: &str, server: &str) -> RepoResult<bool>;

    /// Every sign-in of `user`, by server name.
    async fn mcp_credentials_of(&self, user: &str) -> RepoResult<Vec<McpCredential>>;
}
