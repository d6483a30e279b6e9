//! Reading a conversation's rows: messages, tool calls and think blocks as one
//! `UNION ALL` in `seq` order, so every read is one statement (one round trip, one
//! snapshot: a row another process writes meanwhile is either wholly in or out).

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    AnswerVersion, HistoryRow, Message, Role, Seq, ThinkBlock, ToolCall, ToolCallStatus,
};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::RepoResult;
use sqlx::postgres::PgRow;

use crate::attachment_rows::fill_row_attachments;
use crate::rows::{self, get, id};
use crate::store::PgStore;
use crate::tx::storage;

/// Which rows a read returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rows {
    /// Every stored row (the timeline).
    All,
    /// The rows in the context: undone turns left out.
    InContext,
}

/// The three tables in one shape, each filtered by the given condition (on the
/// conversation $1): `kind` (m, c, t), `id`, `turn_id`, `seq`, `a` (role / call id),
/// `b` (content / tool name), `c` (arguments), `d` (replaced by / result), `e`
/// (status), `tokens`, `t1` (created / started), `t2` (completed), `flag` (edited).
macro_rules! history_union {
    ($messages:expr, $calls:expr, $thinks:expr) => {
        concat!(
            "SELECT 'm' AS kind, id, turn_id, seq, role AS a, content AS b, NULL::text AS c, \
               replaced_by AS d, NULL::text AS e, token_count AS tokens, created_at AS t1, \
               NULL::timestamptz AS t2, is_edited AS flag \
             FROM messages WHERE conversation_id = $1 AND ",
            $messages,
            " UNION ALL SELECT 'c', id, turn_id, seq, call_id, tool_name, arguments, result, \
               status, token_count, started_at, completed_at, FALSE \
             FROM tool_calls WHERE conversation_id = $1 AND ",
            $calls,
            " UNION ALL SELECT 't', id, turn_id, seq, NULL, content, NULL, NULL, NULL, 0::bigint, \
               created_at, NULL, FALSE \
             FROM think_blocks WHERE conversation_id = $1 AND ",
            $thinks
        )
    };
}

/// Rows after $2; undone ones only when $3.
const ROWS_AFTER: &str = concat!(
    history_union!(
        "seq > $2 AND ($3 OR NOT undone)",
        "seq > $2 AND ($3 OR NOT undone)",
        "seq > $2 AND ($3 OR NOT undone)"
    ),
    " ORDER BY seq"
);

/// The rows in the context after $2, unless the conversation ($1) still has version
/// $3 (then only the version: the caller has those rows); first a row of kind `v`
/// holding the version in `tokens`, its `seq` -1 (none when there is no such
/// conversation). The condition on the version is the same for every row, so
/// PostgreSQL checks it once and reads no row when it holds.
const CONTEXT_ROWS_AFTER: &str = concat!(
    "SELECT 'v' AS kind, NULL::text AS id, NULL::text AS turn_id, -1::bigint AS seq, \
       NULL::text AS a, NULL::text AS b, NULL::text AS c, NULL::text AS d, NULL::text AS e, \
       version AS tokens, NULL::timestamptz AS t1, NULL::timestamptz AS t2, FALSE AS flag \
     FROM conversations WHERE id = $1 UNION ALL SELECT * FROM (",
    history_union!(
        "seq > $2 AND NOT undone AND NOT EXISTS (SELECT 1 FROM conversations \
           WHERE id = $1 AND version = $3)",
        "seq > $2 AND NOT undone AND NOT EXISTS (SELECT 1 FROM conversations \
           WHERE id = $1 AND version = $3)",
        "seq > $2 AND NOT undone AND NOT EXISTS (SELECT 1 FROM conversations \
           WHERE id = $1 AND version = $3)"
    ),
    ") AS rows ORDER BY seq"
);

/// Messages and tool calls nearest to $2: up to $3 before, the one at it, up to $4
/// after.
const ROWS_AROUND: &str = concat!(
    "SELECT * FROM (",
    history_union!("seq < $2", "seq < $2", "FALSE"),
    " ORDER BY seq DESC LIMIT $3) AS before UNION ALL SELECT * FROM (",
    history_union!("seq = $2", "seq = $2", "FALSE"),
    ") AS here UNION ALL SELECT * FROM (",
    history_union!("seq > $2", "seq > $2", "FALSE"),
    " ORDER BY seq LIMIT $4) AS after ORDER BY seq"
);

/// The rows of `conversation_id` after `after_seq`, in `seq` order.
pub(super) async fn rows_after(
    store: &PgStore,
    conversation_id: ConversationId,
    after_seq: Seq,
    which: Rows,
) -> RepoResult<Vec<HistoryRow>> {
    if which == Rows::InContext {
        return context_rows_after(store, conversation_id, after_seq).await;
    }
    let found = sqlx::query(ROWS_AFTER)
        .bind(conversation_id.to_string())
        .bind(after_seq)
        .bind(which == Rows::All)
        .fetch_all(store.pool())
        .await
        .map_err(storage("reading history"))?;
    let mut rows = found
        .iter()
        .map(|row| history_row(row, conversation_id))
        .collect::<RepoResult<Vec<_>>>()?;
    fill_row_attachments(store.pool(), &mut rows).await?;
    Ok(rows)
}

