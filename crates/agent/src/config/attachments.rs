//! `attachments` in agent.json: the limits of files given with a message
//! ([`AttachmentLimits`]) and the quotas of uploads ([`UploadQuotas`]).
//!
//! ```json
//! { "attachments": { "maxFileBytes": 20971520, "maxMessageBytes": 52428800,
//!                    "maxInlineTokens": 8000,
//!                    "maxPendingBytesPerUser": 268435456,
//!                    "maxPendingBytesPerConversation": 104857600,
//!                    "maxPartsPerUpload": 32, "maxFilesPerMessage": 20,
//!                    "pendingExpirySeconds": 86400 } }
//! ```

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_core::rules::attachment::AttachmentLimits;
use smallebot_core::rules::upload_quota::UploadQuotas;

use super::ConfigError;

/// `attachments` as written; a key left out keeps its default.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-what" = "the attachment limits"))]
pub(super) struct RawAttachments {
    max_file_bytes: Option<i64>,
    max_message_bytes: Option<i64>,
    max_inline_tokens: Option<i64>,
    max_pending_bytes_per_user: Option<i64>,
    max_pending_bytes_per_conversation: Option<i64>,
    max_parts_per_upload: Option<i64>,
    max_files_per_message: Option<i64>,
    pending_expiry_seconds: Option<i64>,
}

impl RawAttachments {
    /// The limits and quotas, each checked.
    ///
    /// # Errors
    /// [`ConfigError::Rule`] naming `file` and the key: a value below 1, a
    /// `maxMessageBytes` below `maxFileBytes` (a message could not carry one largest
    /// file), a `maxPendingBytesPerConversation` below `maxMessageBytes` (one message's
    /// files could not wait to be sent) or a `maxPendingBytesPerUser` below
    /// `maxPendingBytesPerConversation`.
    pub(super) fn into_limits(
        self,
        file: &Path,
    ) -> Result<(AttachmentLimits, UploadQuotas), ConfigError> {
        let defaults = AttachmentLimits::default();
        let positive = |key: &str, value: Option<i64>, default: i64| match value {
            None => Ok(default),
            Some(n) if n >= 1 => Ok(n),
            Some(n) => Err(ConfigError::Rule {
                file: file.to_path_buf(),
                message: format!("attachments.{key} must be at least 1, got {n}"),
            }),
        };
        let limits = AttachmentLimits {
            max_file_bytes: positive("maxFileBytes", self.max_file_bytes, defaults.max_file_bytes)?,
            max_message_bytes: positive(
                "maxMessageBytes",
                self.max_message_bytes,
                defaults.max_message_bytes,
            )?,
            max_inline_tokens: positive(
                "maxInlineTokens",
                self.max_inline_tokens,
                defaults.max_inline_tokens,
            )?,
        };
        let quota_defaults = UploadQuotas::default();
        let count = |key: &str, value: Option<i64>, default: usize| {
            positive(key, value, i64::try_from(default).unwrap_or(i64::MAX))
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        };
        let quotas = UploadQuotas {
            max_pending_bytes_per_user: positive(
                "maxPendingBytesPerUser",
                self.max_pending_bytes_per_user,
                quota_defaults.max_pending_bytes_per_user,
            )?,
            max_pending_bytes_per_conversation: positive(
                "maxPendingBytesPerConversation",
                self.max_pending_bytes_per_conversation,
                quota_defaults.max_pending_bytes_per_conversation,
            )?,
            max_parts_per_upload: count(
                "maxPartsPerUpload",
                self.max_parts_per_upload,
                quota_defaults.max_parts_per_upload,
            )?,
            max_files_per_message: count(
                "maxFilesPerMessage",
                self.max_files_per_message,
                quota_defaults.max_files_per_message,
            )?,
            pending_expiry_seconds: positive(
                "pendingExpirySeconds",
                self.pending_expiry_seconds,
                quota_defaults.pending_expiry_seconds,
            )?,
        };
        let below = |key: &str, value: i64, other: &str, bound: i64, why: &str| {
            Err(ConfigError::Rule {
                file: file.to_path_buf(),
                message: format!(
                    "attachments.{key} ({value}) is below attachments.{other} ({bound}): \
                     {why}; raise {key} or lower {other}"
                ),
            })
        };
        if quotas.max_pending_bytes_per_conversation < limits.max_message_bytes {
            return below(
                "maxPendingBytesPerConversation",
                quotas.max_pending_bytes_per_conversation,
                "maxMessageBytes",
                limits.max_message_bytes,
                "one message's files could not wait to be sent",
            );
        }
        if quotas.max_pending_bytes_per_user < quotas.max_pending_bytes_per_conversation {
            return below(
                "maxPendingBytesPerUser",
                quotas.max_pending_bytes_per_user,
                "maxPendingBytesPerConversation",
                quotas.max_pending_bytes_per_conversation,
                "one conversation's files could not wait to be sent",
            );
        }
        if limits.max_message_bytes < limits.max_file_bytes {
            return Err(ConfigError::Rule {
                file: file.to_path_buf(),
                message: format!(
                    "attachments.maxMessageBytes ({}) is below attachments.maxFileBytes ({}): \
                     a message could not carry one file of the largest size; raise \
                     maxMessageBytes or lower maxFileBytes",
                    limits.max_message_bytes, limits.max_file_bytes
                ),
            });
        }
        Ok((limits, quotas))
    }
}
