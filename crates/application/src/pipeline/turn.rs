//! One turn: the tool loop, persisted as it happens.

use std::sync::Mutex;

use smallebot_core::entities::{Conversation, HistoryRow, Turn, TurnEnd, TurnStatus};
use smallebot_core::ids::TurnId;
use smallebot_core::rules::compression_scope::first_row_that_fits;
use smallebot_core::rules::request_fit::{RequestSize, refuse_oversized};
use tokio_util::sync::CancellationToken;

use super::attachments::{carried, load_contents};
use super::compressor::{CompressionRequest, Compressor};
use super::context::{PipelineContext, with_stored_exactness};
use super::tool_ids::ToolCallIds;
use super::tool_step::PendingResult;
use super::view::TurnView;
use crate::error::PipelineError;
use crate::events::{CompressionTrigger, EventKind};
use crate::ports::{
    AttachmentContents, ContextEstimate, ModelDelta, ModelError, ModelErrorKind, ModelResponse,
    PromptInput, ToolSchema,
};

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TurnOutcome {
    /// The turn.
    pub turn_id: TurnId,
    /// Whether it is the conversation's first turn (the one a model title is made for).
    pub first_turn: bool,
    /// Completed, cancelled or failed.
    pub status: TurnStatus,
    /// The answer text of the last model step (partial when cancelled or failed).
    pub text: String,
    /// The error of a failed turn.
    pub error: Option<String>,
}

/// Text and reasoning streamed so far in one model step.
#[derive(Debug, Default)]
pub(super) struct Partial {
    pub(super) text: String,
    pub(super) reasoning: String,
}

/// The state of one running turn.
pub(crate) struct TurnRun<'a> {
    pub(super) context: &'a PipelineContext,
    pub(super) compressor: &'a Compressor,
    pub(super) turn: Turn,
    pub(super) cancel: CancellationToken,
    pub(super) call_ids: ToolCallIds,
    pub(super) last_estimate: Option<ContextEstimate>,
    pub(super) steps_done: usize,
    /// The conversation as this turn sees it; `None` until loaded or after a compression.
    pub(super) view: Mutex<Option<TurnView>>,
    /// The conversation as read just before the turn started, if nothing changed it
    /// since (its first view then needs only the rows).
    pub(super) known_conversation: Option<Conversation>,
    /// Its rows as the turn's start left them, if the store gave them back.
    pub(super) known_rows: Option<Vec<HistoryRow>>,
    /// Tool results being written (see `tool_step.rs`): awaited before the turn's next
    /// write or read of storage.
    pub(super) pending_results: Mutex<Vec<PendingResult>>,
    /// The contents of the attachments the requests carry, read once.
    pub(super) attachments: AttachmentContents,
}

enum StepResult {
    Response(ModelResponse),
    /// Not sent: the request cannot fit the context window (the error says why).
    Refused(String),
    Failed(ModelError, Partial),
    Cancelled(Partial),
}

impl<'a> TurnRun<'a> {
    pub(crate) fn new(
        context: &'a PipelineContext,
        compressor: &'a Compressor,
        turn: Turn,
        cancel: CancellationToken,
        known_conversation: Option<Conversation>,
        known_rows: Option<Vec<HistoryRow>>,
    ) -> Self {
        Self {
            context,
            compressor,
            turn,
            cancel,
            call_ids: ToolCallIds::default(),
            last_estimate: None,
            steps_done: 0,
            view: Mutex::new(None),
            known_conversation,
            known_rows,
            pending_results: Mutex::new(Vec::new()),
            attachments: AttachmentContents::new(),
        }
    }

    /// Sends an event of this turn.
    pub(super) fn emit(&self, kind: EventKind) {
        self.context
            .emit(self.turn.conversation_id, Some(self.turn.id), kind);
    }

    /// Compresses the conversation for this turn.
    async fn compress(&self, trigger: CompressionTrigger) -> Result<(), PipelineError> {
        self.settle_results().await?;
        let conversation = self.context.conversation(self.turn.conversation_id).await?;
        let request = CompressionRequest {
            trigger,
            turn_id: Some(self.turn.id),
            focus: None,
            new_message: None,
        };
        self.compressor
            .compress(self.context, &conversation, request)
            .await?;
        Ok(())
    }

    /// How full the window is for the request of this step (and, once the response
    /// came, what the provider counted for it).
    fn emit_usage(&self, estimate: ContextEstimate, reported: Option<u64>) {
        self.emit(EventKind::ContextUsage {
            used: estimate.used,
            window: estimate.window,
            ratio: estimate.ratio(),
            exact: estimate.exact,
            reported,
        });
    }

    fn take_view(&self) -> Option<TurnView> {
        self.view.lock().ok().and_then(|mut v| v.take())
    }

