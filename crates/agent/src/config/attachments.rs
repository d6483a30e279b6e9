//! `attachments` in agent.json: the limits of files given with a message
//! ([`AttachmentLimits`]).
//!
//! ```json
//! { "attachments": { "maxFileBytes": 20971520, "maxMessageBytes": 52428800,
//!                    "maxInlineTokens": 8000 } }
//! ```

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_core::rules::attachment::AttachmentLimits;

use super::ConfigError;

/// `attachments` as written; a key left out keeps its default.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-what" = "the attachment limits"))]
pub(super) struct RawAttachments {
    max_file_bytes: Option<i64>,
    max_message_bytes: Option<i64>,
    max_inline_tokens: Option<i64>,
}

impl RawAttachments {
    /// The limits, each checked.
    ///
    /// # Errors
    /// [`ConfigError::Rule`] naming `file` and the key: a value below 1, or a
    /// `maxMessageBytes` below `maxFileBytes` (a message could not carry one largest
    /// file).
    pub(super) fn into_limits(self, file: &Path) -> Result<AttachmentLimits, ConfigError> {
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
        Ok(limits)
    }
}
