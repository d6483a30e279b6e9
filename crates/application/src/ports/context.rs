//! The context port: building requests from stored rows and counting their tokens.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use smallebot_core::entities::{Attachment, AttachmentKind, Conversation, HistoryRow, Role};
use smallebot_core::ids::{AttachmentId, TurnId};
use smallebot_core::rules::attachment::image_tokens;

use super::model::ModelRequest;
use super::tools::ToolSchema;

/// What a chat request is built from.
#[derive(Debug, Clone, Copy)]
pub struct PromptInput<'a> {
    /// The conversation (its summary goes into the system prompt).
    pub conversation: &'a Conversation,
    /// Rows after the compression boundary, in `seq` order (the current turn's user
    /// message and its steps so far included).
    pub rows: &'a [HistoryRow],
    /// The running turn (its tool calls always go in native form).
    pub current_turn: TurnId,
    /// The task list as displayed, if any.
    pub plan: Option<&'a str>,
    /// Tools offered to the model.
    pub tools: &'a std::sync::Arc<[ToolSchema]>,
    /// Whether reasoning is requested.
    pub thinking: bool,
    /// The content of every attachment of the user messages in `rows` (one missing
    /// here is named in the request, not sent).
    pub attachments: &'a AttachmentContents,
    /// Whether the conversation's model sees images; when not (it was chosen after an
    /// image was sent), an image goes as a line naming it, never as an image.
    pub sees_images: bool,
}

/// Attachments' contents by id, read once per turn.
pub type AttachmentContents = HashMap<AttachmentId, Arc<[u8]>>;

/// How full the context window is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ContextEstimate {
    /// Estimated tokens of the request.
    pub used: u64,
    /// The model's context window.
    pub window: u64,
    /// Whether `used` is exact; `false`: an upper bound (counted before the exact
    /// tokenizer was ready, or over stored counts that are still provisional).
    pub exact: bool,
}

impl ContextEstimate {
    /// `used / window` (0 for an empty window).
    #[must_use]
    pub fn ratio(&self) -> f64 {
        if self.window == 0 {
            0.0
        } else {
            self.used as f64 / self.window as f64
        }
    }
}

/// Builds model requests and counts tokens the same way.
pub trait ContextAssembler: Send + Sync {
    /// The chat request for the next model step.
    fn build_request(&self, input: &PromptInput<'_>) -> ModelRequest;

    /// The estimate without building the request: `stored_tokens` (the sum of stored
    /// counts after the boundary) + the system prompt + tool schemas + `new_message`.
    /// Never re-tokenizes the history. Never waits for the tokenizer: until
    /// [`exact_counts_ready`](Self::exact_counts_ready), the counts it makes are upper
    /// bounds and the estimate says it is not exact.
    fn estimate(
        &self,
        conversation: &Conversation,
        stored_tokens: i64,
        plan: Option<&str>,
        tools: &[ToolSchema],
        new_message: Option<&str>,
    ) -> ContextEstimate;

    /// Tokens a message row costs in a request (stored in `token_count`): exact once
    /// [`exact_counts_ready`](Self::exact_counts_ready), an upper bound before.
    fn message_tokens(&self, role: Role, content: &str) -> i64;

    /// Tokens `attachment` adds to its message in a request: an image by the provider's
    /// formula, a text file by its inlined (budgeted) text with the header, another file
    /// by the line naming its path. `text` is a text attachment's content (`None` for
    /// other kinds). The default counts images by the formula and anything else as
    /// one token per four bytes, with no budget.
    fn attachment_tokens(&self, attachment: &Attachment, text: Option<&str>) -> i64 {
        match (attachment.kind, attachment.image_size) {
            (AttachmentKind::Image, Some(size)) => image_tokens(size),
            (AttachmentKind::Image, None) => image_tokens(smallebot_core::entities::ImageSize {
                width: 0,
                height: 0,
            }),
            _ => {
                let bytes = text.map_or(0, str::len) + attachment.name.len() + 64;
                i64::try_from(bytes / 4).unwrap_or(i64::MAX)
            }
        }
    }

    /// Tokens a tool call row costs in a request, with its result as it is sent
    /// (truncated), or without a result while it runs. Exact or a bound, as
    /// [`message_tokens`](Self::message_tokens).
    fn tool_call_tokens(&self, name: &str, arguments: &str, result: Option<&str>) -> i64;

    /// Tokens of a tool call row once its `result` is in, when the call alone was
    /// counted at `call_tokens` (by [`tool_call_tokens`](Self::tool_call_tokens)
    /// without a result, as its running row was stored): only the result is counted
    /// then. The default counts the whole row again.
    fn tool_call_tokens_with_result(
        &self,
        call_tokens: i64,
        name: &str,
        arguments: &str,
        result: &str,
    ) -> i64 {
        let _ = call_tokens;
        self.tool_call_tokens(name, arguments, Some(result))
    }

    /// Whether counts are exact from now on. Never blocks; once `true`, stays `true`.
    fn exact_counts_ready(&self) -> bool {
        true
    }

    /// Makes counts exact (builds the tokenizer if needed). May block for a while:
    /// call it off the async executor.
    fn prepare_exact_counts(&self) {}

    /// The chat model's context window in tokens.
    fn context_window(&self) -> u64;

    /// The context window of `conversation`'s model in tokens. Default: the chat
    /// model's ([`context_window`](Self::context_window)).
    fn window_of(&self, conversation: &Conversation) -> u64 {
        let _ = conversation;
        self.context_window()
    }

    /// Tokens `tools`' schemas take in a request, estimated the same way whenever it
    /// is asked, tokenizer ready or not (it decides whether tools wait for a search,
    /// which should not change when the tokenizer is built): a token per four bytes
    /// of their JSON, rounded up.
    fn schema_estimate(&self, tools: &[ToolSchema]) -> u64 {
        let bytes = serde_json::to_string(tools).map_or(0, |json| json.len());
        u64::try_from(bytes.div_ceil(4)).unwrap_or(u64::MAX)
    }
}
