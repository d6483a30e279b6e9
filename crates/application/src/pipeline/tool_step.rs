//! The tool part of a model step: run the requested calls (stored with the step)
//! concurrently, store each result by its call id as it finishes.

use std::time::Duration;

use futures::future::join_all;
use smallebot_core::entities::{ToolCallCompletion, ToolCallStatus};

use super::turn::TurnRun;
use crate::error::PipelineError;
use crate::events::EventKind;
use crate::ports::{ToolContext, ToolInvocation, ToolOutcome};

/// How long a tool may keep running after its turn was cancelled before it is dropped.
const TOOL_CANCEL_GRACE: Duration = Duration::from_secs(3);

impl TurnRun<'_> {
    /// Runs the step's calls (stored as running already) concurrently, and stores each
    /// result as it finishes, matched by call id.
    pub(super) async fn run_tools(
        &mut self,
        invocations: Vec<ToolInvocation>,
    ) -> Result<(), PipelineError> {
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
        let mut outcome = tokio::select! {
            outcome = context.tools.execute(invocation, tool_context) => outcome,
            () = async move {
                cancel.cancelled().await;
                tokio::time::sleep(TOOL_CANCEL_GRACE).await;
            } => ToolOutcome {
                content: "Cancelled: the turn was cancelled before this tool finished.".into(),
                status: ToolCallStatus::Cancelled,
            },
        };
        if outcome.status == ToolCallStatus::Cancelled && context.stopping.is_cancelled() {
            // Stopped by a shutdown, not by the person.
            outcome = interrupted(outcome.content);
        }
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
            if let Some(list) = plan
                .tool_call_finished(self.turn.conversation_id, &stored, &effects)
                .await
            {
                self.emit(EventKind::TaskListChanged { plan: list });
            }
        }
        Ok(())
    }
}

/// The outcome of a call the shutdown stopped: what it returned, marked as such.
fn interrupted(mut content: String) -> ToolOutcome {
    if !content.is_empty() && !content.ends_with('\n') {
        content.push('\n');
    }
    content.push_str("[interrupted: SmallEBot was shutting down]");
    ToolOutcome {
        content,
        status: ToolCallStatus::Interrupted,
    }
}
