//! Naming a conversation on the command line: its full id or a unique prefix of it
//! (as `conversations list` prints them), limited to one user's where a user is known.

use smallebot_core::entities::Conversation;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::ConversationRepository;

use crate::error::TerminalError;

/// The conversation `reference` names: a full id, or the one id that starts with it.
/// With `owner`, only that user's conversations count, and a full id of another
/// user's conversation is refused.
///
/// # Errors
/// [`TerminalError::ConversationNotFound`], [`TerminalError::NoConversationMatches`],
/// [`TerminalError::AmbiguousConversation`], [`TerminalError::NotYourConversation`], storage
/// errors.
pub async fn find_conversation(
    store: &dyn ConversationRepository,
    reference: &str,
    owner: Option<&str>,
) -> Result<Conversation, TerminalError> {
    let reference = reference.trim();
    if let Ok(id) = reference.parse::<ConversationId>() {
        let conversation = store
            .get_conversation(id)
            .await?
            .ok_or(TerminalError::ConversationNotFound(id))?;
        return match owner {
            Some(user) if conversation.user_name != user => {
                Err(TerminalError::NotYourConversation {
                    id,
                    user: user.to_owned(),
                })
            }
            _ => Ok(conversation),
        };
    }
    let candidates = store.list_conversations(owner).await?;
    let ids: Vec<String> = candidates.iter().map(|c| c.id.to_string()).collect();
    match matching(&ids, reference).as_slice() {
        [one] => Ok(candidates[*one].clone()),
        [] => Err(TerminalError::NoConversationMatches {
            reference: reference.to_owned(),
            owner: owner.map(str::to_owned),
        }),
        many => Err(TerminalError::AmbiguousConversation {
            reference: reference.to_owned(),
            count: many.len(),
        }),
    }
}

/// The positions of the ids that start with `prefix` (ignoring case); none for an
/// empty prefix.
fn matching(ids: &[String], prefix: &str) -> Vec<usize> {
    if prefix.is_empty() {
        return Vec::new();
    }
    let prefix = prefix.to_ascii_lowercase();
    ids.iter()
        .enumerate()
        .filter(|(_, id)| id.to_ascii_lowercase().starts_with(&prefix))
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_match_from_the_start_ignoring_case() {
        let ids: Vec<String> = ["0191aaaa-1", "0191abbb-2", "0292cccc-3"]
            .map(str::to_owned)
            .to_vec();
        let cases: &[(&str, &[usize])] = &[
            ("0191a", &[0, 1]),
            ("0191aa", &[0]),
            ("0191AB", &[1]),
            ("02", &[2]),
            ("aaaa", &[]),
            ("", &[]),
            ("0191aaaa-1-more", &[]),
        ];
        for (prefix, expected) in cases {
            assert_eq!(matching(&ids, prefix), *expected, "{prefix:?}");
        }
    }
}
