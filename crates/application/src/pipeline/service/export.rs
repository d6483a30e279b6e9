//! A conversation gathered whole for an export (see [`crate::export`]).

use smallebot_core::entities::ConversationExport;
use smallebot_core::ids::ConversationId;

use super::ConversationService;
use crate::error::PipelineError;

impl ConversationService {
    /// The conversation with every turn and every stored row (see
    /// [`crate::export::gather`]); the terminal's `/export` and the web app call it.
    ///
    /// # Errors
    /// [`PipelineError::ConversationNotFound`] for an unknown id; storage failures.
    pub async fn export(
        &self,
        conversation_id: ConversationId,
    ) -> Result<ConversationExport, PipelineError> {
        crate::export::gather(self.context.store.as_ref(), conversation_id).await
    }
}
