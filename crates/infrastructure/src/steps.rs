//! Recording one model step — reasoning, assistant message, requested tool calls and,
//! for the last step, the end of the turn — as one transaction in one round trip.
//!
//! Every statement is a round trip to sqlx's SQLite thread and each costs a thread
//! wake-up or two, more than SQLite needs to run it; a step used to be three to five
//! of them. [`RECORD_STEP`] is the whole transaction as one multi-statement query
//! ([`WriterGuard::transaction_in_one_trip`](crate::tx::WriterGuard)) with the step as
//! one JSON parameter: each statement inserts nothing when its part of the step is
//! absent, and every `RETURNING` row starts with a tag naming its statement.

use std::collections::HashMap;

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, Message, NewStep, RecordedStep, Role, ThinkBlock, ToolCall, ToolCallStatus,
};
use smallebot_core::ids::{MessageId, ThinkBlockId, ToolCallId};
use smallebot_core::repository::RepoResult;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use crate::database::SqliteStore;
use crate::rows::{self, corrupt};
use crate::search_index::{batch_full_sql, index_pending_sql};
use crate::tx::{now, storage};

/// The step's transaction. Its one parameter, ?1, is the step as a JSON object:
/// `at`, `conversation`, `turn`, `think_id`, `reasoning` (null: none), `message_id`,
/// `message` (null: none), `message_tokens`, `calls` (an array of `{id, call_id, name,
/// arguments, tokens}`), `status` (null: the turn goes on) and `error`. One parameter,
/// because sqlx binds the numbered parameters of a multi-statement query by counting
/// the ones a statement leaves out, and stops binding (leaving NULLs) once that count
/// passes the number of arguments.
///
/// The write connection's `TEMP` triggers advance `last_seq` after each insert, so
/// the reasoning, the message and the calls take consecutive `seq`s in that order;
/// the calls' base `seq` is read once (`MATERIALIZED`) before any of them is inserted.
/// A step that ends the turn also indexes the pending search rows when they are a full
/// batch (`search_index.rs`).
const RECORD_STEP: &str = concat!(
    "BEGIN IMMEDIATE; \
    INSERT INTO think_blocks (id, conversation_id, turn_id, seq, content, created_at) \
      SELECT ?1 ->> 'think_id', id, ?1 ->> 'turn', last_seq + 1, ?1 ->> 'reasoning', \
        ?1 ->> 'at' \
      FROM conversations WHERE id = ?1 ->> 'conversation' AND ?1 ->> 'reasoning' IS NOT NULL \
      RETURNING 'think' AS kind, seq; \
    INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, token_count, \
      created_at, is_edited) \
      SELECT ?1 ->> 'message_id', id, ?1 ->> 'turn', last_seq + 1, 'assistant', \
        ?1 ->> 'message', ?1 ->> 'message_tokens', ?1 ->> 'at', 0 \
      FROM conversations WHERE id = ?1 ->> 'conversation' AND ?1 ->> 'message' IS NOT NULL \
      RETURNING 'message' AS kind, seq; \
    WITH base AS MATERIALIZED \
      (SELECT id, last_seq FROM conversations WHERE id = ?1 ->> 'conversation') \
    INSERT INTO tool_calls (id, conversation_id, turn_id, seq, call_id, tool_name, arguments, \
      status, token_count, started_at) \
      SELECT c.value ->> 'id', base.id, ?1 ->> 'turn', base.last_seq + 1 + c.key, \
        c.value ->> 'call_id', c.value ->> 'name', c.value ->> 'arguments', 'running', \
        c.value ->> 'tokens', ?1 ->> 'at' \
      FROM base, json_each(?1, '$.calls') AS c ORDER BY c.key \
      RETURNING 'call' AS kind, seq, id; \
    UPDATE turns SET status = ?1 ->> 'status', error = ?1 ->> 'error', \
      completed_at = ?1 ->> 'at', owner_pid = NULL, owner_host = NULL, \
      owner_started_at = NULL, heartbeat_at = NULL \
      WHERE id = ?1 ->> 'turn' AND ?1 ->> 'status' IS NOT NULL \
      RETURNING 'turn' AS kind, id, conversation_id, seq, thinking_mode, status, error, \
      created_at, completed_at, owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at; ",
    index_pending_sql!(concat!(
        "?1 ->> 'status' IS NOT NULL AND ",
        batch_full_sql!()
    )),
    "COMMIT"
);

