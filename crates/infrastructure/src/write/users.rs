//! The writes of the web app's users.

use rusqlite::Connection;
use smallebot_core::RepositoryError;
use smallebot_core::entities::UserRules;
use smallebot_core::repository::RepoResult;
use smallebot_core::stored_row::grant_rules_text;

use super::settle::{Refusal, Reply, Settled, settle};
use crate::error::{is_unique_violation, sqlite};
use crate::queries::execute;
use crate::time::now;

/// A write of the web app's users, with where its answer goes.
#[derive(Debug)]
pub(crate) enum UserWrite {
    /// Adds a web user.
    Add {
        name: String,
        token_sha256: String,
        admin: bool,
        reply: Reply<()>,
    },
    /// Removes a web user; whether there was one.
    Remove { name: String, reply: Reply<bool> },
    /// Sets (or clears) a web user's own monthly budget; whether there was such a user.
    SetBudget {
        name: String,
        budget_monthly: Option<i64>,
        reply: Reply<bool>,
    },
    /// Replaces a web user's own permission rules; whether there was such a user.
    SetRules {
        name: String,
        rules: UserRules,
        reply: Reply<bool>,
    },
}

impl UserWrite {
    /// Runs the write on `conn` (or takes the refusal's error): its answer.
    pub(super) fn apply(self, conn: Result<&Connection, &Refusal>) -> Settled {
        match self {
            Self::Add {
                name,
                token_sha256,
                admin,
                reply,
            } => settle(conn, reply, |c| add(c, &name, &token_sha256, admin)),
            Self::Remove { name, reply } => settle(conn, reply, |c| remove(c, &name)),
            Self::SetBudget {
                name,
                budget_monthly,
                reply,
            } => settle(conn, reply, |c| set_budget(c, &name, budget_monthly)),
            Self::SetRules { name, rules, reply } => {
                settle(conn, reply, |c| set_rules(c, &name, &rules))
            }
        }
    }
}

fn add(conn: &Connection, name: &str, token_sha256: &str, admin: bool) -> RepoResult<()> {
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

fn remove(conn: &Connection, name: &str) -> RepoResult<bool> {
    let changed = execute(
        conn,
        "removing a user",
        "DELETE FROM users WHERE name = ?1",
        [name],
    )?;
    Ok(changed > 0)
}

fn set_budget(conn: &Connection, name: &str, budget_monthly: Option<i64>) -> RepoResult<bool> {
    let changed = execute(
        conn,
        "setting a user's monthly budget",
        "UPDATE users SET budget_monthly_picos = ?2 WHERE name = ?1",
        (name, budget_monthly),
    )?;
    Ok(changed > 0)
}

fn set_rules(conn: &Connection, name: &str, rules: &UserRules) -> RepoResult<bool> {
    let changed = execute(
        conn,
        "setting a user's permission rules",
        "UPDATE users SET deny_rules = ?2, ask_rules = ?3 WHERE name = ?1",
        (
            name,
            grant_rules_text(&rules.deny),
            grant_rules_text(&rules.ask),
        ),
    )?;
    Ok(changed > 0)
}
