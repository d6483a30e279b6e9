//! Context compression (DESIGN.md §5): summarize everything after the boundary except
//! the last turns, commit the three columns in one step, never delete a row.

use std::time::Duration;

use chrono::Utc;
use serde::Serialize;
use smallebot_core::entities::{CompressionUpdate, Conversation, HistoryRow};
use smallebot_core::ids::ConversationId;
use smallebot_core::rules::compression_scope::compression_scope;

use super::service::ConversationService;
use crate::error::PipelineError;
use crate::events::{CompressionTrigger, TurnEvent};
use crate::ports::{ContextEstimate, SummaryInput};

/// How a compression ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompressionReport {
    /// Whether a summary was stored.
    pub ok: bool,
    /// What happened, in words.
    pub detail: String,
    /// Context estimate before.
    pub tokens_before: u64,
    /// Context estimate after (equal to before when nothing changed).
    pub tokens_after: u64,
}

impl ConversationService {
    /// The estimate for the next request of a conversation as stored now, plus
    /// `new_message` when given.
    pub(crate) async fn estimate_now(
        &self,
        conversation: &Conversation,
        new_message: Option<&str>,
    ) -> Result<ContextEstimate, PipelineError> {
        let stored = self
            .store
            .token_sum_after(conversation.id, conversation.history_boundary())
            .await?;
        let plan = match &self.plan {
            Some(plan) => plan.plan_text(conversation.id).await,
            None => None,
        };
        Ok(self.assembler.estimate(
            conversation,
            stored,
            plan.as_deref(),
            &self.tools.schemas(),
            new_message,
        ))
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
        let conversation = self.conversation(conversation_id).await?;
        self.compress(&conversation, CompressionTrigger::Manual, focus, None)
            .await
    }

    /// Runs one compression and reports it through events. Failures change nothing
    /// and are reported with `ok: false`; only storage errors are errors.
    pub(crate) async fn compress(
        &self,
        conversation: &Conversation,
        trigger: CompressionTrigger,
        focus: Option<&str>,
        new_message: Option<&str>,
    ) -> Result<CompressionReport, PipelineError> {
        let conversation_id = conversation.id;
        self.emit(TurnEvent::CompressionStarted {
            conversation_id,
            trigger,
        });
        let before = self.estimate_now(conversation, new_message).await?.used;
        let report = match self.summarize_and_commit(conversation, focus).await? {
            Ok((detail, updated)) => CompressionReport {
                ok: true,
                detail,
                tokens_before: before,
                tokens_after: self.estimate_now(&updated, new_message).await?.used,
            },
            Err(detail) => CompressionReport {
                ok: false,
                detail,
                tokens_before: before,
                tokens_after: before,
            },
        };
        self.emit(TurnEvent::CompressionCompleted {
            conversation_id,
            trigger,
            ok: report.ok,
            detail: report.detail.clone(),
            tokens_before: report.tokens_before,
            tokens_after: report.tokens_after,
        });
        Ok(report)
    }

    /// `Ok(Ok((detail, updated conversation)))` when a summary was stored,
    /// `Ok(Err(why))` when nothing changed.
    async fn summarize_and_commit(
        &self,
        conversation: &Conversation,
        focus: Option<&str>,
    ) -> Result<Result<(String, Conversation), String>, PipelineError> {
        let keep = self.settings.keep_recent_turns;
        let rows = self
            .store
            .rows_after(conversation.id, conversation.history_boundary())
            .await?;
        let Some(scope) = compression_scope(&rows, keep) else {
            return Ok(Err(format!(
                "nothing to summarize: the conversation has no more than the {keep} most recent \
                 turn(s) after the last summary, which are kept verbatim"
            )));
        };
        let to_summarize: Vec<HistoryRow> = rows[..scope.end]
            .iter()
            .filter(|r| match r {
                HistoryRow::Message(m) => m.replaced_by.is_none(),
                HistoryRow::ToolCall(_) => true,
                HistoryRow::ThinkBlock(_) => false,
            })
            .cloned()
            .collect();
        let input = SummaryInput {
            previous_summary: conversation.compressed_context.as_deref(),
            rows: &to_summarize,
            focus,
        };
        let timeout = self.settings.compression_timeout;
        let summary = match tokio::time::timeout(timeout, self.summarizer.summarize(&input)).await {
            Err(_) => return Ok(Err(timeout_detail(timeout))),
            Ok(Err(err)) => return Ok(Err(format!("the summarizer failed: {err}"))),
            Ok(Ok(summary)) if summary.trim().is_empty() => {
                return Ok(Err("the summarizer returned an empty summary".into()));
            }
            Ok(Ok(summary)) => summary.trim().to_owned(),
        };
        let update = CompressionUpdate {
            compressed_context: summary,
            compressed_at: Utc::now(),
            compressed_through_seq: scope.through_seq,
            expected_previous_seq: conversation.compressed_through_seq,
        };
        match self.store.set_compression(conversation.id, &update).await {
            Ok(updated) => Ok(Ok((
                format!(
                    "summarized {} turn(s) ({} rows, through seq {}); the last {keep} turn(s) stay verbatim",
                    scope.turns,
                    to_summarize.len(),
                    scope.through_seq
                ),
                updated,
            ))),
            Err(smallebot_core::RepositoryError::Conflict(why)) => Ok(Err(why)),
            Err(other) => Err(other.into()),
        }
    }
}

fn timeout_detail(timeout: Duration) -> String {
    format!(
        "the summarizer did not answer within {}s",
        timeout.as_secs()
    )
}
