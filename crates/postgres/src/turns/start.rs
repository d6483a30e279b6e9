//! Starting turns inside a transaction (edit): the one-running-turn check and the
//! insert, under the conversation's row lock so the check and the insert are one step
//! for every process. A new turn with its user message is the writer's
//! (`write/turns.rs`).

use smallebot_core::RepositoryError;
use smallebot_core::entities::{LeaseOwner, Turn, TurnLease, TurnStatus};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use crate::rows::{self, turn_columns};
use crate::store::PgStore;
use crate::tx::{now, storage};

/// The conversation's running turn, if any.
pub(crate) async fn running_turn_on(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
) -> RepoResult<Option<Turn>> {
    let row = sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE conversation_id = $1 AND status = 'running' ORDER BY seq LIMIT 1"
    ))
    .bind(conversation_id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("checking for a running turn"))?;
    row.as_ref().map(rows::turn).transpose()
}

/// Refuses with [`RepositoryError::TurnRunning`] while the conversation has a running
/// turn (call it holding the conversation's row lock).
pub(crate) async fn ensure_no_running_turn(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
) -> RepoResult<()> {
    match running_turn_on(conn, conversation_id).await? {
        Some(running) => Err(RepositoryError::TurnRunning(Box::new(running))),
        None => Ok(()),
    }
}

/// Inserts a running turn with the next `seq`, leased to `owner` when given, or
/// refuses with [`RepositoryError::TurnRunning`]. Taking the `seq` takes the
/// conversation's row lock, so the check sees every turn committed before.
pub(crate) async fn insert_turn(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
    thinking_mode: bool,
    owner: Option<&LeaseOwner>,
) -> RepoResult<Turn> {
    let seq = PgStore::allocate_seqs(conn, conversation_id, 1).await?;
    ensure_no_running_turn(conn, conversation_id).await?;
    let at = now();
    let id = TurnId::new();
    sqlx::query(
        "INSERT INTO turns (id, conversation_id, seq, thinking_mode, status, created_at, \
         owner_pid, owner_host, owner_started_at, heartbeat_at) \
         VALUES ($1, $2, $3, $4, 'running', $5, $6, $7, $8, $9)",
    )
    .bind(id.to_string())
    .bind(conversation_id.to_string())
    .bind(seq)
    .bind(thinking_mode)
    .bind(at)
    .bind(owner.map(|o| i64::from(o.pid)))
    .bind(owner.map(|o| o.host.as_str()))
    .bind(owner.map(|o| o.started_at))
    .bind(owner.map(|_| at))
    .execute(&mut *conn)
    .await
    .map_err(storage("starting a turn"))?;
    Ok(Turn {
        id,
        conversation_id,
        seq,
        thinking_mode,
        status: TurnStatus::Running,
        error: None,
        created_at: at,
        completed_at: None,
        lease: owner.map(|owner| TurnLease {
            owner: owner.clone(),
            heartbeat_at: at,
        }),
        undone_at: None,
    })
}
