//! The pipeline wired against an in-process testkit model, as the host wires it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use smallebot_agent::assembly::{Agent, AgentAssembly};
use smallebot_agent::history::{HistoryBuilder, HistorySettings};
use smallebot_agent::tokenizer::Tokenizer;
use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
use smallebot_application::{ConversationService, PipelineSettings};
use smallebot_core::repository::Store;
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
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
    let agent = pipeline(&server, Arc::new(store.clone()), dir, context_window)?;
    let (service, builder, tokenizer) = (Arc::new(agent.service), agent.history, agent.tokenizer);
    Ok(Bench {
        server,
        store,
        service,
        builder,
        tokenizer,
    })
}

/// The pipeline on `store`, talking to `server`, with one tool (GetCurrentTime), the
/// tokenizer warm.
pub fn pipeline(
    server: &TestModel,
    store: Arc<dyn Store>,
    dir: &Path,
    context_window: u64,
) -> Result<Agent, String> {
    let endpoint = ChatEndpoint::new(server.base_url(), "bench");
    let agent = AgentAssembly::new(store, endpoint)
        .history(HistorySettings {
            context_window,
            ..HistorySettings::default()
        })
        .skill_path(dir.join("SKILL.md"))
        .tools(ToolRegistry::new().with(Arc::new(GetCurrentTime)))
        .pipeline(PipelineSettings {
            compression_threshold: 0.95,
            ..PipelineSettings::default()
        })
        .build()
        .map_err(|e| e.to_string())?;
    agent.tokenizer.warm_up();
    Ok(agent)
}

/// The `smallebot` binary `cargo xtask` built beside this one (benchmarks that run it as
/// a process measure it); `purpose` says which benchmark wants it, in the error.
pub fn release_binary(purpose: &str) -> Result<PathBuf, String> {
    crate::smallebot_binary(purpose)
}
