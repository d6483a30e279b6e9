//! `HistoryBuilder`: the application's `ContextAssembler` on the tokenizer.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use smallebot_application::ports::{
    ContextAssembler, ContextEstimate, ModelRequest, PromptInput, RequestPurpose, ToolSchema,
};
use smallebot_core::entities::{Attachment, Conversation, Role};
use smallebot_core::rules::truncation::truncate_tool_result;

use super::attachments::AttachmentWriter;
use super::messages::build_messages;
use super::plan_note::{append_plan, plan_block};
use super::system_prompt::{SystemPromptSections, assemble_system_prompt};
use super::tokens::{Bound, Counter, MESSAGE_OVERHEAD, REQUEST_OVERHEAD, count, schema_tokens};
use crate::config::ToolHistoryFormat;
use crate::skills::SkillCatalog;
use crate::tokenizer::Tokenizer;
use crate::tools::ReadSkill;
use smallebot_model_client::ServerWindows;

/// What the builder needs to know.
#[derive(Debug, Clone)]
pub struct HistorySettings {
    /// Base instructions (the built-in text, plus agent.json's `systemPrompt`).
    pub base_instructions: String,
    /// Rules of the shell tool for the system prompt, if it is offered.
    pub terminal_rules: Option<String>,
    /// How to use the task tools, if they are offered.
    pub task_guidance: Option<String>,
    /// Tool results are cut to this many characters …
    pub tool_result_max_length: usize,
    /// … unless their tool has its own limit here (`toolResultMaxLengthByTool`).
    pub tool_result_max_length_by_tool: BTreeMap<String, usize>,
    /// How earlier turns' tool calls are sent.
    pub tool_history_format: ToolHistoryFormat,
    /// The chat model's context window.
    pub context_window: u64,
    /// The most tokens of a text attachment inlined into its message (agent.json
    /// `attachments.maxInlineTokens`).
    pub max_inline_tokens: i64,
    /// The workspace attached files are saved in, for the model's tools (`None`: they
    /// are not saved, and the message says so).
    pub workspace: Option<std::path::PathBuf>,
}

impl HistorySettings {
    /// How many characters of `tool`'s results go to the model.
    #[must_use]
    pub fn result_limit(&self, tool: &str) -> usize {
        tool_result_limit(
            &self.tool_result_max_length_by_tool,
            self.tool_result_max_length,
            tool,
        )
    }
}

/// How many characters of `tool`'s results go to the model: its entry in `by_tool`
/// (`toolResultMaxLengthByTool`), else `default` (`toolResultMaxLength`).
#[must_use]
pub fn tool_result_limit(by_tool: &BTreeMap<String, usize>, default: usize, tool: &str) -> usize {
    by_tool.get(tool).copied().unwrap_or(default)
}

impl Default for HistorySettings {
    /// The built-in base instructions, no terminal rules, agent.json's defaults and a
    /// 128k-token window.
    fn default() -> Self {
        Self {
            base_instructions: super::system_prompt::BASE_INSTRUCTIONS.to_owned(),
            terminal_rules: None,
            task_guidance: None,
            tool_result_max_length: 500,
            tool_result_max_length_by_tool: BTreeMap::new(),
            tool_history_format: ToolHistoryFormat::Native,
            context_window: 128_000,
            max_inline_tokens: smallebot_core::rules::attachment::DEFAULT_MAX_INLINE_TOKENS,
            workspace: None,
        }
    }
}

/// Builds chat requests from stored rows and counts tokens the same way.
#[derive(Debug)]
pub struct HistoryBuilder {
    settings: HistorySettings,
    tokenizer: Arc<Tokenizer>,
    /// Tokens of the last tool schema list seen (schemas rarely change).
    schema_cache: Mutex<Option<(Vec<ToolSchema>, i64)>>,
    /// Tokens of the last system prompt counted (it changes only with the summary or
    /// the plan, and is estimated before every model step).
    system_cache: Mutex<Option<(String, i64)>>,
    /// Context windows of the models a conversation may choose, by id.
    model_windows: Vec<(String, u64)>,
    /// Windows servers reported for models whose models.json gives none: they take the
    /// place of the default.
    server_windows: Arc<ServerWindows>,
    /// The skills listed in the system prompt (read again when their files change).
    skills: Option<Arc<SkillCatalog>>,
    /// Writes user messages' attachments (and saves their files in the workspace).
    attachments: AttachmentWriter,
}

