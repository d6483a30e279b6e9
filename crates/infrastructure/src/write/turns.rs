//! The writes of turns: start, finish, leases, and the guarded primitives edit,
//! regenerate and undo apply (the rules are decided in `smallebot-application`).

use rusqlite::Connection;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    LeaseOwner, Message, MessageReplacement, NewMessage, RewriteGuard, Role, Turn, TurnRestart,
    TurnUndo,
};
use smallebot_core::ids::{AttachmentId, ConversationId, TurnId};
use smallebot_core::refusals::Rewrite;
use smallebot_core::repository::RepoResult;
use smallebot_core::time::{Timestamp, format_timestamp};
use smallebot_core::turn_columns;

use super::append::insert_message;
use super::attachments;
use super::discard::discard_after;
use crate::queries::{self, execute, first, int0};
use crate::rows;
use crate::time::{Now, now};

/// A turn start with its user message (see `TurnRepository::start_turn_in_context`).
#[derive(Debug)]
pub(crate) struct TurnStart {
    /// The conversation.
    pub(crate) conversation_id: ConversationId,
    /// The turn's thinking mode.
    pub(crate) thinking_mode: bool,
    /// The user message.
    pub(crate) content: String,
    /// The uploads it carries (linked in the same transaction).
    pub(crate) attachments: Vec<AttachmentId>,
    /// Its token count.
    pub(crate) token_count: i64,
    /// Who runs the turn.
    pub(crate) owner: LeaseOwner,
    /// The title a first turn gives a conversation still titled `.1`: `(title, untitled)`.
    pub(crate) title: Option<(String, String)>,
}

/// Refuses with [`RepositoryError::TurnRunning`] while the conversation has a running
/// turn (inside the write transaction, so the check and the insert that follows are
/// one step for every process sharing the database).
fn ensure_no_running_turn(conn: &Connection, conversation_id: ConversationId) -> RepoResult<()> {
    let running = first(
        conn,
        "checking for a running turn",
        concat!(
            "SELECT ",
            turn_columns!(),
            " FROM turns WHERE conversation_id = ?1 AND status = 'running' ORDER BY seq LIMIT 1"
        ),
        [conversation_id.to_string()],
        rows::turn,
    )?;
    match running {
        Some(running) => Err(RepositoryError::TurnRunning(Box::new(running))),
        None => Ok(()),
    }
}

/// Inserts a running turn with the conversation's next `seq`, leased to `owner` when
/// given.
pub(super) fn insert_turn(
    conn: &Connection,
    conversation_id: ConversationId,
    thinking_mode: bool,
    owner: Option<&LeaseOwner>,
    (at, at_text): &Now,
) -> RepoResult<Turn> {
    let id = TurnId::new();
    let seq = first(
        conn,
        "starting a turn",
        "INSERT INTO turns (id, conversation_id, seq, thinking_mode, status, created_at, \
         owner_pid, owner_host, owner_started_at, heartbeat_at) \
         SELECT ?1, id, last_seq + 1, ?3, 'running', ?4, ?5, ?6, ?7, ?8 FROM conversations \
         WHERE id = ?2 RETURNING seq",
        (
            id.to_string(),
            conversation_id.to_string(),
            i64::from(thinking_mode),
            at_text,
            owner.map(|o| i64::from(o.pid)),
            owner.map(|o| o.host.as_str()),
            owner.map(|o| format_timestamp(&o.started_at)),
            owner.map(|_| at_text.as_str()),
        ),
        int0,
    )?
    .ok_or_else(|| RepositoryError::not_found("conversation", conversation_id))?;
    Ok(Turn::started(
        id,
        conversation_id,
        seq,
        thinking_mode,
        *at,
        owner,
    ))
}

