//! Token accounting: one scheme shared by the stored counts, the estimate and the
//! independent count of a built request, so they agree.

use smallebot_application::ports::{ModelMessage, ModelPart, ModelRequest, ToolSchema};

use crate::tokenizer::{Tokenizer, token_upper_bound};

/// Something that counts the tokens of a text.
pub(crate) trait CountTokens {
    /// The tokens of `text`.
    fn tokens(&self, text: &str) -> usize;

    /// Whether the counts are exact (not upper bounds).
    fn exact(&self) -> bool {
        true
    }
}

/// Exact counts (builds the encoder on first use).
impl CountTokens for Tokenizer {
    fn tokens(&self, text: &str) -> usize {
        self.count(text)
    }
}

/// Exact counts once the tokenizer is ready, upper bounds before; never builds it.
pub(crate) struct Counter<'a>(pub(crate) &'a Tokenizer);

impl CountTokens for Counter<'_> {
    fn tokens(&self, text: &str) -> usize {
        self.0.count_or_bound(text).0
    }

    fn exact(&self) -> bool {
        self.0.is_ready()
    }
}

/// Upper bounds only ([`token_upper_bound`]).
pub(crate) struct Bound;

impl CountTokens for Bound {
    fn tokens(&self, text: &str) -> usize {
        token_upper_bound(text)
    }

    fn exact(&self) -> bool {
        false
    }
}

/// Tokens every message costs beyond its text (role and framing).
pub const MESSAGE_OVERHEAD: i64 = 4;
/// Tokens every request costs beyond its messages (reply priming).
pub const REQUEST_OVERHEAD: i64 = 3;

pub(crate) fn count(counter: &impl CountTokens, text: &str) -> i64 {
    if text.is_empty() {
        0
    } else {
        i64::try_from(counter.tokens(text)).unwrap_or(i64::MAX)
    }
}

/// Tokens of the tool schemas as sent (their JSON).
pub(crate) fn schema_tokens(counter: &impl CountTokens, tools: &[ToolSchema]) -> i64 {
    if tools.is_empty() {
        return 0;
    }
    count(counter, &smallebot_model_client::tools_json(tools))
}

/// Counts a whole built request from scratch (used by tests and benchmarks as the
/// independent reference; the pipeline never calls it). Image parts are not counted.
#[must_use]
pub fn request_tokens(tokenizer: &Tokenizer, request: &ModelRequest) -> i64 {
    let mut total = REQUEST_OVERHEAD + MESSAGE_OVERHEAD + count(tokenizer, &request.system);
    for message in &request.messages {
        total += MESSAGE_OVERHEAD;
        match message {
            ModelMessage::User { content, parts } => {
                total += count(tokenizer, content);
                // Image parts are counted by their size, which a data URL does not
                // give here: a request with images is not counted by this reference.
                for part in parts {
                    if let ModelPart::Text { text } = part {
                        total += count(tokenizer, text);
                    }
                }
            }
            ModelMessage::Tool { content, .. } => total += count(tokenizer, content),
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
