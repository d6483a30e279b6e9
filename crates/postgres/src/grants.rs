//! Permission grants (`migrations/0016_permission_grants.sql`): a normal write each
//! (a grant is rare), read on the pool.

use async_trait::async_trait;
use smallebot_core::entities::{GrantFilter, GrantId, NewPermissionGrant, PermissionGrant};
use smallebot_core::repository::{PermissionGrantRepository, RepoResult};
use smallebot_core::time::Timestamp;

use crate::rows;
use crate::store::PgStore;
use crate::tx::storage;
use crate::write::{Edit, GrantEdit};

#[async_trait]
impl PermissionGrantRepository for PgStore {
    async fn add_permission_grant(
        &self,
        grant: &NewPermissionGrant,
    ) -> RepoResult<PermissionGrant> {
        let grant = grant.clone();
        self.edit("storing a permission grant", |reply| {
            Edit::Grant(GrantEdit::Add(grant, reply))
        })
        .await
    }

    async fn permission_grants(&self, filter: &GrantFilter) -> RepoResult<Vec<PermissionGrant>> {
        let found = sqlx::query(concat!(
            "SELECT ",
            smallebot_core::grant_columns!(),
            " FROM permission_grants WHERE ($1::text IS NULL OR user_name = $1) \
             AND ($2::text IS NULL OR conversation_id IS NULL OR conversation_id = $2) \
             AND ($3 OR revoked_at IS NULL) ORDER BY id"
        ))
        .bind(filter.user.clone())
        .bind(filter.applying_in.map(|id| id.to_string()))
        .bind(filter.revoked)
        .fetch_all(self.pool())
        .await
        .map_err(storage("reading permission grants"))?;
        found.iter().map(rows::permission_grant).collect()
    }

    async fn revoke_permission_grant(
        &self,
        id: GrantId,
        user: Option<&str>,
        at: Timestamp,
    ) -> RepoResult<Option<PermissionGrant>> {
        let user = user.map(str::to_owned);
        self.edit("revoking a permission grant", |reply| {
            Edit::Grant(GrantEdit::Revoke(id, user, at, reply))
        })
        .await
    }
}
