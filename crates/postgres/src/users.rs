//! The web app's users: names and token digests.

use smallebot_core::RepositoryError;
use smallebot_core::repository::RepoResult;

use crate::store::PgStore;
use crate::tx::{now, storage, violates};

impl PgStore {
    /// Adds user `name` with the SHA-256 hex digest of its token.
    ///
    /// # Errors
    /// [`RepositoryError::Conflict`] when the name exists; storage failures.
    pub async fn add_user(&self, name: &str, token_sha256: &str) -> RepoResult<()> {
        sqlx::query("INSERT INTO users (name, token_sha256, created_at) VALUES ($1, $2, $3)")
            .bind(name)
            .bind(token_sha256)
            .bind(now())
            .execute(self.pool())
            .await
            .map_err(|err| {
                if violates(&err, "users_pkey") {
                    RepositoryError::Conflict(format!(
                        "a user named '{name}' exists already; pick another name, or \
                         `smallebot users remove {name}` first to give them a new token"
                    ))
                } else {
                    storage("adding a user")(err)
                }
            })?;
        Ok(())
    }

    /// Removes user `name` (their token stops working; their conversations stay).
    /// Returns whether there was such a user.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn remove_user(&self, name: &str) -> RepoResult<bool> {
        let done = sqlx::query("DELETE FROM users WHERE name = $1")
            .bind(name)
            .execute(self.pool())
            .await
            .map_err(storage("removing a user"))?;
        Ok(done.rows_affected() > 0)
    }

    /// The user whose token has this SHA-256 hex digest.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_by_token_sha256(&self, digest: &str) -> RepoResult<Option<String>> {
        sqlx::query_scalar("SELECT name FROM users WHERE token_sha256 = $1")
            .bind(digest)
            .fetch_optional(self.pool())
            .await
            .map_err(storage("looking up a token"))
    }

    /// Every user name, sorted.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_names(&self) -> RepoResult<Vec<String>> {
        sqlx::query_scalar("SELECT name FROM users ORDER BY name")
            .fetch_all(self.pool())
            .await
            .map_err(storage("listing users"))
    }
}
