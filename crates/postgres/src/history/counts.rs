//! Token counts: the context total, provisional counts and their exact replacements.
//!
//! A process that writes rows before its tokenizer is built stores upper bounds and
//! marks the conversation (`provisional_counts_from_seq`); a later process with the
//! tokenizer recounts those rows and clears the mark. The running total
//! (`context_tokens`) follows through the schema's triggers.

use smallebot_core::RepositoryError;
use smallebot_core::entities::Seq;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::RepoResult;

use crate::store::PgStore;
use crate::tx::storage;

/// The tokens of the context rows after `after_seq`.
pub(super) async fn token_sum_after(
    store: &PgStore,
    conversation_id: ConversationId,
    after_seq: Seq,
) -> RepoResult<i64> {
    // At the compression boundary (every turn's case) the running total answers at once.
    let total: Option<i64> = sqlx::query_scalar(
        "SELECT CASE WHEN COALESCE(c.compressed_through_seq, 0) = $2 THEN c.context_tokens \
           ELSE (SELECT COALESCE(SUM(token_count), 0) FROM messages \
                 WHERE conversation_id = $1 AND seq > $2 AND replaced_by IS NULL \
                 AND NOT undone)::bigint \
              + (SELECT COALESCE(SUM(token_count), 0) FROM tool_calls \
                 WHERE conversation_id = $1 AND seq > $2 AND NOT undone)::bigint END \
         FROM conversations c WHERE c.id = $1",
    )
    .bind(conversation_id.to_string())
    .bind(after_seq)
    .fetch_optional(store.pool())
    .await
    .map_err(storage("reading the context token total"))?;
    // A conversation that does not exist has no rows (as the SQLite store answers).
    Ok(total.unwrap_or(0))
}

/// See `HistoryRepository::mark_counts_provisional`.
pub(super) async fn mark_provisional(
    store: &PgStore,
    conversation_id: ConversationId,
    from_seq: Seq,
) -> RepoResult<()> {
    let done = sqlx::query(
        "UPDATE conversations SET provisional_counts_from_seq = \
           LEAST(COALESCE(provisional_counts_from_seq, $2), $2) WHERE id = $1",
    )
    .bind(conversation_id.to_string())
    .bind(from_seq)
    .execute(store.pool())
    .await
    .map_err(storage("marking provisional token counts"))?;
    if done.rows_affected() == 0 {
        return Err(RepositoryError::not_found("conversation", conversation_id));
    }
    Ok(())
}

/// See `HistoryRepository::set_exact_counts`.
pub(super) async fn store_exact(
    store: &PgStore,
    conversation_id: ConversationId,
    counts: &[(Seq, i64)],
    through_seq: Seq,
) -> RepoResult<()> {
    const ACTION: &str = "storing exact token counts";
    let id = conversation_id.to_string();
    let seqs: Vec<i64> = counts.iter().map(|(seq, _)| *seq).collect();
    let tokens: Vec<i64> = counts.iter().map(|(_, tokens)| *tokens).collect();
    let mut tx = store.pool().begin().await.map_err(storage(ACTION))?;
    // The conversation's lock first, as every writer takes it.
    PgStore::lock_conversation(&mut tx, conversation_id).await?;
    for table in [
        "UPDATE messages m SET token_count = n.tokens \
         FROM UNNEST($2::bigint[], $3::bigint[]) AS n(seq, tokens) \
         WHERE m.conversation_id = $1 AND m.seq = n.seq",
        "UPDATE tool_calls t SET token_count = n.tokens \
         FROM UNNEST($2::bigint[], $3::bigint[]) AS n(seq, tokens) \
         WHERE t.conversation_id = $1 AND t.seq = n.seq",
    ] {
        sqlx::query(table)
            .bind(&id)
            .bind(&seqs)
            .bind(&tokens)
            .execute(&mut *tx)
            .await
            .map_err(storage(ACTION))?;
    }
    // Rows written after `through_seq` (by another process meanwhile) may still be
    // provisional: keep a mark just after it then.
    sqlx::query(
        "UPDATE conversations SET provisional_counts_from_seq = CASE \
           WHEN provisional_counts_from_seq IS NULL THEN NULL \
           WHEN EXISTS (SELECT 1 FROM messages WHERE conversation_id = $1 AND seq > $2) \
             OR EXISTS (SELECT 1 FROM tool_calls WHERE conversation_id = $1 AND seq > $2) \
           THEN GREATEST(provisional_counts_from_seq, $2 + 1) \
           ELSE NULL END \
         WHERE id = $1",
    )
    .bind(&id)
    .bind(through_seq)
    .execute(&mut *tx)
    .await
    .map_err(storage(ACTION))?;
    tx.commit().await.map_err(storage(ACTION))
}
