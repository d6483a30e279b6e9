//! Naming a new conversation: the model's title replaces the fallback made from the
//! first message.

use smallebot_core::entities::{HistoryRow, Role, UsageAccount};
use smallebot_core::ids::ConversationId;

use super::ConversationService;
use crate::error::PipelineError;
use crate::events::EventKind;
use crate::pipeline::title::{fallback_title, model_title};
use crate::ports::RequestBilling;

impl ConversationService {
    /// [`Self::generate_title`] for a new conversation whose first turn runs: on a
    /// server that answers one request at a time
    /// ([`ChatModel::serves_one_at_a_time`](crate::ports::ChatModel::serves_one_at_a_time)),
    /// only once `turn_done` says the turn's requests are done (or was dropped), so
    /// that the title never makes the turn wait, nor the turn the title.
    pub(super) async fn generate_title_beside(
        &self,
        conversation_id: ConversationId,
        turn_done: tokio::sync::oneshot::Receiver<()>,
    ) -> Result<Option<String>, PipelineError> {
        let conversation = self.context.conversation(conversation_id).await?;
        if self
            .context
            .model
            .serves_one_at_a_time(conversation.model.as_deref())
        {
            // Sent or dropped: the turn is over either way.
            let _ = turn_done.await;
        }
        self.generate_title(conversation_id).await
    }

    /// Asks the model for a title when the conversation still has the fallback title
    /// made from its first message. Call it once for a new conversation: after the
    /// first turn (when
    /// [`TurnOutcome::first_turn`](crate::pipeline::TurnOutcome::first_turn) is set),
    /// or beside it once its message is stored ([`Self::start`] does so when
    /// [`SendOptions::title`](crate::SendOptions::title) says so); hosts run it in the
    /// background. Returns the new title; `None` when nothing changed
    /// (already titled, no messages, or the model failed — the fallback stays).
    ///
    /// # Errors
    /// Unknown conversation, storage failures.
    pub async fn generate_title(
        &self,
        conversation_id: ConversationId,
    ) -> Result<Option<String>, PipelineError> {
        let context = &self.context;
        let conversation = context.conversation(conversation_id).await?;
        let rows = context.store.rows_after(conversation_id, 0).await?;
        let Some((first, turn_id)) = rows.iter().find_map(|r| match r {
            HistoryRow::Message(m) if m.role == Role::User => Some((m.content.clone(), m.turn_id)),
            _ => None,
        }) else {
            return Ok(None);
        };
        if conversation.title != fallback_title(&first) {
            return Ok(None);
        }
        let billing = RequestBilling {
            account: UsageAccount {
                user_name: conversation.user_name.clone(),
                conversation_id,
                turn_id: Some(turn_id),
                sub_conversation_id: None,
                step: 0,
            },
            prompt_tokens: u64::try_from(context.assembler.message_tokens(Role::User, &first))
                .unwrap_or(0),
        };
        let Some(title) = model_title(
            context.model.as_ref(),
            conversation.model.as_deref(),
            &first,
            billing,
        )
        .await
        else {
            return Ok(None);
        };
        context
            .store
            .rename_conversation(conversation_id, &title)
            .await?;
        context.emit(
            conversation_id,
            None,
            EventKind::TitleChanged {
                title: title.clone(),
            },
        );
        Ok(Some(title))
    }
}
