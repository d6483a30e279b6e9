//! The event stream (`GET /api/conversations/{id}/events`): each SSE message's data is
//! an [`Event`]; a `confirm` event's data is a [`ConfirmEvent`], an `elicit` event's an
//! [`ElicitEvent`], a `reload` event's a [`ReloadEvent`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::plan::Plan;

mod elicit;

pub use elicit::ElicitEvent;

/// One event of a conversation: the envelope's ids and `seq`, and beside them the
/// event's `type` and fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Event {
    /// The conversation (a UUID).
    pub conversation_id: String,
    /// The turn (a UUID), for the events of a turn; absent for titles and manual
    /// compressions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The conversation's event counter on this server, also the SSE `id`: it grows
    /// with every event, so `Last-Event-ID` resumes after it.
    pub seq: u64,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

impl Event {
    /// An event of `conversation_id` (and of `turn_id`, if any) numbered `seq`.
    #[must_use]
    pub fn new(
        conversation_id: String,
        turn_id: Option<String>,
        seq: u64,
        kind: EventKind,
    ) -> Self {
        Self {
            conversation_id,
            turn_id,
            seq,
            kind,
        }
    }
}

/// What happened, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum EventKind {
    /// A turn started: its user message is stored.
    TurnStarted,
    /// Streamed answer text, to append.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// Streamed reasoning, to append.
    ReasoningDelta {
        /// The new reasoning.
        text: String,
    },
    /// The model call failed while streaming and is sent again: clear the text and
    /// reasoning shown since the step began (they are never stored).
    Retrying {
        /// The attempt about to start (2 for the first retry).
        attempt: u32,
        /// The most attempts this call may make.
        max: u32,
        /// What went wrong, in words.
        reason: String,
        /// Milliseconds until the attempt starts.
        delay_ms: u64,
    },
    /// The model asked for a tool call; it runs.
    ToolCallStarted {
        /// The model's id for the call (matches the completion's).
        call_id: String,
        /// The tool.
        tool_name: String,
        /// Its arguments, JSON text as the model wrote it.
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
        /// The result, whole.
        result: String,
    },
    /// Hooks (hooks.json's `PreToolUse`, `PostToolUse`) ran for a tool call: their
    /// runs, for its card. Sent before the call's `ToolCallCompleted`.
    ToolCallHooks {
        /// The model's id for the call.
        call_id: String,
        /// The runs, in the hooks' order.
        hooks: Vec<crate::api::HookRunCard>,
    },
    /// An MCP server asked the person during a tool call (elicitation): what became
    /// of each question. Sent before the call's `ToolCallCompleted`.
    ToolCallElicitations {
        /// The model's id for the call.
        call_id: String,
        /// The questions, in order.
        elicitations: Vec<crate::api::ElicitationCard>,
    },
    /// A hook (hooks.json) failed — it exited with a code other than 0 or 2, timed out
    /// or could not start — and the turn goes on: show it to the person, quietly.
    HookWarning {
        /// The tool call it ran for, if it ran on one (its card may show it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
        /// What failed, in words.
        message: String,
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
        /// Context estimate before, in tokens.
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
        /// Whether `used` is exact; `false`: an upper bound.
        exact: bool,
        /// Prompt tokens the provider reported for the same request, if it reports
        /// usage.
        #[serde(default)]
        reported: Option<u64>,
        /// Of those, the prompt tokens the provider took from its prompt cache
        /// (`prompt_tokens_details.cached_tokens`; llama.cpp's `timings.cache_n`), when it
        /// says.
        #[serde(default)]
        cached: Option<u64>,
    },
    /// The conversation's task list (plan) changed: the whole new list.
    TaskListChanged {
        /// The plan, to render.
        plan: Plan,
    },
    /// The conversation got a (new) title.
    TitleChanged {
        /// The title.
        title: String,
    },
    /// Something to know that is not a failure (said once).
    Warning {
        /// What, with what to do.
        message: String,
    },
    /// The turn finished normally. Comes once the conversation is free again.
    TurnCompleted {
        /// The final answer text (of the last model step), as Markdown.
        text: String,
        /// Set when a limit cut that answer: show it marked as cut, never as whole.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cut: Option<crate::history::AnswerCut>,
    },
    /// The turn was cancelled; the partial answer is stored.
    TurnCancelled,
    /// The turn failed; the partial answer and the error are stored.
    TurnFailed {
        /// What went wrong.
        error: String,
    },
    /// A sub-agent started on a `Delegate` call of this turn: it works in a
    /// conversation of its own (`sub_conversation_id`), whose progress follows as
    /// `SubAgentToolCall` events and ends with `SubAgentFinished`.
    SubAgentStarted {
        /// The parent's `Delegate` call the sub-agent answers.
        call_id: String,
        /// The sub-agent's conversation (a UUID; `GET /api/conversations/{id}/…`).
        sub_conversation_id: String,
        /// The agent's name.
        agent: String,
        /// The few words saying what it does (the call's `description`).
        description: String,
        /// The task it was given (the call's `prompt`).
        task: String,
    },
    /// A running sub-agent started or finished one of its own tool calls.
    SubAgentToolCall {
        /// The parent's `Delegate` call.
        call_id: String,
        /// The sub-agent's conversation.
        sub_conversation_id: String,
        /// The agent's name.
        agent: String,
        /// The tool.
        tool_name: String,
        /// `running` when it starts, then how it ended.
        status: ToolCallStatus,
        /// How many tool calls the sub-agent has started so far in this run.
        tool_calls: u32,
    },
    /// A sub-agent ended; its answer (or error) is the `Delegate` call's result, sent
    /// next as that call's `ToolCallCompleted`.
    SubAgentFinished {
        /// The parent's `Delegate` call.
        call_id: String,
        /// The sub-agent's conversation.
        sub_conversation_id: String,
        /// The agent's name.
        agent: String,
        /// How it ended.
        outcome: SubAgentOutcome,
        /// What went wrong, when it failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// How many tool calls it made in this run.
        tool_calls: u32,
    },
    /// An event type this client does not know (sent by a newer server): ignore it.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// How a sub-agent's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SubAgentOutcome {
    /// It answered.
    Completed,
    /// It failed (its model, its limits, the store); the error is the call's result.
    Failed,
    /// It was stopped with its parent's turn.
    Cancelled,
    /// An outcome this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

