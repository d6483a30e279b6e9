//! `HistoryRepository` on SQLite: completing tool calls and token counts (jobs of the
//! writer, `write/history.rs`), reading rows back from the read pool; the rows after a
//! `seq` are read in one statement (`bulk.rs`). Also the test-support writes
//! (`RowFixtures`: a bare turn, a single message).

mod bulk;
#[cfg(any(test, feature = "test-support"))]
mod fixtures;

use async_trait::async_trait;
use smallebot_core::entities::{
    AnswerVersion, HistoryRow, Message, Seq, ToolCall, ToolCallCompletion,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::{HistoryRepository, RepoResult};

use crate::database::SqliteStore;
use crate::queries::{self, int0};
use crate::rows;
use crate::write::Write;

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

#[async_trait]
impl HistoryRepository for SqliteStore {
    async fn complete_tool_call(
        &self,
        turn_id: TurnId,
        call_id: &str,
        completion: &ToolCallCompletion,
    ) -> RepoResult<ToolCall> {
        let (call_id, completion) = (call_id.to_owned(), completion.clone());
        self.writer()
            .run(|reply| Write::CompleteToolCall {
                turn_id,
                call_id,
                completion,
                reply,
            })
            .await
    }

    async fn get_message(&self, message_id: MessageId) -> RepoResult<Option<Message>> {
        self.readers()
            .read("reading a message", move |conn| {
                queries::message(conn, message_id)
            })
            .await
    }

    async fn rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        self.readers()
            .read("reading history", move |conn| {
                let mut rows = bulk::rows_after(conn, conversation_id, after_seq, bulk::Rows::All)?;
                queries::fill_row_attachments(conn, &mut rows)?;
                Ok(rows)
            })
            .await
    }

    async fn answer_versions(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<AnswerVersion>> {
        const ACTION: &str = "reading replaced answers";
        let id = conversation_id.to_string();
        self.readers()
            .read(ACTION, move |conn| {
                queries::all(
                    conn,
                    ACTION,
                    "SELECT conversation_id, turn_id, message_id, content, created_at \
                     FROM answer_versions WHERE conversation_id = ?1 ORDER BY id",
                    [&id],
                    rows::answer_version,
                )
            })
            .await
    }

    async fn context_rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        self.readers()
            .read("reading history", move |conn| {
                let mut rows =
                    bulk::rows_after(conn, conversation_id, after_seq, bulk::Rows::InContext)?;
                queries::fill_row_attachments(conn, &mut rows)?;
                Ok(rows)
            })
            .await
    }

    async fn rows_around(
        &self,
        conversation_id: ConversationId,
        seq: Seq,
        before: u32,
        after: u32,
    ) -> RepoResult<Vec<HistoryRow>> {
        const ACTION: &str = "reading rows around a search hit";
        let id = conversation_id.to_string();
        let mut found = self
            .readers()
            .read(ACTION, move |conn| {
                let params = (&id, seq, i64::from(before), i64::from(after));
                let mut found = queries::all(conn, ACTION, MESSAGES_AROUND, params, |row| {
                    rows::message(row).map(HistoryRow::Message)
                })?;
                found.extend(queries::all(conn, ACTION, CALLS_AROUND, params, |row| {
                    rows::tool_call(row).map(HistoryRow::ToolCall)
                })?);
                queries::fill_row_attachments(conn, &mut found)?;
                Ok(found)
            })
            .await?;
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
        const ACTION: &str = "reading the context token total";
        let id = conversation_id.to_string();
        self.readers()
            .read(ACTION, move |conn| {
                // At the compression boundary (every turn's case) the running total
                // answers in O(1).
                let at_boundary = queries::first(
                    conn,
                    ACTION,
                    "SELECT context_tokens FROM conversations \
                     WHERE id = ?1 AND COALESCE(compressed_through_seq, 0) = ?2",
                    (&id, after_seq),
                    int0,
                )?;
                if let Some(total) = at_boundary {
                    return Ok(total);
                }
                Ok(queries::first(
                    conn,
                    "summing token counts",
                    "SELECT (SELECT COALESCE(SUM(token_count), 0) FROM messages \
                             WHERE conversation_id = ?1 AND seq > ?2 AND replaced_by IS NULL \
                             AND undone = 0) \
                          + (SELECT COALESCE(SUM(token_count), 0) FROM tool_calls \
                             WHERE conversation_id = ?1 AND seq > ?2 AND undone = 0)",
                    (&id, after_seq),
                    int0,
                )?
                .unwrap_or(0))
            })
            .await
    }

    async fn mark_counts_provisional(
        &self,
        conversation_id: ConversationId,
        from_seq: Seq,
    ) -> RepoResult<()> {
        self.writer()
            .run(|reply| Write::MarkCountsProvisional {
                conversation_id,
                from_seq,
                reply,
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
        self.writer()
            .run(|reply| Write::SetExactCounts {
                conversation_id,
                counts,
                through_seq,
                reply,
            })
            .await
    }
}
