//! The web app's users: names and token digests (`migrations/0006_users.sql`).

use smallebot_core::RepositoryError;
use smallebot_core::repository::RepoResult;

use crate::database::SqliteStore;
use crate::tx::{now, storage};

impl SqliteStore {
    /// Adds user `name` with the SHA-256 hex digest of its token.
    ///
    /// # Errors
    /// [`RepositoryError::Conflict`] when the name exists; storage failures.
    pub async fn add_user(&self, name: &str, token_sha256: &str) -> RepoResult<()> {
        let (_, at) = now();
        let mut writer = self
            .writer()
            .lock()
            .await
            .map_err(storage("adding a user"))?;
        sqlx::query("INSERT INTO users (name, token_sha256, created_at) VALUES (?1, ?2, ?3)")
            .bind(name)
            .bind(token_sha256)
            .bind(at)
            .execute(&mut *writer)
            .await
            .map_err(|err| match &err {
                sqlx::Error::Database(db) if db.is_unique_violation() => {
                    RepositoryError::Conflict(format!(
                        "a user named '{name}' exists already; pick another name, or \
                         `smallebot users remove {name}` first to give them a new token"
                    ))
                }
                _ => storage("adding a user")(err),
            })?;
        Ok(())
    }

    /// Removes user `name` (their token stops working; their conversations stay).
    /// Returns whether there was such a user.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn remove_user(&self, name: &str) -> RepoResult<bool> {
        let mut writer = self
            .writer()
            .lock()
            .await
            .map_err(storage("removing a user"))?;
        let done = sqlx::query("DELETE FROM users WHERE name = ?1")
            .bind(name)
            .execute(&mut *writer)
            .await
            .map_err(storage("removing a user"))?;
        Ok(done.rows_affected() > 0)
    }

    /// The user whose token has this SHA-256 hex digest.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_by_token_sha256(&self, token_sha256: &str) -> RepoResult<Option<String>> {
        let mut conn = self.reader("looking up a user").await?;
        sqlx::query_scalar("SELECT name FROM users WHERE token_sha256 = ?1")
            .bind(token_sha256)
            .fetch_optional(&mut *conn)
            .await
            .map_err(storage("looking up a user"))
    }

    /// The names of all users, sorted.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_names(&self) -> RepoResult<Vec<String>> {
        let mut conn = self.reader("listing users").await?;
        sqlx::query_scalar("SELECT name FROM users ORDER BY name")
            .fetch_all(&mut *conn)
            .await
            .map_err(storage("listing users"))
    }
}
