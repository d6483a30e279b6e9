use serde::{Deserialize, Serialize};

use super::Seq;
use crate::ids::ConversationId;
use crate::time::Timestamp;

/// A conversation between one person and the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    /// Its id.
    pub id: ConversationId,
    /// The person it belongs to.
    pub user_name: String,
    /// Display title (model-generated after the first message).
    pub title: String,
    /// When it was created.
    pub created_at: Timestamp,
    /// Last change (new turn, rename, compression).
    pub updated_at: Timestamp,
    /// Summary of every row with `seq <= compressed_through_seq`, if compressed.
    pub compressed_context: Option<String>,
    /// When the summary was made.
    pub compressed_at: Option<Timestamp>,
    /// The exact boundary: the last summarized row's `seq`.
    pub compressed_through_seq: Option<Seq>,
    /// The stored token counts of the rows after the boundary that go to the model, as
    /// storage keeps them up to date (what `token_sum_after` answers at the boundary).
    #[serde(default)]
    pub context_tokens: i64,
    /// The id (in the host's model list) of the model this conversation runs on;
    /// `None`: the default model.
    #[serde(default)]
    pub model: Option<String>,
    /// The lowest `seq` whose stored token count may be provisional: an upper bound
    /// written before the exact tokenizer was ready. `None`: every count is exact.
    #[serde(default)]
    pub provisional_counts_from: Option<Seq>,
    /// Set for a sub-agent's conversation: the parent's tool call that ran it.
    #[serde(default)]
    pub parent: Option<SubAgentLink>,
}

/// Where a sub-agent's conversation comes from: the `Delegate` call of its parent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubAgentLink {
    /// The conversation whose turn delegated.
    pub parent_conversation_id: ConversationId,
    /// The model's id of that `Delegate` call.
    pub parent_tool_call_id: String,
    /// The agent that ran (`general`, or a definition's name).
    pub agent_name: String,
}

impl Conversation {
    /// A new conversation of `user_name`, created at `at` with a fresh id: never
    /// compressed, on the default model, every count exact.
    #[must_use]
    pub fn new(user_name: &str, title: &str, at: Timestamp) -> Self {
        Self {
            id: ConversationId::new(),
            user_name: user_name.to_owned(),
            title: title.to_owned(),
            created_at: at,
            updated_at: at,
            compressed_context: None,
            compressed_at: None,
            compressed_through_seq: None,
            context_tokens: 0,
            model: None,
            provisional_counts_from: None,
            parent: None,
        }
    }

    /// The same conversation as the sub-agent run of `link`.
    #[must_use]
    pub fn with_parent(mut self, link: SubAgentLink) -> Self {
        self.parent = Some(link);
        self
    }

    /// The `seq` after which rows go to the model verbatim (0 when never compressed).
    #[must_use]
    pub fn history_boundary(&self) -> Seq {
        self.compressed_through_seq.unwrap_or(0)
    }
}

/// The three compression columns, written together in one atomic step.
#[derive(Debug, Clone, PartialEq)]
pub struct CompressionUpdate {
    /// The new summary (it already merges the previous one).
    pub compressed_context: String,
    /// When it was made.
    pub compressed_at: Timestamp,
    /// The last summarized row. Must be greater than the current boundary and name a
    /// stored row of the conversation.
    pub compressed_through_seq: Seq,
    /// The boundary the summary was computed from; the update is refused if another
    /// compression moved it meanwhile.
    pub expected_previous_seq: Option<Seq>,
}

/// The title a conversation takes with its first turn
/// ([`NewTurn::title`](super::NewTurn::title), see
/// [`TurnRepository::start_turn_in_context`](crate::repository::TurnRepository::start_turn_in_context)):
/// `title` replaces `untitled` when the turn started is the conversation's first and
/// its title is still `untitled`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstTurnTitle<'a> {
    /// The placeholder a new conversation has.
    pub untitled: &'a str,
    /// The title it takes instead.
    pub title: &'a str,
}
