//! The chat form: scripted input answering, fixing a wrong answer, declining,
//! cancelling, and the end of input.

use serde_json::json;
use smallebot_core::rules::elicitation::form_of;

use super::*;
use crate::chat::input::PipedInput;

fn schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "description": "Your name"},
            "age": {"type": "integer", "minimum": 0},
            "color": {"type": "string", "enum": ["red", "green"], "default": "red"}
        },
        "required": ["name"]
    })
}

/// Answers the form with `typed`: what the elicitor returned and what was printed.
async fn answer(typed: &'static str) -> (ElicitationAnswer, String) {
    let (elicitor, mut requests) = TerminalElicitor::channel();
    let schema = schema();
    let form = form_of(&schema).unwrap();
    let asked = tokio::spawn(async move {
        let request = ElicitationRequest::new("files", "Who are you?", &form, &schema);
        elicitor.elicit(&request, Duration::from_secs(5)).await
    });
    let request = requests.recv().await.unwrap();
    let mut input = PipedInput::new(tokio::io::BufReader::new(typed.as_bytes()));
    let mut out = Vec::new();
    let (_, mut interrupts) = mpsc::unbounded_channel();
    ask_form(request, &mut input, &mut out, &mut interrupts)
        .await
        .unwrap();
    (asked.await.unwrap(), String::from_utf8(out).unwrap())
}

#[tokio::test]
async fn each_field_is_asked_with_its_line_and_a_wrong_answer_again() {
    // Fields in the order of the schema as read (its keys sorted).
    let (answer, printed) = answer("y\nold\n42\n\nAnn\n").await;
    let content = json!({"name": "Ann", "age": 42, "color": "red"});
    assert_eq!(
        answer,
        ElicitationAnswer::Accept(content.as_object().cloned().unwrap())
    );
    for line in [
        "The MCP server files asks: Who are you?",
        "Answer? [Y/n = decline, c = cancel] (5 s)",
        "  Name: Your name (text, required)",
        "  age (a whole number)",
        "  color (one of: red, green, default red)",
        "  age: \"old\" is not a number; try again",
        "→ sent",
    ] {
        assert!(printed.contains(line), "{line:?} in {printed}");
    }
}

#[tokio::test]
async fn decline_cancel_and_the_end_of_input_send_nothing() {
    let cases = [
        ("n\n", ElicitationAnswer::Decline, "→ declined"),
        ("c\n", ElicitationAnswer::Cancel, "→ cancelled"),
        (
            "y\n",
            ElicitationAnswer::Decline,
            "→ declined (end of input)",
        ),
    ];
    for (typed, expected, note) in cases {
        let (answer, printed) = answer(typed).await;
        assert_eq!(answer, expected, "{typed:?}");
        assert!(printed.contains(note), "{note:?} in {printed}");
    }
}
