//! One run of a hook (hooks.json), recorded on its conversation and turn.

use serde::{Deserialize, Serialize};

use crate::ids::{ConversationId, TurnId};
use crate::time::Timestamp;

/// A hook that ran: what it was, how it ended and what it decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookRun {
    /// The conversation it ran for.
    pub conversation_id: ConversationId,
    /// The turn, when there was one (a `UserPromptSubmit` hook runs before its turn
    /// exists; a session's hooks run outside turns).
    pub turn_id: Option<TurnId>,
    /// The event (`PreToolUse`, …).
    pub event: String,
    /// The tool of the call it ran for (PreToolUse, PostToolUse).
    pub tool_name: Option<String>,
    /// The model's id of that call.
    pub call_id: Option<String>,
    /// Its command line.
    pub command: String,
    /// Its exit code; `None` when it was killed (timeout, cancel, a signal).
    pub exit_code: Option<i32>,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// What it decided: `allow`, `ask`, `block`, `warning`, or empty.
    pub decision: String,
    /// When it ended.
    pub at: Timestamp,
}
