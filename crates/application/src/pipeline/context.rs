//! [`PipelineContext`]: what a turn and a compression need, as one explicit value.
//!
//! The service owns it; a running turn and the compressor borrow it. Nothing in it
//! refers back to the service, so the pipeline's modules form no cycle:
//! `service → {turn, compressor} → context`.

use std::collections::HashSet;
use std::sync::Arc;

use smallebot_core::entities::{Conversation, HistoryRow, Seq};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::Store;

use super::attachments;
use super::settings::PipelineSettings;
use crate::error::PipelineError;
use crate::events::{EventBus, EventKind};
use crate::ports::{
    AttachmentContents, ChatModel, ContextAssembler, ContextEstimate, TaskPlan, ToolExecutor,
    WorkspaceChanges,
};

/// `estimate` over the stored counts of `conversation`: exact only if those are.
pub(crate) fn with_stored_exactness(
    mut estimate: ContextEstimate,
    conversation: &Conversation,
) -> ContextEstimate {
    estimate.exact &= conversation.provisional_counts_from.is_none();
    estimate
}

/// `(seq, tokens)` for every row of `rows` whose stored count differs from its count
/// now (think blocks count nothing and are skipped). `contents` holds the text
/// attachments' contents (a message counts its attachments too).
fn exact_counts(
    assembler: &dyn ContextAssembler,
    rows: &[HistoryRow],
    contents: &AttachmentContents,
) -> Vec<(Seq, i64)> {
    rows.iter()
        .filter_map(|row| {
            let now = match row {
                HistoryRow::Message(m) => attachments::message_tokens(assembler, m, contents),
                HistoryRow::ToolCall(c) => {
                    assembler.tool_call_tokens(&c.tool_name, &c.arguments, c.result.as_deref())
                }
                HistoryRow::ThinkBlock(_) => return None,
            };
            (now != row.token_count()).then_some((row.seq(), now))
        })
        .collect()
}

/// The ports, settings and event bus of the pipeline.
pub(crate) struct PipelineContext {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) model: Arc<dyn ChatModel>,
    pub(crate) assembler: Arc<dyn ContextAssembler>,
    pub(crate) tools: Arc<dyn ToolExecutor>,
    pub(crate) plan: Option<Arc<dyn TaskPlan>>,
    /// The workspace under checkpoints (see `ServiceParts::workspace`).
    pub(crate) workspace: Option<Arc<dyn WorkspaceChanges>>,
    /// The hooks (see `ServiceParts::hooks`).
    pub(crate) hooks: Option<Arc<dyn crate::ports::Hooks>>,
    pub(crate) settings: PipelineSettings,
    pub(crate) events: std::sync::Arc<EventBus>,
    /// Conversations already warned that compression cannot help them.
    pub(crate) warned_full: std::sync::Mutex<HashSet<ConversationId>>,
    /// Conversations told what their model's server warned about (once each).
    pub(crate) warned_server: std::sync::Mutex<HashSet<ConversationId>>,
    /// Conversations already told the settings' notices.
    pub(crate) noticed: std::sync::Mutex<HashSet<ConversationId>>,
    /// Cancelled when the service stops its turns because the process is stopping.
    pub(crate) stopping: tokio_util::sync::CancellationToken,
    /// What the `SessionStart` hooks of a conversation added, waiting for its next
    /// prompt (taken by `submitted_prompt`).
    pub(crate) session_context: std::sync::Mutex<std::collections::HashMap<ConversationId, String>>,
}

impl PipelineContext {
    /// The stored conversation, or `ConversationNotFound`.
    pub(crate) async fn conversation(
        &self,
        id: ConversationId,
    ) -> Result<Conversation, PipelineError> {
        self.store
            .get_conversation(id)
            .await?
            .ok_or(PipelineError::ConversationNotFound(id))
    }

    /// The plan as displayed, if the conversation has one.
    pub(crate) async fn plan_text(&self, conversation_id: ConversationId) -> Option<String> {
        match &self.plan {
            Some(plan) => plan.plan_text(conversation_id).await,
            None => None,
        }
    }

    /// The estimate for the next request of `conversation` as stored now (stored counts
    /// after its boundary, system prompt, plan, tool schemas), plus `new_message`.
    pub(crate) async fn estimate(
        &self,
        conversation: &Conversation,
        new_message: Option<&str>,
    ) -> Result<ContextEstimate, PipelineError> {
        let stored = self
            .store
            .token_sum_after(conversation.id, conversation.history_boundary())
            .await?;
        Ok(self.estimate_with(conversation, stored, new_message).await)
    }

    /// [`estimate`](Self::estimate) for a conversation just read from storage: its
    /// running total (`context_tokens`) is the stored count, so no further read.
    pub(crate) async fn estimate_fresh(
        &self,
        conversation: &Conversation,
        new_message: Option<&str>,
    ) -> ContextEstimate {
        self.estimate_with(conversation, conversation.context_tokens, new_message)
            .await
    }

