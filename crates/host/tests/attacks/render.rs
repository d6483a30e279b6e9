//! Markdown bombs: answers and bodies shaped so that rendering them as HTML costs the
//! square of their size (100 000 nested quotes or `<div>`s), sent to
//! `POST /api/markdown` and stored as an answer that `GET /api/conversations/{id}`
//! renders. What is checked is the answer itself: structure capped at the documented
//! depth, the text kept, the rest of a long answer shown as plain text. How fast it
//! comes is the benchmark's business (`cargo xtask bench`, docs/benchmarks.md).

use reqwest::{Method, StatusCode};
use serde_json::Value;
use smallebot_testkit::ScriptedResponse;

use crate::harness::{Server, User};
use crate::raw_http::post;

/// The nesting depth the renderer allows (docs/http-api.md, `POST /api/markdown`).
const MAX_DEPTH: usize = 64;

/// How many levels bombs nest.
const LEVELS: usize = 100_000;

/// How deep elements nest in `html`: every start tag opens a level but the void ones,
/// every end tag closes one.
fn depth(html: &str) -> usize {
    const VOID: [&str; 6] = ["br", "hr", "img", "input", "wbr", "col"];
    let (mut now, mut most) = (0usize, 0usize);
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let tag = &rest[start + 1..];
        let end = tag.find('>').expect("a tag is closed");
        let inside = &tag[..end];
        let name: String = inside
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        if inside.starts_with('/') {
            now = now.checked_sub(1).expect("every end tag was opened");
        } else if !VOID.contains(&name.as_str()) && !inside.ends_with('/') {
            now += 1;
            most = most.max(now);
        }
        rest = &tag[end + 1..];
    }
    assert_eq!(now, 0, "every element is closed");
    most
}

/// `POST /api/markdown` with `body`: the status and the HTML.
async fn render(user: &User<'_>, body: String) -> (StatusCode, String) {
    let response = user
        .request(Method::POST, "/api/markdown")
        .header("content-type", "text/plain; charset=utf-8")
        .body(body)
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}

/// 100 000 `>`: one paragraph in at most the capped depth of quotes, its text kept.
#[tokio::test]
async fn a_hundred_thousand_nested_quotes_render_capped() {
    let server = Server::start(&["alice", "bob"]).await;
    let alice = server.user("alice");
    let (status, html) = render(&alice, format!("{} deep", ">".repeat(LEVELS))).await;
    assert_eq!(status, StatusCode::OK, "{html:.300}");
    assert!(html.contains("deep"), "{html:.300}");
    assert!(html.contains("<blockquote>"), "{html:.300}");
    let nested = depth(&html);
    assert!(nested <= MAX_DEPTH, "nested {nested} deep");
    server.stop().await;
}

/// 100 000 `<div>`: the first levels kept as elements, the deeper tags shown as text,
/// the text inside kept.
#[tokio::test]
async fn a_hundred_thousand_nested_divs_render_capped_and_the_rest_as_text() {
    let server = Server::start(&["alice", "bob"]).await;
    let alice = server.user("alice");
    let (status, html) = render(&alice, format!("{}inside", "<div>".repeat(LEVELS))).await;
    assert_eq!(status, StatusCode::OK, "{html:.300}");
    assert!(html.contains("inside"), "{html:.300}");
    assert!(
        html.contains("&lt;div&gt;"),
        "deeper tags as text: {html:.300}"
    );
    let nested = depth(&html);
    assert!(nested <= MAX_DEPTH, "nested {nested} deep");
    server.stop().await;
}

/// A megabyte of mixed Markdown and HTML: the start formatted, the rest shown as plain
/// text with a note, nothing of it as markup past the cap.
#[tokio::test]
async fn a_megabyte_of_mixed_input_is_formatted_up_to_the_size_cap() {
    let server = Server::start(&["alice", "bob"]).await;
    let alice = server.user("alice");
    let chunk = "> **quoted** & <div>*x*</div>\n- [link](https://example.com) `c` 90°\n\n";
    let mut body = String::new();
    while body.len() + chunk.len() < 1_000_000 {
        body.push_str(chunk);
    }
    body.push_str("THE END");
    let (status, html) = render(&alice, body).await;
    assert_eq!(status, StatusCode::OK, "{html:.300}");
    assert!(html.contains("<strong>quoted</strong>"), "{html:.300}");
    assert!(html.contains("goes on as plain text"), "{html:.300}");
    assert!(html.contains("THE END"));
    assert!(depth(&html) <= MAX_DEPTH);
    server.stop().await;
}

/// A stored answer of 100 000 `>` (the model wrote it): every read of the
/// conversation renders it capped, as `/api/markdown` does.
#[tokio::test]
async fn a_stored_answer_bomb_is_read_back_capped() {
    let server = Server::start(&["alice", "bob"]).await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    let bomb = format!("{} deep", ">".repeat(LEVELS));
    server.model.push(ScriptedResponse::text(bomb.clone()));
    alice.say(&id, "quote yourself", &[]).await;
    for _ in 0..2 {
        let timeline = alice.timeline(&id).await;
        let answer: &Value = timeline["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["role"] == "assistant")
            .unwrap_or_else(|| panic!("no answer: {timeline:.300}"));
        assert_eq!(answer["content"], bomb.as_str(), "the answer is kept whole");
        let html = answer["html"].as_str().unwrap();
        assert!(html.contains("deep"), "{html:.300}");
        let nested = depth(html);
        assert!(nested <= MAX_DEPTH, "nested {nested} deep");
    }
    server.stop().await;
}

/// A body over the 1 MiB limit of `/api/markdown`: `413` with the JSON error.
#[tokio::test]
async fn a_markdown_body_over_its_limit_is_a_json_413() {
    let server = Server::start(&["alice", "bob"]).await;
    let alice = server.user("alice");
    let body = ">".repeat(2 * 1024 * 1024);
    let answer = post(
        &server,
        &alice,
        "/api/markdown",
        "text/plain",
        body.as_bytes(),
    )
    .await;
    assert_eq!(
        answer.status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        answer.body
    );
    assert!(answer.content_type.starts_with("application/json"));
    let body: Value = serde_json::from_str(&answer.body).unwrap();
    let error = body["error"].as_str().unwrap();
    assert!(error.contains("over the limit of 1 MB"), "{error}");
    server.stop().await;
}
