//! Where the plan goes in a request: after everything that does not change.
//!
//! Local servers (llama.cpp's slot cache, vLLM's prefix cache, Ollama) and hosted APIs
//! (OpenAI's prompt cache) reuse the work done for a prompt's unchanged beginning. The
//! system prompt, the tool schemas and the earlier messages stay the same from one step
//! to the next; the task list changes whenever a task does. So the list is not part of
//! the system prompt: it is appended to the newest message of each request, where a
//! change costs only what follows it. The next request sends that message without it
//! (the list then moves to the new newest message), so every request repeats the one
//! before it byte for byte up to the end of that message's own text.

use smallebot_application::ports::{ModelMessage, ModelPart};

/// The heading the plan is shown under.
pub const PLAN_HEADING: &str = "# Task List";

/// The plan as appended: a blank line, the heading, the plan.
#[must_use]
pub fn plan_block(plan: &str) -> String {
    format!("\n\n{PLAN_HEADING}\n{}", plan.trim())
}

/// Appends the plan (when not blank) to the newest message of `messages`: after a user
/// message's text, or as a last text part when it has attachments (so the parts before
/// it stay as they were); after a tool result's text; after an assistant's text.
pub fn append_plan(messages: &mut [ModelMessage], plan: Option<&str>) {
    let Some(plan) = plan.filter(|p| !p.trim().is_empty()) else {
        return;
    };
    let block = plan_block(plan);
    match messages.last_mut() {
        Some(ModelMessage::User { content, parts }) if parts.is_empty() => {
            content.push_str(&block);
        }
        Some(ModelMessage::User { parts, .. }) => parts.push(ModelPart::Text {
            text: block.trim_start().to_owned(),
        }),
        Some(ModelMessage::Tool { content, .. } | ModelMessage::Assistant { content, .. }) => {
            content.push_str(&block)
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> ModelMessage {
        ModelMessage::User {
            content: text.into(),
            parts: Vec::new(),
        }
    }

    fn tool(text: &str) -> ModelMessage {
        ModelMessage::Tool {
            call_id: "c1".into(),
            content: text.into(),
        }
    }

    #[test]
    fn the_plan_goes_after_the_newest_message_only() {
        let with_image = ModelMessage::User {
            content: "Look".into(),
            parts: vec![ModelPart::Image {
                data_url: "data:image/png;base64,AA".into(),
            }],
        };
        let cases: Vec<(Vec<ModelMessage>, Option<&str>, Vec<ModelMessage>)> = vec![
            (vec![user("Hi")], None, vec![user("Hi")]),
            (vec![user("Hi")], Some("  "), vec![user("Hi")]),
            (
                vec![user("Hi")],
                Some("Plan:\n  1: [ ] A"),
                vec![user("Hi\n\n# Task List\nPlan:\n  1: [ ] A")],
            ),
            (
                vec![user("Hi"), tool("ok")],
                Some("P"),
                vec![user("Hi"), tool("ok\n\n# Task List\nP")],
            ),
            (
                vec![with_image.clone()],
                Some("P"),
                vec![ModelMessage::User {
                    content: "Look".into(),
                    parts: vec![
                        ModelPart::Image {
                            data_url: "data:image/png;base64,AA".into(),
                        },
                        ModelPart::Text {
                            text: "# Task List\nP".into(),
                        },
                    ],
                }],
            ),
            (Vec::new(), Some("P"), Vec::new()),
        ];
        for (mut messages, plan, expected) in cases {
            append_plan(&mut messages, plan);
            assert_eq!(messages, expected, "{plan:?}");
        }
    }
}
