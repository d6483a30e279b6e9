//! The rarer writes as typed jobs: conversations, compression, token counts, the
//! guarded rewrites, users, task lists. Each runs alone on the writer's connection, in
//! the order it was queued; one of several statements runs as one transaction there
//! (a failure leaves nothing of it).

use smallebot_core::entities::{Message, MessageReplacement, Turn, TurnRestart, TurnUndo};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::refusals::Rewrite;
use smallebot_core::tasks::{TaskEdit, TaskStoreError, TaskUpdate};

use super::conversation_edits::ConversationEdit;
use super::link::{Link, Reply, lost};
use super::{attachments, file_changes, hook_runs, rewrite, tasks, undo, usage, users};
use crate::tx::storage;

/// A task list's edit, sent to the writer (a closure has no `Debug` of its own).
pub(crate) struct EditTasks(pub TaskEdit);

impl std::fmt::Debug for EditTasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EditTasks(..)")
    }
}

/// One of the rarer writes, with its typed fields and where its answer goes (the
/// answer of the repository method it implements).
#[derive(Debug)]
pub(crate) enum Edit {
    /// A conversation's own row: created, renamed, deleted, its compression or counts.
    Conversation(ConversationEdit),
    /// A running turn marked interrupted; whether it was running.
    InterruptTurn(TurnId, Reply<bool>),
    /// A user message replaced, the later turns discarded.
    ReplaceUserMessage(MessageReplacement, Reply<(Turn, Message)>),
    /// A turn restarted from its user message.
    RestartTurn(TurnRestart, Reply<(Turn, Message)>),
    /// The last turn marked undone.
    MarkTurnUndone(TurnUndo, Reply<Turn>),
    /// A running turn without an owner (a test fixture).
    #[cfg(any(test, feature = "test-support"))]
    FixtureTurn(ConversationId, bool, Reply<Turn>),
    /// A message appended to a turn (a test fixture).
    #[cfg(any(test, feature = "test-support"))]
    FixtureMessage(smallebot_core::entities::NewMessage, Reply<Message>),
    /// Uploads into one conversation, with their content, under the quotas.
    PutAttachments(
        Box<attachments::PutAttachments>,
        Reply<Vec<smallebot_core::entities::Attachment>>,
    ),
    /// The uploads never sent from before a moment deleted; how many.
    DeleteUnsent(smallebot_core::time::Timestamp, Reply<u64>),
    /// File changes of a turn of a conversation (checkpoints).
    RecordFileChanges(
        ConversationId,
        TurnId,
        Vec<smallebot_core::entities::TurnFileChange>,
        Reply<()>,
    ),
    /// A checkpoint content kept under its digest.
    KeepContent(String, Vec<u8>, Reply<()>),
    /// Checkpoint contents pruned, the changes that needed them marked with a reason.
    PruneContents(Vec<String>, String, Reply<()>),
    /// A web user with the SHA-256 hex digest of their token.
    AddUser(String, String, bool, Reply<()>),
    /// A web user removed; whether there was one.
    RemoveUser(String, Reply<bool>),
    /// A web user's own monthly budget set or cleared; whether there was such a user.
    SetUserBudget(String, Option<i64>, Reply<bool>),
    /// A web user's own permission rules replaced; whether there was such a user.
    SetUserRules(String, smallebot_core::entities::UserRules, Reply<bool>),
    /// A permission grant stored or revoked.
    Grant(super::grants::GrantEdit),
    /// A sign-in to an MCP server stored or removed.
    McpCredential(super::mcp_credentials::McpCredentialEdit),
    /// A task list edited under its advisory lock and version check.
    UpdateTasks(
        ConversationId,
        EditTasks,
        Reply<Result<TaskUpdate, TaskStoreError>>,
    ),
    /// A task list deleted.
    DeleteTasks(ConversationId, Reply<Result<(), TaskStoreError>>),
    /// One model request's usage recorded.
    RecordUsage(Box<smallebot_core::entities::UsageRecord>, Reply<()>),
    /// One hook run recorded.
    RecordHookRun(Box<smallebot_core::entities::HookRun>, Reply<()>),
    /// A relayed message too large for a notification, stored; its id (or the
    /// database's error text).
    Relay(serde_json::Value, Reply<Result<i64, String>>),
}

