//! `SearchRepository` on PostgreSQL: every word must occur, newest first, scoped.
//!
//! Newest-first with a limit is two different problems: a frequent word matches most of
//! the newest rows (walking them newest first finds the hits at once, while the GIN
//! index would fetch every match to sort them), a rare word matches few rows (the GIN
//! index finds them at once, while the walk would read the whole table). The planner
//! cannot tell them apart for words outside its statistics, so each source (messages,
//! tool calls, tool results, attachments of messages; searched concurrently) is asked twice: first among its
//! newest [`RECENT_WINDOW`] rows in scope; when that finds fewer hits than asked for
//! and the window did not hold every row, through its GIN index (index scans switched
//! off for that one statement, so the planner takes the bitmap path). Each source's
//! answer is its exact newest hits, merged here.
//!
//! `search_query` and the generated columns (migration 0001) split text into words the
//! same way.

use async_trait::async_trait;
use smallebot_core::entities::{SearchHit, SearchHitKind, SearchQuery, SearchScope};
use smallebot_core::repository::{RepoResult, SearchRepository};

use crate::rows::{get, search_hit};
use crate::store::PgStore;
use crate::tx::{pg_text, storage};

/// How many of the newest rows of each source the first pass reads.
const RECENT_WINDOW: i64 = 2_000;

/// One source's rows in scope, as `conversation_id, title, seq, kind, body, created_at,
/// rank, doc` (`rank` orders a tool result before its call at the same time and `seq`);
/// $2 conversation, $3 user, $4 since. The arguments: columns, table, tsvector column,
/// time expression, extra condition.
macro_rules! source {
    ($columns:expr, $table:expr, $doc:expr, $time:expr, $condition:expr) => {
        concat!(
            "SELECT ",
            $columns,
            ", ",
            $time,
            " AS created_at, ",
            $doc,
            " AS doc \
             FROM ",
            $table,
            " JOIN conversations c ON c.id = s.conversation_id \
             WHERE ",
            $condition,
            " AND ($2::text IS NULL OR s.conversation_id = $2) \
               AND ($3::text IS NULL OR c.user_name = $3) \
               AND ($4::timestamptz IS NULL OR ",
            $time,
            " >= $4)"
        )
    };
}

macro_rules! messages {
    () => {
        source!(
            "s.conversation_id, c.title, s.seq, s.role AS kind, s.content AS body, 1 AS rank",
            "messages s",
            "s.search",
            "s.created_at",
            "s.content <> ''"
        )
    };
}

macro_rules! calls {
    () => {
        source!(
            "s.conversation_id, c.title, s.seq, 'tool_call' AS kind, \
             s.tool_name || '(' || s.arguments || ')' AS body, 0 AS rank",
            "tool_calls s",
            "s.call_search",
            "s.started_at",
            "TRUE"
        )
    };
}

macro_rules! results {
    () => {
        source!(
            "s.conversation_id, c.title, s.seq, 'tool_result' AS kind, s.result AS body, \
             2 AS rank",
            "tool_calls s",
            "s.result_search",
            "COALESCE(s.completed_at, s.started_at)",
            "s.result IS NOT NULL"
        )
    };
}

macro_rules! attachments {
    () => {
        source!(
            "s.conversation_id, c.title, m.seq, 'attachment' AS kind, s.search_text AS body, \
             3 AS rank",
            "attachments s JOIN messages m ON m.id = s.message_id",
            "s.search",
            "m.created_at",
            "TRUE"
        )
    };
}

/// The hits among the newest $6 rows of a source, newest first, at most $5, each row
/// with `window_rows`, the number of rows in the window (one row of NULL hit columns
/// when there is no hit).
macro_rules! recent {
    ($source:expr) => {
        concat!(
            "WITH w AS (",
            $source,
            " ORDER BY created_at DESC, seq DESC LIMIT $6) \
             SELECT n.window_rows, h.* FROM (SELECT COUNT(*) AS window_rows FROM w) AS n \
             LEFT JOIN LATERAL (SELECT * FROM w WHERE w.doc @@ search_query($1) \
               ORDER BY created_at DESC, seq DESC LIMIT $5) AS h ON TRUE"
        )
    };
}

/// Every hit of a source, newest first, at most $5.
macro_rules! matching {
    ($source:expr) => {
        concat!(
            "SELECT * FROM (",
            $source,
            ") AS w WHERE w.doc @@ search_query($1) \
             ORDER BY created_at DESC, seq DESC LIMIT $5"
        )
    };
}

