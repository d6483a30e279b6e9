//! Provisional token counts: marking them, and replacing them with exact ones.
//!
//! A process that writes rows before its tokenizer is built stores upper bounds and
//! marks the conversation (`provisional_counts_from_seq`); a later process with the
//! tokenizer recounts those rows and clears the mark. The running total
//! (`context_tokens`) follows through the triggers of migrations 0003 and 0008.

use smallebot_core::RepositoryError;
use smallebot_core::entities::Seq;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::RepoResult;

use crate::database::SqliteStore;
use crate::tx::storage;

impl SqliteStore {
    /// See `HistoryRepository::mark_counts_provisional`.
    pub(crate) async fn mark_provisional(
        &self,
        conversation_id: ConversationId,
        from_seq: Seq,
    ) -> RepoResult<()> {
        const ACTION: &str = "marking provisional token counts";
        let mut writer = self.writer().lock().await.map_err(storage(ACTION))?;
        let done = sqlx::query(
            "UPDATE conversations SET provisional_counts_from_seq = \
               MIN(COALESCE(provisional_counts_from_seq, ?2), ?2) WHERE id = ?1",
        )
        .bind(conversation_id.to_string())
        .bind(from_seq)
        .execute(&mut *writer)
        .await
        .map_err(storage(ACTION))?;
        if done.rows_affected() == 0 {
            return Err(RepositoryError::not_found("conversation", conversation_id));
        }
        Ok(())
    }

    /// See `HistoryRepository::set_exact_counts`.
    pub(crate) async fn store_exact_counts(
        &self,
        conversation_id: ConversationId,
        counts: &[(Seq, i64)],
        through_seq: Seq,
    ) -> RepoResult<()> {
        const ACTION: &str = "storing exact token counts";
        let id = conversation_id.to_string();
        let mut tx = self.write_tx(ACTION).await?;
        for (seq, tokens) in counts {
            for table in [
                "UPDATE messages SET token_count = ?3 WHERE conversation_id = ?1 AND seq = ?2",
                "UPDATE tool_calls SET token_count = ?3 WHERE conversation_id = ?1 AND seq = ?2",
            ] {
                sqlx::query(table)
                    .bind(&id)
                    .bind(seq)
                    .bind(tokens)
                    .execute(&mut *tx)
                    .await
                    .map_err(storage(ACTION))?;
            }
        }
        // Rows written after `through_seq` (by another process meanwhile) may still be
        // provisional: keep a mark just after it then.
        let done = sqlx::query(
            "UPDATE conversations SET provisional_counts_from_seq = CASE \
               WHEN provisional_counts_from_seq IS NULL THEN NULL \
               WHEN EXISTS (SELECT 1 FROM messages WHERE conversation_id = ?1 AND seq > ?2) \
                 OR EXISTS (SELECT 1 FROM tool_calls WHERE conversation_id = ?1 AND seq > ?2) \
               THEN MAX(provisional_counts_from_seq, ?2 + 1) \
               ELSE NULL END \
             WHERE id = ?1",
        )
        .bind(&id)
        .bind(through_seq)
        .execute(&mut *tx)
        .await
        .map_err(storage(ACTION))?;
        if done.rows_affected() == 0 {
            return Err(RepositoryError::not_found("conversation", conversation_id));
        }
        tx.commit().await.map_err(storage(ACTION))
    }
}
