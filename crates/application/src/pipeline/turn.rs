//! One turn: the tool loop, persisted as it happens.

use std::sync::{Arc, Mutex};

use std::sync::atomic::{AtomicU32, Ordering};

use smallebot_core::entities::{
    AnswerCut, BilledTurn, Conversation, HistoryRow, Turn, TurnStatus, UsageAccount,
};
use smallebot_core::ids::TurnId;
use tokio_util::sync::CancellationToken;

use super::compressor::{CompressionRequest, Compressor};
use super::context::PipelineContext;
use super::tool_ids::ToolCallIds;
use super::view::TurnView;
use crate::error::PipelineError;
use crate::events::{CompressionTrigger, EventKind};
use crate::ports::{
    AttachmentContents, CallRequester, ContextEstimate, LoadedTools, ModelError, ModelErrorKind,
    ModelResponse, ModelUsage, TurnUserRules,
};

/// A tool result being written: the stored call once done.
pub(super) type PendingResult = tokio::task::JoinHandle<
    smallebot_core::repository::RepoResult<smallebot_core::entities::ToolCall>,
>;

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
    /// Set when a limit cut the answer (kept as far as it came).
    pub cut: Option<AnswerCut>,
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
    /// A compression of this turn left the context at or above the threshold: the turn
    /// does not compress again between its steps (each attempt may cost a slow model
    /// call that cannot help).
    pub(super) compressed_in_vain: bool,
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
    /// The turn a sub-agent's requests are billed to (`None`: this turn's own).
    pub(super) billed_to: Option<BilledTurn>,
    /// Model requests made so far (steps and summaries), for their records' numbers.
    pub(super) requests: AtomicU32,
    /// The tools this turn's searches loaded: offered from the step after the search
    /// to the turn's end.
    pub(super) loaded_tools: LoadedTools,
    /// How many times `Stop` hooks made this turn go on.
    pub(super) stop_continuations: u32,
    /// The own permission rules of the conversation's user, read when the turn starts
    /// (`None`: they have none); its tool calls are decided with them.
    pub(super) user_rules: Option<Arc<TurnUserRules>>,
}

pub(super) enum StepResult {
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
        billed_to: Option<BilledTurn>,
    ) -> Self {
        Self {
            context,
            compressor,
            turn,
            cancel,
            call_ids: ToolCallIds::default(),
            last_estimate: None,
            steps_done: 0,
            compressed_in_vain: false,
            view: Mutex::new(None),
            known_conversation,
            known_rows,
            pending_results: Mutex::new(Vec::new()),
            attachments: AttachmentContents::new(),
            billed_to,
            requests: AtomicU32::new(0),
            loaded_tools: LoadedTools::default(),
            stop_continuations: 0,
            user_rules: None,
        }
    }

    /// The turn this turn's requests (and those of sub-agents it starts) are billed
    /// to: the root turn inside a sub-agent, else itself.
    pub(super) fn billed_turn(&self) -> BilledTurn {
        self.billed_to.unwrap_or(BilledTurn {
            conversation_id: self.turn.conversation_id,
            turn_id: self.turn.id,
        })
    }

    /// The account of this turn's next model request, made for `user_name`.
    pub(super) fn account(&self, user_name: &str) -> UsageAccount {
        let root = self.billed_turn();
        let own = self.turn.conversation_id;
        UsageAccount {
            user_name: user_name.to_owned(),
            conversation_id: root.conversation_id,
            turn_id: Some(root.turn_id),
            sub_conversation_id: (root.conversation_id != own).then_some(own),
            step: self.requests.fetch_add(1, Ordering::Relaxed) + 1,
        }
    }

    /// Sends an event of this turn.
    pub(super) fn emit(&self, kind: EventKind) {
        self.context
            .emit(self.turn.conversation_id, Some(self.turn.id), kind);
    }

    /// Compresses the conversation for this turn.
    pub(super) async fn compress(&self, trigger: CompressionTrigger) -> Result<(), PipelineError> {
        self.settle_results().await?;
        let conversation = self.context.conversation(self.turn.conversation_id).await?;
        let account = self.account(&conversation.user_name);
        let request = CompressionRequest {
            trigger,
            turn_id: Some(self.turn.id),
            focus: None,
            new_message: None,
            account: Some(&account),
        };
        self.compressor
            .compress(self.context, &conversation, request)
            .await?;
        Ok(())
    }

    /// How full the window is for the request of this step (and, once the response
    /// came, what the provider counted for it).
    /// `reported`: the provider's prompt tokens and how many of them came from its
    /// prompt cache.
    pub(super) fn emit_usage(&self, estimate: ContextEstimate, reported: Option<ModelUsage>) {
        self.emit(EventKind::ContextUsage {
            used: estimate.used,
            window: estimate.window,
            ratio: estimate.ratio(),
            exact: estimate.exact,
            reported: reported.map(|u| u.prompt_tokens),
            cached: reported.and_then(|u| u.cached_tokens),
        });
    }

    /// Reads the own permission rules of the conversation's user (a change applies
    /// from the next turn). A store that cannot be read fails the turn: no call may run
    /// without the rules that might refuse it.
    async fn read_user_rules(&mut self) -> Result<(), PipelineError> {
        let user = match &self.known_conversation {
            Some(conversation) => conversation.user_name.clone(),
            None => {
                self.context
                    .conversation(self.turn.conversation_id)
                    .await?
                    .user_name
            }
        };
        let rules = self.context.store.user_rules(&user).await?;
        self.user_rules = (!rules.is_empty()).then(|| Arc::new(TurnUserRules { user, rules }));
        Ok(())
    }

    /// The conversation's user and model as this turn last saw them (`None` before the
    /// view is loaded).
    pub(super) fn requester(&self) -> Option<CallRequester> {
        let slot = self.view.lock().ok()?;
        let conversation = &slot.as_ref()?.conversation;
        Some(CallRequester {
            user_name: conversation.user_name.clone(),
            model: conversation.model.clone(),
        })
    }

    pub(super) fn take_view(&self) -> Option<TurnView> {
        self.view.lock().ok().and_then(|mut v| v.take())
    }

    pub(super) fn put_view(&self, view: TurnView) {
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
        self.read_user_rules().await?;
        let max_steps = context.settings.max_tool_steps.max(1);
        let mut overflow_retried = false;
        while self.steps_done < max_steps {
            if self.cancel.is_cancelled() {
                return self
                    .finish(TurnStatus::Cancelled, String::new(), None)
                    .await;
            }
            let response = match self.model_step().await? {
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
                self.emit_usage(estimate, Some(usage));
            }
            if response.tool_calls.is_empty() || response.cut.is_some() {
                if response.cut.is_none() && self.stop_hooks_go_on(&response).await? {
                    continue;
                }
                return self.complete(response).await;
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
            self.run_tools(invocations).await?;
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
}
