//! Ready-made conversations, e.g. for the offline demo of the agent host.
//!
//! The demo responder is a function of the request, so it never runs out:
//!
//! - a request whose last user message starts with `Generate a short title` gets the
//!   title [`DEMO_TITLE`];
//! - a request whose last message is a `tool` result gets a short text answer quoting the
//!   result and saying it came from the `GetCurrentTime` tool;
//! - any other request gets a short reasoning, a sentence and a `GetCurrentTime` tool
//!   call with arguments `{}`.

use std::time::Duration;

use crate::record::{RecordedRequest, message_text};
use crate::script::{ScriptedResponse, ToolCallSpec};
use crate::server::TestModel;

/// The tool the demo model calls.
pub const DEMO_TOOL: &str = "GetCurrentTime";
/// The title the demo model gives a conversation.
pub const DEMO_TITLE: &str = "Time check";
pub use crate::record::TITLE_REQUEST_PREFIX;

/// Script `server` with the demo conversation ([`demo_responder`] without pacing).
pub fn demo_scenario(server: &TestModel) {
    server.respond_with(demo_responder(Duration::ZERO));
}

/// The demo responder; `pace` is the delay between streamed chunks (zero for tests,
/// a few tens of milliseconds to make a live demo look like a real model).
pub fn demo_responder(
    pace: Duration,
) -> impl Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync + 'static {
    move |request| demo_response(request).delay_between(pace)
}

fn demo_response(request: &RecordedRequest) -> ScriptedResponse {
    if request.asks_for_title() {
        return ScriptedResponse::text(DEMO_TITLE);
    }
    match request.last_message() {
        Some(last) if request.last_role() == Some("tool") => {
            let result = message_text(last);
            let result = result.trim();
            let answer = if result.is_empty() {
                format!("The {DEMO_TOOL} tool returned nothing, so I cannot tell the time.")
            } else {
                format!(
                    "It is **{result}** right now, according to the `{DEMO_TOOL}` tool.\n\n\
                     - asked: the clock\n- answered: {result}\n"
                )
            };
            ScriptedResponse::text(answer)
        }
        _ => ScriptedResponse::text("Let me check the clock.")
            .with_reasoning(format!(
                "The user wants the current time. I should call {DEMO_TOOL}."
            ))
            .with_tool_calls([ToolCallSpec::new(
                format!("call_time_{}", request.index),
                DEMO_TOOL,
                "{}",
            )]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::ResponseKind;
    use serde_json::{Value, json};

    fn request(index: usize, messages: Value) -> RecordedRequest {
        RecordedRequest {
            index,
            path: "/v1/chat/completions".into(),
            body: json!({"model": "demo", "messages": messages}),
            authorization: None,
            headers: Vec::new(),
        }
    }

    fn completion(response: &ScriptedResponse) -> &crate::script::Completion {
        match &response.kind {
            ResponseKind::Completion(c) => c,
            _ => panic!("demo never answers with an error"),
        }
    }

    #[test]
    fn first_request_calls_the_tool() {
        let response = demo_response(&request(
            0,
            json!([{"role": "user", "content": "What time is it?"}]),
        ));
        let c = completion(&response);
        assert_eq!(c.tool_calls.len(), 1);
        assert_eq!(c.tool_calls[0].name, DEMO_TOOL);
        assert_eq!(c.tool_calls[0].arguments, "{}");
        assert_eq!(c.effective_finish_reason(), "tool_calls");
    }

    #[test]
    fn tool_result_gets_a_text_answer_naming_the_tool() {
        let response = demo_response(&request(
            1,
            json!([
                {"role": "user", "content": "What time is it?"},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "call_time_0", "type": "function", "function": {"name": DEMO_TOOL, "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_time_0", "content": "2025-01-01 12:00"}
            ]),
        ));
        let c = completion(&response);
        assert!(c.tool_calls.is_empty());
        assert!(c.text.contains("2025-01-01 12:00"), "{}", c.text);
        assert!(c.text.contains(DEMO_TOOL), "{}", c.text);
    }

    #[test]
    fn title_request_gets_the_title() {
        let response = demo_response(&request(
            2,
            json!([{"role": "user", "content": "Generate a short title for: What time is it?"}]),
        ));
        assert_eq!(completion(&response).text, DEMO_TITLE);
    }
}
