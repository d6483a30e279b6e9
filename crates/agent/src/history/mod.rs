//! The history builder (docs/design.md §4): stored rows → a chat request, and the token
//! accounting that matches it exactly.
//!
//! Sent history = system prompt + the rows after the compression boundary in `seq`
//! order, with the task list after the newest message (`plan_note.rs`: what changes
//! between steps comes last, so a server's prompt cache keeps the rest). Tool calls go as native `tool_calls` + `tool` messages, or (for earlier turns,
//! with `toolHistoryFormat: "inline"`) as the seed's lines `[Tool: Name(args)] → result`
//! appended to the assistant message. Results are cut to `toolResultMaxLength`
//! characters, keeping head and tail. Token counts are stored per row when written, so
//! the estimate is a sum that never re-tokenizes the history. A user message's
//! attachments follow its text as parts (`attachments.rs`): images as data URLs, text
//! files inlined within `maxInlineTokens`, other files saved in the workspace.

mod attachments;
mod builder;
mod messages;
mod plan_note;
mod system_prompt;
mod tokens;

pub use builder::{HistoryBuilder, HistorySettings, tool_result_limit};
pub use messages::{INTERRUPTED_TOOL_RESULT, build_messages};
pub use plan_note::{PLAN_HEADING, append_plan, plan_block};
pub use system_prompt::{
    BASE_INSTRUCTIONS, SystemPromptSections, assemble_system_prompt, task_guidance,
};
pub use tokens::{MESSAGE_OVERHEAD, REQUEST_OVERHEAD, request_tokens};
