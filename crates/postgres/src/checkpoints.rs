//! `CheckpointRepository` on PostgreSQL: a turn's file changes in
//! `turn_file_changes`, their contents in `checkpoint_contents` once per digest — in
//! the database, as attachment contents are, so that every serve process (on any
//! machine) can restore them and a backup of the database holds them. Writes are jobs
//! of the writer (`write/file_changes.rs`); reads are here.

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::TurnFileChange;
use smallebot_core::file_change_columns;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::{CheckpointRepository, RepoResult};
use smallebot_core::rules::checkpoint::is_digest;
use smallebot_core::rules::retention::KeptContent;
use smallebot_core::time::Timestamp;

use crate::rows::file_change;
use crate::store::PgStore;
use crate::tx::storage;
use crate::write::Edit;

/// `sha256` unless it is not a digest.
fn digest(sha256: &str) -> RepoResult<&str> {
    if is_digest(sha256) {
        Ok(sha256)
    } else {
        Err(RepositoryError::Conflict(format!(
            "'{sha256}' is not a SHA-256 digest in lowercase hexadecimal"
        )))
    }
}

#[async_trait]
impl CheckpointRepository for PgStore {
    async fn record_file_changes(
        &self,
        conversation_id: ConversationId,
        turn_id: TurnId,
        changes: &[TurnFileChange],
    ) -> RepoResult<()> {
        let changes = changes.to_vec();
        self.edit("storing a turn's file changes", |reply| {
            Edit::RecordFileChanges(conversation_id, turn_id, changes, reply)
        })
        .await
    }

    async fn file_changes(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<TurnFileChange>> {
        let found = sqlx::query(concat!(
            "SELECT ",
            file_change_columns!(),
            " FROM turn_file_changes f JOIN turns t ON t.id = f.turn_id \
             WHERE f.conversation_id = $1 ORDER BY t.seq, f.id"
        ))
        .bind(conversation_id.to_string())
        .fetch_all(self.pool())
        .await
        .map_err(storage("listing a conversation's file changes"))?;
        found.iter().map(file_change).collect()
    }

    async fn has_checkpoint_content(&self, sha256: &str) -> RepoResult<bool> {
        let found: Option<i32> =
            sqlx::query_scalar("SELECT 1 FROM checkpoint_contents WHERE sha256 = $1")
                .bind(digest(sha256)?)
                .fetch_optional(self.pool())
                .await
                .map_err(storage("looking up a checkpoint content"))?;
        Ok(found.is_some())
    }

    async fn put_checkpoint_content(&self, sha256: &str, content: &[u8]) -> RepoResult<()> {
        let (sha256, content) = (digest(sha256)?.to_owned(), content.to_vec());
        self.edit("keeping a checkpoint content", |reply| {
            Edit::KeepContent(sha256, content, reply)
        })
        .await
    }

    async fn checkpoint_content(&self, sha256: &str) -> RepoResult<Option<Vec<u8>>> {
        sqlx::query_scalar("SELECT content FROM checkpoint_contents WHERE sha256 = $1")
            .bind(digest(sha256)?)
            .fetch_optional(self.pool())
            .await
            .map_err(storage("reading a checkpoint content"))
    }

    async fn kept_checkpoint_contents(&self) -> RepoResult<Vec<KeptContent>> {
        const ACTION: &str = "listing when checkpoint contents were last needed";
        let found: Vec<(String, i64, Timestamp)> = sqlx::query_as(
            "SELECT c.sha256, octet_length(c.content)::BIGINT, GREATEST(c.kept_at, u.last) \
             FROM checkpoint_contents c LEFT JOIN ( \
               SELECT sha256, max(created_at) AS last FROM ( \
                 SELECT sha256_before AS sha256, created_at FROM turn_file_changes \
                 WHERE sha256_before IS NOT NULL UNION ALL \
                 SELECT sha256_after, created_at FROM turn_file_changes \
                 WHERE sha256_after IS NOT NULL) named GROUP BY sha256 \
             ) u ON u.sha256 = c.sha256",
        )
        .fetch_all(self.pool())
        .await
        .map_err(storage(ACTION))?;
        Ok(found
            .into_iter()
            .map(|(sha256, size, last_used)| KeptContent {
                sha256,
                size: u64::try_from(size).unwrap_or(0),
                last_used,
            })
            .collect())
    }

    async fn prune_checkpoint_contents(&self, sha256s: &[String], reason: &str) -> RepoResult<()> {
        let sha256s = sha256s
            .iter()
            .map(|sha256| digest(sha256).map(str::to_owned))
            .collect::<RepoResult<Vec<String>>>()?;
        let reason = reason.to_owned();
        self.edit("pruning checkpoint contents", |reply| {
            Edit::PruneContents(sha256s, reason, reply)
        })
        .await
    }
}
