//! The permission grants' repository.

use async_trait::async_trait;

use super::RepoResult;
use crate::entities::{GrantFilter, GrantId, NewPermissionGrant, PermissionGrant};
use crate::time::Timestamp;

/// Permission grants: a person's lasting "yes" to calls like one they were asked about
/// (for a conversation or always), kept with who gave it, when, the rules it added and
/// the call that prompted it, until revoked. A grant is rare: a normal write.
#[async_trait]
pub trait PermissionGrantRepository: Send + Sync {
    /// Stores a grant; the stored grant with its id.
    async fn add_permission_grant(&self, grant: &NewPermissionGrant)
    -> RepoResult<PermissionGrant>;

    /// The grants `filter` selects, oldest first.
    async fn permission_grants(&self, filter: &GrantFilter) -> RepoResult<Vec<PermissionGrant>>;

    /// Revokes grant `id` at `at` — only when it is `user`'s, when given — so it allows
    /// nothing any more; the grant as stored now (one revoked before keeps its first
    /// revocation time), `None` when there is no such grant (of that user).
    async fn revoke_permission_grant(
        &self,
        id: GrantId,
        user: Option<&str>,
        at: Timestamp,
    ) -> RepoResult<Option<PermissionGrant>>;
}
