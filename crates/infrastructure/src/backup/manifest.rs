//! `backup.json`: what a backup folder holds, written last so that a folder with it is
//! a whole backup, and read first by a restore.

use std::path::Path;

use serde_json::{Value, json};

use super::MANIFEST;
use crate::error::StoreError;

/// The manifest format this build writes and reads.
const FORMAT: u64 = 1;

/// Where a backed-up home kept its conversations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatabaseKind {
    /// A SQLite file: the backup holds it, its attachment contents and task lists.
    Sqlite,
    /// PostgreSQL: the backup holds the home's files outside the database only.
    Postgres,
}

impl DatabaseKind {
    /// Its word in the manifest.
    fn word(self) -> &'static str {
        match self {
            Self::Sqlite => "sqlite",
            Self::Postgres => "postgresql",
        }
    }
}

/// What a backup holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupManifest {
    /// When it was taken (RFC 3339, UTC).
    pub created_at: String,
    /// Where the conversations were.
    pub database: DatabaseKind,
    /// The database's schema version (its latest migration; 0 without a database).
    pub schema_version: i64,
    /// Conversations in the database copy.
    pub conversations: i64,
    /// Attachment contents (one per digest).
    pub attachment_contents: usize,
    /// Checkpoint contents (what rewinds restore files from, one per digest).
    pub checkpoint_contents: usize,
    /// Task list files.
    pub task_lists: usize,
    /// Configuration, skill and agent files.
    pub configuration_files: usize,
}

impl BackupManifest {
    /// An empty manifest stamped now.
    pub(super) fn new(database: DatabaseKind) -> Self {
        Self {
            created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            database,
            schema_version: 0,
            conversations: 0,
            attachment_contents: 0,
            checkpoint_contents: 0,
            task_lists: 0,
            configuration_files: 0,
        }
    }

    /// Writes it as `folder/backup.json`.
    pub(super) fn write(&self, folder: &Path) -> Result<(), StoreError> {
        let text = json!({
            "format": FORMAT,
            "createdAt": self.created_at,
            "database": self.database.word(),
            "schemaVersion": self.schema_version,
            "conversations": self.conversations,
            "attachmentContents": self.attachment_contents,
            "checkpointContents": self.checkpoint_contents,
            "taskLists": self.task_lists,
            "configurationFiles": self.configuration_files,
        });
        let path = folder.join(MANIFEST);
        std::fs::write(&path, format!("{text:#}\n")).map_err(|source| StoreError::Io {
            action: "cannot write",
            path,
            source,
        })
    }

    /// Reads `folder/backup.json`.
    ///
    /// # Errors
    /// [`StoreError::NotABackup`] when it is missing or not a manifest this build reads.
    pub fn read(folder: &Path) -> Result<Self, StoreError> {
        let path = folder.join(MANIFEST);
        let not_a_backup = |reason: String| StoreError::NotABackup {
            path: folder.to_path_buf(),
            reason,
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| not_a_backup(format!("cannot read {}: {e}", path.display())))?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| not_a_backup(format!("{}: not JSON ({e})", path.display())))?;
        let number = |key: &str| {
            value.get(key).and_then(Value::as_u64).ok_or_else(|| {
                not_a_backup(format!(
                    "{}: `{key}` is missing or not a number",
                    path.display()
                ))
            })
        };
        let format = number("format")?;
        if format != FORMAT {
            return Err(not_a_backup(format!(
                "{}: format {format}, this build reads format {FORMAT}",
                path.display()
            )));
        }
        let database = match value.get("database").and_then(Value::as_str) {
            Some("sqlite") => DatabaseKind::Sqlite,
            Some("postgresql") => DatabaseKind::Postgres,
            other => {
                return Err(not_a_backup(format!(
                    "{}: `database` is {other:?}, not \"sqlite\" or \"postgresql\"",
                    path.display()
                )));
            }
        };
        let count = |key: &str| number(key).map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        Ok(Self {
            created_at: value
                .get("createdAt")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            database,
            schema_version: i64::try_from(number("schemaVersion")?).unwrap_or(i64::MAX),
            conversations: i64::try_from(number("conversations")?).unwrap_or(i64::MAX),
            attachment_contents: count("attachmentContents")?,
            // Absent in a backup written before checkpoints existed.
            checkpoint_contents: value
                .get("checkpointContents")
                .and_then(Value::as_u64)
                .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX)),
            task_lists: count("taskLists")?,
            configuration_files: count("configurationFiles")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_back_as_written_and_a_wrong_one_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = BackupManifest::new(DatabaseKind::Sqlite);
        m.schema_version = 14;
        m.conversations = 3;
        m.attachment_contents = 2;
        m.checkpoint_contents = 5;
        m.task_lists = 1;
        m.configuration_files = 4;
        m.write(dir.path()).unwrap();
        assert_eq!(BackupManifest::read(dir.path()).unwrap(), m);
        let cases = [
            ("{", "not JSON"),
            (r#"{"format": 2}"#, "format 2, this build reads format 1"),
            (
                r#"{"format": 1, "database": "mysql"}"#,
                "`database` is Some(\"mysql\")",
            ),
            (
                r#"{"format": 1, "database": "sqlite", "schemaVersion": "x"}"#,
                "`schemaVersion` is missing or not a number",
            ),
        ];
        for (text, why) in cases {
            std::fs::write(dir.path().join(MANIFEST), text).unwrap();
            let err = BackupManifest::read(dir.path()).unwrap_err().to_string();
            assert!(err.contains(why), "{text}: {err}");
        }
        let empty = tempfile::tempdir().unwrap();
        let err = BackupManifest::read(empty.path()).unwrap_err().to_string();
        assert!(err.contains("not a backup"), "{err}");
    }
}
