//! [`Compressor`]: context compression (docs/design.md §5). It summarizes everything
//! after the boundary except the last turns, commits the summary and the new boundary
//! in one step, and never deletes a row. A failure changes nothing.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde::Serialize;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{CompressionUpdate, Conversation, HistoryRow, UsageAccount};
use smallebot_core::ids::TurnId;
use smallebot_core::rules::compression_scope::compression_scope;
use smallebot_core::rules::summary_check::{SummaryDefect, summary_defect};

use super::context::PipelineContext;
use crate::error::PipelineError;
use crate::events::{CompressionTrigger, EventKind};
use crate::ports::ContextEstimate;
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
    /// The summary is no summary (control tokens, a loop): refused.
    #[error("{0}; it was refused and the history is unchanged")]
    Refused(SummaryDefect),
    /// With the summary the context would be no smaller: refused.
    #[error(
        "the summary would not make the context smaller ({before} tokens before, {after} \
         with it); it was refused and the history is unchanged"
    )]
    NotSmaller {
        /// The context estimate without the summary.
        before: u64,
        /// The context estimate with it.
        after: u64,
    },
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
    /// Whom the summary's requests are billed to; `None`: the conversation itself,
    /// outside any turn.
    pub(crate) account: Option<&'a UsageAccount>,
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
        conversation: Box<Conversation>,
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
        context
            .pre_compact(conversation_id, request.turn_id, trigger)
            .await;
        context.emit(
            conversation_id,
            request.turn_id,
            EventKind::CompressionStarted { trigger },
        );
        // What to keep and how much it saved are decided on exact counts.
        let exact = context.with_exact_counts(conversation.clone()).await?;
        let conversation = &exact;
        let estimate = context.estimate(conversation, request.new_message).await?;
        let before = estimate.used;
        let report = match self
            .summarize_and_commit(context, conversation, &request, before)
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
        let left = ContextEstimate {
            used: report.tokens_after,
            ..estimate
        };
        let threshold = context.settings.compression_threshold;
        if left.ratio() >= threshold {
            let message = still_above(&report, left, threshold);
            context.emit(
                conversation_id,
                request.turn_id,
                EventKind::Warning { message },
            );
        }
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

    /// The summary stored, or why nothing was; storage failures are the outer error. A
    /// summary is checked before it replaces anything: not empty, no control tokens or
    /// loop ([`summary_defect`]), and the context with it smaller than `before`.
    async fn summarize_and_commit(
        &self,
        context: &PipelineContext,
        conversation: &Conversation,
        request: &CompressionRequest<'_>,
        before: u64,
    ) -> Result<Attempt, PipelineError> {
        let focus = request.focus;
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
        let own = own_account(conversation);
        let input = SummaryInput {
            previous_summary: conversation.compressed_context.as_deref(),
            rows: &to_summarize,
            focus,
            account: Some(request.account.unwrap_or(&own)),
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
                Ok(Ok(summary)) => summary.trim().to_owned(),
            };
        match summary_defect(&summary) {
            Some(SummaryDefect::Empty) => {
                return Ok(Attempt::Skipped(CompressionSkipped::EmptySummary));
            }
            Some(defect) => return Ok(Attempt::Skipped(CompressionSkipped::Refused(defect))),
            None => {}
        }
        // The context as it would be with the summary, counted before anything is stored.
        let with_summary = Conversation {
            compressed_context: Some(summary.clone()),
            compressed_through_seq: Some(scope.through_seq),
            ..conversation.clone()
        };
        let after = context
            .estimate(&with_summary, request.new_message)
            .await?
            .used;
        if after >= before {
            return Ok(Attempt::Skipped(CompressionSkipped::NotSmaller {
                before,
                after,
            }));
        }
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
                conversation: Box::new(updated),
            }),
            Err(RepositoryError::Conflict(why)) => {
                Ok(Attempt::Skipped(CompressionSkipped::BoundaryMoved(why)))
            }
            Err(other) => Err(other.into()),
        }
    }
}

/// The warning when a compression left the context at or above the threshold, and
/// the rule that applies then (docs/design.md, context compression).
fn still_above(report: &CompressionReport, left: ContextEstimate, threshold: f64) -> String {
    let what = if report.ok {
        "after this compression"
    } else {
        "and this compression stored nothing"
    };
    format!(
        "the context is still at {:.0}% of the model's {}-token window {what} (compression \
         starts at {:.0}%). The turn goes on without compressing again: its answer is \
         bounded by what the window leaves, and the oldest turns are left out of a request \
         that would not fit (they stay stored). /compact with a focus, a compactionModel or \
         a model with a larger context may help.",
        left.ratio() * 100.0,
        left.window,
        threshold * 100.0
    )
}

/// The account of a summary asked for outside a turn: the conversation itself.
fn own_account(conversation: &Conversation) -> UsageAccount {
    UsageAccount {
        user_name: conversation.user_name.clone(),
        conversation_id: conversation.id,
        turn_id: None,
        sub_conversation_id: None,
        step: 0,
    }
}
