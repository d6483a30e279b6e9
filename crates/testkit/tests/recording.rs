//! Recording requests, waiting for them, and the demo scenario over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use serde_json::json;
use smallebot_testkit::scenarios::{DEMO_TITLE, DEMO_TOOL, demo_scenario};
use smallebot_testkit::{ScriptedResponse, TestModel, TestkitError};
use support::{API_KEY, chat_body, delta_text, post, reassemble_tool_calls};

#[tokio::test]
async fn requests_are_recorded_in_arrival_order() {
    let model = TestModel::start().await.unwrap();
    model.respond_with(|_| ScriptedResponse::text("ok"));

    for user in ["first", "second", "third"] {
        post(model.addr(), &chat_body(true, user)).await;
    }

    let requests = model.requests();
    let users: Vec<String> = requests
        .iter()
        .map(|r| r.last_user_text().unwrap())
        .collect();
    assert_eq!(users, ["first", "second", "third"]);
    for (index, request) in requests.iter().enumerate() {
        assert_eq!(request.index, index);
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(
            request.authorization.as_deref(),
            Some(&*format!("Bearer {API_KEY}"))
        );
        assert_eq!(request.model(), Some("gpt-test"));
        assert!(request.is_streaming());
        assert_eq!(
            request.messages()[0],
            json!({"role": "system", "content": "be brief"})
        );
    }
    assert_eq!(model.request_count(), 3);
    assert_eq!(
        model.request(1).and_then(|r| r.last_user_text()).as_deref(),
        Some("second")
    );
    assert!(model.request(3).is_none(), "only three arrived");
}

#[tokio::test]
async fn wait_for_requests_returns_once_they_arrive() {
    let model = TestModel::start().await.unwrap();
    model.respond_with(|_| ScriptedResponse::text("ok"));
    let addr = model.addr();

    let client = tokio::spawn(async move {
        for user in ["a", "b"] {
            tokio::time::sleep(Duration::from_millis(20)).await;
            post(addr, &chat_body(false, user)).await;
        }
    });
    let requests = model
        .wait_for_requests(2, Duration::from_secs(10))
        .await
        .unwrap();

    assert!(requests.len() >= 2);
    assert_eq!(requests[1].last_user_text().as_deref(), Some("b"));
    client.await.unwrap();
}

#[tokio::test]
async fn wait_for_requests_times_out_with_a_clear_error() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("ok"));
    post(model.addr(), &chat_body(false, "only")).await;

    let error = model
        .wait_for_requests(2, Duration::from_millis(50))
        .await
        .unwrap_err();

    assert!(matches!(
        error,
        TestkitError::Timeout {
            expected: 2,
            arrived: 1,
            ..
        }
    ));
    assert!(error.to_string().contains("only 1 arrived"));
}

#[tokio::test]
async fn base_url_points_at_the_v1_api() {
    let model = TestModel::start().await.unwrap();
    assert_eq!(
        model.base_url(),
        format!("http://127.0.0.1:{}/v1", model.addr().port())
    );
}

#[tokio::test]
async fn demo_scenario_runs_a_whole_conversation_and_never_runs_out() {
    let model = TestModel::start().await.unwrap();
    demo_scenario(&model);

    for _ in 0..3 {
        let mut body = chat_body(true, "What time is it?");
        let chunks = post(model.addr(), &body).await.chunks();
        let calls = reassemble_tool_calls(&chunks);
        assert_eq!(calls.len(), 1);
        assert_eq!(
            (calls[0].1.as_str(), calls[0].2.as_str()),
            (DEMO_TOOL, "{}")
        );

        let messages = body["messages"].as_array_mut().unwrap();
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": calls[0].0, "type": "function", "function": {"name": DEMO_TOOL, "arguments": "{}"}}
        ]}));
        messages.push(json!({"role": "tool", "tool_call_id": calls[0].0, "content": "14:05 UTC"}));
        let answer = delta_text(&post(model.addr(), &body).await.chunks(), "content");
        assert!(
            answer.contains("14:05 UTC") && answer.contains(DEMO_TOOL),
            "{answer}"
        );

        for stream in [false, true] {
            let title = post(
                model.addr(),
                &chat_body(
                    stream,
                    "Generate a short title for this conversation: What time is it?",
                ),
            )
            .await;
            let text = if stream {
                delta_text(&title.chunks(), "content")
            } else {
                title.json()["choices"][0]["message"]["content"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            };
            assert_eq!(text, DEMO_TITLE);
        }
    }
    assert_eq!(model.request_count(), 12);
}

#[tokio::test]
async fn the_moment_an_answer_was_sent_whole_is_recorded() {
    let model = TestModel::start().await.unwrap();
    model.push_all([
        ScriptedResponse::text("slow answer")
            .chunk_size(2)
            .delay_between(Duration::from_millis(30)),
        ScriptedResponse::server_error(503),
    ]);
    let before = std::time::Instant::now();
    post(model.addr(), &chat_body(true, "one")).await;
    let sent = model
        .sent_at(0)
        .expect("the streamed answer was sent whole");
    // Six pieces 30 ms apart: the last one left well after the request came in.
    assert!(
        sent.duration_since(before) >= Duration::from_millis(150),
        "{sent:?}"
    );
    post(model.addr(), &chat_body(false, "two")).await;
    assert_eq!(model.sent_at(1), None, "errors are not answers");
    assert_eq!(model.sent_at(7), None);
}

#[tokio::test]
async fn side_routes_answer_their_requests_before_the_queue() {
    let model = TestModel::start().await.unwrap();
    model.push_all([
        ScriptedResponse::text("queued one"),
        ScriptedResponse::text("queued two"),
    ]);
    model.answer_when(
        |req| req.last_user_text().as_deref() == Some("aside"),
        |req| ScriptedResponse::text(format!("aside #{}", req.index)),
    );
    model.answer_when(
        |req| req.last_user_text().is_some_and(|t| t.starts_with("aside")),
        |_| ScriptedResponse::text("the later route"),
    );

    let mut answers = Vec::new();
    for user in ["first", "aside", "aside too", "second"] {
        let response = post(model.addr(), &chat_body(false, user)).await;
        let body: serde_json::Value = serde_json::from_str(&response.body).unwrap();
        answers.push(body["choices"][0]["message"]["content"].clone());
    }

    // The side requests took nothing from the queue; the first matching route answered.
    assert_eq!(
        answers,
        [
            json!("queued one"),
            json!("aside #1"),
            json!("the later route"),
            json!("queued two")
        ]
    );
    assert_eq!(model.pending(), 0);
    // They are recorded like any other request.
    assert_eq!(model.request_count(), 4);
}
