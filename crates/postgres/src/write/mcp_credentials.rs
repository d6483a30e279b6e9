//! The writes of sign-ins to MCP servers (`migrations/0019_mcp_credentials.sql`), one
//! statement each on the writer's connection.

use smallebot_core::entities::McpCredential;
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use super::link::{Link, Reply, lost};
use crate::tx::storage;

const SAVE: &str = "storing a sign-in to an MCP server";
const DELETE: &str = "removing a sign-in to an MCP server";

/// A write of sign-ins, with where its answer goes.
#[derive(Debug)]
pub(crate) enum McpCredentialEdit {
    /// A sign-in stored, replacing the user's earlier one for that server.
    Save(McpCredential, Reply<()>),
    /// A user's sign-in to a server removed; whether there was one.
    Delete(String, String, Reply<bool>),
}

impl McpCredentialEdit {
    /// Writes the edit and answers it.
    pub(super) async fn run(self, link: &mut Link) {
        match self {
            Self::Save(credential, reply) => {
                answer_on_link!(link, reply, SAVE, |conn| save(conn, &credential))
            }
            Self::Delete(user, server, reply) => {
                answer_on_link!(link, reply, DELETE, |conn| delete(conn, &user, &server))
            }
        }
    }
}

/// Inserts or replaces `credential`.
async fn save(conn: &mut PgConnection, credential: &McpCredential) -> RepoResult<()> {
    sqlx::query(
        "INSERT INTO mcp_credentials (user_name, server, sealed, updated_at) \
         VALUES ($1, $2, $3, $4) \
         ON CONFLICT (user_name, server) DO UPDATE SET \
             sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at",
    )
    .bind(&credential.user_name)
    .bind(&credential.server)
    .bind(&credential.sealed)
    .bind(credential.updated_at)
    .execute(&mut *conn)
    .await
    .map_err(storage(SAVE))
    .map(drop)
}

/// Deletes `user`'s sign-in to `server`; whether there was one.
async fn delete(conn: &mut PgConnection, user: &str, server: &str) -> RepoResult<bool> {
    sqlx::query("DELETE FROM mcp_credentials WHERE user_name = $1 AND server = $2")
        .bind(user)
        .bind(server)
        .execute(&mut *conn)
        .await
        .map_err(storage(DELETE))
        .map(|done| done.rows_affected() > 0)
}
