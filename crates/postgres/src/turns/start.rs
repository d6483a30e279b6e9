//! Starting turns: the one-running-turn check and the insert, under the conversation's
//! row lock so the check and the insert are one step for every process.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{LeaseOwner, Message, Role, Turn, TurnLease, TurnStatus};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use crate::rows::{self, turn_columns};
use crate::store::PgStore;
use crate::tx::{now, pg_text, storage};

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

/// Starts a turn leased to `owner` with its user message, or refuses with
/// [`RepositoryError::TurnRunning`] (nothing stored).
pub(super) async fn start_turn_with_message(
    store: &PgStore,
    conversation_id: ConversationId,
    thinking_mode: bool,
    content: &str,
    token_count: i64,
    owner: &LeaseOwner,
) -> RepoResult<(Turn, Message)> {
    const ACTION: &str = "starting a turn";
    let mut tx = store.pool().begin().await.map_err(storage(ACTION))?;
    // The seqs first: taking them locks the conversation, so a turn another process
    // committed meanwhile is visible to the check (which rolls the seqs back).
    let first = PgStore::allocate_seqs(&mut tx, conversation_id, 2).await?;
    ensure_no_running_turn(&mut tx, conversation_id).await?;
    let at = now();
    let turn_id = TurnId::new();
    let message_id = MessageId::new();
    let text = pg_text(content);
    sqlx::query(
        "WITH turn AS (INSERT INTO turns (id, conversation_id, seq, thinking_mode, status, \
           created_at, owner_pid, owner_host, owner_started_at, heartbeat_at) \
           VALUES ($1, $2, $3, $4, 'running', $5, $6, $7, $8, $5) RETURNING id) \
         INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, token_count, \
           created_at, is_edited) \
         SELECT $9, $2, turn.id, $3 + 1, 'user', $10, $11, $5, FALSE FROM turn",
    )
    .bind(turn_id.to_string())
    .bind(conversation_id.to_string())
    .bind(first)
    .bind(thinking_mode)
    .bind(at)
    .bind(i64::from(owner.pid))
    .bind(&owner.host)
    .bind(owner.started_at)
    .bind(message_id.to_string())
    .bind(text.as_ref())
    .bind(token_count)
    .execute(&mut *tx)
    .await
    .map_err(storage(ACTION))?;
    tx.commit().await.map_err(storage(ACTION))?;
    let turn = Turn {
        id: turn_id,
        conversation_id,
        seq: first,
        thinking_mode,
        status: TurnStatus::Running,
        error: None,
        created_at: at,
        completed_at: None,
        lease: Some(TurnLease {
            owner: owner.clone(),
            heartbeat_at: at,
        }),
        undone_at: None,
    };
    let message = Message {
        id: message_id,
        conversation_id,
        turn_id,
        seq: first + 1,
        role: Role::User,
        content: text.into_owned(),
        token_count,
        created_at: at,
        replaced_by: None,
        is_edited: false,
    };
    Ok((turn, message))
}
