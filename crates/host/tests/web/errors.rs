//! Every error answer of the API is `{"error": "…"}` (`application/json`), the
//! framework's own refusals included: over-limit bodies, multipart without a boundary
//! or with a wrong one, JSON that does not parse or lacks a field, a wrong content
//! type, a query string or path that does not parse, unknown routes and methods.

use crate::common;

use common::Server;
use reqwest::{Method, StatusCode};
use serde_json::Value;

/// One bad request: what is sent, the status it gets, words its error must hold.
struct Bad {
    method: Method,
    path: String,
    content_type: Option<&'static str>,
    body: Vec<u8>,
    status: StatusCode,
    says: &'static str,
}

fn bad(
    method: Method,
    path: impl Into<String>,
    content_type: Option<&'static str>,
    body: impl Into<Vec<u8>>,
    status: StatusCode,
    says: &'static str,
) -> Bad {
    Bad {
        method,
        path: path.into(),
        content_type,
        body: body.into(),
        status,
        says,
    }
}

/// Whether the answer says `words`: a `405` names the methods in its `Allow` header.
fn says(status: StatusCode, error: &str, allow: &str, words: &str) -> bool {
    if status == StatusCode::METHOD_NOT_ALLOWED {
        error.contains("does not take") && allow.contains(words)
    } else {
        error.contains(words)
    }
}

const JSON: Option<&str> = Some("application/json");
const TEXT: Option<&str> = Some("text/plain; charset=utf-8");

