//! Usage: one record per model request (`migrations/0016_model_requests.sql`).

use async_trait::async_trait;
use smallebot_core::entities::{UsageFilter, UsageRecord};
use smallebot_core::repository::{RepoResult, UsageRepository};
use smallebot_core::time::format_timestamp;

use crate::database::SqliteStore;
use crate::write::Write;
use crate::{queries, rows};

/// The `WHERE` clause of a [`UsageFilter`] over `?1` … `?4`.
const FILTER: &str = " FROM model_requests WHERE (?1 IS NULL OR user_name = ?1) \
     AND (?2 IS NULL OR ended_at >= ?2) AND (?3 IS NULL OR conversation_id = ?3) \
     AND (?4 IS NULL OR turn_id = ?4)";

/// The filter's values, in the order of [`FILTER`].
fn params(filter: &UsageFilter) -> [Option<String>; 4] {
    [
        filter.user.clone(),
        filter.since.as_ref().map(format_timestamp),
        filter.conversation.map(|id| id.to_string()),
        filter.turn.map(|id| id.to_string()),
    ]
}

#[async_trait]
impl UsageRepository for SqliteStore {
    fn record_usage(&self, record: UsageRecord) {
        let record = Box::new(record);
        self.writer()
            .enqueue(|reply| Write::RecordUsage { record, reply });
    }

    async fn usage_records(&self, filter: &UsageFilter) -> RepoResult<Vec<UsageRecord>> {
        const ACTION: &str = "reading usage";
        self.writer().flush().await?;
        let params = params(filter);
        self.readers()
            .read(ACTION, move |conn| {
                let sql = format!(
                    "SELECT {}{FILTER} ORDER BY id",
                    smallebot_core::usage_columns!()
                );
                queries::all(conn, ACTION, &sql, params.clone(), rows::usage_record)
            })
            .await
    }

    async fn usage_cost(&self, filter: &UsageFilter) -> RepoResult<i64> {
        const ACTION: &str = "summing usage";
        self.writer().flush().await?;
        let params = params(filter);
        self.readers()
            .read(ACTION, move |conn| {
                let sql = format!("SELECT COALESCE(SUM(cost_picos), 0){FILTER}");
                queries::first(conn, ACTION, &sql, params.clone(), queries::int0)
                    .map(Option::unwrap_or_default)
            })
            .await
    }
}
