//! [`Compressor`]: context compression (docs/design.md §5). It summarizes everything
//! after the boundary except the last turns, commits the summary and the new boundary
//! in one step, and never deletes a row. A failure changes nothing.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde::Serialize;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{CompressionUpdate, Conversation, HistoryRow};
use smallebot_core::ids::TurnId;
use smallebot_core::rules::compression_scope::compression_scope;

use super::context::PipelineContext;
use crate::error::PipelineError;
use crate::events::{CompressionTrigger, EventKind};
use crate::ports::{ModelError, Summarizer, SummaryInput};

/// How a compression ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
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

/// Why a compression stored nothing (the conversation is unchanged).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CompressionSkipped {
    /// Only the turns kept verbatim are after the boundary.
    #[error(
        "nothing to summarize: the conversation has no more than the {keep} most recent \
         turn(s) after the last summary, which are kept verbatim"
    )]
    NothingToSummarize {
        /// `keepRecentTurns`.
        keep: usize,
    },
    /// The summarizer took longer than the compression timeout.
    #[error("the summarizer did not answer within {}s", .timeout.as_secs())]
    TimedOut {
        /// The timeout.
        timeout: Duration,
    },
    /// The summarizer's model call failed.
    #[error("the summarizer failed: {0}")]
    SummarizerFailed(#[source] ModelError),
    /// The summarizer answered with nothing.
    #[error("the summarizer returned an empty summary")]
    EmptySummary,
    /// The boundary moved while the summary was written (another compression won).
    #[error("{0}")]
    BoundaryMoved(String),
}

/// What a compression was asked for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CompressionRequest<'a> {
    /// Why it runs.
    pub(crate) trigger: CompressionTrigger,
    /// The running turn, when a turn asked for it.
    pub(crate) turn_id: Option<TurnId>,
    /// What the person asked the summary to focus on.
    pub(crate) focus: Option<&'a str>,
    /// The message about to be sent, counted in the estimates.
    pub(crate) new_message: Option<&'a str>,
}

/// Writes summaries and moves the compression boundary.
pub(crate) struct Compressor {
    summarizer: Arc<dyn Summarizer>,
    keep_recent_turns: usize,
    timeout: Duration,
}

/// How one attempt to summarize and commit ended.
enum Attempt {
    /// A summary was stored: what it covered, and the conversation after the commit.
    Committed {
        detail: String,
        conversation: Conversation,
    },
    /// Nothing changed.
    Skipped(CompressionSkipped),
}

impl Compressor {
    /// A compressor keeping `keep_recent_turns` verbatim, giving the summarizer `timeout`.
    pub(crate) fn new(
        summarizer: Arc<dyn Summarizer>,
        keep_recent_turns: usize,
        timeout: Duration,
    ) -> Self {
        Self {
            summarizer,
            keep_recent_turns,
            timeout,
        }
    }

    /// Runs one compression and reports it through events. Failures change nothing
    /// and are reported with `ok: false`; only storage errors are errors.
    pub(crate) async fn compress(
        &self,
        context: &PipelineContext,
        conversation: &Conversation,
        request: CompressionRequest<'_>,
    ) -> Result<CompressionReport, PipelineError> {
        let conversation_id = conversation.id;
        let trigger = request.trigger;
        context.emit(
            conversation_id,
            request.turn_id,
            EventKind::CompressionStarted { trigger },
        );
        // What to keep and how much it saved are decided on exact counts.
        let exact = context.with_exact_counts(conversation.clone()).await?;
        let conversation = &exact;
        let before = context
            .estimate(conversation, request.new_message)
            .await?
            .used;
        let report = match self
            .summarize_and_commit(context, conversation, request.focus)
            .await?
        {
            Attempt::Committed {
                detail,
                conversation,
            } => CompressionReport {
                ok: true,
                detail,
                tokens_before: before,
                tokens_after: context
                    .estimate(&conversation, request.new_message)
                    .await?
                    .used,
            },
            Attempt::Skipped(skipped) => CompressionReport {
                ok: false,
                detail: skipped.to_string(),
                tokens_before: before,
                tokens_after: before,
            },
        };
        context.emit(
            conversation_id,
            request.turn_id,
            EventKind::CompressionCompleted {
                trigger,
                ok: report.ok,
                detail: report.detail.clone(),
                tokens_before: report.tokens_before,
                tokens_after: report.tokens_after,
            },
        );
        Ok(report)
    }

    /// The summary stored, or why nothing was; storage failures are the outer error.
    async fn summarize_and_commit(
        &self,
        context: &PipelineContext,
        conversation: &Conversation,
        focus: Option<&str>,
    ) -> Result<Attempt, PipelineError> {
        let keep = self.keep_recent_turns;
        let rows = context
            .store
            .context_rows_after(conversation.id, conversation.history_boundary())
            .await?;
        let Some(scope) = compression_scope(&rows, keep) else {
            return Ok(Attempt::Skipped(CompressionSkipped::NothingToSummarize {
                keep,
            }));
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
        let summary =
            match tokio::time::timeout(self.timeout, self.summarizer.summarize(&input)).await {
                Err(_) => {
                    return Ok(Attempt::Skipped(CompressionSkipped::TimedOut {
                        timeout: self.timeout,
                    }));
                }
                Ok(Err(error)) => {
                    return Ok(Attempt::Skipped(CompressionSkipped::SummarizerFailed(
                        error,
                    )));
                }
                Ok(Ok(summary)) if summary.trim().is_empty() => {
                    return Ok(Attempt::Skipped(CompressionSkipped::EmptySummary));
                }
                Ok(Ok(summary)) => summary.trim().to_owned(),
            };
        let update = CompressionUpdate {
            compressed_context: summary,
            compressed_at: Utc::now(),
            compressed_through_seq: scope.through_seq,
            expected_previous_seq: conversation.compressed_through_seq,
        };
        match context
            .store
            .set_compression(conversation.id, &update)
            .await
        {
            Ok(updated) => Ok(Attempt::Committed {
                detail: format!(
                    "summarized {} turn(s) ({} rows, through seq {}); the last {keep} turn(s) stay verbatim",
                    scope.turns,
                    to_summarize.len(),
                    scope.through_seq
                ),
                conversation: updated,
            }),
            Err(RepositoryError::Conflict(why)) => {
                Ok(Attempt::Skipped(CompressionSkipped::BoundaryMoved(why)))
            }
            Err(other) => Err(other.into()),
        }
    }
}
