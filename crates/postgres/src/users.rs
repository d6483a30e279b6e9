//! The web app's users: names and token digests, whether they are admins and their own
//! monthly budgets, their own permission rules.

use async_trait::async_trait;
use smallebot_core::entities::{UserAccount, UserRules};
use smallebot_core::repository::{RepoResult, UserRuleRepository};
use smallebot_core::stored_row::user_rules;

use crate::store::PgStore;
use crate::tx::storage;
use crate::write::Edit;

impl PgStore {
    /// Adds user `name` with the SHA-256 hex digest of its token, an admin when `admin`.
    ///
    /// # Errors
    /// [`RepositoryError::Conflict`](smallebot_core::RepositoryError::Conflict) when the
    /// name exists; storage failures.
    pub async fn add_user(&self, name: &str, token_sha256: &str, admin: bool) -> RepoResult<()> {
        let (name, digest) = (name.to_owned(), token_sha256.to_owned());
        self.edit("adding a user", |reply| {
            Edit::AddUser(name, digest, admin, reply)
        })
        .await
    }

    /// Sets user `name`'s own monthly budget in picos (`None` clears it). Returns
    /// whether there was such a user.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn set_user_budget(
        &self,
        name: &str,
        budget_monthly: Option<i64>,
    ) -> RepoResult<bool> {
        let name = name.to_owned();
        self.edit("setting a user's monthly budget", |reply| {
            Edit::SetUserBudget(name, budget_monthly, reply)
        })
        .await
    }

    /// Every user with their role and budget, sorted by name.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_accounts(&self) -> RepoResult<Vec<UserAccount>> {
        let rows: Vec<AccountRow> =
            sqlx::query_as("SELECT name, admin, budget_monthly_picos, deny_rules, ask_rules FROM users ORDER BY name")
                .fetch_all(self.pool())
                .await
                .map_err(storage("listing users"))?;
        rows.into_iter().map(account).collect()
    }

    /// User `name` with their role and budget, if there is one.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_account(&self, name: &str) -> RepoResult<Option<UserAccount>> {
        let row: Option<AccountRow> =
            sqlx::query_as("SELECT name, admin, budget_monthly_picos, deny_rules, ask_rules FROM users WHERE name = $1")
                .bind(name)
                .fetch_optional(self.pool())
                .await
                .map_err(storage("reading a user"))?;
        row.map(account).transpose()
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

#[async_trait]
impl UserRuleRepository for PgStore {
    async fn user_rules(&self, name: &str) -> RepoResult<UserRules> {
        let row: Option<(String, String)> =
            sqlx::query_as("SELECT deny_rules, ask_rules FROM users WHERE name = $1")
                .bind(name)
                .fetch_optional(self.pool())
                .await
                .map_err(storage("reading a user's permission rules"))?;
        row.map_or_else(
            || Ok(UserRules::default()),
            |(deny, ask)| user_rules(&deny, &ask),
        )
    }

    async fn set_user_rules(&self, name: &str, rules: &UserRules) -> RepoResult<bool> {
        let (name, rules) = (name.to_owned(), rules.clone());
        self.edit("setting a user's permission rules", |reply| {
            Edit::SetUserRules(name, rules, reply)
        })
        .await
    }
}

/// A user row: `name, admin, budget_monthly_picos, deny_rules, ask_rules`.
type AccountRow = (String, bool, Option<i64>, String, String);

/// The account of a user row.
fn account((name, admin, budget_monthly, deny, ask): AccountRow) -> RepoResult<UserAccount> {
    Ok(UserAccount {
        name,
        admin,
        budget_monthly,
        rules: user_rules(&deny, &ask)?,
    })
}
