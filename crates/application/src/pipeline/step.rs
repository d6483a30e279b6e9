//! Storing a model step: what it produced, in one transaction (`record_step`).

use smallebot_core::entities::{
    HistoryRow, NewStep, Role, StepMessage, StepToolCall, ToolCall, TurnEnd,
};

use super::tool_step::StartedCall;
use super::turn::TurnRun;
use crate::error::PipelineError;
use crate::events::EventKind;
use crate::ports::{ModelToolCall, ToolInvocation};

impl TurnRun<'_> {
    /// Stores what one step produced — its reasoning when there is any, its text (an
    /// assistant message, also when empty if it asked for tools), the requested calls
    /// as running, and `end` when it ends the turn — in one transaction, and returns
    /// the calls to run under their stored ids, with their stored rows.
    pub(super) async fn record_step(
        &mut self,
        reasoning: &str,
        text: &str,
        calls: &[ModelToolCall],
        end: Option<TurnEnd>,
    ) -> Result<Vec<StartedCall>, PipelineError> {
        // In the order they happened: the previous step's tool results first.
        self.settle_results().await?;
        let assembler = &self.context.assembler;
        let invocations: Vec<ToolInvocation> = calls
            .iter()
            .map(|call| ToolInvocation {
                call_id: self.call_ids.assign(self.turn.id, &call.call_id),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            })
            .collect();
        let step = NewStep {
            conversation_id: self.turn.conversation_id,
            turn_id: self.turn.id,
            reasoning: (!reasoning.trim().is_empty()).then(|| reasoning.to_owned()),
            message: (!text.is_empty() || !calls.is_empty()).then(|| StepMessage {
                content: text.to_owned(),
                token_count: assembler.message_tokens(Role::Assistant, text),
            }),
            tool_calls: invocations
                .iter()
                .map(|inv| StepToolCall {
                    call_id: inv.call_id.clone(),
                    tool_name: inv.name.clone(),
                    arguments: inv.arguments.clone(),
                    token_count: assembler.tool_call_tokens(&inv.name, &inv.arguments, None),
                })
                .collect(),
            end,
        };
        let recorded = self.context.store.record_step(&step).await?;
        self.update_view(|v| v.extend(&recorded.rows));
        let calls: Vec<&ToolCall> = recorded
            .rows
            .iter()
            .filter_map(|row| match row {
                HistoryRow::ToolCall(call) => Some(call),
                _ => None,
            })
            .collect();
        for call in &calls {
            self.emit(EventKind::ToolCallStarted {
                call_id: call.call_id.clone(),
                tool_name: call.tool_name.clone(),
                arguments: call.arguments.clone(),
            });
        }
        Ok(invocations
            .into_iter()
            .map(|invocation| StartedCall {
                row: calls
                    .iter()
                    .find(|c| c.call_id == invocation.call_id)
                    .map(|c| (*c).clone()),
                invocation,
            })
            .collect())
    }
}
