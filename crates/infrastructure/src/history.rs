//! `HistoryRepository` on SQLite: appending rows with an atomic `seq`, reading them back.
//!
//! Every write runs on the store's write connection (`tx/writer.rs`). A message append
//! is one statement there (`append.rs`); a tool call or a think block is a one-row model
//! step (`steps.rs`), so those rows have one insert path. The rows after a `seq` are
//! read in one round trip (`bulk.rs`).

mod append;
mod bulk;
mod counts;

pub(crate) use append::{INSERT_MESSAGE, SEQ_TRIGGERS, allocated_seq, message_insert};

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, Message, NewMessage, NewStep, NewThinkBlock, NewToolCall, RecordedStep, Seq,
    StepToolCall, ThinkBlock, ToolCall, ToolCallCompletion,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::{HistoryRepository, RepoResult};
use smallebot_core::rules::truncation::cap_stored_result;

use self::append::APPEND_MESSAGE;
use crate::database::SqliteStore;
use crate::rows;
use crate::tx::{Job, JobKind, ReadConnection, direct_storage, now, storage};

/// The messages nearest to a `seq` (?2): up to ?3 before, the one at it, up to ?4 after.
const MESSAGES_AROUND: &str = "\
    SELECT * FROM (SELECT id, conversation_id, turn_id, seq, role, content, token_count, \
      created_at, replaced_by, is_edited FROM messages \
      WHERE conversation_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3) \
    UNION ALL SELECT id, conversation_id, turn_id, seq, role, content, token_count, \
      created_at, replaced_by, is_edited FROM messages WHERE conversation_id = ?1 AND seq = ?2 \
    UNION ALL SELECT * FROM (SELECT id, conversation_id, turn_id, seq, role, content, \
      token_count, created_at, replaced_by, is_edited FROM messages \
      WHERE conversation_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?4)";

/// The tool calls nearest to a `seq`, like [`MESSAGES_AROUND`].
const CALLS_AROUND: &str = "\
    SELECT * FROM (SELECT id, conversation_id, turn_id, seq, call_id, tool_name, arguments, \
      result, status, token_count, started_at, completed_at FROM tool_calls \
      WHERE conversation_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3) \
    UNION ALL SELECT id, conversation_id, turn_id, seq, call_id, tool_name, arguments, result, \
      status, token_count, started_at, completed_at FROM tool_calls \
      WHERE conversation_id = ?1 AND seq = ?2 \
    UNION ALL SELECT * FROM (SELECT id, conversation_id, turn_id, seq, call_id, tool_name, \
      arguments, result, status, token_count, started_at, completed_at FROM tool_calls \
      WHERE conversation_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?4)";

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
impl HistoryRepository for SqliteStore {
    async fn append_message(&self, message: &NewMessage) -> RepoResult<Message> {
        const ACTION: &str = "appending a message";
        let (at, at_text) = now();
        let id = MessageId::new();
        let mut writer = self.writer().lock().await.map_err(storage(ACTION))?;
        let rows = message_insert(APPEND_MESSAGE, at_text, id, message, false)
            .fetch_all(&mut *writer)
            .await
            .map_err(storage(ACTION))?;
        Ok(Message {
            id,
            conversation_id: message.conversation_id,
            turn_id: message.turn_id,
            seq: allocated_seq(&rows, message.conversation_id)?,
            role: message.role,
            content: message.content.clone(),
            token_count: message.token_count,
            created_at: at,
            replaced_by: None,
            is_edited: false,
        })
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
        let (_, at_text) = now();
        let document = serde_json::json!({
            "subject": turn_id.to_string(),
            "call_id": call_id,
            "result": cap_stored_result(&completion.result).as_ref(),
            "status": completion.status.as_str(),
            "tokens": completion.token_count,
            "at": at_text,
        });
        let returned = self
            .writer()
            .run_batched(Job {
                kind: JobKind::ToolResult,
                doc: document.to_string(),
                keys: vec![format!("result:{turn_id}/{call_id}")],
            })
            .await
            .map_err(direct_storage("completing a tool call"))?;
        let row = returned.first();
        match row {
            Some(row) => rows::tool_call(row),
            None => Err(RepositoryError::not_found(
                "tool call",
                format!("{call_id} of turn {turn_id}"),
            )),
        }
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
        match self.reader("reading history").await? {
            ReadConnection::Writer(writer) => {
                bulk::rows_after_direct(&writer, conversation_id, after_seq, bulk::Rows::All).await
            }
            ReadConnection::Pool(mut conn) => {
                bulk::rows_after(&mut conn, conversation_id, after_seq, bulk::Rows::All).await
            }
        }
    }

