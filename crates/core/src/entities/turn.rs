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

/// Why a turn's answer stops short: the model was stopped by a limit, not by its own
/// end. The answer is kept as far as it came, marked so that nobody takes it for
/// whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AnswerCut {
    /// The answer reached the most tokens the request allowed (`finish_reason:
    /// "length"`; models.json `maxOutputTokens`, or what was left of the window).
    OutputLimit,
    /// The server ended the answer because its context was full (llama.cpp's
    /// "Context size has been exceeded" after the answer started).
    ContextFull,
}

const ANSWER_CUT_WORDS: &[(&str, AnswerCut)] = &[
    ("output_limit", AnswerCut::OutputLimit),
    ("context_full", AnswerCut::ContextFull),
];

impl AnswerCut {
    /// The stored word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        ANSWER_CUT_WORDS
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("output_limit", |(w, _)| w)
    }

    /// Parses the stored word.
    ///
    /// # Errors
    /// Names the unknown word.
    pub fn parse(text: &str) -> Result<Self, super::UnknownWord> {
        super::parse_word(text, ANSWER_CUT_WORDS, "answer cut")
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
    /// Set when its answer was cut by a limit (see [`AnswerCut`]); `None` for a whole
    /// answer, or any turn that did not complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<AnswerCut>,
}

impl Turn {
    /// Whether this is its conversation's first turn (a conversation's sequence starts
    /// at 1, and a turn takes its `seq` before its rows): the turn that may give a new
    /// conversation its title.
    #[must_use]
    pub fn is_first(&self) -> bool {
        self.seq == 1
    }

    /// A turn just stored as started: `running` at `seq` since `at`, leased to `owner`
    /// (its first heartbeat at `at`) when given.
    #[must_use]
    pub fn started(
        id: TurnId,
        conversation_id: ConversationId,
        seq: Seq,
        thinking_mode: bool,
        at: Timestamp,
        owner: Option<&super::LeaseOwner>,
    ) -> Self {
        Self {
            id,
            conversation_id,
            seq,
            thinking_mode,
            status: TurnStatus::Running,
            error: None,
            created_at: at,
            completed_at: None,
            lease: owner.map(|owner| super::TurnLease {
                owner: owner.clone(),
                heartbeat_at: at,
            }),
            undone_at: None,
            cut: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_words_round_trip() {
        for cut in [AnswerCut::OutputLimit, AnswerCut::ContextFull] {
            assert_eq!(AnswerCut::parse(cut.as_str()), Ok(cut));
        }
        assert!(AnswerCut::parse("length").is_err());
    }

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

    #[test]
    fn a_started_turn_runs_and_holds_its_lease_only_with_an_owner() {
        let at = Timestamp::default();
        let owner = crate::entities::LeaseOwner {
            pid: 7,
            host: "box".into(),
            started_at: at,
        };
        let (id, conversation) = (TurnId::new(), ConversationId::new());
        let leased = Turn::started(id, conversation, 3, true, at, Some(&owner));
        assert_eq!(
            (
                leased.id,
                leased.conversation_id,
                leased.seq,
                leased.thinking_mode
            ),
            (id, conversation, 3, true)
        );
        assert_eq!(leased.status, TurnStatus::Running);
        assert_eq!(
            (leased.error, leased.completed_at, leased.undone_at),
            (None, None, None)
        );
        let lease = leased.lease.unwrap();
        assert_eq!((lease.owner, lease.heartbeat_at), (owner, at));
        assert_eq!(
            Turn::started(id, conversation, 3, false, at, None).lease,
            None
        );
        // Only seq 1 is a conversation's first turn.
        for (seq, first) in [(1, true), (2, false), (3, false), (0, false)] {
            let turn = Turn::started(id, conversation, seq, false, at, None);
            assert_eq!(turn.is_first(), first, "{seq}");
        }
    }
}
