//! With users, every API request needs a user's token (header or cookie), and each
//! user sees only their own conversations.

use crate::common;

use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_web::auth::new_token;

#[tokio::test]
async fn requests_need_a_users_token_and_see_only_that_users_conversations() {
    let (alice, bob) = (new_token(), new_token());
    let users = common::users(&[(&alice, "alice"), (&bob, "bob")]);
    let s = Server::start_with(|web| web.users(users)).await;
    let get = |path: &str, token: Option<&str>| {
        let mut request = s.http.get(s.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };

    // Without a token: the page and health answer, the API does not.
    assert_eq!(get("/", None).await.unwrap().status(), StatusCode::OK);
    assert_eq!(
        get("/healthz", None).await.unwrap().status(),
        StatusCode::OK
    );
    let anonymous = get("/api/conversations", None).await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    let body: Value = anonymous.json().await.unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("sign in"),
        "{body}"
    );
    let forged = get("/api/conversations", Some(&new_token())).await.unwrap();
    assert_eq!(forged.status(), StatusCode::UNAUTHORIZED);

    // Alice's conversation is hers.
    let created: Value = s
        .http
        .post(s.url("/api/conversations"))
        .bearer_auth(&alice)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(created["user_name"], "alice");
    let id = created["id"].as_str().unwrap();
    let mine: Value = get("/api/conversations", Some(&alice))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(mine.as_array().unwrap().len(), 1);
    // Bob neither lists, reads, streams nor deletes it.
    let his: Value = get("/api/conversations", Some(&bob))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(his.as_array().unwrap().len(), 0);
    for path in [
        format!("/api/conversations/{id}"),
        format!("/api/conversations/{id}/events"),
    ] {
        assert_eq!(
            get(&path, Some(&bob)).await.unwrap().status(),
            StatusCode::NOT_FOUND
        );
    }
    let deleted = s
        .http
        .delete(s.url(&format!("/api/conversations/{id}")))
        .bearer_auth(&bob)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::NOT_FOUND);

    // The page signs in once; the cookie it gets is HttpOnly and SameSite=Strict.
    let refused = s
        .http
        .post(s.url("/api/login"))
        .json(&json!({ "token": new_token() }))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert!(refused.headers().get("set-cookie").is_none());
    let login = s
        .http
        .post(s.url("/api/login"))
        .json(&json!({ "token": alice }))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), StatusCode::OK);
    let cookie = login.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let pair = cookie.split(';').next().unwrap().to_owned();
    assert_eq!(login.json::<Value>().await.unwrap()["user"], "alice");
    let by_cookie: Value = s
        .http
        .get(s.url("/api/conversations"))
        .header("cookie", pair)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(by_cookie[0]["id"], json!(id));
}
