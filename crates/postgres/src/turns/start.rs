//! Starting turns: the one-running-turn check and the insert, under the conversation's
//! row lock so the check and the insert are one step for every process.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{LeaseOwner, Message, Role, Turn, TurnLease, TurnStatus};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use crate::rows::{self, turn_columns};
use crate::store::PgStore;
use crate::tx::{now, pg_text, storage, violates};

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

/// The partial unique index that allows one running turn per conversation.
const ONE_RUNNING: &str = "turns_one_running";

/// Starts a turn with its user message in one statement: $1 turn id, $2 conversation,
/// $3 thinking mode, $4 now, $5–$7 the owner (pid, host, start), $8 message id, $9
/// text, $10 tokens. The turn takes `last_seq + 1`, the message `last_seq + 2`. Returns
/// the turn's `seq`, NULL when there is no such conversation (nothing written); a
/// running turn of the conversation makes the insert violate [`ONE_RUNNING`].
const START_WITH_MESSAGE: &str = "\
    WITH seq AS (UPDATE conversations SET last_seq = last_seq + 2, updated_at = $4 \
      WHERE id = $2 RETURNING last_seq - 1 AS first), \
    turn AS (INSERT INTO turns (id, conversation_id, seq, thinking_mode, status, created_at, \
        owner_pid, owner_host, owner_started_at, heartbeat_at) \
      SELECT $1, $2, seq.first, $3, 'running', $4, $5, $6, $7, $4 FROM seq RETURNING id), \
    message AS (INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, \
        token_count, created_at, is_edited) \
      SELECT $8, $2, turn.id, seq.first + 1, 'user', $9, $10, $4, FALSE FROM turn, seq) \
    SELECT seq.first FROM (SELECT 1) AS one LEFT JOIN seq ON TRUE";

/// How often a start refused by the index is tried again when the running turn it met
/// has ended before it could be read.
const START_ATTEMPTS: usize = 3;

/// Starts a turn leased to `owner` with its user message, or refuses with
/// [`RepositoryError::TurnRunning`] (nothing stored). One statement, so one round trip:
/// taking the `seq`s locks the conversation, and the unique index on running turns
/// refuses a second one whichever process committed it.
pub(super) async fn start_turn_with_message(
    store: &PgStore,
    conversation_id: ConversationId,
    thinking_mode: bool,
    content: &str,
    token_count: i64,
    owner: &LeaseOwner,
) -> RepoResult<(Turn, Message)> {
    const ACTION: &str = "starting a turn";
    let at = now();
    let turn_id = TurnId::new();
    let message_id = MessageId::new();
    let text = pg_text(content);
    let mut attempt = 0;
    let first = loop {
        attempt += 1;
        let started: Result<Option<i64>, sqlx::Error> = sqlx::query_scalar(START_WITH_MESSAGE)
            .bind(turn_id.to_string())
            .bind(conversation_id.to_string())
            .bind(thinking_mode)
            .bind(at)
            .bind(i64::from(owner.pid))
            .bind(&owner.host)
            .bind(owner.started_at)
            .bind(message_id.to_string())
            .bind(text.as_ref())
            .bind(token_count)
            .fetch_one(store.pool())
            .await;
        match started {
            Ok(Some(first)) => break first,
            Ok(None) => {
                return Err(RepositoryError::not_found("conversation", conversation_id));
            }
            Err(err) if violates(&err, ONE_RUNNING) => {
                let mut conn = store.pool().acquire().await.map_err(storage(ACTION))?;
                if let Some(running) = running_turn_on(&mut conn, conversation_id).await? {
                    return Err(RepositoryError::TurnRunning(Box::new(running)));
                }
                if attempt >= START_ATTEMPTS {
                    return Err(storage(ACTION)(err));
                }
            }
            Err(err) => return Err(storage(ACTION)(err)),
        }
    };
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
