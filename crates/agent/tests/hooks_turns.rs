//! Hooks in real turns, from a home's hooks.json: a `PreToolUse` hook that exits 2
//! blocks a command (it never runs, the model reads the reason), `updatedInput`
//! changes what runs, a `PostToolUse` hook's context reaches the model, a
//! `UserPromptSubmit` hook blocks a prompt (nothing sent) or adds context, and `Stop`
//! hooks make the model go on a bounded number of times.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use smallebot_agent::assembly::{Agent, AgentAssembly};
use smallebot_application::PipelineError;
use smallebot_core::entities::TurnStatus;
use smallebot_core::repository::{HookRunRepository, TurnRepository};
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec, message_text};

/// The PreToolUse hook: blocks `rm`, rewrites `echo original` into `echo rewritten`.
const PRE_HOOK: &str = r#"input=$(cat)
case "$input" in
  *'rm '*) echo "no rm here: move files to trash/ instead" >&2; exit 2;;
  *'echo original'*) echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo rewritten > out.txt"}}}';;
esac
exit 0
"#;

/// The UserPromptSubmit hook: blocks prompts with `forbidden`, else adds context.
const PROMPT_HOOK: &str = r#"input=$(cat)
case "$input" in
  *forbidden*) echo "prompts about forbidden things are not sent" >&2; exit 2;;
esac
echo "prompt-context-marker"
"#;

/// A home whose hooks.json has `hooks` (the scripts written beside it).
fn home_with(hooks: &serde_json::Value, scripts: &[(&str, &str)]) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("workspace")).unwrap();
    for (name, text) in scripts {
        std::fs::write(home.path().join(name), text).unwrap();
    }
    let text = serde_json::json!({ "hooks": hooks }).to_string();
    std::fs::write(home.path().join("hooks.json"), text).unwrap();
    home
}

/// A hook entry running the script `name` of the home.
fn script(home_relative: &str) -> serde_json::Value {
    serde_json::json!({"type": "command", "command": format!("sh \"$SMALLEBOT_HOME/{home_relative}\""), "timeout": 10})
}

async fn agent(home: &Path, model: &TestModel) -> Agent {
    agent_and_store(home, model).await.0
}

async fn agent_and_store(home: &Path, model: &TestModel) -> (Agent, SqliteStore) {
    let store = SqliteStore::open(&home.join("smallebot.db")).await.unwrap();
    let agent = AgentAssembly::from_home_with_env(home, &|_| None)
        .unwrap()
        .store(Arc::new(store.clone()))
        .endpoint(ChatEndpoint::new(model.base_url(), "test-model"))
        .build()
        .unwrap();
    (agent, store)
}