/// Writes one edit and answers it.
pub(super) async fn run(link: &mut Link, edit: Edit) {
    match edit {
        Edit::Conversation(edit) => edit.run(link).await,
        Edit::InterruptTurn(turn_id, reply) => {
            answer_on_link!(link, reply, rewrite::INTERRUPT, |conn| {
                rewrite::interrupt(conn, turn_id)
            })
        }
        Edit::ReplaceUserMessage(replacement, reply) => {
            answer_on_link!(link, reply, Rewrite::EditMessage.doing(), |conn| {
                rewrite::replace_user_message(conn, &replacement)
            })
        }
        Edit::RestartTurn(restart, reply) => {
            answer_on_link!(link, reply, Rewrite::Regenerate.doing(), |conn| {
                rewrite::restart(conn, &restart)
            })
        }
        Edit::MarkTurnUndone(turn_undo, reply) => {
            answer_on_link!(link, reply, Rewrite::Undo.doing(), |conn| {
                undo::mark_undone(conn, &turn_undo)
            })
        }
        #[cfg(any(test, feature = "test-support"))]
        Edit::FixtureTurn(conversation_id, thinking_mode, reply) => {
            answer_on_link!(link, reply, rewrite::FIXTURE_TURN, |conn| {
                rewrite::fixture_turn(conn, conversation_id, thinking_mode)
            })
        }
        #[cfg(any(test, feature = "test-support"))]
        Edit::FixtureMessage(message, reply) => {
            answer_on_link!(link, reply, rewrite::FIXTURE_MESSAGE, |conn| {
                rewrite::fixture_message(conn, &message)
            })
        }
        Edit::PutAttachments(put, reply) => {
            answer_on_link!(link, reply, "storing attachments", |conn| {
                attachments::put_all(conn, &put)
            })
        }
        Edit::DeleteUnsent(before, reply) => {
            answer_on_link!(link, reply, "deleting expired uploads", |conn| {
                attachments::delete_unsent_before(conn, before)
            })
        }
        Edit::RecordFileChanges(conversation_id, turn_id, changes, reply) => {
            answer_on_link!(link, reply, file_changes::RECORD, |conn| {
                file_changes::record(conn, conversation_id, turn_id, &changes)
            })
        }
        Edit::KeepContent(sha256, content, reply) => {
            answer_on_link!(link, reply, file_changes::KEEP, |conn| {
                file_changes::keep(conn, &sha256, &content)
            })
        }
        Edit::PruneContents(sha256s, reason, reply) => {
            answer_on_link!(link, reply, file_changes::PRUNE, |conn| {
                file_changes::prune(conn, &sha256s, &reason)
            })
        }
        Edit::AddUser(name, digest, admin, reply) => {
            answer_on_link!(link, reply, users::ADD, |conn| users::add(
                conn, &name, &digest, admin
            ))
        }
        Edit::SetUserBudget(name, budget, reply) => {
            answer_on_link!(link, reply, users::SET_BUDGET, |conn| {
                users::set_budget(conn, &name, budget)
            })
        }
        Edit::SetUserRules(name, rules, reply) => {
            answer_on_link!(link, reply, users::SET_RULES, |conn| {
                users::set_rules(conn, &name, &rules)
            })
        }
        Edit::RemoveUser(name, reply) => {
            answer_on_link!(link, reply, users::REMOVE, |conn| users::remove(
                conn, &name
            ))
        }
        Edit::RecordUsage(record, reply) => {
            // Queued without a waiting caller: a failure is said here.
            answer_on_link!(link, reply, usage::RECORD, |conn| async move {
                usage::insert(conn, &record).await.inspect_err(|err| {
                    tracing::warn!(%err, "a model request's usage record was not stored");
                })
            })
        }
        Edit::RecordHookRun(run, reply) => hook_runs::record(link, &run, reply).await,
        Edit::Grant(edit) => edit.run(link).await,
        Edit::McpCredential(edit) => edit.run(link).await,
        Edit::UpdateTasks(conversation_id, edit, reply) => {
            let _ = reply.send(Ok(tasks::update(link, conversation_id, edit.0).await));
        }
        Edit::DeleteTasks(conversation_id, reply) => {
            let _ = reply.send(Ok(tasks::delete(link, conversation_id).await));
        }
        Edit::Relay(body, reply) => {
            let _ = reply.send(Ok(users::relay(link, &body).await));
        }
    }
}
