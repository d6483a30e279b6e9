//! A row of [`mcp_credential_columns!`](crate::mcp_credential_columns).

use super::{StoredRow, text, time};
use crate::entities::McpCredential;
use crate::repository::RepoResult;

/// A row of [`mcp_credential_columns!`](crate::mcp_credential_columns).
///
/// # Errors
/// [`crate::RepositoryError::Corrupt`] naming the column that does not decode.
pub fn mcp_credential(row: &impl StoredRow) -> RepoResult<McpCredential> {
    Ok(McpCredential {
        user_name: text(row, "user_name")?,
        server: text(row, "server")?,
        sealed: text(row, "sealed")?,
        updated_at: time(row, "updated_at")?,
    })
}
