//! The quotas of uploads over the API: parts per upload request, files per message,
//! bytes waiting unsent per conversation and per user — each a `413` with the JSON
//! error naming its agent.json key, nothing stored; another user is not held to them.

use crate::attachments::upload;
use crate::common;

use common::{Server, users};
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_application::PipelineSettings;
use smallebot_core::repository::AttachmentRepository;
use smallebot_core::rules::upload_quota::UploadQuotas;

async fn quota_server(uploads: UploadQuotas) -> Server {
    Server::start_custom(
        |agent| {
            agent.pipeline(PipelineSettings {
                uploads,
                ..PipelineSettings::default()
            })
        },
        |web| web.users(users(&[("ann-token", "ann"), ("bob-token", "bob")])),
    )
    .await
}

async fn refused(response: reqwest::Response, key: &str) {
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let body: Value = response.json().await.unwrap();
    let error = body["error"].as_str().unwrap();
    assert!(
        error.contains(key) && error.contains("nothing was stored"),
        "{error}"
    );
}

async fn stored(s: &Server, id: &str) -> usize {
    let id = id.parse().unwrap();
    s.store.conversation_attachments(id).await.unwrap().len()
}

#[tokio::test]
async fn parts_and_files_over_their_limits_store_nothing() {
    let s = quota_server(UploadQuotas {
        max_parts_per_upload: 3,
        max_files_per_message: 2,
        ..UploadQuotas::default()
    })
    .await;
    let id = s.create_as("ann-token").await;
    let file = |n: usize| (format!("f{n}.txt"), format!("file {n}").into_bytes());
    let four: Vec<(String, Vec<u8>)> = (0..4).map(file).collect();
    let parts: Vec<(&str, &[u8])> = four.iter().map(|(n, c)| (n.as_str(), &c[..])).collect();
    refused(
        upload(&s, &id, &parts, Some("ann-token")).await,
        "maxPartsPerUpload",
    )
    .await;
    refused(
        upload(&s, &id, &parts[..3], Some("ann-token")).await,
        "maxFilesPerMessage",
    )
    .await;
    assert_eq!(stored(&s, &id).await, 0);
    // Two uploads of two files each: a message may still carry only two.
    let mut ids = Vec::new();
    for pair in [&parts[..2], &parts[2..]] {
        let response = upload(&s, &id, pair, Some("ann-token")).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = response.json().await.unwrap();
        for a in body["attachments"].as_array().unwrap() {
            ids.push(a["id"].as_str().unwrap().to_owned());
        }
    }
    let sent = s
        .http
        .post(s.url(&format!("/api/conversations/{id}/messages")))
        .bearer_auth("ann-token")
        .json(&json!({"text": "all four", "attachments": ids}))
        .send()
        .await
        .unwrap();
    refused(sent, "maxFilesPerMessage").await;
    assert!(s.turn_requests().is_empty(), "no turn was started");
    // A body of 2 000 empty parts is refused at the fourth, its rest never read.
    let mut body = Vec::new();
    for _ in 0..2000 {
        body.extend_from_slice(
            b"--smallebot-test-boundary\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n\r\n",
        );
    }
    body.extend_from_slice(b"--smallebot-test-boundary--\r\n");
    let many = s
        .http
        .post(s.url(&format!("/api/conversations/{id}/attachments")))
        .bearer_auth("ann-token")
        .header(
            "content-type",
            "multipart/form-data; boundary=smallebot-test-boundary",
        )
        .body(body)
        .send()
        .await
        .unwrap();
    refused(many, "maxPartsPerUpload").await;
}

