//! `ConversationRepository` on SQLite.

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{CompressionUpdate, Conversation};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{ConversationRepository, RepoResult};
use smallebot_core::time::format_timestamp;

use crate::database::SqliteStore;
use crate::rows;
use crate::tx::{Job, JobKind, ReadConnection, direct_storage, now, run_script, storage};

/// The conversation ?1.
const SELECT_CONVERSATION: &str = "\
    SELECT id, user_name, title, created_at, updated_at, compressed_context, \
    compressed_at, compressed_through_seq, context_tokens, model_id, \
    provisional_counts_from_seq FROM conversations WHERE id = ?1";

impl SqliteStore {
    pub(crate) async fn fetch_conversation(
        conn: &mut sqlx::SqliteConnection,
        id: ConversationId,
    ) -> RepoResult<Option<Conversation>> {
        let row = sqlx::query(SELECT_CONVERSATION)
            .bind(id.to_string())
            .fetch_optional(&mut *conn)
            .await
            .map_err(storage("reading a conversation"))?;
        row.as_ref().map(rows::conversation).transpose()
    }
}

#[async_trait]
impl ConversationRepository for SqliteStore {
    async fn create_conversation(&self, user_name: &str, title: &str) -> RepoResult<Conversation> {
        let (at, at_text) = now();
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
        let document = serde_json::json!({
            "subject": conversation.id.to_string(),
            "user": user_name,
            "title": title,
            "at": at_text,
        });
        self.writer()
            .run_batched(Job {
                kind: JobKind::CreateConversation,
                doc: document.to_string(),
                keys: vec![format!("conversation:{}", conversation.id)],
            })
            .await
            .map_err(direct_storage("creating a conversation"))?;
        Ok(conversation)
    }

    async fn list_conversations(&self, user_name: Option<&str>) -> RepoResult<Vec<Conversation>> {
        let found = sqlx::query(
            "SELECT id, user_name, title, created_at, updated_at, compressed_context, \
             compressed_at, compressed_through_seq, context_tokens, model_id, \
             provisional_counts_from_seq FROM conversations \
             WHERE ?1 IS NULL OR user_name = ?1 ORDER BY updated_at DESC, id DESC",
        )
        .bind(user_name)
        .fetch_all(self.pool())
        .await
        .map_err(storage("listing conversations"))?;
        found.iter().map(rows::conversation).collect()
    }

    async fn get_conversation(&self, id: ConversationId) -> RepoResult<Option<Conversation>> {
        const ACTION: &str = "reading a conversation";
        match self.reader(ACTION).await? {
            ReadConnection::Writer(writer) => {
                let id = id.to_string();
                let found = writer
                    .direct(move |conn| run_script(conn, SELECT_CONVERSATION, &[&id]))
                    .await
                    .map_err(direct_storage(ACTION))?;
                found.first().map(rows::conversation).transpose()
            }
            ReadConnection::Pool(mut conn) => Self::fetch_conversation(&mut conn, id).await,
        }
    }

    async fn rename_conversation(&self, id: ConversationId, title: &str) -> RepoResult<()> {
        let (_, at_text) = now();
        let document = serde_json::json!({
            "subject": id.to_string(),
            "title": title,
            "at": at_text,
        });
        let renamed = self
            .writer()
            .run_batched(Job {
                kind: JobKind::RenameConversation,
                doc: document.to_string(),
                keys: vec![format!("conversation:{id}")],
            })
            .await
            .map_err(direct_storage("renaming a conversation"))?;
        if renamed.is_empty() {
            return Err(RepositoryError::not_found("conversation", id));
        }
        Ok(())
    }

    async fn set_conversation_model(
        &self,
        id: ConversationId,
        model: Option<&str>,
    ) -> RepoResult<()> {
        let update = sqlx::query("UPDATE conversations SET model_id = ?1 WHERE id = ?2")
            .bind(model)
            .bind(id.to_string());
        let done = self
            .write_one("choosing a conversation's model", update)
            .await?;
        if done.rows_affected() == 0 {
            return Err(RepositoryError::not_found("conversation", id));
        }
        Ok(())
    }

