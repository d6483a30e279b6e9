//! Edit, regenerate, rename, compact and search through the API, and that one user
//! never reaches another's conversations.

use crate::common;

use std::time::Duration;

use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_core::entities::{
    LeaseOwner, NewStep, NewTurn, StartedTurn, StepMessage, TurnEnd, TurnStatus,
};
use smallebot_core::repository::{ConversationRepository, TurnRepository};
use smallebot_testkit::{Gate, ScriptedResponse};

async fn get(s: &Server, path: &str) -> reqwest::Response {
    s.http.get(s.url(path)).send().await.unwrap()
}

async fn timeline(s: &Server, id: &str) -> Vec<Value> {
    let body: Value = get(s, &format!("/api/conversations/{id}"))
        .await
        .json()
        .await
        .unwrap();
    body["rows"].as_array().unwrap().clone()
}

#[tokio::test]
async fn edit_and_regenerate_start_new_turns() {
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY: the early turns"));
    let id = s.create().await;
    s.turn(&id, "hello").await;
    let rows = timeline(&s, &id).await;
    let user = rows.iter().find(|r| r["role"] == "user").unwrap();
    let message_id = user["id"].as_str().unwrap();

    let mut events = s.open_events(&id, None).await;
    let edited = s
        .http
        .post(s.url(&format!(
            "/api/conversations/{id}/messages/{message_id}/edit"
        )))
        .json(&json!({"text": "hello again"}))
        .send()
        .await
        .unwrap();
    assert_eq!(edited.status(), StatusCode::ACCEPTED);
    events.until_turn_ends().await;
    let rows = timeline(&s, &id).await;
    let old = rows.iter().find(|r| r["id"] == json!(message_id)).unwrap();
    assert!(old["replaced_by"].is_string(), "{old}");
    let new = rows.iter().find(|r| r["content"] == "hello again").unwrap();
    assert_eq!(new["is_edited"], true);
    let turn_id = new["turn_id"].as_str().unwrap().to_owned();
    let answer_before = rows.last().unwrap()["content"].clone();

    let mut events = s.open_events(&id, None).await;
    let regenerated = s
        .http
        .post(s.url(&format!(
            "/api/conversations/{id}/turns/{turn_id}/regenerate"
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(regenerated.status(), StatusCode::ACCEPTED);
    let body: Value = regenerated.json().await.unwrap();
    assert_eq!(body["turn_id"], json!(turn_id));
    events.until_turn_ends().await;
    let rows = timeline(&s, &id).await;
    let answer_after = rows.last().unwrap()["content"].clone();
    assert_ne!(answer_after, answer_before);
    assert!(answer_after.as_str().unwrap().starts_with("answer"));

    // Unknown ids are 404, not 500.
    let missing = s
        .http
        .post(s.url(&format!("/api/conversations/{id}/turns/nope/regenerate")))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let unknown_message = s
        .http
        .post(s.url(&format!(
            "/api/conversations/{id}/messages/01a202c1-bd6c-77b9-9831-d665c565df36/edit"
        )))
        .json(&json!({"text": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown_message.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn undo_marks_the_last_turn_and_keeps_it_from_the_model() {
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let id = s.create().await;
    s.turn(&id, "keep this").await;
    let dropped = s.turn(&id, "drop this").await;
    let undo = |s: &Server| {
        s.http
            .post(s.url(&format!("/api/conversations/{id}/undo")))
            .send()
    };
    let answer = undo(&s).await.unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["turn_id"], dropped["turn_id"]);

    let rows = timeline(&s, &id).await;
    assert_eq!(rows.len(), 4, "nothing is deleted: {rows:?}");
    for row in &rows {
        let in_dropped = row["turn_id"] == dropped["turn_id"];
        assert_eq!(row["undone"], json!(in_dropped), "{row}");
    }
    s.turn(&id, "after the undo").await;
    let last = s.turn_requests().into_iter().last().unwrap();
    let sent = serde_json::to_string(&last.messages()).unwrap();
    assert!(
        sent.contains("keep this") && !sent.contains("drop this"),
        "{sent}"
    );

    // Undo all three, then there is nothing left: `null`.
    for _ in 0..2 {
        assert_eq!(undo(&s).await.unwrap().status(), StatusCode::OK);
    }
    let none: Value = undo(&s).await.unwrap().json().await.unwrap();
    assert_eq!(none["turn_id"], Value::Null);
}

#[tokio::test]
async fn undo_or_regenerate_of_a_summarized_turn_is_a_409_that_says_why() {
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let id = s.create().await;
    let first = s.turn(&id, "one").await;
    for text in ["two", "three"] {
        s.turn(&id, text).await;
    }
    let post = |path: String| s.http.post(s.url(&path)).send();
    let compacted = post(format!("/api/conversations/{id}/compact"))
        .await
        .unwrap();
    assert_eq!(compacted.json::<Value>().await.unwrap()["ok"], true);
    let turn = first["turn_id"].as_str().unwrap();
    let regenerated = post(format!("/api/conversations/{id}/turns/{turn}/regenerate"))
        .await
        .unwrap();
    assert_eq!(regenerated.status(), StatusCode::CONFLICT);
    let body: Value = regenerated.json().await.unwrap();
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("already summarized"),
        "{body}"
    );
    // The two turns kept verbatim can be undone; the summarized one cannot.
    for _ in 0..2 {
        let undone = post(format!("/api/conversations/{id}/undo")).await.unwrap();
        assert_eq!(undone.status(), StatusCode::OK);
    }
    let refused = post(format!("/api/conversations/{id}/undo")).await.unwrap();
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("already summarized"),
        "{body}"
    );
}

#[tokio::test]
async fn rename_compact_and_search() {
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY: the early turns"));
    let id = s.create().await;
    for text in ["about the armadillo", "second", "third"] {
        s.turn(&id, text).await;
    }
    let renamed = s
        .http
        .patch(s.url(&format!("/api/conversations/{id}")))
        .json(&json!({"title": "  Armadillos  "}))
        .send()
        .await
        .unwrap();
    assert_eq!(renamed.status(), StatusCode::OK);
    assert_eq!(
        renamed.json::<Value>().await.unwrap()["title"],
        "Armadillos"
    );
    let empty = s
        .http
        .patch(s.url(&format!("/api/conversations/{id}")))
        .json(&json!({"title": " "}))
        .send()
        .await
        .unwrap();
    assert_eq!(empty.status(), StatusCode::BAD_REQUEST);

    let compacted = s
        .http
        .post(s.url(&format!("/api/conversations/{id}/compact")))
        .json(&json!({"focus": "pangolin husbandry"}))
        .send()
        .await
        .unwrap();
    assert_eq!(compacted.status(), StatusCode::OK);
    let report: Value = compacted.json().await.unwrap();
    assert_eq!(report["ok"], true, "{report}");
    let summarizer = s.turn_requests().pop().unwrap();
    let prompt: String = summarizer
        .messages()
        .iter()
        .map(smallebot_testkit::message_text)
        .collect();
    assert!(
        prompt.contains("pangolin husbandry"),
        "the focus reaches the summarizer"
    );
    let rows = timeline(&s, &id).await;
    assert_eq!(rows[0]["summarized"], true);
    assert_eq!(rows.last().unwrap()["summarized"], false);
    // Without a body compaction runs too (nothing left to summarize now).
    let again = s
        .http
        .post(s.url(&format!("/api/conversations/{id}/compact")))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(again.json::<Value>().await.unwrap()["ok"], false);

    // Summarized rows are still found.
    let hits: Value = get(&s, "/api/search?q=armadillo")
        .await
        .json()
        .await
        .unwrap();
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["conversation_id"], json!(id));
    assert_eq!(hits[0]["kind"], "user");
    for bad in [
        "/api/search?q=",
        "/api/search?q=x&days=0",
        "/api/search?q=x&limit=lots",
        "/api/search",
    ] {
        assert_eq!(
            get(&s, bad).await.status(),
            StatusCode::BAD_REQUEST,
            "{bad}"
        );
    }
}

#[tokio::test]
async fn another_users_conversations_are_404_and_never_searched() {
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY: the early turns"));
    // Bob's conversation, stored by another program on the same database.
    let bob = s.store.create_conversation("bob", "Bob's").await.unwrap();
    let owner = LeaseOwner {
        pid: std::process::id(),
        host: "elsewhere".into(),
        started_at: chrono::Utc::now(),
    };
    let StartedTurn { turn: bob_turn, .. } = s
        .store
        .start_turn_in_context(&NewTurn {
            token_count: 3,
            ..NewTurn::new(bob.id, "the walrus secret", &owner)
        })
        .await
        .unwrap();
    s.store
        .record_step(&NewStep {
            conversation_id: bob.id,
            turn_id: bob_turn.id,
            reasoning: None,
            message: Some(StepMessage {
                content: "walrus answer".into(),
                token_count: 2,
            }),
            tool_calls: vec![],
            end: Some(TurnEnd {
                status: TurnStatus::Completed,
                error: None,
                cut: None,
            }),
        })
        .await
        .unwrap();
    let mine = s.create().await;
    s.turn(&mine, "my walrus").await;

    let b = bob.id.to_string();
    let refused = [
        s.http.get(s.url(&format!("/api/conversations/{b}"))),
        s.http.get(s.url(&format!("/api/conversations/{b}/events"))),
        s.http.delete(s.url(&format!("/api/conversations/{b}"))),
        s.http
            .patch(s.url(&format!("/api/conversations/{b}")))
            .json(&json!({"title": "mine now"})),
        s.http
            .post(s.url(&format!("/api/conversations/{b}/compact"))),
        s.http
            .post(s.url(&format!("/api/conversations/{b}/cancel"))),
        s.http
            .post(s.url(&format!("/api/conversations/{b}/messages")))
            .json(&json!({"text": "hi"})),
        s.http.post(s.url(&format!(
            "/api/conversations/{b}/turns/{}/regenerate",
            bob_turn.id
        ))),
    ];
    for request in refused {
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
    }
    let listed: Value = get(&s, "/api/conversations").await.json().await.unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let hits: Value = get(&s, "/api/search?q=walrus").await.json().await.unwrap();
    let hits = hits.as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(
        hits.iter().all(|h| h["conversation_id"] == json!(mine)),
        "{hits:?}"
    );
    // Bob's conversation is untouched.
    let still = s.store.get_conversation(bob.id).await.unwrap().unwrap();
    assert_eq!(still.title, "Bob's");
}

#[tokio::test]
async fn the_title_is_asked_for_beside_the_first_turn_only() {
    let s = Server::start().await;
    s.answer_titles_with("Armadillo facts");
    let held = Gate::new();
    s.model
        .push(ScriptedResponse::text("Armadillos roll up.").hold_until(&held));
    let id = s.create().await;
    let mut events = s.open_events(&id, None).await;
    let started = s
        .send(&id, json!({"text": "tell me about armadillos"}))
        .await;
    assert_eq!(started.status(), StatusCode::ACCEPTED);

    // The model's title arrives while the turn's answer is still held back.
    let mut titles = Vec::new();
    let titled = tokio::time::timeout(Duration::from_secs(10), async {
        while titles.last().map(String::as_str) != Some("Armadillo facts") {
            let frame = events.next().await.unwrap();
            assert_ne!(frame.data["type"], "TurnCompleted", "{titles:?}");
            if frame.data["type"] == "TitleChanged" {
                titles.push(frame.data["title"].as_str().unwrap().to_owned());
            }
        }
    })
    .await;
    assert!(titled.is_ok(), "no title while the turn ran: {titles:?}");
    assert_eq!(titles, ["tell me about armadi…", "Armadillo facts"]);
    assert!(!held.is_open());
    held.open();
    let frames = events.until_turn_ends().await;
    assert_eq!(frames.last().unwrap().data["type"], "TurnCompleted");

    // Later turns ask for no title, even when the first one stays in place.
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    s.turn(&id, "and pangolins?").await;
    let asked = s.model.requests().len() - s.turn_requests().len();
    assert_eq!(asked, 1);
    let listed = s.get_json("/api/conversations").await;
    assert_eq!(listed[0]["title"], "Armadillo facts");
}
