//! `HookRunRepository` on SQLite: one row of `hook_runs` per run, queued with the
//! writer as usage records are (`write/hook_runs.rs`).

use async_trait::async_trait;
use smallebot_core::entities::HookRun;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{HookRunRepository, RepoResult};

use crate::database::SqliteStore;
use crate::queries;
use crate::rows;
use crate::write::Write;

#[async_trait]
impl HookRunRepository for SqliteStore {
    fn record_hook_run(&self, run: HookRun) {
        let run = Box::new(run);
        self.writer().enqueue(|reply| Write::HookRun { run, reply });
    }

    async fn hook_runs(&self, conversation_id: ConversationId) -> RepoResult<Vec<HookRun>> {
        const ACTION: &str = "listing a conversation's hook runs";
        self.writer().flush().await?;
        self.readers()
            .read(ACTION, move |conn| {
                queries::all(
                    conn,
                    ACTION,
                    concat!(
                        "SELECT ",
                        smallebot_core::hook_run_columns!(),
                        " FROM hook_runs WHERE conversation_id = ?1 ORDER BY id"
                    ),
                    [conversation_id.to_string()],
                    rows::hook_run,
                )
            })
            .await
    }
}
