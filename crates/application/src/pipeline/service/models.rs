//! Choosing the model a conversation runs on.

use smallebot_core::RepositoryError;
use smallebot_core::entities::Conversation;
use smallebot_core::ids::ConversationId;

use super::ConversationService;
use crate::error::PipelineError;
use crate::ports::ModelChoice;

impl ConversationService {
    /// The models a conversation may run on, the default first (empty when the chat
    /// model offers no choice).
    #[must_use]
    pub fn models(&self) -> &[ModelChoice] {
        self.context.model.choices()
    }

    /// The id of the model `conversation` runs on: its choice while that is still
    /// configured, else the default (`None` when there is no choice at all).
    #[must_use]
    pub fn model_of(&self, conversation: &Conversation) -> Option<String> {
        self.effective_model(conversation.model.as_deref())
    }

    /// The model a stored choice means: the choice while it is configured, else the
    /// default.
    fn effective_model(&self, choice: Option<&str>) -> Option<String> {
        let choices = self.models();
        choice
            .and_then(|id| choices.iter().find(|c| c.id == id))
            .or_else(|| choices.first())
            .map(|c| c.id.clone())
    }

    /// Chooses the model `conversation_id` runs on from its next model call on
    /// (`None`: the default) and returns the id now in effect. A running turn keeps the
    /// model it started with.
    ///
    /// # Errors
    /// [`PipelineError::UnknownModel`] for an id not in [`Self::models`];
    /// [`PipelineError::ConversationNotFound`]; storage errors.
    pub async fn set_model(
        &self,
        conversation_id: ConversationId,
        model: Option<&str>,
    ) -> Result<Option<String>, PipelineError> {
        if let Some(id) = model {
            let choices = self.models();
            if !choices.iter().any(|c| c.id == id) {
                return Err(PipelineError::UnknownModel {
                    id: id.to_owned(),
                    known: choices
                        .iter()
                        .map(|c| c.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        // One statement; it says when the conversation does not exist.
        match self
            .context
            .store
            .set_conversation_model(conversation_id, model)
            .await
        {
            Ok(()) => Ok(self.effective_model(model)),
            Err(RepositoryError::NotFound { .. }) => {
                Err(PipelineError::ConversationNotFound(conversation_id))
            }
            Err(other) => Err(other.into()),
        }
    }
}
