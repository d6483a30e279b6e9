//! `GET /api/usage` through `serve`: the body is `smallebot usage --json`'s for the same
//! filters; a user sees only their own (another user's is 403), an admin everyone's;
//! `/api/me` says who is an admin.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;

use cli::text;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_testkit::{ScriptedResponse, TestModel};

/// A home whose one model is priced, answering every request with reported tokens.
fn home(model: &TestModel) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let models = json!({"default": "big", "models": [{
        "id": "big", "baseUrl": model.base_url(), "model": "scripted",
        "pricing": {"inputPerMTok": 2, "outputPerMTok": 8, "currency": "USD"}}]});
    std::fs::write(home.path().join("models.json"), models.to_string()).unwrap();
    model.respond_with(|r| {
        if r.asks_for_title() {
            return ScriptedResponse::text("A title").usage(10, 2);
        }
        ScriptedResponse::text("Done.").usage(1000, 100)
    });
    home
}

/// Runs the binary on `home`; its standard output, after checking it succeeded.
async fn smallebot(home: &Path, args: &[&str]) -> String {
    let out = cli::smallebot(home, None)
        .args(args)
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// `GET {base}{path}` with `token`: the status and the JSON body.
async fn get(base: &str, path: &str, token: &str) -> (StatusCode, Value) {
    let answer = reqwest::Client::new()
        .get(format!("{base}{path}"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let status = answer.status();
    (status, answer.json().await.unwrap())
}

#[tokio::test]
async fn usage_over_http_is_the_cli_report_within_what_the_user_may_see() {
    let model = TestModel::start().await.unwrap();
    let home = home(&model);
    let home = home.path();
    let ann = smallebot(home, &["users", "add", "ann"])
        .await
        .trim()
        .to_owned();
    let boss = smallebot(home, &["users", "add", "boss", "--admin"])
        .await
        .trim()
        .to_owned();
    smallebot(home, &["users", "add", "bob"]).await;
    assert_eq!(
        smallebot(home, &["users", "list"]).await,
        "ann\nbob\nboss  admin\n"
    );
    smallebot(home, &["run", "--user", "ann", "Hello."]).await;
    smallebot(home, &["run", "--user", "ann", "Hello again."]).await;
    smallebot(home, &["run", "--user", "bob", "Hi."]).await;
    let cli_report = |args: &'static [&'static str]| async move {
        let mut all = vec!["usage", "--json"];
        all.extend_from_slice(args);
        serde_json::from_str::<Value>(&smallebot(home, &all).await).unwrap()
    };

    let mut serve = cli::smallebot(home, None);
    serve.args(["serve", "--addr", "0.0.0.0:0", "--public-name", "127.0.0.1"]);
    let (mut child, _, base) = cli::start_serving(serve).await;

    // Ann: her own, the CLI's body for --user ann; never Bob's.
    let (status, mine) = get(&base, "/api/usage", &ann).await;
    assert_eq!(status, StatusCode::OK, "{mine}");
    assert_eq!(mine, cli_report(&["--user", "ann"]).await);
    assert_eq!(
        mine["total"]["requests"], 4,
        "two turns and two titles: {mine}"
    );
    let (status, by_day) = get(&base, "/api/usage?user=ann&by=day&since=2026-01-01", &ann).await;
    assert_eq!(status, StatusCode::OK, "{by_day}");
    assert_eq!(
        by_day,
        cli_report(&["--user", "ann", "--by", "day", "--since", "2026-01-01"]).await
    );
    let (status, refused) = get(&base, "/api/usage?user=bob", &ann).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("only an admin"));
    let (status, bad) = get(&base, "/api/usage?by=week", &ann).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .contains("'week' is no grouping")
    );
    let (_, me) = get(&base, "/api/me", &ann).await;
    assert_eq!(me["admin"], false);

    // One of Ann's conversations: its own requests only.
    let (_, conversations) = get(&base, "/api/conversations", &ann).await;
    let id = conversations[0]["id"].as_str().unwrap().to_owned();
    let (status, one) = get(&base, &format!("/api/usage?conversation={id}"), &ann).await;
    assert_eq!(status, StatusCode::OK, "{one}");
    assert_eq!(one["conversation"], id.as_str());
    assert_eq!(one["total"]["requests"], 2, "a turn and its title: {one}");
    let (_, as_admin) = get(&base, &format!("/api/usage?conversation={id}"), &boss).await;
    assert_eq!(as_admin["total"], one["total"], "an admin sees it too");

    // The admin: everyone's, and any user's.
    let (_, me) = get(&base, "/api/me", &boss).await;
    assert_eq!(me["admin"], true);
    let (status, all) = get(&base, "/api/usage?by=user", &boss).await;
    assert_eq!(status, StatusCode::OK, "{all}");
    assert_eq!(all, cli_report(&["--by", "user"]).await);
    assert_eq!(all["groups"].as_array().unwrap().len(), 2, "{all}");
    let (status, bobs) = get(&base, "/api/usage?user=bob", &boss).await;
    assert_eq!(status, StatusCode::OK, "{bobs}");
    assert_eq!(bobs, cli_report(&["--user", "bob"]).await);

    child.start_kill().unwrap();
    child.wait().await.unwrap();
}
