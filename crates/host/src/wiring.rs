//! The composition root: every crate wired by hand (no container, no globals).

use std::io::IsTerminal;
use std::sync::Arc;

use smallebot_agent::client::{ChatEndpoint, ClientSettings, OpenAiChatModel};
use smallebot_agent::config::{AgentSettings, Endpoint, resolve_models};
use smallebot_agent::config::{ConfigError, TERMINAL_FILE, TerminalSettings, terminal_rules_text};
use smallebot_agent::history::{BASE_INSTRUCTIONS, HistoryBuilder, HistorySettings};
use smallebot_agent::summarizer::{ModelSummarizer, SummarizerSettings};
use smallebot_agent::tokenizer::Tokenizer;
use smallebot_agent::tools::{CommandConfirmer, DenyAll, ExecuteCommand, Workspace};
use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
use smallebot_application::pipeline::ServiceParts;
use smallebot_application::ports::ChatModel;
use smallebot_application::{ConversationService, PipelineSettings};
use smallebot_infrastructure::SqliteStore;

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
    pub plan: Arc<dyn smallebot_application::ports::TaskPlan>,
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
    let workspace = Workspace::new(home.root().join("workspace"));
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

    let base_instructions = match &settings.system_prompt {
        Some(extra) => format!("{BASE_INSTRUCTIONS}\n\n{extra}"),
        None => BASE_INSTRUCTIONS.to_owned(),
    };
    let assembler = HistoryBuilder::new(
        HistorySettings {
            base_instructions,
            terminal_rules: Some(terminal_rules_text(&terminal)),
            tool_result_max_length: settings.tool_result_max_length,
            tool_history_format: settings.tool_history_format,
            context_window: models.chat.settings.context_window,
        },
        Arc::clone(&tokenizer),
    );
    let model: Arc<dyn ChatModel> = Arc::new(OpenAiChatModel::new(
        chat_endpoint(&models.chat),
        Some(chat_endpoint(&models.compaction)),
        ClientSettings {
            idle_timeout: settings.stream_idle_timeout,
            ..ClientSettings::default()
        },
    ));
    let summarizer = ModelSummarizer::new(
        Arc::clone(&model),
        Arc::clone(&tokenizer),
        SummarizerSettings {
            skill_path: home.compact_skill(),
            tool_result_max_length: settings.tool_result_max_length,
            context_window: models.compaction.settings.context_window,
        },
    );
    let tools = ToolRegistry::new().with(Arc::new(GetCurrentTime));
    let tools = tools.with(Arc::new(shell_tool(home, terminal, confirmer)?));
    let tools = smallebot_agent::tools::workspace_tools(home.root().join("workspace"))
        .into_iter()
        .fold(tools, ToolRegistry::with);
    let history_store: Arc<dyn smallebot_core::repository::Store> = Arc::new(store.clone());
    let tools = tools
        .with(Arc::new(smallebot_agent::tools::SearchHistory::new(
            Arc::clone(&history_store),
        )))
        .with(Arc::new(smallebot_agent::tools::ReadConversationData::new(
            history_store,
            settings.tool_result_max_length,
        )));
    let task_store: Arc<dyn smallebot_core::tasks::TaskStore> = Arc::new(
        smallebot_infrastructure::FileTaskStore::new(home.tasks_dir()),
    );
    let tools = smallebot_agent::tools::task_tools(&task_store)
        .into_iter()
        .fold(tools, ToolRegistry::with);
    let plan: Arc<dyn smallebot_application::ports::TaskPlan> = Arc::new(
        smallebot_agent::tasks_plan::TaskPlanService::new(task_store, &home.workspace_dir()),
    );
    let service = ConversationService::new(ServiceParts {
        store: Arc::new(store.clone()),
        model,
        assembler: Arc::new(assembler),
        tools: Arc::new(tools),
        plan: Some(Arc::clone(&plan)),
        summarizer: Arc::new(summarizer),
        settings: PipelineSettings {
            max_tool_steps: settings.max_tool_steps,
            compression_threshold: settings.compression_threshold,
            keep_recent_turns: settings.keep_recent_turns,
            ..PipelineSettings::default()
        },
    });
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