    fn put_view(&self, view: TurnView) {
        if let Ok(mut slot) = self.view.lock() {
            *slot = Some(view);
        }
    }

    /// Keeps the view in step with a row this turn wrote.
    pub(super) fn update_view(&self, change: impl FnOnce(&mut TurnView)) {
        if let Ok(mut slot) = self.view.lock()
            && let Some(view) = slot.as_mut()
        {
            change(view);
        }
    }

    /// Runs the turn to its end and stores it; announcing the end is left to the
    /// caller (only a storage failure mid-turn is announced here, as `TurnFailed`).
    pub(crate) async fn run(mut self) -> Result<TurnOutcome, PipelineError> {
        self.emit(EventKind::TurnStarted);
        self.context
            .tell_notices(self.turn.conversation_id, self.turn.id);
        let result = self.tool_loop().await;
        if let Err(err) = &result {
            // Storage failed mid-turn: record the failure if storage still answers (after
            // the tool results still being written, whatever became of them).
            let _ = self.settle_results().await;
            let message = format!("the turn stopped: {err}");
            if self
                .context
                .store
                .finish_turn(self.turn.id, TurnStatus::Failed, Some(&message))
                .await
                .is_ok()
            {
                self.emit(EventKind::TurnFailed { error: message });
            }
        }
        result
    }

    async fn tool_loop(&mut self) -> Result<TurnOutcome, PipelineError> {
        let context = self.context;
        let max_steps = context.settings.max_tool_steps.max(1);
        let mut overflow_retried = false;
        while self.steps_done < max_steps {
            if self.cancel.is_cancelled() {
                return self
                    .finish(TurnStatus::Cancelled, String::new(), None)
                    .await;
            }
            // Per step: a tool list that changed meanwhile is offered at once.
            let schemas = context.tools.schemas();
            let response = match self.model_step(&schemas).await? {
                StepResult::Response(response) => response,
                StepResult::Failed(error, partial)
                    if error.kind == ModelErrorKind::ContextLengthExceeded
                        && partial.text.is_empty() =>
                {
                    if overflow_retried {
                        let message = format!(
                            "the conversation does not fit the model's context window even after \
                             compression ({error}); start a new conversation or use a model with \
                             a larger contextWindow"
                        );
                        return self
                            .finish(TurnStatus::Failed, String::new(), Some(message))
                            .await;
                    }
                    overflow_retried = true;
                    self.compress(CompressionTrigger::Overflow).await?;
                    self.take_view();
                    continue;
                }
                StepResult::Failed(error, _partial) => {
                    // A failed attempt's text is half an answer: shown while it streamed,
                    // never stored as if it were one. The error is stored on the turn.
                    return self
                        .finish(TurnStatus::Failed, String::new(), Some(error.message))
                        .await;
                }
                StepResult::Cancelled(partial) => return self.cancel_keeping(partial).await,
                StepResult::Refused(error) => {
                    return self
                        .finish(TurnStatus::Failed, String::new(), Some(error))
                        .await;
                }
            };
            self.steps_done += 1;
            if let (Some(usage), Some(estimate)) = (response.usage, self.last_estimate) {
                // Show the provider's count beside the estimate of the same request.
                self.emit_usage(estimate, Some(usage.prompt_tokens));
            }
            if response.tool_calls.is_empty() {
                // The answer and the end of the turn are stored together.
                let end = TurnEnd {
                    status: TurnStatus::Completed,
                    error: None,
                };
                self.record_step(&response.reasoning, &response.text, &[], Some(end))
                    .await?;
                return Ok(self.outcome(TurnStatus::Completed, response.text, None));
            }
            // An assistant message per step: it marks where the step's tool calls begin.
            let invocations = self
                .record_step(
                    &response.reasoning,
                    &response.text,
                    &response.tool_calls,
                    None,
                )
                .await?;
            self.run_tools(invocations).await;
            if self.cancel.is_cancelled() {
                return self
                    .finish(TurnStatus::Cancelled, response.text, None)
                    .await;
            }
        }
        let error = format!(
            "the model was still calling tools after {max_steps} steps (maxToolSteps in \
             agent.json); the turn was stopped. Ask it to continue, or raise maxToolSteps."
        );
        self.finish(TurnStatus::Failed, String::new(), Some(error))
            .await
    }

