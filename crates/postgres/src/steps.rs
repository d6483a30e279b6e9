//! Recording one model step — reasoning, assistant message, requested tool calls and,
//! for the last step, the end of the turn — as one transaction.
//!
//! The step's `seq`s are taken together (one `UPDATE` of the conversation, which also
//! takes its row lock), so the reasoning, the message and the calls get consecutive
//! `seq`s in that order; one statement of data-modifying CTEs then inserts them all.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, Message, NewStep, RecordedStep, Role, ThinkBlock, ToolCall, ToolCallStatus,
};
use smallebot_core::ids::{MessageId, ThinkBlockId, ToolCallId};
use smallebot_core::repository::RepoResult;

use crate::rows;
use crate::store::PgStore;
use crate::turns::FINISH_TURN;
use crate::tx::{now, pg_text, storage, violates};

/// The unique constraint on a turn's tool-call ids.
const CALL_ID_IN_TURN: &str = "tool_calls_turn_id_call_id_key";

/// Inserts a step's rows: $1 conversation, $2 turn, $3 now; reasoning $4 (id), $5
/// (text, NULL: none), $6 (seq); message $7 (id), $8 (text, NULL: none), $9 (tokens),
/// $10 (seq); calls as arrays $11 ids, $12 seqs, $13 call ids, $14 names, $15
/// arguments, $16 tokens.
const INSERT_STEP: &str = "\
    WITH think AS (INSERT INTO think_blocks (id, conversation_id, turn_id, seq, content, \
        created_at) \
      SELECT $4, $1, $2, $6, $5, $3 WHERE $5::text IS NOT NULL RETURNING 1), \
    message AS (INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, \
        token_count, created_at, is_edited) \
      SELECT $7, $1, $2, $10, 'assistant', $8, $9, $3, FALSE WHERE $8::text IS NOT NULL \
      RETURNING 1), \
    calls AS (INSERT INTO tool_calls (id, conversation_id, turn_id, seq, call_id, tool_name, \
        arguments, status, token_count, started_at) \
      SELECT c.id, $1, $2, c.seq, c.call_id, c.name, c.arguments, 'running', c.tokens, $3 \
      FROM UNNEST($11::text[], $12::bigint[], $13::text[], $14::text[], $15::text[], \
        $16::bigint[]) AS c(id, seq, call_id, name, arguments, tokens) \
      RETURNING 1) \
    SELECT (SELECT COUNT(*) FROM think) + (SELECT COUNT(*) FROM message) \
      + (SELECT COUNT(*) FROM calls)";

/// What a failed insert means: a repeated tool-call id, a turn that does not exist, or
/// a storage failure.
fn insert_failed(step: &NewStep) -> impl FnOnce(sqlx::Error) -> RepositoryError + '_ {
    move |err| {
        if violates(&err, CALL_ID_IN_TURN) {
            return RepositoryError::Conflict(
                "a tool call id of this step is already used in its turn".into(),
            );
        }
        if matches!(&err, sqlx::Error::Database(db) if db.code().as_deref() == Some("23503")) {
            return RepositoryError::not_found("turn", step.turn_id);
        }
        storage("recording a model step")(err)
    }
}

/// Stores `step` in one transaction.
pub(crate) async fn record_step(store: &PgStore, step: &NewStep) -> RepoResult<RecordedStep> {
    const ACTION: &str = "recording a model step";
    let at = now();
    let count = usize::from(step.reasoning.is_some())
        + usize::from(step.message.is_some())
        + step.tool_calls.len();
    let mut tx = store.pool().begin().await.map_err(storage(ACTION))?;
    let mut recorded = Vec::with_capacity(count);
    if count > 0 {
        let wanted = i64::try_from(count).map_err(|e| rows::corrupt("step size", e))?;
        let mut next = PgStore::allocate_seqs(&mut tx, step.conversation_id, wanted).await?;
        let mut take = || {
            let seq = next;
            next += 1;
            seq
        };
        let think = step.reasoning.as_deref().map(|text| ThinkBlock {
            id: ThinkBlockId::new(),
            conversation_id: step.conversation_id,
            turn_id: step.turn_id,
            seq: take(),
            content: pg_text(text).into_owned(),
            created_at: at,
        });
        let message = step.message.as_ref().map(|m| Message {
            id: MessageId::new(),
            conversation_id: step.conversation_id,
            turn_id: step.turn_id,
            seq: take(),
            role: Role::Assistant,
            content: pg_text(&m.content).into_owned(),
            token_count: m.token_count,
            created_at: at,
            replaced_by: None,
            is_edited: false,
        });
        let calls: Vec<ToolCall> = step
            .tool_calls
            .iter()
            .map(|call| ToolCall {
                id: ToolCallId::new(),
                conversation_id: step.conversation_id,
                turn_id: step.turn_id,
                seq: take(),
                call_id: pg_text(&call.call_id).into_owned(),
                tool_name: pg_text(&call.tool_name).into_owned(),
                arguments: pg_text(&call.arguments).into_owned(),
                result: None,
                status: ToolCallStatus::Running,
                token_count: call.token_count,
                started_at: at,
                completed_at: None,
            })
            .collect();
        let column = |f: fn(&ToolCall) -> String| calls.iter().map(f).collect::<Vec<_>>();
        let inserted: i64 = sqlx::query_scalar(INSERT_STEP)
            .bind(step.conversation_id.to_string())
            .bind(step.turn_id.to_string())
            .bind(at)
            .bind(think.as_ref().map(|t| t.id.to_string()))
            .bind(think.as_ref().map(|t| t.content.as_str()))
            .bind(think.as_ref().map(|t| t.seq))
            .bind(message.as_ref().map(|m| m.id.to_string()))
            .bind(message.as_ref().map(|m| m.content.as_str()))
            .bind(message.as_ref().map(|m| m.token_count))
            .bind(message.as_ref().map(|m| m.seq))
            .bind(column(|c| c.id.to_string()))
            .bind(calls.iter().map(|c| c.seq).collect::<Vec<_>>())
            .bind(column(|c| c.call_id.clone()))
            .bind(column(|c| c.tool_name.clone()))
            .bind(column(|c| c.arguments.clone()))
            .bind(calls.iter().map(|c| c.token_count).collect::<Vec<_>>())
            .fetch_one(&mut *tx)
            .await
            .map_err(insert_failed(step))?;
        if usize::try_from(inserted).ok() != Some(count) {
            return Err(rows::corrupt(
                "step insert",
                format!("{inserted} rows written for a step of {count}"),
            ));
        }
        recorded.extend(think.map(HistoryRow::ThinkBlock));
        recorded.extend(message.map(HistoryRow::Message));
        recorded.extend(calls.into_iter().map(HistoryRow::ToolCall));
    }
    let turn = match &step.end {
        Some(end) => {
            let row = sqlx::query(FINISH_TURN)
                .bind(end.status.as_str())
                .bind(end.error.as_deref().map(pg_text).as_deref())
                .bind(at)
                .bind(step.turn_id.to_string())
                .fetch_optional(&mut *tx)
                .await
                .map_err(storage("ending a turn"))?;
            match row {
                Some(row) => Some(rows::turn(&row)?),
                None => return Err(RepositoryError::not_found("turn", step.turn_id)),
            }
        }
        None => None,
    };
    tx.commit().await.map_err(storage(ACTION))?;
    Ok(RecordedStep {
        rows: recorded,
        turn,
    })
}
