//! The tool part of a model step: run the requested calls (stored with the step)
//! concurrently, store each result by its call id as it finishes.
//!
//! A result's write is started when its tool finishes and runs beside what follows
//! (the next request to the model): the turn awaits it before its next write or read of
//! storage ([`TurnRun::settle_results`]), so the writes of a turn are stored in the
//! order they happened and a failed one fails the turn before anything later is
//! stored. Until then the turn's view holds the result as it will be stored.

use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use smallebot_core::entities::{ToolCall, ToolCallCompletion, ToolCallStatus};
use tracing::Instrument;
use tracing::field::Empty;

use crate::wire::bodies::{elicitation_card, hook_run_card};
use crate::wire::plan::{self as wire_plan, tool_status};
use smallebot_core::rules::truncation::cap_stored_result;

use super::turn::{PendingResult, TurnRun};
use crate::error::PipelineError;
use crate::events::EventKind;
use crate::ports::{ToolContext, ToolInvocation, ToolOutcome};

/// How long a tool may keep running after its turn was cancelled before it is dropped.
const TOOL_CANCEL_GRACE: Duration = Duration::from_secs(3);

/// A call of a recorded step: what to run, and its stored (running) row.
pub(super) struct StartedCall {
    /// The call to run, under its stored id.
    pub(super) invocation: ToolInvocation,
    /// Its row as the step stored it.
    pub(super) row: Option<ToolCall>,
}

