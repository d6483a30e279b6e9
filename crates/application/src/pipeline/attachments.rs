//! The attachments of the user messages a request carries: their contents read once per
//! turn, and the tokens they add to their messages' stored counts.

use std::sync::Arc;

use smallebot_core::entities::{Attachment, AttachmentKind, HistoryRow, Message, Role};
use smallebot_core::repository::Store;

use crate::error::PipelineError;
use crate::ports::{AttachmentContents, ContextAssembler};

/// The attachments of the user messages among `rows` (replaced versions left out).
pub(crate) fn carried(rows: &[HistoryRow]) -> impl Iterator<Item = &Attachment> {
    rows.iter()
        .filter_map(|row| match row {
            HistoryRow::Message(m) if m.role == Role::User && m.replaced_by.is_none() => {
                Some(m.attachments.iter())
            }
            _ => None,
        })
        .flatten()
}

/// Reads into `contents` what it lacks of the contents of `attachments` (all kinds, or
/// only text files with `text_only`). An attachment whose content is gone is left out
/// (the request names it without its content).
pub(crate) async fn load_contents<'a>(
    store: &dyn Store,
    attachments: impl Iterator<Item = &'a Attachment>,
    contents: &mut AttachmentContents,
    text_only: bool,
) -> Result<(), PipelineError> {
    for attachment in attachments {
        if contents.contains_key(&attachment.id)
            || (text_only && attachment.kind != AttachmentKind::Text)
        {
            continue;
        }
        if let Some(bytes) = store.attachment_content(attachment.id).await? {
            contents.insert(attachment.id, Arc::from(bytes));
        }
    }
    Ok(())
}

/// Tokens `attachments` add to their message, counted by `assembler` (a text file
/// from its content in `contents`).
pub(crate) fn attachments_tokens(
    assembler: &dyn ContextAssembler,
    attachments: &[Attachment],
    contents: &AttachmentContents,
) -> i64 {
    attachments
        .iter()
        .map(|attachment| {
            let text = (attachment.kind == AttachmentKind::Text)
                .then(|| contents.get(&attachment.id))
                .flatten()
                .map(|bytes| String::from_utf8_lossy(bytes));
            assembler.attachment_tokens(attachment, text.as_deref())
        })
        .sum()
}

/// Tokens a stored message costs in a request: its text, and the attachments it
/// carries.
pub(crate) fn message_tokens(
    assembler: &dyn ContextAssembler,
    message: &Message,
    contents: &AttachmentContents,
) -> i64 {
    assembler.message_tokens(message.role, &message.content)
        + attachments_tokens(assembler, &message.attachments, contents)
}
