//! Stopping a turn that delegated: a Ctrl+C (SIGINT) to `run` while a sub-agent waits
//! for its model leaves no turn `running`, the parent's nor the sub-agent's, on SQLite
//! and on PostgreSQL.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use smallebot_core::entities::TurnStatus;
use smallebot_core::repository::Store;
use smallebot_infrastructure::SqliteStore;
use smallebot_postgres::PgStore;
use smallebot_testkit::postgres::TestCluster;
use smallebot_testkit::{Gate, ScriptedResponse, TestModel, ToolCallSpec};

/// Runs a turn whose sub-agent never gets its answer, interrupts `run`, and returns
/// once it exited.
async fn interrupt_a_delegating_run(home: &Path, database: Option<&str>) {
    let agents = home.join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("slow.md"),
        "---\nname: slow\ndescription: Never done.\n---\nYou are slow.\n",
    )
    .unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    let never = Gate::new();
    let held = never.clone();
    let is_slow = |r: &smallebot_testkit::RecordedRequest| {
        r.messages()
            .first()
            .and_then(|m| m["content"].as_str())
            .is_some_and(|s| s.contains("You are slow."))
    };
    model.answer_when(is_slow, move |_| {
        ScriptedResponse::text("late").hold_until(&held)
    });
    model.respond_with(|_| {
        let args = json!({"agent": "slow", "prompt": "Take your time.", "description": "wait"});
        ScriptedResponse::tool_calls([ToolCallSpec::new("d1", "Delegate", args.to_string())])
    });
    let mut command = cli::smallebot(home, Some(&model.base_url()));
    if let Some(url) = database {
        command.args(["--database", url]);
    }
    let child = command.args(["run", "Delegate and wait."]).spawn().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !model.requests().iter().any(is_slow) {
        assert!(
            std::time::Instant::now() < deadline,
            "the sub-agent never asked"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id().unwrap()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("run exits after Ctrl+C")
        .unwrap();
    assert!(!out.status.success(), "{}", cli::text(&out.stderr));
    drop(never);
}

/// No turn of `store` is running; the parent's and the sub-agent's turns ended
/// stopped.
async fn assert_nothing_running(store: Arc<dyn Store>) {
    assert_eq!(store.running_turns().await.unwrap(), vec![]);
    let conversations = store.list_conversations(None).await.unwrap();
    assert_eq!(conversations.len(), 2, "{conversations:?}");
    let sub = conversations
        .iter()
        .find(|c| c.title == "slow: wait")
        .expect("the sub-agent's conversation");
    for conversation in &conversations {
        let turns = store.list_turns(conversation.id).await.unwrap();
        assert_eq!(turns.len(), 1, "{}", conversation.title);
        assert!(
            matches!(
                turns[0].status,
                TurnStatus::Cancelled | TurnStatus::Interrupted
            ),
            "{} ended {:?}",
            conversation.title,
            turns[0].status
        );
    }
    let parent = conversations.iter().find(|c| c.id != sub.id).unwrap();
    let link = sub.parent.as_ref().expect("linked to its parent");
    assert_eq!(link.parent_conversation_id, parent.id);
    assert_eq!(link.parent_tool_call_id, "d1");
    assert_eq!(link.agent_name, "slow");
    assert_eq!(parent.parent, None);
}

#[tokio::test]
async fn interrupting_the_parent_stops_its_sub_agent_on_sqlite() {
    let home = tempfile::tempdir().unwrap();
    interrupt_a_delegating_run(home.path(), None).await;
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    assert_nothing_running(Arc::new(store)).await;
}

#[tokio::test]
async fn interrupting_the_parent_stops_its_sub_agent_on_postgres() {
    let Some(cluster) = TestCluster::start("interrupting_the_parent_stops_its_sub_agent") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let home = tempfile::tempdir().unwrap();
    interrupt_a_delegating_run(home.path(), Some(&url)).await;
    let store = PgStore::connect(&url).await.unwrap();
    assert_nothing_running(Arc::new(store)).await;
}
