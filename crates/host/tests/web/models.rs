//! The model picker: `GET /api/models`, a conversation's choice over the API, where its
//! requests go, and the picker on the page in headless Chromium (with a screenshot
//! under `target/ui-screenshots/`).

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, eval, open_page, screenshot, send, wait_for};
use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_core::repository::ConversationRepository;
use smallebot_model_client::{ChatEndpoint, NamedEndpoint};
use smallebot_testkit::ScriptedResponse;

/// A server offering two models on the testkit: `small` (the default, 8000 tokens)
/// and `large` (200 000 tokens), each with its own model name.
async fn two_models() -> Server {
    let s = Server::start_full(
        |agent, base| {
            agent.choices(vec![
                NamedEndpoint {
                    id: "small".into(),
                    endpoint: ChatEndpoint::new(base, "small-model"),
                    context_window: 8000,
                },
                NamedEndpoint {
                    id: "large".into(),
                    endpoint: ChatEndpoint::new(base, "large-model"),
                    context_window: 200_000,
                },
            ])
        },
        |web| web,
    )
    .await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    s
}

async fn choose(s: &Server, id: &str, model: Value) -> reqwest::Response {
    s.http
        .put(s.url(&format!("/api/conversations/{id}/model")))
        .json(&json!({ "model": model }))
        .send()
        .await
        .unwrap()
}

/// The model name of the last request that offered tools (a turn's step, not a title).
fn last_turn_model(s: &Server) -> String {
    let requests = s.model.requests();
    let step = requests
        .iter()
        .rev()
        .find(|r| !r.tools().is_empty())
        .unwrap();
    step.model().unwrap().to_owned()
}

#[tokio::test]
async fn a_conversation_runs_on_the_model_it_chose() {
    let s = two_models().await;
    let models = s.get_json("/api/models").await;
    assert_eq!(models["default"], "small");
    let ids: Vec<&str> = models["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["small", "large"]);
    assert_eq!(models["models"][1]["contextWindow"], 200_000);

    let id = s.create().await;
    let timeline = s.get_json(&format!("/api/conversations/{id}")).await;
    assert_eq!(timeline["model"], "small");
    assert_eq!(timeline["context"]["window"], 8000);
    s.turn(&id, "on the default").await;
    assert_eq!(last_turn_model(&s), "small-model");

    let chosen = choose(&s, &id, json!("large")).await;
    assert_eq!(chosen.status(), StatusCode::OK);
    assert_eq!(chosen.json::<Value>().await.unwrap()["model"], "large");
    let timeline = s.get_json(&format!("/api/conversations/{id}")).await;
    assert_eq!(timeline["model"], "large");
    assert_eq!(timeline["context"]["window"], 200_000);
    s.turn(&id, "on the large one").await;
    assert_eq!(last_turn_model(&s), "large-model");

    // Another conversation keeps the default; `null` goes back to it.
    let other = s.create().await;
    s.turn(&other, "elsewhere").await;
    assert_eq!(last_turn_model(&s), "small-model");
    let back = choose(&s, &id, Value::Null).await;
    assert_eq!(back.json::<Value>().await.unwrap()["model"], "small");
    s.turn(&id, "back on the default").await;
    assert_eq!(last_turn_model(&s), "small-model");
}

#[tokio::test]
async fn unknown_models_bad_bodies_and_others_conversations_are_refused() {
    let s = two_models().await;
    let id = s.create().await;
    let unknown = choose(&s, &id, json!("huge")).await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    let message = unknown.json::<Value>().await.unwrap()["error"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.contains("`huge`") && message.contains("small, large"),
        "{message}"
    );
    let misspelt = s
        .http
        .put(s.url(&format!("/api/conversations/{id}/model")))
        .json(&json!({ "modle": "large" }))
        .send()
        .await
        .unwrap();
    assert_eq!(misspelt.status(), StatusCode::BAD_REQUEST);
    let bob = s.store.create_conversation("bob", "Bob's").await.unwrap();
    let foreign = choose(&s, &bob.id.to_string(), json!("large")).await;
    assert_eq!(foreign.status(), StatusCode::NOT_FOUND);
    let stored = s.store.get_conversation(bob.id).await.unwrap().unwrap();
    assert_eq!(stored.model, None, "Bob's choice is untouched");
    // A refused choice changed nothing.
    let timeline = s.get_json(&format!("/api/conversations/{id}")).await;
    assert_eq!(timeline["model"], "small");
}

#[tokio::test]
async fn without_a_model_list_there_is_nothing_to_choose() {
    let s = Server::start().await;
    let models = s.get_json("/api/models").await;
    assert_eq!(models, json!({ "models": [], "default": null }));
    let id = s.create().await;
    let refused = choose(&s, &id, json!("any")).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    let body = refused.json::<Value>().await.unwrap();
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("only the default model"),
        "{body}"
    );
}

#[tokio::test]
async fn the_picker_switches_the_model_of_the_open_conversation() {
    let Some(browser) = Chromium::start("model picker").await else {
        return;
    };
    let s = two_models().await;
    // (a stored conversation: a new one is stored with its first message)
    s.create().await;
    let page = open_page(&s, &browser).await;
    wait_for(&page, "!document.getElementById('model').hidden").await;
    assert_eq!(
        eval(
            &page,
            "[...document.querySelectorAll('#model option')].map(o => o.value)"
        )
        .await,
        json!(["small", "large"])
    );
    assert_eq!(
        eval(&page, "document.getElementById('model').value").await,
        "small"
    );
    wait_for(
        &page,
        "document.getElementById('usage-text').textContent.endsWith('of 8000')",
    )
    .await;
    // Pick the large model as a person does: choose the option, the select changes.
    eval(
        &page,
        "(() => { const p = document.getElementById('model'); p.value = 'large'; \
         p.dispatchEvent(new Event('change')); return true; })()",
    )
    .await;
    wait_for(
        &page,
        "document.getElementById('usage-text').textContent.endsWith('of 200000')",
    )
    .await;
    send(&page, "which model are you?").await;
    wait_for(&page, "document.querySelector('.message.assistant') !== null && !document.getElementById('input').disabled").await;
    assert_eq!(last_turn_model(&s), "large-model");
    screenshot(&page, "model-picker").await;
    // The choice is the conversation's: a fresh page shows it again.
    let again = open_page(&s, &browser).await;
    wait_for(&again, "document.getElementById('model').value === 'large'").await;
    browser.close().await;
}
