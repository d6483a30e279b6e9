//! The writes of history rows: messages, model steps, tool results, token counts,
//! and the full-text index.

use rusqlite::Connection;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, NewMessage, NewStep, RecordedStep, Role, Seq, StepToolCall, ThinkBlock, ToolCall,
    ToolCallCompletion, ToolCallStatus,
};
use smallebot_core::ids::{ConversationId, ThinkBlockId, ToolCallId, TurnId};
use smallebot_core::repository::RepoResult;
use smallebot_core::rules::truncation::cap_stored_result;
use smallebot_core::tool_call_columns;

use super::append::{finish, insert_message};
use crate::error::{is_unique_violation, sqlite};
use crate::queries::{execute, first, int0};
use crate::rows;
use crate::time::{Now, now};

/// A message appended with the next `seq` (a test fixture).
#[cfg(any(test, feature = "test-support"))]
pub(super) fn append_message(
    conn: &Connection,
    message: &NewMessage,
) -> RepoResult<smallebot_core::entities::Message> {
    insert_message(conn, message, false, &now())
}

/// What recording a model step does, for errors.
const RECORD_STEP: &str = "recording a model step";

/// Records a model step — reasoning, assistant message, requested tool calls — and,
/// for the last step, the end of its turn. Each row takes the conversation's next
/// `seq` in that order.
pub(super) fn record_step(conn: &Connection, step: &NewStep) -> RepoResult<RecordedStep> {
    let stamp = now();
    let mut recorded = Vec::with_capacity(
        usize::from(step.reasoning.is_some())
            + usize::from(step.message.is_some())
            + step.tool_calls.len(),
    );
    if let Some(content) = &step.reasoning {
        recorded.push(insert_think(conn, step, content, &stamp)?);
    }
    if let Some(message) = &step.message {
        let written = insert_message(
            conn,
            &NewMessage {
                conversation_id: step.conversation_id,
                turn_id: step.turn_id,
                role: Role::Assistant,
                content: message.content.clone(),
                token_count: message.token_count,
            },
            false,
            &stamp,
        )?;
        recorded.push(HistoryRow::Message(written));
    }
    for call in &step.tool_calls {
        recorded.push(insert_call(conn, step, call, &stamp)?);
    }
    let turn = match &step.end {
        Some(end) => Some(finish(
            conn,
            step.turn_id,
            end.status,
            end.error.as_deref(),
            end.cut,
        )?),
        None => None,
    };
    Ok(RecordedStep {
        rows: recorded,
        turn,
    })
}

/// A step's reasoning, stored at the conversation's next `seq`.
fn insert_think(
    conn: &Connection,
    step: &NewStep,
    content: &str,
    (at, at_text): &Now,
) -> RepoResult<HistoryRow> {
    let id = ThinkBlockId::new();
    let seq = first(
        conn,
        RECORD_STEP,
        "INSERT INTO think_blocks (id, conversation_id, turn_id, seq, content, created_at) \
         SELECT ?1, id, ?2, last_seq + 1, ?3, ?4 FROM conversations WHERE id = ?5 \
         RETURNING seq",
        (
            id.to_string(),
            step.turn_id.to_string(),
            content,
            at_text,
            step.conversation_id.to_string(),
        ),
        int0,
    )?
    .ok_or_else(|| RepositoryError::not_found("conversation", step.conversation_id))?;
    Ok(HistoryRow::ThinkBlock(ThinkBlock {
        id,
        conversation_id: step.conversation_id,
        turn_id: step.turn_id,
        seq,
        content: content.to_owned(),
        created_at: *at,
    }))
}

