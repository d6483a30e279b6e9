//! `checkpoints` in agent.json: the size limits of what a turn's checkpoint keeps,
//! extra ignore rules and how long contents are kept ([`CheckpointSettings`]).
//!
//! ```json
//! { "checkpoints": { "maxFileBytes": 10485760, "maxCheckpointBytes": 104857600,
//!                    "ignore": ["*.log", "dist/"],
//!                    "maxAgeDays": 30, "maxTotalBytes": 1073741824 } }
//! ```

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_checkpoints::{CheckpointSettings, IgnoreRules, Limits, Retention};

use super::ConfigError;

/// `checkpoints` as written; a key left out keeps its default.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-what" = "the checkpoint settings"))]
pub(super) struct RawCheckpoints {
    max_file_bytes: Option<i64>,
    max_checkpoint_bytes: Option<i64>,
    ignore: Option<Vec<String>>,
    max_age_days: Option<i64>,
    max_total_bytes: Option<i64>,
}

impl RawCheckpoints {
    /// The settings, each checked.
    ///
    /// # Errors
    /// [`ConfigError::Rule`] naming `file` and the key: a value below 1, a
    /// `maxCheckpointBytes` below `maxFileBytes` (one largest file could not be kept),
    /// a `maxTotalBytes` below `maxCheckpointBytes`, an ignore rule that is not valid.
    pub(super) fn into_settings(self, file: &Path) -> Result<CheckpointSettings, ConfigError> {
        let rule = |message: String| ConfigError::Rule {
            file: file.to_path_buf(),
            message,
        };
        let positive = |key: &str, value: Option<i64>, default: u64| match value {
            None => Ok(default),
            Some(n) if n >= 1 => Ok(n.unsigned_abs()),
            Some(n) => Err(rule(format!(
                "checkpoints.{key} must be at least 1, got {n}"
            ))),
        };
        let limits = Limits {
            file_bytes: positive(
                "maxFileBytes",
                self.max_file_bytes,
                Limits::DEFAULT_FILE_BYTES,
            )?,
            capture_bytes: positive(
                "maxCheckpointBytes",
                self.max_checkpoint_bytes,
                Limits::DEFAULT_CAPTURE_BYTES,
            )?,
        };
        let retention = Retention {
            max_age_days: positive(
                "maxAgeDays",
                self.max_age_days,
                Retention::DEFAULT_MAX_AGE_DAYS,
            )?,
            max_total_bytes: positive(
                "maxTotalBytes",
                self.max_total_bytes,
                Retention::DEFAULT_MAX_TOTAL_BYTES,
            )?,
        };
        if limits.capture_bytes < limits.file_bytes {
            return Err(rule(format!(
                "checkpoints.maxCheckpointBytes ({}) is below checkpoints.maxFileBytes ({}): \
                 one largest file could not be kept; raise maxCheckpointBytes or lower \
                 maxFileBytes",
                limits.capture_bytes, limits.file_bytes
            )));
        }
        if retention.max_total_bytes < limits.capture_bytes {
            return Err(rule(format!(
                "checkpoints.maxTotalBytes ({}) is below checkpoints.maxCheckpointBytes ({}): \
                 one full checkpoint could not be kept; raise maxTotalBytes or lower \
                 maxCheckpointBytes",
                retention.max_total_bytes, limits.capture_bytes
            )));
        }
        let ignore = self.ignore.unwrap_or_default();
        for (at, line) in ignore.iter().enumerate() {
            IgnoreRules::new(&[line.as_str()]).map_err(|err| {
                rule(format!(
                    "checkpoints.ignore[{at}] is not a valid rule: {err}"
                ))
            })?;
        }
        Ok(CheckpointSettings {
            limits,
            ignore,
            retention,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<CheckpointSettings, ConfigError> {
        let raw: RawCheckpoints = serde_json::from_str(json).map_err(|err| ConfigError::Rule {
            file: "agent.json".into(),
            message: err.to_string(),
        })?;
        raw.into_settings(Path::new("/h/agent.json"))
    }

    #[test]
    fn keys_left_out_keep_their_defaults() -> Result<(), ConfigError> {
        assert_eq!(parse("{}")?, CheckpointSettings::default());
        Ok(())
    }

    #[test]
    fn every_key_is_read() -> Result<(), ConfigError> {
        let got = parse(
            r#"{"maxFileBytes": 5, "maxCheckpointBytes": 50, "ignore": ["*.log"],
                "maxAgeDays": 7, "maxTotalBytes": 500}"#,
        )?;
        assert_eq!(
            got.limits,
            Limits {
                file_bytes: 5,
                capture_bytes: 50
            }
        );
        assert_eq!(got.ignore, vec!["*.log".to_owned()]);
        assert_eq!(
            got.retention,
            Retention {
                max_age_days: 7,
                max_total_bytes: 500
            }
        );
        Ok(())
    }

    #[test]
    fn bad_values_name_the_file_and_key() {
        let rows = [
            (
                r#"{"maxFileBytes": 0}"#,
                "checkpoints.maxFileBytes must be at least 1",
            ),
            (
                r#"{"maxAgeDays": -3}"#,
                "checkpoints.maxAgeDays must be at least 1",
            ),
            (
                r#"{"maxFileBytes": 10, "maxCheckpointBytes": 5}"#,
                "checkpoints.maxCheckpointBytes (5) is below checkpoints.maxFileBytes (10)",
            ),
            (
                r#"{"maxCheckpointBytes": 2000000000, "maxTotalBytes": 1000000000}"#,
                "checkpoints.maxTotalBytes (1000000000) is below",
            ),
            (
                r#"{"ignore": ["ok", "a[z-a]"]}"#,
                "checkpoints.ignore[1] is not a valid rule",
            ),
        ];
        for (json, want) in rows {
            match parse(json) {
                Err(ConfigError::Rule { file, message }) => {
                    assert_eq!(file, Path::new("/h/agent.json"), "{json}");
                    assert!(message.contains(want), "{json}: {message}");
                }
                other => panic!("{json}: expected a rule error, got {other:?}"),
            }
        }
    }
}
