//! Malformed requests to the body routes and what the API shows of the server: every
//! refusal is the documented `{"error": "…"}` as `application/json` — the framework's
//! own (a multipart body without a boundary or with a wrong one, a body over its
//! limit, JSON that does not parse or lacks a field) included — and `/api/skills`
//! shows no path of the server's file system. The requests go over bare connections
//! (`raw_http`): a body refused before it is read would otherwise lose its answer.

use std::path::Path;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{Server, plant};
use crate::raw_http::post;

/// One malformed request: route, content type, body, the status it must get and words
/// its error must hold.
struct Bad {
    path: String,
    content_type: &'static str,
    body: Vec<u8>,
    status: StatusCode,
    says: &'static str,
}

/// Each malformed body to an upload, a message and a render is refused with
/// the JSON error saying what was wrong; nothing of it is stored.
#[tokio::test]
async fn every_malformed_body_is_a_json_error() {
    let server = Server::start_with(&["alice", "bob"], |home: &Path| {
        let attachments = json!({ "maxFileBytes": 1000, "maxMessageBytes": 1000 });
        std::fs::write(
            home.join("agent.json"),
            json!({ "attachments": attachments }).to_string(),
        )
        .unwrap();
    })
    .await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    let uploads = format!("/api/conversations/{id}/attachments");
    let messages = format!("/api/conversations/{id}/messages");
    let part = |boundary: &str, size: usize| {
        let mut body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; \
             filename=\"a.txt\"\r\n\r\n"
        )
        .into_bytes();
        body.extend(std::iter::repeat_n(b'a', size));
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        body
    };
    let bad = |path: &str, content_type, body: Vec<u8>, status, says| Bad {
        path: path.to_owned(),
        content_type,
        body,
        status,
        says,
    };
    let cases = [
        // No boundary at all, a boundary the body does not use, one never closed.
        bad(
            &uploads,
            "multipart/form-data",
            part("b", 5),
            StatusCode::BAD_REQUEST,
            "boundary",
        ),
        bad(
            &uploads,
            "multipart/form-data; boundary=other",
            part("b", 5),
            StatusCode::BAD_REQUEST,
            "bad multipart body",
        ),
        bad(
            &uploads,
            "multipart/form-data; boundary=b",
            b"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nab"
                .to_vec(),
            StatusCode::BAD_REQUEST,
            "bad multipart body",
        ),
        // An upload far over its body limit (1000 bytes of files and the framing).
        bad(
            &uploads,
            "multipart/form-data; boundary=b",
            part("b", 300 * 1024),
            StatusCode::PAYLOAD_TOO_LARGE,
            "over the limit",
        ),
        // A message: JSON that does not parse, a field missing, a wrong type, a body
        // over the 1 MiB of the JSON routes, not JSON at all.
        bad(
            &messages,
            "application/json",
            b"{\"text\": ".to_vec(),
            StatusCode::BAD_REQUEST,
            "bad request body",
        ),
        bad(
            &messages,
            "application/json",
            b"{}".to_vec(),
            StatusCode::BAD_REQUEST,
            "text",
        ),
        bad(
            &messages,
            "application/json",
            b"{\"text\": 7}".to_vec(),
            StatusCode::BAD_REQUEST,
            "text",
        ),
        bad(
            &messages,
            "application/json",
            format!("{{\"text\": \"{}\"}}", "x".repeat(1024 * 1024 + 10)).into_bytes(),
            StatusCode::PAYLOAD_TOO_LARGE,
            "over the limit",
        ),
        bad(
            &messages,
            "text/plain",
            b"hello".to_vec(),
            StatusCode::BAD_REQUEST,
            "application/json",
        ),
        // A render body that is not UTF-8.
        bad(
            "/api/markdown",
            "text/plain",
            vec![0xff, 0xfe, b'a'],
            StatusCode::BAD_REQUEST,
            "UTF-8",
        ),
    ];
    for case in cases {
        let answer = post(&server, &alice, &case.path, case.content_type, &case.body).await;
        let (status, content_type, text) = (answer.status, answer.content_type, answer.body);
        let what = format!(
            "{} {}: {status} {content_type} {text}",
            case.path, case.says
        );
        assert_eq!(status, case.status, "{what}");
        assert!(content_type.starts_with("application/json"), "{what}");
        let body: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {what}"));
        let error = body["error"].as_str().unwrap_or_else(|| panic!("{what}"));
        assert!(error.contains(case.says), "{what}");
    }
    let timeline = alice.timeline(&id).await;
    assert_eq!(timeline["rows"], json!([]), "nothing was stored");
    assert!(server.model.turn_requests().is_empty(), "no turn started");
    server.stop().await;
}

/// `/api/skills` and a skill's details name folders relative to the skills folder —
/// a broken skill's problems too — never the server's absolute paths.
#[tokio::test]
async fn skills_show_no_server_path() {
    let server = Server::start_with(&["alice", "bob"], |home: &Path| {
        plant(
            home,
            "skills/shared-steps/SKILL.md",
            b"---\nname: shared-steps\ndescription: Everyone's steps.\n---\nSteps.\n",
        );
        plant(
            home,
            "users/alice/skills/broken/SKILL.md",
            b"---\nname: broken\n---\nno description\n",
        );
    })
    .await;
    let alice = server.user("alice");
    let list = alice.get_json("/api/skills").await;
    let skills = list["skills"].as_array().unwrap();
    let location = |name: &str| {
        skills
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name}: {list}"))["location"]
            .clone()
    };
    assert_eq!(location("shared-steps"), "shared-steps");
    assert_eq!(location("broken"), "broken");
    let broken = skills.iter().find(|s| s["name"] == "broken").unwrap();
    assert!(
        broken["problems"].as_array().is_some_and(|p| !p.is_empty()),
        "the broken skill has its problem shown: {list}"
    );
    let detail = alice.get_json("/api/skills/shared-steps").await;
    let home = server.home().to_str().unwrap();
    for shown in [list.to_string(), detail.to_string()] {
        assert!(!shown.contains(home), "{shown}");
    }
    server.stop().await;
}
