//! What an event says: [`EventKind`], and [`CompressionTrigger`].

use serde::{Deserialize, Serialize};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::tasks::TaskList;

/// Why a compression ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CompressionTrigger {
    /// Before a turn, the estimate reached the threshold.
    BeforeTurn,
    /// Between tool steps of a running turn.
    MidTurn,
    /// The provider answered "context length exceeded".
    Overflow,
    /// The person asked for it.
    Manual,
}

/// What happened. The ids live once in the [`Event`](super::Event) envelope around it.
/// Serialized with a `type` field beside the envelope's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum EventKind {
    /// A turn started (its user message is stored).
    TurnStarted,
    /// Streamed answer text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// Streamed reasoning text.
    ReasoningDelta {
        /// The new reasoning.
        text: String,
    },
    /// The model call failed while streaming and is sent again: clear the text and
    /// reasoning shown since the step began — they are never stored or used.
    Retrying {
        /// The attempt about to start (2 for the first retry).
        attempt: u32,
        /// The most attempts this call may make.
        max: u32,
        /// What went wrong (`stream cut`, `server error 503`, …).
        reason: String,
        /// Milliseconds until the attempt starts.
        delay_ms: u64,
    },
    /// The model asked for a tool call; it is stored as running.
    ToolCallStarted {
        /// The model's id for the call.
        call_id: String,
        /// The tool.
        tool_name: String,
        /// Its arguments (JSON text).
        arguments: String,
    },
    /// A tool call finished; its result is stored.
    ToolCallCompleted {
        /// The model's id for the call.
        call_id: String,
        /// The tool.
        tool_name: String,
        /// How it ended.
        status: ToolCallStatus,
        /// The result (full text).
        result: String,
    },
    /// Context compression started.
    CompressionStarted {
        /// Why.
        trigger: CompressionTrigger,
    },
    /// Context compression ended.
    CompressionCompleted {
        /// Why it ran.
        trigger: CompressionTrigger,
        /// Whether a summary was stored.
        ok: bool,
        /// What happened, in words.
        detail: String,
        /// Context estimate before.
        tokens_before: u64,
        /// Context estimate after (equal to before when it failed).
        tokens_after: u64,
    },
    /// How full the context window is for the request about to be sent.
    ContextUsage {
        /// Estimated tokens of the request.
        used: u64,
        /// The model's context window.
        window: u64,
        /// `used / window`.
        ratio: f64,
        /// Whether `used` is exact; `false`: an upper bound (counted before the
        /// exact tokenizer was ready).
        exact: bool,
        /// Prompt tokens the provider reported for this same request (sent again
        /// once the response arrived), if it reports usage.
        reported: Option<u64>,
    },
    /// The conversation's task list (plan) changed.
    TaskListChanged {
        /// The whole new list; each consumer renders it (`format_plan` for text).
        plan: TaskList,
    },
    /// The conversation got a (new) title.
    TitleChanged {
        /// The title.
        title: String,
    },
    /// The turn finished normally.
    TurnCompleted {
        /// The final answer text (of the last model step).
        text: String,
        /// Set when a limit cut that answer: it is kept as far as it came, and must
        /// not be shown as whole.
        cut: Option<smallebot_core::entities::AnswerCut>,
    },
    /// Something the person should know that is not a failure (said once), e.g. that
    /// the fixed part of every request fills the context window.
    Warning {
        /// What, with the numbers and what to do.
        message: String,
    },
    /// The turn was cancelled; partial text is stored.
    TurnCancelled,
    /// The turn failed; partial text and the error are stored.
    TurnFailed {
        /// What went wrong.
        error: String,
    },
}

impl EventKind {
    /// Whether the event ends a turn (completed, cancelled or failed).
    #[must_use]
    pub fn ends_turn(&self) -> bool {
        matches!(
            self,
            Self::TurnCompleted { .. } | Self::TurnCancelled | Self::TurnFailed { .. }
        )
    }
}
