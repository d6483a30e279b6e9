//! Sub-agents through the real binary: a scripted model makes two `Delegate` calls in
//! one step; each sub-agent (defined in its own file) calls a tool before answering;
//! both run at once (their first requests are both received before either is
//! answered), both answers reach the parent's next request as tool results, each ran in
//! a conversation of its own, and `run` prints the parent's answer.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod subagents_support;

use std::time::Duration;

use cli::text;
use serde_json::json;
use smallebot_core::entities::SubAgentLink;
use smallebot_core::repository::{ConversationRepository, TurnRepository};
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{Gate, ScriptedResponse, TestModel, ToolCallSpec};
use subagents_support::{delegate, home_with_two_agents, of_agent, system, tool_results};

/// Waits for `run` to end well, checks its stdout is `answer`, and returns the tool
/// results of the parent's last request.
async fn finished(
    run: tokio::task::JoinHandle<std::io::Result<std::process::Output>>,
    model: &TestModel,
    answer: &str,
) -> Vec<String> {
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("run ends")
        .unwrap()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), answer);
    let requests = model.requests();
    let last = requests
        .iter()
        .rev()
        .find(|r| !of_agent(r, "lister") && !of_agent(r, "reader") && r.last_role() == Some("tool"))
        .expect("the parent's second request");
    tool_results(last)
}

#[tokio::test]
async fn two_delegate_calls_run_two_sub_agents_at_once() {
    let home = home_with_two_agents();
    let workspace = home.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("notes.txt"), "the notes say hello").unwrap();

    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    // Each sub-agent's first answer (its tool call) waits until both asked.
    let both_asked = Gate::new();
    for (agent, tool, args) in [
        ("lister", "ListFiles", json!({})),
        ("reader", "ReadFile", json!({"path": "notes.txt"})),
    ] {
        let held = both_asked.clone();
        model.answer_when(
            move |r| of_agent(r, agent),
            move |r| {
                if r.last_role() == Some("tool") {
                    let seen = tool_results(r).join(" | ");
                    ScriptedResponse::text(format!("{agent} saw: {seen}"))
                } else {
                    ScriptedResponse::tool_calls([ToolCallSpec::new(
                        format!("{agent}-1"),
                        tool,
                        args.to_string(),
                    )])
                    .hold_until(&held)
                }
            },
        );
    }
    model.respond_with(|r| {
        if r.last_role() == Some("tool") {
            ScriptedResponse::text("Both sub-agents are done.")
        } else {
            ScriptedResponse::tool_calls([
                delegate("d1", "lister", "List the workspace.", "list the files"),
                delegate("d2", "reader", "Read notes.txt.", "read the notes"),
            ])
        }
    });
    let run = cli::smallebot(home.path(), Some(&model.base_url()))
        .args(["run", "Look at the workspace with two helpers."])
        .output();
    let run = tokio::spawn(run);
    // Both sub-agents' first requests arrive while neither has been answered.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let requests = model.requests();
        let asked = |agent| requests.iter().any(|r| of_agent(r, agent));
        if asked("lister") && asked("reader") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the two sub-agents did not ask at once: {:?}",
            requests.iter().map(system).collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    both_asked.open();
    let results = finished(run, &model, "Both sub-agents are done.").await;
    let requests = model.requests();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].starts_with("lister saw: "), "{results:?}");
    assert!(results[0].contains("notes.txt"), "{results:?}");
    assert!(results[1].starts_with("reader saw: "), "{results:?}");
    assert!(results[1].contains("the notes say hello"), "{results:?}");
    // Each sub-agent saw only the tools its file names (never Delegate).
    for (agent, tool) in [("lister", "ListFiles"), ("reader", "ReadFile")] {
        let first = requests.iter().find(|r| of_agent(r, agent)).unwrap();
        let names: Vec<&str> = first.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, [tool], "{agent}");
    }
    // Each ran in a conversation of its own, linked to the parent's call, hidden from
    // `conversations list` unless `--all`, listed by `conversations show` of the parent.
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    let conversations = store.list_conversations(None).await.unwrap();
    assert_eq!(conversations.len(), 3);
    let parent = conversations.iter().find(|c| c.parent.is_none()).unwrap();
    for (call, agent, title) in [
        ("d1", "lister", "lister: list the files"),
        ("d2", "reader", "reader: read the notes"),
    ] {
        let sub = conversations
            .iter()
            .find(|c| c.title == title)
            .expect(title);
        assert_eq!(
            sub.parent,
            Some(SubAgentLink {
                parent_conversation_id: parent.id,
                parent_tool_call_id: call.into(),
                agent_name: agent.into(),
            })
        );
        assert_eq!(store.list_turns(sub.id).await.unwrap().len(), 1);
    }
    let listed = cli::listed(home.path()).await;
    assert_eq!(listed.lines().count(), 1, "{listed}");
    let (ok, all, _) = cli::outcome(home.path(), &["conversations", "list", "--all"]).await;
    assert!(ok);
    assert!(
        all.contains(&format!(
            "lister: list the files  [sub-agent lister of {}]",
            parent.id
        )),
        "{all}"
    );
    let id = parent.id.to_string();
    let (ok, shown, _) = cli::outcome(home.path(), &["conversations", "show", &id]).await;
    assert!(ok);
    assert!(shown.contains("Sub-agents:\n"), "{shown}");
    // Each with how its turn ended and how many tool calls it made (one each).
    assert!(
        shown.contains("  lister  call d1  lister: list the files  (completed, 1 tool call(s))"),
        "{shown}"
    );
    assert!(
        shown.contains("  reader  call d2  reader: read the notes  (completed, 1 tool call(s))"),
        "{shown}"
    );
}

#[tokio::test]
async fn with_max_parallel_agents_1_the_second_waits_and_a_failing_one_answers_its_error() {
    let home = home_with_two_agents();
    std::fs::write(
        home.path().join("agent.json"),
        r#"{"maxParallelAgents": 1}"#,
    )
    .unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    let first_answer = Gate::new();
    let held = first_answer.clone();
    model.answer_when(
        |r| of_agent(r, "lister"),
        move |_| ScriptedResponse::text("lister is done").hold_until(&held),
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
            ScriptedResponse::text("Reported both.")
        } else {
            ScriptedResponse::tool_calls([
                delegate("d1", "lister", "List.", "list"),
                delegate("d2", "reader", "Read.", "read"),
                delegate("d3", "nobody", "Hm.", "nobody"),
            ])
        }
    });
    let run = tokio::spawn(
        cli::smallebot(home.path(), Some(&model.base_url()))
            .args(["run", "Two helpers, one at a time."])
            .output(),
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !model.requests().iter().any(|r| of_agent(r, "lister")) {
        assert!(std::time::Instant::now() < deadline, "lister never asked");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // One place: the reader waits for the lister's.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!model.requests().iter().any(|r| of_agent(r, "reader")));
    first_answer.open();
    let results = finished(run, &model, "Reported both.").await;
    assert_eq!(results.len(), 3, "{results:?}");
    assert!(results[0].starts_with("lister is done"), "{results:?}");
    assert!(
        results[1].starts_with("Error: the sub-agent 'reader' failed: ")
            && results[1].contains("reader's model refused"),
        "{results:?}"
    );
    assert!(
        results[2].starts_with(
            "Error: no agent is called 'nobody'. Available agents: general, lister, reader."
        ),
        "{results:?}"
    );
}
