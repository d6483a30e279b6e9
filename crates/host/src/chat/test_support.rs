//! Test wiring: a service with the given tools against a testkit model.

use std::path::Path;
use std::sync::Arc;

use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::client::ChatEndpoint;
use smallebot_agent::tools::ToolRegistry;
use smallebot_application::ConversationService;
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::TestModel;

/// A service on a database in `dir`, talking to `server`, offering `tools`.
pub(crate) async fn service_with(
    dir: &Path,
    server: &TestModel,
    tools: ToolRegistry,
) -> Arc<ConversationService> {
    let store = SqliteStore::open(&dir.join("db.sqlite")).await.unwrap();
    let endpoint = ChatEndpoint::new(server.base_url(), "m");
    let agent = AgentAssembly::new(Arc::new(store), endpoint)
        .skill_path(dir.join("SKILL.md"))
        .tools(tools)
        .build()
        .unwrap();
    Arc::new(agent.service)
}
