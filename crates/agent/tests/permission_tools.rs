//! Permission rules name tools: every tool a home's agent offers (skills and the task
//! list included) is one `agent.json`'s rules accept by name.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::tools::BUILT_IN_TOOL_NAMES;
use smallebot_infrastructure::{FileTaskStore, SqliteStore};
use smallebot_model_client::ChatEndpoint;

#[tokio::test]
async fn every_offered_tool_is_a_known_built_in_tool() {
    let home = tempfile::tempdir().unwrap();
    let skill = home.path().join("skills/notes");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: notes\ndescription: Keeps notes.\n---\nWrite notes.\n",
    )
    .unwrap();
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    let agent = AgentAssembly::from_home_with_env(home.path(), &|_| None)
        .unwrap()
        .store(Arc::new(store.clone()))
        .task_store(Arc::new(FileTaskStore::new(home.path().join("tasks"))))
        .endpoint(ChatEndpoint::new("http://127.0.0.1:9", "unused"))
        .build()
        .unwrap();
    let names: Vec<String> = agent
        .service
        .tools()
        .iter()
        .map(|tool| tool.name.clone())
        .collect();
    assert!(names.len() >= 18, "every built-in tool: {names:?}");
    for name in &names {
        assert!(
            BUILT_IN_TOOL_NAMES.contains(&name.as_str()),
            "{name} is offered but not in BUILT_IN_TOOL_NAMES: rules naming it would be refused"
        );
    }
    store.close().await;
}