impl TurnRun<'_> {
    /// Runs the step's calls (stored as running already) concurrently, and starts
    /// storing each result as it finishes, matched by call id.
    /// When one of them may change the workspace's files, the workspace is compared
    /// before and after them and what changed is stored as the turn's
    /// (`file_changes.rs`).
    ///
    /// # Errors
    /// The turn's file changes could not be stored.
    pub(super) async fn run_tools(&mut self, calls: Vec<StartedCall>) -> Result<(), PipelineError> {
        let tool_context =
            ToolContext::in_turn(self.turn.conversation_id, self.turn.id, self.cancel.clone())
                .billed_to(self.billed_turn())
                .loading_into(self.loaded_tools.clone())
                .with_user_rules(self.user_rules.clone())
                .requested_by(self.requester());
        let workspace = self.workspace_for(&calls);
        let before = match &workspace {
            Some(workspace) => Some(workspace.before_calls().await),
            None => None,
        };
        let writes = join_all(calls.iter().map(|call| self.run_tool(call, &tool_context))).await;
        // A panic elsewhere while the list was held leaves it as it was: keep using it,
        // so no result's write goes unawaited.
        self.pending_results
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend(writes);
        match (workspace, before) {
            (Some(workspace), Some(before)) => {
                self.record_file_changes(workspace.as_ref(), before).await
            }
            _ => Ok(()),
        }
    }

    /// Waits until the tool results being written are stored (the view then holds them
    /// as stored).
    ///
    /// # Errors
    /// The first write that failed.
    pub(super) async fn settle_results(&self) -> Result<(), PipelineError> {
        let pending = std::mem::take(
            &mut *self
                .pending_results
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        let mut failed = None;
        for write in pending {
            match write.await {
                Ok(Ok(stored)) => self.update_view(|v| v.complete(stored)),
                Ok(Err(err)) => {
                    failed.get_or_insert(PipelineError::from(err));
                }
                Err(join) if join.is_panic() => std::panic::resume_unwind(join.into_panic()),
                // Cancelled with the runtime.
                Err(_) => {
                    failed.get_or_insert(PipelineError::ShuttingDown);
                }
            }
        }
        failed.map_or(Ok(()), Err)
    }

    async fn run_tool(&self, call: &StartedCall, tool_context: &ToolContext) -> PendingResult {
        let context = self.context;
        let invocation = &call.invocation;
        let cancel = self.cancel.clone();
        let tool_context = tool_context.clone().for_call(&invocation.call_id);
        let span = tool_span(invocation);
        let execute = context.tools.execute(invocation, &tool_context);
        let mut outcome = tokio::select! {
            outcome = execute.instrument(span.clone()) => outcome,
            () = async move {
                cancel.cancelled().await;
                tokio::time::sleep(TOOL_CANCEL_GRACE).await;
            } => ToolOutcome {
                content: "Cancelled: the turn was cancelled before this tool finished.".into(),
                status: ToolCallStatus::Cancelled,
            },
        };
        if outcome.status != ToolCallStatus::Ok {
            span.record("otel.status_code", "error");
            span.record("error.type", outcome.status.as_str());
        }
        span.in_scope(|| tracing::info!(content = %outcome.content, "tool result"));
        if outcome.status == ToolCallStatus::Cancelled && context.stopping.is_cancelled() {
            // Stopped by a shutdown, not by the person.
            outcome = interrupted(outcome.content);
        }
        self.emit_call_hooks(&invocation.call_id, &tool_context);
        self.finish_call(call, outcome).await
    }

    /// Tells the subscribers what the hooks of the call `call_id` did: a warning per
    /// failed hook, then their runs (for the call's card); then what the MCP server's
    /// questions to the person came to.
    fn emit_call_hooks(&self, call_id: &str, tool_context: &ToolContext) {
        let reported = tool_context.hooks.take();
        for message in reported.warnings {
            self.emit(EventKind::HookWarning {
                call_id: Some(call_id.to_owned()),
                message,
            });
        }
        if !reported.runs.is_empty() {
            self.emit(EventKind::ToolCallHooks {
                call_id: call_id.to_owned(),
                hooks: reported.runs.iter().map(hook_run_card).collect(),
            });
        }
        let asked = tool_context.elicitations.take();
        if !asked.is_empty() {
            self.emit(EventKind::ToolCallElicitations {
                call_id: call_id.to_owned(),
                elicitations: asked.iter().map(elicitation_card).collect(),
            });
        }
    }

    /// Starts storing `outcome` as the result of `call` (the view, the plan and the
    /// subscribers are told at once).
    pub(super) async fn finish_call(
        &self,
        call: &StartedCall,
        outcome: ToolOutcome,
    ) -> PendingResult {
        let context = self.context;
        let invocation = &call.invocation;
        let completion = ToolCallCompletion {
            // The call itself was counted when its running row was stored.
            token_count: match &call.row {
                Some(row) => context.assembler.tool_call_tokens_with_result(
                    row.token_count,
                    &invocation.name,
                    &invocation.arguments,
                    &outcome.content,
                ),
                None => context.assembler.tool_call_tokens(
                    &invocation.name,
                    &invocation.arguments,
                    Some(&outcome.content),
                ),
            },
            result: outcome.content.clone(),
            status: outcome.status,
        };
        // The call as it will be stored, for the view and the plan meanwhile.
        let completed = call.row.clone().map(|row| ToolCall {
            result: Some(cap_stored_result(&completion.result).into_owned()),
            status: completion.status,
            token_count: completion.token_count,
            completed_at: Some(chrono::Utc::now()),
            ..row
        });
        let store = Arc::clone(&context.store);
        let (turn_id, call_id) = (self.turn.id, invocation.call_id.clone());
        let write = tokio::spawn(async move {
            store
                .complete_tool_call(turn_id, &call_id, &completion)
                .await
        });
        if let Some(completed) = &completed {
            self.update_view(|v| v.complete(completed.clone()));
        }
        self.emit(EventKind::ToolCallCompleted {
            call_id: invocation.call_id.clone(),
            tool_name: invocation.name.clone(),
            status: tool_status(outcome.status),
            result: outcome.content,
        });
        if let (Some(plan), Some(completed)) = (&context.plan, &completed) {
            let effects = context.tools.effects(invocation).unwrap_or_default();
            if let Some(list) = plan
                .tool_call_finished(self.turn.conversation_id, completed, &effects)
                .await
            {
                self.emit(EventKind::TaskListChanged {
                    plan: wire_plan::plan(&list),
                });
            }
        }
        write
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

/// The span of one tool call, named by OpenTelemetry's GenAI conventions
/// (`execute_tool NAME`); the arguments go in as an event marked as content (kept only
/// with `--log-content`).
fn tool_span(invocation: &ToolInvocation) -> tracing::Span {
    let span = tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {}", invocation.name),
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %invocation.name,
        gen_ai.tool.call.id = %invocation.call_id,
        gen_ai.tool.type = "function",
        error.type = Empty,
    );
    span.in_scope(|| tracing::info!(content = %invocation.arguments, "tool arguments"));
    span
}
