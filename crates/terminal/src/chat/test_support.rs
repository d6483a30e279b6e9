//! Test wiring: a service with the given tools against a testkit model, and the REPL
//! run on scripted input.

use std::path::Path;
use std::sync::Arc;

use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::tools::ToolRegistry;
use smallebot_application::ConversationService;
use smallebot_core::ids::ConversationId;
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::TestModel;
use tokio::sync::mpsc;

use super::Repl;
use super::input::PipedInput;
use crate::render::{EventPrinter, Style};

/// A service on a database in `dir`, talking to `server`, offering `tools`.
pub(crate) async fn service_with(
    dir: &Path,
    server: &TestModel,
    tools: ToolRegistry,
) -> Arc<ConversationService> {
    let endpoint = ChatEndpoint::new(server.base_url(), "m");
    service_on(dir, endpoint, tools).await
}

/// A service on a database in `dir`, talking to `endpoint`, offering `tools`.
pub(crate) async fn service_on(
    dir: &Path,
    endpoint: ChatEndpoint,
    tools: ToolRegistry,
) -> Arc<ConversationService> {
    let store = SqliteStore::open(&dir.join("db.sqlite")).await.unwrap();
    let agent = AgentAssembly::new(Arc::new(store), endpoint)
        .skill_path(dir.join("SKILL.md"))
        .tools(tools)
        .build()
        .unwrap();
    Arc::new(agent.service)
}

/// Runs the REPL on `conversation` with `input` (no Ctrl+C); returns what it printed.
pub(crate) async fn run_repl(
    service: &Arc<ConversationService>,
    conversation: Option<ConversationId>,
    input: &[u8],
) -> String {
    let (_tx, interrupts) = mpsc::unbounded_channel();
    let mut out = Vec::new();
    {
        let printer = EventPrinter::new(&mut out, false, Style { ansi: false });
        let mut repl = Repl::new(
            Arc::clone(service),
            "tester".into(),
            conversation,
            printer,
            interrupts,
        );
        repl.run(PipedInput::new(input)).await.unwrap();
    }
    String::from_utf8(out).unwrap()
}
