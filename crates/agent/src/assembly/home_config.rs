//! [`AgentAssembly::from_home`]: the assembly the command line uses, read from a home
//! directory's configuration files.

use std::path::Path;

use smallebot_application::PipelineSettings;

use super::home_tools::HomeTools;
use super::{AgentAssembly, AssemblyError, Home};
use crate::config::{
    AgentSettings, CommandEnvironment, Endpoint, ReasoningEffort, ResolvedModels, TERMINAL_FILE,
    TerminalSettings, load_hooks, resolve_models, terminal_rules_text, with_terminal_rules,
};
use crate::history::{BASE_INSTRUCTIONS, HistorySettings, tool_result_limit};
use crate::tools::{HookRunner, ReadConversationData};
use smallebot_model_client::{ChatEndpoint, ClientSettings, NamedEndpoint, RetryPolicy};

/// The client's view of a configured model: a model that reasons when asked gets its
/// `reasoningEffort` (or agent.json's) with every request.
fn chat_endpoint(endpoint: &Endpoint, effort: ReasoningEffort) -> ChatEndpoint {
    let settings = &endpoint.settings;
    ChatEndpoint {
        base_url: settings.base_url.clone(),
        api_key: endpoint.api_key.clone(),
        model: settings.model.clone(),
        api_key_env: settings.api_key_env.clone(),
        supports_images: settings.supports_images,
        max_output_tokens: Some(settings.max_output_tokens),
        parallel_requests: settings.parallel_requests,
        context_window: settings
            .context_window_set
            .then_some(settings.context_window),
        reasoning_effort: settings.supports_thinking.then(|| {
            settings
                .reasoning_effort
                .unwrap_or(effort)
                .as_str()
                .to_owned()
        }),
    }
}

impl AgentAssembly {
    /// Everything the home directory `home` configures: settings from
    /// agent.json, models from models.json or the `OPENAI_*` / `SMALLEBOT_MODEL`
    /// environment variables, terminal.json's shell settings, hooks.json's hooks, the
    /// built-in tools over
    /// `<home>/workspace`, and `<home>/sys.skills/compact/SKILL.md` as the compression
    /// prompt. Give it a store with [`AgentAssembly::store`]; add
    /// [`AgentAssembly::task_store`] for the task tools and the plan.
    ///
    /// No endpoint configured is not an error here (a caller may give one with
    /// [`AgentAssembly::endpoint`]); [`AgentAssembly::build`] reports it.
    ///
    /// # Errors
    /// A configuration file that exists but is invalid (the error names the file and
    /// the position), or a models.json model whose key variable is not set.
    pub fn from_home(home: impl AsRef<Path>) -> Result<Self, AssemblyError> {
        Self::from_home_with_env(home, &|key| std::env::var(key).ok())
    }

    /// As [`AgentAssembly::from_home`], looking environment variables up with `env`.
    ///
    /// # Errors
    /// As [`AgentAssembly::from_home`].
    pub fn from_home_with_env(
        home: impl AsRef<Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, AssemblyError> {
        let home = Home::new(home.as_ref());
        let settings = AgentSettings::load(home.root())?;
        let terminal = TerminalSettings::load(home.root())?;
        let models = resolve_models(home.root(), env)?;
        let base_instructions = match &settings.system_prompt {
            Some(extra) => format!("{BASE_INSTRUCTIONS}\n\n{extra}"),
            None => BASE_INSTRUCTIONS.to_owned(),
        };
        let context_window = models
            .as_ref()
            .map_or(HistorySettings::default().context_window, |m| {
                m.chat.settings.context_window
            });
        let mut assembly = Self::with_parts(None, None);
        if let Some(models) = &models {
            assembly.use_models(models, settings.reasoning_effort);
        }
        assembly.client = ClientSettings {
            idle_timeout: settings.stream_idle_timeout,
            first_byte_timeout: settings.first_byte_timeout,
            retry: RetryPolicy {
                max_attempts: settings.request_max_retries.saturating_add(1),
                ..RetryPolicy::default()
            },
            stream_max_retries: settings.stream_max_retries,
        };
        assembly.history = HistorySettings {
            base_instructions,
            terminal_rules: Some(terminal_rules_text(&terminal)),
            // Added by `build` when the task tools are wired.
            task_guidance: None,
            tool_result_max_length: settings.tool_result_max_length,
            tool_result_max_length_by_tool: settings.tool_result_max_length_by_tool.clone(),
            tool_history_format: settings.tool_history_format,
            context_window,
            max_inline_tokens: settings.attachments.max_inline_tokens,
            // The workspace's: set by `build` (a web user's own folder, say).
            workspace: None,
        };
        assembly.skill_path = home.compact_skill();
        assembly.summary_max_tokens = settings.summary_max_tokens;
        assembly.pipeline = PipelineSettings {
            max_tool_steps: settings.max_tool_steps,
            compression_threshold: settings.compression_threshold,
            keep_recent_turns: settings.keep_recent_turns,
            attachments: settings.attachments,
            uploads: settings.uploads,
            tool_loading: settings.mcp.loading,
            ..PipelineSettings::default()
        };
        assembly.pinned_tools.clone_from(&settings.mcp.pinned);
        assembly.user_name = settings.user_name.clone();
        assembly.gate.rules = with_terminal_rules(
            settings.permissions.clone(),
            &terminal,
            &home.root().join(TERMINAL_FILE),
        )?;
        assembly.gate.timeout = terminal.confirmation_timeout;
        assembly.home_hooks = home_hooks(&home, &settings.command_environment)?;
        assembly.metering.budgets = settings.budgets;
        assembly.skills = Some(home.skill_folders(None));
        assembly.sub_agents = Some((home.agent_folders(None), settings.max_parallel_agents));
        assembly.home_tools = Some(HomeTools {
            workspace: home.workspace_dir(),
            home,
            terminal,
            sandbox_helper: None,
            command_environment: settings.command_environment.clone(),
            conversation_data_page_chars: tool_result_limit(
                &settings.tool_result_max_length_by_tool,
                settings.tool_result_max_length,
                ReadConversationData::NAME,
            ),
            checkpoints: settings.checkpoints.clone(),
        });
        Ok(assembly)
    }
}

impl AgentAssembly {
    /// Talks to the models of models.json: the chat model, the others to choose from,
    /// the compaction model; counts with the chat model's tokenizer; prices by them.
    fn use_models(&mut self, models: &ResolvedModels, effort: ReasoningEffort) {
        self.chat = Some(chat_endpoint(&models.chat, effort));
        self.choices = models
            .choices
            .iter()
            .map(|m| NamedEndpoint {
                id: m.settings.id.clone(),
                endpoint: chat_endpoint(m, effort),
                context_window: m.settings.context_window,
            })
            .collect();
        self.compaction = Some((
            chat_endpoint(&models.compaction, effort),
            models.compaction.settings.context_window,
        ));
        models
            .chat
            .settings
            .tokenizer
            .clone_into(&mut self.tokenizer_name);
        self.metering.priced_by(models);
    }
}

/// The hooks of `home`'s hooks.json, run with `environment` (`None`: no hooks).
fn home_hooks(
    home: &Home,
    environment: &CommandEnvironment,
) -> Result<Option<HookRunner>, AssemblyError> {
    let hooks = load_hooks(home.root())?;
    Ok((!hooks.is_empty()).then(|| {
        HookRunner::new(
            hooks,
            home.root().to_path_buf(),
            home.workspace_dir(),
            environment,
        )
    }))
}