    async fn delete_conversation(&self, id: ConversationId) -> RepoResult<bool> {
        let delete = sqlx::query("DELETE FROM conversations WHERE id = ?1").bind(id.to_string());
        let done = self.write_one("deleting a conversation", delete).await?;
        Ok(done.rows_affected() > 0)
    }

    async fn set_compression(
        &self,
        id: ConversationId,
        update: &CompressionUpdate,
    ) -> RepoResult<Conversation> {
        let mut tx = self.write_tx("compressing a conversation").await?;
        let current = Self::fetch_conversation(&mut tx, id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("conversation", id))?;
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
        let exists: i64 = sqlx::query_scalar(
            "SELECT (SELECT COUNT(*) FROM messages WHERE conversation_id = ?1 AND seq = ?2) \
                  + (SELECT COUNT(*) FROM tool_calls WHERE conversation_id = ?1 AND seq = ?2) \
                  + (SELECT COUNT(*) FROM think_blocks WHERE conversation_id = ?1 AND seq = ?2)",
        )
        .bind(id.to_string())
        .bind(update.compressed_through_seq)
        .fetch_one(&mut *tx)
        .await
        .map_err(storage("checking a compression boundary"))?;
        if exists == 0 {
            return Err(RepositoryError::Conflict(format!(
                "no row with seq {} in conversation {id}",
                update.compressed_through_seq
            )));
        }
        let (_, at_text) = now();
        sqlx::query(
            "UPDATE conversations SET compressed_context = ?1, compressed_at = ?2, \
             compressed_through_seq = ?3, updated_at = ?4 WHERE id = ?5",
        )
        .bind(&update.compressed_context)
        .bind(format_timestamp(&update.compressed_at))
        .bind(update.compressed_through_seq)
        .bind(at_text)
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

#[cfg(test)]
mod tests {
    use smallebot_core::entities::{CompressionUpdate, NewMessage, Role};
    use smallebot_core::ids::ConversationId;
    use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};

    use crate::database::SqliteStore;

    /// A conversation read on the write connection's direct twin (`tx/direct.rs`, what
    /// a read uses when the write lock is free) and through sqlx (when it is not)
    /// decode alike, with its optional fields set or not.
    #[tokio::test]
    async fn a_conversation_reads_the_same_on_both_kinds_of_connection() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("t.db")).await.unwrap();
        let plain = store.create_conversation("u", "plain").await.unwrap();
        let full = store.create_conversation("u", "full").await.unwrap();
        store
            .set_conversation_model(full.id, Some("fast"))
            .await
            .unwrap();
        let turn = store.start_turn(full.id, false).await.unwrap();
        let message = store
            .append_message(&NewMessage {
                conversation_id: full.id,
                turn_id: turn.id,
                role: Role::User,
                content: "hello".into(),
                token_count: 3,
            })
            .await
            .unwrap();
        let compressed = store
            .set_compression(
                full.id,
                &CompressionUpdate {
                    compressed_context: "summary".into(),
                    compressed_at: chrono::Utc::now(),
                    compressed_through_seq: message.seq,
                    expected_previous_seq: None,
                },
            )
            .await
            .unwrap();
        for id in [plain.id, full.id] {
            let direct = store.get_conversation(id).await.unwrap().unwrap();
            let mut conn = store.pool().acquire().await.unwrap();
            let via_sqlx = SqliteStore::fetch_conversation(&mut conn, id)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(direct, via_sqlx);
        }
        let read = store.get_conversation(full.id).await.unwrap().unwrap();
        assert_eq!(read, compressed);
        assert_eq!(read.compressed_context.as_deref(), Some("summary"));
        assert_eq!(read.model.as_deref(), Some("fast"));
        assert!(
            store
                .get_conversation(ConversationId::new())
                .await
                .unwrap()
                .is_none()
        );
    }
}
