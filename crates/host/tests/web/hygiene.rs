//! Answers the browser must not keep, and titles that cannot reorder the text around
//! them.

use crate::common;

use common::Server;
use reqwest::StatusCode;
use serde_json::Value;
use smallebot_testkit::ScriptedResponse;

#[tokio::test]
async fn api_answers_are_not_stored_and_the_page_may_be() {
    let s = Server::start().await;
    let id = s.create().await;
    for path in [
        "/api/conversations".to_owned(),
        format!("/api/conversations/{id}"),
        "/api/search?q=x".to_owned(),
        "/api/conversations/not-an-id".to_owned(),
    ] {
        let answer = s.http.get(s.url(&path)).send().await.unwrap();
        assert_eq!(
            answer.headers()["cache-control"],
            "no-store",
            "{path}: {:?}",
            answer.status()
        );
    }
    let page = s.http.get(s.url("/healthz")).send().await.unwrap();
    assert!(page.headers().get("cache-control").is_none());
}

#[tokio::test]
async fn titles_lose_control_characters_and_bidi_overrides() {
    let s = Server::start().await;
    let id = s.create().await;
    let renamed: Value = s
        .rename(&id, "invoice\u{202E}fdp.exe\u{1b}[31m\n\u{2066}x")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(renamed["title"], "invoice fdp.exe [31m x");
    let only_controls = s.rename(&id, "\u{202E}\u{7}").await;
    assert_eq!(only_controls.status(), StatusCode::BAD_REQUEST);

    // A generated title is cleaned the same way.
    let other = s.create().await;
    s.answer_titles_with("Evil\u{202E}title\u{7}");
    s.model.push(ScriptedResponse::text("hello"));
    s.turn(&other, "hi").await;
    let mut title = String::new();
    for _ in 0..100 {
        let body = s.get_json(&format!("/api/conversations/{other}")).await;
        title = body["conversation"]["title"].as_str().unwrap().to_owned();
        if title != "hi" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(title, "Evil title");
}
