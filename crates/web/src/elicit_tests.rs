use super::*;
use serde_json::json;
use smallebot_core::rules::elicitation::form_of;

fn form() -> (Value, Form) {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "color": {"type": "string", "enum": ["red", "green"], "enumNames": ["Red", "Green"], "default": "red"},
            "tall": {"type": "boolean"},
            "score": {"type": "number", "maximum": 1.5},
            "nick": {"type": "string", "minLength": 2, "maxLength": 8}
        },
        "required": ["name"]
    });
    let form = form_of(&schema).unwrap();
    (schema, form)
}

/// Asks `c` the test form through `elicitor` within `timeout`, in a task.
fn asking(
    elicitor: &Arc<WebElicitor>,
    c: Option<ConversationId>,
    timeout: Duration,
) -> tokio::task::JoinHandle<ElicitationAnswer> {
    let elicitor = Arc::clone(elicitor);
    tokio::spawn(async move {
        let (schema, form) = form();
        let request =
            ElicitationRequest::new("files", "Who?", &form, &schema).in_call(c, None, None);
        elicitor.elicit(&request, timeout).await
    })
}

/// The next form shown for `c`.
async fn shown(watched: &mut watch::Receiver<Option<PendingElicitation>>) -> PendingElicitation {
    loop {
        watched.changed().await.unwrap();
        if let Some(pending) = watched.borrow_and_update().clone() {
            return pending;
        }
    }
}

fn content(value: Value) -> Option<Map<String, Value>> {
    value.as_object().cloned()
}

#[tokio::test]
async fn an_answer_that_does_not_fit_is_refused_naming_the_field_and_the_form_stays() {
    let elicitor = Arc::new(WebElicitor::new());
    let c = ConversationId::new();
    let mut watched = elicitor.watch(c);
    let waiting = asking(&elicitor, Some(c), Duration::from_secs(5));
    let pending = shown(&mut watched).await;
    assert_eq!(
        (pending.server.as_str(), pending.message.as_str()),
        ("files", "Who?")
    );
    assert!(pending.timeout_secs <= 5 && pending.timeout_secs >= 4);
    let id = pending.request_id;
    let cases = [
        (json!({}), "name is required"),
        (
            json!({"name": "Ann", "age": 200}),
            "age: 200 is out of range",
        ),
        (
            json!({"name": "Ann", "age": 1.5}),
            "age: 1.5 is not a whole number",
        ),
        (
            json!({"name": "Ann", "color": "blue"}),
            "color: \"blue\" is not one of red, green",
        ),
        (
            json!({"name": "Ann", "tall": "yes"}),
            "tall: expected a boolean",
        ),
        (json!({"name": "Ann", "nick": "x"}), "nick: 1 characters"),
        (
            json!({"name": "Ann", "shoe": 42}),
            "shoe is not a field of the form",
        ),
    ];
    for (answer, why) in cases {
        match elicitor.answer(c, id, ElicitationReply::Accept, content(answer.clone())) {
            Err(ElicitationRefused::Unfit(said)) => assert!(said.contains(why), "{answer}: {said}"),
            other => panic!("{answer}: {other:?}"),
        }
        assert_eq!(watched.borrow().as_ref().map(|p| p.request_id), Some(id));
    }
    assert_eq!(
        elicitor.answer(c, id + 1, ElicitationReply::Decline, None),
        Err(ElicitationRefused::NothingPending)
    );
    assert_eq!(
        elicitor.answer(ConversationId::new(), id, ElicitationReply::Decline, None),
        Err(ElicitationRefused::NothingPending)
    );
    let fits = content(json!({"name": "Ann", "age": 42, "tall": true}));
    assert_eq!(
        elicitor.answer(c, id, ElicitationReply::Accept, fits),
        Ok(())
    );
    assert_eq!(
        waiting.await.unwrap(),
        ElicitationAnswer::Accept(
            content(json!({"name": "Ann", "age": 42, "tall": true, "color": "red"})).unwrap()
        ),
        "the default fills the field left out"
    );
    assert_eq!(*watched.borrow(), None, "closed once answered");
    assert_eq!(
        elicitor.answer(c, id, ElicitationReply::Decline, None),
        Err(ElicitationRefused::NothingPending)
    );
}