/// Stores `step` in one transaction, in one round trip.
pub(crate) async fn record_step(store: &SqliteStore, step: &NewStep) -> RepoResult<RecordedStep> {
    const ACTION: &str = "recording a model step";
    let (at, at_text) = now();
    let think_id = ThinkBlockId::new();
    let message_id = MessageId::new();
    let call_ids: Vec<ToolCallId> = step.tool_calls.iter().map(|_| ToolCallId::new()).collect();
    let calls: Vec<serde_json::Value> = step
        .tool_calls
        .iter()
        .zip(&call_ids)
        .map(|(call, id)| {
            serde_json::json!({
                "id": id.to_string(),
                "call_id": call.call_id,
                "name": call.tool_name,
                "arguments": call.arguments,
                "tokens": call.token_count,
            })
        })
        .collect();
    let document = serde_json::json!({
        "at": at_text,
        "conversation": step.conversation_id.to_string(),
        "turn": step.turn_id.to_string(),
        "think_id": think_id.to_string(),
        "reasoning": step.reasoning,
        "message_id": message_id.to_string(),
        "message": step.message.as_ref().map(|m| m.content.as_str()),
        "message_tokens": step.message.as_ref().map_or(0, |m| m.token_count),
        "calls": calls,
        "status": step.end.as_ref().map(|e| e.status.as_str()),
        "error": step.end.as_ref().and_then(|e| e.error.as_deref()),
    });
    let mut writer = store.writer().lock().await.map_err(storage(ACTION))?;
    let query = sqlx::query(RECORD_STEP).bind(document.to_string());
    let returned = writer
        .transaction_in_one_trip(query)
        .await
        .map_err(|err| match &err {
            sqlx::Error::Database(db) if db.is_unique_violation() => RepositoryError::Conflict(
                "a tool call id of this step is already used in its turn".into(),
            ),
            _ => storage(ACTION)(err),
        })?;
    drop(writer);

    let mut think_seq = None;
    let mut message_seq = None;
    let mut call_seqs = HashMap::with_capacity(call_ids.len());
    let mut turn = None;
    for row in &returned {
        match tag(row)?.as_str() {
            "think" => think_seq = Some(seq(row)?),
            "message" => message_seq = Some(seq(row)?),
            "call" => {
                let id: String = row.try_get(2).map_err(|e| corrupt("tool call id", e))?;
                call_seqs.insert(id, seq(row)?);
            }
            "turn" => turn = Some(rows::turn(row)?),
            other => return Err(corrupt("step result", format!("unknown tag '{other}'"))),
        }
    }
    let written =
        usize::from(think_seq.is_some()) + usize::from(message_seq.is_some()) + call_seqs.len();
    let expected = usize::from(step.reasoning.is_some())
        + usize::from(step.message.is_some())
        + step.tool_calls.len();
    if written != expected {
        // Nothing matched the conversation id: the transaction wrote nothing.
        return Err(RepositoryError::not_found(
            "conversation",
            step.conversation_id,
        ));
    }
    if step.end.is_some() && turn.is_none() {
        return Err(RepositoryError::not_found("turn", step.turn_id));
    }

    let mut recorded = Vec::with_capacity(expected);
    if let (Some(content), Some(seq)) = (&step.reasoning, think_seq) {
        recorded.push(HistoryRow::ThinkBlock(ThinkBlock {
            id: think_id,
            conversation_id: step.conversation_id,
            turn_id: step.turn_id,
            seq,
            content: content.clone(),
            created_at: at,
        }));
    }
    if let (Some(message), Some(seq)) = (&step.message, message_seq) {
        recorded.push(HistoryRow::Message(Message {
            id: message_id,
            conversation_id: step.conversation_id,
            turn_id: step.turn_id,
            seq,
            role: Role::Assistant,
            content: message.content.clone(),
            token_count: message.token_count,
            created_at: at,
            replaced_by: None,
            is_edited: false,
        }));
    }
    for (call, id) in step.tool_calls.iter().zip(call_ids) {
        let seq = call_seqs
            .get(&id.to_string())
            .copied()
            .ok_or_else(|| corrupt("step result", format!("tool call {id} not returned")))?;
        recorded.push(HistoryRow::ToolCall(ToolCall {
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
            started_at: at,
            completed_at: None,
        }));
    }
    Ok(RecordedStep {
        rows: recorded,
        turn,
    })
}

fn tag(row: &SqliteRow) -> RepoResult<String> {
    row.try_get::<String, _>(0)
        .map_err(|e| corrupt("step result tag", e))
}

fn seq(row: &SqliteRow) -> RepoResult<i64> {
    row.try_get::<i64, _>(1).map_err(|e| corrupt("seq", e))
}
