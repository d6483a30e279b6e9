//! A sub-agent of an agent whose model is `inherit` runs on the model its parent's turn
//! runs on — taken from the delegating call, not read again from the store (where the
//! conversation's model may have changed since the turn started).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use smallebot_agent::agents::AgentFolders;
use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
use smallebot_application::SendOptions;
use smallebot_core::entities::TurnStatus;
use smallebot_core::repository::ConversationRepository;
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::{ChatEndpoint, NamedEndpoint};
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};

fn is_worker(request: &RecordedRequest) -> bool {
    request
        .messages()
        .first()
        .and_then(|m| m["content"].as_str())
        .is_some_and(|s| s.contains("You are worker"))
}

#[tokio::test]
async fn an_inheriting_sub_agent_runs_on_the_model_of_its_parents_turn() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("worker.md"),
        "---\nname: worker\ndescription: Does one task.\nmodel: inherit\n---\nYou are worker.\n",
    )
    .unwrap();
    let server = TestModel::start().await.unwrap();
    server.answer_when(RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title")
    });
    server.respond_with(|req| {
        if is_worker(req) {
            return ScriptedResponse::text("worked");
        }
        if req.tool_results_since_user() > 0 {
            return ScriptedResponse::text("Done.");
        }
        let args =
            serde_json::json!({"agent": "worker", "prompt": "task", "description": "a task"});
        // Slow enough for the test to change the stored model meanwhile.
        ScriptedResponse::tool_calls([ToolCallSpec::new("d1", "Delegate", args.to_string())])
            .delay_before(Duration::from_millis(300))
    });
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    let named = |id: &str| NamedEndpoint {
        id: id.to_owned(),
        endpoint: ChatEndpoint::new(server.base_url(), format!("{id}-model")),
        context_window: 128_000,
    };
    let agent = AgentAssembly::new(
        Arc::new(store.clone()),
        ChatEndpoint::new(server.base_url(), "small-model"),
    )
    .choices(vec![named("small"), named("large")])
    .skill_path(dir.path().join("SKILL.md"))
    .tools(ToolRegistry::new().with(Arc::new(GetCurrentTime)))
    .sub_agents(
        AgentFolders {
            shared: agents,
            user: None,
        },
        4,
    )
    .build()
    .unwrap();
    let service = agent.service;
    let conversation = service.create_conversation("models").await.unwrap();
    service
        .set_model(conversation.id, Some("large"))
        .await
        .unwrap();

    let send = service.send(conversation.id, "Delegate it.", SendOptions::default());
    let change = async {
        // The turn runs on `large`; its model request is out. Then the conversation's
        // stored model changes (another client's choice, for the next turn).
        while server.request_count() == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        store
            .set_conversation_model(conversation.id, Some("small"))
            .await
            .unwrap();
    };
    let (outcome, ()) = tokio::join!(send, change);
    let outcome = outcome.unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed, "{:?}", outcome.error);

    let worker: Vec<RecordedRequest> = (0..server.request_count())
        .filter_map(|i| server.request(i))
        .filter(is_worker)
        .collect();
    assert_eq!(worker.len(), 1);
    assert_eq!(worker[0].model(), Some("large-model"));
    let runs = store.sub_agent_runs(conversation.id).await.unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].conversation.model.as_deref(), Some("large"));
}
