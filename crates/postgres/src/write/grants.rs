//! The writes of permission grants (`migrations/0016_permission_grants.sql`), one
//! statement each on the writer's connection.

use smallebot_core::entities::{GrantId, NewPermissionGrant, PermissionGrant};
use smallebot_core::repository::RepoResult;
use smallebot_core::stored_row::grant_rules_text;
use smallebot_core::time::Timestamp;
use sqlx::PgConnection;

use super::link::{Link, Reply, lost};
use crate::rows;
use crate::tx::storage;

const ADD: &str = "storing a permission grant";
const REVOKE: &str = "revoking a permission grant";

/// A write of permission grants, with where its answer goes.
#[derive(Debug)]
pub(crate) enum GrantEdit {
    /// A grant stored; the stored grant.
    Add(NewPermissionGrant, Reply<PermissionGrant>),
    /// A grant revoked (of a user, when given) at a moment; the grant as stored now.
    Revoke(
        GrantId,
        Option<String>,
        Timestamp,
        Reply<Option<PermissionGrant>>,
    ),
}

impl GrantEdit {
    /// Writes the edit and answers it.
    pub(super) async fn run(self, link: &mut Link) {
        match self {
            Self::Add(grant, reply) => {
                answer_on_link!(link, reply, ADD, |conn| add(conn, &grant))
            }
            Self::Revoke(id, user, at, reply) => {
                answer_on_link!(link, reply, REVOKE, |conn| revoke(
                    conn,
                    id,
                    user.as_deref(),
                    at
                ))
            }
        }
    }
}

/// Inserts `grant`; the stored row.
async fn add(conn: &mut PgConnection, grant: &NewPermissionGrant) -> RepoResult<PermissionGrant> {
    let row = sqlx::query(concat!(
        "INSERT INTO permission_grants \
             (user_name, conversation_id, rules, prompted_by, granted_at) \
         VALUES ($1, $2, $3, $4, $5) RETURNING ",
        smallebot_core::grant_columns!()
    ))
    .bind(&grant.user_name)
    .bind(grant.scope.conversation().map(|id| id.to_string()))
    .bind(grant_rules_text(&grant.rules))
    .bind(&grant.call)
    .bind(grant.granted_at)
    .fetch_one(&mut *conn)
    .await
    .map_err(storage(ADD))?;
    rows::permission_grant(&row)
}

/// Sets `revoked_at` of grant `id` (of `user`, when given) unless it is set; the row.
async fn revoke(
    conn: &mut PgConnection,
    id: GrantId,
    user: Option<&str>,
    at: Timestamp,
) -> RepoResult<Option<PermissionGrant>> {
    let row = sqlx::query(concat!(
        "UPDATE permission_grants SET revoked_at = COALESCE(revoked_at, $3) \
         WHERE id = $1 AND ($2::text IS NULL OR user_name = $2) RETURNING ",
        smallebot_core::grant_columns!()
    ))
    .bind(id)
    .bind(user)
    .bind(at)
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage(REVOKE))?;
    row.as_ref().map(rows::permission_grant).transpose()
}
