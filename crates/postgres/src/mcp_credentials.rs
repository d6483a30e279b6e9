//! Sign-ins to MCP servers (`migrations/0019_mcp_credentials.sql`), sealed by the MCP
//! client: a normal write each (a sign-in or a token refresh), read on the pool.

use async_trait::async_trait;
use smallebot_core::entities::McpCredential;
use smallebot_core::repository::{McpCredentialRepository, RepoResult};

use crate::rows;
use crate::store::PgStore;
use crate::tx::storage;
use crate::write::{Edit, McpCredentialEdit};

#[async_trait]
impl McpCredentialRepository for PgStore {
    async fn mcp_credential(&self, user: &str, server: &str) -> RepoResult<Option<McpCredential>> {
        let found = sqlx::query(concat!(
            "SELECT ",
            smallebot_core::mcp_credential_columns!(),
            " FROM mcp_credentials WHERE user_name = $1 AND server = $2"
        ))
        .bind(user)
        .bind(server)
        .fetch_optional(self.pool())
        .await
        .map_err(storage("reading a sign-in to an MCP server"))?;
        found.as_ref().map(rows::mcp_credential).transpose()
    }

    async fn save_mcp_credential(&self, credential: &McpCredential) -> RepoResult<()> {
        let credential = credential.clone();
        self.edit("storing a sign-in to an MCP server", |reply| {
            Edit::McpCredential(McpCredentialEdit::Save(credential, reply))
        })
        .await
    }

    async fn delete_mcp_credential(&self, user: &str, server: &str) -> RepoResult<bool> {
        let (user, server) = (user.to_owned(), server.to_owned());
        self.edit("removing a sign-in to an MCP server", |reply| {
            Edit::McpCredential(McpCredentialEdit::Delete(user, server, reply))
        })
        .await
    }

    async fn mcp_credentials_of(&self, user: &str) -> RepoResult<Vec<McpCredential>> {
        let found = sqlx::query(concat!(
            "SELECT ",
            smallebot_core::mcp_credential_columns!(),
            " FROM mcp_credentials WHERE user_name = $1 ORDER BY server"
        ))
        .bind(user)
        .fetch_all(self.pool())
        .await
        .map_err(storage("listing sign-ins to MCP servers"))?;
        found.iter().map(rows::mcp_credential).collect()
    }
}
