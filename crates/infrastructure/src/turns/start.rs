//! Starting a turn with its user message: the one-running-turn check, the turn and the
//! message as one transaction, run on the calling thread (`tx/direct.rs`) — alone when
//! nothing else writes, else batched with other writes (`tx/batch.rs`).

use crate::database::SqliteStore;
use crate::rows::{self, corrupt};
use crate::tx::{Job, JobKind, direct_storage, now};
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    FirstTurnTitle, LeaseOwner, Message, Role, Turn, TurnLease, TurnStatus,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::RepoResult;
use smallebot_core::time::format_timestamp;

/// Starts a turn leased to `owner` with its user message, or refuses with
/// [`RepositoryError::TurnRunning`] (nothing stored). With a `title`, a first turn of a
/// conversation still `title.untitled` also gives it `title.title`, in the same
/// transaction; the last value says whether it did.
pub(super) async fn start_turn_with_message(
    store: &SqliteStore,
    conversation_id: ConversationId,
    thinking_mode: bool,
    content: &str,
    token_count: i64,
    owner: &LeaseOwner,
    title: Option<FirstTurnTitle<'_>>,
) -> RepoResult<(Turn, Message, bool)> {
    const ACTION: &str = "starting a turn";
    let (at, at_text) = now();
    let turn_id = TurnId::new();
    let message_id = MessageId::new();
    let document = serde_json::json!({
        "subject": conversation_id.to_string(),
        "turn": turn_id.to_string(),
        "thinking": i64::from(thinking_mode),
        "at": at_text,
        "pid": owner.pid,
        "host": owner.host,
        "started_at": format_timestamp(&owner.started_at),
        "message_id": message_id.to_string(),
        "text": content,
        "tokens": token_count,
        "title": title.map(|t| t.title),
        "untitled": title.map(|t| t.untitled),
    });
    let returned = store
        .writer()
        .run_batched(Job {
            kind: JobKind::StartTurn,
            doc: document.to_string(),
            keys: vec![
                format!("conversation:{conversation_id}"),
                format!("turn:{turn_id}"),
                message_id.to_string(),
            ],
        })
        .await
        .map_err(direct_storage(ACTION))?;
    let (mut turn_seq, mut message_seq, mut titled) = (None, None, false);
    for row in &returned {
        match row.text_at(0)?.as_str() {
            "running" => return Err(RepositoryError::TurnRunning(Box::new(rows::turn(row)?))),
            "turn" => turn_seq = Some(row.int_at(1)?),
            "message" => message_seq = Some(row.int_at(1)?),
            "titled" => titled = true,
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
    Ok((turn, message, titled))
}
