//! The user's MCP resources and prompts over the API, against the testkit's MCP
//! server: listed with their arguments; a resource read as files (a template expanded,
//! a required template argument missing `400` naming it, a part over the per-file
//! limit `413` as an upload's, an unknown server `404`); a prompt's text (a required
//! argument missing `400` naming it, an unknown server or prompt `404`).

use crate::common::Server;
use crate::mcp_support::server_with_mcp;

use base64::Engine as _;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_core::rules::attachment::AttachmentLimits;
use smallebot_testkit::mcp::{PIXEL_PNG, PIXEL_URI, README_TEXT, README_URI};

async fn post(s: &Server, path: &str, body: Value) -> (StatusCode, Value) {
    let answer = s.http.post(s.url(path)).json(&body).send().await.unwrap();
    let status = answer.status();
    (status, answer.json().await.unwrap())
}

fn error_of(body: &Value) -> &str {
    body["error"].as_str().unwrap()
}

#[tokio::test]
async fn resources_and_prompts_are_listed_with_their_arguments() {
    let (s, _mcp) = server_with_mcp(AttachmentLimits::default()).await;
    let listed = s.get_json("/api/mcp/resources").await;
    let uris: Vec<&str> = listed["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, [README_URI, PIXEL_URI]);
    assert_eq!(listed["resources"][0]["server"], "t");
    assert_eq!(listed["resources"][0]["name"], "readme");
    assert_eq!(
        listed["templates"],
        json!([{"server": "t", "uri_template": "note://{name}", "name": "note",
                "description": "A note by name",
                "arguments": [{"name": "name", "description": null, "required": true}]}])
    );
    let prompts = s.get_json("/api/mcp/prompts").await;
    assert_eq!(prompts["prompts"][0]["name"], "review");
    assert_eq!(
        prompts["prompts"][0]["arguments"],
        json!([{"name": "topic", "description": "What to review", "required": true},
               {"name": "tone", "description": "How to say it", "required": false}])
    );
}

#[tokio::test]
async fn a_resource_is_read_as_files_a_template_expanded() {
    let (s, _mcp) = server_with_mcp(AttachmentLimits::default()).await;
    let decode = |b: &Value| {
        base64::engine::general_purpose::STANDARD
            .decode(b.as_str().unwrap())
            .unwrap()
    };
    let (status, read) = post(
        &s,
        "/api/mcp/resources/read",
        json!({"server": "t", "uri": README_URI}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["files"][0]["name"], "readme.txt");
    assert_eq!(decode(&read["files"][0]["base64"]), README_TEXT.as_bytes());

    let (_, read) = post(
        &s,
        "/api/mcp/resources/read",
        json!({"server": "t", "uri": PIXEL_URI}),
    )
    .await;
    assert_eq!(read["files"][0]["name"], "pixel.png");
    let png = base64::engine::general_purpose::STANDARD
        .decode(PIXEL_PNG)
        .unwrap();
    assert_eq!(decode(&read["files"][0]["base64"]), png);
    assert_eq!(read["files"][0]["size"], png.len());

    let (status, read) = post(
        &s,
        "/api/mcp/resources/read",
        json!({"server": "t", "uri": "note://{name}", "arguments": {"name": "to do"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["uri"], "note://to%20do");
    assert_eq!(
        decode(&read["files"][0]["base64"]),
        b"the note called to%20do"
    );
}

#[tokio::test]
async fn a_bad_read_is_refused_saying_why() {
    let limits = AttachmentLimits {
        max_file_bytes: 10,
        ..AttachmentLimits::default()
    };
    let (s, _mcp) = server_with_mcp(limits).await;
    let read = |body| post(&s, "/api/mcp/resources/read", body);

    let (status, body) = read(json!({"server": "t", "uri": README_URI})).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(
        error_of(&body).contains("'readme.txt' is over the limit")
            && error_of(&body).contains("attachments.maxFileBytes"),
        "{body}"
    );

    let (status, body) = read(json!({"server": "nope", "uri": README_URI})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(error_of(&body).contains("nope"), "{body}");

    let (status, body) = read(json!({"server": "t", "uri": "note://{name}"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        error_of(&body).contains("note://{name}") && error_of(&body).contains("argument(s) name"),
        "{body}"
    );

    let (status, body) = read(json!({"server": "t", "uri": "other://x"})).await;
    assert_eq!(status, StatusCode::FAILED_DEPENDENCY, "{body}");
    assert!(error_of(&body).contains("other://x"), "{body}");
}

#[tokio::test]
async fn a_prompt_is_got_as_text_and_a_missing_argument_named() {
    let (s, _mcp) = server_with_mcp(AttachmentLimits::default()).await;
    let (status, body) = post(
        &s,
        "/api/mcp/prompts/t/review",
        json!({"arguments": {"topic": "the parser", "tone": "brief"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["text"],
        "Please review the parser (brief).\n\n(assistant) Reviewing now."
    );

    let (status, body) = post(&s, "/api/mcp/prompts/t/review", json!({"arguments": {}})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        error_of(&body).contains("'review'") && error_of(&body).contains("argument(s) topic"),
        "{body}"
    );

    let (status, body) = post(&s, "/api/mcp/prompts/nope/review", json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = post(&s, "/api/mcp/prompts/t/nope", json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(error_of(&body).contains("t:nope"), "{body}");
}

#[tokio::test]
async fn without_mcp_servers_the_lists_are_empty_and_nothing_is_read() {
    let s = Server::start().await;
    assert_eq!(
        s.get_json("/api/mcp/resources").await,
        json!({"resources": [], "templates": []})
    );
    assert_eq!(s.get_json("/api/mcp/prompts").await, json!({"prompts": []}));
    let (status, _) = post(
        &s,
        "/api/mcp/resources/read",
        json!({"server": "t", "uri": README_URI}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
