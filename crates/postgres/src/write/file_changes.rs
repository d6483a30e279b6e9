//! The writes of checkpoints on the writer's connection: a turn's file changes, and a
//! content kept once per digest.

use smallebot_core::RepositoryError;
use smallebot_core::entities::TurnFileChange;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::RepoResult;
use smallebot_core::stored_row::file_state_columns;
use smallebot_core::time::Timestamp;
use sqlx::Connection as _;
use sqlx::PgConnection;

use crate::tx::{now, pg_text, storage};

/// What storing a turn's file changes is called in errors.
pub(super) const RECORD: &str = "storing a turn's file changes";
/// What keeping a checkpoint content is called in errors.
pub(super) const KEEP: &str = "keeping a checkpoint content";
/// What pruning checkpoint contents is called in errors.
pub(super) const PRUNE: &str = "pruning checkpoint contents";

/// See `CheckpointRepository::record_file_changes`: one transaction, refused for a
/// turn that is not the conversation's.
pub(super) async fn record(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
    turn_id: TurnId,
    changes: &[TurnFileChange],
) -> RepoResult<()> {
    let mut tx = conn.begin().await.map_err(storage(RECORD))?;
    let known: Option<i32> =
        sqlx::query_scalar("SELECT 1 FROM turns WHERE id = $1 AND conversation_id = $2")
            .bind(turn_id.to_string())
            .bind(conversation_id.to_string())
            .fetch_optional(&mut *tx)
            .await
            .map_err(storage(RECORD))?;
    if known.is_none() {
        return Err(RepositoryError::not_found(
            "turn",
            format!("{turn_id} of conversation {conversation_id}"),
        ));
    }
    let at: Timestamp = now();
    for stored in changes {
        let change = &stored.change;
        let (sha256_before, size_before) = file_state_columns(change.before.as_ref())?;
        let (sha256_after, size_after) = file_state_columns(change.after.as_ref())?;
        sqlx::query(
            "INSERT INTO turn_file_changes (conversation_id, turn_id, path, from_path, kind, \
             sha256_before, size_before, sha256_after, size_after, not_captured, rewind_id, \
             created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        )
        .bind(conversation_id.to_string())
        .bind(turn_id.to_string())
        .bind(pg_text(&change.path).as_ref())
        .bind(
            change
                .from
                .as_deref()
                .map(|from| pg_text(from).into_owned()),
        )
        .bind(change.kind.as_str())
        .bind(sha256_before)
        .bind(size_before)
        .bind(sha256_after)
        .bind(size_after)
        .bind(
            stored
                .not_captured
                .as_deref()
                .map(|r| pg_text(r).into_owned()),
        )
        .bind(stored.rewind.as_deref())
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(storage(RECORD))?;
    }
    tx.commit().await.map_err(storage(RECORD))
}

/// Keeps `content` under `sha256` unless it is kept already.
pub(super) async fn keep(conn: &mut PgConnection, sha256: &str, content: &[u8]) -> RepoResult<()> {
    sqlx::query(
        "INSERT INTO checkpoint_contents (sha256, content) VALUES ($1, $2) \
         ON CONFLICT (sha256) DO NOTHING",
    )
    .bind(sha256)
    .bind(content)
    .execute(&mut *conn)
    .await
    .map_err(storage(KEEP))?;
    Ok(())
}

/// See `CheckpointRepository::prune_checkpoint_contents`: the changes marked and the
/// contents removed in one transaction.
pub(super) async fn prune(
    conn: &mut PgConnection,
    sha256s: &[String],
    reason: &str,
) -> RepoResult<()> {
    let mut tx = conn.begin().await.map_err(storage(PRUNE))?;
    sqlx::query(
        "UPDATE turn_file_changes SET not_captured = $2 \
         WHERE sha256_before = ANY($1) AND not_captured IS NULL",
    )
    .bind(sha256s)
    .bind(pg_text(reason).as_ref())
    .execute(&mut *tx)
    .await
    .map_err(storage(PRUNE))?;
    sqlx::query("DELETE FROM checkpoint_contents WHERE sha256 = ANY($1)")
        .bind(sha256s)
        .execute(&mut *tx)
        .await
        .map_err(storage(PRUNE))?;
    tx.commit().await.map_err(storage(PRUNE))
}