#[tokio::test]
async fn one_users_unsent_files_never_hold_up_another() {
    let s = quota_server(UploadQuotas {
        max_pending_bytes_per_user: 3000,
        max_pending_bytes_per_conversation: 2000,
        ..UploadQuotas::default()
    })
    .await;
    let (ann1, ann2) = (
        s.create_as("ann-token").await,
        s.create_as("ann-token").await,
    );
    let bob = s.create_as("bob-token").await;
    let kb = |c: u8| vec![c; 1500];
    let (a, b, c) = (kb(b'a'), kb(b'b'), kb(b'c'));
    let ok = upload(&s, &ann1, &[("a.txt", &a)], Some("ann-token")).await;
    assert_eq!(ok.status(), StatusCode::CREATED);
    refused(
        upload(&s, &ann1, &[("b.txt", &b)], Some("ann-token")).await,
        "maxPendingBytesPerConversation",
    )
    .await;
    let ok = upload(&s, &ann2, &[("b.txt", &b)], Some("ann-token")).await;
    assert_eq!(ok.status(), StatusCode::CREATED);
    refused(
        upload(&s, &ann2, &[("c.txt", &c[..100])], Some("ann-token")).await,
        "maxPendingBytesPerUser",
    )
    .await;
    assert_eq!(stored(&s, &ann1).await + stored(&s, &ann2).await, 2);
    // Bob uploads as if Ann had sent nothing.
    for name in ["one.txt", "two.txt"] {
        let ok = upload(&s, &bob, &[(name, &c[..1000])], Some("bob-token")).await;
        assert_eq!(ok.status(), StatusCode::CREATED, "{name}");
    }
    // And Ann cannot upload into Bob's conversation.
    let foreign = upload(&s, &bob, &[("x.txt", b"x")], Some("ann-token")).await;
    assert_eq!(foreign.status(), StatusCode::NOT_FOUND);
    assert_eq!(stored(&s, &bob).await, 2);
}

/// A refused upload is read to its end and dropped, so the refusal reaches the client
/// and its connection stays open: a second request on it is answered. (Closed with
/// the body unread, the connection would be reset, and a client could lose the
/// answer.)
#[tokio::test]
async fn a_refused_upload_is_read_to_its_end_and_its_connection_kept() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = quota_server(UploadQuotas {
        max_parts_per_upload: 3,
        ..UploadQuotas::default()
    })
    .await;
    let id = s.create_as("ann-token").await;
    // 2 000 parts of a kilobyte: far more than one read of the server takes at once.
    let mut body = Vec::new();
    for n in 0..2000 {
        body.extend_from_slice(
            format!(
                "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"{n}.txt\"\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(&[b'a'; 1024]);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"--b--\r\n");
    let host = s.base.trim_start_matches("http://").to_owned();
    let mut request = format!(
        "POST /api/conversations/{id}/attachments HTTP/1.1\r\nHost: {host}\r\n\
         Authorization: Bearer ann-token\r\nContent-Type: multipart/form-data; boundary=b\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);
    request.extend_from_slice(format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes());
    let mut stream = tokio::net::TcpStream::connect(&host).await.unwrap();
    let (mut read, mut write) = stream.split();
    let (written, answers) = tokio::join!(write.write_all(&request), async {
        let mut answers = Vec::new();
        let mut buf = [0u8; 4096];
        // Both answers, or the end of the connection.
        while String::from_utf8_lossy(&answers)
            .matches("HTTP/1.1 ")
            .count()
            < 2
        {
            match tokio::time::timeout(std::time::Duration::from_secs(30), read.read(&mut buf))
                .await
            {
                Ok(Ok(n)) if n > 0 => answers.extend_from_slice(&buf[..n]),
                _ => break,
            }
        }
        String::from_utf8_lossy(&answers).into_owned()
    });
    written.unwrap();
    assert!(
        answers.starts_with("HTTP/1.1 413"),
        "{}",
        &answers[..answers.len().min(300)]
    );
    assert!(answers.contains("maxPartsPerUpload"), "{answers}");
    let second = answers.rfind("HTTP/1.1 ").unwrap();
    assert!(
        second > 0 && answers[second..].starts_with("HTTP/1.1 200"),
        "the connection answered again: {answers}"
    );
}
