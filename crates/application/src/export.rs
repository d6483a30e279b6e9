//! Gathering a conversation whole for an export: the web app's `…/export`, `smallebot
//! conversations export`, and the terminal. Writing it is not done here: Markdown by
//! `smallebot_core::rules::export::markdown`, JSON as the protocol's types
//! ([`crate::wire::bodies::export`]).

use smallebot_core::entities::ConversationExport;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::Store;

use crate::error::PipelineError;

/// The conversation with every turn and every stored row, in `seq` order (replaced
/// messages, replaced answers, reasoning and undone turns included; a running turn with its rows so
/// far). Only reads: a read-only store will do. The caller checks that the
/// conversation is the asking user's.
///
/// # Errors
/// [`PipelineError::ConversationNotFound`] for an unknown id; storage failures.
pub async fn gather(
    store: &dyn Store,
    conversation_id: ConversationId,
) -> Result<ConversationExport, PipelineError> {
    let conversation = store
        .get_conversation(conversation_id)
        .await?
        .ok_or(PipelineError::ConversationNotFound(conversation_id))?;
    let turns = store.list_turns(conversation_id).await?;
    let rows = store.rows_after(conversation_id, 0).await?;
    let answer_versions = store.answer_versions(conversation_id).await?;
    Ok(ConversationExport {
        conversation,
        turns,
        rows,
        answer_versions,
    })
}
