//! The writes of sign-ins to MCP servers (`migrations/0021_mcp_credentials.sql`).

use rusqlite::Connection;
use smallebot_core::entities::McpCredential;
use smallebot_core::repository::RepoResult;
use smallebot_core::time::format_timestamp;

use super::settle::{Refusal, Reply, Settled, settle};
use crate::queries::execute;

/// A write of sign-ins, with where its answer goes.
#[derive(Debug)]
pub(crate) enum McpCredentialWrite {
    /// Stores a sign-in, replacing the user's earlier one for that server.
    Save {
        credential: McpCredential,
        reply: Reply<()>,
    },
    /// Removes a sign-in; whether there was one.
    Delete {
        user: String,
        server: String,
        reply: Reply<bool>,
    },
}

impl McpCredentialWrite {
    /// Runs the write as [`Write::apply`](super::Write::apply) does.
    pub(super) fn apply(self, conn: Result<&Connection, &Refusal>) -> Settled {
        match self {
            Self::Save { credential, reply } => settle(conn, reply, |c| save(c, &credential)),
            Self::Delete {
                user,
                server,
                reply,
            } => settle(conn, reply, |c| delete(c, &user, &server)),
        }
    }
}

/// Inserts or replaces `credential`.
fn save(conn: &Connection, credential: &McpCredential) -> RepoResult<()> {
    execute(
        conn,
        "storing a sign-in to an MCP server",
        "INSERT INTO mcp_credentials (user_name, server, sealed, updated_at) \
         VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (user_name, server) DO UPDATE SET \
             sealed = excluded.sealed, updated_at = excluded.updated_at",
        (
            &credential.user_name,
            &credential.server,
            &credential.sealed,
            format_timestamp(&credential.updated_at),
        ),
    )
    .map(drop)
}

/// Deletes `user`'s sign-in to `server`; whether there was one.
fn delete(conn: &Connection, user: &str, server: &str) -> RepoResult<bool> {
    execute(
        conn,
        "removing a sign-in to an MCP server",
        "DELETE FROM mcp_credentials WHERE user_name = ?1 AND server = ?2",
        (user, server),
    )
    .map(|changed| changed > 0)
}