    async fn estimate_with(
        &self,
        conversation: &Conversation,
        stored: i64,
        new_message: Option<&str>,
    ) -> ContextEstimate {
        let plan = self.plan_text(conversation.id).await;
        let estimate = self.assembler.estimate(
            conversation,
            stored,
            plan.as_deref(),
            &self.offered_tools(conversation, &[]),
            new_message,
        );
        with_stored_exactness(estimate, conversation)
    }

    /// `conversation` with exact stored token counts: builds the tokenizer if needed
    /// (off the executor) and recounts the rows whose counts are provisional, storing
    /// the exact counts. Returns the conversation as stored afterwards (itself when
    /// nothing was provisional). Estimates made after it are exact.
    pub(crate) async fn with_exact_counts(
        &self,
        conversation: Conversation,
    ) -> Result<Conversation, PipelineError> {
        if !self.assembler.exact_counts_ready() {
            let assembler = Arc::clone(&self.assembler);
            // A panic while building is not ours to surface: counts stay bounds, and
            // the estimate keeps saying so.
            let _built = tokio::task::spawn_blocking(move || assembler.prepare_exact_counts())
                .await
                .is_ok();
        }
        let Some(from) = conversation.provisional_counts_from else {
            return Ok(conversation);
        };
        let after = from.saturating_sub(1);
        let rows = self.store.rows_after(conversation.id, after).await?;
        let mut contents = AttachmentContents::new();
        let carried = attachments::carried(&rows);
        attachments::load_contents(self.store.as_ref(), carried, &mut contents, true).await?;
        let counts = exact_counts(self.assembler.as_ref(), &rows, &contents);
        let through = rows.iter().map(HistoryRow::seq).max().unwrap_or(after);
        self.store
            .set_exact_counts(conversation.id, &counts, through)
            .await?;
        self.conversation(conversation.id).await
    }

    /// Recounts the provisional counts of `conversation` if that costs no wait (the
    /// tokenizer is ready); otherwise leaves them for later.
    pub(crate) async fn settle_counts_if_ready(
        &self,
        conversation: Conversation,
    ) -> Result<Conversation, PipelineError> {
        if conversation.provisional_counts_from.is_some() && self.assembler.exact_counts_ready() {
            self.with_exact_counts(conversation).await
        } else {
            Ok(conversation)
        }
    }

    /// Whether compressing `conversation` could bring a request under the threshold:
    /// not when the part of every request that compression cannot shrink (system
    /// prompt, tool definitions, plan, `new_message`) reaches it alone. Then the person
    /// is warned once (per conversation and process) and `false` returned.
    pub(crate) async fn compression_can_help(
        &self,
        conversation: &Conversation,
        turn_id: Option<TurnId>,
        new_message: Option<&str>,
    ) -> bool {
        let fixed = self.estimate_with(conversation, 0, new_message).await;
        let threshold = self.settings.compression_threshold;
        if fixed.ratio() < threshold {
            return true;
        }
        if new_message.is_some()
            && self.estimate_with(conversation, 0, None).await.ratio() < threshold
        {
            // The new message itself fills the window: no summary makes room for it,
            // and the turn says so (refused when it cannot fit at all), not this warning.
            return false;
        }
        let first = self
            .warned_full
            .lock()
            .map(|mut warned| warned.insert(conversation.id))
            .unwrap_or(false);
        if first {
            let message = format!(
                "the part of every request that compression cannot shrink (system prompt, \
                 tool definitions, plan) is {} tokens, {:.0}% of the model's {}-token context \
                 window (compression starts at {:.0}%), so compressing the history cannot \
                 help and is not tried. Use a model with a larger contextWindow, or offer \
                 fewer tools.",
                fixed.used,
                fixed.ratio() * 100.0,
                fixed.window,
                threshold * 100.0
            );
            self.emit(conversation.id, turn_id, EventKind::Warning { message });
        }
        false
    }

    /// Asks the server of `conversation`'s model what it serves (the first time only;
    /// see [`ChatModel::check_server`]) before the turn's estimate, and passes on its
    /// warning once per conversation.
    pub(crate) async fn check_server(&self, conversation: &Conversation) {
        let Some(check) = self.model.check_server(conversation.model.as_deref()).await else {
            return;
        };
        let Some(message) = check.warning else { return };
        let first = self
            .warned_server
            .lock()
            .map(|mut warned| warned.insert(conversation.id))
            .unwrap_or(false);
        if first {
            self.emit(conversation.id, None, EventKind::Warning { message });
        }
    }

    /// The settings' notices as `Warning` events of `turn`, once per conversation.
    pub(crate) fn tell_notices(&self, conversation: ConversationId, turn: TurnId) {
        let notices = &self.settings.notices;
        if notices.is_empty() {
            return;
        }
        let first = self
            .noticed
            .lock()
            .map(|mut told| told.insert(conversation))
            .unwrap_or(false);
        if first {
            for message in notices {
                let kind = EventKind::Warning {
                    message: message.clone(),
                };
                self.emit(conversation, Some(turn), kind);
            }
        }
    }

    /// Sends an event to the conversation's subscribers.
    pub(crate) fn emit(
        &self,
        conversation_id: ConversationId,
        turn_id: Option<TurnId>,
        kind: EventKind,
    ) {
        self.events.emit(conversation_id, turn_id, kind);
    }
}