impl SubAgentOutcome {
    /// The outcome's word, as the wire writes it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Unknown => "unknown",
        }
    }
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

/// How a tool call stands or ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ToolCallStatus {
    /// Running (only while its turn runs).
    Running,
    /// Succeeded.
    Ok,
    /// Failed; the result says why.
    Error,
    /// Refused: a command not allowed, or not confirmed.
    Denied,
    /// Its turn was cancelled by the person.
    Cancelled,
    /// The server was shutting down, or its turn ended before it did.
    Interrupted,
    /// A status this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

impl ToolCallStatus {
    /// The status's word, as the wire writes it (`unknown` for one this client does not
    /// know).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Denied => "denied",
            Self::Cancelled => "cancelled",
            Self::Interrupted => "interrupted",
            Self::Unknown => "unknown",
        }
    }
}

/// Why a compression ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CompressionTrigger {
    /// Before a turn: the estimate reached the threshold.
    BeforeTurn,
    /// Between tool steps of a running turn.
    MidTurn,
    /// The provider answered "context length exceeded".
    Overflow,
    /// The person asked for it (`POST …/compact`).
    Manual,
    /// A trigger this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// `true`, for fields that default to it.
fn yes() -> bool {
    true
}

/// The data of a `confirm` event: a tool call waiting for the person's answer, or none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum ConfirmEvent {
    /// A tool call waits; answer with `POST …/confirmation`.
    ConfirmationRequested {
        /// The id to answer with.
        request_id: u64,
        /// The call in one line: the command line, or the tool's name and arguments.
        command: String,
        /// The tool called (empty when not said).
        #[serde(default)]
        tool: String,
        /// Whether the call is a command line (shown as `$ command`).
        #[serde(default = "yes")]
        is_command: bool,
        /// What asked: the permission rule, or the default that applied.
        #[serde(default)]
        rule: Option<String>,
        /// Seconds until it counts as denied.
        timeout_secs: u64,
        /// Whether it would run without the sandbox (no Landlock on the server).
        unconfined: bool,
    },
    /// No command waits any more (answered, timed out or dropped).
    ConfirmationClosed,
    /// A type this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// The data of a `reload` event: load the conversation again and open a new stream
/// without `Last-Event-ID`. The stream ends after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum ReloadEvent {
    /// The stream could not go on.
    Reload {
        /// Why.
        reason: String,
    },
    /// A type this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

impl ReloadEvent {
    /// A reload for `reason`.
    #[must_use]
    pub fn new(reason: impl Into<String>) -> Self {
        Self::Reload {
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_call_status_says_the_word_the_wire_writes() {
        for status in [
            ToolCallStatus::Running,
            ToolCallStatus::Ok,
            ToolCallStatus::Error,
            ToolCallStatus::Denied,
            ToolCallStatus::Cancelled,
            ToolCallStatus::Interrupted,
        ] {
            let written = serde_json::to_value(status).unwrap();
            assert_eq!(written, serde_json::json!(status.as_str()), "{status:?}");
        }
    }

    #[test]
    fn a_sub_agent_outcome_says_the_word_the_wire_writes() {
        for outcome in [
            SubAgentOutcome::Completed,
            SubAgentOutcome::Failed,
            SubAgentOutcome::Cancelled,
        ] {
            let written = serde_json::to_value(outcome).unwrap();
            assert_eq!(written, serde_json::json!(outcome.as_str()), "{outcome:?}");
        }
    }
}
