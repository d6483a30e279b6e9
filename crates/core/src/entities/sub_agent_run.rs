//! A sub-agent's conversation as its parent shows it: the conversation with how its
//! latest run stands, read for all of a parent's sub-agents in one query.

use super::{Conversation, TurnStatus};

/// One sub-agent of a parent conversation, with its latest turn's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct SubAgentRun {
    /// The sub-agent's conversation (its `parent` link is set).
    pub conversation: Conversation,
    /// The status of its latest turn; `None` before its first turn started.
    pub latest_status: Option<TurnStatus>,
    /// The error its latest turn ended with, if any.
    pub latest_error: Option<String>,
    /// How many tool calls its latest turn made.
    pub tool_calls: u32,
}