impl HistoryBuilder {
    /// A builder counting with `tokenizer`.
    #[must_use]
    pub fn new(settings: HistorySettings, tokenizer: Arc<Tokenizer>) -> Self {
        let attachments =
            AttachmentWriter::new(settings.workspace.clone(), settings.max_inline_tokens);
        Self {
            attachments,
            settings,
            tokenizer,
            schema_cache: Mutex::new(None),
            system_cache: Mutex::new(None),
            model_windows: Vec::new(),
            server_windows: Arc::default(),
            skills: None,
        }
    }

    /// The same builder listing `catalog`'s skills under `# Skills` in every system
    /// prompt (part of the estimate's fixed tokens, like the rest of the prompt).
    #[must_use]
    pub fn with_skills(mut self, catalog: Arc<SkillCatalog>) -> Self {
        self.skills = Some(catalog);
        self
    }

    /// The same builder knowing the context windows of the models conversations may
    /// choose (model id, window); a conversation on another model (or none) uses
    /// [`HistorySettings::context_window`].
    #[must_use]
    pub fn with_model_windows(mut self, windows: Vec<(String, u64)>) -> Self {
        self.model_windows = windows;
        self
    }

    /// The same builder counting against the windows servers report for models whose
    /// models.json gives none (the client fills `windows` in).
    #[must_use]
    pub fn with_server_windows(mut self, windows: Arc<ServerWindows>) -> Self {
        self.server_windows = windows;
        self
    }

    /// The context window of the model `conversation` runs on: what its server
    /// reported when models.json gives none, else models.json's (or the default).
    fn window_of(&self, conversation: &Conversation) -> u64 {
        let model = conversation.model.as_deref();
        self.server_windows.get(model).unwrap_or_else(|| {
            model
                .and_then(|id| self.model_windows.iter().find(|(known, _)| known == id))
                .map_or(self.settings.context_window, |(_, window)| *window)
        })
    }

    /// The system prompt of a conversation (the plan is not in it: it follows the newest
    /// message, see [`append_plan`]).
    #[must_use]
    pub fn system_prompt(&self, conversation: &Conversation) -> String {
        let skills = self
            .skills
            .as_ref()
            .map(|catalog| catalog.current().block(ReadSkill::NAME));
        assemble_system_prompt(&SystemPromptSections {
            skills: skills.as_deref(),
            base: &self.settings.base_instructions,
            summary: conversation.compressed_context.as_deref(),
            terminal_rules: self.settings.terminal_rules.as_deref(),
            task_guidance: self.settings.task_guidance.as_deref(),
        })
    }

    /// Tokens of the tool schemas as sent; exact (and cached) once the tokenizer is
    /// ready, else an upper bound.
    fn schema_tokens(&self, tools: &[ToolSchema]) -> i64 {
        if !self.tokenizer.is_ready() {
            return schema_tokens(&Bound, tools);
        }
        if let Ok(mut cache) = self.schema_cache.lock() {
            if let Some((cached, tokens)) = cache.as_ref()
                && cached.as_slice() == tools
            {
                return *tokens;
            }
            let tokens = schema_tokens(&*self.tokenizer, tools);
            *cache = Some((tools.to_vec(), tokens));
            return tokens;
        }
        schema_tokens(&*self.tokenizer, tools)
    }

    /// Tokens of the system prompt `text`, counted once per distinct text (an upper
    /// bound, not cached, while the tokenizer is not ready).
    fn system_tokens(&self, text: String) -> i64 {
        if !self.tokenizer.is_ready() {
            return count(&Bound, &text);
        }
        if let Ok(mut cache) = self.system_cache.lock() {
            if let Some((cached, tokens)) = cache.as_ref()
                && *cached == text
            {
                return *tokens;
            }
            let tokens = count(&*self.tokenizer, &text);
            *cache = Some((text, tokens));
            return tokens;
        }
        count(&*self.tokenizer, &text)
    }

    /// Tokens a tool result of tool `name` adds to its call's row, as it is sent
    /// (truncated to the tool's limit).
    fn result_tokens(&self, name: &str, result: &str) -> i64 {
        MESSAGE_OVERHEAD
            + count(
                &Counter(&self.tokenizer),
                &truncate_tool_result(result, self.settings.result_limit(name)),
            )
    }
}

