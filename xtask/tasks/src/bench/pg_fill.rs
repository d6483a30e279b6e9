//! Filling a PostgreSQL database fast (`COPY`) for benchmarks, with the same rows
//! [`fill_conversation`](super::fixture::fill_conversation) writes to SQLite.

use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use sqlx::PgPool;
use sqlx::postgres::PgPoolCopyExt;

use super::fixture::sentence;

/// The title every benchmark conversation gets, so [`remove_filled`] finds them.
const BENCH_TITLE: &str = "smallebot bench";

fn err(e: sqlx::Error) -> String {
    format!("filling the PostgreSQL benchmark database: {e}")
}

/// Streams `lines` (already tab-separated) into `COPY statement FROM STDIN`.
async fn copy(pool: &PgPool, statement: &'static str, lines: String) -> Result<(), String> {
    let mut copy = pool.copy_in_raw(statement).await.map_err(err)?;
    copy.send(lines.into_bytes()).await.map_err(err)?;
    copy.finish().await.map_err(err)?;
    Ok(())
}

/// A conversation of `turns` turns (a user and an assistant message each, of `words`
/// words and `tokens` stored tokens), as [`super::fixture::fill_conversation`] writes it.
pub async fn fill_conversation(
    pool: &PgPool,
    user: &str,
    turns: usize,
    words: usize,
    tokens: i64,
) -> Result<ConversationId, String> {
    let id = ConversationId::new();
    let at = "2026-01-01T00:00:00.000Z";
    sqlx::query(
        "INSERT INTO conversations (id, user_name, title, created_at, updated_at, last_seq) \
         VALUES ($1, $2, $3, $4::timestamptz, $4::timestamptz, $5)",
    )
    .bind(id.to_string())
    .bind(user)
    .bind(BENCH_TITLE)
    .bind(at)
    .bind(i64::try_from(turns * 3).unwrap_or(i64::MAX))
    .execute(pool)
    .await
    .map_err(err)?;
    let mut turn_lines = String::with_capacity(turns * 100);
    let mut message_lines = String::with_capacity(turns * 2 * (words * 8 + 120));
    let mut seq = 0u64;
    for t in 0..turns {
        let turn = TurnId::new();
        seq += 1;
        turn_lines.push_str(&format!("{turn}\t{id}\t{seq}\tcompleted\t{at}\n"));
        for role in ["user", "assistant"] {
            seq += 1;
            let text = sentence(t * 2 + usize::from(role == "assistant"), words);
            message_lines.push_str(&format!(
                "{}\t{id}\t{turn}\t{seq}\t{role}\t{text}\t{tokens}\t{at}\n",
                MessageId::new()
            ));
        }
    }
    copy(
        pool,
        "COPY turns (id, conversation_id, seq, status, created_at) FROM STDIN",
        turn_lines,
    )
    .await?;
    copy(
        pool,
        "COPY messages (id, conversation_id, turn_id, seq, role, content, token_count, \
         created_at) FROM STDIN",
        message_lines,
    )
    .await?;
    Ok(id)
}

/// Deletes every conversation a benchmark filled (with its rows).
pub async fn remove_filled(pool: &PgPool) -> Result<(), String> {
    sqlx::query("DELETE FROM conversations WHERE title = $1")
        .bind(BENCH_TITLE)
        .execute(pool)
        .await
        .map_err(err)?;
    Ok(())
}
