//! The hooks of a turn's own points (the tools' are run by the tool executor):
//! `UserPromptSubmit` before a message is stored, `Stop` / `SubagentStop` when the
//! model answers without tool calls, `PreCompact` before a compression.

use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::rules::hook::{
    HookDecision, HookEvent, HookInput, HookResult, MAX_STOP_CONTINUATIONS, may_continue,
};
use tokio_util::sync::CancellationToken;

use super::context::PipelineContext;
use super::turn::TurnRun;
use crate::error::PipelineError;
use crate::events::{CompressionTrigger, EventKind};
use crate::ports::{ModelResponse, ModelToolCall, ToolOutcome};

/// The tag around the context a `UserPromptSubmit` hook adds to the message.
const PROMPT_CONTEXT_TAG: &str = "user-prompt-submit-hook";

/// The tag around the context a `SessionStart` hook adds to the session's first
/// message.
const SESSION_CONTEXT_TAG: &str = "session-start-hook";

/// `text` with `context` after it, inside `<tag>`.
fn with_context(text: String, tag: &str, context: Option<String>) -> String {
    match context {
        Some(context) => format!("{text}\n\n<{tag}>\n{context}\n</{tag}>"),
        None => text,
    }
}

impl PipelineContext {
    /// Whether any hook runs on `event` (for any tool).
    pub(crate) fn has_hooks(&self, event: HookEvent) -> bool {
        self.hooks.as_ref().is_some_and(|h| h.wants(event, None))
    }

    /// Runs the hooks of `event` with `input` (none configured: nothing); the person
    /// is warned of hooks that failed.
    pub(crate) async fn run_hooks(
        &self,
        event: HookEvent,
        input: HookInput,
        conversation_id: ConversationId,
        turn_id: Option<TurnId>,
        cancel: &CancellationToken,
    ) -> HookResult {
        let Some(hooks) = self.hooks.as_ref().filter(|_| self.has_hooks(event)) else {
            return HookResult::default();
        };
        let result = hooks.run(event, input, cancel).await;
        if let Some(message) = &result.warning {
            self.emit(
                conversation_id,
                turn_id,
                EventKind::HookWarning {
                    call_id: None,
                    message: message.clone(),
                },
            );
        }
        result
    }

    /// Runs the `PreCompact` hooks before a compression started by `trigger`
    /// (`manual` when the person asked, else `auto`); they cannot stop it.
    pub(crate) async fn pre_compact(
        &self,
        conversation_id: ConversationId,
        turn_id: Option<TurnId>,
        trigger: CompressionTrigger,
    ) {
        let mut input = HookInput::new(
            HookEvent::PreCompact,
            String::new(),
            Some(conversation_id.to_string()),
            turn_id.map(|id| id.to_string()),
        );
        input.trigger = Some(
            match trigger {
                CompressionTrigger::Manual => "manual",
                _ => "auto",
            }
            .to_owned(),
        );
        let cancel = self.stopping.child_token();
        self.run_hooks(
            HookEvent::PreCompact,
            input,
            conversation_id,
            turn_id,
            &cancel,
        )
        .await;
    }

    /// The message to store for `text` as the `UserPromptSubmit` hooks leave it: the
    /// text with their context after it, and after that the context the session's
    /// `SessionStart` hooks added (on its first prompt only).
    ///
    /// # Errors
    /// [`PipelineError::PromptBlocked`] when a hook blocked it (exit 2, `block`, or
    /// `continue: false`): nothing is stored or sent.
    pub(crate) async fn submitted_prompt(
        &self,
        conversation_id: ConversationId,
        text: &str,
    ) -> Result<String, PipelineError> {
        let mut input = HookInput::new(
            HookEvent::UserPromptSubmit,
            String::new(),
            Some(conversation_id.to_string()),
            None,
        );
        input.prompt = Some(text.to_owned());
        let cancel = self.stopping.child_token();
        let result = self
            .run_hooks(
                HookEvent::UserPromptSubmit,
                input,
                conversation_id,
                None,
                &cancel,
            )
            .await;
        if result.decision == Some(HookDecision::Block) || result.stop.is_some() {
            let reason = result
                .reason
                .or(result.stop)
                .unwrap_or_else(|| "no reason given".to_owned());
            return Err(PipelineError::PromptBlocked { reason });
        }
        let session = self
            .session_context
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&conversation_id);
        let text = with_context(
            text.to_owned(),
            PROMPT_CONTEXT_TAG,
            result.additional_context,
        );
        Ok(with_context(text, SESSION_CONTEXT_TAG, session))
    }
}

/// The name of the call a `Stop` hook's reason is recorded as, so the model reads it
/// as the answer to its last step.
pub(crate) const STOP_HOOK_CALL: &str = "StopHook";

impl TurnRun<'_> {
    /// Runs the `Stop` hooks (`SubagentStop` in a sub-agent) before the turn ends with
    /// `response`. When one blocks the end — and the turn has not gone on
    /// [`MAX_STOP_CONTINUATIONS`] times already — the answer is stored as a step whose
    /// one call, `StopHook`, has the hook's reason as its result, and `true` is
    /// returned: the model is asked again. Past the limit the person is warned and the
    /// turn ends.
    ///
    /// # Errors
    /// The step could not be stored.
    pub(super) async fn stop_hooks_go_on(
        &mut self,
        response: &ModelResponse,
    ) -> Result<bool, PipelineError> {
        let event = if self.billed_turn().conversation_id == self.turn.conversation_id {
            HookEvent::Stop
        } else {
            HookEvent::SubagentStop
        };
        let wanted = self
            .context
            .hooks
            .as_ref()
            .is_some_and(|h| h.wants(event, None));
        if !wanted || self.cancel.is_cancelled() {
            return Ok(false);
        }
        let mut input = HookInput::new(
            event,
            String::new(),
            Some(self.turn.conversation_id.to_string()),
            Some(self.turn.id.to_string()),
        );
        input.stop_hook_active = Some(self.stop_continuations > 0);
        let result = self
            .context
            .run_hooks(
                event,
                input,
                self.turn.conversation_id,
                Some(self.turn.id),
                &self.cancel,
            )
            .await;
        if result.decision != Some(HookDecision::Block) {
            return Ok(false);
        }
        if !may_continue(self.stop_continuations) {
            self.emit(EventKind::Warning {
                message: format!(
                    "a {event} hook asked the model to go on again; it already went on \
                     {MAX_STOP_CONTINUATIONS} times in this turn, so the turn ends here"
                ),
            });
            return Ok(false);
        }
        self.stop_continuations += 1;
        let reason = result
            .reason
            .unwrap_or_else(|| "a Stop hook asks you to go on".to_owned());
        let call = ModelToolCall {
            call_id: format!("stop-hook-{}", self.stop_continuations),
            name: STOP_HOOK_CALL.to_owned(),
            arguments: "{}".to_owned(),
        };
        let started = self
            .record_step(&response.reasoning, &response.text, &[call], None)
            .await?;
        let content = format!("The turn did not end: a {event} hook says: {reason}");
        let mut writes = Vec::new();
        for call in &started {
            writes.push(
                self.finish_call(call, ToolOutcome::ok(content.clone()))
                    .await,
            );
        }
        self.pending_results
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend(writes);
        Ok(true)
    }
}
