//! Sending a message: [`ConversationService::start`] stores the turn and its message and
//! hands back a [`TurnHandle`]; [`ConversationService::send`] also waits for its end.

use std::future::Future;
use std::sync::Arc;

use smallebot_core::entities::{
    Attachment, BilledTurn, Conversation, FirstTurnTitle, HistoryRow, NewTurn, Role, StartedTurn,
    Turn,
};
use smallebot_core::ids::{ConversationId, TurnId};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tracing::Instrument;

use super::{ConversationService, NEW_CONVERSATION_TITLE};
use crate::error::PipelineError;
use crate::events::{CompressionTrigger, EventKind, EventSubscription};
use crate::pipeline::active::ActiveGuard;
use crate::pipeline::attachments::{attachments_tokens, load_contents};
use crate::pipeline::compressor::CompressionRequest;
use crate::pipeline::lease;
use crate::pipeline::settings::SendOptions;
use crate::pipeline::title::fallback_title;
use crate::pipeline::turn::TurnOutcome;
use crate::ports::{AttachmentContents, ContextEstimate};

/// A started turn: its message and the turn are stored, the model is being asked.
#[derive(Debug)]
pub struct TurnHandle {
    /// The turn's id.
    pub turn_id: TurnId,
    /// The conversation's events from before the turn started: the turn's whole event
    /// sequence, from `TurnStarted` (or a compression before it) to its end.
    pub events: EventSubscription,
    /// The turn's end: its outcome, or a storage failure while it ran. Dropping it
    /// leaves the turn running.
    pub end: JoinHandle<Result<TurnOutcome, PipelineError>>,
    /// The model's title for a new conversation, asked for beside its first turn when
    /// [`SendOptions::title`] said so; `None` otherwise. Dropping it leaves it running;
    /// abort it to give it up (the conversation keeps its fallback title).
    pub title: Option<JoinHandle<Result<Option<String>, PipelineError>>>,
}

/// A turn stored and ready to run (a send's, an edit's or a regeneration's).
pub(super) struct Stored {
    pub(super) turn: Turn,
    pub(super) guard: ActiveGuard,
    /// The conversation as read before the turn, unless a compression changed it.
    pub(super) known: Option<Conversation>,
    /// The rows in its context after its boundary as the turn's start left them, when
    /// the store gave them back with the start (and `known` is set).
    pub(super) rows: Option<Vec<HistoryRow>>,
    pub(super) counts_exact: bool,
    /// Whether this turn gave a new conversation its fallback title.
    pub(super) titled: bool,
    /// The turn its requests are billed to, when not its own (a sub-agent's).
    pub(super) billed_to: Option<BilledTurn>,
}

impl Stored {
    /// An edited or regenerated turn: the conversation is read again when it runs, and
    /// it never titles.
    pub(super) fn rewritten(turn: Turn, guard: ActiveGuard, counts_exact: bool) -> Self {
        Self {
            turn,
            guard,
            known: None,
            rows: None,
            counts_exact,
            titled: false,
            billed_to: None,
        }
    }
}

impl ConversationService {
    /// Sends a user message and returns once the turn and the message are stored, with
    /// the turn's id, its events and its end. The turn is stored and run in a task of
    /// its own: dropping this future or the handle never stops it.
    /// Beside a new conversation's first turn the model is asked for a title when
    /// `options.title` says so. Model failures end the turn as failed (see the
    /// outcome), not as an error.
    ///
    /// # Errors
    /// Before anything is stored: busy, empty message, unknown conversation, shutting
    /// down, storage failures.
    pub async fn start(
        self: &Arc<Self>,
        conversation_id: ConversationId,
        text: &str,
        options: SendOptions,
    ) -> Result<TurnHandle, PipelineError> {
        let text = text.to_owned();
        let wants_title = options.title;
        self.start_with(conversation_id, wants_title, move |service| async move {
            let stored = service.store_turn(conversation_id, &text, options).await?;
            tracing::Span::current().record("turn_id", tracing::field::display(stored.turn.id));
            // The message itself only where the operator asked for content in logs
            // (the host drops events with a `content` field otherwise).
            tracing::info!(content = %text, "user message");
            Ok(stored)
        })
        .await
    }

