//! `smallebot serve` through the real binary: it listens on loopback, answers the API
//! with the configured model, refuses other addresses, and stops on a signal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use smallebot_testkit::{ScriptedResponse, TestModel};

fn command(home: &Path, base_url: &str) -> tokio::process::Command {
    cli::smallebot(home, Some(base_url))
}

/// Reads `file` every 50 ms until it holds text, for at most 30 s.
async fn text_of(file: &Path) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        match std::fs::read_to_string(file) {
            Ok(text) if !text.is_empty() => return text,
            _ => assert!(
                std::time::Instant::now() < deadline,
                "{} was never written",
                file.display()
            ),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn serve_answers_the_api_on_loopback() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.push(ScriptedResponse::text("served answer"));
    let mut serve = command(home.path(), &model.base_url());
    serve.args(["serve", "--addr", "127.0.0.1:0"]);
    let (mut child, banner, base) = cli::start_serving(serve).await;
    assert!(banner.contains("tester's conversations"), "{banner}");
    assert!(banner.contains(&format!("{base}/")), "{banner}");

    let http = reqwest::Client::new();
    let health = http.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
    let created: Value = http
        .post(format!("{base}/api/conversations"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(created["user_name"], "tester");
    let id = created["id"].as_str().unwrap();
    let started = http
        .post(format!("{base}/api/conversations/{id}/messages"))
        .json(&serde_json::json!({"text": "hello server"}))
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);
    // The answer is stored by the pipeline behind the server.
    let mut answered = false;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        let timeline: Value = http
            .get(format!("{base}/api/conversations/{id}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if timeline["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["content"] == "served answer")
        {
            answered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(answered, "the answer was stored");
    // The process's metrics, to a scraper on loopback without a token: the turn ended
    // (its end is counted as its event is emitted, which may follow the stored answer).
    let mut counted = false;
    while !counted && std::time::Instant::now() < deadline {
        let metrics = http.get(format!("{base}/metrics")).send().await.unwrap();
        assert_eq!(metrics.status(), reqwest::StatusCode::OK);
        let text = metrics.text().await.unwrap();
        assert!(text.ends_with("# EOF\n"), "{text}");
        counted = text.contains("smallebot_turns_total{outcome=\"completed\"} 1");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(counted, "the completed turn is counted");
    // The turn's request (the title's, beside it, quotes the message after its
    // instruction).
    assert!(
        model
            .requests()
            .iter()
            .any(|r| r.last_user_text().as_deref() == Some("hello server"))
    );
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}

#[tokio::test]
async fn serve_open_hands_the_page_address_to_the_browser() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    // A "browser" that writes down what it was asked to open.
    let opened = home.path().join("opened.txt");
    let browser = home.path().join("browser.sh");
    std::fs::write(
        &browser,
        format!(
            "#!/bin/sh\necho \"$1\" > '{0}.partial' && mv '{0}.partial' '{0}'\n",
            opened.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &browser,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let mut serve = command(home.path(), &model.base_url());
    serve
        .args(["serve", "--addr", "127.0.0.1:0", "--open"])
        .env("BROWSER", &browser);
    let (mut child, _, base) = cli::start_serving(serve).await;
    let url = format!("{base}/");
    assert_eq!(text_of(&opened).await.trim(), url);
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}

#[tokio::test]
async fn serve_refuses_addresses_beyond_loopback() {
    let home = tempfile::tempdir().unwrap();
    let out = command(home.path(), "http://127.0.0.1:9")
        .args(["serve", "--addr", "0.0.0.0:8080"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing to listen on 0.0.0.0:8080"),
        "{stderr}"
    );
    assert!(stderr.contains("loopback"), "{stderr}");
}

#[tokio::test]
async fn beyond_loopback_each_user_signs_in_with_the_token_printed_once() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    let add = |name: &str| {
        let mut c = command(home.path(), &model.base_url());
        c.args(["users", "add", name]);
        c.output()
    };
    let carol = add("carol").await.unwrap();
    assert!(
        carol.status.success(),
        "{}",
        String::from_utf8_lossy(&carol.stderr)
    );
    let token = String::from_utf8(carol.stdout).unwrap().trim().to_owned();
    assert_eq!(token.len(), 64, "{token}");
    assert!(String::from_utf8_lossy(&carol.stderr).contains("cannot be shown again"));
    let again = add("carol").await.unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"));
    for bad in ["no spaces please", "..", ".hidden", "a/b"] {
        let refused = add(bad).await.unwrap();
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains("cannot be a user name"),
            "{bad}"
        );
    }
    // Only the digest is stored.
    let db = std::fs::read(home.path().join("smallebot.db")).unwrap();
    assert!(!db.windows(token.len()).any(|w| w == token.as_bytes()));

    let mut serve = command(home.path(), &model.base_url());
    serve.args(["serve", "--addr", "0.0.0.0:0", "--public-name", "127.0.0.1"]);
    let (mut child, banner, base) = cli::start_serving(serve).await;
    assert!(banner.contains("signs in"), "{banner}");
    assert!(banner.contains("http://0.0.0.0:"), "{banner}");
    let http = reqwest::Client::new();
    let anonymous = http
        .get(format!("{base}/api/conversations"))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), reqwest::StatusCode::UNAUTHORIZED);
    let created: Value = http
        .post(format!("{base}/api/conversations"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(created["user_name"], "carol");
    // Carol's tools work in her own folder.
    cli::answer_titles(&model);
    model.push_all([
        smallebot_testkit::ScriptedResponse::tool_calls([smallebot_testkit::ToolCallSpec::new(
            "w1",
            "WriteFile",
            r#"{"path":"note.txt","content":"carol was here"}"#,
        )]),
        ScriptedResponse::text("Written."),
    ]);
    let id = created["id"].as_str().unwrap();
    let started = http
        .post(format!("{base}/api/conversations/{id}/messages"))
        .bearer_auth(&token)
        .json(&serde_json::json!({"text": "write a note"}))
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);
    let mine = home.path().join("workspace/users/carol/note.txt");
    assert_eq!(text_of(&mine).await, "carol was here");
    assert!(!home.path().join("workspace/note.txt").exists());
    // Removing carol revokes her token at once.
    let mut remove = command(home.path(), &model.base_url());
    let removed = remove
        .args(["users", "remove", "carol"])
        .output()
        .await
        .unwrap();
    assert!(
        removed.status.success(),
        "{}",
        String::from_utf8_lossy(&removed.stderr)
    );
    let revoked = http
        .get(format!("{base}/api/conversations"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), reqwest::StatusCode::UNAUTHORIZED);
    let mut again = command(home.path(), &model.base_url());
    let unknown = again
        .args(["users", "remove", "carol"])
        .output()
        .await
        .unwrap();
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no user named 'carol'"));
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}
