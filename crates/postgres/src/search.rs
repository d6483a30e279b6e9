//! `SearchRepository` on PostgreSQL: every word must occur, newest first, scoped.
//!
//! Each source (messages, tool calls, tool results) is searched through its GIN index,
//! newest first and cut at the limit, then the three are merged. `search_query` and
//! the generated columns (migration 0001) split text into words the same way.

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{SearchHit, SearchHitKind, SearchQuery, SearchScope};
use smallebot_core::repository::{RepoResult, SearchRepository};
use sqlx::postgres::PgRow;

use crate::rows::{get, id};
use crate::store::PgStore;
use crate::tx::{pg_text, storage};

/// $1 text, $2 conversation, $3 user, $4 since, $5 limit. `rank` orders a tool result
/// before its call when both have the same time and `seq`.
const SEARCH: &str = "\
    WITH q AS (SELECT search_query($1) AS query) \
    SELECT * FROM ( \
      (SELECT m.conversation_id, c.title, m.seq, m.role AS kind, m.content AS body, \
         m.created_at, 1 AS rank \
       FROM messages m JOIN conversations c ON c.id = m.conversation_id, q \
       WHERE m.search @@ q.query AND m.content <> '' \
         AND ($2::text IS NULL OR m.conversation_id = $2) \
         AND ($3::text IS NULL OR c.user_name = $3) \
         AND ($4::timestamptz IS NULL OR m.created_at >= $4) \
       ORDER BY m.created_at DESC, m.seq DESC LIMIT $5) \
      UNION ALL \
      (SELECT t.conversation_id, c.title, t.seq, 'tool_call', \
         t.tool_name || '(' || t.arguments || ')', t.started_at, 0 \
       FROM tool_calls t JOIN conversations c ON c.id = t.conversation_id, q \
       WHERE t.call_search @@ q.query \
         AND ($2::text IS NULL OR t.conversation_id = $2) \
         AND ($3::text IS NULL OR c.user_name = $3) \
         AND ($4::timestamptz IS NULL OR t.started_at >= $4) \
       ORDER BY t.started_at DESC, t.seq DESC LIMIT $5) \
      UNION ALL \
      (SELECT t.conversation_id, c.title, t.seq, 'tool_result', t.result, \
         COALESCE(t.completed_at, t.started_at), 2 \
       FROM tool_calls t JOIN conversations c ON c.id = t.conversation_id, q \
       WHERE t.result IS NOT NULL AND t.result_search @@ q.query \
         AND ($2::text IS NULL OR t.conversation_id = $2) \
         AND ($3::text IS NULL OR c.user_name = $3) \
         AND ($4::timestamptz IS NULL OR COALESCE(t.completed_at, t.started_at) >= $4) \
       ORDER BY COALESCE(t.completed_at, t.started_at) DESC, t.seq DESC LIMIT $5) \
    ) AS hits ORDER BY created_at DESC, seq DESC, rank DESC LIMIT $5";

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

fn hit(row: &PgRow) -> RepoResult<SearchHit> {
    let kind_word: String = get(row, "kind")?;
    Ok(SearchHit {
        conversation_id: id(row, "conversation_id")?,
        conversation_title: get(row, "title")?,
        seq: get(row, "seq")?,
        kind: kind(&kind_word)?,
        text: get(row, "body")?,
        created_at: get(row, "created_at")?,
    })
}

#[async_trait]
impl SearchRepository for PgStore {
    async fn search(&self, query: &SearchQuery) -> RepoResult<Vec<SearchHit>> {
        // Text without a letter or digit has no word to find (as on SQLite).
        if !query.text.chars().any(char::is_alphanumeric) || query.limit == 0 {
            return Ok(Vec::new());
        }
        let (conversation, user) = match &query.scope {
            SearchScope::Conversation(id) => (Some(id.to_string()), None),
            SearchScope::User(name) => (None, Some(name.clone())),
            SearchScope::All => (None, None),
        };
        let found = sqlx::query(SEARCH)
            .bind(pg_text(&query.text).as_ref())
            .bind(conversation)
            .bind(user)
            .bind(query.since)
            .bind(i64::from(query.limit))
            .fetch_all(self.pool())
            .await
            .map_err(storage("searching history"))?;
        found.iter().map(hit).collect()
    }
}
