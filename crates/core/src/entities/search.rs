use serde::{Deserialize, Serialize};

use super::Seq;
use crate::ids::ConversationId;
use crate::time::Timestamp;

/// Which conversations a search covers.
#[derive(Debug, Clone, PartialEq, Eq)]
// Not `#[non_exhaustive]`: a backend that fell back to a wildcard for an unknown scope could search
// other users' conversations; every backend must handle every scope.
pub enum SearchScope {
    /// One conversation.
    Conversation(ConversationId),
    /// Every conversation of one user (never another user's).
    User(String),
    /// Everything stored (host administration only).
    All,
}

/// A full-text query. `text` is plain words: it is escaped before it reaches FTS5, so
/// quotes, `*`, `-`, `:`, `NEAR` or parentheses are matched as words, never as syntax.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchQuery {
    /// Words to find (all of them must occur).
    pub text: String,
    /// Which conversations.
    pub scope: SearchScope,
    /// Only rows written at or after this instant.
    pub since: Option<Timestamp>,
    /// At most this many hits.
    pub limit: u32,
}

/// What kind of row matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SearchHitKind {
    /// A user message.
    User,
    /// An assistant message.
    Assistant,
    /// A tool call's name or arguments.
    ToolCall,
    /// A tool call's result.
    ToolResult,
    /// An attachment of a user message: its name, or the text of a text file.
    Attachment,
}

/// The stored words of the kinds of rows a search finds (the `kind` a store's search
/// rows carry: SQLite's `search_rows`, PostgreSQL's search sources).
const SEARCH_HIT_KIND_WORDS: &[(&str, SearchHitKind)] = &[
    ("user", SearchHitKind::User),
    ("assistant", SearchHitKind::Assistant),
    ("tool_call", SearchHitKind::ToolCall),
    ("tool_result", SearchHitKind::ToolResult),
    ("attachment", SearchHitKind::Attachment),
];

impl SearchHitKind {
    /// The stored word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        SEARCH_HIT_KIND_WORDS
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("user", |(w, _)| w)
    }

    /// Parses the stored word.
    ///
    /// # Errors
    /// Names the unknown word.
    pub fn parse(text: &str) -> Result<Self, super::UnknownWord> {
        super::parse_word(text, SEARCH_HIT_KIND_WORDS, "search row kind")
    }

    /// The label shown to people and to the model.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::User => "USER",
            Self::Assistant => "ASSISTANT",
            Self::ToolCall => "TOOL CALL",
            Self::ToolResult => "TOOL RESULT",
            Self::Attachment => "ATTACHMENT",
        }
    }
}

/// One full-text match, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    /// The conversation it is in.
    pub conversation_id: ConversationId,
    /// That conversation's title.
    pub conversation_title: String,
    /// The matching row's position.
    pub seq: Seq,
    /// What matched.
    pub kind: SearchHitKind,
    /// The matched text (message content, `Name(args)`, or the result).
    pub text: String,
    /// When the row was written.
    pub created_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_one_stored_word_and_back() {
        let cases = [
            (SearchHitKind::User, "user"),
            (SearchHitKind::Assistant, "assistant"),
            (SearchHitKind::ToolCall, "tool_call"),
            (SearchHitKind::ToolResult, "tool_result"),
            (SearchHitKind::Attachment, "attachment"),
        ];
        for (kind, word) in cases {
            assert_eq!(kind.as_str(), word);
            assert_eq!(SearchHitKind::parse(word), Ok(kind));
            // The stored word is the one serde writes too.
            assert_eq!(serde_json::to_value(kind).ok(), Some(word.into()));
        }
        assert_eq!(
            SearchHitKind::parse("Tool_Call").map_err(|e| e.to_string()),
            Err("unknown search row kind 'Tool_Call'".to_owned())
        );
    }
}
