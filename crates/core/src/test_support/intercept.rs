//! [`Intercepted`]: a store for tests that passes every call on to another store, first
//! letting a hook see it — to hold a write, refuse it, or change the stored state just
//! before it runs (as another process would).

use std::sync::Arc;

use async_trait::async_trait;

use crate::entities::{
    AnswerVersion, Attachment, CompressionUpdate, Conversation, HistoryRow, Message,
    MessageReplacement, NewAttachment, NewStep, NewTurn, RecordedStep, SearchHit, SearchQuery, Seq,
    StartedTurn, SubAgentLink, SubAgentRun, ToolCall, ToolCallCompletion, Turn, TurnContents,
    TurnFileChange, TurnRestart, TurnStatus, TurnUndo, UsageFilter, UsageRecord,
};
use crate::entities::{GrantFilter, GrantId, NewPermissionGrant, PermissionGrant};
use crate::ids::{AttachmentId, ConversationId, MessageId, TurnId};
use crate::repository::{
    AttachmentRepository, CheckpointRepository, ConversationRepository, HistoryRepository,
    PermissionGrantRepository, RepoResult, SearchRepository, Store, TurnRepository,
    UsageRepository,
};
use crate::rules::retention::KeptContent;
use crate::rules::upload_quota::UploadQuotas;
use crate::time::Timestamp;

