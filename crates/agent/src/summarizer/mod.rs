//! The compression summarizer: the application's `Summarizer` port on the model, with
//! the prompt from `.agents/sys.skills/compact/SKILL.md` (read on every compression, so
//! edits apply at once).
//!
//! If the input does not fit the (compaction) model's window, tool results are dropped
//! from the middle outwards first; if it still does not fit, the rows are summarized in
//! chunks, each merged into the summary of the previous ones.

mod fit;
mod prompt;
mod transcript;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use smallebot_application::ports::{
    ChatModel, ModelError, ModelMessage, ModelRequest, RequestBilling, RequestPurpose, Summarizer,
    SummaryInput,
};
use smallebot_core::entities::UsageAccount;

pub use fit::{FitPlan, plan_fit};
pub use prompt::{
    SHIPPED_COMPACT_SKILL, default_compact_prompt, load_compact_prompt, summary_request_text,
};
pub use transcript::{Entry, EntryKind, transcript_entries};

use crate::history::tool_result_limit;
use crate::tokenizer::Tokenizer;

/// What the summarizer needs to know.
#[derive(Debug, Clone)]
pub struct SummarizerSettings {
    /// `<home>/sys.skills/compact/SKILL.md`.
    pub skill_path: PathBuf,
    /// Tool results in the input are cut to this many characters …
    pub tool_result_max_length: usize,
    /// … or to their tool's own limit (`toolResultMaxLengthByTool`).
    pub tool_result_max_length_by_tool: BTreeMap<String, usize>,
    /// The compaction model's context window.
    pub context_window: u64,
    /// The most tokens a summary may have (`summaryMaxTokens`): asked for in the
    /// request text and sent as its `max_tokens`.
    pub max_tokens: u32,
}

/// Summarizes with the model (purpose `Summary`, so a configured compaction model answers).
pub struct ModelSummarizer {
    model: Arc<dyn ChatModel>,
    tokenizer: Arc<Tokenizer>,
    settings: SummarizerSettings,
}

impl ModelSummarizer {
    /// A summarizer on `model`.
    #[must_use]
    pub fn new(
        model: Arc<dyn ChatModel>,
        tokenizer: Arc<Tokenizer>,
        settings: SummarizerSettings,
    ) -> Self {
        Self {
            model,
            tokenizer,
            settings,
        }
    }

    async fn ask(
        &self,
        system: &str,
        user: String,
        account: Option<&UsageAccount>,
    ) -> Result<String, ModelError> {
        let billing = account.map(|account| RequestBilling {
            account: account.clone(),
            prompt_tokens: (self.tokenizer.count(system) + self.tokenizer.count(&user)) as u64,
        });
        let request = ModelRequest {
            billing,
            purpose: RequestPurpose::Summary,
            system: system.to_owned(),
            messages: vec![ModelMessage::user(user)],
            tools: std::sync::Arc::default(),
            thinking: false,
            // Summaries go to the compaction model (or the default chat model).
            model: None,
            max_tokens: Some(self.settings.max_tokens),
        };
        let response = self.model.complete(&request, &|_| {}).await?;
        Ok(response.text.trim().to_owned())
    }
}

#[async_trait]
impl Summarizer for ModelSummarizer {
    async fn summarize(&self, input: &SummaryInput<'_>) -> Result<String, ModelError> {
        let system = load_compact_prompt(&self.settings.skill_path);
        let count = |text: &str| self.tokenizer.count(text) as u64;
        let settings = &self.settings;
        let limit = |tool: &str| {
            tool_result_limit(
                &settings.tool_result_max_length_by_tool,
                settings.tool_result_max_length,
                tool,
            )
        };
        let mut entries = transcript_entries(input.rows, &limit);
        for entry in &mut entries {
            entry.tokens = count(&entry.text);
        }
        // Room for the framing, the previous summary and the answer.
        let reserve = count(&system) + 200 + self.settings.context_window / 4;
        let budget = self.settings.context_window.saturating_sub(reserve);
        let previous_tokens = input.previous_summary.map_or(0, count);
        let plan = plan_fit(&mut entries, budget, previous_tokens);
        let mut summary = input.previous_summary.map(str::to_owned);
        for chunk in plan.chunks {
            let text = summary_request_text(
                summary.as_deref(),
                &entries[chunk],
                input.focus,
                self.settings.max_tokens,
            );
            summary = Some(self.ask(&system, text, input.account).await?);
        }
        Ok(summary.unwrap_or_default())
    }
}
