//! `ConversationService`: the public face of the pipeline.

use std::sync::Arc;

use smallebot_core::entities::{BilledTurn, Conversation, HistoryRow, Turn};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::Store;
use tokio_util::sync::CancellationToken;

mod anywhere;
mod attach;
mod export;
mod models;
mod naming;
mod rewrite;
mod session;
pub mod shutdown;
mod start;
mod sweep;

pub use sweep::{SWEEP_EVERY, UPLOAD_SWEEP_TICKS};

pub use session::ServedSessions;
pub use start::TurnHandle;

use super::active::ActiveTurns;
use super::compressor::{CompressionReport, CompressionRequest, Compressor};
use super::context::PipelineContext;
use super::lease::{self, LeaseSettings};
use super::settings::PipelineSettings;
use super::turn::{TurnOutcome, TurnRun};
use crate::error::PipelineError;
use crate::events::{Capacity, CompressionTrigger, EventSubscription, Replay};
use crate::ports::{
    ChatModel, ContextAssembler, ContextEstimate, PeerTurns, Summarizer, TaskPlan, ToolExecutor,
    ToolSchema, WorkspaceChanges,
};

/// Title of a conversation before its first message.
pub const NEW_CONVERSATION_TITLE: &str = "New conversation";

/// Everything the service is built from (the host wires these by hand).
pub struct ServiceParts {
    /// Storage.
    pub store: Arc<dyn Store>,
    /// The chat model.
    pub model: Arc<dyn ChatModel>,
    /// Request building and token counting.
    pub assembler: Arc<dyn ContextAssembler>,
    /// Tools offered to the model.
    pub tools: Arc<dyn ToolExecutor>,
    /// The task list, if task tools are wired.
    pub plan: Option<Arc<dyn TaskPlan>>,
    /// The workspace under checkpoints, compared around the calls that may change it;
    /// `None`: no checkpoints (no workspace, or a sub-agent, whose calls the parent's
    /// `Delegate` call is compared around).
    pub workspace: Option<Arc<dyn WorkspaceChanges>>,
    /// Writes compression summaries.
    pub summarizer: Arc<dyn Summarizer>,
    /// Behaviour.
    pub settings: PipelineSettings,
    /// Who owns the turns this service runs, and how leases are kept.
    pub lease: LeaseSettings,
    /// The event bus, when shared with other services (several users' services in one
    /// server, with a relay to other server processes); `None`: a bus of its own.
    pub events: Option<Arc<crate::events::EventBus>>,
    /// The turns running in this process, when shared with its other services (so a
    /// peer's request to cancel a turn finds it); `None`: a registry of its own.
    pub turns: Option<Arc<ActiveTurns>>,
    /// The other processes on the same database, asked to cancel a turn one of them
    /// runs ([`ConversationService::cancel_anywhere`]); `None`: this process only.
    pub peers: Option<Arc<dyn PeerTurns>>,
    /// The hooks run at a turn's points (`UserPromptSubmit`, `Stop`, `SubagentStop`,
    /// `PreCompact`); `None`: no hooks.
    pub hooks: Option<Arc<dyn crate::ports::Hooks>>,
}

/// Runs conversations: sends, edits, regenerations, compression, cancellation,
/// events. It only orchestrates: a turn runs in `TurnRun` and a compression in the
/// `Compressor`, both given the `PipelineContext` they need.
pub struct ConversationService {
    context: PipelineContext,
    compressor: Compressor,
    active: Arc<ActiveTurns>,
    lease: LeaseSettings,
    peers: Option<Arc<dyn PeerTurns>>,
}