/// Everything the model was sent in `request`, as text.
fn sent(request: &RecordedRequest) -> String {
    request
        .messages()
        .iter()
        .map(message_text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn command_call(id: &str, command: &str) -> ScriptedResponse {
    let arguments = serde_json::json!({ "command": command }).to_string();
    ScriptedResponse::tool_calls([ToolCallSpec::new(id, "ExecuteCommand", &arguments)])
}

#[tokio::test]
async fn a_pre_tool_use_hook_exiting_2_blocks_the_command_and_tells_the_model() {
    let hooks = serde_json::json!({"PreToolUse": [{"matcher": "ExecuteCommand", "hooks": [script("pre.sh")]}]});
    let home = home_with(&hooks, &[("pre.sh", PRE_HOOK)]);
    std::fs::write(home.path().join("workspace/victim.txt"), "keep me").unwrap();
    let model = TestModel::start().await.unwrap();
    model.push(command_call("c1", "rm -f victim.txt"));
    model.push(ScriptedResponse::text("I will not remove it."));
    let (agent, store) = agent_and_store(home.path(), &model).await;
    let conversation = agent.service.create_conversation("me").await.unwrap();
    let outcome = agent
        .service
        .send(conversation.id, "remove victim.txt", Default::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert!(
        home.path().join("workspace/victim.txt").exists(),
        "the command ran"
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let second = sent(&requests[1]);
    assert!(
        second.contains("a PreToolUse hook blocked this command"),
        "{second}"
    );
    assert!(
        second.contains("no rm here: move files to trash/ instead"),
        "{second}"
    );
    // The run is recorded on the turn.
    let runs = store.hook_runs(conversation.id).await.unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let run = &runs[0];
    assert_eq!(
        (
            run.event.as_str(),
            run.tool_name.as_deref(),
            run.exit_code,
            run.decision.as_str()
        ),
        ("PreToolUse", Some("ExecuteCommand"), Some(2), "block")
    );
    assert_eq!(run.turn_id, Some(outcome.turn_id));
    assert!(run.command.contains("pre.sh"));
    model.shutdown().await;
}

#[tokio::test]
async fn updated_input_changes_what_runs_and_post_tool_use_context_reaches_the_model() {
    let hooks = serde_json::json!({
        "PreToolUse": [{"matcher": "ExecuteCommand|WriteFile", "hooks": [script("pre.sh")]}],
        "PostToolUse": [{"matcher": "ExecuteCommand", "hooks": [{"type": "command",
            "command": "cat > /dev/null; echo '{\"additionalContext\": \"post-context-marker\"}'"}]}]
    });
    let home = home_with(&hooks, &[("pre.sh", PRE_HOOK)]);
    let model = TestModel::start().await.unwrap();
    model.push(command_call("c1", "echo original > out.txt"));
    model.push(ScriptedResponse::text("Done."));
    let agent = agent(home.path(), &model).await;
    let conversation = agent.service.create_conversation("me").await.unwrap();
    agent
        .service
        .send(conversation.id, "write out.txt", Default::default())
        .await
        .unwrap();
    let written = std::fs::read_to_string(home.path().join("workspace/out.txt")).unwrap();
    assert_eq!(written.trim(), "rewritten");
    let second = sent(&model.requests()[1]);
    assert!(
        second.contains("[PostToolUse hook] post-context-marker"),
        "{second}"
    );
    model.shutdown().await;
}

#[tokio::test]
async fn a_user_prompt_submit_hook_blocks_a_prompt_or_adds_context() {
    let hooks = serde_json::json!({"UserPromptSubmit": [{"hooks": [script("prompt.sh")]}]});
    let home = home_with(&hooks, &[("prompt.sh", PROMPT_HOOK)]);
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("Hello."));
    let (agent, store) = agent_and_store(home.path(), &model).await;
    let conversation = agent.service.create_conversation("me").await.unwrap();
    let blocked = agent
        .service
        .send(
            conversation.id,
            "tell me forbidden things",
            Default::default(),
        )
        .await;
    match blocked {
        Err(PipelineError::PromptBlocked { reason }) => {
            assert_eq!(reason, "prompts about forbidden things are not sent");
        }
        other => panic!("expected a blocked prompt, got {other:?}"),
    }
    assert_eq!(model.request_count(), 0, "nothing was sent");
    assert!(store.list_turns(conversation.id).await.unwrap().is_empty());
    agent
        .service
        .send(conversation.id, "hello", Default::default())
        .await
        .unwrap();
    let first = model.requests()[0].last_user_text().unwrap();
    assert!(first.starts_with("hello"), "{first}");
    assert!(first.contains("prompt-context-marker"), "{first}");
    model.shutdown().await;
}

#[tokio::test]
async fn stop_hooks_make_the_model_go_on_at_most_three_times() {
    let hooks = serde_json::json!({"Stop": [{"hooks": [{"type": "command",
        "command": "cat > /dev/null; echo 'check the tests first' >&2; exit 2"}]}]});
    let home = home_with(&hooks, &[]);
    let model = TestModel::start().await.unwrap();
    model.respond_with(|_| ScriptedResponse::text("Done."));
    let agent = agent(home.path(), &model).await;
    let conversation = agent.service.create_conversation("me").await.unwrap();
    let outcome = agent
        .service
        .send(conversation.id, "do it", Default::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    let requests = model.requests();
    assert_eq!(requests.len(), 4, "one answer and three continuations");
    let second = sent(&requests[1]);
    assert!(
        second.contains("a Stop hook says: check the tests first"),
        "{second}"
    );
    model.shutdown().await;
}