/// One tool call the step requests, stored running at the conversation's next `seq`.
fn insert_call(
    conn: &Connection,
    step: &NewStep,
    call: &StepToolCall,
    (at, at_text): &Now,
) -> RepoResult<HistoryRow> {
    let id = ToolCallId::new();
    let seq = conn
        .prepare_cached(
            "INSERT INTO tool_calls (id, conversation_id, turn_id, seq, call_id, tool_name, \
             arguments, status, token_count, started_at) \
             SELECT ?1, id, ?2, last_seq + 1, ?3, ?4, ?5, 'running', ?6, ?7 \
             FROM conversations WHERE id = ?8 RETURNING seq",
        )
        .and_then(|mut stmt| {
            let mut rows = stmt.query((
                id.to_string(),
                step.turn_id.to_string(),
                &call.call_id,
                &call.tool_name,
                &call.arguments,
                call.token_count,
                at_text,
                step.conversation_id.to_string(),
            ))?;
            rows.next()?.map(|row| row.get::<_, i64>(0)).transpose()
        })
        .map_err(|err| {
            if is_unique_violation(&err) {
                RepositoryError::tool_call_id_reused()
            } else {
                sqlite(RECORD_STEP)(err)
            }
        })?
        .ok_or_else(|| RepositoryError::not_found("conversation", step.conversation_id))?;
    Ok(HistoryRow::ToolCall(ToolCall {
        id,
        conversation_id: step.conversation_id,
        turn_id: step.turn_id,
        seq,
        call_id: call.call_id.clone(),
        tool_name: call.tool_name.clone(),
        arguments: call.arguments.clone(),
        result: None,
        status: ToolCallStatus::Running,
        token_count: call.token_count,
        started_at: *at,
        completed_at: None,
    }))
}

/// Stores a tool call's result (capped) and ends the call.
pub(super) fn complete_tool_call(
    conn: &Connection,
    turn_id: TurnId,
    call_id: &str,
    completion: &ToolCallCompletion,
) -> RepoResult<ToolCall> {
    let (_, at) = now();
    first(
        conn,
        "completing a tool call",
        concat!(
            "UPDATE tool_calls SET result = ?1, status = ?2, token_count = ?3, \
             completed_at = ?4 WHERE turn_id = ?5 AND call_id = ?6 RETURNING ",
            tool_call_columns!()
        ),
        (
            cap_stored_result(&completion.result).as_ref(),
            completion.status.as_str(),
            completion.token_count,
            at,
            turn_id.to_string(),
            call_id,
        ),
        rows::tool_call,
    )?
    .ok_or_else(|| RepositoryError::tool_call_not_found(call_id, turn_id))
}

/// See `HistoryRepository::mark_counts_provisional`.
pub(super) fn mark_provisional(
    conn: &Connection,
    conversation_id: ConversationId,
    from_seq: Seq,
) -> RepoResult<()> {
    let changed = execute(
        conn,
        "marking provisional token counts",
        "UPDATE conversations SET provisional_counts_from_seq = \
           MIN(COALESCE(provisional_counts_from_seq, ?2), ?2) WHERE id = ?1",
        (conversation_id.to_string(), from_seq),
    )?;
    if changed == 0 {
        return Err(RepositoryError::not_found("conversation", conversation_id));
    }
    Ok(())
}

/// See `HistoryRepository::set_exact_counts`.
pub(super) fn set_exact_counts(
    conn: &Connection,
    conversation_id: ConversationId,
    counts: &[(Seq, i64)],
    through_seq: Seq,
) -> RepoResult<()> {
    const ACTION: &str = "storing exact token counts";
    let id = conversation_id.to_string();
    for (seq, tokens) in counts {
        for sql in [
            "UPDATE messages SET token_count = ?3 WHERE conversation_id = ?1 AND seq = ?2",
            "UPDATE tool_calls SET token_count = ?3 WHERE conversation_id = ?1 AND seq = ?2",
        ] {
            execute(conn, ACTION, sql, (&id, seq, tokens))?;
        }
    }
    // Rows written after `through_seq` (by another process meanwhile) may still be
    // provisional: keep a mark just after it then.
    let changed = execute(
        conn,
        ACTION,
        "UPDATE conversations SET provisional_counts_from_seq = CASE \
           WHEN provisional_counts_from_seq IS NULL THEN NULL \
           WHEN EXISTS (SELECT 1 FROM messages WHERE conversation_id = ?1 AND seq > ?2) \
             OR EXISTS (SELECT 1 FROM tool_calls WHERE conversation_id = ?1 AND seq > ?2) \
           THEN MAX(provisional_counts_from_seq, ?2 + 1) \
           ELSE NULL END \
         WHERE id = ?1",
        (&id, through_seq),
    )?;
    if changed == 0 {
        return Err(RepositoryError::not_found("conversation", conversation_id));
    }
    Ok(())
}
