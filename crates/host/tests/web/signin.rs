//! Signing in for 30 days, signing out, who is signed in, the limit on failed tries,
//! and a server behind a reverse proxy on 443.

use crate::common;

use std::sync::Arc;

use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_web::PublicName;
use smallebot_web::auth::new_token;

fn carol(token: &str) -> Arc<common::Users> {
    common::users(&[(token, "carol")])
}

async fn login(s: &Server, token: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = s
        .http
        .post(s.url("/api/login"))
        .json(&json!({ "token": token }));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

fn cookie(response: &reqwest::Response) -> String {
    response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn the_cookie_lasts_30_days_signs_out_and_names_the_user() {
    let token = new_token();
    let s = Server::start_with(|web| web.users(carol(&token))).await;
    let signed_in = login(&s, &token, &[]).await;
    assert_eq!(signed_in.status(), StatusCode::OK);
    let set = cookie(&signed_in);
    assert!(
        set.starts_with(&format!("smallebot_token={token};")),
        "{set}"
    );
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=2592000"] {
        assert!(set.contains(attribute), "{attribute}: {set}");
    }
    assert!(!set.contains("Secure"), "plain http: {set}");

    // Over https (as the browser or the proxy says) the cookie is Secure.
    let origin = s.base.replace("http://", "https://");
    for headers in [
        vec![("origin", origin.as_str())],
        vec![("x-forwarded-proto", "https")],
    ] {
        let set = cookie(&login(&s, &token, &headers).await);
        assert!(set.ends_with("; Secure"), "{headers:?}: {set}");
    }

    let me = s
        .http
        .get(s.url("/api/me"))
        .header("cookie", format!("smallebot_token={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), StatusCode::OK);
    assert_eq!(
        me.json::<Value>().await.unwrap(),
        json!({"name": "carol", "sign_in": true, "admin": false})
    );
    let anonymous = s.http.get(s.url("/api/me")).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);

    let out = s.http.post(s.url("/api/logout")).send().await.unwrap();
    assert_eq!(out.status(), StatusCode::NO_CONTENT);
    let cleared = cookie(&out);
    assert!(cleared.starts_with("smallebot_token=;"), "{cleared}");
    assert!(cleared.contains("Max-Age=0"), "{cleared}");
}

#[tokio::test]
async fn without_users_me_is_the_local_user_who_does_not_sign_in() {
    let s = Server::start().await;
    assert_eq!(
        s.get_json("/api/me").await,
        json!({"name": "alice", "sign_in": false, "admin": true})
    );
}

#[tokio::test]
async fn failed_sign_ins_are_limited_per_client() {
    let token = new_token();
    let s = Server::start_with(|web| web.users(carol(&token))).await;
    for _ in 0..5 {
        let wrong = login(&s, &new_token(), &[]).await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    }
    // Even the right token waits now.
    let limited = login(&s, &token, &[]).await;
    assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((590..=600).contains(&retry), "{retry}");
    let body: Value = limited.json().await.unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("try again in"),
        "{body}"
    );
    // A token on an API request is not a sign-in try: it still works.
    let listed = s
        .http
        .get(s.url("/api/conversations"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), StatusCode::OK);
}

#[tokio::test]
async fn an_https_public_name_answers_the_proxys_host_and_origin() {
    let token = new_token();
    let name = PublicName::parse("https://bot.example.com").unwrap();
    let s = Server::start_with(|web| {
        let hosts = name.hosts(443);
        web.allow_hosts(hosts)
            .https(name.https)
            .users(carol(&token))
    })
    .await;
    let proxied = login(
        &s,
        &token,
        &[
            ("host", "bot.example.com"),
            ("origin", "https://bot.example.com"),
        ],
    )
    .await;
    assert_eq!(proxied.status(), StatusCode::OK);
    assert!(cookie(&proxied).ends_with("; Secure"));
    let elsewhere = login(
        &s,
        &token,
        &[
            ("host", "bot.example.com"),
            ("origin", "https://evil.example"),
        ],
    )
    .await;
    assert_eq!(elsewhere.status(), StatusCode::FORBIDDEN);
}
