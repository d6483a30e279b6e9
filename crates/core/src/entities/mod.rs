//! The stored entities (docs/design.md §2).
//!
//! Every conversation has one strictly increasing `seq` counter shared by its turns,
//! messages, tool calls and think blocks, so rows are ordered exactly even when
//! timestamps tie.

mod attachment;
mod conversation;
mod export;
mod file_change;
mod grant;
mod hook_run;
mod lease;
mod mcp_credential;
mod message;
mod rewrite;
mod row;
mod search;
mod step;
mod sub_agent_run;
mod think_block;
mod tool_call;
mod turn;
mod turn_start;
mod usage;
mod user;

pub use attachment::{Attachment, AttachmentFacts, AttachmentKind, ImageSize, NewAttachment};
pub use conversation::{CompressionUpdate, Conversation, FirstTurnTitle, SubAgentLink};
pub use export::ConversationExport;
pub use file_change::TurnFileChange;
pub use grant::{GrantFilter, GrantId, GrantScope, NewPermissionGrant, PermissionGrant};
pub use hook_run::HookRun;
pub use lease::{LeaseOwner, TurnLease};
pub use mcp_credential::McpCredential;
pub use message::{AnswerVersion, Message, NewMessage, Role};
pub use rewrite::{MessageReplacement, RewriteGuard, TurnContents, TurnRestart, TurnUndo};
pub use row::HistoryRow;
pub use search::{SearchHit, SearchHitKind, SearchQuery, SearchScope};
pub use step::{NewStep, RecordedStep, StepMessage, StepToolCall, TurnEnd};
pub use sub_agent_run::SubAgentRun;
pub use think_block::{NewThinkBlock, ThinkBlock};
pub use tool_call::{NewToolCall, ToolCall, ToolCallCompletion, ToolCallStatus};
pub use turn::{AnswerCut, Turn, TurnStatus};
pub use turn_start::{NewTurn, StartedTurn};
pub use usage::{
    BilledTurn, TokenCounts, UsageAccount, UsageFilter, UsageOutcome, UsagePurpose, UsageRecord,
};
pub use user::{UserAccount, UserRules};

/// A conversation's position counter value: messages, tool calls, think blocks and
/// turns all draw from the same per-conversation sequence starting at 1.
pub type Seq = i64;

/// A stored word that names no known status or role.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} '{word}'")]
pub struct UnknownWord {
    /// What the word should have named (`turn status`, `role`, …).
    pub kind: &'static str,
    /// The word found.
    pub word: String,
}

/// Parses one of a closed set of lowercase status words.
fn parse_word<T: Copy>(
    text: &str,
    table: &[(&str, T)],
    kind: &'static str,
) -> Result<T, UnknownWord> {
    table
        .iter()
        .find(|(word, _)| *word == text)
        .map(|(_, value)| *value)
        .ok_or_else(|| UnknownWord {
            kind,
            word: text.to_owned(),
        })
}
