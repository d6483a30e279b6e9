//! `HistoryRepository` on PostgreSQL: completing tool calls, reading rows back, and
//! token counts; reads are in `read.rs` (the rows in the context kept between reads
//! in `cache.rs`), the context total in `counts.rs`, every write a job of the writer. Also the test-support writes (`RowFixtures`: a bare turn, a
//! single message, each with the conversation's next `seq`).

pub(crate) mod cache;
mod counts;
#[cfg(any(test, feature = "test-support"))]
mod fixtures;
mod read;

use async_trait::async_trait;
use smallebot_core::entities::{
    AnswerVersion, HistoryRow, Message, Seq, ToolCall, ToolCallCompletion,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::{HistoryRepository, RepoResult};
use smallebot_core::rules::truncation::cap_stored_result;

use crate::store::PgStore;
use crate::tx::{pg_text, storage};
use crate::write::{CompleteCall, ConversationEdit, Edit, Job};

#[async_trait]
impl HistoryRepository for PgStore {
    async fn complete_tool_call(
        &self,
        turn_id: TurnId,
        call_id: &str,
        completion: &ToolCallCompletion,
    ) -> RepoResult<ToolCall> {
        let call = CompleteCall {
            turn_id,
            call_id: pg_text(call_id).into_owned(),
            result: pg_text(&cap_stored_result(&completion.result)).into_owned(),
            status: completion.status,
            token_count: completion.token_count,
        };
        self.writer()
            .submit("completing a tool call", |reply| {
                Job::CompleteCall(call, reply)
            })
            .await
    }

    async fn get_message(&self, message_id: MessageId) -> RepoResult<Option<Message>> {
        let mut conn = self
            .pool()
            .acquire()
            .await
            .map_err(storage("reading a message"))?;
        crate::fetch::fetch_message(&mut conn, message_id).await
    }

    async fn answer_versions(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<AnswerVersion>> {
        read::answer_versions(self, conversation_id).await
    }

    async fn rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        read::rows_after(self, conversation_id, after_seq, read::Rows::All).await
    }

    async fn context_rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        read::rows_after(self, conversation_id, after_seq, read::Rows::InContext).await
    }

    async fn rows_around(
        &self,
        conversation_id: ConversationId,
        seq: Seq,
        before: u32,
        after: u32,
    ) -> RepoResult<Vec<HistoryRow>> {
        read::rows_around(self, conversation_id, seq, before, after).await
    }

    async fn token_sum_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<i64> {
        counts::token_sum_after(self, conversation_id, after_seq).await
    }

    async fn mark_counts_provisional(
        &self,
        conversation_id: ConversationId,
        from_seq: Seq,
    ) -> RepoResult<()> {
        self.edit("marking provisional token counts", |reply| {
            Edit::Conversation(ConversationEdit::MarkProvisional(
                conversation_id,
                from_seq,
                reply,
            ))
        })
        .await
    }

    async fn set_exact_counts(
        &self,
        conversation_id: ConversationId,
        counts: &[(Seq, i64)],
        through_seq: Seq,
    ) -> RepoResult<()> {
        let counts = counts.to_vec();
        self.edit("storing exact token counts", |reply| {
            Edit::Conversation(ConversationEdit::ExactCounts {
                conversation_id,
                counts,
                through_seq,
                reply,
            })
        })
        .await
    }
}
