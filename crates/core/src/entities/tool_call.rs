use serde::{Deserialize, Serialize};

use super::Seq;
use crate::ids::{ConversationId, ToolCallId, TurnId};
use crate::time::Timestamp;

/// Where a tool call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ToolCallStatus {
    /// Started, no result yet.
    Running,
    /// Finished successfully.
    Ok,
    /// The tool failed or its arguments were invalid; the result says why.
    Error,
    /// Refused (blacklist, confirmation denied).
    Denied,
    /// Stopped because the turn was cancelled.
    Cancelled,
    /// Never finished: the process running it was stopping (a shutdown) or stopped, or
    /// its turn ended otherwise first. Its result is what came back, if anything.
    Interrupted,
}

const TOOL_STATUS_WORDS: &[(&str, ToolCallStatus)] = &[
    ("running", ToolCallStatus::Running),
    ("ok", ToolCallStatus::Ok),
    ("error", ToolCallStatus::Error),
    ("denied", ToolCallStatus::Denied),
    ("cancelled", ToolCallStatus::Cancelled),
    ("interrupted", ToolCallStatus::Interrupted),
];

impl ToolCallStatus {
    /// The stored word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        TOOL_STATUS_WORDS
            .iter()
            .find(|(_, s)| *s == self)
            .map_or("running", |(w, _)| w)
    }

    /// Parses the stored word.
    ///
    /// # Errors
    /// Names the unknown word.
    pub fn parse(text: &str) -> Result<Self, super::UnknownWord> {
        super::parse_word(text, TOOL_STATUS_WORDS, "tool call status")
    }
}

/// A stored tool call with its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Row id.
    pub id: ToolCallId,
    /// Its conversation.
    pub conversation_id: ConversationId,
    /// Its turn.
    pub turn_id: TurnId,
    /// Position in the conversation (allocated when the call started).
    pub seq: Seq,
    /// The model's id for the call; results are matched by it.
    pub call_id: String,
    /// Tool name (PascalCase).
    pub tool_name: String,
    /// Arguments as JSON text, exactly as the model sent them.
    pub arguments: String,
    /// Full result text (capped at 1 MiB with a marker); `None` while running, and for
    /// a call `interrupted` before anything came back.
    pub result: Option<String>,
    /// Where it stands.
    pub status: ToolCallStatus,
    /// Tokens of the call and of its result as sent to the model.
    pub token_count: i64,
    /// When it started.
    pub started_at: Timestamp,
    /// When it finished.
    pub completed_at: Option<Timestamp>,
}

/// A tool call that has just started.
#[derive(Debug, Clone, PartialEq)]
pub struct NewToolCall {
    /// Its conversation.
    pub conversation_id: ConversationId,
    /// Its turn.
    pub turn_id: TurnId,
    /// The model's id for the call.
    pub call_id: String,
    /// Tool name.
    pub tool_name: String,
    /// Arguments as JSON text.
    pub arguments: String,
    /// Tokens of name + arguments.
    pub token_count: i64,
}

/// The end of a tool call, matched by `(turn_id, call_id)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallCompletion {
    /// Result text (the repository caps it at 1 MiB).
    pub result: String,
    /// Final status.
    pub status: ToolCallStatus,
    /// Tokens of call + result as they are sent to the model.
    pub token_count: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_its_stored_word() {
        let cases = [
            (ToolCallStatus::Running, "running"),
            (ToolCallStatus::Ok, "ok"),
            (ToolCallStatus::Error, "error"),
            (ToolCallStatus::Denied, "denied"),
            (ToolCallStatus::Cancelled, "cancelled"),
            (ToolCallStatus::Interrupted, "interrupted"),
        ];
        for (status, word) in cases {
            assert_eq!(status.as_str(), word);
            assert_eq!(ToolCallStatus::parse(word).unwrap(), status);
            assert_eq!(
                serde_json::to_string(&status).unwrap(),
                format!("\"{word}\"")
            );
        }
        assert!(ToolCallStatus::parse("stopped").is_err());
    }
}
