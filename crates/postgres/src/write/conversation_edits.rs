//! Edits of a conversation's own row as typed jobs: created, renamed, its model,
//! deleted, its compression boundary, its first title, its token counts.

use smallebot_core::entities::{CompressionUpdate, Conversation, Seq};
use smallebot_core::ids::ConversationId;

use super::conversations;
use super::link::{Link, Reply, lost};
use crate::tx::storage;

/// An edit of one conversation's row, with where its answer goes.
#[derive(Debug)]
pub(crate) enum ConversationEdit {
    /// A new conversation (its fields chosen by the caller).
    Create(Conversation, Reply<Conversation>),
    /// A conversation's new title.
    Rename(ConversationId, String, Reply<()>),
    /// A conversation's model.
    SetModel(ConversationId, Option<String>, Reply<()>),
    /// A conversation deleted with its rows; whether it existed.
    Delete(ConversationId, Reply<bool>),
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
}

impl ConversationEdit {
    /// Writes the edit and answers it.
    pub(super) async fn run(self, link: &mut Link) {
        match self {
            Self::Create(conversation, reply) => {
                answer_on_link!(link, reply, conversations::CREATE, |conn| {
                    conversations::create(conn, conversation)
                })
            }
            Self::Rename(id, title, reply) => {
                answer_on_link!(link, reply, conversations::RENAME, |conn| {
                    conversations::rename(conn, id, &title)
                })
            }
            Self::SetModel(id, model, reply) => {
                answer_on_link!(link, reply, conversations::SET_MODEL, |conn| {
                    conversations::set_model(conn, id, model.as_deref())
                })
            }
            Self::Delete(id, reply) => {
                answer_on_link!(link, reply, conversations::DELETE, |conn| {
                    conversations::delete(conn, id)
                })
            }
            Self::SetCompression(id, update, reply) => {
                answer_on_link!(link, reply, conversations::COMPRESS, |conn| {
                    conversations::set_compression(conn, id, &update)
                })
            }
            Self::FirstTitle {
                conversation_id,
                title,
                untitled,
                reply,
            } => answer_on_link!(link, reply, conversations::TITLE, |conn| {
                conversations::first_title(conn, conversation_id, &title, &untitled)
            }),
            Self::MarkProvisional(id, from_seq, reply) => {
                answer_on_link!(link, reply, conversations::PROVISIONAL, |conn| {
                    conversations::mark_provisional(conn, id, from_seq)
                })
            }
            Self::ExactCounts {
                conversation_id,
                counts,
                through_seq,
                reply,
            } => answer_on_link!(link, reply, conversations::EXACT, |conn| {
                conversations::store_exact(conn, conversation_id, &counts, through_seq)
            }),
        }
    }
}
