//! `HistoryRepository` on PostgreSQL: appending rows with the conversation's next `seq`,
//! reading them back, and token counts.
//!
//! An appended message, tool call or think block is a one-row model step, written by
//! the writer (`write/steps.rs`), so a turn's rows have one insert path (an edit's new
//! message, inside its transaction, is the exception); reads are in `read.rs`,
//! provisional counts in `counts.rs`.

mod counts;
mod read;

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, Message, NewMessage, NewStep, NewThinkBlock, NewToolCall, RecordedStep, Role, Seq,
    StepToolCall, ThinkBlock, ToolCall, ToolCallCompletion,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::{HistoryRepository, RepoResult};
use smallebot_core::rules::truncation::cap_stored_result;
use sqlx::PgConnection;

use crate::store::PgStore;
use crate::tx::{now, pg_text, storage};
use crate::write::{CompleteCall, Job, PreparedStep};

/// Inserts a message with the conversation's next `seq` (taking its row lock until the
/// transaction ends).
pub(crate) async fn insert_message(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
    turn_id: TurnId,
    role: Role,
    content: &str,
    token_count: i64,
    is_edited: bool,
) -> RepoResult<Message> {
    let seq = PgStore::allocate_seqs(conn, conversation_id, 1).await?;
    let at = now();
    let id = MessageId::new();
    let content = pg_text(content).into_owned();
    sqlx::query(
        "INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, token_count, \
         created_at, is_edited) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(id.to_string())
    .bind(conversation_id.to_string())
    .bind(turn_id.to_string())
    .bind(seq)
    .bind(role.as_str())
    .bind(&content)
    .bind(token_count)
    .bind(at)
    .bind(is_edited)
    .execute(&mut *conn)
    .await
    .map_err(|err| match &err {
        sqlx::Error::Database(db) if db.code().as_deref() == Some("23503") => {
            RepositoryError::not_found("turn", turn_id)
        }
        _ => storage("appending a message")(err),
    })?;
    Ok(Message {
        id,
        conversation_id,
        turn_id,
        seq,
        role,
        content,
        token_count,
        created_at: at,
        replaced_by: None,
        is_edited,
    })
}

/// The one row a single-row step wrote.
fn only_row(step: RecordedStep) -> RepoResult<HistoryRow> {
    let mut rows = step.rows.into_iter();
    match (rows.next(), rows.next()) {
        (Some(row), None) => Ok(row),
        _ => Err(RepositoryError::Corrupt(
            "a one-row step did not write exactly one row".into(),
        )),
    }
}

fn unexpected_row(row: &HistoryRow) -> RepositoryError {
    RepositoryError::Corrupt(format!("a one-row step wrote a different row: {row:?}"))
}

#[async_trait]
impl HistoryRepository for PgStore {
    async fn append_message(&self, message: &NewMessage) -> RepoResult<Message> {
        // A step of one message: the writer's one way of adding rows to a turn.
        let at = now();
        let step = PreparedStep {
            conversation_id: message.conversation_id,
            turn_id: message.turn_id,
            at,
            think: None,
            message: Some(Message {
                id: MessageId::new(),
                conversation_id: message.conversation_id,
                turn_id: message.turn_id,
                seq: 1,
                role: message.role,
                content: pg_text(&message.content).into_owned(),
                token_count: message.token_count,
                created_at: at,
                replaced_by: None,
                is_edited: false,
            }),
            calls: Vec::new(),
            end: None,
        };
        let recorded = self
            .writer()
            .submit("appending a message", |reply| {
                Job::RecordStep(Box::new(step), reply)
            })
            .await?;
        match only_row(recorded)? {
            HistoryRow::Message(stored) => Ok(stored),
            other => Err(unexpected_row(&other)),
        }
    }

    async fn append_tool_call(&self, call: &NewToolCall) -> RepoResult<ToolCall> {
        // A step of one running call: the one way tool calls are inserted.
        let step = NewStep {
            conversation_id: call.conversation_id,
            turn_id: call.turn_id,
            reasoning: None,
            message: None,
            tool_calls: vec![StepToolCall {
                call_id: call.call_id.clone(),
                tool_name: call.tool_name.clone(),
                arguments: call.arguments.clone(),
                token_count: call.token_count,
            }],
            end: None,
        };
        match only_row(crate::steps::record_step(self, &step).await?)? {
            HistoryRow::ToolCall(recorded) => Ok(recorded),
            other => Err(unexpected_row(&other)),
        }
    }

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

    async fn append_think_block(&self, block: &NewThinkBlock) -> RepoResult<ThinkBlock> {
        // A step of reasoning only: the one way think blocks are inserted.
        let step = NewStep {
            conversation_id: block.conversation_id,
            turn_id: block.turn_id,
            reasoning: Some(block.content.clone()),
            message: None,
            tool_calls: Vec::new(),
            end: None,
        };
        match only_row(crate::steps::record_step(self, &step).await?)? {
            HistoryRow::ThinkBlock(recorded) => Ok(recorded),
            other => Err(unexpected_row(&other)),
        }
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
        counts::mark_provisional(self, conversation_id, from_seq).await
    }

    async fn set_exact_counts(
        &self,
        conversation_id: ConversationId,
        counts: &[(Seq, i64)],
        through_seq: Seq,
    ) -> RepoResult<()> {
        counts::store_exact(self, conversation_id, counts, through_seq).await
    }
}
