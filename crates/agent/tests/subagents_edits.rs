//! One process, several delegations: an agent file edited, replaced or removed between
//! two `Delegate` calls applies to the next one, although an unchanged agent's service is
//! reused from one call to the next (and unchanged files are not parsed again once they
//! are a moment old: `agents/cache.rs` tests that part).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use smallebot_agent::agents::AgentFolders;
use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
use smallebot_application::SendOptions;
use smallebot_core::entities::TurnStatus;
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};

fn system(request: &RecordedRequest) -> String {
    request
        .messages()
        .first()
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn agent_file(prompt: &str) -> String {
    format!(
        "---\nname: worker\ndescription: Does one task.\ntools: GetCurrentTime\n---\n{prompt}\n"
    )
}

/// The parent delegates to `worker` once per turn; the worker answers at once.
fn script(server: &TestModel) {
    server.respond_with(|req| {
        if system(req).contains("You are worker") {
            return ScriptedResponse::text("worked");
        }
        if req.tool_results_since_user() > 0 {
            return ScriptedResponse::text("Done.");
        }
        let args =
            serde_json::json!({"agent": "worker", "prompt": "task", "description": "a task"});
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            format!("d{}", req.index),
            "Delegate",
            args.to_string(),
        )])
    });
}

/// The system prompts of the worker's requests from request `from` on.
fn worker_prompts(server: &TestModel, from: usize) -> Vec<String> {
    (from..server.request_count())
        .filter_map(|i| server.request(i))
        .map(|r| system(&r))
        .filter(|s| s.contains("You are worker"))
        .collect()
}

#[tokio::test]
async fn an_agent_file_changed_between_two_delegations_applies_to_the_second() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    let file = agents.join("worker.md");
    std::fs::write(&file, agent_file("You are worker, first version.")).unwrap();
    let server = TestModel::start().await.unwrap();
    server.answer_when(RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title")
    });
    script(&server);
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    let agent = AgentAssembly::new(
        Arc::new(store.clone()),
        ChatEndpoint::new(server.base_url(), "test"),
    )
    .skill_path(dir.path().join("SKILL.md"))
    .tools(ToolRegistry::new().with(Arc::new(GetCurrentTime)))
    .sub_agents(
        AgentFolders {
            shared: agents.clone(),
            user: None,
        },
        4,
    )
    .build()
    .unwrap();
    let service = agent.service;
    let conversation = service.create_conversation("edits").await.unwrap();
    let (service, server) = (&service, &server);
    let delegate = |text: &'static str| async move {
        let from = server.request_count();
        let outcome = service
            .send(conversation.id, text, SendOptions::default())
            .await
            .unwrap();
        (outcome, from)
    };
    let prompts_of = |from: usize| worker_prompts(server, from);
    let has = |prompts: &[String], text: &str| prompts.iter().all(|p| p.contains(text));

    let (outcome, from) = delegate("one").await;
    assert_eq!(outcome.status, TurnStatus::Completed);
    let first = prompts_of(from);
    assert_eq!(first.len(), 1);
    assert!(has(&first, "first version"), "{first:?}");

    // Unchanged: the same definition again.
    let (_, from) = delegate("two").await;
    assert!(has(&prompts_of(from), "first version"));

    // Edited in place, to a text of the same length: the modification time tells.
    rewrite_later(&file, &agent_file("You are worker, other version."));
    let (_, from) = delegate("three").await;
    let edited = prompts_of(from);
    assert!(
        has(&edited, "other version") && !edited.is_empty(),
        "{edited:?}"
    );

    // Replaced by another file (a new inode), as editors save.
    let staged = agents.join(".worker.md.new");
    std::fs::write(
        &staged,
        agent_file("You are worker, third version, saved anew."),
    )
    .unwrap();
    std::fs::rename(&staged, &file).unwrap();
    let (_, from) = delegate("four").await;
    let replaced = prompts_of(from);
    assert!(
        has(&replaced, "third version") && !replaced.is_empty(),
        "{replaced:?}"
    );

    // Removed: the agent is gone, and the model is told so.
    std::fs::remove_file(&file).unwrap();
    let (outcome, from) = delegate("five").await;
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert!(prompts_of(from).is_empty());
    let last = server.request(server.request_count() - 1).unwrap();
    let result = last
        .messages()
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(result.contains("no agent is called 'worker'"), "{result}");
    store.close().await;
}

/// Writes `text` to `file` once its modification time can differ from the last write's
/// (file systems with a coarse clock keep it within the same tick otherwise).
fn rewrite_later(file: &Path, text: &str) {
    let before = std::fs::metadata(file).unwrap().modified().unwrap();
    loop {
        std::fs::write(file, text).unwrap();
        if std::fs::metadata(file).unwrap().modified().unwrap() != before {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
