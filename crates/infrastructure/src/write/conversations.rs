//! The writes of conversations: create, rename, choose a model, delete, compress.

use rusqlite::Connection;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{CompressionUpdate, Conversation};
use smallebot_core::ids::ConversationId;
use smallebot_core::refusals::check_compression;
use smallebot_core::repository::RepoResult;
use smallebot_core::time::format_timestamp;

use crate::queries::{self, execute, first, int0};
use crate::time::now;

pub(super) fn create(conn: &Connection, conversation: &Conversation) -> RepoResult<()> {
    let link = conversation.parent.as_ref();
    execute(
        conn,
        "creating a conversation",
        "INSERT INTO conversations (id, user_name, title, created_at, updated_at, \
         parent_conversation_id, parent_tool_call_id, agent_name) \
         VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6, ?7)",
        (
            conversation.id.to_string(),
            &conversation.user_name,
            &conversation.title,
            format_timestamp(&conversation.created_at),
            link.map(|l| l.parent_conversation_id.to_string()),
            link.map(|l| l.parent_tool_call_id.as_str()),
            link.map(|l| l.agent_name.as_str()),
        ),
    )?;
    Ok(())
}

pub(super) fn rename(conn: &Connection, id: ConversationId, title: &str) -> RepoResult<()> {
    let (_, at) = now();
    let changed = execute(
        conn,
        "renaming a conversation",
        "UPDATE conversations SET title = ?2, updated_at = ?3 WHERE id = ?1",
        (id.to_string(), title, at),
    )?;
    if changed == 0 {
        return Err(RepositoryError::not_found("conversation", id));
    }
    Ok(())
}

pub(super) fn set_model(
    conn: &Connection,
    id: ConversationId,
    model: Option<&str>,
) -> RepoResult<()> {
    let changed = execute(
        conn,
        "choosing a conversation's model",
        "UPDATE conversations SET model_id = ?1 WHERE id = ?2",
        (model, id.to_string()),
    )?;
    if changed == 0 {
        return Err(RepositoryError::not_found("conversation", id));
    }
    Ok(())
}

pub(super) fn delete(conn: &Connection, id: ConversationId) -> RepoResult<(bool, Vec<String>)> {
    let digests = super::attachments::digests(
        conn,
        "SELECT DISTINCT sha256 FROM attachments WHERE conversation_id = ?1",
        [id.to_string()],
    )?;
    let changed = execute(
        conn,
        "deleting a conversation",
        "DELETE FROM conversations WHERE id = ?1",
        [id.to_string()],
    )?;
    Ok((changed > 0, digests))
}

pub(super) fn compress(
    conn: &Connection,
    id: ConversationId,
    update: &CompressionUpdate,
) -> RepoResult<Conversation> {
    let current = queries::conversation(conn, id)?
        .ok_or_else(|| RepositoryError::not_found("conversation", id))?;
    check_compression(&current, update)?;
    let exists = first(
        conn,
        "checking a compression boundary",
        "SELECT (SELECT COUNT(*) FROM messages WHERE conversation_id = ?1 AND seq = ?2) \
              + (SELECT COUNT(*) FROM tool_calls WHERE conversation_id = ?1 AND seq = ?2) \
              + (SELECT COUNT(*) FROM think_blocks WHERE conversation_id = ?1 AND seq = ?2)",
        (id.to_string(), update.compressed_through_seq),
        int0,
    )?
    .unwrap_or(0);
    if exists == 0 {
        return Err(RepositoryError::no_row_at(
            update.compressed_through_seq,
            id,
        ));
    }
    let (_, at) = now();
    execute(
        conn,
        "writing the compression fields",
        "UPDATE conversations SET compressed_context = ?1, compressed_at = ?2, \
         compressed_through_seq = ?3, updated_at = ?4 WHERE id = ?5",
        (
            &update.compressed_context,
            format_timestamp(&update.compressed_at),
            update.compressed_through_seq,
            at,
            id.to_string(),
        ),
    )?;
    queries::conversation(conn, id)?.ok_or_else(|| RepositoryError::not_found("conversation", id))
}
