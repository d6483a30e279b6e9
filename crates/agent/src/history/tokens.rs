//! Token accounting: one scheme shared by the stored counts, the estimate and the
//! independent count of a built request, so they agree.

use smallebot_application::ports::{ModelMessage, ModelRequest, ToolSchema};

use crate::tokenizer::Tokenizer;

/// Tokens every message costs beyond its text (role and framing).
pub const MESSAGE_OVERHEAD: i64 = 4;
/// Tokens every request costs beyond its messages (reply priming).
pub const REQUEST_OVERHEAD: i64 = 3;

pub(crate) fn count(tokenizer: &Tokenizer, text: &str) -> i64 {
    if text.is_empty() {
        0
    } else {
        i64::try_from(tokenizer.count(text)).unwrap_or(i64::MAX)
    }
}

/// Tokens of the tool schemas as sent (their JSON).
pub(crate) fn schema_tokens(tokenizer: &Tokenizer, tools: &[ToolSchema]) -> i64 {
    if tools.is_empty() {
        return 0;
    }
    let json = serde_json::to_string(&crate::client::body::Tools(tools)).unwrap_or_default();
    count(tokenizer, &json)
}

/// Counts a whole built request from scratch (used by tests and benchmarks as the
/// independent reference; the pipeline never calls it).
#[must_use]
pub fn request_tokens(tokenizer: &Tokenizer, request: &ModelRequest) -> i64 {
    let mut total = REQUEST_OVERHEAD + MESSAGE_OVERHEAD + count(tokenizer, &request.system);
    for message in &request.messages {
        total += MESSAGE_OVERHEAD;
        match message {
            ModelMessage::User { content } | ModelMessage::Tool { content, .. } => {
                total += count(tokenizer, content);
            }
            ModelMessage::Assistant {
                content,
                tool_calls,
            } => {
                total += count(tokenizer, content);
                for call in tool_calls {
                    total += MESSAGE_OVERHEAD
                        + count(tokenizer, &call.name)
                        + count(tokenizer, &call.arguments);
                }
            }
        }
    }
    total + schema_tokens(tokenizer, &request.tools)
}