    /// Builds the request from the turn's view of the conversation (loaded once, kept
    /// in step with what the turn writes) and runs one model call.
    async fn model_step(
        &mut self,
        schemas: &std::sync::Arc<[ToolSchema]>,
    ) -> Result<StepResult, PipelineError> {
        let context = self.context;
        let conversation_id = self.turn.conversation_id;
        let plan = context.plan_text(conversation_id).await;
        let mut view = match self.take_view() {
            Some(view) => view,
            None => {
                let (known, rows) = (self.known_conversation.take(), self.known_rows.take());
                TurnView::first(context, conversation_id, known, rows).await?
            }
        };
        let estimate_of = |view: &TurnView| {
            let estimate = context.assembler.estimate(
                &view.conversation,
                view.stored_tokens(),
                plan.as_deref(),
                schemas,
                None,
            );
            with_stored_exactness(estimate, &view.conversation)
        };
        let mut full = estimate_of(&view);
        if full.ratio() >= context.settings.compression_threshold && !full.exact {
            // The bound is not enough to decide: count exactly (builds the tokenizer).
            // Storage is read again below: the tool results must be stored first.
            self.settle_results().await?;
            context.with_exact_counts(view.conversation.clone()).await?;
            view = TurnView::load(context, conversation_id).await?;
            full = estimate_of(&view);
        }
        if self.steps_done > 0
            && full.ratio() >= context.settings.compression_threshold
            && context
                .compression_can_help(&view.conversation, Some(self.turn.id), None)
                .await
        {
            // Between tool steps: this turn pushed the context over; compress (the
            // tool results stored first).
            self.settle_results().await?;
            let request = CompressionRequest {
                trigger: CompressionTrigger::MidTurn,
                turn_id: Some(self.turn.id),
                focus: None,
                new_message: None,
            };
            self.compressor
                .compress(context, &view.conversation, request)
                .await?;
            view = TurnView::load(context, conversation_id).await?;
            full = estimate_of(&view);
        }
        // If even after compression the request does not fit, leave out the oldest
        // turns for this one request (they stay stored and summarizable).
        let stored = view.stored_tokens();
        let window = i64::try_from(full.window).unwrap_or(i64::MAX);
        let overhead = i64::try_from(full.used).unwrap_or(i64::MAX) - stored;
        let start = first_row_that_fits(&view.rows, window - overhead, self.turn.id);
        let dropped: i64 = view.rows[..start].iter().map(|r| r.token_count()).sum();
        let used = full
            .used
            .saturating_sub(u64::try_from(dropped).unwrap_or(0));
        let estimate = ContextEstimate {
            used,
            window: full.window,
            exact: full.exact,
        };
        self.last_estimate = Some(estimate);
        self.emit_usage(estimate, None);
        // This turn alone does not fit: never sent (counted exactly, so a bound never
        // refuses a request that would fit).
        let (message_tokens, message_bytes) = view.user_message_size(self.turn.id);
        let size = RequestSize {
            request_tokens: used,
            turn_tokens: view.turn_tokens(self.turn.id),
            window: full.window,
            message_tokens,
            message_bytes,
        };
        if let Some(error) = full.exact.then(|| refuse_oversized(size)).flatten() {
            self.put_view(view);
            return Ok(StepResult::Refused(error));
        }
        let (store, sent) = (context.store.as_ref(), carried(&view.rows[start..]));
        load_contents(store, sent, &mut self.attachments, false).await?;
        let request = context.assembler.build_request(&PromptInput {
            conversation: &view.conversation,
            rows: &view.rows[start..],
            current_turn: self.turn.id,
            plan: plan.as_deref(),
            tools: schemas,
            thinking: self.turn.thinking_mode,
            attachments: &self.attachments,
            sees_images: context
                .model
                .supports_images(view.conversation.model.as_deref()),
        });
        self.put_view(view);

        let partial = Mutex::new(Partial::default());
        let turn_id = Some(self.turn.id);
        let on_delta = |delta: ModelDelta| {
            let kind = match delta {
                ModelDelta::Text(text) => {
                    if let Ok(mut p) = partial.lock() {
                        p.text.push_str(&text);
                    }
                    EventKind::TextDelta { text }
                }
                ModelDelta::Reasoning(text) => {
                    if let Ok(mut p) = partial.lock() {
                        p.reasoning.push_str(&text);
                    }
                    EventKind::ReasoningDelta { text }
                }
                ModelDelta::Retrying(notice) => {
                    // What the failed attempt streamed is void: never stored.
                    if let Ok(mut p) = partial.lock() {
                        *p = Partial::default();
                    }
                    EventKind::Retrying {
                        attempt: notice.attempt,
                        max: notice.max,
                        reason: notice.reason,
                        delay_ms: notice.delay_ms,
                    }
                }
            };
            context.emit(conversation_id, turn_id, kind);
        };
        let result = tokio::select! {
            result = context.model.complete(&request, &on_delta) => Some(result),
            () = self.cancel.cancelled() => None,
        };
        let partial = partial.into_inner().unwrap_or_default();
        Ok(match result {
            Some(Ok(response)) => StepResult::Response(response),
            Some(Err(error)) => StepResult::Failed(error, partial),
            None => StepResult::Cancelled(partial),
        })
    }
}
