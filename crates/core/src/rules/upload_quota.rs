//! The quotas of uploads (agent.json `attachments`), so that one user cannot fill the
//! server's disk or database with files never sent: how many bytes may wait unsent per
//! user and per conversation, how many parts one upload request and how many files one
//! message may carry, and when an unsent upload expires. Both stores gather the
//! numbers in the write that stores an upload and ask [`UploadQuotas::check_pending`],
//! so two uploads at once never both pass.

use chrono::{DateTime, Utc};

use crate::rules::attachment::human_size;

/// The quotas of uploads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UploadQuotas {
    /// The most bytes of files uploaded and not sent yet, over all of a user's
    /// conversations.
    pub max_pending_bytes_per_user: i64,
    /// The most bytes of files uploaded and not sent yet in one conversation.
    pub max_pending_bytes_per_conversation: i64,
    /// The most parts one upload request may hold.
    pub max_parts_per_upload: usize,
    /// The most files one message may carry.
    pub max_files_per_message: usize,
    /// How long an upload may wait unsent before it is deleted, in seconds.
    pub pending_expiry_seconds: i64,
}

/// Default of [`UploadQuotas::max_pending_bytes_per_user`]: 256 MiB.
pub const DEFAULT_MAX_PENDING_BYTES_PER_USER: i64 = 256 * 1024 * 1024;
/// Default of [`UploadQuotas::max_pending_bytes_per_conversation`]: 100 MiB (two
/// messages' worth of files at the default per-message limit).
pub const DEFAULT_MAX_PENDING_BYTES_PER_CONVERSATION: i64 = 100 * 1024 * 1024;
/// Default of [`UploadQuotas::max_parts_per_upload`].
pub const DEFAULT_MAX_PARTS_PER_UPLOAD: usize = 32;
/// Default of [`UploadQuotas::max_files_per_message`].
pub const DEFAULT_MAX_FILES_PER_MESSAGE: usize = 20;
/// Default of [`UploadQuotas::pending_expiry_seconds`]: a day.
pub const DEFAULT_PENDING_EXPIRY_SECONDS: i64 = 24 * 60 * 60;

impl Default for UploadQuotas {
    fn default() -> Self {
        Self {
            max_pending_bytes_per_user: DEFAULT_MAX_PENDING_BYTES_PER_USER,
            max_pending_bytes_per_conversation: DEFAULT_MAX_PENDING_BYTES_PER_CONVERSATION,
            max_parts_per_upload: DEFAULT_MAX_PARTS_PER_UPLOAD,
            max_files_per_message: DEFAULT_MAX_FILES_PER_MESSAGE,
            pending_expiry_seconds: DEFAULT_PENDING_EXPIRY_SECONDS,
        }
    }
}

/// The bytes already waiting unsent (expired uploads not counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PendingBytes {
    /// Over all of the uploading user's conversations.
    pub user: i64,
    /// In the conversation uploaded into.
    pub conversation: i64,
}

/// Why an upload or a message was refused; nothing is stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuotaRefusal {
    /// The user's unsent files would be over their quota.
    #[error(
        "the files uploaded and not sent yet would total {} over all your conversations — \
         over the limit of {} (agent.json attachments.maxPendingBytesPerUser): send or \
         delete the conversations holding them, or wait until they expire",
        human_size(*total),
        human_size(*limit)
    )]
    UserPending {
        /// What would wait, in bytes.
        total: i64,
        /// The limit in bytes.
        limit: i64,
    },
    /// The conversation's unsent files would be over its quota.
    #[error(
        "the files uploaded and not sent yet in this conversation would total {} — over \
         the limit of {} (agent.json attachments.maxPendingBytesPerConversation): send a \
         message with them first",
        human_size(*total),
        human_size(*limit)
    )]
    ConversationPending {
        /// What would wait, in bytes.
        total: i64,
        /// The limit in bytes.
        limit: i64,
    },
    /// An upload request holds too many parts.
    #[error(
        "the upload holds more than {limit} parts (agent.json \
         attachments.maxPartsPerUpload): upload fewer files at once"
    )]
    TooManyParts {
        /// The limit.
        limit: usize,
    },
    /// A message carries too many files.
    #[error(
        "{count} files are more than one message may carry ({limit}, agent.json \
         attachments.maxFilesPerMessage): send them with several messages"
    )]
    TooManyFiles {
        /// The files given.
        count: usize,
        /// The limit.
        limit: usize,
    },
}

