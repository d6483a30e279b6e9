//! `CheckpointRepository` on SQLite: a turn's file changes as rows of
//! `turn_file_changes` (a job of the writer, `write/file_changes.rs`), their contents
//! as files beside the database (`checkpoints/<first two hex>/<sha256>`, as attachment
//! contents are kept: `content_files.rs`), one per digest.

use async_trait::async_trait;
use smallebot_core::entities::TurnFileChange;
use smallebot_core::file_change_columns;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::{CheckpointRepository, RepoResult};

use crate::attachments::blocking;
use crate::database::SqliteStore;
use crate::queries;
use crate::rows;
use crate::write::Write;

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
            .run(|reply| Write::RecordFileChanges {
                conversation_id,
                turn_id,
                changes,
                reply,
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
}
