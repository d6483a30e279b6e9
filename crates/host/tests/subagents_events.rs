//! Sub-agents seen on their parent's event stream (`run --json`): each `Delegate` call's
//! sub-agent says it started (agent, description, task, its conversation), each of its
//! tool calls as it starts and ends, and how it finished — all on the parent's
//! conversation and turn, before the call's own `ToolCallCompleted`.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod subagents_support;

use serde_json::{Value, json};
use smallebot_core::repository::ConversationRepository;
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use subagents_support::{delegate, home_with_two_agents, of_agent};

/// The events of `call` whose type starts with `SubAgent`, and the index of the call's
/// `ToolCallCompleted` among all events.
fn of_call<'a>(events: &'a [Value], call: &str) -> (Vec<&'a Value>, usize) {
    let sub: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"].as_str().unwrap().starts_with("SubAgent") && e["call_id"] == call)
        .collect();
    let completed = events
        .iter()
        .position(|e| e["type"] == "ToolCallCompleted" && e["call_id"] == call)
        .expect("the call completes");
    (sub, completed)
}

#[tokio::test]
async fn the_parents_stream_carries_each_sub_agents_start_tool_calls_and_end() {
    let home = home_with_two_agents();
    std::fs::create_dir_all(home.path().join("workspace")).unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.answer_when(
        |r| of_agent(r, "lister"),
        |r| {
            if r.last_role() == Some("tool") {
                ScriptedResponse::text("lister listed")
            } else {
                ScriptedResponse::tool_calls([ToolCallSpec::new("l1", "ListFiles", "{}")])
            }
        },
    );
    model.answer_when(
        |r| of_agent(r, "reader"),
        |_| {
            ScriptedResponse::http_error(
                400,
                json!({"error": {"message": "reader's model refused"}}),
            )
        },
    );
    model.respond_with(|r| {
        if r.last_role() == Some("tool") {
            ScriptedResponse::text("Done.")
        } else {
            ScriptedResponse::tool_calls([
                delegate("d1", "lister", "List the workspace.", "list the files"),
                delegate("d2", "reader", "Read notes.txt.", "read the notes"),
            ])
        }
    });
    let out = cli::smallebot(home.path(), Some(&model.base_url()))
        .args(["run", "--json", "Two helpers."])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", cli::text(&out.stderr));
    let events: Vec<Value> = cli::text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let start = events.iter().find(|e| e["type"] == "TurnStarted").unwrap();
    let parent = start["conversation_id"].clone();
    let turn = start["turn_id"].clone();
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    let conversations = store.list_conversations(None).await.unwrap();
    let sub_id = |title: &str| {
        conversations
            .iter()
            .find(|c| c.title == title)
            .expect(title)
            .id
            .to_string()
    };

    let (lister, completed) = of_call(&events, "d1");
    let kinds: Vec<(&str, &str, u64)> = lister
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap(),
                e["status"].as_str().or(e["outcome"].as_str()).unwrap_or(""),
                e["tool_calls"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("SubAgentStarted", "", 0),
            ("SubAgentToolCall", "running", 1),
            ("SubAgentToolCall", "ok", 1),
            ("SubAgentFinished", "completed", 1),
        ]
    );
    let started = lister[0];
    assert_eq!(started["agent"], "lister");
    assert_eq!(started["description"], "list the files");
    assert_eq!(started["task"], "List the workspace.");
    assert_eq!(lister[1]["tool_name"], "ListFiles");
    let lister_id = sub_id("lister: list the files");
    for event in &lister {
        assert_eq!(event["conversation_id"], parent, "{event}");
        assert_eq!(event["turn_id"], turn, "{event}");
        assert_eq!(event["sub_conversation_id"], lister_id.as_str(), "{event}");
        assert_eq!(event["agent"], "lister", "{event}");
    }
    let last = events.iter().position(|e| e == lister[3]).unwrap();
    assert!(last < completed, "finished before the call's result");

    let (reader, completed) = of_call(&events, "d2");
    assert_eq!(reader.len(), 2, "{reader:?}");
    assert_eq!(reader[0]["type"], "SubAgentStarted");
    assert_eq!(
        reader[0]["sub_conversation_id"],
        sub_id("reader: read the notes").as_str()
    );
    let finished = reader[1];
    assert_eq!(finished["type"], "SubAgentFinished");
    assert_eq!(finished["outcome"], "failed");
    assert_eq!(finished["tool_calls"], 0);
    let error = finished["error"].as_str().unwrap();
    assert!(error.contains("reader's model refused"), "{error}");
    assert!(events.iter().position(|e| e == finished).unwrap() < completed);
    // The sub-agents' own events stay on their own streams.
    assert!(
        events.iter().all(|e| e["conversation_id"] == parent),
        "only the parent's events"
    );
}
