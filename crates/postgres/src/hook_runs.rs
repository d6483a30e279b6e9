//! Hook runs: one record per run of a hook (`migrations/0017_hook_runs.sql`), queued
//! with the writer as usage records are.

use async_trait::async_trait;
use smallebot_core::entities::HookRun;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{HookRunRepository, RepoResult};

use crate::rows;
use crate::store::PgStore;
use crate::tx::storage;
use crate::write::{Edit, Job};

#[async_trait]
impl HookRunRepository for PgStore {
    fn record_hook_run(&self, run: HookRun) {
        let run = Box::new(run);
        self.writer().enqueue("recording a hook run", |reply| {
            Job::Edit(Edit::RecordHookRun(run, reply))
        });
    }

    async fn hook_runs(&self, conversation_id: ConversationId) -> RepoResult<Vec<HookRun>> {
        self.writer().flush().await?;
        let found = sqlx::query(concat!(
            "SELECT ",
            smallebot_core::hook_run_columns!(),
            " FROM hook_runs WHERE conversation_id = $1 ORDER BY id"
        ))
        .bind(conversation_id.to_string())
        .fetch_all(self.pool())
        .await
        .map_err(storage("listing a conversation's hook runs"))?;
        found.iter().map(rows::hook_run).collect()
    }
}
