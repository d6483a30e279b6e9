//! What the page needs of a conversation's history: each turn's outcome, the earlier
//! versions of an edited message, search snippets with the matched words marked, and
//! a timeline without the HTML of the answer the page already shows.

use crate::common;

use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_testkit::{Gate, ScriptedResponse, error_body};

async fn post(s: &Server, path: &str, body: Value) -> reqwest::Response {
    s.http.post(s.url(path)).json(&body).send().await.unwrap()
}

#[tokio::test]
async fn each_turn_says_how_it_ended() {
    let s = Server::start().await;
    let id = s.create().await;
    s.model.push(ScriptedResponse::text("fine"));
    s.turn(&id, "one").await;

    s.model.push(ScriptedResponse::http_error(
        400,
        error_body(
            "the request was malformed",
            "invalid_request_error",
            None,
            None,
        ),
    ));
    let mut events = s.open_events(&id, None).await;
    assert_eq!(
        s.send(&id, json!({"text": "two"})).await.status(),
        StatusCode::ACCEPTED
    );
    let end = events.until_turn_ends().await;
    assert_eq!(end.last().unwrap().data["type"], "TurnFailed");

    let never = Gate::new();
    s.model.push(
        ScriptedResponse::text("a slow answer")
            .chunk_size(2)
            .pause_after_chunks(2, &never),
    );
    let mut events = s.open_events(&id, None).await;
    s.send(&id, json!({"text": "three"})).await;
    events.next().await;
    post(&s, &format!("/api/conversations/{id}/cancel"), json!({})).await;
    let end = events.until_turn_ends().await;
    assert_eq!(end.last().unwrap().data["type"], "TurnCancelled");

    let timeline = s.get_json(&format!("/api/conversations/{id}")).await;
    let turns = timeline["turns"].as_array().unwrap();
    let statuses: Vec<_> = turns.iter().map(|t| t["status"].clone()).collect();
    assert_eq!(
        statuses,
        [json!("completed"), json!("failed"), json!("cancelled")]
    );
    assert_eq!(turns[0]["error"], Value::Null);
    assert!(
        turns[1]["error"].as_str().unwrap().contains("malformed"),
        "{}",
        turns[1]
    );
    assert!(turns.iter().all(|t| t["completed_at"].is_string()));
    // Rows name their turn.
    let rows = timeline["rows"].as_array().unwrap();
    assert_eq!(rows[0]["turn_id"], turns[0]["id"]);
}

/// The current (not replaced) user message of the conversation's last exchange.
async fn current_user_message(s: &Server, id: &str) -> Value {
    let timeline = s.get_json(&format!("/api/conversations/{id}")).await;
    timeline["rows"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|r| r["role"] == "user" && r["replaced_by"].is_null())
        .unwrap()
        .clone()
}

#[tokio::test]
async fn edits_and_regenerations_keep_earlier_versions_of_the_exchange() {
    let s = Server::start().await;
    let id = s.create().await;
    s.model.push(ScriptedResponse::text("answer 1"));
    s.turn(&id, "first text").await;
    for (text, answer) in [("second text", "answer 2"), ("third text", "answer 3")] {
        let current = current_user_message(&s, &id).await;
        s.model.push(ScriptedResponse::text(answer));
        let mut events = s.open_events(&id, None).await;
        let edited = post(
            &s,
            &format!(
                "/api/conversations/{id}/messages/{}/edit",
                current["id"].as_str().unwrap()
            ),
            json!({ "text": text }),
        )
        .await;
        assert_eq!(edited.status(), StatusCode::ACCEPTED);
        events.until_turn_ends().await;
    }
    let current = current_user_message(&s, &id).await;
    s.model.push(ScriptedResponse::text("answer 4"));
    let mut events = s.open_events(&id, None).await;
    let regenerated = post(
        &s,
        &format!(
            "/api/conversations/{id}/turns/{}/regenerate",
            current["turn_id"].as_str().unwrap()
        ),
        json!({}),
    )
    .await;
    assert_eq!(regenerated.status(), StatusCode::ACCEPTED);
    events.until_turn_ends().await;

    let current = current_user_message(&s, &id).await;
    assert_eq!(current["content"], "third text");
    let versions: Vec<_> = current["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["content"].as_str().unwrap(),
                v["answer"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        versions,
        [
            ("first text", "answer 1"),
            ("second text", "answer 2"),
            ("third text", "answer 3"),
        ]
    );
    // Each earlier answer also comes as the server rendered and sanitized it.
    for v in current["versions"].as_array().unwrap() {
        assert_eq!(
            v["answer_html"].as_str().unwrap(),
            format!("<p>{}</p>\n", v["answer"].as_str().unwrap())
        );
    }
    // Replaced messages list no versions of their own.
    let timeline = s.get_json(&format!("/api/conversations/{id}")).await;
    for old in timeline["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["replaced_by"].is_null())
    {
        assert!(old.get("versions").is_none(), "{old}");
    }
}

#[tokio::test]
async fn a_search_hit_has_a_snippet_with_the_words_marked() {
    let s = Server::start().await;
    let id = s.create().await;
    let long = format!(
        "{} the <b>deploy</b> script ran {}",
        "before ".repeat(30),
        "after ".repeat(30)
    );
    s.model.push(ScriptedResponse::text("noted"));
    s.turn(&id, &long).await;
    let hits = s.get_json("/api/search?q=Deploy%20script").await;
    let hit = &hits[0];
    assert_eq!(hit["conversation_id"], id.as_str());
    let timeline = s.get_json(&format!("/api/conversations/{id}")).await;
    assert_eq!(hit["seq"], timeline["rows"][0]["seq"], "the user's row");
    let parts = hit["snippet"].as_array().unwrap();
    let marked: Vec<_> = parts
        .iter()
        .filter(|p| p["marked"] == true)
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert_eq!(marked, ["deploy", "script"]);
    let joined: String = parts.iter().map(|p| p["text"].as_str().unwrap()).collect();
    assert!(joined.starts_with('…') && joined.ends_with('…'), "{joined}");
    assert!(joined.contains("the <b>deploy</b> script ran"), "{joined}");
    assert!(joined.chars().count() < 200, "{joined}");
}

#[tokio::test]
async fn the_timeline_can_leave_out_the_last_answers_html() {
    let s = Server::start().await;
    let id = s.create().await;
    s.model.push(ScriptedResponse::text("**first**"));
    s.turn(&id, "one").await;
    s.model.push(ScriptedResponse::text("**second**"));
    s.turn(&id, "two").await;
    let html = |timeline: Value| -> Vec<Value> {
        timeline["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["role"] == "assistant")
            .map(|r| r["html"].clone())
            .collect()
    };
    let all = s.get_json(&format!("/api/conversations/{id}")).await;
    assert_eq!(
        html(all),
        [
            json!("<p><strong>first</strong></p>\n"),
            json!("<p><strong>second</strong></p>\n")
        ]
    );
    // The page that shows the answer it streamed asks without it.
    let known = s
        .get_json(&format!("/api/conversations/{id}?last_html=false"))
        .await;
    assert_eq!(
        html(known.clone()),
        [json!("<p><strong>first</strong></p>\n"), Value::Null]
    );
    let last = known["rows"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["content"], "**second**");
}