impl ConversationService {
    /// Builds the service.
    #[must_use]
    pub fn new(parts: ServiceParts) -> Self {
        let compressor = Compressor::new(
            parts.summarizer,
            parts.settings.keep_recent_turns,
            parts.settings.compression_timeout,
        );
        let active = parts.turns.unwrap_or_default();
        Self {
            context: PipelineContext {
                store: parts.store,
                model: parts.model,
                assembler: parts.assembler,
                tools: parts.tools,
                plan: parts.plan,
                workspace: parts.workspace,
                hooks: parts.hooks,
                settings: parts.settings,
                events: parts.events.unwrap_or_default(),
                warned_full: std::sync::Mutex::default(),
                warned_server: std::sync::Mutex::default(),
                noticed: std::sync::Mutex::default(),
                stopping: active.stopping().clone(),
                session_context: std::sync::Mutex::default(),
            },
            compressor,
            active,
            lease: parts.lease,
            peers: parts.peers,
        }
    }

    /// Follows one conversation: every event it emits from now on, numbered by `seq`.
    pub fn subscribe(&self, conversation_id: ConversationId) -> EventSubscription {
        self.context.events.subscribe(conversation_id)
    }

    /// Lets `observer` (the process's metrics) see every event this service's bus
    /// emits from now on; services sharing one bus share its first observer (see
    /// [`EventBus::observe_with`](crate::events::EventBus::observe_with)).
    pub fn observe_events(&self, observer: Arc<dyn crate::events::EventObserver>) -> bool {
        self.context.events.observe_with(observer)
    }

    /// Follows one conversation, first replaying the kept events `replay` asks for,
    /// with a bounded or unbounded queue (remote readers: bounded, so one that stops
    /// reading is dropped instead of growing memory).
    pub fn subscribe_with(
        &self,
        conversation_id: ConversationId,
        replay: Replay,
        capacity: Capacity,
    ) -> EventSubscription {
        self.context
            .events
            .subscribe_with(conversation_id, replay, capacity)
    }

    /// The settings in use.
    #[must_use]
    pub fn settings(&self) -> &PipelineSettings {
        &self.context.settings
    }

