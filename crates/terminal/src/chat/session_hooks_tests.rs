//! The chat's session hooks: a continued conversation starts its session as `resume`,
//! switching ends the one left and starts the one opened.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use smallebot_agent::assembly::AgentAssembly;
use smallebot_application::ConversationService;
use smallebot_application::ports::Hooks;
use smallebot_core::rules::hook::{HookEvent, HookInput, HookResult};
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::TestModel;
use tokio_util::sync::CancellationToken;

use super::test_support::run_repl;

/// Hooks that record each session event with its trigger and conversation.
#[derive(Default)]
struct Recorded(Mutex<Vec<(String, String, String)>>);

#[async_trait]
impl Hooks for Recorded {
    fn wants(&self, event: HookEvent, _tool: Option<&str>) -> bool {
        matches!(event, HookEvent::SessionStart | HookEvent::SessionEnd)
    }

    async fn run(
        &self,
        event: HookEvent,
        input: HookInput,
        _cancel: &CancellationToken,
    ) -> HookResult {
        self.0.lock().unwrap().push((
            event.name().to_owned(),
            input.trigger.unwrap_or_default(),
            input.conversation_id.unwrap_or_default(),
        ));
        HookResult::default()
    }
}

async fn service(
    dir: &std::path::Path,
    server: &TestModel,
    hooks: Arc<Recorded>,
) -> Arc<ConversationService> {
    let store = SqliteStore::open(&dir.join("db.sqlite")).await.unwrap();
    let agent = AgentAssembly::new(Arc::new(store), ChatEndpoint::new(server.base_url(), "m"))
        .skill_path(dir.join("SKILL.md"))
        .hooks(hooks)
        .build()
        .unwrap();
    Arc::new(agent.service)
}

#[tokio::test]
async fn a_resumed_chat_starts_its_session_as_resume_and_a_switch_moves_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let hooks = Arc::new(Recorded::default());
    let service = service(dir.path(), &server, Arc::clone(&hooks)).await;
    let first = service.create_conversation("tester").await.unwrap().id;
    let second = service.create_conversation("tester").await.unwrap().id;
    let input = format!("/switch {second}\n/quit\n");
    run_repl(&service, Some(first), input.as_bytes()).await;
    let seen = hooks.0.lock().unwrap().clone();
    let (first, second) = (first.to_string(), second.to_string());
    let expected = [
        ("SessionStart", "resume", first.as_str()),
        ("SessionEnd", "switch", first.as_str()),
        ("SessionStart", "resume", second.as_str()),
        ("SessionEnd", "exit", second.as_str()),
    ];
    let seen: Vec<_> = seen
        .iter()
        .map(|(e, t, c)| (e.as_str(), t.as_str(), c.as_str()))
        .collect();
    assert_eq!(seen, expected);
    server.shutdown().await;
}
