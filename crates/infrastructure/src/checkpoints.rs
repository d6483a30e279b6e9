//! `CheckpointRepository` on SQLite: a turn's file changes as rows of
//! `turn_file_changes` (a job of the writer, `write/file_changes.rs`), their contents
//! as files beside the database (`checkpoints/<first two hex>/<sha256>`, as attachment
//! contents are kept: `content_files.rs`), one per digest. A content's file's
//! modification time is when it was kept (retention's age, with its changes' times).

use std::collections::HashMap;

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::TurnFileChange;
use smallebot_core::file_change_columns;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::{CheckpointRepository, RepoResult};
use smallebot_core::rules::retention::KeptContent;
use smallebot_core::time::{Timestamp, parse_timestamp};

use crate::attachments::blocking;
use crate::database::SqliteStore;
use crate::queries;
use crate::rows;
use crate::write::{CheckpointWrite, Write};

#[async_trait]
impl CheckpointRepository for SqliteStore {
    async fn record_file_changes(
        &self,
        conversation_id: ConversationId,
        turn_id: TurnId,
        changes: &[TurnFileChange],
    ) -> RepoResult<()> {
        let changes = changes.to_vec();
        self.writer()
            .run(|reply| {
                Write::Checkpoint(CheckpointWrite::RecordFileChanges {
                    conversation_id,
                    turn_id,
                    changes,
                    reply,
                })
            })
            .await
    }

    async fn file_changes(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<TurnFileChange>> {
        const ACTION: &str = "listing a conversation's file changes";
        self.readers()
            .read(ACTION, move |conn| {
                queries::all(
                    conn,
                    ACTION,
                    concat!(
                        "SELECT ",
                        file_change_columns!(),
                        " FROM turn_file_changes f JOIN turns t ON t.id = f.turn_id \
                         WHERE f.conversation_id = ?1 ORDER BY t.seq, f.id"
                    ),
                    [conversation_id.to_string()],
                    rows::file_change,
                )
            })
            .await
    }

    async fn has_checkpoint_content(&self, sha256: &str) -> RepoResult<bool> {
        let (files, sha256) = (self.checkpoint_files().clone(), sha256.to_owned());
        blocking("looking up a checkpoint content", move || {
            files.exists(&sha256)
        })
        .await
    }

    async fn put_checkpoint_content(&self, sha256: &str, content: &[u8]) -> RepoResult<()> {
        let files = self.checkpoint_files().clone();
        let (sha256, content) = (sha256.to_owned(), content.to_vec());
        blocking("keeping a checkpoint content", move || {
            files.write(&sha256, &content)
        })
        .await
    }

    async fn checkpoint_content(&self, sha256: &str) -> RepoResult<Option<Vec<u8>>> {
        let (files, sha256) = (self.checkpoint_files().clone(), sha256.to_owned());
        blocking("reading a checkpoint content", move || files.read(&sha256)).await
    }

    async fn kept_checkpoint_contents(&self) -> RepoResult<Vec<KeptContent>> {
        const ACTION: &str = "listing when checkpoint contents were last needed";
        let used: HashMap<String, String> = self
            .readers()
            .read(ACTION, move |conn| {
                queries::all(
                    conn,
                    ACTION,
                    "SELECT sha256, max(created_at) FROM ( \
                     SELECT sha256_before AS sha256, created_at FROM turn_file_changes \
                     WHERE sha256_before IS NOT NULL UNION ALL \
                     SELECT sha256_after, created_at FROM turn_file_changes \
                     WHERE sha256_after IS NOT NULL) GROUP BY sha256",
                    [],
                    |row| {
                        let sha256: String = row.get(0).map_err(crate::error::sqlite(ACTION))?;
                        let at: String = row.get(1).map_err(crate::error::sqlite(ACTION))?;
                        Ok((sha256, at))
                    },
                )
            })
            .await?
            .into_iter()
            .collect();
        let files = self.checkpoint_files().clone();
        let on_disk = blocking(ACTION, move || files.list()).await?;
        on_disk
            .into_iter()
            .map(|(sha256, size, kept)| {
                let kept = Timestamp::from(kept);
                let last_used = match used.get(&sha256) {
                    Some(text) => parse_timestamp(text)
                        .map_err(|err| RepositoryError::Storage {
                            action: ACTION,
                            message: format!("a change's time '{text}' is not valid: {err}"),
                        })?
                        .max(kept),
                    None => kept,
                };
                Ok(KeptContent {
                    sha256,
                    size,
                    last_used,
                })
            })
            .collect()
    }

    async fn prune_checkpoint_contents(&self, sha256s: &[String], reason: &str) -> RepoResult<()> {
        let files = self.checkpoint_files().clone();
        for sha256 in sha256s {
            files.path(sha256)?;
        }
        let (sha256s, reason) = (sha256s.to_vec(), reason.to_owned());
        let marked = sha256s.clone();
        self.writer()
            .run(|reply| {
                Write::Checkpoint(CheckpointWrite::MarkPruned {
                    sha256s: marked,
                    reason,
                    reply,
                })
            })
            .await?;
        blocking("removing pruned checkpoint contents", move || {
            for sha256 in &sha256s {
                files.remove(sha256);
            }
            Ok(())
        })
        .await
    }
}
