//! `HistoryRepository` on SQLite: appending rows with an atomic `seq`, reading them back.

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, Message, NewMessage, NewThinkBlock, NewToolCall, Seq, ThinkBlock, ToolCall,
    ToolCallCompletion, ToolCallStatus,
};
use smallebot_core::ids::{ConversationId, ThinkBlockId, ToolCallId, TurnId};
use smallebot_core::repository::{HistoryRepository, RepoResult};

use crate::database::SqliteStore;
use crate::rows;
use crate::turns::insert_message;
use crate::tx::{next_seq, now, storage};

/// Stored tool results are capped at 1 MiB.
pub const MAX_STORED_RESULT_BYTES: usize = 1024 * 1024;
/// Appended to a stored result cut at [`MAX_STORED_RESULT_BYTES`].
const STORED_RESULT_MARKER: &str = "\n... [result cut at 1 MiB when stored]";

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

/// Cuts `text` to at most `max` bytes on a character boundary, adding the marker.
fn cap_stored_result(text: &str) -> String {
    if text.len() <= MAX_STORED_RESULT_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_STORED_RESULT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{STORED_RESULT_MARKER}", &text[..end])
}

#[async_trait]
impl HistoryRepository for SqliteStore {
    async fn append_message(&self, message: &NewMessage) -> RepoResult<Message> {
        let mut tx = self.write_tx("appending a message").await?;
        let stored = insert_message(
            &mut tx,
            message.conversation_id,
            message.turn_id,
            message.role,
            &message.content,
            message.token_count,
            false,
        )
        .await?;
        tx.commit().await.map_err(storage("appending a message"))?;
        Ok(stored)
    }

