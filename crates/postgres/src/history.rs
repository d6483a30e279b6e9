//! `HistoryRepository` on PostgreSQL (being written).

use async_trait::async_trait;
use smallebot_core::entities::*;
use smallebot_core::ids::*;
use smallebot_core::repository::*;
use smallebot_core::time::Timestamp;

use crate::store::PgStore;

#[async_trait]
impl HistoryRepository for PgStore {
    #[allow(unused_variables)]
    async fn append_message(&self, message: &NewMessage) -> RepoResult<Message> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "history",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn append_tool_call(&self, call: &NewToolCall) -> RepoResult<ToolCall> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "history",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn complete_tool_call(
        &self,
        turn_id: TurnId,
        call_id: &str,
        completion: &ToolCallCompletion,
    ) -> RepoResult<ToolCall> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "history",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn append_think_block(&self, block: &NewThinkBlock) -> RepoResult<ThinkBlock> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "history",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "history",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn context_rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "history",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn rows_around(
        &self,
        conversation_id: ConversationId,
        seq: Seq,
        before: u32,
        after: u32,
    ) -> RepoResult<Vec<HistoryRow>> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "history",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn token_sum_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<i64> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "history",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn mark_counts_provisional(
        &self,
        conversation_id: ConversationId,
        from_seq: Seq,
    ) -> RepoResult<()> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "history",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn set_exact_counts(
        &self,
        conversation_id: ConversationId,
        counts: &[(Seq, i64)],
        through_seq: Seq,
    ) -> RepoResult<()> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "history",
            message: "not written yet".into(),
        })
    }
}
