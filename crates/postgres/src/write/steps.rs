//! Model steps: the steps of a batch (one per conversation) stored by one statement.
//!
//! Each step's `seq`s are taken together by the statement's `UPDATE` of its
//! conversation (which also takes the conversation's row lock), so a step's reasoning,
//! message and calls get consecutive `seq`s in that order; data-modifying CTEs insert
//! the rows and end the turns whose last step it is.

use std::collections::HashMap;

use smallebot_core::RepositoryError;
use smallebot_core::entities::{HistoryRow, RecordedStep, Turn};
use smallebot_core::repository::RepoResult;
use smallebot_core::turn_columns;
use sqlx::Row;
use sqlx::postgres::PgRow;

mod params;

use super::link::{Link, Reply};
use crate::history::cache::{RowsCache, Written};
use crate::prepared_step::PreparedStep;
use crate::rows;
use crate::tx::{storage, violates};

/// What the statement does, for errors.
const ACTION: &str = "recording a model step";

/// The unique constraint on a turn's tool-call ids.
const CALL_ID_IN_TURN: &str = "tool_calls_turn_id_call_id_key";

impl PreparedStep {
    fn count(&self) -> usize {
        usize::from(self.think.is_some()) + usize::from(self.message.is_some()) + self.calls.len()
    }

    /// The tokens its rows add to the context total.
    fn tokens(&self) -> i64 {
        let calls: i64 = self.calls.iter().map(|c| c.token_count).sum();
        self.message.as_ref().map_or(0, |m| m.token_count) + calls
    }
}

/// What the statement did for one step: the conversation's `last_seq` before it, its
/// version after it, and the ended turn when the step ended it.
#[derive(Debug)]
pub(super) struct StepWritten {
    /// Added to each row's place to give its `seq`.
    pub(super) base: i64,
    /// The conversation's version after the step.
    pub(super) version: i64,
    /// The ended turn.
    pub(super) turn: Option<Turn>,
}

impl PreparedStep {
    /// The stored step: each row's place plus `written.base` as its `seq`; the rows
    /// the store keeps of the conversation brought along.
    fn stored(self, written: StepWritten, cache: &RowsCache) -> RecordedStep {
        let base = written.base;
        let (conversation, turn, ended) = (self.conversation_id, self.turn_id, self.end.is_some());
        let mut rows = Vec::with_capacity(self.count());
        rows.extend(self.think.map(|mut t| {
            t.seq += base;
            HistoryRow::ThinkBlock(t)
        }));
        rows.extend(self.message.map(|mut m| {
            m.seq += base;
            HistoryRow::Message(m)
        }));
        rows.extend(self.calls.into_iter().map(|mut c| {
            c.seq += base;
            HistoryRow::ToolCall(c)
        }));
        cache.written(
            conversation,
            written.version,
            Written::Appended {
                rows: &rows,
                turn,
                ended,
            },
        );
        RecordedStep {
            rows,
            turn: written.turn,
        }
    }
}

