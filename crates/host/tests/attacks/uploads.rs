//! Filling the server with uploads never sent: the quotas of agent.json `attachments`
//! (bytes waiting unsent per conversation and per user, parts per upload request, files
//! per message, the expiry of unsent uploads), each refusal a JSON error with nothing
//! stored, and one user's uploads never counted against another nor theirs to see.

use std::path::Path;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::harness::{Server, User};

/// A server whose agent.json `attachments` is `attachments`.
async fn server_with(attachments: Value) -> Server {
    Server::start_with(&["alice", "bob"], |home: &Path| {
        std::fs::write(
            home.join("agent.json"),
            json!({ "attachments": attachments }).to_string(),
        )
        .unwrap();
    })
    .await
}

/// `POST …/attachments` of conversation `id` with one text file part per `(name, content)`.
async fn upload_parts(user: &User<'_>, id: &str, parts: &[(String, Vec<u8>)]) -> reqwest::Response {
    let parts: Vec<(&str, &str, &[u8])> = parts
        .iter()
        .map(|(name, content)| (name.as_str(), "text/plain", content.as_slice()))
        .collect();
    user.upload_parts(id, &parts).await
}

/// `count` text files of `size` bytes each, named `{tag}-{n}.txt`.
fn files(tag: &str, count: usize, size: usize) -> Vec<(String, Vec<u8>)> {
    (0..count)
        .map(|n| (format!("{tag}-{n}.txt"), vec![b'a'; size]))
        .collect()
}

/// Uploads `size` bytes as one text file and answers the status (and the id when
/// stored).
async fn upload_text(user: &User<'_>, id: &str, size: usize) -> (StatusCode, Value) {
    let response = upload_parts(user, id, &files("t", 1, size)).await;
    let status = response.status();
    (status, response.json().await.unwrap())
}

/// Asserts a refusal is `status` with a JSON error naming `key` and saying nothing was
/// stored.
fn refused(got: (StatusCode, Value), status: StatusCode, key: &str) {
    let (got_status, body) = got;
    assert_eq!(got_status, status, "{body}");
    let error = body["error"].as_str().unwrap_or_else(|| panic!("{body}"));
    assert!(
        error.contains(key) && error.contains("nothing was stored"),
        "{error}"
    );
}

/// The id of the one attachment an upload stored.
fn stored_id(got: (StatusCode, Value)) -> String {
    assert_eq!(got.0, StatusCode::CREATED, "{}", got.1);
    got.1["attachments"][0]["id"].as_str().unwrap().to_owned()
}

/// Alice fills one conversation, then all of hers: the upload over each quota is a
/// `413` and is not kept (an upload that fits what is left still passes afterwards);
/// Bob, on the same server, uploads as if Alice had sent nothing, and his uploads stay
/// his.
#[tokio::test]
async fn unsent_bytes_per_conversation_and_per_user_are_capped() {
    let server = server_with(json!({
        "maxFileBytes": 1500, "maxMessageBytes": 2000,
        "maxPendingBytesPerConversation": 2000, "maxPendingBytesPerUser": 3000
    }))
    .await;
    let (alice, bob) = (server.user("alice"), server.user("bob"));
    let (first, second) = (
        alice.create_conversation().await,
        alice.create_conversation().await,
    );
    stored_id(upload_text(&alice, &first, 1500).await);
    refused(
        upload_text(&alice, &first, 1000).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "maxPendingBytesPerConversation",
    );
    // The refused 1000 bytes were not kept: 500 more still fit.
    stored_id(upload_text(&alice, &first, 500).await);
    stored_id(upload_text(&alice, &second, 1000).await);
    refused(
        upload_text(&alice, &second, 1).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "maxPendingBytesPerUser",
    );
    let theirs = bob.create_conversation().await;
    let file = stored_id(upload_text(&bob, &theirs, 1500).await);
    stored_id(upload_text(&bob, &theirs, 500).await);
    // Nor is Bob's upload Alice's to send or see: a `400` in her message, a `404`
    // through her conversation or his, each with the JSON error.
    let sent = alice.send(&first, "take bob's", &[&file]).await;
    assert_eq!(sent.status(), StatusCode::BAD_REQUEST);
    let body: Value = sent.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains(&file), "{body}");
    for conversation in [&first, &theirs] {
        let path = format!("/api/conversations/{conversation}/attachments/{file}");
        let response = alice.request(Method::GET, &path).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body: Value = response.json().await.unwrap();
        assert!(
            body["error"].as_str().unwrap().contains("not found"),
            "{body}"
        );
    }
    assert!(server.model.turn_requests().is_empty(), "no turn started");
    server.stop().await;
}

/// 2 000 file parts in one request, more files in one upload than a message may carry,
/// and a message naming more files than that: each refused with the JSON error, no
/// turn started.
#[tokio::test]
async fn parts_per_request_and_files_per_message_are_capped() {
    let server = server_with(json!({ "maxPartsPerUpload": 4, "maxFilesPerMessage": 2 })).await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    let json_of = |r: reqwest::Response| async move {
        let status = r.status();
        (status, r.json::<Value>().await.unwrap())
    };
    refused(
        json_of(upload_parts(&alice, &id, &files("many", 2000, 1)).await).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "maxPartsPerUpload",
    );
    refused(
        json_of(upload_parts(&alice, &id, &files("three", 3, 10)).await).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "maxFilesPerMessage",
    );
    // Three files uploaded two and one at a time: a message still carries two at most.
    let mut ids = Vec::new();
    for batch in [files("a", 2, 10), files("b", 1, 10)] {
        let (status, body) = json_of(upload_parts(&alice, &id, &batch).await).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        for a in body["attachments"].as_array().unwrap() {
            ids.push(a["id"].as_str().unwrap().to_owned());
        }
    }
    let all: Vec<&str> = ids.iter().map(String::as_str).collect();
    let sent = alice.send(&id, "all three", &all).await;
    refused(
        json_of(sent).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "maxFilesPerMessage",
    );
    assert!(server.model.turn_requests().is_empty(), "no turn started");
    server.stop().await;
}

/// An upload never sent expires after `pendingExpirySeconds`: it no longer counts
/// against the quota and can no longer be sent.
#[tokio::test]
async fn unsent_uploads_expire() {
    let server = server_with(json!({
        "maxFileBytes": 1500, "maxMessageBytes": 1500,
        "maxPendingBytesPerConversation": 2000, "pendingExpirySeconds": 1
    }))
    .await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    let old = stored_id(upload_text(&alice, &id, 1500).await);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    // 1500 + 1500 is over the 2000 of the conversation unless the first expired.
    stored_id(upload_text(&alice, &id, 1500).await);
    let sent = alice.send(&id, "the old one", &[&old]).await;
    assert_eq!(sent.status(), StatusCode::BAD_REQUEST);
    let body: Value = sent.json().await.unwrap();
    let error = body["error"].as_str().unwrap();
    assert!(error.contains("is not waiting to be sent"), "{error}");
    assert!(server.model.turn_requests().is_empty(), "no turn started");
    server.stop().await;
}
