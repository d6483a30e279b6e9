//! Budgets through the real binary: a `perConversation` budget stops a turn before the
//! model request that could pass it — the request is never sent, the turn's work so
//! far is kept, `run` says why and exits 4 — and what was spent stays within it.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use cli::text;
use serde_json::{Value, json};
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

/// The conversation budget, in USD.
const LIMIT: f64 = 0.02;

/// A home whose one model, at `model`, costs 2 USD per million prompt tokens and 8 per
/// million completion tokens, with answers of at most 200 tokens: a request can cost at
/// most about 0.0016 + prompt × 0.000002.
fn priced_home(model: &TestModel) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let models = json!({"default": "big", "models": [{
        "id": "big", "baseUrl": model.base_url(), "model": "scripted",
        "maxOutputTokens": 200,
        "pricing": {"inputPerMTok": 2, "outputPerMTok": 8, "currency": "USD"}}]});
    std::fs::write(home.path().join("models.json"), models.to_string()).unwrap();
    home
}

#[tokio::test]
async fn a_conversation_budget_stops_the_turn_before_the_request_that_could_pass_it() {
    let model = TestModel::start().await.unwrap();
    let home = priced_home(&model);
    let agent = json!({"budgets": {"perConversation": LIMIT}, "maxToolSteps": 200});
    std::fs::write(home.path().join("agent.json"), agent.to_string()).unwrap();
    std::fs::create_dir_all(home.path().join("workspace")).unwrap();
    // The model never stops calling tools; each step reports 1000 prompt and 100
    // completion tokens (0.0028 USD).
    model.respond_with(|r| {
        if r.asks_for_title() {
            return ScriptedResponse::text("A title").usage(10, 2);
        }
        let n = r.tool_results_since_user();
        ScriptedResponse::tool_calls([ToolCallSpec::new(format!("c{n}"), "ListFiles", "{}")])
            .usage(1000, 100)
    });
    let out = cli::smallebot(home.path(), None)
        .args(["run", "Keep listing the files."])
        .output()
        .await
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    for words in [
        "budget reached",
        "perConversation",
        "of 0.020000 USD",
        "The request was not sent",
        "error: the turn was stopped by a budget (conversation",
    ] {
        assert!(stderr.contains(words), "{words:?} in {stderr}");
    }
    let usage = cli::smallebot(home.path(), None)
        .args(["usage", "--json"])
        .output()
        .await
        .unwrap();
    let report: Value = serde_json::from_str(&text(&usage.stdout)).unwrap();
    let spent = report["total"]["cost"]["USD"]["picos"].as_i64().unwrap();
    let limit = (LIMIT * 1e12) as i64;
    assert!(spent <= limit, "spent {spent} picos of {limit}");
    // Every request the model received is recorded, and one more was refused unsent.
    let sent = model.requests().len() as i64;
    assert_eq!(report["total"]["requests"].as_i64().unwrap(), sent);
    assert_eq!(report["total"]["refused_requests"].as_i64().unwrap(), 1);
    let steps = sent - 1; // the title's request is one of them
    assert!(steps >= 3, "the turn ran a few steps first: {steps}");
    // The work before the stop is kept: its tool calls are stored, the turn failed
    // with the reason.
    let list = text(
        &cli::smallebot(home.path(), None)
            .args(["conversations", "list"])
            .output()
            .await
            .unwrap()
            .stdout,
    );
    let id = list.split_whitespace().next().unwrap().to_owned();
    let shown = text(
        &cli::smallebot(home.path(), None)
            .args(["conversations", "show", &id])
            .output()
            .await
            .unwrap()
            .stdout,
    );
    assert_eq!(shown.matches("ListFiles").count() as i64, steps, "{shown}");
    assert!(shown.contains("budget reached"), "{shown}");
}