    /// Stores a turn with `store` in a task of its own, and returns once it is stored
    /// with its handle; the turn then runs on in that task. A new conversation's title
    /// is asked for beside it when `wants_title` and the turn gave the fallback title.
    pub(super) async fn start_with<F, Fut>(
        self: &Arc<Self>,
        conversation_id: ConversationId,
        wants_title: bool,
        store: F,
    ) -> Result<TurnHandle, PipelineError>
    where
        F: FnOnce(Arc<Self>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Stored, PipelineError>> + Send,
    {
        let events = self.subscribe(conversation_id);
        // Stored and run in a task of its own, so a caller that stops waiting (an
        // HTTP client gone) never leaves a stored turn without its runner.
        let (stored_tx, stored_rx) = oneshot::channel();
        let service = Arc::clone(self);
        // Everything the turn does is logged under its conversation and turn ids (and
        // under the caller's span, an HTTP request's id for one).
        let span = turn_span(conversation_id);
        let end = tokio::spawn(
            async move {
                let stored = store(Arc::clone(&service)).await?;
                tracing::Span::current().record("turn_id", tracing::field::display(stored.turn.id));
                tracing::info!("turn started");
                // Told when the turn's requests are done (dropped with the task otherwise).
                let (turn_done, done) = oneshot::channel::<()>();
                let title = (wants_title && stored.titled).then(|| {
                    let titler = Arc::clone(&service);
                    tokio::spawn(
                        async move {
                            let title = titler.generate_title_beside(conversation_id, done).await;
                            if let Err(err) = &title {
                                // The title is a nicety: a failure leaves the fallback title.
                                tracing::warn!(%err, "generating a title failed");
                            }
                            title
                        }
                        .in_current_span(),
                    )
                });
                // Nobody waiting: the turn runs on all the same.
                let _ = stored_tx.send((stored.turn.id, title));
                let outcome = service.run_stored(stored).await;
                let _ = turn_done.send(());
                log_end(&outcome);
                outcome
            }
            .instrument(span),
        );
        match stored_rx.await {
            Ok((turn_id, title)) => Ok(TurnHandle {
                turn_id,
                events,
                end,
                title,
            }),
            // Not stored: the task ended with the reason.
            Err(_) => match end.await {
                Ok(Err(error)) => Err(error),
                Err(join) if join.is_panic() => std::panic::resume_unwind(join.into_panic()),
                // Cancelled with the runtime (or, never, ended without storing).
                Ok(Ok(_)) | Err(_) => Err(PipelineError::ShuttingDown),
            },
        }
    }

    /// Runs a stored turn to its end; the conversation is free again once it returns.
    pub(super) async fn run_stored(&self, stored: Stored) -> Result<TurnOutcome, PipelineError> {
        let Stored {
            turn,
            guard,
            known,
            rows,
            counts_exact,
            billed_to,
            ..
        } = stored;
        let outcome = self
            .run_turn(
                turn,
                guard.cancel_token().clone(),
                (known, rows),
                counts_exact,
                billed_to,
            )
            .await;
        drop(guard);
        outcome
    }

    /// Sends a user message and runs the turn to its end. The turn and the message are
    /// stored before the model is called. Model failures end the turn as failed (see
    /// the outcome), not as an error of this call. It never asks for a title.
    ///
    /// # Errors
    /// Busy, empty message, unknown conversation, storage failures.
    pub async fn send(
        &self,
        conversation_id: ConversationId,
        text: &str,
        options: SendOptions,
    ) -> Result<TurnOutcome, PipelineError> {
        async move {
            let stored = self.store_turn(conversation_id, text, options).await?;
            tracing::Span::current().record("turn_id", tracing::field::display(stored.turn.id));
            self.run_stored(stored).await
        }
        .instrument(turn_span(conversation_id))
        .await
    }

    /// Marks the conversation busy, compresses first if the new message needs room,
    /// and stores the turn with its message (a new conversation's fallback title in
    /// the same write).
    async fn store_turn(
        &self,
        conversation_id: ConversationId,
        text: &str,
        options: SendOptions,
    ) -> Result<Stored, PipelineError> {
        if text.trim().is_empty() && options.attachments.is_empty() {
            return Err(PipelineError::EmptyMessage);
        }
        let context = &self.context;
        // The person's prompt passes the UserPromptSubmit hooks first (a sub-agent's,
        // written by the model, does not): a blocked prompt stores nothing.
        let submitted = match options.billed_to {
            None => context.submitted_prompt(conversation_id, text).await?,
            Some(_) => text.to_owned(),
        };
        let text = submitted.as_str();
        let guard = self.active.begin(conversation_id, options.cancel)?;
        let conversation = context.conversation(conversation_id).await?;
        // Refused before anything is stored: unknown, sent or too large files, or an
        // image for a model that cannot see it.
        let attached = self
            .sendable_attachments(&conversation, &options.attachments)
            .await?;
        let mut contents = AttachmentContents::new();
        load_contents(context.store.as_ref(), attached.iter(), &mut contents, true).await?;
        let conversation = context.settle_counts_if_ready(conversation).await?;
        // What the server serves is known before anything is counted against its window.
        context.check_server(&conversation).await;
        let (conversation, compress) = self
            .make_room(conversation, text, &attached, &contents)
            .await?;
        // Read before counting: if ready now, every count of this turn is exact.
        let counts_exact = context.assembler.exact_counts_ready();
        let tokens = context.assembler.message_tokens(Role::User, text)
            + attachments_tokens(context.assembler.as_ref(), &attached, &contents);
        let attachment_ids: Vec<_> = attached.iter().map(|a| a.id).collect();
        let owner = &self.lease.owner;
        // A new conversation's first turn gives it the fallback title, in the same write.
        let fallback = (conversation.title == NEW_CONVERSATION_TITLE).then(|| {
            match attached.first().filter(|_| text.trim().is_empty()) {
                Some(first) => fallback_title(&first.name),
                None => fallback_title(text),
            }
        });
        let new_turn = NewTurn {
            conversation_id,
            thinking_mode: options.thinking,
            content: text,
            attachments: &attachment_ids,
            token_count: tokens,
            owner,
            title: fallback.as_deref().map(|title| FirstTurnTitle {
                untitled: NEW_CONVERSATION_TITLE,
                title,
            }),
            boundary: conversation.history_boundary(),
        };
        let started = lease::claim(context.store.as_ref(), &self.lease, || {
            context.store.start_turn_in_context(&new_turn)
        })
        .await?;
        let StartedTurn {
            turn, titled, rows, ..
        } = started;
        if let (true, Some(title)) = (titled, fallback) {
            context.emit(conversation_id, None, EventKind::TitleChanged { title });
        }
        // Unless a compression changed it, the conversation read above is current, and
        // so are the rows the store gave back after its boundary.
        let known = (!compress).then_some(conversation);
        let rows = rows.filter(|_| !compress);
        Ok(Stored {
            turn,
            guard,
            known,
            rows,
            counts_exact,
            titled,
            billed_to: options.billed_to,
        })
    }

    /// Compresses first when the new message (with its attachments) takes the
    /// context over the threshold and a summary can help; the conversation as it is
    /// then, and whether it was compressed.
    async fn make_room(
        &self,
        mut conversation: Conversation,
        text: &str,
        attached: &[Attachment],
        contents: &AttachmentContents,
    ) -> Result<(Conversation, bool), PipelineError> {
        let context = &self.context;
        let conversation_id = conversation.id;
        // The attachments count in the estimate as the message does.
        let with_attached = |mut estimate: ContextEstimate| {
            let extra = attachments_tokens(context.assembler.as_ref(), attached, contents);
            estimate.used = estimate
                .used
                .saturating_add(u64::try_from(extra).unwrap_or(0));
            estimate
        };
        let mut estimate = with_attached(context.estimate_fresh(&conversation, Some(text)).await);
        if estimate.ratio() >= context.settings.compression_threshold && !estimate.exact {
            // The bound is not enough to decide: count exactly (builds the tokenizer).
            conversation = context.with_exact_counts(conversation).await?;
            estimate = with_attached(context.estimate_fresh(&conversation, Some(text)).await);
        }
        let compress = estimate.ratio() >= context.settings.compression_threshold
            && context
                .compression_can_help(&conversation, None, Some(text))
                .await;
        if compress {
            // Never summarize under another process's running turn. (Without a
            // compression, starting the turn makes the same check.)
            lease::ensure_idle(context.store.as_ref(), &self.lease, conversation_id).await?;
            let request = CompressionRequest {
                trigger: CompressionTrigger::BeforeTurn,
                turn_id: None,
                focus: None,
                account: None,
                new_message: Some(text),
            };
            self.compressor
                .compress(context, &conversation, request)
                .await?;
        }
        Ok((conversation, compress))
    }
}

/// Logs a turn's end: its status (and error) always, its answer only as `content`.
fn log_end(outcome: &Result<TurnOutcome, PipelineError>) {
    match outcome {
        Ok(outcome) => {
            // The answer first: whoever waits for the end finds it logged already.
            tracing::info!(content = %outcome.text, "answer");
            tracing::info!(status = ?outcome.status, error = outcome.error.as_deref(), "turn ended");
        }
        Err(error) => tracing::warn!(%error, "turn ended with a storage failure"),
    }
}

/// The span a turn of `conversation_id` runs in (its turn id recorded once stored):
/// everything the turn logs carries both ids, and a trace shows the turn with its model
/// requests and tool calls under it.
fn turn_span(conversation_id: ConversationId) -> tracing::Span {
    tracing::info_span!(
        "turn",
        %conversation_id,
        turn_id = tracing::field::Empty,
        outcome = tracing::field::Empty
    )
}
