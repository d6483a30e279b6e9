//! `ConversationService`: the public face of the pipeline.

use std::sync::Arc;

use smallebot_core::entities::{Conversation, HistoryRow, Role};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::Store;

use super::active::ActiveTurns;
use super::settings::{PipelineSettings, SendOptions};
use super::title::{fallback_title, model_title};
use super::turn::{TurnOutcome, TurnRun};
use crate::error::PipelineError;
use crate::events::{CompressionTrigger, EventBus, EventSubscription, TurnEvent};
use crate::ports::{
    ChatModel, ContextAssembler, ContextEstimate, Summarizer, TaskPlan, ToolExecutor,
};

/// Title of a conversation before its first message.
pub const NEW_CONVERSATION_TITLE: &str = "New conversation";

/// Everything the service is built from (the host wires these by hand).
pub struct ServiceParts {
    /// Storage.
    pub store: Arc<dyn Store>,
    /// The chat model.
    pub model: Arc<dyn ChatModel>,
    /// Request building and token counting.
    pub assembler: Arc<dyn ContextAssembler>,
    /// Tools offered to the model.
    pub tools: Arc<dyn ToolExecutor>,
    /// The task list, if task tools are wired.
    pub plan: Option<Arc<dyn TaskPlan>>,
    /// Writes compression summaries.
    pub summarizer: Arc<dyn Summarizer>,
    /// Behaviour.
    pub settings: PipelineSettings,
}

/// Runs conversations: sends, edits, regenerations, cancellation, events.
pub struct ConversationService {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) model: Arc<dyn ChatModel>,
    pub(crate) assembler: Arc<dyn ContextAssembler>,
    pub(crate) tools: Arc<dyn ToolExecutor>,
    pub(crate) plan: Option<Arc<dyn TaskPlan>>,
    pub(crate) summarizer: Arc<dyn Summarizer>,
    pub(crate) settings: PipelineSettings,
    pub(crate) events: EventBus,
    pub(crate) active: ActiveTurns,
}

impl ConversationService {
    /// Builds the service.
    #[must_use]
    pub fn new(parts: ServiceParts) -> Self {
        Self {
            store: parts.store,
            model: parts.model,
            assembler: parts.assembler,
            tools: parts.tools,
            plan: parts.plan,
            summarizer: parts.summarizer,
            settings: parts.settings,
            events: EventBus::new(),
            active: ActiveTurns::default(),
        }
    }

    /// Receives every event from now on.
    pub fn subscribe(&self) -> EventSubscription {
        self.events.subscribe()
    }

    /// The settings in use.
    #[must_use]
    pub fn settings(&self) -> &PipelineSettings {
        &self.settings
    }

    /// The store (for reads such as listing and showing conversations).
    #[must_use]
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Marks turns left `running` by a previous process `interrupted` (call at start).
    ///
    /// # Errors
    /// Storage failures.
    pub async fn recover_interrupted_turns(&self) -> Result<u64, PipelineError> {
        Ok(self.store.mark_running_turns_interrupted().await?)
    }

