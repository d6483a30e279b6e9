//! The rules of rewriting a conversation's end — edit a user message, regenerate a
//! turn, undo the last turn — decided once, here, on rows read from the store, and
//! applied with the store's guarded primitives.
//!
//! A decision is made on reads that another process may overtake. Each primitive
//! therefore carries the state it was decided on ([`RewriteGuard`]: the boundary, and
//! the message or turn it acts on) and checks it inside its transaction, with the
//! one-running-turn rule; when the guard no longer holds it refuses with
//! [`RepositoryError::Conflict`], changing nothing, and the decision is made again on
//! fresh reads — so a rewrite racing another ends with the error (or the change) it
//! would have had run after it. The functions answer with the store's error type, the
//! texts of the pure rules in [`smallebot_core::rules::rewrite`].

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    Conversation, LeaseOwner, Message, MessageReplacement, RewriteGuard, Turn, TurnRestart,
    TurnUndo,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::{RepoResult, Store};
use smallebot_core::rules::rewrite::{
    check_edit, check_undo, ensure_no_running_turn, regeneration_message, undo_candidate,
};

/// How many times a rewrite is decided again when another writer overtook its reads.
const ATTEMPTS: usize = 3;

/// Whether to decide again: the primitive refused a stale decision and attempts are left.
fn overtaken<T>(result: &RepoResult<T>, attempt: usize) -> bool {
    matches!(result, Err(RepositoryError::Conflict(_))) && attempt + 1 < ATTEMPTS
}

async fn conversation<S: Store + ?Sized>(
    store: &S,
    id: ConversationId,
) -> RepoResult<Conversation> {
    store
        .get_conversation(id)
        .await?
        .ok_or_else(|| RepositoryError::not_found("conversation", id))
}

/// The rule every rewrite checks first: no turn of the conversation runs.
async fn ensure_idle<S: Store + ?Sized>(store: &S, id: ConversationId) -> RepoResult<()> {
    ensure_no_running_turn(store.running_turn(id).await?)
}

fn guard(conversation: &Conversation) -> RewriteGuard {
    RewriteGuard {
        conversation_id: conversation.id,
        boundary: conversation.history_boundary(),
    }
}

/// Edit: replaces a person's current message (after the compression boundary) by
/// `new_content`: the output of its turn and every later turn are discarded, a new
/// turn leased to `owner` starts with the new message, and the old one is kept marked
/// replaced.
///
/// # Errors
/// Unknown message; [`RepositoryError::Conflict`] for a message that is not a current
/// user message or is already summarized; [`RepositoryError::TurnRunning`] while a
/// turn of the conversation runs; storage failures.
pub async fn edit_user_message<S: Store + ?Sized>(
    store: &S,
    message_id: MessageId,
    new_content: &str,
    token_count: i64,
    owner: &LeaseOwner,
) -> RepoResult<(Turn, Message)> {
    let mut attempt = 0;
    loop {
        let message = store
            .get_message(message_id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("message", message_id))?;
        let conversation = conversation(store, message.conversation_id).await?;
        check_edit(&message, conversation.history_boundary())?;
        ensure_idle(store, conversation.id).await?;
        let replaced = store
            .replace_user_message(&MessageReplacement {
                guard: guard(&conversation),
                message_id,
                content: new_content.to_owned(),
                token_count,
                owner: owner.clone(),
            })
            .await;
        if !overtaken(&replaced, attempt) {
            return replaced;
        }
        attempt += 1;
    }
}

/// Regenerate: the output of a turn not yet summarized and every later turn are
/// discarded, an undone turn is brought back, and the turn runs again (leased to
/// `owner`) from its user message. Returns the turn and that message.
///
/// # Errors
/// Unknown turn; [`RepositoryError::TurnRunning`] while a turn of the conversation
/// runs; [`RepositoryError::Conflict`] for a turn without a current user message or
/// already summarized; storage failures.
pub async fn regenerate_turn<S: Store + ?Sized>(
    store: &S,
    turn_id: TurnId,
    owner: &LeaseOwner,
) -> RepoResult<(Turn, Message)> {
    let mut attempt = 0;
    loop {
        let contents = store
            .turn_contents(turn_id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("turn", turn_id))?;
        let conversation = conversation(store, contents.turn.conversation_id).await?;
        ensure_idle(store, conversation.id).await?;
        let message = regeneration_message(&contents, conversation.history_boundary())?;
        let restarted = store
            .restart_turn(&TurnRestart {
                guard: guard(&conversation),
                turn_id,
                keep_message: message.id,
                owner: owner.clone(),
            })
            .await;
        if !overtaken(&restarted, attempt) {
            return restarted;
        }
        attempt += 1;
    }
}

/// Undo: takes the conversation's last turn still in the context out of it; its rows
/// stay stored and searchable, marked undone. `None` when every turn is undone already
/// (or there is none). Regenerating an undone turn brings it back.
///
/// # Errors
/// Unknown conversation; [`RepositoryError::TurnRunning`] while a turn of the
/// conversation runs; [`RepositoryError::Conflict`] when the last turn is already
/// summarized; storage failures.
pub async fn undo_last_turn<S: Store + ?Sized>(
    store: &S,
    conversation_id: ConversationId,
) -> RepoResult<Option<Turn>> {
    let mut attempt = 0;
    loop {
        let conversation = conversation(store, conversation_id).await?;
        ensure_idle(store, conversation_id).await?;
        let turns = store.list_turns(conversation_id).await?;
        let Some(candidate) = undo_candidate(&turns) else {
            return Ok(None);
        };
        let undone = match store.turn_contents(candidate.id).await? {
            Some(contents) => {
                check_undo(&contents, conversation.history_boundary())?;
                store
                    .mark_turn_undone(&TurnUndo {
                        guard: guard(&conversation),
                        turn_id: candidate.id,
                    })
                    .await
            }
            // Discarded since the turns were listed: decide again.
            None => Err(RepositoryError::Conflict(format!(
                "turn {} was discarded while undoing it; nothing was changed, try again",
                candidate.id
            ))),
        };
        if !overtaken(&undone, attempt) {
            return undone.map(Some);
        }
        attempt += 1;
    }
}
