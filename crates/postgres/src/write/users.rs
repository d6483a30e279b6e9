//! Rows outside conversations, on the writer's connection: the web app's users, and
//! relayed messages too large for a notification.

use smallebot_core::RepositoryError;
use smallebot_core::entities::UserRules;
use smallebot_core::repository::RepoResult;
use smallebot_core::stored_row::grant_rules_text;
use sqlx::PgConnection;

use super::link::Link;
use crate::tx::{now, storage, violates};

pub(super) const ADD: &str = "adding a user";
pub(super) const REMOVE: &str = "removing a user";
pub(super) const SET_BUDGET: &str = "setting a user's monthly budget";
pub(super) const SET_RULES: &str = "setting a user's permission rules";

/// Adds user `name` with the SHA-256 hex digest of their token; a name taken is
/// [`RepositoryError::Conflict`].
pub(super) async fn add(
    conn: &mut PgConnection,
    name: &str,
    token_sha256: &str,
    admin: bool,
) -> RepoResult<()> {
    sqlx::query(
        "INSERT INTO users (name, token_sha256, created_at, admin) VALUES ($1, $2, $3, $4)",
    )
    .bind(name)
    .bind(token_sha256)
    .bind(now())
    .bind(admin)
    .execute(&mut *conn)
    .await
    .map_err(|err| {
        if violates(&err, "users_pkey") {
            RepositoryError::user_exists(name)
        } else {
            storage(ADD)(err)
        }
    })?;
    Ok(())
}

/// Removes user `name`; whether there was one.
pub(super) async fn remove(conn: &mut PgConnection, name: &str) -> RepoResult<bool> {
    let done = sqlx::query("DELETE FROM users WHERE name = $1")
        .bind(name)
        .execute(&mut *conn)
        .await
        .map_err(storage(REMOVE))?;
    Ok(done.rows_affected() > 0)
}

/// Sets (or clears) user `name`'s own monthly budget in picos; whether there was one.
pub(super) async fn set_budget(
    conn: &mut PgConnection,
    name: &str,
    budget_monthly: Option<i64>,
) -> RepoResult<bool> {
    let done = sqlx::query("UPDATE users SET budget_monthly_picos = $2 WHERE name = $1")
        .bind(name)
        .bind(budget_monthly)
        .execute(&mut *conn)
        .await
        .map_err(storage(SET_BUDGET))?;
    Ok(done.rows_affected() > 0)
}

/// Replaces user `name`'s own permission rules; whether there was such a user.
pub(super) async fn set_rules(
    conn: &mut PgConnection,
    name: &str,
    rules: &UserRules,
) -> RepoResult<bool> {
    let done = sqlx::query("UPDATE users SET deny_rules = $2, ask_rules = $3 WHERE name = $1")
        .bind(name)
        .bind(grant_rules_text(&rules.deny))
        .bind(grant_rules_text(&rules.ask))
        .execute(&mut *conn)
        .await
        .map_err(storage(SET_RULES))?;
    Ok(done.rows_affected() > 0)
}

/// Stores a relayed message (sweeping those older than ten minutes); its id, or the
/// database's error text.
pub(super) async fn relay(link: &mut Link, body: &serde_json::Value) -> Result<i64, String> {
    let conn = link.get().await.map_err(|e| e.to_string())?;
    let stored = sqlx::query_scalar(
        "WITH swept AS (DELETE FROM relayed_messages \
             WHERE created_at < now() - interval '10 minutes') \
         INSERT INTO relayed_messages (body) VALUES ($1) RETURNING id",
    )
    .bind(body)
    .fetch_one(&mut *conn)
    .await;
    stored.map_err(|e| {
        link.check(&e);
        e.to_string()
    })
}
