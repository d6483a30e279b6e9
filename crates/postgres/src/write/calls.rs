//! Tool results: the results of every call in a batch stored by one `UPDATE`.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{ToolCall, ToolCallStatus};
use smallebot_core::ids::TurnId;
use smallebot_core::repository::RepoResult;
use smallebot_core::tool_call_columns;
use sqlx::Row;
use sqlx::postgres::PgRow;

use super::link::{Link, Reply, failed};
use crate::history::cache::Written;
use crate::rows;
use crate::tx::{now, storage};

/// A tool call's result, already capped and made storable.
#[derive(Debug)]
pub(crate) struct CompleteCall {
    /// The call's turn.
    pub turn_id: TurnId,
    /// The model's id of the call.
    pub call_id: String,
    /// The result text.
    pub result: String,
    /// The final status.
    pub status: ToolCallStatus,
    /// Tokens of call and result.
    pub token_count: i64,
}

const ACTION: &str = "completing a tool call";

/// Stores results: $1 now; per call $2 its place in the batch, $3 turn, $4 call id, $5
/// result, $6 status, $7 tokens. Moves the version of each conversation it wrote calls
/// of by one. Returns each stored call with its place (`j`) and its conversation's new
/// `version`; a call that does not exist has no row. The `= ANY` repeats the turns so
/// the rows are looked up by the `(turn_id, call_id)` index whatever the planner thinks
/// of the table's size.
const COMPLETE_CALLS: &str = concat!(
    "WITH done AS (UPDATE tool_calls SET result = u.new_result, status = u.new_status, \
       token_count = u.new_tokens, completed_at = $1 \
     FROM UNNEST($2::int4[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int8[]) \
       AS u(j, for_turn, for_call, new_result, new_status, new_tokens) \
     WHERE turn_id = u.for_turn AND call_id = u.for_call AND turn_id = ANY($3) \
     RETURNING u.j, ",
    tool_call_columns!(),
    "), moved AS (UPDATE conversations SET version = version + 1 \
       WHERE id IN (SELECT conversation_id FROM done) RETURNING id, version) \
     SELECT done.*, moved.version FROM done JOIN moved ON moved.id = done.conversation_id"
);

/// Stores a batch of results (no call twice) in one statement and answers each; when
/// the statement fails, each runs again alone.
pub(super) async fn write(link: &mut Link, batch: Vec<(CompleteCall, Reply<ToolCall>)>) {
    let (calls, replies): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
    if calls.len() > 1
        && let Ok(answers) = complete(link, &calls).await
    {
        for (reply, answer) in replies.into_iter().zip(answers) {
            let _ = reply.send(answer);
        }
        return;
    }
    // One call, or a batch that failed (nothing of it stored): each alone.
    for (call, reply) in calls.into_iter().zip(replies) {
        let answer = match complete(link, std::slice::from_ref(&call)).await {
            Ok(mut answers) => answers.pop().unwrap_or_else(|| Err(missing(&call))),
            Err(err) => Err(err),
        };
        let _ = reply.send(answer);
    }
}

fn missing(call: &CompleteCall) -> RepositoryError {
    RepositoryError::tool_call_not_found(&call.call_id, call.turn_id)
}

/// The answer of each call, in order; `Err` when the statement failed.
pub(super) async fn complete(
    link: &mut Link,
    calls: &[CompleteCall],
) -> Result<Vec<RepoResult<ToolCall>>, RepositoryError> {
    let places: Vec<i32> = (0..calls.len())
        .map(|j| i32::try_from(j).unwrap_or(i32::MAX))
        .collect();
    let text = |f: fn(&CompleteCall) -> String| calls.iter().map(f).collect::<Vec<_>>();
    let conn = link.get().await.map_err(storage(ACTION))?;
    let found: Result<Vec<PgRow>, sqlx::Error> = sqlx::query(COMPLETE_CALLS)
        .bind(now())
        .bind(&places)
        .bind(text(|c| c.turn_id.to_string()))
        .bind(text(|c| c.call_id.clone()))
        .bind(text(|c| c.result.clone()))
        .bind(text(|c| c.status.as_str().to_owned()))
        .bind(calls.iter().map(|c| c.token_count).collect::<Vec<_>>())
        .fetch_all(&mut *conn)
        .await;
    let found = found.map_err(|e| failed(link, ACTION, e))?;
    let mut answers: Vec<RepoResult<ToolCall>> = calls.iter().map(|c| Err(missing(c))).collect();
    let mut moved: Vec<(i64, ToolCall)> = Vec::with_capacity(found.len());
    for row in &found {
        let j: i32 = row.try_get("j").map_err(storage(ACTION))?;
        let version: i64 = row.try_get("version").map_err(storage(ACTION))?;
        let call = rows::tool_call(row);
        if let Ok(call) = &call {
            moved.push((version, call.clone()));
        }
        if let Some(answer) = usize::try_from(j).ok().and_then(|j| answers.get_mut(j)) {
            *answer = call;
        }
    }
    // The kept rows brought along, per conversation (one version for all its calls).
    moved.sort_by_key(|(_, call)| call.conversation_id);
    for same in moved.chunk_by(|a, b| a.1.conversation_id == b.1.conversation_id) {
        if let Some((version, first)) = same.first() {
            let done: Vec<&ToolCall> = same.iter().map(|(_, call)| call).collect();
            link.cache
                .written(first.conversation_id, *version, Written::Completed(&done));
        }
    }
    Ok(answers)
}
