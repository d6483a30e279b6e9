//! The web app's users: names and token digests (`migrations/0006_users.sql`), whether
//! they are admins and their own monthly budgets (`0017_user_admins_and_budgets.sql`),
//! their own permission rules (`0020_user_permission_rules.sql`).

use async_trait::async_trait;
use rusqlite::Row;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{UserAccount, UserRules};
use smallebot_core::repository::{RepoResult, UserRuleRepository};
use smallebot_core::stored_row::user_rules;

use crate::database::SqliteStore;
use crate::queries;
use crate::write::{UserWrite, Write};

impl SqliteStore {
    /// Adds user `name` with the SHA-256 hex digest of its token, an admin when `admin`.
    ///
    /// # Errors
    /// [`RepositoryError::Conflict`] when the name exists; storage failures.
    pub async fn add_user(&self, name: &str, token_sha256: &str, admin: bool) -> RepoResult<()> {
        let (name, token_sha256) = (name.to_owned(), token_sha256.to_owned());
        self.writer()
            .run(|reply| {
                Write::User(UserWrite::Add {
                    name,
                    token_sha256,
                    admin,
                    reply,
                })
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
        self.writer()
            .run(|reply| {
                Write::User(UserWrite::SetBudget {
                    name,
                    budget_monthly,
                    reply,
                })
            })
            .await
    }

    /// Every user with their role and budget, sorted by name.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_accounts(&self) -> RepoResult<Vec<UserAccount>> {
        const ACTION: &str = "listing users";
        self.readers()
            .read(ACTION, move |conn| {
                queries::all(
                    conn,
                    ACTION,
                    "SELECT name, admin, budget_monthly_picos, deny_rules, ask_rules FROM users ORDER BY name",
                    [],
                    account,
                )
            })
            .await
    }

    /// User `name` with their role and budget, if there is one.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_account(&self, name: &str) -> RepoResult<Option<UserAccount>> {
        const ACTION: &str = "reading a user";
        let name = name.to_owned();
        self.readers()
            .read(ACTION, move |conn| {
                queries::first(
                    conn,
                    ACTION,
                    "SELECT name, admin, budget_monthly_picos, deny_rules, ask_rules FROM users WHERE name = ?1",
                    [&name],
                    account,
                )
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
            .run(|reply| Write::User(UserWrite::Remove { name, reply }))
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

#[async_trait]
impl UserRuleRepository for SqliteStore {
    async fn user_rules(&self, name: &str) -> RepoResult<UserRules> {
        const ACTION: &str = "reading a user's permission rules";
        let name = name.to_owned();
        let rules = self
            .readers()
            .read(ACTION, move |conn| {
                queries::first(
                    conn,
                    ACTION,
                    "SELECT deny_rules, ask_rules FROM users WHERE name = ?1",
                    [&name],
                    |row| rules_at(row, 0),
                )
            })
            .await?;
        Ok(rules.unwrap_or_default())
    }

    async fn set_user_rules(&self, name: &str, rules: &UserRules) -> RepoResult<bool> {
        let (name, rules) = (name.to_owned(), rules.clone());
        self.writer()
            .run(|reply| Write::User(UserWrite::SetRules { name, rules, reply }))
            .await
    }
}

/// A user row: `name, admin, budget_monthly_picos, deny_rules, ask_rules`.
fn account(row: &Row<'_>) -> RepoResult<UserAccount> {
    let corrupt = |e: rusqlite::Error| RepositoryError::corrupt("users", e);
    Ok(UserAccount {
        name: row.get(0).map_err(corrupt)?,
        admin: row.get(1).map_err(corrupt)?,
        budget_monthly: row.get(2).map_err(corrupt)?,
        rules: rules_at(row, 3)?,
    })
}

/// The user's own rules from the columns `deny_rules, ask_rules` starting at `at`.
fn rules_at(row: &Row<'_>, at: usize) -> RepoResult<UserRules> {
    let corrupt = |e: rusqlite::Error| RepositoryError::corrupt("users", e);
    let deny: String = row.get(at).map_err(corrupt)?;
    let ask: String = row.get(at + 1).map_err(corrupt)?;
    user_rules(&deny, &ask)
}
