//! Sign-ins to MCP servers (`migrations/0021_mcp_credentials.sql`), sealed by the MCP
//! client: a normal write each (a sign-in or a token refresh), read on the readers.

use async_trait::async_trait;
use smallebot_core::entities::McpCredential;
use smallebot_core::repository::{McpCredentialRepository, RepoResult};

use crate::database::SqliteStore;
use crate::write::{McpCredentialWrite, Write};
use crate::{queries, rows};

#[async_trait]
impl McpCredentialRepository for SqliteStore {
    async fn mcp_credential(&self, user: &str, server: &str) -> RepoResult<Option<McpCredential>> {
        const ACTION: &str = "reading a sign-in to an MCP server";
        let params = (user.to_owned(), server.to_owned());
        self.readers()
            .read(ACTION, move |conn| {
                queries::first(
                    conn,
                    ACTION,
                    concat!(
                        "SELECT ",
                        smallebot_core::mcp_credential_columns!(),
                        " FROM mcp_credentials WHERE user_name = ?1 AND server = ?2"
                    ),
                    params.clone(),
                    rows::mcp_credential,
                )
            })
            .await
    }

    async fn save_mcp_credential(&self, credential: &McpCredential) -> RepoResult<()> {
        let credential = credential.clone();
        self.writer()
            .run(|reply| Write::McpCredential(McpCredentialWrite::Save { credential, reply }))
            .await
    }

    async fn delete_mcp_credential(&self, user: &str, server: &str) -> RepoResult<bool> {
        let (user, server) = (user.to_owned(), server.to_owned());
        self.writer()
            .run(|reply| {
                Write::McpCredential(McpCredentialWrite::Delete {
                    user,
                    server,
                    reply,
                })
            })
            .await
    }

    async fn mcp_credentials_of(&self, user: &str) -> RepoResult<Vec<McpCredential>> {
        const ACTION: &str = "listing sign-ins to MCP servers";
        let user = user.to_owned();
        self.readers()
            .read(ACTION, move |conn| {
                queries::all(
                    conn,
                    ACTION,
                    concat!(
                        "SELECT ",
                        smallebot_core::mcp_credential_columns!(),
                        " FROM mcp_credentials WHERE user_name = ?1 ORDER BY server"
                    ),
                    [user.clone()],
                    rows::mcp_credential,
                )
            })
            .await
    }
}