    /// Creates an empty conversation for `user_name`.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn create_conversation(
        &self,
        user_name: &str,
    ) -> Result<Conversation, PipelineError> {
        Ok(self
            .store
            .create_conversation(user_name, NEW_CONVERSATION_TITLE)
            .await?)
    }

    /// Deletes a conversation (refused while a turn runs) and its task list.
    ///
    /// # Errors
    /// Busy, not found, storage failures.
    pub async fn delete_conversation(
        &self,
        conversation_id: ConversationId,
    ) -> Result<(), PipelineError> {
        let _guard = self.active.begin(conversation_id, None)?;
        if !self.store.delete_conversation(conversation_id).await? {
            return Err(PipelineError::NotFound(format!(
                "conversation {conversation_id} not found"
            )));
        }
        if let Some(plan) = &self.plan {
            plan.conversation_deleted(conversation_id).await;
        }
        Ok(())
    }

    /// Cancels the running turn of a conversation; false when none runs.
    pub fn cancel(&self, conversation_id: ConversationId) -> bool {
        self.active.cancel(conversation_id)
    }

    /// Whether a turn runs in the conversation.
    #[must_use]
    pub fn is_busy(&self, conversation_id: ConversationId) -> bool {
        self.active.is_busy(conversation_id)
    }

    pub(crate) async fn conversation(
        &self,
        id: ConversationId,
    ) -> Result<Conversation, PipelineError> {
        self.store
            .get_conversation(id)
            .await?
            .ok_or_else(|| PipelineError::NotFound(format!("conversation {id} not found")))
    }

    pub(crate) fn emit(&self, event: TurnEvent) {
        self.events.emit(event);
    }

    /// Sends a user message and runs the turn to its end. The turn and the message are
    /// stored before the model is called. Model failures end the turn as failed (see
    /// the outcome), not as an error of this call.
    ///
    /// # Errors
    /// Busy, empty message, unknown conversation, storage failures.
    pub async fn send(
        &self,
        conversation_id: ConversationId,
        text: &str,
        options: SendOptions,
    ) -> Result<TurnOutcome, PipelineError> {
        if text.trim().is_empty() {
            return Err(PipelineError::Invalid(
                "the message is empty: type something to send".into(),
            ));
        }
        let guard = self.active.begin(conversation_id, options.cancel)?;
        let conversation = self.conversation(conversation_id).await?;
        let estimate = self.estimate_now(&conversation, Some(text)).await?;
        if estimate.ratio() >= self.settings.compression_threshold {
            self.compress(
                &conversation,
                CompressionTrigger::BeforeTurn,
                None,
                Some(text),
            )
            .await?;
        }
        let (turn, _) = self
            .store
            .start_turn_with_message(
                conversation_id,
                options.thinking,
                text,
                self.assembler.message_tokens(Role::User, text),
            )
            .await?;
        // A conversation's sequence starts at 1: its first turn has seq 1.
        let first_turn = turn.seq == 1;
        if first_turn && conversation.title == NEW_CONVERSATION_TITLE {
            let title = fallback_title(text);
            self.store
                .rename_conversation(conversation_id, &title)
                .await?;
            self.emit(TurnEvent::TitleChanged {
                conversation_id,
                title,
            });
        }
        TurnRun::new(self, turn, guard.cancel_token().clone())
            .run()
            .await
    }

    /// Asks the model for a title when the conversation still has the fallback title
    /// made from its first message (call after the first turn; hosts run it in the
    /// background). Returns the new title; `None` when nothing changed (already titled,
    /// no messages, or the model failed — the fallback stays).
    ///
    /// # Errors
    /// Unknown conversation, storage failures.
    pub async fn generate_title(
        &self,
        conversation_id: ConversationId,
    ) -> Result<Option<String>, PipelineError> {
        let conversation = self.conversation(conversation_id).await?;
        let rows = self.store.rows_after(conversation_id, 0).await?;
        let Some(first) = rows.iter().find_map(|r| match r {
            HistoryRow::Message(m) if m.role == Role::User => Some(m.content.clone()),
            _ => None,
        }) else {
            return Ok(None);
        };
        if conversation.title != fallback_title(&first) {
            return Ok(None);
        }
        let Some(title) = model_title(self.model.as_ref(), &first).await else {
            return Ok(None);
        };
        self.store
            .rename_conversation(conversation_id, &title)
            .await?;
        self.emit(TurnEvent::TitleChanged {
            conversation_id,
            title: title.clone(),
        });
        Ok(Some(title))
    }

    /// How full the context window would be for the next message (stored counts +
    /// system prompt + tool schemas).
    ///
    /// # Errors
    /// Unknown conversation, storage failures.
    pub async fn context_estimate(
        &self,
        conversation_id: ConversationId,
    ) -> Result<ContextEstimate, PipelineError> {
        let conversation = self.conversation(conversation_id).await?;
        self.estimate_now(&conversation, None).await
    }

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
        if new_text.trim().is_empty() {
            return Err(PipelineError::Invalid("the edited message is empty".into()));
        }
        let guard = self.active.begin(conversation_id, options.cancel)?;
        let conversation = self.conversation(conversation_id).await?;
        let rows = self
            .store
            .rows_after(conversation_id, conversation.history_boundary())
            .await?;
        let belongs = rows
            .iter()
            .any(|r| matches!(r, HistoryRow::Message(m) if m.id == message_id));
        if !belongs {
            return Err(PipelineError::NotFound(format!(
                "message {message_id} is not an editable message of conversation {conversation_id}"
            )));
        }
        let tokens = self.assembler.message_tokens(Role::User, new_text);
        let (turn, _) = self
            .store
            .edit_user_message(message_id, new_text, tokens)
            .await?;
        TurnRun::new(self, turn, guard.cancel_token().clone())
            .run()
            .await
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
        let guard = self.active.begin(conversation_id, options.cancel)?;
        let existing = self
            .store
            .get_turn(turn_id)
            .await?
            .filter(|t| t.conversation_id == conversation_id)
            .ok_or_else(|| {
                PipelineError::NotFound(format!(
                    "turn {turn_id} not found in conversation {conversation_id}"
                ))
            })?;
        let (turn, _) = self.store.reset_turn_for_regeneration(existing.id).await?;
        TurnRun::new(self, turn, guard.cancel_token().clone())
            .run()
            .await
    }
}
