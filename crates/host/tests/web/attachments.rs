//! Attachments over the API: upload (multipart) and the served content's headers,
//! another user's 404, the limits (`413`, nothing stored), one content per digest, the
//! timeline's attachments, and an image reaching a model that sees images (refused
//! before any request for one that does not).

use crate::common;

use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_application::PipelineSettings;
use smallebot_core::repository::AttachmentRepository;
use smallebot_core::rules::attachment::AttachmentLimits;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::files::png_header;
use smallebot_web::auth::new_token;

const BOUNDARY: &str = "smallebot-test-boundary";

/// A `multipart/form-data` body of `files` (name, content), one part each.
pub fn multipart(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, content) in files {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; \
                 filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// `POST …/attachments` with `files`, as the user of `token` (the local user without).
pub async fn upload(
    s: &Server,
    id: &str,
    files: &[(&str, &[u8])],
    token: Option<&str>,
) -> reqwest::Response {
    let mut request = s
        .http
        .post(s.url(&format!("/api/conversations/{id}/attachments")))
        .header(
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(multipart(files));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

/// The attachments an upload answered.
async fn uploaded(response: reqwest::Response) -> Vec<Value> {
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    body["attachments"].as_array().unwrap().clone()
}

/// A server whose model sees images, or not.
pub async fn server(images: bool) -> Server {
    Server::start_full(
        |agent, base| {
            let endpoint = ChatEndpoint::new(base, "test");
            agent.endpoint(if images {
                endpoint.with_images()
            } else {
                endpoint
            })
        },
        |web| web,
    )
    .await
}

/// A server with these attachment limits.
pub async fn limited_server(limits: AttachmentLimits) -> Server {
    Server::start_custom(
        |agent| {
            agent.pipeline(PipelineSettings {
                attachments: limits,
                ..PipelineSettings::default()
            })
        },
        |web| web,
    )
    .await
}

#[tokio::test]
async fn an_upload_is_served_back_with_its_sniffed_type_and_safe_headers() {
    let s = server(false).await;
    let id = s.create().await;
    let png = png_header(64, 32);
    let files = uploaded(
        upload(
            &s,
            &id,
            &[("shot é 1.png", &png), ("notes.txt", b"hello\n")],
            None,
        )
        .await,
    )
    .await;
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["kind"], "image");
    assert_eq!(files[0]["media_type"], "image/png");
    assert_eq!(
        (files[0]["width"].clone(), files[0]["height"].clone()),
        (json!(64), json!(32))
    );
    assert_eq!(files[0]["size"], json!(png.len()));
    assert_eq!(files[1]["kind"], "text");

    let image = s
        .http
        .get(s.url(&format!(
            "/api/conversations/{id}/attachments/{}",
            files[0]["id"].as_str().unwrap()
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(image.status(), StatusCode::OK);
    let headers = image.headers().clone();
    assert_eq!(headers["content-type"], "image/png");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .starts_with("sandbox")
    );
    assert_eq!(
        headers["content-disposition"],
        "inline; filename=\"shot _ 1.png\"; filename*=UTF-8''shot%20%C3%A9%201.png"
    );
    assert_eq!(image.bytes().await.unwrap().as_ref(), png.as_slice());
}

#[tokio::test]
async fn svg_and_html_are_downloads_that_run_nothing() {
    let s = server(false).await;
    let id = s.create().await;
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";
    let html = b"<!DOCTYPE html><html><body><script>alert(1)</script></body></html>";
    let files = uploaded(upload(&s, &id, &[("x.svg", svg), ("x.html", html)], None).await).await;
    for file in &files {
        let served = s
            .http
            .get(s.url(&format!(
                "/api/conversations/{id}/attachments/{}",
                file["id"].as_str().unwrap()
            )))
            .send()
            .await
            .unwrap();
        assert_eq!(served.status(), StatusCode::OK);
        let headers = served.headers();
        assert_eq!(headers["x-content-type-options"], "nosniff", "{file}");
        assert!(
            headers["content-security-policy"]
                .to_str()
                .unwrap()
                .starts_with("sandbox"),
            "{file}"
        );
        assert!(
            headers["content-disposition"]
                .to_str()
                .unwrap()
                .starts_with("attachment;"),
            "{file}"
        );
        assert_ne!(headers["content-type"], "text/html", "{file}");
    }
}

#[tokio::test]
async fn another_users_attachment_is_not_found() {
    let (alice, bob) = (new_token(), new_token());
    let users = common::users(&[(&alice, "alice"), (&bob, "bob")]);
    let s = Server::start_with(|web| web.users(users)).await;
    let id = s.create_as(&alice).await;
    let files = uploaded(upload(&s, &id, &[("a.txt", b"secret")], Some(&alice)).await).await;
    let path = format!(
        "/api/conversations/{id}/attachments/{}",
        files[0]["id"].as_str().unwrap()
    );
    let get = |token: &str| s.http.get(s.url(&path)).bearer_auth(token).send();
    assert_eq!(get(&alice).await.unwrap().status(), StatusCode::OK);
    assert_eq!(get(&bob).await.unwrap().status(), StatusCode::NOT_FOUND);
    // Bob cannot upload into it either, nor reach the file through his own conversation.
    let refused = upload(&s, &id, &[("b.txt", b"mine")], Some(&bob)).await;
    assert_eq!(refused.status(), StatusCode::NOT_FOUND);
    let his = s.create_as(&bob).await;
    let through_his = s
        .http
        .get(s.url(&format!(
            "/api/conversations/{his}/attachments/{}",
            files[0]["id"].as_str().unwrap()
        )))
        .bearer_auth(&bob)
        .send()
        .await
        .unwrap();
    assert_eq!(through_his.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn an_oversized_file_is_refused_with_nothing_stored_and_a_duplicate_is_stored_once() {
    let s = limited_server(AttachmentLimits {
        max_file_bytes: 2048,
        max_message_bytes: 3000,
        ..AttachmentLimits::default()
    })
    .await;
    let id = s.create().await;
    let big = vec![b'a'; 4096];
    let refused = upload(&s, &id, &[("small.txt", b"ok"), ("big.txt", &big)], None).await;
    assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("big.txt"),
        "{body}"
    );
    // Together over the per-message limit: refused too, nothing stored.
    let half = vec![b'b'; 2000];
    let together = upload(&s, &id, &[("one.txt", &half), ("two.txt", &half)], None).await;
    assert_eq!(together.status(), StatusCode::PAYLOAD_TOO_LARGE);
    // Far past the body limit: refused while reading.
    let huge = vec![b'c'; 200_000];
    let past = upload(&s, &id, &[("huge.txt", &huge)], None).await;
    assert_eq!(past.status(), StatusCode::PAYLOAD_TOO_LARGE);
    // Nothing was stored: "small.txt" is not waiting to be sent.
    let stored = s
        .store
        .conversation_attachments(id.parse().unwrap())
        .await
        .unwrap();
    assert!(stored.is_empty(), "{stored:?}");

    // The same content twice: two attachments over one stored content.
    let files =
        uploaded(upload(&s, &id, &[("x.txt", b"same"), ("y.txt", b"same")], None).await).await;
    assert_ne!(files[0]["id"], files[1]["id"]);
}

#[tokio::test]
async fn an_image_reaches_a_model_that_sees_images_and_shows_in_the_timeline() {
    let s = server(true).await;
    let id = s.create().await;
    let png = png_header(8, 8);
    let files = uploaded(upload(&s, &id, &[("shot.png", &png)], None).await).await;
    let aid = files[0]["id"].as_str().unwrap().to_owned();
    let mut events = s.open_events(&id, None).await;
    let started = s
        .send(
            &id,
            json!({ "text": "what is this?", "attachments": [aid] }),
        )
        .await;
    assert_eq!(started.status(), StatusCode::ACCEPTED);
    events.until_turn_ends().await;
    let request = s.turn_requests().pop().unwrap();
    let parts = request.last_user_parts();
    let image = parts.iter().find(|p| p["type"] == "image_url").unwrap();
    assert!(
        image["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,"),
        "{image}"
    );

    let timeline = s.get_json(&format!("/api/conversations/{id}")).await;
    let user = timeline["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["role"] == "user")
        .unwrap();
    assert_eq!(user["attachments"][0]["id"], json!(aid));
    assert_eq!(user["attachments"][0]["name"], "shot.png");
    // Found by its name, as an attachment.
    let hits = s.get_json("/api/search?q=shot.png").await;
    let hit = hits
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["kind"] == "attachment")
        .unwrap_or_else(|| panic!("no attachment hit: {hits}"));
    assert_eq!(hit["conversation_id"], json!(id));
    // Sent: it cannot be sent again.
    let again = s
        .send(&id, json!({ "text": "again", "attachments": [aid] }))
        .await;
    assert_eq!(again.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn an_image_for_a_model_without_images_is_refused_before_any_request() {
    let s = server(false).await;
    let id = s.create().await;
    let files = uploaded(upload(&s, &id, &[("shot.png", &png_header(8, 8))], None).await).await;
    let refused = s
        .send(
            &id,
            json!({ "text": "look", "attachments": [files[0]["id"]] }),
        )
        .await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("cannot see images"),
        "{body}"
    );
    let unknown = s
        .send(&id, json!({ "text": "look", "attachments": ["not-an-id"] }))
        .await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    assert!(s.model.requests().is_empty());
}

#[tokio::test]
async fn a_file_over_the_json_body_limit_is_uploaded() {
    let s = server(false).await;
    let id = s.create().await;
    let log = vec![b'x'; 3 * 1024 * 1024];
    let files = uploaded(upload(&s, &id, &[("big.log", &log)], None).await).await;
    assert_eq!(files[0]["size"], json!(log.len()));
}
