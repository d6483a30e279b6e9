//! The rarer writes as typed jobs: conversations, compression, token counts, the
//! guarded rewrites, users, task lists. Each runs alone on the writer's connection, in
//! the order it was queued; one of several statements runs as one transaction there
//! (a failure leaves nothing of it).

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    CompressionUpdate, Conversation, Message, MessageReplacement, NewMessage, Seq, Turn,
    TurnRestart, TurnUndo,
};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::refusals::Rewrite;
use smallebot_core::repository::RepoResult;
use smallebot_core::tasks::{TaskEdit, TaskStoreError, TaskUpdate};

use super::{Link, Reply, attachments, conversations, rewrite, tasks, undo, users};
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
    /// A new conversation (its fields chosen by the caller).
    CreateConversation(Conversation, Reply<Conversation>),
    /// A conversation's new title.
    RenameConversation(ConversationId, String, Reply<()>),
    /// A conversation's model.
    SetModel(ConversationId, Option<String>, Reply<()>),
    /// A conversation deleted with its rows; whether it existed.
    DeleteConversation(ConversationId, Reply<bool>),
    /// A compression boundary moved forward.
    SetCompression(ConversationId, CompressionUpdate, Reply<Conversation>),
    /// The title of a conversation's first turn, when it still has `untitled`.
    FirstTitle {
        /// The conversation.
        conversation_id: ConversationId,
        /// The new title.
        title: String,
        /// The title it must still have.
        untitled: String,
        /// Whether it was given.
        reply: Reply<bool>,
    },
    /// Token counts from `from_seq` on marked provisional.
    MarkProvisional(ConversationId, Seq, Reply<()>),
    /// Exact token counts of rows, through `through_seq`.
    ExactCounts {
        /// The conversation.
        conversation_id: ConversationId,
        /// `(seq, tokens)` of each recounted row.
        counts: Vec<(Seq, i64)>,
        /// The last row recounted.
        through_seq: Seq,
        /// Done.
        reply: Reply<()>,
    },
    /// A running turn marked interrupted; whether it was running.
    InterruptTurn(TurnId, Reply<bool>),
    /// A user message replaced, the later turns discarded.
    ReplaceUserMessage(MessageReplacement, Reply<(Turn, Message)>),
    /// A turn restarted from its user message.
    RestartTurn(TurnRestart, Reply<(Turn, Message)>),
    /// The last turn marked undone.
    MarkTurnUndone(TurnUndo, Reply<Turn>),
    /// A running turn without an owner (a test fixture).
    FixtureTurn(ConversationId, bool, Reply<Turn>),
    /// A message appended to a turn (a test fixture).
    FixtureMessage(NewMessage, Reply<Message>),
    /// An uploaded attachment, with its content.
    PutAttachment(
        Box<attachments::PutAttachment>,
        Reply<smallebot_core::entities::Attachment>,
    ),
    /// A web user with the SHA-256 hex digest of their token.
    AddUser(String, String, Reply<()>),
    /// A web user removed; whether there was one.
    RemoveUser(String, Reply<bool>),
    /// A task list edited under its advisory lock and version check.
    UpdateTasks(
        ConversationId,
        EditTasks,
        Reply<Result<TaskUpdate, TaskStoreError>>,
    ),
    /// A task list deleted.
    DeleteTasks(ConversationId, Reply<Result<(), TaskStoreError>>),
    /// A relayed message too large for a notification, stored; its id (or the
    /// database's error text).
    Relay(serde_json::Value, Reply<Result<i64, String>>),
}

/// Runs `$body` with the writer's connection bound to `$conn`, answering
/// [`RepositoryError::Unavailable`] when there is none; then gives the connection up
/// when the answer says the server is out of reach, or rolls back at once what a
/// failed body left open.
macro_rules! on_link {
    ($link:expr, $action:expr, |$conn:ident| $body:expr) => {{
        let answer = match $link.get().await {
            Ok($conn) => $body.await,
            Err(err) => Err(storage($action)(err)),
        };
        $link.settle(&answer, lost(&answer)).await;
        answer
    }};
}