    async fn append_tool_call(&self, call: &NewToolCall) -> RepoResult<ToolCall> {
        let mut tx = self.write_tx("recording a tool call").await?;
        let (at, at_text) = now();
        let seq = next_seq(&mut tx, call.conversation_id, &at_text).await?;
        let stored = ToolCall {
            id: ToolCallId::new(),
            conversation_id: call.conversation_id,
            turn_id: call.turn_id,
            seq,
            call_id: call.call_id.clone(),
            tool_name: call.tool_name.clone(),
            arguments: call.arguments.clone(),
            result: None,
            status: ToolCallStatus::Running,
            token_count: call.token_count,
            started_at: at,
            completed_at: None,
        };
        sqlx::query(
            "INSERT INTO tool_calls (id, conversation_id, turn_id, seq, call_id, tool_name, \
             arguments, status, token_count, started_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running', ?8, ?9)",
        )
        .bind(stored.id.to_string())
        .bind(call.conversation_id.to_string())
        .bind(call.turn_id.to_string())
        .bind(seq)
        .bind(&call.call_id)
        .bind(&call.tool_name)
        .bind(&call.arguments)
        .bind(call.token_count)
        .bind(at_text)
        .execute(&mut *tx)
        .await
        .map_err(|err| match &err {
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                RepositoryError::Conflict(format!(
                    "tool call id '{}' is already used in this turn",
                    call.call_id
                ))
            }
            _ => storage("recording a tool call")(err),
        })?;
        tx.commit()
            .await
            .map_err(storage("recording a tool call"))?;
        Ok(stored)
    }

    async fn complete_tool_call(
        &self,
        turn_id: TurnId,
        call_id: &str,
        completion: &ToolCallCompletion,
    ) -> RepoResult<ToolCall> {
        let (_, at_text) = now();
        let row = sqlx::query(
            "UPDATE tool_calls SET result = ?1, status = ?2, token_count = ?3, completed_at = ?4 \
             WHERE turn_id = ?5 AND call_id = ?6 \
             RETURNING id, conversation_id, turn_id, seq, call_id, tool_name, arguments, result, \
             status, token_count, started_at, completed_at",
        )
        .bind(cap_stored_result(&completion.result))
        .bind(completion.status.as_str())
        .bind(completion.token_count)
        .bind(at_text)
        .bind(turn_id.to_string())
        .bind(call_id)
        .fetch_optional(self.pool())
        .await
        .map_err(storage("completing a tool call"))?;
        match row {
            Some(row) => rows::tool_call(&row),
            None => Err(RepositoryError::not_found(
                "tool call",
                format!("{call_id} of turn {turn_id}"),
            )),
        }
    }

    async fn append_think_block(&self, block: &NewThinkBlock) -> RepoResult<ThinkBlock> {
        let mut tx = self.write_tx("recording reasoning").await?;
        let (at, at_text) = now();
        let seq = next_seq(&mut tx, block.conversation_id, &at_text).await?;
        let stored = ThinkBlock {
            id: ThinkBlockId::new(),
            conversation_id: block.conversation_id,
            turn_id: block.turn_id,
            seq,
            content: block.content.clone(),
            created_at: at,
        };
        sqlx::query(
            "INSERT INTO think_blocks (id, conversation_id, turn_id, seq, content, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .bind(stored.id.to_string())
        .bind(block.conversation_id.to_string())
        .bind(block.turn_id.to_string())
        .bind(seq)
        .bind(&block.content)
        .bind(at_text)
        .execute(&mut *tx)
        .await
        .map_err(storage("recording reasoning"))?;
        tx.commit().await.map_err(storage("recording reasoning"))?;
        Ok(stored)
    }

    async fn rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        let id = conversation_id.to_string();
        let mut conn = self
            .pool()
            .acquire()
            .await
            .map_err(storage("reading history"))?;
        let messages = sqlx::query(
            "SELECT id, conversation_id, turn_id, seq, role, content, token_count, created_at, \
             replaced_by, is_edited FROM messages WHERE conversation_id = ?1 AND seq > ?2 \
             ORDER BY seq",
        )
        .bind(&id)
        .bind(after_seq)
        .fetch_all(&mut *conn)
        .await
        .map_err(storage("reading messages"))?;
        let calls = sqlx::query(
            "SELECT id, conversation_id, turn_id, seq, call_id, tool_name, arguments, result, \
             status, token_count, started_at, completed_at FROM tool_calls \
             WHERE conversation_id = ?1 AND seq > ?2 ORDER BY seq",
        )
        .bind(&id)
        .bind(after_seq)
        .fetch_all(&mut *conn)
        .await
        .map_err(storage("reading tool calls"))?;
        let blocks = sqlx::query(
            "SELECT id, conversation_id, turn_id, seq, content, created_at FROM think_blocks \
             WHERE conversation_id = ?1 AND seq > ?2 ORDER BY seq",
        )
        .bind(&id)
        .bind(after_seq)
        .fetch_all(&mut *conn)
        .await
        .map_err(storage("reading reasoning"))?;
        let mut rows_out = Vec::with_capacity(messages.len() + calls.len() + blocks.len());
        for row in &messages {
            rows_out.push(HistoryRow::Message(rows::message(row)?));
        }
        for row in &calls {
            rows_out.push(HistoryRow::ToolCall(rows::tool_call(row)?));
        }
        for row in &blocks {
            rows_out.push(HistoryRow::ThinkBlock(rows::think_block(row)?));
        }
        rows_out.sort_by_key(HistoryRow::seq);
        Ok(rows_out)
    }

    async fn rows_around(
        &self,
        conversation_id: ConversationId,
        seq: Seq,
        before: u32,
        after: u32,
    ) -> RepoResult<Vec<HistoryRow>> {
        let id = conversation_id.to_string();
        let mut conn = self
            .pool()
            .acquire()
            .await
            .map_err(storage("reading history"))?;
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
        // At the compression boundary (every turn's case) the running total answers in O(1).
        let at_boundary: Option<i64> = sqlx::query_scalar(
            "SELECT context_tokens FROM conversations \
             WHERE id = ?1 AND COALESCE(compressed_through_seq, 0) = ?2",
        )
        .bind(conversation_id.to_string())
        .bind(after_seq)
        .fetch_optional(self.pool())
        .await
        .map_err(storage("reading the context token total"))?;
        if let Some(total) = at_boundary {
            return Ok(total);
        }
        sqlx::query_scalar(
            "SELECT (SELECT COALESCE(SUM(token_count), 0) FROM messages \
                     WHERE conversation_id = ?1 AND seq > ?2 AND replaced_by IS NULL) \
                  + (SELECT COALESCE(SUM(token_count), 0) FROM tool_calls \
                     WHERE conversation_id = ?1 AND seq > ?2)",
        )
        .bind(conversation_id.to_string())
        .bind(after_seq)
        .fetch_one(self.pool())
        .await
        .map_err(storage("summing token counts"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_results_are_capped_on_a_char_boundary() {
        let small = "short";
        assert_eq!(cap_stored_result(small), small);
        let big = "é".repeat(MAX_STORED_RESULT_BYTES); // 2 bytes each
        let capped = cap_stored_result(&big);
        assert!(capped.ends_with(STORED_RESULT_MARKER));
        assert!(capped.len() <= MAX_STORED_RESULT_BYTES + STORED_RESULT_MARKER.len());
    }
}
