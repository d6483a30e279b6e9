//! One model call of a turn: its request built from the turn's view of the
//! conversation, compressed or refused first when it cannot fit, then streamed.

use std::sync::Mutex;

use smallebot_core::rules::budget::projected_prompt_tokens;
use smallebot_core::rules::compression_scope::first_row_that_fits;
use smallebot_core::rules::output_bound::output_bound;
use smallebot_core::rules::request_fit::{RequestSize, refuse_oversized};

use super::attachments::{carried, load_contents};
use super::compressor::CompressionRequest;
use super::context::with_stored_exactness;
use super::turn::{Partial, StepResult, TurnRun};
use super::view::TurnView;
use crate::error::PipelineError;
use crate::events::{CompressionTrigger, EventKind};
use crate::ports::{
    ContextEstimate, ModelDelta, ModelRequest, PromptInput, RequestBilling, ToolSchema,
};

impl TurnRun<'_> {
    /// Builds the request from the turn's view of the conversation (loaded once, kept
    /// in step with what the turn writes) and runs one model call.
    /// The tools are chosen per step: a tool list that changed meanwhile, and the tools
    /// a search of this turn loaded, are offered at once.
    pub(super) async fn model_step(&mut self) -> Result<StepResult, PipelineError> {
        let plan = self.context.plan_text(self.turn.conversation_id).await;
        let view = self.turn_view().await?;
        let loaded = self.loaded_tools.names();
        let schemas = &self.context.offered_tools(&view.conversation, &loaded);
        let (view, full) = self.view_to_send(view, plan.as_deref(), schemas).await?;
        let (start, estimate) = self.rows_that_fit(&view, full);
        // This turn alone does not fit: never sent (counted exactly, so a bound never
        // refuses a request that would fit).
        let (message_tokens, message_bytes) = view.user_message_size(self.turn.id);
        let size = RequestSize {
            request_tokens: estimate.used,
            turn_tokens: view.turn_tokens(self.turn.id),
            window: full.window,
            message_tokens,
            message_bytes,
        };
        if let Some(error) = full.exact.then(|| refuse_oversized(size)).flatten() {
            self.put_view(view);
            return Ok(StepResult::Refused(error));
        }
        let request = self
            .request(&view, start, estimate, plan.as_deref(), schemas)
            .await;
        self.put_view(view);
        Ok(self.stream(&request?).await)
    }

    /// The context estimate of `view` with the plan and tools.
    fn estimate_of(
        &self,
        view: &TurnView,
        plan: Option<&str>,
        schemas: &[ToolSchema],
    ) -> ContextEstimate {
        let estimate = self.context.assembler.estimate(
            &view.conversation,
            view.stored_tokens(),
            plan,
            schemas,
            None,
        );
        with_stored_exactness(estimate, &view.conversation)
    }

    /// The turn's view of the conversation: kept from the last step, else loaded.
    async fn turn_view(&mut self) -> Result<TurnView, PipelineError> {
        match self.take_view() {
            Some(view) => Ok(view),
            None => {
                let (known, rows) = (self.known_conversation.take(), self.known_rows.take());
                TurnView::first(self.context, self.turn.conversation_id, known, rows).await
            }
        }
    }

    /// `view`, counted exactly when the bound cannot decide and compressed
    /// first when this turn pushed the context over the threshold between tool steps;
    /// with its estimate.
    async fn view_to_send(
        &mut self,
        mut view: TurnView,
        plan: Option<&str>,
        schemas: &[ToolSchema],
    ) -> Result<(TurnView, ContextEstimate), PipelineError> {
        let context = self.context;
        let conversation_id = self.turn.conversation_id;
        let threshold = context.settings.compression_threshold;
        let mut full = self.estimate_of(&view, plan, schemas);
        if full.ratio() >= threshold && !full.exact {
            // The bound is not enough to decide: count exactly (builds the tokenizer).
            // Storage is read again below: the tool results must be stored first.
            self.settle_results().await?;
            context.with_exact_counts(view.conversation.clone()).await?;
            view = TurnView::load(context, conversation_id).await?;
            full = self.estimate_of(&view, plan, schemas);
        }
        if self.steps_done > 0
            && !self.compressed_in_vain
            && full.ratio() >= threshold
            && context
                .compression_can_help(&view.conversation, Some(self.turn.id), None)
                .await
        {
            // Between tool steps: this turn pushed the context over; compress (the
            // tool results stored first).
            self.settle_results().await?;
            let account = self.account(&view.conversation.user_name);
            let request = CompressionRequest {
                trigger: CompressionTrigger::MidTurn,
                turn_id: Some(self.turn.id),
                focus: None,
                new_message: None,
                account: Some(&account),
            };
            self.compressor
                .compress(context, &view.conversation, request)
                .await?;
            view = TurnView::load(context, conversation_id).await?;
            full = self.estimate_of(&view, plan, schemas);
            // Still above (the warning said so): not tried again in this turn.
            self.compressed_in_vain = full.ratio() >= threshold;
        }
        Ok((view, full))
    }

    /// Where the rows sent start and the request's estimate: if even after compression
    /// the request does not fit, the oldest turns are left out of this one request
    /// (they stay stored and summarizable). Reports the usage.
    fn rows_that_fit(
        &mut self,
        view: &TurnView,
        full: ContextEstimate,
    ) -> (usize, ContextEstimate) {
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
        (start, estimate)
    }

    /// The request of the rows from `start`, with their attachments loaded and the
    /// answer bounded.
    async fn request(
        &mut self,
        view: &TurnView,
        start: usize,
        estimate: ContextEstimate,
        plan: Option<&str>,
        schemas: &std::sync::Arc<[ToolSchema]>,
    ) -> Result<ModelRequest, PipelineError> {
        let context = self.context;
        let (store, sent) = (context.store.as_ref(), carried(&view.rows[start..]));
        load_contents(store, sent, &mut self.attachments, false).await?;
        let mut request = context.assembler.build_request(&PromptInput {
            conversation: &view.conversation,
            rows: &view.rows[start..],
            current_turn: self.turn.id,
            plan,
            tools: schemas,
            thinking: self.turn.thinking_mode,
            attachments: &self.attachments,
            sees_images: context
                .model
                .supports_images(view.conversation.model.as_deref()),
        });
        // Every answer bounded: the model's own limit, within what the prompt leaves.
        let limit = context
            .model
            .max_output_tokens(view.conversation.model.as_deref());
        request.max_tokens = Some(output_bound(limit, estimate.window, estimate.used));
        request.billing = Some(RequestBilling {
            account: self.account(&view.conversation.user_name),
            prompt_tokens: projected_prompt_tokens(estimate.used, estimate.exact),
        });
        Ok(request)
    }

    /// Streams `request` to the model, each delta an event; what was streamed is kept
    /// as the partial answer of a failed or cancelled call.
    async fn stream(&self, request: &ModelRequest) -> StepResult {
        let context = self.context;
        let conversation_id = self.turn.conversation_id;
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
            result = context.model.complete(request, &on_delta) => Some(result),
            () = self.cancel.cancelled() => None,
        };
        let partial = partial.into_inner().unwrap_or_default();
        match result {
            Some(Ok(response)) => StepResult::Response(response),
            Some(Err(error)) => StepResult::Failed(error, partial),
            None => StepResult::Cancelled(partial),
        }
    }
}
