//! The summarizer port used by context compression.

use async_trait::async_trait;
use smallebot_core::entities::{HistoryRow, UsageAccount};

use super::model::ModelError;

/// What to summarize.
#[derive(Debug, Clone, Copy)]
pub struct SummaryInput<'a> {
    /// The previous summary, merged into the new one.
    pub previous_summary: Option<&'a str>,
    /// The rows to summarize, in `seq` order (replaced messages and reasoning already
    /// left out).
    pub rows: &'a [HistoryRow],
    /// What the person asked the summary to focus on (`/compact focus …`).
    pub focus: Option<&'a str>,
    /// Whom the summary's requests are billed to (`None`: not metered).
    pub account: Option<&'a UsageAccount>,
}

/// Writes a summary of conversation rows (the agent crate does it with the model and
/// the compact skill prompt).
#[async_trait]
pub trait Summarizer: Send + Sync {
    /// The summary text; may be empty, which the compressor treats as a failure.
    async fn summarize(&self, input: &SummaryInput<'_>) -> Result<String, ModelError>;
}
