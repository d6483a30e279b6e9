//! The writes of permission grants (`migrations/0018_permission_grants.sql`).

use rusqlite::Connection;
use smallebot_core::entities::{GrantId, NewPermissionGrant, PermissionGrant};
use smallebot_core::repository::RepoResult;
use smallebot_core::stored_row::grant_rules_text;
use smallebot_core::time::{Timestamp, format_timestamp};

use super::settle::{Refusal, Reply, Settled, settle};
use crate::queries::{execute, first};
use crate::rows;

/// A write of permission grants, with where its answer goes.
#[derive(Debug)]
pub(crate) enum GrantWrite {
    /// Stores a grant; the stored grant.
    Add {
        grant: NewPermissionGrant,
        reply: Reply<PermissionGrant>,
    },
    /// Revokes a grant (of a user, when given); the grant as stored now, if any.
    Revoke {
        id: GrantId,
        user: Option<String>,
        at: Timestamp,
        reply: Reply<Option<PermissionGrant>>,
    },
}

impl GrantWrite {
    /// Runs the write as [`Write::apply`](super::Write::apply) does.
    pub(super) fn apply(self, conn: Result<&Connection, &Refusal>) -> Settled {
        match self {
            Self::Add { grant, reply } => settle(conn, reply, |c| add(c, &grant)),
            Self::Revoke {
                id,
                user,
                at,
                reply,
            } => settle(conn, reply, |c| revoke(c, id, user.as_deref(), &at)),
        }
    }
}

/// Inserts `grant`; the stored row.
fn add(conn: &Connection, grant: &NewPermissionGrant) -> RepoResult<PermissionGrant> {
    const ACTION: &str = "storing a permission grant";
    execute(
        conn,
        ACTION,
        "INSERT INTO permission_grants \
             (user_name, conversation_id, rules, prompted_by, granted_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
        (
            &grant.user_name,
            grant.scope.conversation().map(|id| id.to_string()),
            grant_rules_text(&grant.rules),
            &grant.call,
            format_timestamp(&grant.granted_at),
        ),
    )?;
    let id = conn.last_insert_rowid();
    read(conn, ACTION, id)?.ok_or_else(|| {
        smallebot_core::RepositoryError::Corrupt(format!(
            "the permission grant {id} just stored cannot be read back"
        ))
    })
}

/// Sets `revoked_at` of grant `id` (of `user`, when given) unless it is set; the row.
fn revoke(
    conn: &Connection,
    id: GrantId,
    user: Option<&str>,
    at: &Timestamp,
) -> RepoResult<Option<PermissionGrant>> {
    const ACTION: &str = "revoking a permission grant";
    let changed = execute(
        conn,
        ACTION,
        "UPDATE permission_grants SET revoked_at = COALESCE(revoked_at, ?3) \
         WHERE id = ?1 AND (?2 IS NULL OR user_name = ?2)",
        (id, user, format_timestamp(at)),
    )?;
    if changed == 0 {
        return Ok(None);
    }
    read(conn, ACTION, id)
}

/// Grant `id`, if there is one.
fn read(
    conn: &Connection,
    action: &'static str,
    id: GrantId,
) -> RepoResult<Option<PermissionGrant>> {
    first(
        conn,
        action,
        concat!(
            "SELECT ",
            smallebot_core::grant_columns!(),
            " FROM permission_grants WHERE id = ?1"
        ),
        [id],
        rows::permission_grant,
    )
}
