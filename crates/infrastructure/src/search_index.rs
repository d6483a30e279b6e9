//! The SQL of the full-text index, added to in batches.
//!
//! The triggers of the schema record every piece of searchable text in `search_rows`;
//! the rows above `search_index_state.indexed_through` are not in `search_fts` yet.
//! FTS5 writes an index segment per transaction that changes it, so indexing many rows
//! together costs about what indexing one of them did. The store indexes what is
//! pending before every search, so a search always sees everything stored, and when a
//! turn ends with at least [`INDEX_BATCH_ROWS`] rows pending (in the transaction that
//! ends it), so the batch a search may have to index stays small.

/// How many search rows may wait for the index before the end of a turn indexes them.
pub const INDEX_BATCH_ROWS: i64 = 256;

/// The text of search row `r`, read from the row it points to (the SQL expression).
macro_rules! search_body_sql {
    () => {
        "CASE r.kind \
           WHEN 'tool_call' THEN (SELECT t.tool_name || '(' || t.arguments || ')' \
             FROM tool_calls t WHERE t.id = r.source_id) \
           WHEN 'tool_result' THEN (SELECT t.result FROM tool_calls t \
             WHERE t.id = r.source_id) \
           WHEN 'attachment' THEN (SELECT a.search_text FROM attachments a \
             WHERE a.id = r.source_id) \
           ELSE (SELECT m.content FROM messages m WHERE m.id = r.source_id) END"
    };
}
pub(crate) use search_body_sql;

/// How many search rows wait for the index.
pub(crate) const PENDING_ROWS: &str = "SELECT COUNT(*) FROM search_rows \
    WHERE id > (SELECT indexed_through FROM search_index_state)";

/// Adds every pending search row to the index.
pub(crate) const INDEX_PENDING_INSERT: &str = concat!(
    "INSERT INTO search_fts (rowid, body) SELECT r.id, ",
    search_body_sql!(),
    " FROM search_rows r WHERE r.id > (SELECT indexed_through FROM search_index_state) \
     ORDER BY r.id"
);

/// Records that every search row is indexed (after [`INDEX_PENDING_INSERT`]).
pub(crate) const INDEX_PENDING_MARK: &str = "UPDATE search_index_state SET indexed_through = \
    max(indexed_through, (SELECT COALESCE(MAX(id), 0) FROM search_rows))";
