//! The running turn's view of its conversation: the conversation and its rows after
//! the compression boundary, kept in step with what the turn itself writes, so a model
//! step needs no reload from storage. Only one turn runs per conversation, so nothing
//! else writes these rows meanwhile; a compression drops the view and it is reloaded.

use smallebot_core::entities::{Conversation, HistoryRow, Role, ToolCall};
use smallebot_core::ids::{ConversationId, TurnId};

use super::context::PipelineContext;
use crate::error::PipelineError;

/// A conversation and its rows after the boundary.
#[derive(Debug, Clone)]
pub(crate) struct TurnView {
    pub(crate) conversation: Conversation,
    pub(crate) rows: Vec<HistoryRow>,
}

impl TurnView {
    /// Loads the conversation and the rows after its boundary.
    pub(crate) async fn load(
        context: &PipelineContext,
        conversation_id: ConversationId,
    ) -> Result<Self, PipelineError> {
        let conversation = context.conversation(conversation_id).await?;
        Self::load_rows(context, conversation).await
    }

    /// A turn's first view: the conversation read before its start and the rows the
    /// start gave back, as far as it has them, the rest read.
    pub(crate) async fn first(
        context: &PipelineContext,
        conversation_id: ConversationId,
        known: Option<Conversation>,
        rows: Option<Vec<HistoryRow>>,
    ) -> Result<Self, PipelineError> {
        match (known, rows) {
            (Some(conversation), Some(rows)) => Ok(Self { conversation, rows }),
            (Some(conversation), None) => Self::load_rows(context, conversation).await,
            (None, _) => Self::load(context, conversation_id).await,
        }
    }

    /// Loads the rows after the boundary of `conversation`, just read from storage.
    pub(crate) async fn load_rows(
        context: &PipelineContext,
        conversation: Conversation,
    ) -> Result<Self, PipelineError> {
        let conversation_id = conversation.id;
        let rows = context
            .store
            .context_rows_after(conversation_id, conversation.history_boundary())
            .await?;
        Ok(Self { conversation, rows })
    }

    /// The sum of the stored token counts that go to the model (replaced messages and
    /// reasoning count nothing) — the same sum storage keeps in `context_tokens`.
    pub(crate) fn stored_tokens(&self) -> i64 {
        self.rows
            .iter()
            .filter(|r| !matches!(r, HistoryRow::Message(m) if m.replaced_by.is_some()))
            .map(HistoryRow::token_count)
            .sum()
    }

    /// The stored token counts of `turn`'s rows that go to the model.
    pub(crate) fn turn_tokens(&self, turn: TurnId) -> u64 {
        let tokens: i64 = self
            .rows
            .iter()
            .filter(|r| r.turn_id() == turn)
            .filter(|r| !matches!(r, HistoryRow::Message(m) if m.replaced_by.is_some()))
            .map(HistoryRow::token_count)
            .sum();
        u64::try_from(tokens).unwrap_or(0)
    }

    /// Tokens and bytes of `turn`'s current user message (zeros when it has none).
    pub(crate) fn user_message_size(&self, turn: TurnId) -> (u64, u64) {
        self.rows
            .iter()
            .find_map(|row| match row {
                HistoryRow::Message(m)
                    if m.turn_id == turn && m.role == Role::User && m.replaced_by.is_none() =>
                {
                    let tokens = u64::try_from(m.token_count).unwrap_or(0);
                    Some((tokens, u64::try_from(m.content.len()).unwrap_or(u64::MAX)))
                }
                _ => None,
            })
            .unwrap_or_default()
    }

    /// Rows the turn has just written.
    pub(crate) fn extend(&mut self, rows: &[HistoryRow]) {
        self.rows.extend_from_slice(rows);
    }

    /// A tool call the turn has just completed (it replaces the running one).
    pub(crate) fn complete(&mut self, call: ToolCall) {
        let found = self.rows.iter_mut().find(|r| {
            matches!(r, HistoryRow::ToolCall(t) if t.turn_id == call.turn_id && t.call_id == call.call_id)
        });
        match found {
            Some(row) => *row = HistoryRow::ToolCall(call),
            None => self.rows.push(HistoryRow::ToolCall(call)),
        }
    }
}
