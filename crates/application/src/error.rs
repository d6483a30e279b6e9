//! The application's error type.

use smallebot_core::RepositoryError;
use smallebot_core::ids::{AttachmentId, ConversationId, MessageId, TurnId};
use smallebot_core::rules::attachment::AttachmentRefusal;
use smallebot_core::rules::upload_quota::QuotaRefusal;

/// Why a pipeline operation could not run. Model failures during a turn are not
/// errors of `send`: the turn is stored as failed and reported as a [`crate::TurnOutcome`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// A turn (or a compression) is already running in this conversation.
    #[error(
        "conversation {0} is busy: a turn is still running. Wait for it to finish or cancel it first."
    )]
    Busy(ConversationId),
    /// A turn of the conversation is running in this or another process (its lease is
    /// alive).
    #[error(
        "conversation {conversation_id} is busy: turn {turn_id} is running{}. Wait for it to \
         finish or cancel it where it runs.",
        .owner.as_ref().map(|o| format!(" in {o}")).unwrap_or_default()
    )]
    TurnRunning {
        /// The conversation.
        conversation_id: ConversationId,
        /// The running turn.
        turn_id: TurnId,
        /// Who runs it (`process <pid> on <host>`), when known.
        owner: Option<String>,
    },
    /// The process is stopping: no new turn (or other work) is taken.
    #[error("SmallEBot is shutting down and takes no new turns; try again once it runs again")]
    ShuttingDown,
    /// The conversation does not exist.
    #[error("conversation {0} not found")]
    ConversationNotFound(ConversationId),
    /// The message is not a user message after the compression boundary of the
    /// conversation (unknown, of another conversation, or already summarized).
    #[error("message {message_id} is not an editable message of conversation {conversation_id}")]
    MessageNotEditable {
        /// The conversation.
        conversation_id: ConversationId,
        /// The message asked for.
        message_id: MessageId,
    },
    /// The turn does not exist in the conversation.
    #[error("turn {turn_id} not found in conversation {conversation_id}")]
    TurnNotFound {
        /// The conversation.
        conversation_id: ConversationId,
        /// The turn asked for.
        turn_id: TurnId,
    },
    /// The model asked for is not one of the configured models.
    #[error(
        "no model has the id `{id}`: choose one of {} (the ids of models.json)",
        if .known.is_empty() { "none; only the default model is configured" } else { .known.as_str() }
    )]
    UnknownModel {
        /// The id asked for.
        id: String,
        /// The configured ids, comma-separated.
        known: String,
    },
    /// A file or a message's files are over agent.json's attachment limits, or a file
    /// that starts as an image is none or states an absurd size; nothing was stored.
    #[error(transparent)]
    AttachmentRefused(#[from] AttachmentRefusal),
    /// Uploads or a message's files are over agent.json's quotas (unsent bytes per
    /// user or conversation, parts per upload, files per message); nothing was stored.
    #[error("{0}; nothing was stored")]
    QuotaRefused(#[from] QuotaRefusal),
    /// An attachment to send is unknown, of another conversation, or already sent
    /// with a message.
    #[error(
        "attachment {attachment_id} is not waiting to be sent in conversation \
         {conversation_id} (unknown, of another conversation, or already sent): attach \
         the file again"
    )]
    AttachmentNotSendable {
        /// The conversation.
        conversation_id: ConversationId,
        /// The attachment asked for.
        attachment_id: AttachmentId,
    },
    /// The message carries an image and the conversation's model does not see images;
    /// nothing was stored.
    #[error(
        "model '{model}' cannot see images (supportsImages is false in models.json; \
         OPENAI_SUPPORTS_IMAGES=1 for the environment's model); choose a model that can \
         with /model or the model picker, or send the image as a file"
    )]
    ImagesNotSupported {
        /// The model's name.
        model: String,
    },
    /// The message to send (or the edited text) is empty.
    #[error("the message is empty: type something to send")]
    EmptyMessage,
    /// A `UserPromptSubmit` hook blocked the message: nothing was stored or sent.
    #[error("a UserPromptSubmit hook blocked this message (nothing was sent): {reason}")]
    PromptBlocked {
        /// The hook's reason.
        reason: String,
    },
    /// The registry of running turns is unusable (a thread panicked while holding it).
    #[error("the registry of running turns is broken (a thread panicked); restart the program")]
    Poisoned,
    /// Storage failed.
    #[error(transparent)]
    Repository(#[from] RepositoryError),
}
