//! `ConversationRepository` on PostgreSQL.

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{CompressionUpdate, Conversation};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{ConversationRepository, RepoResult};

use crate::rows;
use crate::store::PgStore;
use crate::tx::{now, storage};

impl PgStore {
    /// Reads one conversation on `conn`; `FOR UPDATE` variants lock it (see
    /// [`PgStore::lock_conversation`]).
    pub(crate) async fn fetch_conversation(
        conn: &mut sqlx::PgConnection,
        id: ConversationId,
    ) -> RepoResult<Option<Conversation>> {
        let row = sqlx::query(
            "SELECT id, user_name, title, created_at, updated_at, compressed_context, \
             compressed_at, compressed_through_seq, context_tokens, model_id, \
             provisional_counts_from_seq FROM conversations WHERE id = $1",
        )
        .bind(id.to_string())
        .fetch_optional(&mut *conn)
        .await
        .map_err(storage("reading a conversation"))?;
        row.as_ref().map(rows::conversation).transpose()
    }

    /// Locks the conversation's row until the transaction ends (every writer of a
    /// conversation takes this lock first, so they queue instead of interleaving) and
    /// returns it.
    pub(crate) async fn lock_conversation(
        conn: &mut sqlx::PgConnection,
        id: ConversationId,
    ) -> RepoResult<Conversation> {
        let row = sqlx::query(
            "SELECT id, user_name, title, created_at, updated_at, compressed_context, \
             compressed_at, compressed_through_seq, context_tokens, model_id, \
             provisional_counts_from_seq FROM conversations WHERE id = $1 FOR UPDATE",
        )
        .bind(id.to_string())
        .fetch_optional(&mut *conn)
        .await
        .map_err(storage("locking a conversation"))?;
        row.as_ref()
            .map(rows::conversation)
            .transpose()?
            .ok_or_else(|| RepositoryError::not_found("conversation", id))
    }

    /// Hands out the conversation's next `count` seqs (under its row lock, held until
    /// the transaction ends) and bumps `updated_at`; returns the first.
    pub(crate) async fn allocate_seqs(
        conn: &mut sqlx::PgConnection,
        id: ConversationId,
        count: i64,
    ) -> RepoResult<i64> {
        let last: Option<i64> = sqlx::query_scalar(
            "UPDATE conversations SET last_seq = last_seq + $2, updated_at = $3 \
             WHERE id = $1 RETURNING last_seq",
        )
        .bind(id.to_string())
        .bind(count)
        .bind(now())
        .fetch_optional(&mut *conn)
        .await
        .map_err(storage("allocating a seq"))?;
        let last = last.ok_or_else(|| RepositoryError::not_found("conversation", id))?;
        Ok(last - count + 1)
    }
}

#[async_trait]
impl ConversationRepository for PgStore {
    async fn create_conversation(&self, user_name: &str, title: &str) -> RepoResult<Conversation> {
        let at = now();
        let conversation = Conversation {
            id: ConversationId::new(),
            user_name: user_name.to_owned(),
            title: title.to_owned(),
            created_at: at,
            updated_at: at,
            compressed_context: None,
            compressed_at: None,
            compressed_through_seq: None,
            context_tokens: 0,
            model: None,
            provisional_counts_from: None,
        };
        sqlx::query(
            "INSERT INTO conversations (id, user_name, title, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $4)",
        )
        .bind(conversation.id.to_string())
        .bind(user_name)
        .bind(title)
        .bind(at)
        .execute(self.pool())
        .await
        .map_err(storage("creating a conversation"))?;
        Ok(conversation)
    }

    async fn list_conversations(&self, user_name: Option<&str>) -> RepoResult<Vec<Conversation>> {
        let found = sqlx::query(
            "SELECT id, user_name, title, created_at, updated_at, compressed_context, \
             compressed_at, compressed_through_seq, context_tokens, model_id, \
             provisional_counts_from_seq FROM conversations \
             WHERE $1::text IS NULL OR user_name = $1 ORDER BY updated_at DESC, id DESC",
        )
        .bind(user_name)
        .fetch_all(self.pool())
        .await
        .map_err(storage("listing conversations"))?;
        found.iter().map(rows::conversation).collect()
    }