/// What a test does before a call of an [`Intercepted`] store runs.
#[async_trait]
pub trait Interceptor: Send + Sync {
    /// Runs before the store method `method` (its name, e.g. `"complete_tool_call"`);
    /// an error is returned instead of running it.
    async fn before(&self, method: &'static str) -> RepoResult<()>;
}

/// A store that runs [`Interceptor::before`] and then passes the call on to `inner`.
pub struct Intercepted<H> {
    /// The store that does the work.
    pub inner: Arc<dyn Store>,
    /// What runs first.
    pub hooks: H,
}

#[async_trait]
impl<H: Interceptor> ConversationRepository for Intercepted<H> {
    async fn create_conversation(&self, user_name: &str, title: &str) -> RepoResult<Conversation> {
        self.hooks.before("create_conversation").await?;
        self.inner.create_conversation(user_name, title).await
    }
    async fn create_sub_conversation(
        &self,
        user_name: &str,
        title: &str,
        link: SubAgentLink,
    ) -> RepoResult<Conversation> {
        self.hooks.before("create_sub_conversation").await?;
        self.inner
            .create_sub_conversation(user_name, title, link)
            .await
    }
    async fn list_conversations(&self, user_name: Option<&str>) -> RepoResult<Vec<Conversation>> {
        self.hooks.before("list_conversations").await?;
        self.inner.list_conversations(user_name).await
    }
    async fn sub_agent_runs(&self, parent: ConversationId) -> RepoResult<Vec<SubAgentRun>> {
        self.hooks.before("sub_agent_runs").await?;
        self.inner.sub_agent_runs(parent).await
    }
    async fn get_conversation(&self, id: ConversationId) -> RepoResult<Option<Conversation>> {
        self.hooks.before("get_conversation").await?;
        self.inner.get_conversation(id).await
    }
    async fn rename_conversation(&self, id: ConversationId, title: &str) -> RepoResult<()> {
        self.hooks.before("rename_conversation").await?;
        self.inner.rename_conversation(id, title).await
    }
    async fn set_conversation_model(
        &self,
        id: ConversationId,
        model: Option<&str>,
    ) -> RepoResult<()> {
        self.hooks.before("set_conversation_model").await?;
        self.inner.set_conversation_model(id, model).await
    }
    async fn delete_conversation(&self, id: ConversationId) -> RepoResult<bool> {
        self.hooks.before("delete_conversation").await?;
        self.inner.delete_conversation(id).await
    }
    async fn set_compression(
        &self,
        id: ConversationId,
        update: &CompressionUpdate,
    ) -> RepoResult<Conversation> {
        self.hooks.before("set_compression").await?;
        self.inner.set_compression(id, update).await
    }
}

#[async_trait]
impl<H: Interceptor> TurnRepository for Intercepted<H> {
    async fn start_turn_in_context(&self, start: &NewTurn<'_>) -> RepoResult<StartedTurn> {
        self.hooks.before("start_turn_in_context").await?;
        self.inner.start_turn_in_context(start).await
    }
    async fn heartbeat(&self, turn_id: TurnId, at: Timestamp) -> RepoResult<bool> {
        self.hooks.before("heartbeat").await?;
        self.inner.heartbeat(turn_id, at).await
    }
    async fn running_turns(&self) -> RepoResult<Vec<Turn>> {
        self.hooks.before("running_turns").await?;
        self.inner.running_turns().await
    }
    async fn running_turn(&self, conversation_id: ConversationId) -> RepoResult<Option<Turn>> {
        self.hooks.before("running_turn").await?;
        self.inner.running_turn(conversation_id).await
    }
    async fn interrupt_turn(&self, turn_id: TurnId) -> RepoResult<bool> {
        self.hooks.before("interrupt_turn").await?;
        self.inner.interrupt_turn(turn_id).await
    }
    async fn finish_turn(
        &self,
        turn_id: TurnId,
        status: TurnStatus,
        error: Option<&str>,
    ) -> RepoResult<Turn> {
        self.hooks.before("finish_turn").await?;
        self.inner.finish_turn(turn_id, status, error).await
    }
    async fn record_step(&self, step: &NewStep) -> RepoResult<RecordedStep> {
        self.hooks.before("record_step").await?;
        self.inner.record_step(step).await
    }
    async fn get_turn(&self, turn_id: TurnId) -> RepoResult<Option<Turn>> {
        self.hooks.before("get_turn").await?;
        self.inner.get_turn(turn_id).await
    }
    async fn list_turns(&self, conversation_id: ConversationId) -> RepoResult<Vec<Turn>> {
        self.hooks.before("list_turns").await?;
        self.inner.list_turns(conversation_id).await
    }
    async fn turn_contents(&self, turn_id: TurnId) -> RepoResult<Option<TurnContents>> {
        self.hooks.before("turn_contents").await?;
        self.inner.turn_contents(turn_id).await
    }
    async fn replace_user_message(
        &self,
        replacement: &MessageReplacement,
    ) -> RepoResult<(Turn, Message)> {
        self.hooks.before("replace_user_message").await?;
        self.inner.replace_user_message(replacement).await
    }
    async fn restart_turn(&self, restart: &TurnRestart) -> RepoResult<(Turn, Message)> {
        self.hooks.before("restart_turn").await?;
        self.inner.restart_turn(restart).await
    }
    async fn mark_turn_undone(&self, undo: &TurnUndo) -> RepoResult<Turn> {
        self.hooks.before("mark_turn_undone").await?;
        self.inner.mark_turn_undone(undo).await
    }
}

#[async_trait]
impl<H: Interceptor> HistoryRepository for Intercepted<H> {
    async fn complete_tool_call(
        &self,
        turn_id: TurnId,
        call_id: &str,
        completion: &ToolCallCompletion,
    ) -> RepoResult<ToolCall> {
        self.hooks.before("complete_tool_call").await?;
        self.inner
            .complete_tool_call(turn_id, call_id, completion)
            .await
    }
    async fn get_message(&self, message_id: MessageId) -> RepoResult<Option<Message>> {
        self.hooks.before("get_message").await?;
        self.inner.get_message(message_id).await
    }
    async fn rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        self.hooks.before("rows_after").await?;
        self.inner.rows_after(conversation_id, after_seq).await
    }
    async fn answer_versions(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<AnswerVersion>> {
        self.hooks.before("answer_versions").await?;
        self.inner.answer_versions(conversation_id).await
    }
    async fn context_rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        self.hooks.before("context_rows_after").await?;
        self.inner
            .context_rows_after(conversation_id, after_seq)
            .await
    }
    async fn rows_around(
        &self,
        conversation_id: ConversationId,
        seq: Seq,
        before: u32,
        after: u32,
    ) -> RepoResult<Vec<HistoryRow>> {
        self.hooks.before("rows_around").await?;
        self.inner
            .rows_around(conversation_id, seq, before, after)
            .await
    }
    async fn token_sum_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<i64> {
        self.hooks.before("token_sum_after").await?;
        self.inner.token_sum_after(conversation_id, after_seq).await
    }
    async fn mark_counts_provisional(
        &self,
        conversation_id: ConversationId,
        from_seq: Seq,
    ) -> RepoResult<()> {
        self.hooks.before("mark_counts_provisional").await?;
        self.inner
            .mark_counts_provisional(conversation_id, from_seq)
            .await
    }
    async fn set_exact_counts(
        &self,
        conversation_id: ConversationId,
        counts: &[(Seq, i64)],
        through_seq: Seq,
    ) -> RepoResult<()> {
        self.hooks.before("set_exact_counts").await?;
        self.inner
            .set_exact_counts(conversation_id, counts, through_seq)
            .await
    }
}

