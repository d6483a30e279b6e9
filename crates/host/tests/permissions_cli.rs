//! Permission rules through the real binary: agent.json's `deny` rules refuse a
//! command of the parent, a `Delegate` to a denied agent and a sub-agent's own file
//! call (its tools are the parent's, behind the same rules). Each refused call's
//! result names the rule, reaches the model's next request and is stored as denied;
//! nothing refused runs.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod subagents_support;

use std::time::Duration;

use cli::text;
use serde_json::json;
use smallebot_core::entities::{HistoryRow, ToolCallStatus};
use smallebot_core::repository::{ConversationRepository, HistoryRepository};
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use subagents_support::{delegate, home_with_two_agents, of_agent, tool_results};

const AGENT_JSON: &str = r#"{"permissions": {"deny": [
    "ExecuteCommand(rm:*)", "Delegate(lister)", "ReadFile(secret/**)"
]}}"#;

#[tokio::test]
async fn run_refuses_what_a_deny_rule_names_and_the_model_reads_which_rule() {
    let home = home_with_two_agents();
    std::fs::write(home.path().join("agent.json"), AGENT_JSON).unwrap();
    let workspace = home.path().join("workspace");
    std::fs::create_dir_all(workspace.join("secret")).unwrap();
    std::fs::write(workspace.join("secret/key.txt"), "s3cret").unwrap();
    std::fs::create_dir_all(workspace.join("keep")).unwrap();

    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    // The reader sub-agent tries the secret file, then says what it got.
    model.answer_when(
        |r| of_agent(r, "reader"),
        |r| {
            if r.last_role() == Some("tool") {
                ScriptedResponse::text(format!("reader got: {}", tool_results(r).join(" | ")))
            } else {
                let args = json!({"path": "secret/key.txt"}).to_string();
                ScriptedResponse::tool_calls([ToolCallSpec::new("r1", "ReadFile", args)])
            }
        },
    );
    model.respond_with(|r| {
        if r.last_role() == Some("tool") {
            ScriptedResponse::text("Done.")
        } else {
            let rm = json!({"command": "true && rm -rf keep"}).to_string();
            ScriptedResponse::tool_calls([
                ToolCallSpec::new("c1", "ExecuteCommand", rm),
                delegate("d1", "lister", "List the files.", "list the files"),
                delegate("d2", "reader", "Read secret/key.txt.", "read the key"),
            ])
        }
    });
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        cli::smallebot(home.path(), Some(&model.base_url()))
            .args(["run", "Clean up and read the key."])
            .output(),
    )
    .await
    .expect("run ends")
    .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "Done.");
    assert!(workspace.join("keep").is_dir(), "the denied command ran");

    // The parent's next request carries each refusal with its rule.
    let requests = model.requests();
    let last = requests
        .iter()
        .rev()
        .find(|r| !of_agent(r, "reader") && r.last_role() == Some("tool"))
        .expect("the parent's second request");
    let results = tool_results(last);
    assert_eq!(results.len(), 3, "{results:?}");
    let denied = |what: &str, rule: &str| {
        format!(
            "Error: this {what} was denied by the permission rule `deny {rule}` in \
             agent.json; it was not run. Do not retry it: do the task another way, or ask \
             the user to change the rule."
        )
    };
    assert_eq!(results[0], denied("command", "ExecuteCommand(rm:*)"));
    assert_eq!(results[1], denied("call of Delegate", "Delegate(lister)"));
    // The reader ran, and its own ReadFile was refused by the parent's rule.
    assert!(
        results[2].starts_with(&format!(
            "reader got: {}",
            denied("call of ReadFile", "ReadFile(secret/**)")
        )),
        "{results:?}"
    );
    assert!(!results[2].contains("s3cret"), "{results:?}");
    assert!(
        requests.iter().all(|r| !of_agent(r, "lister")),
        "lister ran"
    );

    // Stored as denied.
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    let conversations = store.list_conversations(None).await.unwrap();
    let parent = conversations.iter().find(|c| c.parent.is_none()).unwrap();
    let calls: Vec<_> = store
        .rows_after(parent.id, 0)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|row| match row {
            HistoryRow::ToolCall(call) => Some(call),
            _ => None,
        })
        .collect();
    let status = |id: &str| calls.iter().find(|c| c.call_id == id).unwrap().status;
    assert_eq!(status("c1"), ToolCallStatus::Denied);
    assert_eq!(status("d1"), ToolCallStatus::Denied);
    assert_eq!(status("d2"), ToolCallStatus::Ok);
}
