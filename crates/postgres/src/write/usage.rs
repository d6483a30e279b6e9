//! The write of one model request's usage record, on the writer's connection.

use smallebot_core::entities::UsageRecord;
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use crate::tx::storage;

pub(super) const RECORD: &str = "recording a model request";

/// A count as PostgreSQL stores it (counts beyond `i64` do not happen; kept at the top).
fn int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Inserts `record` into `model_requests`.
pub(super) async fn insert(conn: &mut PgConnection, record: &UsageRecord) -> RepoResult<()> {
    let a = &record.account;
    let t = record.tokens;
    sqlx::query(concat!(
        "INSERT INTO model_requests (",
        smallebot_core::usage_columns!(),
        ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
         $18)"
    ))
    .bind(&a.user_name)
    .bind(a.conversation_id.to_string())
    .bind(a.turn_id.map(|id| id.to_string()))
    .bind(a.sub_conversation_id.map(|id| id.to_string()))
    .bind(i64::from(a.step))
    .bind(record.purpose.as_str())
    .bind(&record.model)
    .bind(t.map(|t| int(t.prompt)))
    .bind(t.map(|t| int(t.cached_prompt)))
    .bind(t.map(|t| int(t.completion)))
    .bind(t.map(|t| int(t.reasoning)))
    .bind(record.cost)
    .bind(record.currency.as_deref())
    .bind(record.first_token_ms.map(int))
    .bind(int(record.duration_ms))
    .bind(i64::from(record.retries))
    .bind(record.outcome.as_str())
    .bind(record.at)
    .execute(&mut *conn)
    .await
    .map_err(storage(RECORD))?;
    Ok(())
}
