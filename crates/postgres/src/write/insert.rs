//! Rows inserted inside a rewrite's or a fixture's transaction on the writer's
//! connection: a turn, a message, each taking the conversation's next `seq` (and its row
//! lock until the transaction ends). A new turn with its user message in one statement
//! is in `turns.rs`.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{LeaseOwner, Message, Role, Turn, TurnLease, TurnStatus};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use crate::fetch::ensure_no_running_turn;
use crate::tx::{now, pg_text, storage};

/// Hands out the conversation's next `count` seqs (under its row lock, held until
/// the transaction ends), bumps `updated_at`, moves its version and counts `tokens`,
/// those of the rows about to be inserted, into its context total; returns the first.
pub(super) async fn allocate_seqs(
    conn: &mut sqlx::PgConnection,
    id: ConversationId,
    count: i64,
    tokens: i64,
) -> RepoResult<i64> {
    let last: Option<i64> = sqlx::query_scalar(
        "UPDATE conversations SET last_seq = last_seq + $2, updated_at = $3, \
         version = version + 1, context_tokens = context_tokens + $4 \
         WHERE id = $1 RETURNING last_seq",
    )
    .bind(id.to_string())
    .bind(count)
    .bind(now())
    .bind(tokens)
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("allocating a seq"))?;
    let last = last.ok_or_else(|| RepositoryError::not_found("conversation", id))?;
    Ok(last - count + 1)
}

/// Inserts a running turn with the next `seq`, leased to `owner` when given, or
/// refuses with [`RepositoryError::TurnRunning`]. Taking the `seq` takes the
/// conversation's row lock, so the check sees every turn committed before.
pub(super) async fn insert_turn(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
    thinking_mode: bool,
    owner: Option<&LeaseOwner>,
) -> RepoResult<Turn> {
    let seq = allocate_seqs(conn, conversation_id, 1, 0).await?;
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
        cut: None,
    })
}

/// Inserts a message with the conversation's next `seq` (taking its row lock until the
/// transaction ends).
pub(super) async fn insert_message(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
    turn_id: TurnId,
    role: Role,
    content: &str,
    token_count: i64,
    is_edited: bool,
) -> RepoResult<Message> {
    let seq = allocate_seqs(conn, conversation_id, 1, token_count).await?;
    let at = now();
    let id = MessageId::new();
    let content = pg_text(content).into_owned();
    sqlx::query(
        "INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, token_count, \
         created_at, is_edited) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(id.to_string())
    .bind(conversation_id.to_string())
    .bind(turn_id.to_string())
    .bind(seq)
    .bind(role.as_str())
    .bind(&content)
    .bind(token_count)
    .bind(at)
    .bind(is_edited)
    .execute(&mut *conn)
    .await
    .map_err(|err| match &err {
        sqlx::Error::Database(db) if db.code().as_deref() == Some("23503") => {
            RepositoryError::not_found("turn", turn_id)
        }
        _ => storage("appending a message")(err),
    })?;
    Ok(Message {
        id,
        conversation_id,
        turn_id,
        seq,
        role,
        content,
        token_count,
        created_at: at,
        replaced_by: None,
        is_edited,
        attachments: Vec::new(),
    })
}
