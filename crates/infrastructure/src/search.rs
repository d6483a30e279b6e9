//! `SearchRepository` on SQLite FTS5: newest first, escaped queries, scoped by user.

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{SearchHit, SearchHitKind, SearchQuery, SearchScope};
use smallebot_core::repository::{RepoResult, SearchRepository};
use smallebot_core::time::{format_timestamp, parse_timestamp};
use sqlx::Row;

use crate::database::SqliteStore;
use crate::fts_query::escape_fts_query;
use crate::tx::storage;

fn kind(word: &str) -> RepoResult<SearchHitKind> {
    match word {
        "user" => Ok(SearchHitKind::User),
        "assistant" => Ok(SearchHitKind::Assistant),
        "tool_call" => Ok(SearchHitKind::ToolCall),
        "tool_result" => Ok(SearchHitKind::ToolResult),
        other => Err(RepositoryError::Corrupt(format!(
            "unknown search row kind '{other}'"
        ))),
    }
}

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
        // Rows stored since the last turn ended (or by a turn still running) first.
        self.index_pending().await?;
        let found = sqlx::query(
            "SELECT r.conversation_id, c.title, r.seq, r.kind, f.body, r.created_at \
             FROM search_fts f \
             JOIN search_rows r ON r.id = f.rowid \
             JOIN conversations c ON c.id = r.conversation_id \
             WHERE search_fts MATCH ?1 \
               AND (?2 IS NULL OR r.conversation_id = ?2) \
               AND (?3 IS NULL OR c.user_name = ?3) \
               AND (?4 IS NULL OR r.created_at >= ?4) \
             ORDER BY f.rowid DESC LIMIT ?5",
        )
        .bind(fts)
        .bind(conversation)
        .bind(user)
        .bind(query.since.as_ref().map(format_timestamp))
        .bind(i64::from(query.limit))
        .fetch_all(self.pool())
        .await
        .map_err(storage("searching history"))?;
        found
            .iter()
            .map(|row| {
                let get = |c: &str| {
                    row.try_get::<String, _>(c)
                        .map_err(|e| RepositoryError::Corrupt(format!("{c}: {e}")))
                };
                let created = get("created_at")?;
                Ok(SearchHit {
                    conversation_id: get("conversation_id")?
                        .parse()
                        .map_err(|e| RepositoryError::Corrupt(format!("conversation_id: {e}")))?,
                    conversation_title: get("title")?,
                    seq: row
                        .try_get::<i64, _>("seq")
                        .map_err(|e| RepositoryError::Corrupt(format!("seq: {e}")))?,
                    kind: kind(&get("kind")?)?,
                    text: get("body")?,
                    created_at: parse_timestamp(&created).map_err(|e| {
                        RepositoryError::Corrupt(format!("created_at '{created}': {e}"))
                    })?,
                })
            })
            .collect()
    }
}
