//! A permission grant as stored: a person's lasting "yes" to calls like one they were
//! asked about — for the rest of a conversation or always — kept until revoked.

use serde::{Deserialize, Serialize};

use crate::ids::ConversationId;
use crate::time::Timestamp;

/// A grant's id: a small number, shown by `smallebot permissions list` and named by
/// `permissions revoke ID`.
pub type GrantId = i64;

/// How far a grant reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "conversationId")]
pub enum GrantScope {
    /// The rest of one conversation (the root conversation the person talks in).
    Conversation(ConversationId),
    /// Every conversation of its user, from now on.
    Always,
}

impl GrantScope {
    /// The conversation it is limited to, `None` for always.
    #[must_use]
    pub fn conversation(self) -> Option<ConversationId> {
        match self {
            Self::Conversation(id) => Some(id),
            Self::Always => None,
        }
    }

    /// The scope for a stored conversation column: `None` is always.
    #[must_use]
    pub fn of(conversation: Option<ConversationId>) -> Self {
        conversation.map_or(Self::Always, Self::Conversation)
    }
}

/// A grant to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPermissionGrant {
    /// Whose grant it is (the user of the conversation it was given in).
    pub user_name: String,
    /// How far it reaches.
    pub scope: GrantScope,
    /// The allow rules it adds, as written (`ExecuteCommand(git status)`); never empty.
    pub rules: Vec<String>,
    /// The call that prompted it, as it was shown to the person.
    pub call: String,
    /// When it was given.
    pub granted_at: Timestamp,
}

/// A stored grant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionGrant {
    /// Its id.
    pub id: GrantId,
    /// Whose grant it is.
    pub user_name: String,
    /// How far it reaches.
    pub scope: GrantScope,
    /// The allow rules it adds, as written.
    pub rules: Vec<String>,
    /// The call that prompted it, as it was shown to the person.
    pub call: String,
    /// When it was given.
    pub granted_at: Timestamp,
    /// When it was revoked; a revoked grant allows nothing.
    pub revoked_at: Option<Timestamp>,
}

/// Which grants to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GrantFilter {
    /// Only this user's.
    pub user: Option<String>,
    /// Only those that apply in this conversation: given for always or for it.
    pub applying_in: Option<ConversationId>,
    /// Revoked ones too.
    pub revoked: bool,
}

impl GrantFilter {
    /// The live grants of `user` that apply in `conversation` (always ones, and the
    /// conversation's own): what the permission gate allows by.
    #[must_use]
    pub fn applying(user: &str, conversation: Option<ConversationId>) -> Self {
        Self {
            user: Some(user.to_owned()),
            applying_in: conversation,
            revoked: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_is_its_conversation_column() {
        let id = ConversationId::new();
        for scope in [GrantScope::Always, GrantScope::Conversation(id)] {
            assert_eq!(GrantScope::of(scope.conversation()), scope);
        }
    }

    #[test]
    fn a_scope_reads_as_json_with_its_kind() {
        let id = ConversationId::new();
        let json = serde_json::to_value(GrantScope::Conversation(id)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"kind": "conversation", "conversationId": id.to_string()})
        );
        let always = serde_json::to_value(GrantScope::Always).unwrap();
        assert_eq!(always, serde_json::json!({"kind": "always"}));
    }
}