impl UploadQuotas {
    /// Checks that `adding` more bytes may wait unsent besides `pending`.
    ///
    /// # Errors
    /// [`QuotaRefusal::ConversationPending`] first, else
    /// [`QuotaRefusal::UserPending`].
    pub fn check_pending(&self, pending: PendingBytes, adding: i64) -> Result<(), QuotaRefusal> {
        let conversation = pending.conversation.saturating_add(adding);
        if conversation > self.max_pending_bytes_per_conversation {
            return Err(QuotaRefusal::ConversationPending {
                total: conversation,
                limit: self.max_pending_bytes_per_conversation,
            });
        }
        let user = pending.user.saturating_add(adding);
        if user > self.max_pending_bytes_per_user {
            return Err(QuotaRefusal::UserPending {
                total: user,
                limit: self.max_pending_bytes_per_user,
            });
        }
        Ok(())
    }

    /// Checks the number of parts of one upload request (`parts` read so far).
    ///
    /// # Errors
    /// [`QuotaRefusal::TooManyParts`].
    pub fn check_parts(&self, parts: usize) -> Result<(), QuotaRefusal> {
        if parts > self.max_parts_per_upload {
            return Err(QuotaRefusal::TooManyParts {
                limit: self.max_parts_per_upload,
            });
        }
        Ok(())
    }

    /// Checks the number of files one message (or one upload) carries.
    ///
    /// # Errors
    /// [`QuotaRefusal::TooManyFiles`].
    pub fn check_files(&self, count: usize) -> Result<(), QuotaRefusal> {
        if count > self.max_files_per_message {
            return Err(QuotaRefusal::TooManyFiles {
                count,
                limit: self.max_files_per_message,
            });
        }
        Ok(())
    }

    /// The moment before which an unsent upload has expired, seen at `now`.
    #[must_use]
    pub fn expired_before(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        now - chrono::Duration::seconds(self.pending_expiry_seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::{PendingBytes, QuotaRefusal, UploadQuotas};

    fn quotas() -> UploadQuotas {
        UploadQuotas {
            max_pending_bytes_per_user: 100,
            max_pending_bytes_per_conversation: 60,
            max_parts_per_upload: 3,
            max_files_per_message: 2,
            pending_expiry_seconds: 3600,
        }
    }

    #[test]
    fn pending_bytes_are_held_to_the_conversation_and_the_user() {
        let pending = |user, conversation| PendingBytes { user, conversation };
        let cases = [
            (pending(0, 0), 60, None),
            (pending(0, 0), 61, Some("maxPendingBytesPerConversation")),
            (pending(50, 10), 50, None),
            (pending(50, 10), 51, Some("maxPendingBytesPerConversation")),
            (pending(90, 0), 10, None),
            (pending(90, 0), 11, Some("maxPendingBytesPerUser")),
            // both over: the conversation's is named first
            (pending(100, 60), 1, Some("maxPendingBytesPerConversation")),
            (pending(i64::MAX, 0), 1, Some("maxPendingBytesPerUser")),
            (
                pending(0, i64::MAX),
                i64::MAX,
                Some("maxPendingBytesPerConversation"),
            ),
            (pending(0, 0), 0, None),
        ];
        for (pending, adding, refusal) in cases {
            let answer = quotas().check_pending(pending, adding);
            match refusal {
                None => assert_eq!(answer, Ok(()), "{pending:?} + {adding}"),
                Some(key) => {
                    let text = answer.err().map(|e| e.to_string()).unwrap_or_default();
                    assert!(text.contains(key), "{pending:?} + {adding}: {text}");
                }
            }
        }
    }

    #[test]
    fn parts_and_files_are_counted() {
        let q = quotas();
        assert_eq!(q.check_parts(3), Ok(()));
        assert_eq!(
            q.check_parts(4),
            Err(QuotaRefusal::TooManyParts { limit: 3 })
        );
        assert_eq!(q.check_files(2), Ok(()));
        assert_eq!(
            q.check_files(3),
            Err(QuotaRefusal::TooManyFiles { count: 3, limit: 2 })
        );
        let now = chrono::Utc::now();
        assert_eq!(q.expired_before(now), now - chrono::Duration::hours(1));
    }
}
