//! The composition root: every crate wired by hand (no container, no globals).

use std::sync::Arc;

use smallebot_agent::client::{ChatEndpoint, ClientSettings, OpenAiChatModel};
use smallebot_agent::config::{AgentSettings, Endpoint, resolve_models};
use smallebot_agent::history::{BASE_INSTRUCTIONS, HistoryBuilder, HistorySettings};
use smallebot_agent::summarizer::{ModelSummarizer, SummarizerSettings};
use smallebot_agent::tokenizer::Tokenizer;
use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
use smallebot_application::pipeline::ServiceParts;
use smallebot_application::ports::ChatModel;
use smallebot_application::{ConversationService, PipelineSettings};
use smallebot_infrastructure::SqliteStore;

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

/// Loads configuration, opens the store and builds the pipeline.
pub async fn build(home: &Home, user_flag: Option<&str>) -> Result<App, HostError> {
    let settings = AgentSettings::load(home.root())?;
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
            terminal_rules: None,
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
    let tools = smallebot_agent::tools::workspace_tools(home.root().join("workspace"))
        .into_iter()
        .fold(tools, ToolRegistry::with);
    let service = ConversationService::new(ServiceParts {
        store: Arc::new(store.clone()),
        model,
        assembler: Arc::new(assembler),
        tools: Arc::new(tools),
        plan: None,
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
    })
}
