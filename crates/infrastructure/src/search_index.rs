//! Adding stored text to the full-text index in batches.
//!
//! The triggers of the schema record every piece of searchable text in `search_rows`;
//! the rows above `search_index_state.indexed_through` are not in `search_fts` yet.
//! FTS5 writes an index segment per transaction that changes it, so indexing many rows
//! together costs about what indexing one of them did. The store indexes what is
//! pending before every search, so a search always sees everything stored, and when a
//! turn ends with at least [`INDEX_BATCH_ROWS`] rows pending (in the transaction that
//! ends it), so the batch a search may have to index stays small.

use smallebot_core::repository::RepoResult;

use crate::database::SqliteStore;
use crate::tx::storage;

/// How many search rows may wait for the index before the end of a turn indexes them
/// (the literal in `batch_full_sql!`).
pub const INDEX_BATCH_ROWS: i64 = 256;

/// The SQL condition "at least [`INDEX_BATCH_ROWS`] rows are pending".
macro_rules! batch_full_sql {
    () => {
        "(SELECT COUNT(*) FROM search_rows \
          WHERE id > (SELECT indexed_through FROM search_index_state)) >= 256"
    };
}
pub(crate) use batch_full_sql;

/// The text of search row `r`, read from the row it points to (the SQL expression).
macro_rules! search_body_sql {
    () => {
        "CASE r.kind \
           WHEN 'tool_call' THEN (SELECT t.tool_name || '(' || t.arguments || ')' \
             FROM tool_calls t WHERE t.id = r.source_id) \
           WHEN 'tool_result' THEN (SELECT t.result FROM tool_calls t \
             WHERE t.id = r.source_id) \
           ELSE (SELECT m.content FROM messages m WHERE m.id = r.source_id) END"
    };
}
pub(crate) use search_body_sql;

/// The statements that index every pending search row, each guarded by the SQL
/// condition `$when` (so a multi-statement transaction can index conditionally).
macro_rules! index_pending_sql {
    ($when:expr) => {
        concat!(
            "INSERT INTO search_fts (rowid, body) SELECT r.id, ",
            $crate::search_index::search_body_sql!(),
            " FROM search_rows r \
               WHERE r.id > (SELECT indexed_through FROM search_index_state) AND (",
            $when,
            ") ORDER BY r.id; \
             UPDATE search_index_state SET indexed_through = \
               max(indexed_through, (SELECT COALESCE(MAX(id), 0) FROM search_rows)) \
               WHERE (",
            $when,
            "); "
        )
    };
}
pub(crate) use index_pending_sql;

/// Indexes what is pending, as its own transaction.
const INDEX_PENDING: &str = concat!("BEGIN IMMEDIATE; ", index_pending_sql!("1"), "COMMIT");

impl SqliteStore {
    /// Adds every stored row not indexed yet to the full-text index.
    pub(crate) async fn index_pending(&self) -> RepoResult<()> {
        const ACTION: &str = "updating the search index";
        let mut writer = self.writer().lock().await.map_err(storage(ACTION))?;
        writer
            .transaction_in_one_trip(sqlx::query(INDEX_PENDING))
            .await
            .map_err(storage(ACTION))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_batch_condition_uses_the_batch_size() {
        let condition: &str = batch_full_sql!();
        assert!(condition.ends_with(&format!(">= {}", super::INDEX_BATCH_ROWS)));
    }
}
