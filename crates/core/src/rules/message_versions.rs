//! The earlier versions of a user message: the messages an edit replaced, kept stored
//! with `replaced_by` pointing at the message that replaced them.

use std::collections::HashMap;

use crate::entities::Message;
use crate::ids::MessageId;

/// For each message that replaced others, the ids of the versions before it, oldest
/// first (following `replaced_by` back from it). Messages that replaced nothing are
/// left out.
#[must_use]
pub fn earlier_versions<'a>(
    messages: impl IntoIterator<Item = &'a Message>,
) -> HashMap<MessageId, Vec<MessageId>> {
    let replaced: HashMap<MessageId, MessageId> = messages
        .into_iter()
        .filter_map(|m| m.replaced_by.map(|newer| (newer, m.id)))
        .collect();
    let mut versions = HashMap::new();
    for &newest in replaced.keys() {
        if replaced.values().any(|&older| older == newest) {
            continue; // itself replaced: only the current one lists the chain
        }
        let mut chain = Vec::new();
        let mut at = newest;
        while let Some(&older) = replaced.get(&at) {
            if chain.contains(&older) {
                break; // a cycle cannot be stored, but is not followed forever
            }
            chain.push(older);
            at = older;
        }
        chain.reverse();
        versions.insert(newest, chain);
    }
    versions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entities::Role;
    use crate::ids::{ConversationId, TurnId};

    fn message(replaced_by: Option<MessageId>) -> Message {
        Message {
            id: MessageId::new(),
            conversation_id: ConversationId::new(),
            turn_id: TurnId::new(),
            seq: 1,
            role: Role::User,
            content: String::new(),
            token_count: 0,
            created_at: chrono::Utc::now(),
            replaced_by,
            is_edited: false,
            attachments: Vec::new(),
        }
    }

    #[test]
    fn each_current_message_lists_the_versions_it_replaced_oldest_first() {
        let current = message(None);
        let second = message(Some(current.id));
        let first = message(Some(second.id));
        let alone = message(None);
        let other_current = message(None);
        let other_old = message(Some(other_current.id));
        /// The messages given, and the expected chains by current id.
        type Case<'a> = (Vec<&'a Message>, Vec<(MessageId, Vec<MessageId>)>);
        let cases: [Case; 3] = [
            (vec![&alone], vec![]),
            (
                vec![&current, &first, &second, &alone],
                vec![(current.id, vec![first.id, second.id])],
            ),
            (
                vec![&other_old, &current, &second, &other_current],
                vec![
                    (current.id, vec![second.id]),
                    (other_current.id, vec![other_old.id]),
                ],
            ),
        ];
        for (messages, expected) in cases {
            let expected: HashMap<_, _> = expected.into_iter().collect();
            assert_eq!(earlier_versions(messages), expected);
        }
    }
}
