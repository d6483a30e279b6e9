//! Starting a turn with its user message: the one-running-turn check, the turn and the
//! message as one transaction ([`START_TURN`]), run on the calling thread
//! (`tx/direct.rs`).

use crate::database::SqliteStore;
use crate::rows::{self, corrupt};
use crate::tx::{direct_storage, now, run_script, storage};
use smallebot_core::RepositoryError;
use smallebot_core::entities::{LeaseOwner, Message, Role, Turn, TurnLease, TurnStatus};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::RepoResult;
use smallebot_core::time::format_timestamp;

/// Its one parameter, ?1, is a JSON object: `turn`, `conversation`, `thinking` (0 or
/// 1), `at`, `pid`, `host`, `started_at`, `message_id`, `text`, `tokens` (one
/// parameter: see `RECORD_STEP` in `steps.rs` for why).
///
/// The conversation's running turn, if any, comes back tagged `running`, and then the
/// inserts insert nothing (their `NOT EXISTS` / `EXISTS` conditions), so the
/// transaction commits no change. The write connection's `TEMP` triggers advance
/// `last_seq` after each insert: the turn and its message take consecutive `seq`s.
const START_TURN: &str = "\
    BEGIN IMMEDIATE; \
    SELECT 'running' AS kind, id, conversation_id, seq, thinking_mode, status, error, \
      created_at, completed_at, owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at \
      FROM turns WHERE conversation_id = ?1 ->> 'conversation' AND status = 'running' \
      ORDER BY seq LIMIT 1; \
    INSERT INTO turns (id, conversation_id, seq, thinking_mode, status, created_at, \
      owner_pid, owner_host, owner_started_at, heartbeat_at) \
      SELECT ?1 ->> 'turn', id, last_seq + 1, ?1 ->> 'thinking', 'running', ?1 ->> 'at', \
        ?1 ->> 'pid', ?1 ->> 'host', ?1 ->> 'started_at', ?1 ->> 'at' \
      FROM conversations WHERE id = ?1 ->> 'conversation' AND NOT EXISTS \
        (SELECT 1 FROM turns WHERE conversation_id = ?1 ->> 'conversation' \
         AND status = 'running') \
      RETURNING 'turn' AS kind, seq; \
    INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, token_count, \
      created_at, is_edited) \
      SELECT ?1 ->> 'message_id', id, ?1 ->> 'turn', last_seq + 1, 'user', ?1 ->> 'text', \
        ?1 ->> 'tokens', ?1 ->> 'at', 0 \
      FROM conversations WHERE id = ?1 ->> 'conversation' \
        AND EXISTS (SELECT 1 FROM turns WHERE id = ?1 ->> 'turn') \
      RETURNING 'message' AS kind, seq; \
    COMMIT";

/// Starts a turn leased to `owner` with its user message, or refuses with
/// [`RepositoryError::TurnRunning`] (nothing stored).
pub(super) async fn start_turn_with_message(
    store: &SqliteStore,
    conversation_id: ConversationId,
    thinking_mode: bool,
    content: &str,
    token_count: i64,
    owner: &LeaseOwner,
) -> RepoResult<(Turn, Message)> {
    const ACTION: &str = "starting a turn";
    let (at, at_text) = now();
    let turn_id = TurnId::new();
    let message_id = MessageId::new();
    let writer = store.writer().lock().await.map_err(storage(ACTION))?;
    let document = serde_json::json!({
        "turn": turn_id.to_string(),
        "conversation": conversation_id.to_string(),
        "thinking": i64::from(thinking_mode),
        "at": at_text,
        "pid": owner.pid,
        "host": owner.host,
        "started_at": format_timestamp(&owner.started_at),
        "message_id": message_id.to_string(),
        "text": content,
        "tokens": token_count,
    });
    let document = document.to_string();
    let returned = writer
        .direct(move |conn| run_script(conn, START_TURN, &[&document]))
        .await
        .map_err(direct_storage(ACTION))?;
    drop(writer);
    let (mut turn_seq, mut message_seq) = (None, None);
    for row in &returned {
        match row.text_at(0)?.as_str() {
            "running" => return Err(RepositoryError::TurnRunning(Box::new(rows::turn(row)?))),
            "turn" => turn_seq = Some(row.int_at(1)?),
            "message" => message_seq = Some(row.int_at(1)?),
            other => return Err(corrupt("start result", format!("unknown tag '{other}'"))),
        }
    }
    let (Some(turn_seq), Some(message_seq)) = (turn_seq, message_seq) else {
        return Err(RepositoryError::not_found("conversation", conversation_id));
    };
    let turn = Turn {
        id: turn_id,
        conversation_id,
        seq: turn_seq,
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
        seq: message_seq,
        role: Role::User,
        content: content.to_owned(),
        token_count,
        created_at: at,
        replaced_by: None,
        is_edited: false,
    };
    Ok((turn, message))
}