#[tokio::test]
async fn every_refusal_of_every_route_is_a_json_error() {
    let s = Server::start().await;
    let id = s.create().await;
    let c = |rest: &str| format!("/api/conversations/{id}{rest}");
    let over_json = format!("{{\"text\": \"{}\"}}", "x".repeat(1024 * 1024 + 10));
    let over_text = "x".repeat(1024 * 1024 + 10);
    let multipart = |boundary: &str| -> Option<&'static str> {
        Some(Box::leak(
            format!("multipart/form-data; boundary={boundary}").into_boxed_str(),
        ))
    };
    let part = b"--right\r\nContent-Disposition: form-data; name=\"file\"; \
                 filename=\"a.txt\"\r\n\r\nhello\r\n--right--\r\n"
        .to_vec();
    use StatusCode as S;
    let cases = vec![
        // Unknown routes and methods.
        bad(
            Method::GET,
            "/api/nothing-here",
            None,
            "",
            S::NOT_FOUND,
            "no API route",
        ),
        bad(Method::POST, "/api", None, "", S::NOT_FOUND, "no API route"),
        bad(
            Method::DELETE,
            "/api/search",
            None,
            "",
            S::METHOD_NOT_ALLOWED,
            "GET",
        ),
        bad(Method::PUT, c(""), None, "", S::METHOD_NOT_ALLOWED, "PATCH"),
        bad(
            Method::GET,
            "/api/logout",
            None,
            "",
            S::METHOD_NOT_ALLOWED,
            "POST",
        ),
        bad(
            Method::GET,
            c("/messages"),
            None,
            "",
            S::METHOD_NOT_ALLOWED,
            "POST",
        ),
        // JSON bodies: syntax, fields, types, content type, size.
        bad(
            Method::POST,
            c("/messages"),
            JSON,
            "{\"text\": ",
            S::BAD_REQUEST,
            "text",
        ),
        bad(
            Method::POST,
            c("/messages"),
            JSON,
            "{}",
            S::BAD_REQUEST,
            "text",
        ),
        bad(
            Method::POST,
            c("/messages"),
            JSON,
            "{\"text\": 5}",
            S::BAD_REQUEST,
            "text",
        ),
        bad(
            Method::POST,
            c("/messages"),
            TEXT,
            "{\"text\": \"x\"}",
            S::BAD_REQUEST,
            "Content-Type",
        ),
        bad(
            Method::POST,
            c("/messages"),
            JSON,
            over_json.clone(),
            S::PAYLOAD_TOO_LARGE,
            "1 MB",
        ),
        bad(
            Method::POST,
            "/api/conversations",
            JSON,
            "[1,",
            S::BAD_REQUEST,
            "body",
        ),
        bad(
            Method::POST,
            "/api/conversations",
            JSON,
            over_json.clone(),
            S::PAYLOAD_TOO_LARGE,
            "limit",
        ),
        bad(
            Method::PATCH,
            c(""),
            JSON,
            "{\"name\": \"x\"}",
            S::BAD_REQUEST,
            "title",
        ),
        bad(
            Method::PATCH,
            c(""),
            None,
            "title=x",
            S::BAD_REQUEST,
            "Content-Type",
        ),
        bad(Method::PUT, c("/model"), JSON, "{", S::BAD_REQUEST, "body"),
        bad(
            Method::POST,
            c("/compact"),
            JSON,
            "{\"focus\": [",
            S::BAD_REQUEST,
            "body",
        ),
        bad(
            Method::POST,
            c("/confirmation"),
            JSON,
            "{}",
            S::BAD_REQUEST,
            "request_id",
        ),
        bad(
            Method::POST,
            c("/messages/not-an-id/edit"),
            JSON,
            "{\"text\": 1}",
            S::BAD_REQUEST,
            "text",
        ),
        bad(
            Method::POST,
            "/api/login",
            JSON,
            "{\"token\": 1}",
            S::BAD_REQUEST,
            "token",
        ),
        bad(
            Method::POST,
            "/api/login",
            JSON,
            over_json,
            S::PAYLOAD_TOO_LARGE,
            "limit",
        ),
        // Text bodies: not UTF-8, too large; query strings that do not parse.
        bad(
            Method::POST,
            "/api/markdown",
            TEXT,
            vec![0xff, 0xfe, 0x41],
            S::BAD_REQUEST,
            "UTF-8",
        ),
        bad(
            Method::POST,
            "/api/markdown",
            TEXT,
            over_text,
            S::PAYLOAD_TOO_LARGE,
            "1 MB",
        ),
        bad(
            Method::POST,
            "/api/markdown?open=maybe",
            TEXT,
            "x",
            S::BAD_REQUEST,
            "open",
        ),
        bad(
            Method::GET,
            c("?last_html=maybe"),
            None,
            "",
            S::BAD_REQUEST,
            "last_html",
        ),
        bad(
            Method::GET,
            "/api/search?q=x&days=soon",
            None,
            "",
            S::BAD_REQUEST,
            "days",
        ),
        bad(
            Method::GET,
            c("/export?format=xml"),
            None,
            "",
            S::BAD_REQUEST,
            "format",
        ),
        // Paths: an id that is none, bytes that are no text.
        bad(
            Method::GET,
            "/api/conversations/%FF%FE",
            None,
            "",
            S::BAD_REQUEST,
            "UTF-8",
        ),
        bad(
            Method::GET,
            "/api/conversations/nope",
            None,
            "",
            S::NOT_FOUND,
            "nope",
        ),
        bad(
            Method::GET,
            c("/attachments/nope"),
            None,
            "",
            S::NOT_FOUND,
            "attachment",
        ),
        bad(
            Method::POST,
            c("/turns/nope/regenerate"),
            None,
            "",
            S::NOT_FOUND,
            "turn",
        ),
        bad(
            Method::GET,
            "/api/skills/nope",
            None,
            "",
            S::NOT_FOUND,
            "skill",
        ),
        // Uploads: no multipart, no boundary, a wrong boundary, no file, too large.
        bad(
            Method::POST,
            c("/attachments"),
            None,
            part.clone(),
            S::BAD_REQUEST,
            "multipart",
        ),
        bad(
            Method::POST,
            c("/attachments"),
            JSON,
            "{}",
            S::BAD_REQUEST,
            "multipart",
        ),
        bad(
            Method::POST,
            c("/attachments"),
            Some("multipart/form-data"),
            part.clone(),
            S::BAD_REQUEST,
            "boundary",
        ),
        bad(
            Method::POST,
            c("/attachments"),
            multipart("wrong"),
            part.clone(),
            S::BAD_REQUEST,
            "multipart",
        ),
        bad(
            Method::POST,
            c("/attachments"),
            multipart("right"),
            "--right--\r\n",
            S::BAD_REQUEST,
            "no file",
        ),
        bad(
            Method::POST,
            c("/attachments"),
            multipart("right"),
            "garbage",
            S::BAD_REQUEST,
            "multipart",
        ),
    ];
    let mut wrong = Vec::new();
    for case in cases {
        // A body over its limit is refused before it is read, and the server closes the
        // connection on the unread rest: the client may get a reset while it still
        // writes, before it reads the answer the server sent. Such a transport failure
        // is tried again (a wrong answer is not).
        let mut attempts = 0;
        let response = loop {
            let mut request = s.http.request(case.method.clone(), s.url(&case.path));
            if let Some(content_type) = case.content_type {
                request = request.header("content-type", content_type);
            }
            attempts += 1;
            match request.body(case.body.clone()).send().await {
                Ok(response) => break response,
                Err(e) if attempts < 5 => eprintln!("{} {}: {e}; again", case.method, case.status),
                Err(e) => panic!("{} {}: {e}", case.method, case.path),
            }
        };
        let what = format!(
            "{} {}",
            case.method,
            case.path.chars().take(80).collect::<String>()
        );
        let status = response.status();
        let content_type = response
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned());
        let allow = response
            .headers()
            .get("allow")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let text = response.text().await.unwrap();
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let error = body["error"].as_str().unwrap_or_default();
        if status != case.status
            || content_type.as_deref() != Some("application/json")
            || !says(case.status, error, &allow, case.says)
            || body.as_object().map(|o| o.len()) != Some(1)
        {
            wrong.push(format!(
                "{what}: {status} {content_type:?} {text:?} (wanted {} with {:?})",
                case.status, case.says
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
