//! The refusals both stores give, worded once: each store decides *when* to refuse
//! (inside its own transaction), these say *what* the person reads, so SQLite and
//! PostgreSQL cannot drift apart in their words.

use crate::RepositoryError;
use crate::entities::{CompressionUpdate, Conversation, Seq};
use crate::ids::ConversationId;
use crate::repository::RepoResult;

/// The guarded rewrites of a conversation's history, named once for their refusals
/// and the stores' errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rewrite {
    /// A user message replaced by a new version.
    EditMessage,
    /// A turn run again from its user message.
    Regenerate,
    /// A turn marked undone.
    Undo,
}

impl Rewrite {
    /// What the store was doing, as its errors say it ("editing a message").
    #[must_use]
    pub const fn doing(self) -> &'static str {
        match self {
            Self::EditMessage => "editing a message",
            Self::Regenerate => "regenerating a turn",
            Self::Undo => "undoing a turn",
        }
    }
}

impl RepositoryError {
    /// A rewrite whose guard no longer holds: another writer moved the conversation's
    /// boundary or rewrote the rows the decision was made on meanwhile.
    pub fn conversation_changed(rewrite: Rewrite) -> Self {
        Self::Conflict(format!(
            "the conversation changed while {} (another writer compressed, edited or undid \
             it); nothing was changed, try again",
            rewrite.doing()
        ))
    }

    /// A step whose tool-call id is already used in its turn.
    pub fn tool_call_id_reused() -> Self {
        Self::Conflict("a tool call id of this step is already used in its turn".to_owned())
    }

    /// A user name that is taken.
    pub fn user_exists(name: &str) -> Self {
        Self::Conflict(format!(
            "a user named '{name}' exists already; pick another name, or \
             `smallebot users remove {name}` first to give them a new token"
        ))
    }

    /// A compression boundary that names no stored row of the conversation.
    pub fn no_row_at(seq: Seq, conversation: ConversationId) -> Self {
        Self::Conflict(format!(
            "no row with seq {seq} in conversation {conversation}"
        ))
    }
}

/// The checks of a compression against the conversation as it is now (read under the
/// store's lock): refused when another compression moved the boundary meanwhile, or
/// when the new boundary does not move forward. Whether a row with the new boundary's
/// seq exists is the store's own query ([`RepositoryError::no_row_at`]).
pub fn check_compression(current: &Conversation, update: &CompressionUpdate) -> RepoResult<()> {
    if current.compressed_through_seq != update.expected_previous_seq {
        return Err(RepositoryError::Conflict(
            "the conversation was compacted by another request meanwhile; nothing changed"
                .to_owned(),
        ));
    }
    if update.compressed_through_seq <= current.history_boundary() {
        return Err(RepositoryError::Conflict(format!(
            "the compression boundary must move forward (from {} to {})",
            current.history_boundary(),
            update.compressed_through_seq
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Timestamp;

    fn compressed_through(seq: Option<Seq>) -> Conversation {
        let mut c = Conversation::new("ann", "t", Timestamp::default());
        c.compressed_through_seq = seq;
        c
    }

    fn update(expected: Option<Seq>, through: Seq) -> CompressionUpdate {
        CompressionUpdate {
            compressed_context: "summary".to_owned(),
            compressed_at: Timestamp::default(),
            compressed_through_seq: through,
            expected_previous_seq: expected,
        }
    }

    #[test]
    fn a_compression_is_checked_against_the_boundary_it_was_made_from() {
        let moved = "rejected: the conversation was compacted by another request meanwhile; \
                     nothing changed";
        // (stored boundary, expected boundary, new boundary, the refusal)
        type Case = (Option<Seq>, Option<Seq>, Seq, Option<&'static str>);
        let cases: [Case; 6] = [
            (None, None, 4, None),
            (Some(4), Some(4), 9, None),
            (Some(4), None, 9, Some(moved)),
            (None, Some(4), 9, Some(moved)),
            (
                Some(4),
                Some(4),
                4,
                Some("rejected: the compression boundary must move forward (from 4 to 4)"),
            ),
            (
                None,
                None,
                0,
                Some("rejected: the compression boundary must move forward (from 0 to 0)"),
            ),
        ];
        for (stored, expected, through, refusal) in cases {
            let got = check_compression(&compressed_through(stored), &update(expected, through))
                .err()
                .map(|e| e.to_string());
            assert_eq!(got.as_deref(), refusal, "{stored:?} {expected:?} {through}");
        }
    }

    #[test]
    fn a_changed_conversation_is_worded_in_one_line() {
        assert_eq!(
            RepositoryError::conversation_changed(Rewrite::EditMessage).to_string(),
            "rejected: the conversation changed while editing a message (another writer \
             compressed, edited or undid it); nothing was changed, try again"
        );
    }
}