/// Starts a leased turn with its user message, or refuses with
/// [`RepositoryError::TurnRunning`]. A first turn of a conversation still titled
/// `untitled` also gives it its title; the flag says whether it did.
pub(super) fn start_with_message(
    conn: &Connection,
    start: &TurnStart,
) -> RepoResult<(Turn, Message, bool)> {
    ensure_no_running_turn(conn, start.conversation_id)?;
    let at = now();
    let (turn, mut message) = insert_turn_with_message(
        conn,
        (start.conversation_id, start.thinking_mode, &start.owner),
        &start.content,
        start.token_count,
        false,
        &at,
    )?;
    message.attachments =
        attachments::link(conn, start.conversation_id, message.id, &start.attachments)?;
    let titled = match &start.title {
        Some((title, untitled)) if turn.is_first() => {
            execute(
                conn,
                "titling a conversation",
                "UPDATE conversations SET title = ?2, updated_at = ?3 \
                 WHERE id = ?1 AND title = ?4",
                (start.conversation_id.to_string(), title, &at.1, untitled),
            )? > 0
        }
        _ => false,
    };
    Ok((turn, message, titled))
}

/// Renews a running turn's heartbeat; false when it no longer runs.
pub(super) fn heartbeat(conn: &Connection, turn_id: TurnId, at: Timestamp) -> RepoResult<bool> {
    let changed = execute(
        conn,
        "renewing a turn's lease",
        "UPDATE turns SET heartbeat_at = ?1 WHERE id = ?2 AND status = 'running'",
        (format_timestamp(&at), turn_id.to_string()),
    )?;
    Ok(changed == 1)
}

/// Marks a turn that still runs `interrupted`, ending its lease.
pub(super) fn interrupt(conn: &Connection, turn_id: TurnId) -> RepoResult<bool> {
    let (_, at) = now();
    let changed = execute(
        conn,
        "marking a turn interrupted",
        "UPDATE turns SET status = 'interrupted', completed_at = ?1, \
         error = 'the process stopped while this turn was running', owner_pid = NULL, \
         owner_host = NULL, owner_started_at = NULL, heartbeat_at = NULL \
         WHERE id = ?2 AND status = 'running'",
        (at, turn_id.to_string()),
    )?;
    Ok(changed == 1)
}

/// Refuses a rewrite decided on a state that no longer holds: the conversation's
/// boundary moved, or a turn of it runs (inside the write transaction, so the check
/// and the change are one step for every process).
fn check_guard(conn: &Connection, guard: &RewriteGuard, action: Rewrite) -> RepoResult<()> {
    let conversation = queries::conversation(conn, guard.conversation_id)?
        .ok_or_else(|| RepositoryError::not_found("conversation", guard.conversation_id))?;
    if conversation.history_boundary() != guard.boundary {
        return Err(changed(action));
    }
    ensure_no_running_turn(conn, guard.conversation_id)
}

/// The refusal of a rewrite whose guard no longer holds.
fn changed(action: Rewrite) -> RepositoryError {
    RepositoryError::conversation_changed(action)
}

/// Replaces a user message by a new version (see `TurnRepository::replace_user_message`).
pub(super) fn replace_user_message(
    conn: &Connection,
    replacement: &MessageReplacement,
) -> RepoResult<((Turn, Message), Vec<String>)> {
    const ACTION: Rewrite = Rewrite::EditMessage;
    let old = queries::message(conn, replacement.message_id)?
        .ok_or_else(|| RepositoryError::not_found("message", replacement.message_id))?;
    if old.conversation_id != replacement.guard.conversation_id || old.replaced_by.is_some() {
        return Err(changed(ACTION));
    }
    check_guard(conn, &replacement.guard, ACTION)?;
    let old_turn = queries::turn(conn, old.turn_id)?
        .ok_or_else(|| RepositoryError::not_found("turn", old.turn_id))?;
    let discarded = discard_after(conn, &old_turn, old.id)?;
    let at = now();
    let (turn, mut message) = insert_turn_with_message(
        conn,
        (
            old.conversation_id,
            old_turn.thinking_mode,
            &replacement.owner,
        ),
        &replacement.content,
        replacement.token_count,
        true,
        &at,
    )?;
    execute(
        conn,
        "marking a message replaced",
        "UPDATE messages SET replaced_by = ?1 WHERE id = ?2",
        (message.id.to_string(), old.id.to_string()),
    )?;
    message.attachments = attachments::move_to(conn, old.id, message.id)?;
    Ok(((turn, message), discarded))
}

