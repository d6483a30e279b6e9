//! `GET /api/conversations/{id}/export?format=md|json`.

use crate::common;

use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_testkit::ScriptedResponse;
use smallebot_web::auth::new_token;

#[tokio::test]
async fn a_conversation_downloads_as_markdown_or_json() {
    let s = Server::start().await;
    let id = s.create().await;
    s.model
        .push(ScriptedResponse::text("Use `<script>` **carefully**."));
    s.turn(&id, "teach me HTML").await;
    let rename = s.rename(&id, "HTML: a primer").await;
    assert_eq!(rename.status(), StatusCode::OK);

    for path in [
        format!("/api/conversations/{id}/export"),
        format!("/api/conversations/{id}/export?format=md"),
    ] {
        let md = s.http.get(s.url(&path)).send().await.unwrap();
        assert_eq!(md.status(), StatusCode::OK);
        assert_eq!(md.headers()["content-type"], "text/markdown; charset=utf-8");
        assert_eq!(
            md.headers()["content-disposition"],
            "attachment; filename=\"HTML-a-primer.md\""
        );
        assert_eq!(md.headers()["cache-control"], "no-store");
        let text = md.text().await.unwrap();
        assert!(text.starts_with("# HTML: a primer\n"), "{text}");
        assert!(
            text.contains("## Assistant\n\nUse `<script>` **carefully**.\n"),
            "the model's text as is: {text}"
        );
    }

    let json_export = s
        .http
        .get(s.url(&format!("/api/conversations/{id}/export?format=json")))
        .send()
        .await
        .unwrap();
    assert_eq!(
        json_export.headers()["content-disposition"],
        "attachment; filename=\"HTML-a-primer.json\""
    );
    let body: Value = json_export.json().await.unwrap();
    assert_eq!(body["conversation"]["id"], id.as_str());
    assert_eq!(body["turns"][0]["status"], "completed");
    assert_eq!(body["answer_versions"], json!([]), "nothing was replaced");
    let contents: Vec<_> = body["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["teach me HTML", "Use `<script>` **carefully**."]);

    let bad = s
        .http
        .get(s.url(&format!("/api/conversations/{id}/export?format=pdf")))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn another_users_conversation_is_not_found() {
    let (alice, bob) = (new_token(), new_token());
    let users = common::users(&[(&alice, "alice"), (&bob, "bob")]);
    let s = Server::start_with(|web| web.users(users)).await;
    let id = s.create_as(&alice).await;
    let path = format!("/api/conversations/{id}/export");
    let get = |token: &str| s.http.get(s.url(&path)).bearer_auth(token).send();
    assert_eq!(get(&alice).await.unwrap().status(), StatusCode::OK);
    assert_eq!(get(&bob).await.unwrap().status(), StatusCode::NOT_FOUND);
}