    async fn get_conversation(&self, id: ConversationId) -> RepoResult<Option<Conversation>> {
        let mut conn = self
            .pool()
            .acquire()
            .await
            .map_err(storage("reading a conversation"))?;
        Self::fetch_conversation(&mut conn, id).await
    }

    async fn rename_conversation(&self, id: ConversationId, title: &str) -> RepoResult<()> {
        let done =
            sqlx::query("UPDATE conversations SET title = $1, updated_at = $2 WHERE id = $3")
                .bind(title)
                .bind(now())
                .bind(id.to_string())
                .execute(self.pool())
                .await
                .map_err(storage("renaming a conversation"))?;
        if done.rows_affected() == 0 {
            return Err(RepositoryError::not_found("conversation", id));
        }
        Ok(())
    }

    async fn set_conversation_model(
        &self,
        id: ConversationId,
        model: Option<&str>,
    ) -> RepoResult<()> {
        let done = sqlx::query("UPDATE conversations SET model_id = $1 WHERE id = $2")
            .bind(model)
            .bind(id.to_string())
            .execute(self.pool())
            .await
            .map_err(storage("choosing a conversation's model"))?;
        if done.rows_affected() == 0 {
            return Err(RepositoryError::not_found("conversation", id));
        }
        Ok(())
    }

    async fn delete_conversation(&self, id: ConversationId) -> RepoResult<bool> {
        let done = sqlx::query("DELETE FROM conversations WHERE id = $1")
            .bind(id.to_string())
            .execute(self.pool())
            .await
            .map_err(storage("deleting a conversation"))?;
        Ok(done.rows_affected() > 0)
    }

    async fn set_compression(
        &self,
        id: ConversationId,
        update: &CompressionUpdate,
    ) -> RepoResult<Conversation> {
        let mut tx = self
            .pool()
            .begin()
            .await
            .map_err(storage("compressing a conversation"))?;
        let current = Self::lock_conversation(&mut tx, id).await?;
        if current.compressed_through_seq != update.expected_previous_seq {
            return Err(RepositoryError::Conflict(
                "the conversation was compacted by another request meanwhile; nothing changed"
                    .to_owned(),
            ));
        }
        if update.compressed_through_seq <= current.history_boundary() {
            return Err(RepositoryError::Conflict(format!(
                "the compression boundary must move forward (from {} to {})",
                current.history_boundary(),
                update.compressed_through_seq
            )));
        }
        let exists: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM messages WHERE conversation_id = $1 AND seq = $2) \
                 OR EXISTS (SELECT 1 FROM tool_calls WHERE conversation_id = $1 AND seq = $2) \
                 OR EXISTS (SELECT 1 FROM think_blocks WHERE conversation_id = $1 AND seq = $2)",
        )
        .bind(id.to_string())
        .bind(update.compressed_through_seq)
        .fetch_one(&mut *tx)
        .await
        .map_err(storage("checking a compression boundary"))?;
        if !exists {
            return Err(RepositoryError::Conflict(format!(
                "no row with seq {} in conversation {id}",
                update.compressed_through_seq
            )));
        }
        sqlx::query(
            "UPDATE conversations SET compressed_context = $1, compressed_at = $2, \
             compressed_through_seq = $3, updated_at = $4 WHERE id = $5",
        )
        .bind(&update.compressed_context)
        .bind(update.compressed_at)
        .bind(update.compressed_through_seq)
        .bind(now())
        .bind(id.to_string())
        .execute(&mut *tx)
        .await
        .map_err(storage("writing the compression fields"))?;
        let updated = Self::fetch_conversation(&mut tx, id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("conversation", id))?;
        tx.commit()
            .await
            .map_err(storage("committing a compression"))?;
        Ok(updated)
    }
}
