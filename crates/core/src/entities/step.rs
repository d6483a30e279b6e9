//! One model step as storage receives it: everything the step produced, written in
//! one transaction.

use super::{HistoryRow, Turn, TurnStatus};
use crate::ids::{ConversationId, TurnId};

/// What one model step produced, stored together: its reasoning, its assistant
/// message, the tool calls it asked for (stored `running`, in order) and, for a step
/// that ends the turn, the end. Storage gives each row the conversation's next `seq`
/// in that order and writes all of it, or nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct NewStep {
    /// Its conversation.
    pub conversation_id: ConversationId,
    /// Its turn.
    pub turn_id: TurnId,
    /// The step's reasoning text, if it is to be kept.
    pub reasoning: Option<String>,
    /// The assistant message (may be empty: it marks where the step's tool calls begin).
    pub message: Option<StepMessage>,
    /// The tool calls the model asked for.
    pub tool_calls: Vec<StepToolCall>,
    /// Set when this step ends the turn.
    pub end: Option<TurnEnd>,
}

/// The assistant message of a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepMessage {
    /// The text.
    pub content: String,
    /// Tokens of `content`.
    pub token_count: i64,
}

/// A tool call a step asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepToolCall {
    /// The call id, unique within the turn.
    pub call_id: String,
    /// Tool name.
    pub tool_name: String,
    /// Arguments as JSON text.
    pub arguments: String,
    /// Tokens of name + arguments.
    pub token_count: i64,
}

/// How a turn ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnEnd {
    /// Completed, cancelled or failed.
    pub status: TurnStatus,
    /// The error text of a failed turn.
    pub error: Option<String>,
    /// Set when the answer was cut by a limit (a completed turn only).
    pub cut: Option<super::AnswerCut>,
}

/// What storage wrote for a [`NewStep`].
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedStep {
    /// The rows written, in `seq` order (reasoning, message, tool calls).
    pub rows: Vec<HistoryRow>,
    /// The ended turn, when the step ended it.
    pub turn: Option<Turn>,
}
