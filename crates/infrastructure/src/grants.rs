//! Permission grants (`migrations/0018_permission_grants.sql`): a normal write each
//! (a grant is rare), read on the readers.

use async_trait::async_trait;
use smallebot_core::entities::{GrantFilter, GrantId, NewPermissionGrant, PermissionGrant};
use smallebot_core::repository::{PermissionGrantRepository, RepoResult};
use smallebot_core::time::Timestamp;

use crate::database::SqliteStore;
use crate::write::{GrantWrite, Write};
use crate::{queries, rows};

#[async_trait]
impl PermissionGrantRepository for SqliteStore {
    async fn add_permission_grant(
        &self,
        grant: &NewPermissionGrant,
    ) -> RepoResult<PermissionGrant> {
        let grant = grant.clone();
        self.writer()
            .run(|reply| Write::Grant(GrantWrite::Add { grant, reply }))
            .await
    }

    async fn permission_grants(&self, filter: &GrantFilter) -> RepoResult<Vec<PermissionGrant>> {
        const ACTION: &str = "reading permission grants";
        let params = (
            filter.user.clone(),
            filter.applying_in.map(|id| id.to_string()),
            filter.revoked,
        );
        self.readers()
            .read(ACTION, move |conn| {
                queries::all(
                    conn,
                    ACTION,
                    concat!(
                        "SELECT ",
                        smallebot_core::grant_columns!(),
                        " FROM permission_grants WHERE (?1 IS NULL OR user_name = ?1) \
                         AND (?2 IS NULL OR conversation_id IS NULL OR conversation_id = ?2) \
                         AND (?3 OR revoked_at IS NULL) ORDER BY id"
                    ),
                    params.clone(),
                    rows::permission_grant,
                )
            })
            .await
    }

    async fn revoke_permission_grant(
        &self,
        id: GrantId,
        user: Option<&str>,
        at: Timestamp,
    ) -> RepoResult<Option<PermissionGrant>> {
        let user = user.map(str::to_owned);
        self.writer()
            .run(|reply| {
                Write::Grant(GrantWrite::Revoke {
                    id,
                    user,
                    at,
                    reply,
                })
            })
            .await
    }
}
