//! The hook runs of a conversation (hooks.json), recorded on their turns.

use async_trait::async_trait;

use super::RepoResult;
use crate::entities::HookRun;
use crate::ids::ConversationId;

/// Hook runs: one record per run of a hook, deleted with its conversation.
#[async_trait]
pub trait HookRunRepository: Send + Sync {
    /// Queues the record of one hook run without waiting, as usage records are
    /// queued: written with the store's next write or when it is closed; this store's
    /// own reads see it. A failure to store it is logged.
    fn record_hook_run(&self, run: HookRun);

    /// The hook runs of `conversation_id`, oldest first.
    async fn hook_runs(&self, conversation_id: ConversationId) -> RepoResult<Vec<HookRun>>;
}