/// A new running turn leased to its owner, with its user message (`is_edited` for an
/// edit's new version): the two inserts of a start and of an edit.
fn insert_turn_with_message(
    conn: &Connection,
    (conversation_id, thinking_mode, owner): (ConversationId, bool, &LeaseOwner),
    content: &str,
    token_count: i64,
    is_edited: bool,
    at: &Now,
) -> RepoResult<(Turn, Message)> {
    let turn = insert_turn(conn, conversation_id, thinking_mode, Some(owner), at)?;
    let message = insert_message(
        conn,
        &NewMessage {
            conversation_id,
            turn_id: turn.id,
            role: Role::User,
            content: content.to_owned(),
            token_count,
        },
        is_edited,
        at,
    )?;
    Ok((turn, message))
}

/// Marks a turn and its rows undone, or (`undone` false) brings them back; triggers
/// keep `context_tokens` right.
fn set_undone(conn: &Connection, turn_id: TurnId, undone_at: Option<&str>) -> RepoResult<()> {
    let id = turn_id.to_string();
    let flag = i64::from(undone_at.is_some());
    execute(
        conn,
        "marking a turn undone",
        "UPDATE turns SET undone_at = ?2 WHERE id = ?1",
        (&id, undone_at),
    )?;
    for sql in [
        "UPDATE messages SET undone = ?2 WHERE turn_id = ?1",
        "UPDATE tool_calls SET undone = ?2 WHERE turn_id = ?1",
        "UPDATE think_blocks SET undone = ?2 WHERE turn_id = ?1",
    ] {
        execute(conn, "marking a turn's rows undone", sql, (&id, flag))?;
    }
    Ok(())
}

/// Starts a turn again from its user message (see `TurnRepository::restart_turn`).
pub(super) fn restart(
    conn: &Connection,
    restart: &TurnRestart,
) -> RepoResult<((Turn, Message), Vec<String>)> {
    const ACTION: Rewrite = Rewrite::Regenerate;
    let turn_id = restart.turn_id;
    let turn =
        queries::turn(conn, turn_id)?.ok_or_else(|| RepositoryError::not_found("turn", turn_id))?;
    if turn.conversation_id != restart.guard.conversation_id {
        return Err(changed(ACTION));
    }
    check_guard(conn, &restart.guard, ACTION)?;
    let user_message = queries::message(conn, restart.keep_message)?
        .filter(|m| m.turn_id == turn_id && m.replaced_by.is_none())
        .ok_or_else(|| changed(ACTION))?;
    let discarded = discard_after(conn, &turn, user_message.id)?;
    if turn.undone_at.is_some() {
        set_undone(conn, turn_id, None)?;
    }
    let owner = &restart.owner;
    let (_, at) = now();
    execute(
        conn,
        "restarting a turn",
        "UPDATE turns SET status = 'running', error = NULL, cut = NULL, completed_at = NULL, \
         owner_pid = ?2, owner_host = ?3, owner_started_at = ?4, heartbeat_at = ?5 \
         WHERE id = ?1",
        (
            turn_id.to_string(),
            i64::from(owner.pid),
            &owner.host,
            format_timestamp(&owner.started_at),
            at,
        ),
    )?;
    let turn =
        queries::turn(conn, turn_id)?.ok_or_else(|| RepositoryError::not_found("turn", turn_id))?;
    Ok(((turn, user_message), discarded))
}

/// Marks a turn undone (see `TurnRepository::mark_turn_undone`).
pub(super) fn mark_undone(conn: &Connection, undo: &TurnUndo) -> RepoResult<Turn> {
    const ACTION: Rewrite = Rewrite::Undo;
    check_guard(conn, &undo.guard, ACTION)?;
    let turn = queries::turn(conn, undo.turn_id)?
        .ok_or_else(|| RepositoryError::not_found("turn", undo.turn_id))?;
    let later = first(
        conn,
        "finding the last turn",
        "SELECT COUNT(*) FROM turns WHERE conversation_id = ?1 AND seq > ?2 \
         AND undone_at IS NULL",
        (turn.conversation_id.to_string(), turn.seq),
        int0,
    )?
    .unwrap_or(0);
    if turn.conversation_id != undo.guard.conversation_id || turn.undone_at.is_some() || later > 0 {
        return Err(changed(ACTION));
    }
    let (_, at) = now();
    set_undone(conn, turn.id, Some(&at))?;
    queries::turn(conn, turn.id)?.ok_or_else(|| RepositoryError::not_found("turn", turn.id))
}
