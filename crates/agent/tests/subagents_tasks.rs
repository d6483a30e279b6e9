//! A sub-agent runs in a task of its own, so the sub-agents of one step spread over
//! the runtime's threads; the task belongs to the parent's call all the same: a parent
//! turn that is dropped (its connection gone, the runtime shutting down) takes its
//! sub-agents with it rather than leaving them running unseen.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use smallebot_agent::agents::AgentFolders;
use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
use smallebot_application::SendOptions;
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};

fn is_worker(request: &RecordedRequest) -> bool {
    request
        .messages()
        .first()
        .and_then(|m| m["content"].as_str())
        .is_some_and(|s| s.contains("You are worker"))
}

fn worker_requests(server: &TestModel) -> usize {
    (0..server.request_count())
        .filter_map(|i| server.request(i))
        .filter(is_worker)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_parent_turn_takes_its_running_sub_agent_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("worker.md"),
        "---\nname: worker\ndescription: Does one task.\n---\nYou are worker.\n",
    )
    .unwrap();
    let server = TestModel::start().await.unwrap();
    server.answer_when(RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title")
    });
    server.respond_with(|req| {
        if is_worker(req) {
            // A running sub-agent would go on: its tool, then a second request.
            return if req.tool_results_since_user() == 0 {
                ScriptedResponse::tool_calls([ToolCallSpec::new("t1", "GetCurrentTime", "{}")])
                    .delay_before(Duration::from_millis(300))
            } else {
                ScriptedResponse::text("worked")
            };
        }
        if req.tool_results_since_user() > 0 {
            return ScriptedResponse::text("Done.");
        }
        let args = serde_json::json!({"agent": "worker", "prompt": "task", "description": "t"});
        ScriptedResponse::tool_calls([ToolCallSpec::new("d1", "Delegate", args.to_string())])
    });
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    let agent = AgentAssembly::new(
        Arc::new(store.clone()),
        ChatEndpoint::new(server.base_url(), "m"),
    )
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
    let conversation = service.create_conversation("dropped").await.unwrap();

    let send = service.send(conversation.id, "Delegate it.", SendOptions::default());
    let worker_asked = async {
        while worker_requests(&server) == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::select! {
        _ = send => panic!("the turn ended before its sub-agent asked its model"),
        () = worker_asked => {}
    }
    // The parent's turn is dropped here, its sub-agent waiting for its model.
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(
        worker_requests(&server),
        1,
        "the sub-agent went on after its parent's turn was dropped"
    );
}
