//! Usage: one record per model request (`migrations/0012_model_requests.sql`).

use async_trait::async_trait;
use smallebot_core::entities::{UsageFilter, UsageRecord};
use smallebot_core::repository::{RepoResult, UsageRepository};

use crate::rows;
use crate::store::PgStore;
use crate::tx::storage;
use crate::write::{Edit, Job};

/// The `WHERE` clause of a [`UsageFilter`] over `$1` … `$4`.
macro_rules! filter {
    () => {
        " FROM model_requests WHERE ($1::text IS NULL OR user_name = $1) \
         AND ($2::timestamptz IS NULL OR ended_at >= $2) \
         AND ($3::text IS NULL OR conversation_id = $3) AND ($4::text IS NULL OR turn_id = $4)"
    };
}

#[async_trait]
impl UsageRepository for PgStore {
    fn record_usage(&self, record: UsageRecord) {
        let record = Box::new(record);
        self.writer().enqueue("recording a model request", |reply| {
            Job::Edit(Edit::RecordUsage(record, reply))
        });
    }

    async fn usage_records(&self, filter: &UsageFilter) -> RepoResult<Vec<UsageRecord>> {
        self.writer().flush().await?;
        let sql = concat!(
            "SELECT ",
            smallebot_core::usage_columns!(),
            filter!(),
            " ORDER BY id"
        );
        let query = sqlx::query(sql)
            .bind(filter.user.clone())
            .bind(filter.since)
            .bind(filter.conversation.map(|id| id.to_string()))
            .bind(filter.turn.map(|id| id.to_string()));
        let found = query
            .fetch_all(self.pool())
            .await
            .map_err(storage("reading usage"))?;
        found.iter().map(rows::usage_record).collect()
    }

    async fn usage_cost(&self, filter: &UsageFilter) -> RepoResult<i64> {
        self.writer().flush().await?;
        let sql = concat!("SELECT COALESCE(SUM(cost_picos), 0)::bigint", filter!());
        let (sum,): (i64,) = sqlx::query_as(sql)
            .bind(filter.user.clone())
            .bind(filter.since)
            .bind(filter.conversation.map(|id| id.to_string()))
            .bind(filter.turn.map(|id| id.to_string()))
            .fetch_one(self.pool())
            .await
            .map_err(storage("summing usage"))?;
        Ok(sum)
    }
}