/// The rows in the context of `conversation_id` after `after_seq`: the store's copy
/// when the conversation's version has not moved since it was kept (see `cache.rs`),
/// else read and kept.
async fn context_rows_after(
    store: &PgStore,
    conversation_id: ConversationId,
    after_seq: Seq,
) -> RepoResult<Vec<HistoryRow>> {
    let cache = store.rows_cache();
    let mut known = cache.version(conversation_id, after_seq);
    let mut conn = store
        .reader()
        .acquire()
        .await
        .map_err(storage("reading history"))?;
    loop {
        let found = sqlx::query(CONTEXT_ROWS_AFTER)
            .bind(conversation_id.to_string())
            .bind(after_seq)
            .bind(known)
            .fetch_all(&mut *conn)
            .await
            .map_err(storage("reading history"))?;
        let Some((first, rest)) = found.split_first() else {
            // No such conversation: no rows.
            conn.keep();
            cache.forget(conversation_id);
            return Ok(Vec::new());
        };
        let version: i64 = get(first, "tokens")?;
        if rest.is_empty()
            && let Some(kept) = known
            && kept == version
        {
            match cache.rows(conversation_id, after_seq, version) {
                Some(rows) => {
                    conn.keep();
                    return Ok(rows);
                }
                // The copy moved on meanwhile (a write of this store): read the rows.
                None => {
                    known = None;
                    continue;
                }
            }
        }
        let mut rows = rest
            .iter()
            .map(|row| history_row(row, conversation_id))
            .collect::<RepoResult<Vec<_>>>()?;
        // Kept with their attachments: a kept copy is read without asking again.
        fill_row_attachments(&mut *conn, &mut rows).await?;
        conn.keep();
        cache.keep(conversation_id, after_seq, version, &rows);
        return Ok(rows);
    }
}

/// The answers edits and regenerations replaced in `conversation_id`, oldest first.
pub(super) async fn answer_versions(
    store: &PgStore,
    conversation_id: ConversationId,
) -> RepoResult<Vec<AnswerVersion>> {
    let found = sqlx::query(
        "SELECT conversation_id, turn_id, message_id, content, created_at FROM answer_versions \
         WHERE conversation_id = $1 ORDER BY id",
    )
    .bind(conversation_id.to_string())
    .fetch_all(store.pool())
    .await
    .map_err(storage("reading replaced answers"))?;
    found.iter().map(rows::answer_version).collect()
}

/// The messages and tool calls around `seq` (a search hit), in `seq` order.
pub(super) async fn rows_around(
    store: &PgStore,
    conversation_id: ConversationId,
    seq: Seq,
    before: u32,
    after: u32,
) -> RepoResult<Vec<HistoryRow>> {
    let found = sqlx::query(ROWS_AROUND)
        .bind(conversation_id.to_string())
        .bind(seq)
        .bind(i64::from(before))
        .bind(i64::from(after))
        .fetch_all(store.pool())
        .await
        .map_err(storage("reading rows around a search hit"))?;
    let mut rows = found
        .iter()
        .map(|row| history_row(row, conversation_id))
        .collect::<RepoResult<Vec<_>>>()?;
    fill_row_attachments(store.pool(), &mut rows).await?;
    Ok(rows)
}

/// One row of [`history_union!`] as the entity it came from.
fn history_row(row: &PgRow, conversation_id: ConversationId) -> RepoResult<HistoryRow> {
    let kind: String = get(row, "kind")?;
    let text = |column: &str| get::<Option<String>>(row, column);
    let required = |column: &str| {
        text(column)?
            .ok_or_else(|| RepositoryError::corrupt(column, format!("missing in a '{kind}' row")))
    };
    match kind.as_str() {
        "m" => Ok(HistoryRow::Message(Message {
            id: id(row, "id")?,
            conversation_id,
            turn_id: id(row, "turn_id")?,
            seq: get(row, "seq")?,
            role: Role::parse(&required("a")?).map_err(|e| RepositoryError::corrupt("role", e))?,
            content: required("b")?,
            token_count: get(row, "tokens")?,
            created_at: get(row, "t1")?,
            replaced_by: text("d")?
                .map(|raw| {
                    raw.parse()
                        .map_err(|e| RepositoryError::corrupt("replaced_by", e))
                })
                .transpose()?,
            is_edited: get(row, "flag")?,
            attachments: Vec::new(),
        })),
        "c" => Ok(HistoryRow::ToolCall(ToolCall {
            id: id(row, "id")?,
            conversation_id,
            turn_id: id(row, "turn_id")?,
            seq: get(row, "seq")?,
            call_id: required("a")?,
            tool_name: required("b")?,
            arguments: required("c")?,
            result: text("d")?,
            status: ToolCallStatus::parse(&required("e")?)
                .map_err(|e| RepositoryError::corrupt("status", e))?,
            token_count: get(row, "tokens")?,
            started_at: get(row, "t1")?,
            completed_at: get(row, "t2")?,
        })),
        "t" => Ok(HistoryRow::ThinkBlock(ThinkBlock {
            id: id(row, "id")?,
            conversation_id,
            turn_id: id(row, "turn_id")?,
            seq: get(row, "seq")?,
            content: required("b")?,
            created_at: get(row, "t1")?,
        })),
        other => Err(RepositoryError::corrupt(
            "history row kind",
            format!("unknown '{other}'"),
        )),
    }
}