#[async_trait]
impl<H: Interceptor> SearchRepository for Intercepted<H> {
    async fn search(&self, query: &SearchQuery) -> RepoResult<Vec<SearchHit>> {
        self.hooks.before("search").await?;
        self.inner.search(query).await
    }
}

#[async_trait]
impl<H: Interceptor> AttachmentRepository for Intercepted<H> {
    async fn put_attachments(
        &self,
        new: &[NewAttachment],
        quotas: &UploadQuotas,
    ) -> RepoResult<Vec<Attachment>> {
        self.hooks.before("put_attachments").await?;
        self.inner.put_attachments(new, quotas).await
    }
    async fn delete_unsent_before(&self, before: Timestamp) -> RepoResult<u64> {
        self.hooks.before("delete_unsent_before").await?;
        self.inner.delete_unsent_before(before).await
    }
    async fn get_attachment(&self, id: AttachmentId) -> RepoResult<Option<Attachment>> {
        self.hooks.before("get_attachment").await?;
        self.inner.get_attachment(id).await
    }
    async fn attachment_content(&self, id: AttachmentId) -> RepoResult<Option<Vec<u8>>> {
        self.hooks.before("attachment_content").await?;
        self.inner.attachment_content(id).await
    }
    async fn conversation_attachments(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<Attachment>> {
        self.hooks.before("conversation_attachments").await?;
        self.inner.conversation_attachments(conversation_id).await
    }
}

#[async_trait]
impl<H: Interceptor> UsageRepository for Intercepted<H> {
    fn record_usage(&self, record: UsageRecord) {
        // Queued, never awaited: nothing to intercept.
        self.inner.record_usage(record);
    }
    async fn usage_records(&self, filter: &UsageFilter) -> RepoResult<Vec<UsageRecord>> {
        self.hooks.before("usage_records").await?;
        self.inner.usage_records(filter).await
    }
    async fn usage_cost(&self, filter: &UsageFilter) -> RepoResult<i64> {
        self.hooks.before("usage_cost").await?;
        self.inner.usage_cost(filter).await
    }
}

#[async_trait]
impl<H: Interceptor> crate::repository::HookRunRepository for Intercepted<H> {
    fn record_hook_run(&self, run: crate::entities::HookRun) {
        // Queued, never awaited: nothing to intercept.
        self.inner.record_hook_run(run);
    }
    async fn hook_runs(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<crate::entities::HookRun>> {
        self.hooks.before("hook_runs").await?;
        self.inner.hook_runs(conversation_id).await
    }
}

#[async_trait]
impl<H: Interceptor> CheckpointRepository for Intercepted<H> {
    async fn record_file_changes(
        &self,
        conversation_id: ConversationId,
        turn_id: TurnId,
        changes: &[TurnFileChange],
    ) -> RepoResult<()> {
        self.hooks.before("record_file_changes").await?;
        self.inner
            .record_file_changes(conversation_id, turn_id, changes)
            .await
    }
    async fn file_changes(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<TurnFileChange>> {
        self.hooks.before("file_changes").await?;
        self.inner.file_changes(conversation_id).await
    }
    async fn has_checkpoint_content(&self, sha256: &str) -> RepoResult<bool> {
        self.hooks.before("has_checkpoint_content").await?;
        self.inner.has_checkpoint_content(sha256).await
    }
    async fn put_checkpoint_content(&self, sha256: &str, content: &[u8]) -> RepoResult<()> {
        self.hooks.before("put_checkpoint_content").await?;
        self.inner.put_checkpoint_content(sha256, content).await
    }
    async fn checkpoint_content(&self, sha256: &str) -> RepoResult<Option<Vec<u8>>> {
        self.hooks.before("checkpoint_content").await?;
        self.inner.checkpoint_content(sha256).await
    }
    async fn kept_checkpoint_contents(&self) -> RepoResult<Vec<KeptContent>> {
        self.hooks.before("kept_checkpoint_contents").await?;
        self.inner.kept_checkpoint_contents().await
    }
    async fn prune_checkpoint_contents(&self, sha256s: &[String], reason: &str) -> RepoResult<()> {
        self.hooks.before("prune_checkpoint_contents").await?;
        self.inner.prune_checkpoint_contents(sha256s, reason).await
    }
}

#[async_trait]
impl<H: Interceptor> PermissionGrantRepository for Intercepted<H> {
    async fn add_permission_grant(
        &self,
        grant: &NewPermissionGrant,
    ) -> RepoResult<PermissionGrant> {
        self.hooks.before("add_permission_grant").await?;
        self.inner.add_permission_grant(grant).await
    }
    async fn permission_grants(&self, filter: &GrantFilter) -> RepoResult<Vec<PermissionGrant>> {
        self.hooks.before("permission_grants").await?;
        self.inner.permission_grants(filter).await
    }
    async fn revoke_permission_grant(
        &self,
        id: GrantId,
        user: Option<&str>,
        at: Timestamp,
    ) -> RepoResult<Option<PermissionGrant>> {
        self.hooks.before("revoke_permission_grant").await?;
        self.inner.revoke_permission_grant(id, user, at).await
    }
}

#[async_trait]
impl<H: Interceptor> crate::repository::UserRuleRepository for Intercepted<H> {
    async fn user_rules(&self, name: &str) -> RepoResult<crate::entities::UserRules> {
        self.hooks.before("user_rules").await?;
        self.inner.user_rules(name).await
    }
    async fn set_user_rules(
        &self,
        name: &str,
        rules: &crate::entities::UserRules,
    ) -> RepoResult<bool> {
        self.hooks.before("set_user_rules").await?;
        self.inner.set_user_rules(name, rules).await
    }
}

#[async_trait]
impl<H: Interceptor> crate::repository::McpCredentialRepository for Intercepted<H> {
    async fn mcp_credential(
        &self,
        user: &str,
        server: &str,
    ) -> RepoResult<Option<crate::entities::McpCredential>> {
        self.hooks.before("mcp_credential").await?;
        self.inner.mcp_credential(user, server).await
    }
    async fn save_mcp_credential(
        &self,
        credential: &crate::entities::McpCredential,
    ) -> RepoResult<()> {
        self.hooks.before("save_mcp_credential").await?;
        self.inner.save_mcp_credential(credential).await
    }
    async fn delete_mcp_credential(&self, user: &str, server: &str) -> RepoResult<bool> {
        self.hooks.before("delete_mcp_credential").await?;
        self.inner.delete_mcp_credential(user, server).await
    }
    async fn mcp_credentials_of(
        &self,
        user: &str,
    ) -> RepoResult<Vec<crate::entities::McpCredential>> {
        self.hooks.before("mcp_credentials_of").await?;
        self.inner.mcp_credentials_of(user).await
    }
}
