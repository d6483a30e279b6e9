//! `POST /api/conversations/{id}/elicitation` and the `elicit` event over the real
//! router, with a [`WebElicitor`] asked as the MCP client asks it: the form shown on
//! the conversation's stream (also to one opened later), an answer that does not fit
//! refused naming the field (the form stays), the answer reaching the asker, another
//! user's or conversation's request `404`, and no answer in time a timeout.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::{Server, SseReader};
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_application::ports::{ElicitationAnswer, ElicitationRequest, Elicitor};
use smallebot_core::ids::ConversationId;
use smallebot_core::rules::elicitation::form_of;
use smallebot_web::WebElicitor;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "color": {"type": "string", "enum": ["red", "green"], "default": "red"}
        },
        "required": ["name"]
    })
}

/// Asks the form in conversation `id` as the MCP client would, within `timeout`.
fn ask(
    elicitor: &Arc<WebElicitor>,
    id: &str,
    timeout: Duration,
) -> tokio::task::JoinHandle<ElicitationAnswer> {
    let elicitor = Arc::clone(elicitor);
    let conversation: ConversationId = id.parse().unwrap();
    tokio::spawn(async move {
        let schema = schema();
        let form = form_of(&schema).unwrap();
        let request = ElicitationRequest::new("files", "Who is asking?", &form, &schema).in_call(
            Some(conversation),
            None,
            Some("call-1"),
        );
        elicitor.elicit(&request, timeout).await
    })
}

/// The next `elicit` frame's data.
async fn next_elicit(events: &mut SseReader) -> Value {
    loop {
        let frame = events.next().await.expect("an elicit event");
        if frame.name.as_deref() == Some("elicit") {
            assert_eq!(frame.id, None, "questions have no id");
            return frame.data;
        }
    }
}

/// `POST …/elicitation` of conversation `id` with `body`, as `token`'s user if given.
async fn answer(s: &Server, id: &str, token: Option<&str>, body: Value) -> reqwest::Response {
    let mut request = s
        .http
        .post(s.url(&format!("/api/conversations/{id}/elicitation")))
        .json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn the_form_is_an_event_and_an_answer_is_checked_before_it_reaches_the_asker() {
    let elicitor = Arc::new(WebElicitor::new());
    let web = Arc::clone(&elicitor);
    let s = Server::start_with(move |state| state.elicitations(web)).await;
    let id = s.create().await;
    let other = s.create().await;
    let mut events = s.open_events(&id, None).await;
    let asking = ask(&elicitor, &id, Duration::from_secs(20));

    let shown = next_elicit(&mut events).await;
    assert_eq!(shown["type"], "ElicitationRequested");
    assert_eq!(
        (&shown["server"], &shown["message"]),
        (&json!("files"), &json!("Who is asking?"))
    );
    let request_id = shown["request_id"].as_u64().unwrap();
    let field = |name: &str| {
        shown["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(
        (
            &field("name")["kind"],
            &field("name")["required"],
            &field("name")["title"]
        ),
        (&json!("text"), &json!(true), &json!("Name"))
    );
    assert_eq!(
        (&field("age")["kind"], &field("age")["maximum"]),
        (&json!("integer"), &json!(150.0))
    );
    assert_eq!(field("color")["kind"], "choice");
    assert_eq!(field("color")["default"], "red");
    assert_eq!(
        field("color")["choices"],
        json!([{"value": "red", "label": "red"}, {"value": "green", "label": "green"}])
    );
    // A stream opened while it waits is shown it at once.
    let mut later = s.open_events(&id, None).await;
    assert_eq!(next_elicit(&mut later).await["request_id"], request_id);

    let accept =
        |content: Value| json!({"request_id": request_id, "action": "accept", "content": content});
    let unfit = answer(&s, &id, None, accept(json!({"age": 200}))).await;
    assert_eq!(unfit.status(), StatusCode::BAD_REQUEST);
    let said: Value = unfit.json().await.unwrap();
    let said = said["error"].as_str().unwrap();
    assert!(said.contains("name is required"), "{said}");
    assert!(said.contains("age: 200 is out of range"), "{said}");
    for (conversation, request) in [(&id, request_id + 1), (&other, request_id)] {
        let body = json!({"request_id": request, "action": "decline"});
        let refused = answer(&s, conversation, None, body).await;
        assert_eq!(
            refused.status(),
            StatusCode::NOT_FOUND,
            "{conversation} {request}"
        );
    }
    let unknown = answer(
        &s,
        &id,
        None,
        json!({"request_id": request_id, "action": "maybe"}),
    )
    .await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);

    let fits = answer(&s, &id, None, accept(json!({"name": "Ann", "age": 42}))).await;
    assert_eq!(fits.status(), StatusCode::NO_CONTENT);
    let answered = asking.await.unwrap();
    let expected = json!({"name": "Ann", "age": 42, "color": "red"});
    assert_eq!(
        answered,
        ElicitationAnswer::Accept(expected.as_object().unwrap().clone())
    );
    assert_eq!(next_elicit(&mut events).await["type"], "ElicitationClosed");
    let again = answer(&s, &id, None, accept(json!({"name": "Ann"}))).await;
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn only_the_conversation_s_owner_answers_and_no_answer_in_time_is_a_timeout() {
    let elicitor = Arc::new(WebElicitor::new());
    let web = Arc::clone(&elicitor);
    let users = common::users(&[("token-ann", "ann"), ("token-bob", "bob")]);
    let s = Server::start_with(move |state| state.users(users).elicitations(web)).await;
    let id = s.create_as("token-ann").await;
    let mut shown = elicitor.watch(id.parse().unwrap());
    let asking = ask(&elicitor, &id, Duration::from_secs(20));
    shown.changed().await.unwrap();
    let request_id = shown.borrow_and_update().as_ref().unwrap().request_id;
    let body = json!({"request_id": request_id, "action": "cancel"});

    let bob = answer(&s, &id, Some("token-bob"), body.clone()).await;
    assert_eq!(bob.status(), StatusCode::NOT_FOUND);
    let nobody = answer(&s, &id, None, body.clone()).await;
    assert_eq!(nobody.status(), StatusCode::UNAUTHORIZED);
    let ann = answer(&s, &id, Some("token-ann"), body.clone()).await;
    assert_eq!(ann.status(), StatusCode::NO_CONTENT);
    assert_eq!(asking.await.unwrap(), ElicitationAnswer::Cancel);

    let late = ask(&elicitor, &id, Duration::from_millis(100))
        .await
        .unwrap();
    assert_eq!(late, ElicitationAnswer::TimedOut);
    assert_eq!(
        *shown.borrow_and_update(),
        None,
        "withdrawn after the timeout"
    );
}

#[tokio::test]
async fn without_an_elicitor_the_route_is_not_found() {
    let s = Server::start().await;
    let id = s.create().await;
    let body = json!({"request_id": 1, "action": "decline"});
    assert_eq!(
        answer(&s, &id, None, body).await.status(),
        StatusCode::NOT_FOUND
    );
}