    async fn context_rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        match self.reader("reading history").await? {
            ReadConnection::Writer(writer) => {
                bulk::rows_after_direct(&writer, conversation_id, after_seq, bulk::Rows::InContext)
                    .await
            }
            ReadConnection::Pool(mut conn) => {
                bulk::rows_after(&mut conn, conversation_id, after_seq, bulk::Rows::InContext).await
            }
        }
    }

    async fn rows_around(
        &self,
        conversation_id: ConversationId,
        seq: Seq,
        before: u32,
        after: u32,
    ) -> RepoResult<Vec<HistoryRow>> {
        let id = conversation_id.to_string();
        let mut conn = self.reader("reading history").await?;
        let mut found = Vec::new();
        for (sql, is_message) in [(MESSAGES_AROUND, true), (CALLS_AROUND, false)] {
            let rows = sqlx::query(sql)
                .bind(&id)
                .bind(seq)
                .bind(i64::from(before))
                .bind(i64::from(after))
                .fetch_all(&mut *conn)
                .await
                .map_err(storage("reading rows around a search hit"))?;
            for row in &rows {
                found.push(if is_message {
                    HistoryRow::Message(rows::message(row)?)
                } else {
                    HistoryRow::ToolCall(rows::tool_call(row)?)
                });
            }
        }
        found.sort_by_key(HistoryRow::seq);
        let lower = found.iter().filter(|r| r.seq() < seq).count();
        let skip = lower.saturating_sub(before as usize);
        let keep_higher = after as usize;
        let mut higher = 0;
        Ok(found
            .into_iter()
            .skip(skip)
            .filter(|r| {
                if r.seq() <= seq {
                    return true;
                }
                higher += 1;
                higher <= keep_higher
            })
            .collect())
    }

    async fn token_sum_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<i64> {
        let mut conn = self.reader("reading the context token total").await?;
        // At the compression boundary (every turn's case) the running total answers in O(1).
        let at_boundary: Option<i64> = sqlx::query_scalar(
            "SELECT context_tokens FROM conversations \
             WHERE id = ?1 AND COALESCE(compressed_through_seq, 0) = ?2",
        )
        .bind(conversation_id.to_string())
        .bind(after_seq)
        .fetch_optional(&mut *conn)
        .await
        .map_err(storage("reading the context token total"))?;
        if let Some(total) = at_boundary {
            return Ok(total);
        }
        sqlx::query_scalar(
            "SELECT (SELECT COALESCE(SUM(token_count), 0) FROM messages \
                     WHERE conversation_id = ?1 AND seq > ?2 AND replaced_by IS NULL \
                     AND undone = 0) \
                  + (SELECT COALESCE(SUM(token_count), 0) FROM tool_calls \
                     WHERE conversation_id = ?1 AND seq > ?2 AND undone = 0)",
        )
        .bind(conversation_id.to_string())
        .bind(after_seq)
        .fetch_one(&mut *conn)
        .await
        .map_err(storage("summing token counts"))
    }

    async fn mark_counts_provisional(
        &self,
        conversation_id: ConversationId,
        from_seq: Seq,
    ) -> RepoResult<()> {
        self.mark_provisional(conversation_id, from_seq).await
    }

    async fn set_exact_counts(
        &self,
        conversation_id: ConversationId,
        counts: &[(Seq, i64)],
        through_seq: Seq,
    ) -> RepoResult<()> {
        self.store_exact_counts(conversation_id, counts, through_seq)
            .await
    }
}
