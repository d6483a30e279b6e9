//! The pipeline wired against an in-process testkit model, as the host wires it.

use std::path::Path;
use std::sync::Arc;

use smallebot_agent::client::{ChatEndpoint, ClientSettings, OpenAiChatModel};
use smallebot_agent::config::ToolHistoryFormat;
use smallebot_agent::history::{BASE_INSTRUCTIONS, HistoryBuilder, HistorySettings};
use smallebot_agent::summarizer::{ModelSummarizer, SummarizerSettings};
use smallebot_agent::tokenizer::Tokenizer;
use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
use smallebot_application::pipeline::ServiceParts;
use smallebot_application::ports::ChatModel;
use smallebot_application::{ConversationService, PipelineSettings};
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::TestModel;

/// A wired pipeline.
pub struct Bench {
    /// The scripted model.
    pub server: TestModel,
    /// The store.
    pub store: SqliteStore,
    /// The pipeline.
    pub service: Arc<ConversationService>,
    /// The history builder (for estimates).
    pub builder: Arc<HistoryBuilder>,
    /// The tokenizer.
    pub tokenizer: Arc<Tokenizer>,
}

/// Builds the pipeline on a database in `dir`.
pub async fn bench(dir: &Path, context_window: u64) -> Result<Bench, String> {
    let server = TestModel::start().await.map_err(|e| e.to_string())?;
    let store = SqliteStore::open(&dir.join("bench.db"))
        .await
        .map_err(|e| e.to_string())?;
    let tokenizer = Arc::new(Tokenizer::new("o200k_base").map_err(|e| e.to_string())?);
    tokenizer.warm_up();
    let builder = Arc::new(HistoryBuilder::new(
        HistorySettings {
            base_instructions: BASE_INSTRUCTIONS.to_owned(),
            terminal_rules: None,
            tool_result_max_length: 500,
            tool_history_format: ToolHistoryFormat::Native,
            context_window,
        },
        Arc::clone(&tokenizer),
    ));
    let model: Arc<dyn ChatModel> = Arc::new(OpenAiChatModel::new(
        ChatEndpoint {
            base_url: server.base_url(),
            api_key: None,
            model: "bench".into(),
        },
        None,
        ClientSettings::default(),
    ));
    let summarizer = ModelSummarizer::new(
        Arc::clone(&model),
        Arc::clone(&tokenizer),
        SummarizerSettings {
            skill_path: dir.join("SKILL.md"),
            tool_result_max_length: 500,
            context_window,
        },
    );
    let service = Arc::new(ConversationService::new(ServiceParts {
        store: Arc::new(store.clone()),
        model,
        assembler: Arc::clone(&builder) as _,
        tools: Arc::new(ToolRegistry::new().with(Arc::new(GetCurrentTime))),
        plan: None,
        summarizer: Arc::new(summarizer),
        settings: PipelineSettings {
            compression_threshold: 0.95,
            ..PipelineSettings::default()
        },
    }));
    Ok(Bench {
        server,
        store,
        service,
        builder,
        tokenizer,
    })
}
