//! Hooks in real turns, what the person and the model get of them: what a
//! `SessionStart` hook adds reaches the model with the session's first prompt, stored
//! in its message, and only there; a tool's hook that fails is a `HookWarning` event
//! on the call (stored as a `warning` run), and the call's runs are sent as events
//! before it completes; a server's sessions start on a conversation's first turn and
//! end at its shutdown; the hooks of a web user's service run in that user's folder.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use smallebot_agent::assembly::{Agent, AgentAssembly};
use smallebot_application::EventKind;
use smallebot_application::pipeline::ServedSessions;
use smallebot_core::entities::HistoryRow;
use smallebot_core::repository::{HistoryRepository, HookRunRepository};
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

/// A home whose hooks.json has `hooks`.
fn home_with(hooks: &serde_json::Value) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("workspace")).unwrap();
    let text = serde_json::json!({ "hooks": hooks }).to_string();
    std::fs::write(home.path().join("hooks.json"), text).unwrap();
    home
}

async fn agent_and_store(home: &std::path::Path, model: &TestModel) -> (Agent, SqliteStore) {
    let store = SqliteStore::open(&home.join("smallebot.db")).await.unwrap();
    let agent = AgentAssembly::from_home_with_env(home, &|_| None)
        .unwrap()
        .store(Arc::new(store.clone()))
        .endpoint(ChatEndpoint::new(model.base_url(), "test-model"))
        .build()
        .unwrap();
    (agent, store)
}

#[tokio::test]
async fn session_start_context_reaches_the_first_request_and_is_stored() {
    let hooks = serde_json::json!({"SessionStart": [{"hooks": [{"type": "command",
        "command": "cat > /dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"SessionStart\", \"additionalContext\": \"session-context-marker\"}}'"}]}]});
    let home = home_with(&hooks);
    let model = TestModel::start().await.unwrap();
    model.respond_with(|_| ScriptedResponse::text("Hello."));
    let (agent, store) = agent_and_store(home.path(), &model).await;
    let conversation = agent.service.create_conversation("me").await.unwrap();
    agent
        .service
        .session_started(conversation.id, "startup")
        .await;
    for text in ["first", "second"] {
        agent
            .service
            .send(conversation.id, text, Default::default())
            .await
            .unwrap();
    }
    let requests = model.requests();
    let first = requests[0].last_user_text().unwrap();
    assert!(first.starts_with("first"), "{first}");
    assert!(
        first.contains("<session-start-hook>\nsession-context-marker\n</session-start-hook>"),
        "{first}"
    );
    let second = requests[1].last_user_text().unwrap();
    assert!(!second.contains("session-context-marker"), "{second}");
    // Stored in the message, as the model read it.
    let history = store.rows_after(conversation.id, 0).await.unwrap();
    let stored = history.iter().find_map(|row| match row {
        HistoryRow::Message(m) if m.content.starts_with("first") => Some(m.content.clone()),
        _ => None,
    });
    assert!(
        stored.is_some_and(|text| text.contains("session-context-marker")),
        "{history:?}"
    );
    model.shutdown().await;
}

#[tokio::test]
async fn a_failing_tool_hook_warns_the_person_and_its_runs_go_with_the_call() {
    let hooks = serde_json::json!({"PreToolUse": [{"matcher": "GetCurrentTime", "hooks": [
        {"type": "command", "command": "cat > /dev/null; echo broken >&2; exit 3"},
        {"type": "command", "command": "cat > /dev/null; exit 0"}]}]});
    let home = home_with(&hooks);
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::tool_calls([ToolCallSpec::new(
        "t1",
        "GetCurrentTime",
        "{}",
    )]));
    model.push(ScriptedResponse::text("Done."));
    let (agent, store) = agent_and_store(home.path(), &model).await;
    let conversation = agent.service.create_conversation("me").await.unwrap();
    let mut events = agent.service.subscribe(conversation.id);
    agent
        .service
        .send(conversation.id, "time?", Default::default())
        .await
        .unwrap();
    let mut seen = Vec::new();
    while let Some(event) = events.try_recv() {
        match event.kind {
            EventKind::HookWarning { call_id, message } => {
                assert_eq!(call_id.as_deref(), Some("t1"));
                assert!(message.contains("exited with 3: broken"), "{message}");
                seen.push("warning".to_owned());
            }
            EventKind::ToolCallHooks { call_id, hooks } => {
                assert_eq!(call_id, "t1");
                let decisions: Vec<_> = hooks.iter().map(|h| h.decision.as_str()).collect();
                assert_eq!(decisions, ["warning", ""], "{hooks:?}");
                seen.push("hooks".to_owned());
            }
            EventKind::ToolCallCompleted { .. } => seen.push("completed".to_owned()),
            _ => {}
        }
    }
    assert_eq!(seen, ["warning", "hooks", "completed"]);
    let runs = store.hook_runs(conversation.id).await.unwrap();
    assert!(
        runs.iter()
            .any(|r| r.decision == "warning" && r.exit_code == Some(3)),
        "{runs:?}"
    );
    model.shutdown().await;
}

