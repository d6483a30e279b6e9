//! The store-independent parts of storing and linking attachments, so both stores
//! refuse and answer alike: the check of an upload's content against its facts
//! ([`check_content`]), the refusals of a link ([`check_link`]), and how attachments
//! read in one query are handed to their messages ([`user_seq_span`], [`hand_out`]).

use std::collections::HashMap;

use crate::RepositoryError;
use crate::entities::{Attachment, Message, NewAttachment, Role, Seq};
use crate::ids::{AttachmentId, ConversationId, MessageId};

/// Refuses content whose size or digest is not the one its facts state (a wrong digest
/// would file it under another file's content).
///
/// # Errors
/// [`RepositoryError::Conflict`] naming the file.
pub fn check_content(new: &NewAttachment) -> Result<(), RepositoryError> {
    let facts = &new.facts;
    if usize::try_from(facts.size).ok() != Some(new.content.len())
        || super::attachment::sha256_hex(&new.content) != facts.sha256
    {
        return Err(RepositoryError::Conflict(format!(
            "the size or SHA-256 given for attachment '{}' is not the content's; describe \
             the file with rules::attachment::describe; nothing was stored",
            facts.name
        )));
    }
    Ok(())
}

/// Whether attachment `id` (`found` as stored, `None` when unknown) may be linked to a
/// new message of `conversation_id`.
///
/// # Errors
/// [`RepositoryError::NotFound`] for an unknown id, [`RepositoryError::Conflict`] for
/// one of another conversation or already on a message.
pub fn check_link(
    id: AttachmentId,
    found: Option<&Attachment>,
    conversation_id: ConversationId,
) -> Result<(), RepositoryError> {
    let Some(found) = found else {
        return Err(RepositoryError::not_found("attachment", id));
    };
    if found.conversation_id != conversation_id {
        return Err(RepositoryError::Conflict(format!(
            "attachment {id} was uploaded into another conversation; upload the file into \
             this one; nothing was stored"
        )));
    }
    if found.message_id.is_some() {
        return Err(RepositoryError::Conflict(format!(
            "attachment {id} ('{}') is already sent with a message; upload the file again \
             to send it once more; nothing was stored",
            found.name
        )));
    }
    Ok(())
}

/// The user messages among `messages` (the only ones that carry attachments) and the
/// span of their `seq`; `None` when there is none (nothing to read).
pub fn user_seq_span<'a>(
    messages: impl IntoIterator<Item = &'a mut Message>,
) -> Option<(Vec<&'a mut Message>, Seq, Seq)> {
    let users: Vec<&mut Message> = messages
        .into_iter()
        .filter(|m| m.role == Role::User)
        .collect();
    let low = users.iter().map(|m| m.seq).min()?;
    let high = users.iter().map(|m| m.seq).max()?;
    Some((users, low, high))
}

/// Gives each attachment (in upload order) to the message among `users` that carries
/// it; others are dropped.
pub fn hand_out(users: &mut [&mut Message], attachments: Vec<Attachment>) {
    if attachments.is_empty() {
        return;
    }
    let at: HashMap<MessageId, usize> = users.iter().enumerate().map(|(i, m)| (m.id, i)).collect();
    for attachment in attachments {
        if let Some(&i) = attachment.message_id.as_ref().and_then(|id| at.get(id)) {
            users[i].attachments.push(attachment);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entities::AttachmentKind;
    use crate::ids::TurnId;

    fn attachment(conversation_id: ConversationId, message_id: Option<MessageId>) -> Attachment {
        Attachment {
            id: AttachmentId::new(),
            conversation_id,
            message_id,
            name: "a.txt".into(),
            media_type: "text/plain".into(),
            kind: AttachmentKind::Text,
            size: 1,
            sha256: "00".repeat(32),
            image_size: None,
            created_at: chrono::Utc::now(),
        }
    }

    fn message(conversation_id: ConversationId, seq: Seq, role: Role) -> Message {
        Message {
            id: MessageId::new(),
            conversation_id,
            turn_id: TurnId::new(),
            seq,
            role,
            content: String::new(),
            token_count: 0,
            created_at: chrono::Utc::now(),
            replaced_by: None,
            is_edited: false,
            attachments: Vec::new(),
        }
    }

    #[test]
    fn a_link_is_refused_for_unknown_foreign_or_sent_attachments() {
        let here = ConversationId::new();
        let free = attachment(here, None);
        let foreign = attachment(ConversationId::new(), None);
        let sent = attachment(here, Some(MessageId::new()));
        let cases: [(Option<&Attachment>, Option<&str>); 4] = [
            (Some(&free), None),
            (None, Some("not found")),
            (Some(&foreign), Some("another conversation")),
            (Some(&sent), Some("already sent")),
        ];
        for (found, refusal) in cases {
            let answer = check_link(AttachmentId::new(), found, here);
            match refusal {
                None => assert!(answer.is_ok(), "{answer:?}"),
                Some(words) => {
                    let text = answer.err().map(|e| e.to_string()).unwrap_or_default();
                    assert!(text.contains(words), "{text}");
                }
            }
        }
    }

    #[test]
    fn attachments_go_to_the_user_message_that_carries_them() {
        let c = ConversationId::new();
        let mut rows = vec![
            message(c, 1, Role::User),
            message(c, 2, Role::Assistant),
            message(c, 3, Role::User),
        ];
        let (first, third) = (rows[0].id, rows[2].id);
        let found = vec![
            attachment(c, Some(third)),
            attachment(c, Some(first)),
            attachment(c, Some(MessageId::new())),
        ];
        let (mut users, low, high) = user_seq_span(&mut rows).unwrap_or_else(|| unreachable!());
        assert_eq!((users.len(), low, high), (2, 1, 3));
        hand_out(&mut users, found);
        let counts: Vec<usize> = rows.iter().map(|m| m.attachments.len()).collect();
        assert_eq!(counts, [1, 0, 1]);
        let mut only_answers = vec![message(c, 4, Role::Assistant)];
        assert!(user_seq_span(&mut only_answers).is_none());
    }
}
