//! Leases of running turns: the owner columns of `turns`, the one-running-turn check,
//! heartbeats and recovery of abandoned turns.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{LeaseOwner, Turn, TurnStatus};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::RepoResult;
use smallebot_core::time::{Timestamp, format_timestamp};
use sqlx::SqliteConnection;

use crate::database::SqliteStore;
use crate::rows;
use crate::tx::{now, storage};

/// Refuses with [`RepositoryError::TurnRunning`] while the conversation has a running
/// turn (inside a write transaction, so the check and the insert that follows are one
/// step for every process sharing the database).
pub(crate) async fn ensure_no_running_turn(
    conn: &mut SqliteConnection,
    conversation_id: ConversationId,
) -> RepoResult<()> {
    let row = sqlx::query(
        "SELECT id, conversation_id, seq, thinking_mode, status, error, created_at, completed_at, \
         owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at FROM turns \
         WHERE conversation_id = ?1 AND status = 'running' ORDER BY seq LIMIT 1",
    )
    .bind(conversation_id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("checking for a running turn"))?;
    match row.as_ref().map(rows::turn).transpose()? {
        Some(running) => Err(RepositoryError::TurnRunning(Box::new(running))),
        None => Ok(()),
    }
}

/// Inserts a running turn with the next `seq`, leased to `owner` when given (inside a
/// write transaction).
pub(crate) async fn insert_turn(
    conn: &mut SqliteConnection,
    conversation_id: ConversationId,
    thinking_mode: bool,
    owner: Option<&LeaseOwner>,
) -> RepoResult<Turn> {
    let (at, at_text) = now();
    let id = TurnId::new();
    // The conversation's next `seq`, and the turn with it, in one round trip.
    let rows = sqlx::query(
        "UPDATE conversations SET last_seq = last_seq + 1, updated_at = ?4 WHERE id = ?2; \
         INSERT INTO turns (id, conversation_id, seq, thinking_mode, status, created_at, \
         owner_pid, owner_host, owner_started_at, heartbeat_at) \
         SELECT ?1, id, last_seq, ?3, 'running', ?4, ?5, ?6, ?7, ?8 FROM conversations \
         WHERE id = ?2 RETURNING seq",
    )
    .bind(id.to_string())
    .bind(conversation_id.to_string())
    .bind(i64::from(thinking_mode))
    .bind(&at_text)
    .bind(owner.map(|o| i64::from(o.pid)))
    .bind(owner.map(|o| o.host.as_str()))
    .bind(owner.map(|o| format_timestamp(&o.started_at)))
    .bind(owner.map(|_| at_text.as_str()))
    .fetch_all(&mut *conn)
    .await
    .map_err(storage("starting a turn"))?;
    let seq = crate::history::allocated_seq(&rows, conversation_id)?;
    let turn = Turn {
        id,
        conversation_id,
        seq,
        thinking_mode,
        status: TurnStatus::Running,
        error: None,
        created_at: at,
        completed_at: None,
        lease: owner.map(|owner| smallebot_core::entities::TurnLease {
            owner: owner.clone(),
            heartbeat_at: at,
        }),
        undone_at: None,
    };
    Ok(turn)
}

/// Renews a running turn's heartbeat; false when it no longer runs.
pub(crate) async fn heartbeat(
    store: &SqliteStore,
    turn_id: TurnId,
    at: Timestamp,
) -> RepoResult<bool> {
    let update =
        sqlx::query("UPDATE turns SET heartbeat_at = ?1 WHERE id = ?2 AND status = 'running'")
            .bind(format_timestamp(&at))
            .bind(turn_id.to_string());
    let done = store.write_one("renewing a turn's lease", update).await?;
    Ok(done.rows_affected() == 1)
}

/// The running turns of one conversation, or of all.
pub(crate) async fn running_turns(
    store: &SqliteStore,
    conversation_id: Option<ConversationId>,
) -> RepoResult<Vec<Turn>> {
    let mut conn = store.reader("listing running turns").await?;
    let found = sqlx::query(
        "SELECT id, conversation_id, seq, thinking_mode, status, error, created_at, completed_at, \
         owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at FROM turns \
         WHERE status = 'running' AND (?1 IS NULL OR conversation_id = ?1) ORDER BY created_at",
    )
    .bind(conversation_id.map(|id| id.to_string()))
    .fetch_all(&mut *conn)
    .await
    .map_err(storage("listing running turns"))?;
    found.iter().map(rows::turn).collect()
}

/// Marks a turn that still runs `interrupted`, ending its lease.
pub(crate) async fn interrupt_turn(store: &SqliteStore, turn_id: TurnId) -> RepoResult<bool> {
    let (_, at_text) = now();
    let update = sqlx::query(
        "UPDATE turns SET status = 'interrupted', completed_at = ?1, \
         error = 'the process stopped while this turn was running', owner_pid = NULL, \
         owner_host = NULL, owner_started_at = NULL, heartbeat_at = NULL \
         WHERE id = ?2 AND status = 'running'",
    )
    .bind(at_text)
    .bind(turn_id.to_string());
    let done = store
        .write_one("marking a turn interrupted", update)
        .await?;
    Ok(done.rows_affected() == 1)
}
