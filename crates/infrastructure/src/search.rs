//! `SearchRepository` on SQLite FTS5: newest first, escaped queries, scoped by user.

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{SearchHit, SearchQuery, SearchScope};
use smallebot_core::repository::{RepoResult, SearchRepository};
use smallebot_core::time::format_timestamp;

use crate::database::SqliteStore;
use crate::fts_query::{escape_fts_query, matches_unindexed};
use crate::queries;
use crate::rows;
use crate::search_index::search_body_sql;
use crate::write::Write;

#[async_trait]
impl SearchRepository for SqliteStore {
    async fn search(&self, query: &SearchQuery) -> RepoResult<Vec<SearchHit>> {
        let Some(fts) = escape_fts_query(&query.text) else {
            return Ok(Vec::new());
        };
        let (conversation, user) = match &query.scope {
            SearchScope::Conversation(id) => (Some(id.to_string()), None),
            SearchScope::User(name) => (None, Some(name.clone())),
            SearchScope::All => (None, None),
        };
        // Rows stored since the last turn ended (or by a turn still running) first. A
        // store that may not write reads them unindexed instead.
        let mut hits = if self.is_read_only() {
            self.scan_unindexed(query, conversation.as_deref(), user.as_deref())
                .await?
        } else {
            self.writer()
                .run(|reply| Write::IndexPending { reply })
                .await?;
            Vec::new()
        };
        let limit = usize::try_from(query.limit).unwrap_or(usize::MAX);
        if hits.len() >= limit {
            hits.truncate(limit);
            return Ok(hits);
        }
        let since = query.since.as_ref().map(format_timestamp);
        let limit_param = i64::from(query.limit);
        let found = self
            .readers()
            .read("searching history", move |conn| {
                queries::all(
                    conn,
                    "searching history",
                    "SELECT r.conversation_id, c.title, r.seq, r.kind, f.body, r.created_at \
                     FROM search_fts f \
                     JOIN search_rows r ON r.id = f.rowid \
                     JOIN conversations c ON c.id = r.conversation_id \
                     WHERE search_fts MATCH ?1 \
                       AND (?2 IS NULL OR r.conversation_id = ?2) \
                       AND (?3 IS NULL OR c.user_name = ?3) \
                       AND (?4 IS NULL OR r.created_at >= ?4) \
                     ORDER BY f.rowid DESC LIMIT ?5",
                    (&fts, &conversation, &user, &since, limit_param),
                    rows::search_hit,
                )
            })
            .await?;
        hits.extend(found);
        hits.truncate(limit);
        Ok(hits)
    }
}

/// The rows not in the full-text index yet, with their text (?1 conversation, ?2
/// user, ?3 since), newest first.
const UNINDEXED: &str = concat!(
    "SELECT r.conversation_id, c.title, r.seq, r.kind, r.created_at, ",
    search_body_sql!(),
    " AS body \
    FROM search_rows r JOIN conversations c ON c.id = r.conversation_id \
    WHERE r.id > (SELECT indexed_through FROM search_index_state) \
      AND (?1 IS NULL OR r.conversation_id = ?1) \
      AND (?2 IS NULL OR c.user_name = ?2) \
      AND (?3 IS NULL OR r.created_at >= ?3) \
    ORDER BY r.id DESC"
);

impl SqliteStore {
    /// The hits among the rows not indexed yet (a read-only store cannot index them),
    /// newest first; they are newer than every indexed row.
    async fn scan_unindexed(
        &self,
        query: &SearchQuery,
        conversation: Option<&str>,
        user: Option<&str>,
    ) -> RepoResult<Vec<SearchHit>> {
        const ACTION: &str = "searching rows not indexed yet";
        let since = query.since.as_ref().map(format_timestamp);
        let (conversation, user) = (conversation.map(str::to_owned), user.map(str::to_owned));
        let text = query.text.clone();
        self.readers()
            .read(ACTION, move |conn| {
                let found = queries::all(
                    conn,
                    ACTION,
                    UNINDEXED,
                    (&conversation, &user, &since),
                    |row| {
                        let body: Option<String> = row
                            .get("body")
                            .map_err(|e| RepositoryError::corrupt("body", e))?;
                        if body.is_some_and(|b| matches_unindexed(&b, &text)) {
                            rows::search_hit(row).map(Some)
                        } else {
                            Ok(None)
                        }
                    },
                )?;
                Ok(found.into_iter().flatten().collect())
            })
            .await
    }
}
