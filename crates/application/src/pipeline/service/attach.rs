//! Attachments: uploading a file into a conversation, and checking the files a message
//! is to carry before anything of it is stored.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    Attachment, AttachmentFacts, AttachmentKind, Conversation, NewAttachment,
};
use smallebot_core::ids::{AttachmentId, ConversationId};
use smallebot_core::rules::attachment::{check_image, describe};

use super::ConversationService;
use crate::error::PipelineError;

impl ConversationService {
    /// Stores a file a person gives, named `name`, in `conversation_id`, on no message
    /// yet: its kind and type are sniffed from `content` (never taken from the name);
    /// its content is stored once however many attachments share it. Send it with
    /// [`crate::SendOptions::attachments`].
    ///
    /// # Errors
    /// [`PipelineError::AttachmentRefused`] over agent.json's `maxFileBytes`, or for a
    /// file that starts as an image and is none or states an absurd size (nothing
    /// stored); [`PipelineError::ConversationNotFound`]; storage failures.
    pub async fn attach(
        &self,
        conversation_id: ConversationId,
        name: &str,
        content: Vec<u8>,
    ) -> Result<Attachment, PipelineError> {
        let facts = describe(name, &content);
        self.context
            .settings
            .attachments
            .check_file(&facts.name, facts.size)?;
        check_image(&facts.name, &content)?;
        let new = NewAttachment {
            conversation_id,
            facts,
            content,
        };
        match self.context.store.put_attachment(&new).await {
            Ok(attachment) => Ok(attachment),
            Err(RepositoryError::NotFound { .. }) => {
                Err(PipelineError::ConversationNotFound(conversation_id))
            }
            Err(other) => Err(other.into()),
        }
    }

    /// Checks files before they are uploaded and sent with a message of
    /// `conversation` (`None`: a conversation not created yet, on the default model):
    /// each and together within agent.json's limits, and no image unless the model
    /// sees images. A front end calls it so that nothing is stored when they would be
    /// refused; [`Self::start`] checks the same again.
    ///
    /// # Errors
    /// [`PipelineError::AttachmentRefused`], [`PipelineError::ImagesNotSupported`].
    pub fn check_files(
        &self,
        conversation: Option<&Conversation>,
        files: &[AttachmentFacts],
    ) -> Result<(), PipelineError> {
        let model = conversation.and_then(|c| self.model_of(c));
        self.check_sendable(
            model.as_deref(),
            files.iter().map(|f| (f.name.as_str(), f.size, f.kind)),
        )
    }

    /// The stored attachments `ids` of `conversation`, checked to be sendable with its
    /// next message: uploaded into it, not yet sent, within the per-message limit, and
    /// no image unless its model sees images.
    pub(super) async fn sendable_attachments(
        &self,
        conversation: &Conversation,
        ids: &[AttachmentId],
    ) -> Result<Vec<Attachment>, PipelineError> {
        let mut found = Vec::with_capacity(ids.len());
        for &id in ids {
            let attachment = self.context.store.get_attachment(id).await?;
            match attachment {
                Some(a)
                    if a.conversation_id == conversation.id
                        && a.message_id.is_none()
                        && !found.iter().any(|f: &Attachment| f.id == id) =>
                {
                    found.push(a);
                }
                _ => {
                    return Err(PipelineError::AttachmentNotSendable {
                        conversation_id: conversation.id,
                        attachment_id: id,
                    });
                }
            }
        }
        let model = self.model_of(conversation);
        self.check_sendable(
            model.as_deref(),
            found.iter().map(|a| (a.name.as_str(), a.size, a.kind)),
        )?;
        Ok(found)
    }

    /// The limits, and images only for a model that sees them.
    fn check_sendable<'a>(
        &self,
        model: Option<&str>,
        files: impl Iterator<Item = (&'a str, i64, AttachmentKind)> + Clone,
    ) -> Result<(), PipelineError> {
        self.context
            .settings
            .attachments
            .check_message(files.clone().map(|(name, size, _)| (name, size)))?;
        let chat = &self.context.model;
        if files
            .clone()
            .any(|(_, _, kind)| kind == AttachmentKind::Image)
            && !chat.supports_images(model)
        {
            return Err(PipelineError::ImagesNotSupported {
                model: chat.model_name(model),
            });
        }
        Ok(())
    }
}
