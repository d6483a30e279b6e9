//! Recording one model step — reasoning, assistant message, requested tool calls and,
//! for the last step, the end of the turn — as one statement, so one round trip to the
//! server (a statement is its own transaction).
//!
//! The step's `seq`s are taken together (the statement's `UPDATE` of the conversation,
//! which also takes its row lock), so the reasoning, the message and the calls get
//! consecutive `seq`s in that order; data-modifying CTEs insert them and end the turn.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, Message, NewStep, RecordedStep, Role, ThinkBlock, ToolCall, ToolCallStatus,
};
use smallebot_core::ids::{MessageId, ThinkBlockId, ToolCallId};
use smallebot_core::repository::{RepoResult, TurnRepository};
use sqlx::Row;

use crate::rows::{self, turn_columns};
use crate::store::PgStore;
use crate::tx::{now, pg_text, storage, violates};

/// What the statement does, for errors.
const ACTION: &str = "recording a model step";

/// The unique constraint on a turn's tool-call ids.
const CALL_ID_IN_TURN: &str = "tool_calls_turn_id_call_id_key";

/// Records a step with rows: $1 conversation, $2 turn, $3 now, $17 the number of rows;
/// reasoning $4 (id), $5 (text, NULL: none), $6 (its place in the step, from 1); message
/// $7 (id), $8 (text, NULL: none), $9 (tokens), $10 (place); calls as arrays $11 ids, $12
/// places, $13 call ids, $14 names, $15 arguments, $16 tokens; the end of the turn $18
/// (status, NULL: the turn goes on) and $19 (error). A row's `seq` is the conversation's
/// `last_seq` before the step plus its place. Returns that `base` (NULL: no such
/// conversation, nothing written), how many rows were inserted, and the ended turn's
/// columns (NULL unless $18).
const RECORD_STEP: &str = concat!(
    "WITH seq AS (UPDATE conversations SET last_seq = last_seq + $17, updated_at = $3 \
       WHERE id = $1 RETURNING last_seq - $17 AS base), \
     think AS (INSERT INTO think_blocks (id, conversation_id, turn_id, seq, content, \
         created_at) \
       SELECT $4, $1, $2, seq.base + $6, $5, $3 FROM seq WHERE $5::text IS NOT NULL \
       RETURNING 1), \
     message AS (INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, \
         token_count, created_at, is_edited) \
       SELECT $7, $1, $2, seq.base + $10, 'assistant', $8, $9, $3, FALSE FROM seq \
       WHERE $8::text IS NOT NULL RETURNING 1), \
     calls AS (INSERT INTO tool_calls (id, conversation_id, turn_id, seq, call_id, \
         tool_name, arguments, status, token_count, started_at) \
       SELECT c.id, $1, $2, seq.base + c.place, c.call_id, c.name, c.arguments, 'running', \
         c.tokens, $3 \
       FROM seq, UNNEST($11::text[], $12::bigint[], $13::text[], $14::text[], $15::text[], \
         $16::bigint[]) AS c(id, place, call_id, name, arguments, tokens) \
       RETURNING 1), \
     finish AS (UPDATE turns SET status = $18, error = $19, completed_at = $3, \
         owner_pid = NULL, owner_host = NULL, owner_started_at = NULL, heartbeat_at = NULL \
       WHERE id = $2 AND $18::text IS NOT NULL AND EXISTS (SELECT 1 FROM seq) \
       RETURNING ",
    turn_columns!(),
    ") \
     SELECT seq.base, (SELECT COUNT(*) FROM think) + (SELECT COUNT(*) FROM message) \
       + (SELECT COUNT(*) FROM calls) AS inserted, finish.* \
     FROM (SELECT 1) AS one LEFT JOIN seq ON TRUE LEFT JOIN finish ON TRUE"
);

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
        storage(ACTION)(err)
    }
}

/// Stores `step` in one statement.
pub(crate) async fn record_step(store: &PgStore, step: &NewStep) -> RepoResult<RecordedStep> {
    let at = now();
    let count = usize::from(step.reasoning.is_some())
        + usize::from(step.message.is_some())
        + step.tool_calls.len();
    if count == 0 {
        // Nothing to insert: at most the end of the turn.
        return Ok(RecordedStep {
            rows: Vec::new(),
            turn: match &step.end {
                Some(end) => Some(
                    store
                        .finish_turn(step.turn_id, end.status, end.error.as_deref())
                        .await?,
                ),
                None => None,
            },
        });
    }
    let mut place = 0_i64;
    let mut take = || {
        place += 1;
        place
    };
    // `seq` holds the place until the statement returns the base.
    let mut think = step.reasoning.as_deref().map(|text| ThinkBlock {
        id: ThinkBlockId::new(),
        conversation_id: step.conversation_id,
        turn_id: step.turn_id,
        seq: take(),
        content: pg_text(text).into_owned(),
        created_at: at,
    });
    let mut message = step.message.as_ref().map(|m| Message {
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
    let mut calls: Vec<ToolCall> = step
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
    let place_count = i64::try_from(count).map_err(|e| rows::corrupt("step size", e))?;
    let column = |f: fn(&ToolCall) -> String| calls.iter().map(f).collect::<Vec<_>>();
    let row = sqlx::query(RECORD_STEP)
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
        .bind(place_count)
        .bind(step.end.as_ref().map(|e| e.status.as_str()))
        .bind(
            step.end
                .as_ref()
                .and_then(|e| e.error.as_deref())
                .map(pg_text)
                .as_deref(),
        )
        .fetch_one(store.pool())
        .await
        .map_err(insert_failed(step))?;
    let base: Option<i64> = row.try_get("base").map_err(storage(ACTION))?;
    let base =
        base.ok_or_else(|| RepositoryError::not_found("conversation", step.conversation_id))?;
    let inserted: i64 = row.try_get("inserted").map_err(storage(ACTION))?;
    if usize::try_from(inserted).ok() != Some(count) {
        return Err(rows::corrupt(
            "step insert",
            format!("{inserted} rows written for a step of {count}"),
        ));
    }
    let turn = match &step.end {
        Some(_) => match row
            .try_get::<Option<String>, _>("id")
            .map_err(storage(ACTION))?
        {
            Some(_) => Some(rows::turn(&row)?),
            None => return Err(RepositoryError::not_found("turn", step.turn_id)),
        },
        None => None,
    };
    if let Some(t) = think.as_mut() {
        t.seq += base;
    }
    if let Some(m) = message.as_mut() {
        m.seq += base;
    }
    for call in &mut calls {
        call.seq += base;
    }
    let mut recorded = Vec::with_capacity(count);
    recorded.extend(think.map(HistoryRow::ThinkBlock));
    recorded.extend(message.map(HistoryRow::Message));
    recorded.extend(calls.into_iter().map(HistoryRow::ToolCall));
    Ok(RecordedStep {
        rows: recorded,
        turn,
    })
}