    /// The store (for reads such as listing and showing conversations).
    #[must_use]
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.context.store
    }

    /// The tools offered to the model, as the model sees them.
    #[must_use]
    pub fn tools(&self) -> std::sync::Arc<[ToolSchema]> {
        self.context.tools.schemas()
    }

    /// The conversations' task lists, when task tools are wired.
    #[must_use]
    pub fn plan(&self) -> Option<&Arc<dyn TaskPlan>> {
        self.context.plan.as_ref()
    }

    /// Marks turns left `running` by a previous process `interrupted` (call at start).
    ///
    /// # Errors
    /// Storage failures.
    pub async fn recover_interrupted_turns(&self) -> Result<u64, PipelineError> {
        lease::recover(self.context.store.as_ref(), &self.lease).await
    }

    /// Creates an empty conversation for `user_name`.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn create_conversation(
        &self,
        user_name: &str,
    ) -> Result<Conversation, PipelineError> {
        Ok(self
            .context
            .store
            .create_conversation(user_name, NEW_CONVERSATION_TITLE)
            .await?)
    }

    /// Deletes a conversation (refused while a turn runs) and its task list.
    ///
    /// # Errors
    /// Busy, not found, storage failures.
    pub async fn delete_conversation(
        &self,
        conversation_id: ConversationId,
    ) -> Result<(), PipelineError> {
        let _guard = self.active.begin(conversation_id, None)?;
        lease::ensure_idle(self.context.store.as_ref(), &self.lease, conversation_id).await?;
        if !self
            .context
            .store
            .delete_conversation(conversation_id)
            .await?
        {
            return Err(PipelineError::ConversationNotFound(conversation_id));
        }
        if let Some(plan) = &self.context.plan {
            plan.conversation_deleted(conversation_id).await;
        }
        Ok(())
    }

    /// Cancels the running turn of a conversation in this process; false when none
    /// runs here ([`Self::cancel_anywhere`] also reaches other processes).
    pub fn cancel(&self, conversation_id: ConversationId) -> bool {
        self.active.cancel(conversation_id)
    }

    /// Whether a turn runs in the conversation in this process
    /// ([`Self::is_busy_anywhere`] also sees other processes' turns).
    #[must_use]
    pub fn is_busy(&self, conversation_id: ConversationId) -> bool {
        self.active.is_busy(conversation_id)
    }

    /// How full the context window would be for the next message (stored counts +
    /// system prompt + tool schemas), counted exactly: builds the tokenizer and
    /// recounts provisional rows first if needed.
    ///
    /// # Errors
    /// Unknown conversation, storage failures.
    pub async fn context_estimate(
        &self,
        conversation_id: ConversationId,
    ) -> Result<ContextEstimate, PipelineError> {
        let conversation = self.context.conversation(conversation_id).await?;
        let conversation = self.context.with_exact_counts(conversation).await?;
        Ok(self.context.estimate_fresh(&conversation, None).await)
    }

    /// Compresses on request (`/compact [focus]`, `smallebot compact ID`). Refused while
    /// a turn runs; says so when there is nothing to summarize.
    ///
    /// # Errors
    /// Busy, unknown conversation, storage failures.
    pub async fn compact(
        &self,
        conversation_id: ConversationId,
        focus: Option<&str>,
    ) -> Result<CompressionReport, PipelineError> {
        let _guard = self.active.begin(conversation_id, None)?;
        lease::ensure_idle(self.context.store.as_ref(), &self.lease, conversation_id).await?;
        let conversation = self.context.conversation(conversation_id).await?;
        let request = CompressionRequest {
            trigger: CompressionTrigger::Manual,
            turn_id: None,
            focus,
            account: None,
            new_message: None,
        };
        self.compressor
            .compress(&self.context, &conversation, request)
            .await
    }

    /// Runs a started turn. `counts_exact`: whether every token count of the turn is
    /// exact (the tokenizer was ready before its first count); if not, the turn's rows
    /// are marked provisional, and recounted at its end if the tokenizer is ready by
    /// then (never waited for: a one-shot `run` exits without it). The turn's last
    /// event (completed, cancelled or failed) comes after that recount, so the
    /// conversation is free once it is heard. `known_rows`: the rows of
    /// `known_conversation`'s context as the turn's start left them, when the store gave
    /// them back.
    pub(super) async fn run_turn(
        &self,
        turn: Turn,
        cancel: CancellationToken,
        (mut known_conversation, known_rows): (Option<Conversation>, Option<Vec<HistoryRow>>),
        counts_exact: bool,
        billed_to: Option<BilledTurn>,
    ) -> Result<TurnOutcome, PipelineError> {
        let store = self.context.store.as_ref();
        let conversation_id = turn.conversation_id;
        if !counts_exact {
            store
                .mark_counts_provisional(conversation_id, turn.seq)
                .await?;
            if let Some(known) = known_conversation.as_mut() {
                let from = known
                    .provisional_counts_from
                    .map_or(turn.seq, |f| f.min(turn.seq));
                known.provisional_counts_from = Some(from);
            }
        }
        let heartbeat = lease::keep_alive(store, turn.id, self.lease.heartbeat_every);
        let run = TurnRun::new(
            &self.context,
            &self.compressor,
            turn,
            cancel,
            known_conversation,
            known_rows,
            billed_to,
        )
        .run();
        let outcome = tokio::select! {
            outcome = run => outcome,
            never = heartbeat => match never {},
        }?;
        // Counts are settled before the end is announced: whoever hears it may send the
        // next message at once and must find the conversation free.
        let settled = async {
            if !counts_exact && self.context.assembler.exact_counts_ready() {
                let conversation = self.context.conversation(conversation_id).await?;
                self.context.settle_counts_if_ready(conversation).await?;
            }
            Ok::<(), PipelineError>(())
        }
        .await;
        // The turn's span says how it ended (metrics count turns by model and outcome).
        tracing::Span::current().record("outcome", outcome.end_word());
        self.context
            .emit(conversation_id, Some(outcome.turn_id), outcome.end_event());
        settled?;
        Ok(outcome)
    }
}
