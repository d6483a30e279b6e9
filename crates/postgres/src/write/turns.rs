//! A turn's start, end and heartbeats on the writer's connection, one statement each.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, LeaseOwner, Message, Role, Turn, TurnLease, TurnStatus,
};
use smallebot_core::ids::{AttachmentId, ConversationId, MessageId, TurnId};
use smallebot_core::repository::RepoResult;
use smallebot_core::time::Timestamp;
use sqlx::Connection as _;
use sqlx::postgres::PgArguments;

use super::{Link, failed};
use crate::history::cache::Written;
use crate::rows::{self, turn_columns};
use crate::tx::{now, pg_text, storage, violates};

/// A turn to start, leased to `owner`, with its user message.
#[derive(Debug)]
pub(crate) struct StartTurn {
    /// The conversation.
    pub conversation_id: ConversationId,
    /// The turn's thinking mode.
    pub thinking_mode: bool,
    /// The user message.
    pub content: String,
    /// The uploads it carries (linked in the same transaction).
    pub attachments: Vec<AttachmentId>,
    /// Its tokens.
    pub token_count: i64,
    /// The process that runs the turn.
    pub owner: LeaseOwner,
}

/// The partial unique index that allows one running turn per conversation.
const ONE_RUNNING: &str = "turns_one_running";

/// Starts a turn with its user message in one statement: $1 turn id, $2 conversation,
/// $3 thinking mode, $4 now, $5–$7 the owner (pid, host, start), $8 message id, $9
/// text, $10 tokens. The turn takes `last_seq + 1`, the message `last_seq + 2` (its
/// tokens counted into the context total), the conversation's version moves by one. Returns the turn's `seq` and the new version,
/// NULLs when there is no such conversation (nothing written); a running turn of the
/// conversation makes the insert violate [`ONE_RUNNING`].
const START_WITH_MESSAGE: &str = "\
    WITH seq AS (UPDATE conversations SET last_seq = last_seq + 2, updated_at = $4, \
        version = version + 1, context_tokens = context_tokens + $10 \
      WHERE id = $2 RETURNING last_seq - 1 AS first, version), \
    turn AS (INSERT INTO turns (id, conversation_id, seq, thinking_mode, status, created_at, \
        owner_pid, owner_host, owner_started_at, heartbeat_at) \
      SELECT $1, $2, seq.first, $3, 'running', $4, $5, $6, $7, $4 FROM seq RETURNING id), \
    message AS (INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, \
        token_count, created_at, is_edited) \
      SELECT $8, $2, turn.id, seq.first + 1, 'user', $9, $10, $4, FALSE FROM turn, seq) \
    SELECT seq.first, seq.version FROM (SELECT 1) AS one LEFT JOIN seq ON TRUE";

/// The conversation's running turn: $1 conversation.
const RUNNING_TURN: &str = concat!(
    "SELECT ",
    turn_columns!(),
    " FROM turns WHERE conversation_id = $1 AND status = 'running' ORDER BY seq LIMIT 1"
);

/// How often a start refused by the index is tried again when the running turn it met
/// has ended before it could be read.
const START_ATTEMPTS: usize = 3;

/// The start statement with its values bound (see [`START_WITH_MESSAGE`]).
fn start_query<'q>(
    start: &'q StartTurn,
    (turn_id, message_id): (&'q str, &'q str),
    at: Timestamp,
    text: &'q str,
) -> sqlx::query::QueryAs<'q, sqlx::Postgres, (Option<i64>, Option<i64>), PgArguments> {
    let owner = &start.owner;
    sqlx::query_as(START_WITH_MESSAGE)
        .bind(turn_id)
        .bind(start.conversation_id.to_string())
        .bind(start.thinking_mode)
        .bind(at)
        .bind(i64::from(owner.pid))
        .bind(&owner.host)
        .bind(owner.started_at)
        .bind(message_id)
        .bind(text)
        .bind(start.token_count)
}

