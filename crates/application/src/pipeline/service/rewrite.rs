//! Rewriting the end of a conversation: edit a user message, regenerate an answer (each
//! run to its end, or started with a [`TurnHandle`]), undo the last turn.

use std::sync::Arc;

use smallebot_core::entities::{HistoryRow, Role, Turn};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};

use super::super::attachments::{attachments_tokens, load_contents};
use super::super::lease;
use super::super::settings::SendOptions;
use super::super::turn::TurnOutcome;
use super::ConversationService;
use super::start::{Stored, TurnHandle};
use crate::error::PipelineError;
use crate::ports::AttachmentContents;
use crate::rewrite;

impl ConversationService {
    /// Edits a user message: its turn's output and every later turn are discarded, the
    /// old message is kept marked replaced, and a new turn runs with the new text.
    ///
    /// # Errors
    /// Busy, unknown or summarized message, storage failures.
    pub async fn edit_message(
        &self,
        conversation_id: ConversationId,
        message_id: MessageId,
        new_text: &str,
        options: SendOptions,
    ) -> Result<TurnOutcome, PipelineError> {
        let stored = self
            .store_edit(conversation_id, message_id, new_text, options)
            .await?;
        self.run_stored(stored).await
    }

    /// [`Self::edit_message`] as [`Self::start`] does a send: returns once the new turn
    /// and its message are stored, with the turn's handle; the turn runs on in a task
    /// of its own.
    ///
    /// # Errors
    /// Before anything is stored: busy, empty text, unknown or summarized message,
    /// shutting down, storage failures.
    pub async fn start_edit(
        self: &Arc<Self>,
        conversation_id: ConversationId,
        message_id: MessageId,
        new_text: &str,
        options: SendOptions,
    ) -> Result<TurnHandle, PipelineError> {
        let text = new_text.to_owned();
        self.start_with(conversation_id, false, move |service| async move {
            service
                .store_edit(conversation_id, message_id, &text, options)
                .await
        })
        .await
    }

    /// Stores an edit: the new message and its turn replace the old message's.
    async fn store_edit(
        &self,
        conversation_id: ConversationId,
        message_id: MessageId,
        new_text: &str,
        options: SendOptions,
    ) -> Result<Stored, PipelineError> {
        if new_text.trim().is_empty() {
            return Err(PipelineError::EmptyMessage);
        }
        let guard = self.active.begin(conversation_id, options.cancel)?;
        let context = &self.context;
        let conversation = context.conversation(conversation_id).await?;
        let rows = context
            .store
            .rows_after(conversation_id, conversation.history_boundary())
            .await?;
        let Some(edited) = rows.iter().find_map(|r| match r {
            HistoryRow::Message(m) if m.id == message_id => Some(m),
            _ => None,
        }) else {
            return Err(PipelineError::MessageNotEditable {
                conversation_id,
                message_id,
            });
        };
        // The edited text carries the old message's attachments: they count with it.
        let mut contents = AttachmentContents::new();
        let carried = edited.attachments.iter();
        load_contents(context.store.as_ref(), carried, &mut contents, true).await?;
        let counts_exact = context.assembler.exact_counts_ready();
        let tokens = context.assembler.message_tokens(Role::User, new_text)
            + attachments_tokens(context.assembler.as_ref(), &edited.attachments, &contents);
        let owner = &self.lease.owner;
        let (turn, _) = lease::claim(context.store.as_ref(), &self.lease, || {
            rewrite::edit_user_message(context.store.as_ref(), message_id, new_text, tokens, owner)
        })
        .await?;
        Ok(Stored::rewritten(turn, guard, counts_exact))
    }

    /// Regenerates a turn's answer: its output and every later turn are discarded and
    /// the model answers its user message again.
    ///
    /// # Errors
    /// Busy, unknown or summarized turn, storage failures.
    pub async fn regenerate(
        &self,
        conversation_id: ConversationId,
        turn_id: TurnId,
        options: SendOptions,
    ) -> Result<TurnOutcome, PipelineError> {
        let stored = self
            .store_regeneration(conversation_id, turn_id, options)
            .await?;
        self.run_stored(stored).await
    }

    /// [`Self::regenerate`] as [`Self::start`] does a send: returns once the turn is
    /// reset and running again (the handle's `turn_id` is `turn_id`); the turn runs on
    /// in a task of its own.
    ///
    /// # Errors
    /// Before anything is changed: busy, unknown or summarized turn, shutting down,
    /// storage failures.
    pub async fn start_regenerate(
        self: &Arc<Self>,
        conversation_id: ConversationId,
        turn_id: TurnId,
        options: SendOptions,
    ) -> Result<TurnHandle, PipelineError> {
        self.start_with(conversation_id, false, move |service| async move {
            service
                .store_regeneration(conversation_id, turn_id, options)
                .await
        })
        .await
    }

    /// Resets a turn for its regeneration (its output and every later turn discarded).
    async fn store_regeneration(
        &self,
        conversation_id: ConversationId,
        turn_id: TurnId,
        options: SendOptions,
    ) -> Result<Stored, PipelineError> {
        let guard = self.active.begin(conversation_id, options.cancel)?;
        let store = &self.context.store;
        let existing = store
            .get_turn(turn_id)
            .await?
            .filter(|t| t.conversation_id == conversation_id)
            .ok_or(PipelineError::TurnNotFound {
                conversation_id,
                turn_id,
            })?;
        let owner = &self.lease.owner;
        let counts_exact = self.context.assembler.exact_counts_ready();
        let (turn, _) = lease::claim(store.as_ref(), &self.lease, || {
            rewrite::regenerate_turn(store.as_ref(), existing.id, owner)
        })
        .await?;
        Ok(Stored::rewritten(turn, guard, counts_exact))
    }

    /// Undoes the last turn still in the context (`/undo`): it stays stored, searchable
    /// and shown, marked undone, but no longer goes to the model or counts toward the
    /// context window. Returns the undone turn; `None` when no turn after the last
    /// summary is left to undo. Regenerating an undone turn brings it back.
    ///
    /// # Errors
    /// Busy, unknown conversation, a turn already summarized, storage failures.
    pub async fn undo_last_turn(
        &self,
        conversation_id: ConversationId,
    ) -> Result<Option<Turn>, PipelineError> {
        let _guard = self.active.begin(conversation_id, None)?;
        lease::ensure_idle(self.context.store.as_ref(), &self.lease, conversation_id).await?;
        self.context.conversation(conversation_id).await?;
        Ok(rewrite::undo_last_turn(self.context.store.as_ref(), conversation_id).await?)
    }
}