/// Writes one edit and answers it.
pub(super) async fn run(link: &mut Link, edit: Edit) {
    match edit {
        Edit::CreateConversation(conversation, reply) => {
            let answer = on_link!(link, conversations::CREATE, |conn| {
                conversations::create(conn, conversation)
            });
            let _ = reply.send(answer);
        }
        Edit::RenameConversation(id, title, reply) => {
            let answer = on_link!(link, conversations::RENAME, |conn| {
                conversations::rename(conn, id, &title)
            });
            let _ = reply.send(answer);
        }
        Edit::SetModel(id, model, reply) => {
            let answer = on_link!(link, conversations::SET_MODEL, |conn| {
                conversations::set_model(conn, id, model.as_deref())
            });
            let _ = reply.send(answer);
        }
        Edit::DeleteConversation(id, reply) => {
            let answer = on_link!(link, conversations::DELETE, |conn| {
                conversations::delete(conn, id)
            });
            let _ = reply.send(answer);
        }
        Edit::SetCompression(id, update, reply) => {
            let answer = on_link!(link, conversations::COMPRESS, |conn| {
                conversations::set_compression(conn, id, &update)
            });
            let _ = reply.send(answer);
        }
        Edit::FirstTitle {
            conversation_id,
            title,
            untitled,
            reply,
        } => {
            let answer = on_link!(link, conversations::TITLE, |conn| {
                conversations::first_title(conn, conversation_id, &title, &untitled)
            });
            let _ = reply.send(answer);
        }
        Edit::MarkProvisional(id, from_seq, reply) => {
            let answer = on_link!(link, conversations::PROVISIONAL, |conn| {
                conversations::mark_provisional(conn, id, from_seq)
            });
            let _ = reply.send(answer);
        }
        Edit::ExactCounts {
            conversation_id,
            counts,
            through_seq,
            reply,
        } => {
            let answer = on_link!(link, conversations::EXACT, |conn| {
                conversations::store_exact(conn, conversation_id, &counts, through_seq)
            });
            let _ = reply.send(answer);
        }
        Edit::InterruptTurn(turn_id, reply) => {
            let answer = on_link!(link, rewrite::INTERRUPT, |conn| {
                rewrite::interrupt(conn, turn_id)
            });
            let _ = reply.send(answer);
        }
        Edit::ReplaceUserMessage(replacement, reply) => {
            let answer = on_link!(link, Rewrite::EditMessage.doing(), |conn| {
                rewrite::replace_user_message(conn, &replacement)
            });
            let _ = reply.send(answer);
        }
        Edit::RestartTurn(restart, reply) => {
            let answer = on_link!(link, Rewrite::Regenerate.doing(), |conn| {
                rewrite::restart(conn, &restart)
            });
            let _ = reply.send(answer);
        }
        Edit::MarkTurnUndone(turn_undo, reply) => {
            let answer = on_link!(link, Rewrite::Undo.doing(), |conn| {
                undo::mark_undone(conn, &turn_undo)
            });
            let _ = reply.send(answer);
        }
        Edit::FixtureTurn(conversation_id, thinking_mode, reply) => {
            let answer = on_link!(link, rewrite::FIXTURE_TURN, |conn| {
                rewrite::fixture_turn(conn, conversation_id, thinking_mode)
            });
            let _ = reply.send(answer);
        }
        Edit::FixtureMessage(message, reply) => {
            let answer = on_link!(link, rewrite::FIXTURE_MESSAGE, |conn| {
                rewrite::fixture_message(conn, &message)
            });
            let _ = reply.send(answer);
        }
        Edit::PutAttachment(put, reply) => {
            let answer = on_link!(link, "storing an attachment", |conn| {
                attachments::put(conn, &put)
            });
            let _ = reply.send(answer);
        }
        Edit::AddUser(name, digest, reply) => {
            let answer = on_link!(link, users::ADD, |conn| users::add(conn, &name, &digest));
            let _ = reply.send(answer);
        }
        Edit::RemoveUser(name, reply) => {
            let answer = on_link!(link, users::REMOVE, |conn| users::remove(conn, &name));
            let _ = reply.send(answer);
        }
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

/// Whether an answer says the server is out of reach.
pub(super) fn lost<T>(answer: &RepoResult<T>) -> bool {
    matches!(answer, Err(RepositoryError::Unavailable { .. }))
}