#[tokio::test]
async fn a_web_users_hooks_run_in_that_users_folder() {
    let hooks = serde_json::json!({"UserPromptSubmit": [{"hooks": [{"type": "command",
        "command": "cat > \"$SMALLEBOT_HOME/input.json\"; echo \"$(pwd) $SMALLEBOT_WORKSPACE\" > \"$SMALLEBOT_HOME/where.txt\""}]}]});
    let home = home_with(&hooks);
    let folder = home.path().join("users/ann/workspace");
    std::fs::create_dir_all(&folder).unwrap();
    let folder = folder.canonicalize().unwrap();
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("Hello."));
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    let agent = AgentAssembly::from_home_with_env(home.path(), &|_| None)
        .unwrap()
        .workspace(folder.clone())
        .store(Arc::new(store))
        .endpoint(ChatEndpoint::new(model.base_url(), "test-model"))
        .build()
        .unwrap();
    let conversation = agent.service.create_conversation("ann").await.unwrap();
    agent
        .service
        .send(conversation.id, "hi", Default::default())
        .await
        .unwrap();
    let where_ = std::fs::read_to_string(home.path().join("where.txt")).unwrap();
    let folder = folder.display().to_string();
    assert_eq!(where_.trim(), format!("{folder} {folder}"));
    let input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join("input.json")).unwrap())
            .unwrap();
    assert_eq!(input["cwd"], folder.as_str());
    model.shutdown().await;
}

#[tokio::test]
async fn a_servers_sessions_start_on_a_first_turn_and_end_at_shutdown() {
    let log =
        r#"cat >> "$SMALLEBOT_HOME/sessions.jsonl"; echo >> "$SMALLEBOT_HOME/sessions.jsonl""#;
    let entry = serde_json::json!([{"hooks": [{"type": "command", "command": log}]}]);
    let hooks = serde_json::json!({"SessionStart": entry, "SessionEnd": entry});
    let home = home_with(&hooks);
    let model = TestModel::start().await.unwrap();
    model.respond_with(|_| ScriptedResponse::text("Hello."));
    let (agent, _store) = agent_and_store(home.path(), &model).await;
    let service = Arc::new(agent.service);
    let old = service.create_conversation("me").await.unwrap().id;
    service
        .send(old, "before", Default::default())
        .await
        .unwrap();
    let new = service.create_conversation("me").await.unwrap().id;
    let sessions = ServedSessions::new();
    sessions.turn_starting(&service, new).await;
    sessions.turn_starting(&service, old).await;
    sessions.turn_starting(&service, new).await; // not a first turn any more
    sessions.end_all().await;
    let text = std::fs::read_to_string(home.path().join("sessions.jsonl")).unwrap();
    let seen: Vec<(String, String, String)> = text
        .lines()
        .map(|line| {
            let input: serde_json::Value = serde_json::from_str(line).unwrap();
            let field = |name: &str| input[name].as_str().unwrap().to_owned();
            (
                field("hook_event_name"),
                field("trigger"),
                field("conversation_id"),
            )
        })
        .collect();
    let (old, new) = (old.to_string(), new.to_string());
    let expected = [
        ("SessionStart", "startup", &new),
        ("SessionStart", "resume", &old),
        ("SessionEnd", "shutdown", &new),
        ("SessionEnd", "shutdown", &old),
    ]
    .map(|(e, t, c)| (e.to_owned(), t.to_owned(), c.clone()));
    assert_eq!(seen, expected);
    model.shutdown().await;
}
