//! The web app's users: names and token digests.

use smallebot_core::repository::RepoResult;

use crate::store::PgStore;
use crate::tx::storage;
use crate::write::Edit;

impl PgStore {
    /// Adds user `name` with the SHA-256 hex digest of its token.
    ///
    /// # Errors
    /// [`RepositoryError::Conflict`](smallebot_core::RepositoryError::Conflict) when the
    /// name exists; storage failures.
    pub async fn add_user(&self, name: &str, token_sha256: &str) -> RepoResult<()> {
        let (name, digest) = (name.to_owned(), token_sha256.to_owned());
        self.edit("adding a user", |reply| Edit::AddUser(name, digest, reply))
            .await
    }

    /// Removes user `name` (their token stops working; their conversations stay).
    /// Returns whether there was such a user.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn remove_user(&self, name: &str) -> RepoResult<bool> {
        let name = name.to_owned();
        self.edit("removing a user", |reply| Edit::RemoveUser(name, reply))
            .await
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