#[tokio::test]
async fn decline_and_cancel_reach_the_server_as_such() {
    for (reply, expected) in [
        (ElicitationReply::Decline, ElicitationAnswer::Decline),
        (ElicitationReply::Cancel, ElicitationAnswer::Cancel),
    ] {
        let elicitor = Arc::new(WebElicitor::new());
        let c = ConversationId::new();
        let mut watched = elicitor.watch(c);
        let waiting = asking(&elicitor, Some(c), Duration::from_secs(5));
        let id = shown(&mut watched).await.request_id;
        assert_eq!(
            elicitor.answer(c, id, reply, content(json!({"x": 1}))),
            Ok(())
        );
        assert_eq!(waiting.await.unwrap(), expected);
    }
}

#[tokio::test]
async fn no_answer_in_time_is_timed_out_and_withdrawn_and_no_conversation_no_one_to_ask() {
    let elicitor = Arc::new(WebElicitor::new());
    let c = ConversationId::new();
    let answer = asking(&elicitor, Some(c), Duration::from_millis(50))
        .await
        .unwrap();
    assert_eq!(answer, ElicitationAnswer::TimedOut);
    assert_eq!(
        *elicitor.watch(c).borrow(),
        None,
        "withdrawn after the timeout"
    );
    let nowhere = asking(&elicitor, None, Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(nowhere, ElicitationAnswer::NoOneToAsk);
}

#[tokio::test]
async fn an_abandoned_question_is_withdrawn() {
    let elicitor = Arc::new(WebElicitor::new());
    let c = ConversationId::new();
    let mut watched = elicitor.watch(c);
    let waiting = asking(&elicitor, Some(c), Duration::from_secs(5));
    let id = shown(&mut watched).await.request_id;
    // The turn ends (cancelled): the call stops waiting.
    waiting.abort();
    let _ = waiting.await;
    assert_eq!(*watched.borrow(), None);
    assert_eq!(
        elicitor.answer(c, id, ElicitationReply::Decline, None),
        Err(ElicitationRefused::NothingPending)
    );
}

#[tokio::test]
async fn a_second_form_waits_until_the_first_is_closed() {
    let elicitor = Arc::new(WebElicitor::new());
    let c = ConversationId::new();
    let mut watched = elicitor.watch(c);
    let first = asking(&elicitor, Some(c), Duration::from_secs(5));
    let first_id = shown(&mut watched).await.request_id;
    let second = asking(&elicitor, Some(c), Duration::from_secs(5));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        watched.borrow().as_ref().map(|p| p.request_id),
        Some(first_id),
        "the first stays shown"
    );
    elicitor
        .answer(c, first_id, ElicitationReply::Decline, None)
        .unwrap();
    assert_eq!(first.await.unwrap(), ElicitationAnswer::Decline);
    let second_id = shown(&mut watched).await.request_id;
    assert_ne!(second_id, first_id);
    elicitor
        .answer(c, second_id, ElicitationReply::Cancel, None)
        .unwrap();
    assert_eq!(second.await.unwrap(), ElicitationAnswer::Cancel);
}

#[test]
fn the_wire_fields_carry_kind_bounds_choices_and_defaults() {
    let (_, form) = form();
    let wire = wire_fields(&form);
    let row = |name: &str| wire.iter().find(|f| f.name == name).unwrap().clone();
    let cases = [
        ("name", ElicitationFieldKind::Text, true),
        ("age", ElicitationFieldKind::Integer, false),
        ("color", ElicitationFieldKind::Choice, false),
        ("tall", ElicitationFieldKind::Boolean, false),
        ("score", ElicitationFieldKind::Number, false),
        ("nick", ElicitationFieldKind::Text, false),
    ];
    for (name, kind, required) in cases {
        let field = row(name);
        assert_eq!((field.kind, field.required), (kind, required), "{name}");
    }
    assert_eq!(row("name").title.as_deref(), Some("Name"));
    assert_eq!(
        (row("age").minimum, row("age").maximum),
        (Some(0.0), Some(150.0))
    );
    assert_eq!(
        (row("nick").min_length, row("nick").max_length),
        (Some(2), Some(8))
    );
    let color = row("color");
    assert_eq!(color.default, Some(json!("red")));
    assert_eq!(
        color.choices,
        vec![
            ElicitationChoice {
                value: "red".into(),
                label: "Red".into()
            },
            ElicitationChoice {
                value: "green".into(),
                label: "Green".into()
            },
        ]
    );
}
