//! The tool part of a model step: store the requested calls, run them concurrently,
//! store each result by its call id as it finishes.

use std::time::Duration;

use futures::future::join_all;
use smallebot_core::entities::{HistoryRow, NewToolCall, ToolCallCompletion, ToolCallStatus};

use super::turn::TurnRun;
use crate::error::PipelineError;
use crate::events::EventKind;
use crate::ports::{ModelToolCall, ToolContext, ToolInvocation, ToolOutcome};

/// How long a tool may keep running after its turn was cancelled before it is dropped.
const TOOL_CANCEL_GRACE: Duration = Duration::from_secs(3);

impl TurnRun<'_> {
    /// Stores every requested call as running, runs them concurrently, and stores each
    /// result as it finishes, matched by call id.
    pub(super) async fn run_tools(&mut self, calls: &[ModelToolCall]) -> Result<(), PipelineError> {
        let mut invocations = Vec::with_capacity(calls.len());
        for call in calls {
            let call_id = self.call_ids.assign(self.turn.id, &call.call_id);
            let context = self.context;
            let started = context
                .store
                .append_tool_call(&NewToolCall {
                    conversation_id: self.turn.conversation_id,
                    turn_id: self.turn.id,
                    call_id: call_id.clone(),
                    tool_name: call.name.clone(),
                    arguments: call.arguments.clone(),
                    token_count: context.assembler.tool_call_tokens(
                        &call.name,
                        &call.arguments,
                        None,
                    ),
                })
                .await?;
            self.update_view(|v| v.push(HistoryRow::ToolCall(started)));
            self.emit(EventKind::ToolCallStarted {
                call_id: call_id.clone(),
                tool_name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            invocations.push(ToolInvocation {
                call_id,
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
        }
        let tool_context =
            ToolContext::in_turn(self.turn.conversation_id, self.turn.id, self.cancel.clone());
        let results = join_all(
            invocations
                .iter()
                .map(|inv| self.run_tool(inv, &tool_context)),
        )
        .await;
        results.into_iter().collect()
    }

    async fn run_tool(
        &self,
        invocation: &ToolInvocation,
        tool_context: &ToolContext,
    ) -> Result<(), PipelineError> {
        let context = self.context;
        let cancel = self.cancel.clone();
        let outcome = tokio::select! {
            outcome = context.tools.execute(invocation, tool_context) => outcome,
            () = async move {
                cancel.cancelled().await;
                tokio::time::sleep(TOOL_CANCEL_GRACE).await;
            } => ToolOutcome {
                content: "Cancelled: the turn was cancelled before this tool finished.".into(),
                status: ToolCallStatus::Cancelled,
            },
        };
        let stored = context
            .store
            .complete_tool_call(
                self.turn.id,
                &invocation.call_id,
                &ToolCallCompletion {
                    token_count: context.assembler.tool_call_tokens(
                        &invocation.name,
                        &invocation.arguments,
                        Some(&outcome.content),
                    ),
                    result: outcome.content.clone(),
                    status: outcome.status,
                },
            )
            .await?;
        self.update_view(|v| v.complete(stored.clone()));
        self.emit(EventKind::ToolCallCompleted {
            call_id: invocation.call_id.clone(),
            tool_name: invocation.name.clone(),
            status: outcome.status,
            result: outcome.content,
        });
        if let Some(plan) = &context.plan {
            let effects = context.tools.effects(invocation).unwrap_or_default();
            if let Some(plan_text) = plan
                .tool_call_finished(self.turn.conversation_id, &stored, &effects)
                .await
            {
                self.emit(EventKind::TaskListChanged { plan: plan_text });
            }
        }
        Ok(())
    }
}
