//! Token counts: the context total.
//!
//! A process that writes rows before its tokenizer is built stores upper bounds and
//! marks the conversation (`provisional_counts_from_seq`); a later process with the
//! tokenizer recounts those rows and clears the mark (both writes are the writer's,
//! `write/conversations.rs`). The running total (`context_tokens`) follows through the
//! schema's triggers.

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
