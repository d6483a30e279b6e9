//! The writes of the web app's users.

use rusqlite::Connection;
use smallebot_core::RepositoryError;
use smallebot_core::repository::RepoResult;

use crate::error::{is_unique_violation, sqlite};
use crate::queries::execute;
use crate::time::now;

pub(super) fn add(
    conn: &Connection,
    name: &str,
    token_sha256: &str,
    admin: bool,
) -> RepoResult<()> {
    const ACTION: &str = "adding a user";
    let (_, at) = now();
    conn.prepare_cached(
        "INSERT INTO users (name, token_sha256, created_at, admin) VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut stmt| stmt.execute((name, token_sha256, at, admin)))
    .map_err(|err| {
        if is_unique_violation(&err) {
            RepositoryError::user_exists(name)
        } else {
            sqlite(ACTION)(err)
        }
    })?;
    Ok(())
}

pub(super) fn remove(conn: &Connection, name: &str) -> RepoResult<bool> {
    let changed = execute(
        conn,
        "removing a user",
        "DELETE FROM users WHERE name = ?1",
        [name],
    )?;
    Ok(changed > 0)
}

pub(super) fn set_budget(
    conn: &Connection,
    name: &str,
    budget_monthly: Option<i64>,
) -> RepoResult<bool> {
    let changed = execute(
        conn,
        "setting a user's monthly budget",
        "UPDATE users SET budget_monthly_picos = ?2 WHERE name = ?1",
        (name, budget_monthly),
    )?;
    Ok(changed > 0)
}
