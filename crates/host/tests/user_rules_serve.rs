//! A user's own permission rules in multi-user `serve` (`users set NAME --deny RULE`):
//! Ann's `--deny 'ExecuteCommand(touch:*)'` refuses her `touch` — the file is not made,
//! the model's next request names her rule — while Bob's same command runs; cleared, her
//! next turn runs it, without restarting `serve`. A malformed rule is refused by the CLI,
//! naming it, and nothing is stored.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod sandbox_support;

use std::path::Path;
use std::time::{Duration, Instant};

use cli::text;
use serde_json::json;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};

/// Runs the binary on `home`: whether it succeeded, its stdout and stderr.
async fn smallebot(home: &Path, model: &TestModel, args: &[&str]) -> (Option<i32>, String, String) {
    let out = cli::smallebot(home, Some(&model.base_url()))
        .args(args)
        .output()
        .await
        .unwrap();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// The content of the tool result the model received for the call made in the turn
/// whose prompt was `prompt`, once it came.
async fn result_for(model: &TestModel, prompt: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let found = model.requests().into_iter().find_map(|r: RecordedRequest| {
            let messages = r.messages();
            let asked = messages
                .iter()
                .any(|m| m["role"] == "user" && m["content"].to_string().contains(prompt));
            let result = messages.iter().rev().find(|m| m["role"] == "tool")?;
            (asked && r.last_role() == Some("tool"))
                .then(|| result["content"].as_str().unwrap_or_default().to_owned())
        });
        if let Some(found) = found {
            return found;
        }
        assert!(Instant::now() < deadline, "no tool result for {prompt:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_users_deny_rule_refuses_their_command_only() {
    if !sandbox_support::landlock_or_skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.respond_with(|r| {
        if r.last_role() == Some("tool") {
            ScriptedResponse::text("Done.")
        } else {
            let call = json!({ "command": "touch made" }).to_string();
            ScriptedResponse::tool_calls([ToolCallSpec::new("t1", "ExecuteCommand", call)])
        }
    });
    let mut tokens = Vec::new();
    for name in ["ann", "bob"] {
        let (code, out, err) = smallebot(home, &model, &["users", "add", name]).await;
        assert_eq!(code, Some(0), "{err}");
        tokens.push(out.trim().to_owned());
    }
    let (code, _, err) = smallebot(
        home,
        &model,
        &["users", "set", "ann", "--deny", "ExecuteCommand(touch:*)"],
    )
    .await;
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("their own rules"), "{err}");
    let (_, listed, _) = smallebot(home, &model, &["users", "list"]).await;
    assert_eq!(listed, "ann  deny ExecuteCommand(touch:*)\nbob\n");

    let mut serve = cli::smallebot(home, Some(&model.base_url()));
    serve.args(["serve", "--addr", "0.0.0.0:0", "--public-name", "127.0.0.1"]);
    let (mut child, _, base) = cli::start_serving(serve).await;
    let http = reqwest::Client::new();
    let send = |token: &str, text: &'static str| {
        let (http, base, token) = (http.clone(), base.clone(), token.to_owned());
        async move {
            let created: serde_json::Value = http
                .post(format!("{base}/api/conversations"))
                .bearer_auth(&token)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let id = created["id"].as_str().unwrap();
            let started = http
                .post(format!("{base}/api/conversations/{id}/messages"))
                .bearer_auth(&token)
                .json(&json!({ "text": text }))
                .send()
                .await
                .unwrap();
            assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);
        }
    };
    let made = |user: &str| home.join("workspace/users").join(user).join("made");

    send(&tokens[0], "Ann: make the file.").await;
    let refused = result_for(&model, "Ann: make the file.").await;
    assert!(
        refused.contains("denied by user ann's own permission rule `deny ExecuteCommand(touch:*)`"),
        "{refused}"
    );
    assert!(!made("ann").exists(), "Ann's command never ran");

    send(&tokens[1], "Bob: make the file.").await;
    let ran = result_for(&model, "Bob: make the file.").await;
    assert!(!ran.contains("denied"), "{ran}");
    assert!(made("bob").is_file(), "Bob's command ran: {ran}");

    // Cleared while serve runs: Ann's next turn runs the command.
    let (code, _, err) = smallebot(home, &model, &["users", "set", "ann", "--clear-rules"]).await;
    assert_eq!(code, Some(0), "{err}");
    send(&tokens[0], "Ann: make it again.").await;
    let ran = result_for(&model, "Ann: make it again.").await;
    assert!(!ran.contains("denied"), "{ran}");
    assert!(made("ann").is_file(), "{ran}");

    child.start_kill().unwrap();
    child.wait().await.unwrap();
}

#[tokio::test]
async fn a_malformed_user_rule_is_refused_naming_it_and_nothing_is_stored() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let model = TestModel::start().await.unwrap();
    let (code, _, err) = smallebot(home, &model, &["users", "add", "ann"]).await;
    assert_eq!(code, Some(0), "{err}");
    for (args, says) in [
        (
            &[
                "users",
                "set",
                "ann",
                "--deny",
                "ExecuteCommand(ls",
                "--ask",
                "ReadFile",
            ][..],
            "permission rule `ExecuteCommand(ls` is invalid: the pattern is not closed",
        ),
        (
            &["users", "set", "ann", "--ask", "Bash(ls)"],
            "permission rule `Bash(ls)` names the tool `Bash`, which does not exist",
        ),
        (
            &["users", "set", "ann", "--allow", "ReadFile"],
            "unexpected argument '--allow'",
        ),
        (
            &["users", "set", "ann"],
            "required arguments were not provided",
        ),
    ] {
        let (code, _, err) = smallebot(home, &model, args).await;
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let (_, listed, _) = smallebot(home, &model, &["users", "list"]).await;
    assert_eq!(listed, "ann\n", "nothing stored");
    let (code, _, err) =
        smallebot(home, &model, &["users", "set", "zed", "--deny", "ReadFile"]).await;
    assert_eq!(code, Some(1));
    assert!(err.contains("no user named 'zed'"), "{err}");
}