/// Records steps: per step $1 when it was built, $2 conversation, $3 turn, $4 its
/// number of rows, $5 the end's status (NULL: the turn goes on), $6 its error, $24
/// the tokens of its message and calls (counted into the context total);
/// reasoning rows $7 conversation, $8 id, $9 place, $10 text; messages $11
/// conversation, $12 id, $13 place, $14 text, $15 tokens, $23 role; calls $16
/// conversation, $17 id, $18 place, $19 call id, $20 name, $21 arguments, $22 tokens.
/// Moves each conversation's version by one. Returns per step its conversation, `base`
/// (NULL: no such conversation, nothing written for it), the new `version`, the rows
/// inserted and the ended turn's columns (NULL unless it
/// ended). The `= ANY` conditions repeat the joins' keys so the planner looks rows up
/// by key whatever it thinks of a table's size.
const RECORD_STEPS: &str = concat!(
    "WITH step AS (SELECT * FROM UNNEST($1::timestamptz[], $2::text[], $3::text[], $4::int8[], \
         $5::text[], $6::text[], $24::int8[], $25::text[]) AS s(at, conv, turn, n, end_status, \
         end_error, tokens, end_cut)), \
     seq AS (UPDATE conversations SET last_seq = last_seq + step.n, updated_at = step.at, \
         version = version + 1, context_tokens = context_tokens + step.tokens \
       FROM step WHERE id = step.conv AND id = ANY($2) \
       RETURNING step.conv, step.turn, step.at, last_seq - step.n AS base, version), \
     think AS (INSERT INTO think_blocks (id, conversation_id, turn_id, seq, content, \
         created_at) \
       SELECT t.id, seq.conv, seq.turn, seq.base + t.place, t.content, seq.at \
       FROM UNNEST($7::text[], $8::text[], $9::int8[], $10::text[]) \
         AS t(conv, id, place, content) JOIN seq ON seq.conv = t.conv \
       RETURNING conversation_id), \
     message AS (INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, \
         token_count, created_at, is_edited) \
       SELECT m.id, seq.conv, seq.turn, seq.base + m.place, m.role, m.content, \
         m.tokens, seq.at, FALSE \
       FROM UNNEST($11::text[], $12::text[], $13::int8[], $14::text[], $15::int8[], \
         $23::text[]) AS m(conv, id, place, content, tokens, role) \
         JOIN seq ON seq.conv = m.conv \
       RETURNING conversation_id), \
     calls AS (INSERT INTO tool_calls (id, conversation_id, turn_id, seq, call_id, \
         tool_name, arguments, status, token_count, started_at) \
       SELECT c.id, seq.conv, seq.turn, seq.base + c.place, c.call_id, c.name, \
         c.arguments, 'running', c.tokens, seq.at \
       FROM UNNEST($16::text[], $17::text[], $18::int8[], $19::text[], $20::text[], \
         $21::text[], $22::int8[]) AS c(conv, id, place, call_id, name, arguments, tokens) \
         JOIN seq ON seq.conv = c.conv \
       RETURNING conversation_id), \
     inserted AS (SELECT conversation_id AS conv, COUNT(*) AS n FROM ( \
         SELECT conversation_id FROM think UNION ALL SELECT conversation_id FROM message \
         UNION ALL SELECT conversation_id FROM calls) AS r GROUP BY conversation_id), \
     finish AS (UPDATE turns SET status = ended.end_status, error = ended.end_error, \
         cut = ended.end_cut, completed_at = ended.at, owner_pid = NULL, owner_host = NULL, \
         owner_started_at = NULL, heartbeat_at = NULL \
       FROM (SELECT step.turn, step.at, step.end_status, step.end_error, step.end_cut \
         FROM step \
         JOIN seq ON seq.conv = step.conv WHERE step.end_status IS NOT NULL) AS ended \
       WHERE id = ended.turn AND id = ANY($3) \
       RETURNING ",
    turn_columns!(),
    ") \
     SELECT step.conv AS step_conv, seq.base, seq.version, COALESCE(inserted.n, 0) AS inserted, finish.* \
     FROM step LEFT JOIN seq ON seq.conv = step.conv \
       LEFT JOIN inserted ON inserted.conv = step.conv \
       LEFT JOIN finish ON finish.id = step.turn"
);