/// The first pass per source: $1 text, $2 conversation, $3 user, $4 since, $5 limit,
/// $6 window.
const RECENT: [&str; 4] = [
    recent!(messages!()),
    recent!(calls!()),
    recent!(results!()),
    recent!(attachments!()),
];

/// The second pass per source, with the same parameters but the window.
const MATCHING: [&str; 4] = [
    matching!(messages!()),
    matching!(calls!()),
    matching!(results!()),
    matching!(attachments!()),
];

/// A search's parameters, bound the same way by both passes.
struct Params<'a> {
    text: &'a str,
    conversation: Option<String>,
    user: Option<&'a str>,
    since: Option<smallebot_core::time::Timestamp>,
    limit: i64,
}

impl Params<'_> {
    fn bind<'q>(
        &'q self,
        sql: &'static str,
    ) -> sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
        sqlx::query(sql)
            .bind(self.text)
            .bind(self.conversation.as_deref())
            .bind(self.user)
            .bind(self.since)
            .bind(self.limit)
    }
}

const ACTION: &str = "searching history";

/// One source's newest hits in scope (index `source` of [`RECENT`] / [`MATCHING`]).
async fn source_hits(
    store: &PgStore,
    source: usize,
    params: &Params<'_>,
) -> RepoResult<Vec<SearchHit>> {
    let rows = params
        .bind(RECENT[source])
        .bind(RECENT_WINDOW)
        .fetch_all(store.pool())
        .await
        .map_err(storage(ACTION))?;
    let window_rows: i64 = match rows.first() {
        Some(row) => get(row, "window_rows")?,
        None => 0,
    };
    let mut hits = Vec::with_capacity(rows.len());
    for row in &rows {
        if get::<Option<String>>(row, "kind")?.is_some() {
            hits.push(search_hit(row)?);
        }
    }
    let enough = i64::try_from(hits.len()).unwrap_or(i64::MAX) >= params.limit;
    if enough || window_rows < RECENT_WINDOW {
        // Exact: the window holds the newest hits, or every row in scope.
        return Ok(hits);
    }
    let mut tx = store.pool().begin().await.map_err(storage(ACTION))?;
    sqlx::query("SET LOCAL enable_indexscan = off")
        .execute(&mut *tx)
        .await
        .map_err(storage(ACTION))?;
    let rows = params
        .bind(MATCHING[source])
        .fetch_all(&mut *tx)
        .await
        .map_err(storage(ACTION))?;
    tx.commit().await.map_err(storage(ACTION))?;
    rows.iter().map(search_hit).collect()
}

/// Orders a tool result before its call, and both after a message, at the same time
/// and `seq`, and a message's attachments before it (the order the SQLite store
/// indexes them in, newest first).
fn rank(kind: SearchHitKind) -> u8 {
    match kind {
        SearchHitKind::Attachment => 3,
        SearchHitKind::ToolResult => 2,
        SearchHitKind::ToolCall => 0,
        _ => 1,
    }
}

#[async_trait]
impl SearchRepository for PgStore {
    async fn search(&self, query: &SearchQuery) -> RepoResult<Vec<SearchHit>> {
        // Text without a letter or digit has no word to find (as on SQLite).
        if !query.text.chars().any(char::is_alphanumeric) || query.limit == 0 {
            return Ok(Vec::new());
        }
        let text = pg_text(&query.text);
        let params = Params {
            text: text.as_ref(),
            conversation: match &query.scope {
                SearchScope::Conversation(id) => Some(id.to_string()),
                _ => None,
            },
            user: match &query.scope {
                SearchScope::User(name) => Some(name.as_str()),
                _ => None,
            },
            since: query.since,
            limit: i64::from(query.limit),
        };
        let (messages, calls, results, attachments) = tokio::try_join!(
            source_hits(self, 0, &params),
            source_hits(self, 1, &params),
            source_hits(self, 2, &params),
            source_hits(self, 3, &params),
        )?;
        let mut hits: Vec<SearchHit> = messages
            .into_iter()
            .chain(calls)
            .chain(results)
            .chain(attachments)
            .collect();
        hits.sort_by(|a, b| {
            (b.created_at, b.seq, rank(b.kind)).cmp(&(a.created_at, a.seq, rank(a.kind)))
        });
        hits.truncate(usize::try_from(query.limit).unwrap_or(usize::MAX));
        Ok(hits)
    }
}