/// Starts a turn leased to its owner with its user message, or refuses with
/// [`RepositoryError::TurnRunning`] (nothing stored); also answers the conversation's
/// version after the start. Taking the `seq`s locks the conversation, and the unique
/// index on running turns refuses a second one whichever process committed it.
pub(super) async fn start(link: &mut Link, start: &StartTurn) -> RepoResult<(Turn, Message, i64)> {
    const ACTION: &str = "starting a turn";
    let at = now();
    let turn_id = TurnId::new();
    let message_id = MessageId::new();
    let text = pg_text(&start.content);
    let owner = &start.owner;
    let (turn_text, message_text) = (turn_id.to_string(), message_id.to_string());
    let ids = (turn_text.as_str(), message_text.as_str());
    let mut attachments = Vec::new();
    let mut attempt = 0;
    let (first, version) = loop {
        attempt += 1;
        let conn = link.get().await.map_err(storage(ACTION))?;
        let started = if start.attachments.is_empty() {
            start_query(start, ids, at, &text)
                .fetch_one(&mut *conn)
                .await
        } else {
            // The start and the links in one transaction: a refused link leaves
            // nothing (the transaction is rolled back when dropped).
            match conn.begin().await {
                Err(err) => Err(err),
                Ok(mut tx) => match start_query(start, ids, at, &text).fetch_one(&mut *tx).await {
                    Ok((Some(first), Some(version))) => {
                        attachments = super::attachments::link(
                            &mut tx,
                            start.conversation_id,
                            message_id,
                            &start.attachments,
                        )
                        .await?;
                        tx.commit().await.map(|()| (Some(first), Some(version)))
                    }
                    other => other,
                },
            }
        };
        match started {
            Ok((Some(first), Some(version))) => break (first, version),
            Ok(_) => {
                return Err(RepositoryError::not_found(
                    "conversation",
                    start.conversation_id,
                ));
            }
            Err(err) if violates(&err, ONE_RUNNING) => {
                let row = sqlx::query(RUNNING_TURN)
                    .bind(start.conversation_id.to_string())
                    .fetch_optional(&mut *conn)
                    .await
                    .map_err(|e| failed(link, "checking for a running turn", e))?;
                if let Some(running) = row.as_ref().map(rows::turn).transpose()? {
                    return Err(RepositoryError::TurnRunning(Box::new(running)));
                }
                if attempt >= START_ATTEMPTS {
                    return Err(failed(link, ACTION, err));
                }
            }
            Err(err) => return Err(failed(link, ACTION, err)),
        }
    };
    let turn = Turn {
        id: turn_id,
        conversation_id: start.conversation_id,
        seq: first,
        thinking_mode: start.thinking_mode,
        status: TurnStatus::Running,
        error: None,
        created_at: at,
        completed_at: None,
        lease: Some(TurnLease {
            owner: owner.clone(),
            heartbeat_at: at,
        }),
        undone_at: None,
        cut: None,
    };
    let message = Message {
        id: message_id,
        conversation_id: start.conversation_id,
        turn_id,
        seq: first + 1,
        role: Role::User,
        content: text.into_owned(),
        token_count: start.token_count,
        created_at: at,
        replaced_by: None,
        is_edited: false,
        attachments,
    };
    link.cache.written(
        start.conversation_id,
        version,
        Written::Appended {
            rows: &[HistoryRow::Message(message.clone())],
            turn: turn_id,
            ended: false,
        },
    );
    Ok((turn, message, version))
}

/// Ends a turn and its lease: $1 status, $2 error, $3 now, $4 turn.
/// Its conversation's version moves by one (ending a turn ends its calls still running),
/// its row locked first as every writer locks it.
const FINISH_TURN: &str = concat!(
    "WITH moved AS (UPDATE conversations SET version = version + 1 \
       WHERE id = (SELECT conversation_id FROM turns WHERE id = $4) RETURNING id) \
     UPDATE turns SET status = $1, error = $2, completed_at = $3, owner_pid = NULL, \
     owner_host = NULL, owner_started_at = NULL, heartbeat_at = NULL \
     WHERE id = $4 AND conversation_id IN (SELECT id FROM moved) \
     RETURNING ",
    turn_columns!()
);

/// Ends a turn; [`RepositoryError::NotFound`] when there is no such turn.
pub(super) async fn finish(
    link: &mut Link,
    turn_id: TurnId,
    status: TurnStatus,
    error: Option<&str>,
) -> RepoResult<Turn> {
    const ACTION: &str = "finishing a turn";
    let conn = link.get().await.map_err(storage(ACTION))?;
    let row = sqlx::query(FINISH_TURN)
        .bind(status.as_str())
        .bind(error.map(pg_text).as_deref())
        .bind(now())
        .bind(turn_id.to_string())
        .fetch_optional(&mut *conn)
        .await
        .map_err(|e| failed(link, ACTION, e))?;
    match row {
        Some(row) => rows::turn(&row),
        None => Err(RepositoryError::not_found("turn", turn_id)),
    }
}

/// Renews a running turn's lease; false when it is not running.
pub(super) async fn heartbeat(link: &mut Link, turn_id: TurnId, at: Timestamp) -> RepoResult<bool> {
    const ACTION: &str = "renewing a turn's lease";
    let conn = link.get().await.map_err(storage(ACTION))?;
    let done =
        sqlx::query("UPDATE turns SET heartbeat_at = $1 WHERE id = $2 AND status = 'running'")
            .bind(at)
            .bind(turn_id.to_string())
            .execute(&mut *conn)
            .await
            .map_err(|e| failed(link, ACTION, e))?;
    Ok(done.rows_affected() == 1)
}
