//! `Delegate` with `resume`: a later turn of the parent continues an earlier sub-agent
//! conversation with its history; a conversation that is no sub-agent of this parent
//! is refused.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use serde_json::{Value, json};
use smallebot_core::repository::ConversationRepository;
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};

fn is_memo(request: &RecordedRequest) -> bool {
    request
        .messages()
        .first()
        .and_then(|m| m["content"].as_str())
        .is_some_and(|s| s.contains("You are memo."))
}

fn texts(request: &RecordedRequest) -> Vec<String> {
    request
        .messages()
        .iter()
        .filter_map(|m| m["content"].as_str().map(str::to_owned))
        .collect()
}

async fn run(home: &std::path::Path, model: &TestModel, args: &[&str]) -> String {
    let out = cli::smallebot(home, Some(&model.base_url()))
        .args(args)
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", cli::text(&out.stderr));
    cli::text(&out.stdout)
}

#[tokio::test]
async fn resume_continues_an_earlier_sub_agent_with_its_history() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("agents")).unwrap();
    std::fs::write(
        home.path().join("agents/memo.md"),
        "---\nname: memo\ndescription: Remembers.\ntools: []\n---\nYou are memo.\n",
    )
    .unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.answer_when(is_memo, |r| {
        if texts(r).iter().any(|t| t == "What was the word?") {
            ScriptedResponse::text("The word was kiwi.")
        } else {
            ScriptedResponse::text("Noted: kiwi.")
        }
    });
    let delegate = |args: Value| {
        ScriptedResponse::tool_calls([ToolCallSpec::new("d1", "Delegate", args.to_string())])
    };
    // Turn 1: a new sub-agent.
    model.push(delegate(
        json!({"agent": "memo", "prompt": "Remember the word kiwi.", "description": "remember"}),
    ));
    model.push(ScriptedResponse::text("Stored."));
    run(home.path(), &model, &["run", "Have memo remember kiwi."]).await;
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    let conversations = store.list_conversations(None).await.unwrap();
    let parent = conversations.iter().find(|c| c.parent.is_none()).unwrap();
    let sub = conversations.iter().find(|c| c.parent.is_some()).unwrap();
    // Turn 2: the same sub-agent again; then its parent's own id, refused.
    model.push(delegate(
        json!({"prompt": "What was the word?", "description": "ask", "resume": sub.id.to_string()}),
    ));
    model.push(ScriptedResponse::text("Asked."));
    let parent_id = parent.id.to_string();
    model.push(delegate(
        json!({"prompt": "Hi", "description": "wrong", "resume": parent_id}),
    ));
    model.push(ScriptedResponse::text("Refused."));
    let shown = run(
        home.path(),
        &model,
        &[
            "run",
            "--conversation",
            &parent_id,
            "Ask memo for the word.",
        ],
    )
    .await;
    assert_eq!(shown.trim(), "Asked.");
    run(
        home.path(),
        &model,
        &["run", "--conversation", &parent_id, "Resume yourself."],
    )
    .await;
    let requests = model.requests();
    let resumed = requests.iter().rfind(|r| is_memo(r)).unwrap();
    let seen = texts(resumed);
    for earlier in [
        "Remember the word kiwi.",
        "Noted: kiwi.",
        "What was the word?",
    ] {
        assert!(seen.iter().any(|t| t == earlier), "{earlier}: {seen:?}");
    }
    let results: Vec<String> = requests
        .iter()
        .filter(|r| !is_memo(r) && r.last_role() == Some("tool"))
        .map(|r| texts(r).last().cloned().unwrap_or_default())
        .collect();
    assert_eq!(results.len(), 3, "{results:?}");
    assert!(results[1].starts_with("The word was kiwi."), "{results:?}");
    assert!(
        results[1].contains(&format!("conversation {}", sub.id)),
        "{results:?}"
    );
    assert!(
        results[2].starts_with(&format!(
            "Error: '{parent_id}' is no sub-agent conversation of this conversation"
        )),
        "{results:?}"
    );
    // Still two conversations: the resumed run added a turn, no conversation.
    let conversations = store.list_conversations(None).await.unwrap();
    assert_eq!(conversations.len(), 2);
}