impl ContextAssembler for HistoryBuilder {
    fn build_request(&self, input: &PromptInput<'_>) -> ModelRequest {
        let mut messages = build_messages(
            input.rows,
            input.current_turn,
            self.settings.tool_history_format,
            &|tool| self.settings.result_limit(tool),
            &|message| {
                let counter = Counter(&self.tokenizer);
                self.attachments.parts(
                    &message.attachments,
                    input.attachments,
                    input.sees_images,
                    &counter,
                )
            },
        );
        // What changes between steps comes last, so a server's prompt cache keeps the rest.
        append_plan(&mut messages, input.plan);
        ModelRequest {
            purpose: RequestPurpose::Chat,
            system: self.system_prompt(input.conversation),
            messages,
            tools: std::sync::Arc::clone(input.tools),
            thinking: input.thinking,
            max_tokens: None,
            model: input.conversation.model.clone(),
            billing: None,
        }
    }

    fn estimate(
        &self,
        conversation: &Conversation,
        stored_tokens: i64,
        plan: Option<&str>,
        tools: &[ToolSchema],
        new_message: Option<&str>,
    ) -> ContextEstimate {
        // Read before counting: once ready, every count below is exact.
        let exact = self.tokenizer.is_ready();
        let system = MESSAGE_OVERHEAD + self.system_tokens(self.system_prompt(conversation));
        let plan = plan
            .filter(|p| !p.trim().is_empty())
            .map_or(0, |p| count(&Counter(&self.tokenizer), &plan_block(p)));
        let new = new_message.map_or(0, |m| self.message_tokens(Role::User, m));
        let used = REQUEST_OVERHEAD
            + system
            + plan
            + self.schema_tokens(tools)
            + stored_tokens.max(0)
            + new;
        ContextEstimate {
            used: u64::try_from(used).unwrap_or(0),
            window: self.window_of(conversation),
            exact,
        }
    }

    fn message_tokens(&self, _role: Role, content: &str) -> i64 {
        MESSAGE_OVERHEAD + count(&Counter(&self.tokenizer), content)
    }

    fn attachment_tokens(&self, attachment: &Attachment, text: Option<&str>) -> i64 {
        self.attachments
            .tokens(attachment, text, &Counter(&self.tokenizer))
    }

    fn tool_call_tokens(&self, name: &str, arguments: &str, result: Option<&str>) -> i64 {
        let counter = Counter(&self.tokenizer);
        let call = MESSAGE_OVERHEAD + count(&counter, name) + count(&counter, arguments);
        call + result.map_or(0, |r| self.result_tokens(name, r))
    }

    fn tool_call_tokens_with_result(
        &self,
        call_tokens: i64,
        name: &str,
        _arguments: &str,
        result: &str,
    ) -> i64 {
        call_tokens + self.result_tokens(name, result)
    }

    fn exact_counts_ready(&self) -> bool {
        self.tokenizer.is_ready()
    }

    fn prepare_exact_counts(&self) {
        self.tokenizer.warm_up();
    }

    fn context_window(&self) -> u64 {
        self.server_windows
            .get(None)
            .unwrap_or(self.settings.context_window)
    }

    fn window_of(&self, conversation: &Conversation) -> u64 {
        HistoryBuilder::window_of(self, conversation)
    }

    /// A token per four bytes of the schemas' JSON as sent.
    fn schema_estimate(&self, tools: &[ToolSchema]) -> u64 {
        let bytes = smallebot_model_client::tools_json(tools).len();
        u64::try_from(bytes.div_ceil(4)).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_added_to_a_counted_call_counts_only_the_result_and_matches_a_whole_count() {
        let tokenizer = Arc::new(Tokenizer::new("o200k_base").unwrap());
        tokenizer.warm_up();
        let builder = HistoryBuilder::new(HistorySettings::default(), Arc::clone(&tokenizer));
        let arguments = r#"{"path":"notes/today.md"}"#;
        let result = "The file's text, with a few words in it.";
        let call = builder.tool_call_tokens("ReadFile", arguments, None);
        let before = tokenizer.count_calls();
        let with_result = builder.tool_call_tokens_with_result(call, "ReadFile", arguments, result);
        assert_eq!(
            tokenizer.count_calls() - before,
            1,
            "only the result is counted"
        );
        assert_eq!(
            with_result,
            builder.tool_call_tokens("ReadFile", arguments, Some(result))
        );
    }
}
