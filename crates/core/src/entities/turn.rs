use serde::{Deserialize, Serialize};

use super::Seq;
use crate::ids::{ConversationId, TurnId};
use crate::time::Timestamp;

/// Where a turn stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum TurnStatus {
    /// The model is working on it.
    Running,
    /// Finished normally.
    Completed,
    /// Stopped by the person; partial output kept.
    Cancelled,
    /// Stopped by an error; partial output kept and the error stored.
    Failed,
    /// Found running at start-up: the process died during the turn.
    Interrupted,
}

const TURN_STATUS_WORDS: &[(&str, TurnStatus)] = &[
    ("running", TurnStatus::Running),
    ("completed", TurnStatus::Completed),
    ("cancelled", TurnStatus::Cancelled),
    ("failed", TurnStatus::Failed),
    ("interrupted", TurnStatus::Interrupted),
];

impl TurnStatus {
    /// The stored word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        TURN_STATUS_WORDS
            .iter()
            .find(|(_, s)| *s == self)
            .map_or("running", |(w, _)| w)
    }

    /// Parses the stored word.
    ///
    /// # Errors
    /// Names the unknown word.
    pub fn parse(text: &str) -> Result<Self, super::UnknownWord> {
        super::parse_word(text, TURN_STATUS_WORDS, "turn status")
    }
}

/// One exchange: a user message and everything the agent did for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// Its id.
    pub id: TurnId,
    /// Its conversation.
    pub conversation_id: ConversationId,
    /// Position in the conversation's sequence (before all of its rows).
    pub seq: Seq,
    /// Whether reasoning was requested.
    pub thinking_mode: bool,
    /// Where it stands.
    pub status: TurnStatus,
    /// The error that failed it, if any.
    pub error: Option<String>,
    /// When it started.
    pub created_at: Timestamp,
    /// When it ended.
    pub completed_at: Option<Timestamp>,
    /// Who runs it, while it runs (`None` once it ended, or for turns stored before
    /// leases existed).
    pub lease: Option<super::TurnLease>,
    /// When the person undid it (`/undo`): its rows stay stored and searchable but no
    /// longer go to the model. `None` for a turn in the context.
    pub undone_at: Option<Timestamp>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_words_round_trip() {
        for (word, status) in TURN_STATUS_WORDS {
            assert_eq!(status.as_str(), *word);
            assert_eq!(TurnStatus::parse(word).unwrap(), *status);
        }
        assert_eq!(
            TurnStatus::parse("done").unwrap_err().to_string(),
            "unknown turn status 'done'"
        );
    }
}
