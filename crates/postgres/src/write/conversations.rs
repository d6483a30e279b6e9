//! A conversation's own writes on the writer's connection: create, rename, model,
//! delete, compression, the first turn's title, and its token counts (provisional
//! marks and their exact replacements; the running total follows through the
//! schema's triggers).

use smallebot_core::RepositoryError;
use smallebot_core::entities::{CompressionUpdate, Conversation, Seq};
use smallebot_core::ids::ConversationId;
use smallebot_core::refusals::check_compression;
use smallebot_core::repository::RepoResult;
use sqlx::{Connection as _, PgConnection};

use super::guard::lock_conversation;
use crate::fetch::fetch_conversation;
use crate::tx::{now, storage};

pub(super) const CREATE: &str = "creating a conversation";
pub(super) const RENAME: &str = "renaming a conversation";
pub(super) const SET_MODEL: &str = "choosing a conversation's model";
pub(super) const DELETE: &str = "deleting a conversation";
pub(super) const COMPRESS: &str = "compressing a conversation";
pub(super) const TITLE: &str = "giving a new conversation its title";
pub(super) const PROVISIONAL: &str = "marking provisional token counts";
pub(super) const EXACT: &str = "storing exact token counts";

/// Stores a new conversation.
pub(super) async fn create(
    conn: &mut PgConnection,
    conversation: Conversation,
) -> RepoResult<Conversation> {
    let link = conversation.parent.as_ref();
    sqlx::query(
        "INSERT INTO conversations (id, user_name, title, created_at, updated_at, \
         parent_conversation_id, parent_tool_call_id, agent_name) \
         VALUES ($1, $2, $3, $4, $4, $5, $6, $7)",
    )
    .bind(conversation.id.to_string())
    .bind(&conversation.user_name)
    .bind(&conversation.title)
    .bind(conversation.created_at)
    .bind(link.map(|l| l.parent_conversation_id.to_string()))
    .bind(link.map(|l| l.parent_tool_call_id.clone()))
    .bind(link.map(|l| l.agent_name.clone()))
    .execute(&mut *conn)
    .await
    .map_err(storage(CREATE))?;
    Ok(conversation)
}

pub(super) async fn rename(
    conn: &mut PgConnection,
    id: ConversationId,
    title: &str,
) -> RepoResult<()> {
    let done = sqlx::query("UPDATE conversations SET title = $1, updated_at = $2 WHERE id = $3")
        .bind(title)
        .bind(now())
        .bind(id.to_string())
        .execute(&mut *conn)
        .await
        .map_err(storage(RENAME))?;
    if done.rows_affected() == 0 {
        return Err(RepositoryError::not_found("conversation", id));
    }
    Ok(())
}

pub(super) async fn set_model(
    conn: &mut PgConnection,
    id: ConversationId,
    model: Option<&str>,
) -> RepoResult<()> {
    let done = sqlx::query("UPDATE conversations SET model_id = $1 WHERE id = $2")
        .bind(model)
        .bind(id.to_string())
        .execute(&mut *conn)
        .await
        .map_err(storage(SET_MODEL))?;
    if done.rows_affected() == 0 {
        return Err(RepositoryError::not_found("conversation", id));
    }
    Ok(())
}

pub(super) async fn delete(conn: &mut PgConnection, id: ConversationId) -> RepoResult<bool> {
    let done = sqlx::query("DELETE FROM conversations WHERE id = $1")
        .bind(id.to_string())
        .execute(&mut *conn)
        .await
        .map_err(storage(DELETE))?;
    Ok(done.rows_affected() > 0)
}

/// See `ConversationRepository::set_compression`: checked and written under the
/// conversation's row lock, in one transaction.
pub(super) async fn set_compression(
    conn: &mut PgConnection,
    id: ConversationId,
    update: &CompressionUpdate,
) -> RepoResult<Conversation> {
    let mut tx = conn.begin().await.map_err(storage(COMPRESS))?;
    let current = lock_conversation(&mut tx, id).await?;
    check_compression(&current, update)?;
    let exists: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM messages WHERE conversation_id = $1 AND seq = $2) \
             OR EXISTS (SELECT 1 FROM tool_calls WHERE conversation_id = $1 AND seq = $2) \
             OR EXISTS (SELECT 1 FROM think_blocks WHERE conversation_id = $1 AND seq = $2)",
    )
    .bind(id.to_string())
    .bind(update.compressed_through_seq)
    .fetch_one(&mut *tx)
    .await
    .map_err(storage("checking a compression boundary"))?;
    if !exists {
        return Err(RepositoryError::no_row_at(
            update.compressed_through_seq,
            id,
        ));
    }
    sqlx::query(
        "UPDATE conversations SET compressed_context = $1, compressed_at = $2, \
         compressed_through_seq = $3, updated_at = $4 WHERE id = $5",
    )
    .bind(&update.compressed_context)
    .bind(update.compressed_at)
    .bind(update.compressed_through_seq)
    .bind(now())
    .bind(id.to_string())
    .execute(&mut *tx)
    .await
    .map_err(storage("writing the compression fields"))?;
    let updated = fetch_conversation(&mut tx, id)
        .await?
        .ok_or_else(|| RepositoryError::not_found("conversation", id))?;
    tx.commit()
        .await
        .map_err(storage("committing a compression"))?;
    Ok(updated)
}

/// Gives the conversation `title` (storable text) when it still has `untitled`;
/// whether it did.
pub(super) async fn first_title(
    conn: &mut PgConnection,
    id: ConversationId,
    title: &str,
    untitled: &str,
) -> RepoResult<bool> {
    let titled = sqlx::query(
        "UPDATE conversations SET title = $1, updated_at = $2 WHERE id = $3 AND title = $4",
    )
    .bind(title)
    .bind(now())
    .bind(id.to_string())
    .bind(untitled)
    .execute(&mut *conn)
    .await
    .map_err(storage(TITLE))?;
    Ok(titled.rows_affected() > 0)
}

/// See `HistoryRepository::mark_counts_provisional`.
pub(super) async fn mark_provisional(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
    from_seq: Seq,
) -> RepoResult<()> {
    let done = sqlx::query(
        "UPDATE conversations SET provisional_counts_from_seq = \
           LEAST(COALESCE(provisional_counts_from_seq, $2), $2) WHERE id = $1",
    )
    .bind(conversation_id.to_string())
    .bind(from_seq)
    .execute(&mut *conn)
    .await
    .map_err(storage(PROVISIONAL))?;
    if done.rows_affected() == 0 {
        return Err(RepositoryError::not_found("conversation", conversation_id));
    }
    Ok(())
}

/// See `HistoryRepository::set_exact_counts`: one transaction under the
/// conversation's row lock.
pub(super) async fn store_exact(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
    counts: &[(Seq, i64)],
    through_seq: Seq,
) -> RepoResult<()> {
    let id = conversation_id.to_string();
    let seqs: Vec<i64> = counts.iter().map(|(seq, _)| *seq).collect();
    let tokens: Vec<i64> = counts.iter().map(|(_, tokens)| *tokens).collect();
    let mut tx = conn.begin().await.map_err(storage(EXACT))?;
    // The conversation's lock first, as every writer takes it.
    lock_conversation(&mut tx, conversation_id).await?;
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
            .map_err(storage(EXACT))?;
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
    .map_err(storage(EXACT))?;
    tx.commit().await.map_err(storage(EXACT))
}