/// Four sub-agents at once spend from their parent's turn budget: each request holds
/// its projected cost while it runs, so together they never pass the budget.
#[tokio::test]
async fn sub_agents_running_at_once_never_pass_their_turn_budget_together() {
    let model = TestModel::start().await.unwrap();
    let home = priced_home(&model);
    let agent = json!({"budgets": {"perTurn": LIMIT}, "maxToolSteps": 200,
                       "maxParallelAgents": 4});
    std::fs::write(home.path().join("agent.json"), agent.to_string()).unwrap();
    let agents = home.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("looper.md"),
        "---\nname: looper\ndescription: Lists files forever.\ntools: ListFiles\n---\nYou are looper.\n",
    )
    .unwrap();
    std::fs::create_dir_all(home.path().join("workspace")).unwrap();
    model.respond_with(|r| {
        if r.asks_for_title() {
            return ScriptedResponse::text("A title").usage(10, 2);
        }
        let looper = r
            .messages()
            .first()
            .and_then(|m| m["content"].as_str())
            .is_some_and(|s| s.contains("You are looper."));
        let n = r.tool_results_since_user();
        if looper {
            // Slow enough that the four overlap.
            return ScriptedResponse::tool_calls([ToolCallSpec::new(
                format!("l{n}"),
                "ListFiles",
                "{}",
            )])
            .usage(1000, 100)
            .delay_before(std::time::Duration::from_millis(30));
        }
        if n == 0 {
            let calls = (0..4).map(|k| {
                let args = json!({"agent": "looper", "prompt": format!("task {k}"),
                                  "description": format!("task {k}")});
                ToolCallSpec::new(format!("d{k}"), "Delegate", args.to_string())
            });
            ScriptedResponse::tool_calls(calls).usage(1000, 100)
        } else {
            ScriptedResponse::text("done").usage(1000, 100)
        }
    });
    let out = cli::smallebot(home.path(), None)
        .args(["run", "Delegate four loops."])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let usage = cli::smallebot(home.path(), None)
        .args(["usage", "--json"])
        .output()
        .await
        .unwrap();
    let report: Value = serde_json::from_str(&text(&usage.stdout)).unwrap();
    let spent = report["total"]["cost"]["USD"]["picos"].as_i64().unwrap();
    let title = 10 * 2_000_000 + 2 * 8_000_000;
    let limit = (LIMIT * 1e12) as i64;
    assert!(
        spent - title <= limit,
        "the turn spent {} picos of {limit}",
        spent - title
    );
    // The sub-agents did run side by side and were stopped by the same budget.
    assert!(
        report["total"]["refused_requests"].as_i64().unwrap() >= 4,
        "{report}"
    );
    assert!(
        report["total"]["requests"].as_i64().unwrap() > 4,
        "{report}"
    );
}

#[tokio::test]
async fn a_users_own_monthly_budget_replaces_the_configured_one() {
    let model = TestModel::start().await.unwrap();
    let home = priced_home(&model);
    let agent = json!({"budgets": {"perUserMonthly": 1000}});
    std::fs::write(home.path().join("agent.json"), agent.to_string()).unwrap();
    model.respond_with(|r| {
        if r.asks_for_title() {
            return ScriptedResponse::text("A title").usage(10, 2);
        }
        ScriptedResponse::text("Done.").usage(1000, 100)
    });
    let smallebot = |args: &[&str]| {
        let mut command = cli::smallebot(home.path(), None);
        command.args(args);
        command.output()
    };
    for args in [
        &["users", "add", "ann"][..],
        &["users", "add", "bob"],
        &["users", "set", "ann", "--budget-monthly", "0.0001"],
    ] {
        let out = smallebot(args).await.unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
    let listed = smallebot(&["users", "list"]).await.unwrap();
    assert_eq!(text(&listed.stdout), "ann  budget-monthly 0.000100\nbob\n");
    let bad = smallebot(&["users", "set", "ann", "--budget-monthly", "lots"])
        .await
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("'lots' is not a budget"),
        "{}",
        text(&bad.stderr)
    );
    // Ann's own budget (0.0001) is below one request's projection; agent.json's
    // (1000) is not.
    let ann = smallebot(&["run", "--user", "ann", "Hello."])
        .await
        .unwrap();
    let stderr = text(&ann.stderr);
    assert_eq!(ann.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("perUserMonthly budget of 0.000100 USD"),
        "{stderr}"
    );
    let bob = smallebot(&["run", "--user", "bob", "Hello."])
        .await
        .unwrap();
    assert!(bob.status.success(), "{}", text(&bob.stderr));
    // Cleared, agent.json's applies to Ann again.
    let cleared = smallebot(&["users", "set", "ann", "--budget-monthly", "none"])
        .await
        .unwrap();
    assert!(cleared.status.success(), "{}", text(&cleared.stderr));
    let again = smallebot(&["run", "--user", "ann", "Hello again."])
        .await
        .unwrap();
    assert!(again.status.success(), "{}", text(&again.stderr));
    let unknown = smallebot(&["users", "set", "zed", "--budget-monthly", "5"])
        .await
        .unwrap();
    assert_eq!(unknown.status.code(), Some(1));
    assert!(text(&unknown.stderr).contains("no user named 'zed'"));
}
