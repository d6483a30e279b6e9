//! The composition root: every crate wired by hand (no container, no globals).

use std::io::IsTerminal;
use std::sync::Arc;

use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::client::{ChatEndpoint, ClientSettings};
use smallebot_agent::config::{AgentSettings, Endpoint, resolve_models};
use smallebot_agent::config::{ConfigError, TERMINAL_FILE, TerminalSettings, terminal_rules_text};
use smallebot_agent::history::{BASE_INSTRUCTIONS, HistorySettings};
use smallebot_agent::tasks_plan::TaskPlanService;
use smallebot_agent::tokenizer::Tokenizer;
use smallebot_agent::tools::{CommandConfirmer, DenyAll, ExecuteCommand, Workspace};
use smallebot_agent::tools::{
    GetCurrentTime, ReadConversationData, SearchHistory, ToolRegistry, task_tools, workspace_tools,
};
use smallebot_application::ports::TaskPlan;
use smallebot_application::{ConversationService, PipelineSettings};
use smallebot_core::repository::Store;
use smallebot_core::tasks::TaskStore;
use smallebot_infrastructure::{FileTaskStore, SqliteStore};

use crate::chat::StdinConfirmer;
use crate::commands::open_store;
use crate::error::HostError;
use crate::home::Home;

/// Everything a conversation command needs.
pub struct App {
    /// The pipeline.
    pub service: Arc<ConversationService>,
    /// The store (closed on exit).
    pub store: SqliteStore,
    /// The person conversations belong to.
    pub user: String,
    /// The conversations' task lists as plans (for `/tasks`).
    pub plan: Arc<dyn TaskPlan>,
}

fn chat_endpoint(endpoint: &Endpoint) -> ChatEndpoint {
    ChatEndpoint {
        base_url: endpoint.settings.base_url.clone(),
        api_key: endpoint.api_key.clone(),
        model: endpoint.settings.model.clone(),
    }
}

/// The user name: `--user`, else agent.json's `userName`, else `$USER`, else "local".
pub fn user_name(flag: Option<&str>, settings: &AgentSettings) -> String {
    flag.map(str::to_owned)
        .or_else(|| settings.user_name.clone())
        .or_else(|| std::env::var("USER").ok())
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| "local".to_owned())
}

/// Loads configuration, opens the store and builds the pipeline; commands that need
/// confirmation are asked by [`default_confirmer`].
pub async fn build(home: &Home, user_flag: Option<&str>) -> Result<App, HostError> {
    build_with_confirmer(home, user_flag, default_confirmer()).await
}

/// Asks on the terminal when standard input is one (`smallebot run`), else denies.
pub fn default_confirmer() -> Arc<dyn CommandConfirmer> {
    if std::io::stdin().is_terminal() {
        Arc::new(StdinConfirmer::new())
    } else {
        Arc::new(DenyAll)
    }
}

/// `ExecuteCommand` with terminal.json's settings, in `<home>/workspace`.
fn shell_tool(
    home: &Home,
    terminal: TerminalSettings,
    confirmer: Arc<dyn CommandConfirmer>,
) -> Result<ExecuteCommand, HostError> {
    let workspace = Workspace::new(home.workspace_dir());
    ExecuteCommand::new(terminal, workspace, confirmer).map_err(|error| {
        HostError::Config(ConfigError::Rule {
            file: home.root().join(TERMINAL_FILE),
            message: error.to_string(),
        })
    })
}

/// As [`build`], with `confirmer` asking the person before a command runs when
/// terminal.json sets `requireCommandConfirmation`.
pub async fn build_with_confirmer(
    home: &Home,
    user_flag: Option<&str>,
    confirmer: Arc<dyn CommandConfirmer>,
) -> Result<App, HostError> {
    let settings = AgentSettings::load(home.root())?;
    let terminal = TerminalSettings::load(home.root())?;
    let models = resolve_models(home.root(), &|key| std::env::var(key).ok())?
        .ok_or(HostError::NoEndpoint)?;
    let store = open_store(home).await?;

    let tokenizer = Arc::new(Tokenizer::new(&models.chat.settings.tokenizer)?);
    let warm = Arc::clone(&tokenizer);
    std::thread::spawn(move || warm.warm_up());

    let history_store: Arc<dyn Store> = Arc::new(store.clone());
    let task_store: Arc<dyn TaskStore> = Arc::new(FileTaskStore::new(home.tasks_dir()));
    let plan: Arc<dyn TaskPlan> = Arc::new(TaskPlanService::new(
        Arc::clone(&task_store),
        &home.workspace_dir(),
    ));
    let tools = ToolRegistry::new()
        .with(Arc::new(GetCurrentTime))
        .with(Arc::new(shell_tool(home, terminal.clone(), confirmer)?))
        .with(Arc::new(SearchHistory::new(Arc::clone(&history_store))))
        .with(Arc::new(ReadConversationData::new(
            Arc::clone(&history_store),
            settings.tool_result_max_length,
        )));
    let tools = workspace_tools(home.workspace_dir())
        .into_iter()
        .chain(task_tools(&task_store))
        .fold(tools, ToolRegistry::with);

    let base_instructions = match &settings.system_prompt {
        Some(extra) => format!("{BASE_INSTRUCTIONS}\n\n{extra}"),
        None => BASE_INSTRUCTIONS.to_owned(),
    };
    let agent = AgentAssembly::new(history_store, chat_endpoint(&models.chat))
        .compaction(
            chat_endpoint(&models.compaction),
            models.compaction.settings.context_window,
        )
        .client(ClientSettings {
            idle_timeout: settings.stream_idle_timeout,
            ..ClientSettings::default()
        })
        .history(HistorySettings {
            base_instructions,
            terminal_rules: Some(terminal_rules_text(&terminal)),
            tool_result_max_length: settings.tool_result_max_length,
            tool_history_format: settings.tool_history_format,
            context_window: models.chat.settings.context_window,
        })
        .skill_path(home.compact_skill())
        .tokenizer(tokenizer)
        .tools(tools)
        .plan(Arc::clone(&plan))
        .pipeline(PipelineSettings {
            max_tool_steps: settings.max_tool_steps,
            compression_threshold: settings.compression_threshold,
            keep_recent_turns: settings.keep_recent_turns,
            ..PipelineSettings::default()
        })
        .build()?;
    let service = agent.service;
    let interrupted = service.recover_interrupted_turns().await?;
    if interrupted > 0 {
        eprintln!(
            "{interrupted} turn(s) were interrupted when the previous run stopped; they are marked interrupted"
        );
    }
    let user = user_name(user_flag, &settings);
    Ok(App {
        service: Arc::new(service),
        store,
        user,
        plan,
    })
}