/// Stores a batch of steps (no conversation twice) in one statement and answers each;
/// when the statement fails, each runs again alone.
pub(super) async fn write(link: &mut Link, mut batch: Vec<(PreparedStep, Reply<RecordedStep>)>) {
    // Conversations in one order in every process: looked up in that order, two
    // processes' batches lock shared rows in the same order rather than deadlocking
    // (should a plan lock otherwise, PostgreSQL aborts one and its jobs run alone).
    batch.sort_by_key(|(step, _)| step.conversation_id);
    let (steps, replies): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
    if steps.len() > 1
        && let Ok(answers) = record(link, &steps).await
    {
        for ((step, reply), answer) in steps.into_iter().zip(replies).zip(answers) {
            let _ = reply.send(answer.map(|written| step.stored(written, &link.cache)));
        }
        return;
    }
    // One step, or a batch that failed (nothing of it stored): each alone.
    for (step, reply) in steps.into_iter().zip(replies) {
        let answer = match record(link, std::slice::from_ref(&step)).await {
            Ok(mut answers) => answers
                .pop()
                .unwrap_or_else(|| {
                    Err(RepositoryError::Corrupt(
                        "a step's statement answered nothing".into(),
                    ))
                })
                .map(|written| step.stored(written, &link.cache)),
            Err(err) => Err(insert_failed(&step, err)),
        };
        let _ = reply.send(answer);
    }
}

/// What a failed insert means: a repeated tool-call id, a turn that does not exist, or
/// a storage failure.
fn insert_failed(step: &PreparedStep, err: Failure) -> RepositoryError {
    match err {
        Failure::Statement(err) => {
            if violates(&err, CALL_ID_IN_TURN) {
                return RepositoryError::tool_call_id_reused();
            }
            if matches!(&err, sqlx::Error::Database(db) if db.code().as_deref() == Some("23503")) {
                return RepositoryError::not_found("turn", step.turn_id);
            }
            storage(ACTION)(err)
        }
        Failure::Other(err) => err,
    }
}

/// Why the statement failed.
pub(super) enum Failure {
    /// The server refused it (nothing of it is stored).
    Statement(sqlx::Error),
    /// No connection, or an answer that does not decode.
    Other(RepositoryError),
}

/// The answer of each step, in order.
pub(super) async fn record(
    link: &mut Link,
    steps: &[PreparedStep],
) -> Result<Vec<RepoResult<StepWritten>>, Failure> {
    let keys: Vec<String> = steps
        .iter()
        .map(|s| s.conversation_id.to_string())
        .collect();
    let conn = link
        .get()
        .await
        .map_err(|e| Failure::Other(storage(ACTION)(e)))?;
    let found = params::bind(sqlx::query(RECORD_STEPS), steps, &keys)
        .fetch_all(&mut *conn)
        .await;
    let found = found.map_err(|err| {
        link.check(&err);
        Failure::Statement(err)
    })?;
    let mut by_conversation: HashMap<String, &PgRow> = HashMap::with_capacity(found.len());
    for row in &found {
        let conv: String = row
            .try_get("step_conv")
            .map_err(|e| Failure::Other(storage(ACTION)(e)))?;
        by_conversation.insert(conv, row);
    }
    Ok(steps
        .iter()
        .zip(&keys)
        .map(|(step, key)| match by_conversation.get(key.as_str()) {
            Some(row) => answer(step, row),
            None => Err(RepositoryError::Corrupt(
                "a step's statement did not answer for it".into(),
            )),
        })
        .collect())
}

/// One step's answer from its row of the statement.
fn answer(step: &PreparedStep, row: &PgRow) -> RepoResult<StepWritten> {
    let base: Option<i64> = row.try_get("base").map_err(storage(ACTION))?;
    let base =
        base.ok_or_else(|| RepositoryError::not_found("conversation", step.conversation_id))?;
    let version: i64 = row.try_get("version").map_err(storage(ACTION))?;
    let inserted: i64 = row.try_get("inserted").map_err(storage(ACTION))?;
    if usize::try_from(inserted).ok() != Some(step.count()) {
        return Err(RepositoryError::corrupt(
            "step insert",
            format!("{inserted} rows written for a step of {}", step.count()),
        ));
    }
    let turn = match &step.end {
        Some(_) => match row
            .try_get::<Option<String>, _>("id")
            .map_err(storage(ACTION))?
        {
            Some(_) => Some(rows::turn(row)?),
            None => return Err(RepositoryError::not_found("turn", step.turn_id)),
        },
        None => None,
    };
    Ok(StepWritten {
        base,
        version,
        turn,
    })
}
