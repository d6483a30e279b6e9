//! Usage: one stored record per model request (chat steps, titles, summaries), with
//! the tokens the provider reported and their cost at the model's prices.

use serde::{Deserialize, Serialize};

use crate::ids::{ConversationId, TurnId};
use crate::time::Timestamp;

/// Tokens of one request, as the provider reported them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenCounts {
    /// Prompt tokens, cached ones included.
    pub prompt: u64,
    /// Prompt tokens the server took from its cache.
    pub cached_prompt: u64,
    /// Completion tokens, reasoning included.
    pub completion: u64,
    /// Completion tokens spent reasoning.
    pub reasoning: u64,
}

impl TokenCounts {
    /// The sum of two counts.
    #[must_use]
    pub fn plus(self, other: Self) -> Self {
        Self {
            prompt: self.prompt + other.prompt,
            cached_prompt: self.cached_prompt + other.cached_prompt,
            completion: self.completion + other.completion,
            reasoning: self.reasoning + other.reasoning,
        }
    }
}

/// What a request was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum UsagePurpose {
    /// A step of a turn.
    Chat,
    /// A conversation's title.
    Title,
    /// A compression summary.
    Summary,
}

const PURPOSE_WORDS: &[(&str, UsagePurpose)] = &[
    ("chat", UsagePurpose::Chat),
    ("title", UsagePurpose::Title),
    ("summary", UsagePurpose::Summary),
];

impl UsagePurpose {
    /// The stored word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        PURPOSE_WORDS
            .iter()
            .find(|(_, p)| *p == self)
            .map_or("chat", |(w, _)| w)
    }

    /// Parses the stored word.
    ///
    /// # Errors
    /// Names the unknown word.
    pub fn parse(text: &str) -> Result<Self, super::UnknownWord> {
        super::parse_word(text, PURPOSE_WORDS, "usage purpose")
    }
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum UsageOutcome {
    /// The model answered.
    Ok,
    /// The request failed (after its retries).
    Failed,
    /// The turn was cancelled while it ran.
    Cancelled,
    /// Not sent: it could have passed a budget.
    OverBudget,
}

const OUTCOME_WORDS: &[(&str, UsageOutcome)] = &[
    ("ok", UsageOutcome::Ok),
    ("failed", UsageOutcome::Failed),
    ("cancelled", UsageOutcome::Cancelled),
    ("over_budget", UsageOutcome::OverBudget),
];

impl UsageOutcome {
    /// The stored word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        OUTCOME_WORDS
            .iter()
            .find(|(_, o)| *o == self)
            .map_or("ok", |(w, _)| w)
    }

    /// Parses the stored word.
    ///
    /// # Errors
    /// Names the unknown word.
    pub fn parse(text: &str) -> Result<Self, super::UnknownWord> {
        super::parse_word(text, OUTCOME_WORDS, "usage outcome")
    }
}

/// Whom a request is billed to: the user, the conversation a person talks in (a
/// sub-agent's requests go to its parent's) and the turn there, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageAccount {
    /// The conversation's user.
    pub user_name: String,
    /// The conversation billed: the person's, also for its sub-agents' requests.
    pub conversation_id: ConversationId,
    /// The turn billed (the parent's for a sub-agent's request); `None` for a title or
    /// summary outside a turn.
    pub turn_id: Option<TurnId>,
    /// The sub-agent's conversation the request was made in, if any.
    pub sub_conversation_id: Option<ConversationId>,
    /// The request's number in its turn (1 for the first), the retries of one request
    /// not counted; 0 outside a turn.
    pub step: u32,
}

/// The turn a request is billed to when it is not its own: a sub-agent's requests go
/// to the turn whose `Delegate` call started it (its root's, when sub-agents nest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BilledTurn {
    /// The conversation a person talks in.
    pub conversation_id: ConversationId,
    /// Its turn.
    pub turn_id: TurnId,
}

/// One model request, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageRecord {
    /// Whom it is billed to.
    pub account: UsageAccount,
    /// What it was for.
    pub purpose: UsagePurpose,
    /// The models.json id of the model it went to.
    pub model: String,
    /// Tokens as reported; `None` when the provider reported none (a failed request).
    pub tokens: Option<TokenCounts>,
    /// What it cost, in picos ([`crate::rules::cost`]); `None` for a model without
    /// prices or a request without reported tokens.
    pub cost: Option<i64>,
    /// The currency of `cost`.
    pub currency: Option<String>,
    /// Milliseconds until the first streamed piece, if one came.
    pub first_token_ms: Option<u64>,
    /// Milliseconds the whole request took, retries included.
    pub duration_ms: u64,
    /// How many times it was sent again.
    pub retries: u32,
    /// How it ended.
    pub outcome: UsageOutcome,
    /// When it ended.
    pub at: Timestamp,
}

#[cfg(any(test, feature = "test-support"))]
impl UsageRecord {
    /// For tests: a chat step's record billed to `user` in a new conversation, ended
    /// `ok` at `at`, with `tokens` and its `cost` in USD picos.
    #[must_use]
    pub fn example(
        user: &str,
        model: &str,
        tokens: Option<TokenCounts>,
        cost: Option<i64>,
        at: Timestamp,
    ) -> Self {
        Self {
            account: UsageAccount {
                user_name: user.into(),
                conversation_id: ConversationId::new(),
                turn_id: None,
                sub_conversation_id: None,
                step: 1,
            },
            purpose: UsagePurpose::Chat,
            model: model.into(),
            tokens,
            cost,
            currency: cost.map(|_| "USD".to_owned()),
            first_token_ms: None,
            duration_ms: 1,
            retries: 0,
            outcome: UsageOutcome::Ok,
            at,
        }
    }
}

/// Which records to read: every filter given must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsageFilter {
    /// Only this user's.
    pub user: Option<String>,
    /// Only from this moment on.
    pub since: Option<Timestamp>,
    /// Only those billed to this conversation.
    pub conversation: Option<ConversationId>,
    /// Only those billed to this turn.
    pub turn: Option<TurnId>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        for p in [
            UsagePurpose::Chat,
            UsagePurpose::Title,
            UsagePurpose::Summary,
        ] {
            assert_eq!(UsagePurpose::parse(p.as_str()), Ok(p));
        }
        for o in [
            UsageOutcome::Ok,
            UsageOutcome::Failed,
            UsageOutcome::Cancelled,
            UsageOutcome::OverBudget,
        ] {
            assert_eq!(UsageOutcome::parse(o.as_str()), Ok(o));
        }
        assert!(UsageOutcome::parse("maybe").is_err());
    }
}
