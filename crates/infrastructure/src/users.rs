//! The web app's users: names and token digests (`migrations/0006_users.sql`).

use smallebot_core::repository::RepoResult;

use crate::database::SqliteStore;
use crate::queries;
use crate::write::Write;

impl SqliteStore {
    /// Adds user `name` with the SHA-256 hex digest of its token.
    ///
    /// # Errors
    /// [`RepositoryError::Conflict`](smallebot_core::RepositoryError::Conflict) when the
    /// name exists; storage failures.
    pub async fn add_user(&self, name: &str, token_sha256: &str) -> RepoResult<()> {
        let (name, token_sha256) = (name.to_owned(), token_sha256.to_owned());
        self.writer()
            .run(|reply| Write::AddUser {
                name,
                token_sha256,
                reply,
            })
            .await
    }

    /// Removes user `name` (their token stops working; their conversations stay).
    /// Returns whether there was such a user.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn remove_user(&self, name: &str) -> RepoResult<bool> {
        let name = name.to_owned();
        self.writer()
            .run(|reply| Write::RemoveUser { name, reply })
            .await
    }

    /// The user whose token has this SHA-256 hex digest.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_by_token_sha256(&self, token_sha256: &str) -> RepoResult<Option<String>> {
        const ACTION: &str = "looking up a user";
        let token_sha256 = token_sha256.to_owned();
        self.readers()
            .read(ACTION, move |conn| {
                queries::first(
                    conn,
                    ACTION,
                    "SELECT name FROM users WHERE token_sha256 = ?1",
                    [&token_sha256],
                    queries::text0,
                )
            })
            .await
    }

    /// The names of all users, sorted.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_names(&self) -> RepoResult<Vec<String>> {
        const ACTION: &str = "listing users";
        self.readers()
            .read(ACTION, move |conn| {
                queries::all(
                    conn,
                    ACTION,
                    "SELECT name FROM users ORDER BY name",
                    [],
                    queries::text0,
                )
            })
            .await
    }
}
