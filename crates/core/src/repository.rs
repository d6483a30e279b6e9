//! The repository traits the pipeline talks to. The infrastructure crate implements
//! them on SQLite, the postgres crate on PostgreSQL. Writes only tests use are in
//! `crate::test_support` (the `test-support` feature).

use async_trait::async_trait;

use crate::entities::{
    AnswerVersion, Attachment, CompressionUpdate, Conversation, HistoryRow, Message,
    MessageReplacement, NewAttachment, NewStep, NewTurn, RecordedStep, SearchHit, SearchQuery, Seq,
    StartedTurn, SubAgentLink, SubAgentRun, ToolCall, ToolCallCompletion, Turn, TurnContents,
    TurnFileChange, TurnRestart, TurnStatus, TurnUndo, UsageFilter, UsageRecord,
};
use crate::error::RepositoryError;
use crate::ids::{AttachmentId, ConversationId, MessageId, TurnId};
use crate::rules::retention::KeptContent;
use crate::rules::upload_quota::UploadQuotas;
use crate::time::Timestamp;

/// Shorthand for repository results.
pub type RepoResult<T> = Result<T, RepositoryError>;

mod grants;
pub use grants::PermissionGrantRepository;

/// Conversations: create, list, read, rename, delete, compress.
#[async_trait]
pub trait ConversationRepository: Send + Sync {
    /// Creates a conversation for `user_name` with a provisional title.
    async fn create_conversation(&self, user_name: &str, title: &str) -> RepoResult<Conversation>;

    /// Creates the conversation of a sub-agent for `user_name`, linked to the parent's
    /// tool call that runs it (the link is stored with it and never changes).
    async fn create_sub_conversation(
        &self,
        user_name: &str,
        title: &str,
        link: SubAgentLink,
    ) -> RepoResult<Conversation>;

    /// Lists conversations, most recently updated first; only `user_name`'s when given.
    async fn list_conversations(&self, user_name: Option<&str>) -> RepoResult<Vec<Conversation>>;

    /// The sub-agents `parent` ran, oldest first, each with its latest turn's outcome
    /// (one query, whatever their number).
    async fn sub_agent_runs(&self, parent: ConversationId) -> RepoResult<Vec<SubAgentRun>>;

    /// Reads one conversation.
    async fn get_conversation(&self, id: ConversationId) -> RepoResult<Option<Conversation>>;

    /// Changes the title.
    async fn rename_conversation(&self, id: ConversationId, title: &str) -> RepoResult<()>;

    /// Chooses the model the conversation runs on (`None`: the default). The caller
    /// checks that the id names a configured model.
    async fn set_conversation_model(
        &self,
        id: ConversationId,
        model: Option<&str>,
    ) -> RepoResult<()>;

    /// Deletes a conversation with every child row and its full-text entries.
    /// Returns whether it existed.
    async fn delete_conversation(&self, id: ConversationId) -> RepoResult<bool>;

    /// Answers once storage answers a trivial query (a readiness check): reads a
    /// conversation that cannot exist.
    async fn ping(&self) -> RepoResult<()> {
        self.get_conversation(ConversationId::new())
            .await
            .map(|_| ())
    }

    /// Writes `compressed_context`, `compressed_at` and `compressed_through_seq` in one
    /// transaction, or nothing at all: the boundary must move forward, name a stored
    /// row, and match `expected_previous_seq`.
    async fn set_compression(
        &self,
        id: ConversationId,
        update: &CompressionUpdate,
    ) -> RepoResult<Conversation>;
}

/// Turns: their lifecycle and the guarded primitives edit, regenerate and undo are
/// built on (the rules live in `smallebot-application`).
#[async_trait]
pub trait TurnRepository: Send + Sync {
    /// Starts a turn leased to [`NewTurn::owner`] and stores its user message in one
    /// transaction (the message is never lost, the turn never without its message).
    /// Refused with [`RepositoryError::TurnRunning`] — nothing stored — while another
    /// turn of the conversation is `running`, whatever process runs it, and with
    /// [`RepositoryError::NotFound`] for an unknown conversation.
    ///
    /// [`NewTurn::attachments`] (uploaded into the conversation with
    /// [`AttachmentRepository::put_attachment`]) are linked to the message in the same
    /// transaction and come back in its [`Message::attachments`]. Refused — nothing
    /// stored — with [`RepositoryError::NotFound`] for an unknown attachment and with
    /// [`RepositoryError::Conflict`] for one of another conversation or already on a
    /// message.
    ///
    /// With [`NewTurn::title`], when the turn is the conversation's first and its title
    /// is still `title.untitled`, the title becomes `title.title`
    /// ([`StartedTurn::titled`] says whether it did).
    ///
    /// Gives back the rows in the turn's context after [`NewTurn::boundary`] when the
    /// store has them at hand without a read of its own (a store that keeps recently
    /// used conversations' rows and saw nothing else write them); `None` otherwise, and
    /// the caller reads them ([`HistoryRepository::context_rows_after`]).
    async fn start_turn_in_context(&self, start: &NewTurn<'_>) -> RepoResult<StartedTurn>;

    /// Renews a running turn's lease; false when the turn no longer runs.
    async fn heartbeat(&self, turn_id: TurnId, at: Timestamp) -> RepoResult<bool>;

    /// Every `running` turn of every conversation, with its lease.
    async fn running_turns(&self) -> RepoResult<Vec<Turn>>;

    /// The conversation's `running` turn, if any.
    async fn running_turn(&self, conversation_id: ConversationId) -> RepoResult<Option<Turn>>;

    /// Marks a turn that is still `running` `interrupted` (its owner is gone); false
    /// when it had already ended.
    async fn interrupt_turn(&self, turn_id: TurnId) -> RepoResult<bool>;

    /// Ends a turn with a final status and, for failures, the error text.
    async fn finish_turn(
        &self,
        turn_id: TurnId,
        status: TurnStatus,
        error: Option<&str>,
    ) -> RepoResult<Turn>;

    /// Stores what one model step produced — reasoning, assistant message, requested
    /// tool calls (`running`) and, when set, the end of the turn — in one transaction,
    /// each row with the conversation's next `seq`. Refused with
    /// [`RepositoryError::Conflict`] when a call id is already used in the turn
    /// (nothing stored).
    async fn record_step(&self, step: &NewStep) -> RepoResult<RecordedStep>;

    /// Reads one turn.
    async fn get_turn(&self, turn_id: TurnId) -> RepoResult<Option<Turn>>;

    /// The turns of a conversation in order.
    async fn list_turns(&self, conversation_id: ConversationId) -> RepoResult<Vec<Turn>>;

    /// A turn with its messages and the `seq` of its last row: what the rewrite rules
    /// (`smallebot_core::rules::rewrite`) decide on.
    async fn turn_contents(&self, turn_id: TurnId) -> RepoResult<Option<TurnContents>>;

    /// Replaces a user message, in one transaction (see [`MessageReplacement`]); the
    /// replaced turn's answer so far is kept as an [`AnswerVersion`] of the old message.
    /// Decides nothing: the caller applied the rules. Refused — nothing stored — with
    /// [`RepositoryError::TurnRunning`] while a turn of the conversation runs, and with
    /// [`RepositoryError::Conflict`] when the guard no longer holds (the boundary moved,
    /// the message is no longer current); [`RepositoryError::NotFound`] for an unknown
    /// message. The old message's attachments move to the new version (the edited
    /// text still carries them; the replaced version lists none).
    async fn replace_user_message(
        &self,
        replacement: &MessageReplacement,
    ) -> RepoResult<(Turn, Message)>;

    /// Starts a turn again from its user message, in one transaction (see
    /// [`TurnRestart`]); returns the turn and that message. Its answer so far is kept
    /// as an [`AnswerVersion`] of that message. Decides nothing. Refused —
    /// nothing changed — with [`RepositoryError::TurnRunning`] while a turn of the
    /// conversation runs, with [`RepositoryError::Conflict`] when the guard no longer
    /// holds (the boundary moved, the message is no longer a current one of the turn),
    /// and [`RepositoryError::NotFound`] for an unknown turn.
    async fn restart_turn(&self, restart: &TurnRestart) -> RepoResult<(Turn, Message)>;

    /// Marks a turn and its rows undone, in one transaction (see [`TurnUndo`]); they
    /// stay stored and searchable but no longer go to the model or count in
    /// `context_tokens`. Decides nothing. Refused — nothing changed — with
    /// [`RepositoryError::TurnRunning`] while a turn of the conversation runs, and with
    /// [`RepositoryError::Conflict`] when the guard no longer holds (the boundary moved,
    /// the turn is undone already or no longer the last turn not undone).
    async fn mark_turn_undone(&self, undo: &TurnUndo) -> RepoResult<Turn>;
}

/// The rows of a conversation's timeline.
#[async_trait]
pub trait HistoryRepository: Send + Sync {
    /// Completes the tool call `call_id` of `turn_id`.
    async fn complete_tool_call(
        &self,
        turn_id: TurnId,
        call_id: &str,
        completion: &ToolCallCompletion,
    ) -> RepoResult<ToolCall>;

    /// Reads one message.
    async fn get_message(&self, message_id: MessageId) -> RepoResult<Option<Message>>;

    /// Every row with `seq > after_seq`, in `seq` order (replaced messages included;
    /// callers that build model input skip them).
    async fn rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>>;

    /// The answers edits and regenerations replaced in the conversation, oldest first
    /// (see [`AnswerVersion`]); those of discarded later turns are gone with them.
    async fn answer_versions(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<AnswerVersion>>;

    /// The rows with `seq > after_seq` that are in the context, in `seq` order: like
    /// [`rows_after`](Self::rows_after) without the rows of undone turns.
    async fn context_rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>>;

    /// The messages and tool calls nearest to `seq`, in `seq` order: up to `before` rows
    /// with a lower `seq`, the row at `seq` (if it is one), and up to `after` rows with a
    /// higher `seq`. Think blocks are skipped (they are not searchable); replaced messages
    /// are included. Shows a search hit in context without reading the whole timeline.
    async fn rows_around(
        &self,
        conversation_id: ConversationId,
        seq: Seq,
        before: u32,
        after: u32,
    ) -> RepoResult<Vec<HistoryRow>>;

    /// Sum of the stored `token_count` of rows with `seq > after_seq` that go to the
    /// model (replaced messages, undone turns and think blocks excluded).
    async fn token_sum_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<i64>;

    /// Records that the rows of `conversation_id` from `from_seq` on may carry
    /// provisional token counts (upper bounds written before the exact tokenizer was
    /// ready); keeps an earlier mark.
    async fn mark_counts_provisional(
        &self,
        conversation_id: ConversationId,
        from_seq: Seq,
    ) -> RepoResult<()>;

    /// Replaces the token counts of the rows at the given `(seq, tokens)` with exact
    /// ones (the running total follows) and records that every row through
    /// `through_seq` is exact: the mark is cleared, or moved after `through_seq` when
    /// rows were added meanwhile. One transaction.
    async fn set_exact_counts(
        &self,
        conversation_id: ConversationId,
        counts: &[(Seq, i64)],
        through_seq: Seq,
    ) -> RepoResult<()>;
}

/// Full-text search over messages and tool calls.
#[async_trait]
pub trait SearchRepository: Send + Sync {
    /// Matches newest first, at most `query.limit`.
    async fn search(&self, query: &SearchQuery) -> RepoResult<Vec<SearchHit>>;
}

/// Attachments: files uploaded into a conversation and then carried by a user message.
/// Content is stored once per SHA-256 (`facts.sha256`), however many attachments share
/// it, and removed when no attachment uses it any more.
#[async_trait]
pub trait AttachmentRepository: Send + Sync {
    /// Stores uploaded files in their conversation (all in one), on no message yet, all
    /// or none, in upload order. The content is written only when no stored attachment
    /// has the same digest. In the same write, uploads never sent that expired under
    /// `quotas` are deleted first, then the bytes still waiting unsent in the
    /// conversation and over all of its user's conversations are checked with
    /// [`UploadQuotas::check_pending`] — so two uploads at once never both pass.
    /// Refused with [`RepositoryError::NotFound`] for an unknown conversation,
    /// [`RepositoryError::OverQuota`] over a quota, [`RepositoryError::Conflict`] for
    /// files of several conversations; nothing is stored when it fails.
    async fn put_attachments(
        &self,
        new: &[NewAttachment],
        quotas: &UploadQuotas,
    ) -> RepoResult<Vec<Attachment>>;

    /// Stores one uploaded file: [`AttachmentRepository::put_attachments`] under the
    /// default quotas.
    async fn put_attachment(&self, new: &NewAttachment) -> RepoResult<Attachment> {
        let mut stored = self
            .put_attachments(std::slice::from_ref(new), &UploadQuotas::default())
            .await?;
        stored.pop().ok_or_else(|| {
            RepositoryError::Corrupt("storing one attachment gave back none".to_owned())
        })
    }

    /// Deletes the uploads never sent that were uploaded before `before` (their
    /// content goes when no attachment names it any more); how many went.
    async fn delete_unsent_before(&self, before: Timestamp) -> RepoResult<u64>;

    /// Reads one attachment.
    async fn get_attachment(&self, id: AttachmentId) -> RepoResult<Option<Attachment>>;

    /// Reads an attachment's content.
    async fn attachment_content(&self, id: AttachmentId) -> RepoResult<Option<Vec<u8>>>;

    /// A conversation's attachments, in upload order: those on its messages and those
    /// uploaded but not yet sent.
    async fn conversation_attachments(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<Attachment>>;
}

/// Usage: one record per model request, kept when its conversation is deleted.
#[async_trait]
pub trait UsageRepository: Send + Sync {
    /// Queues the record of one model request without waiting: it is written with the
    /// store's next write (no commit of its own on a turn's path) or when the store is
    /// closed; this store's own usage reads see it. A failure to store it is logged.
    fn record_usage(&self, record: UsageRecord);

    /// The records `filter` selects, oldest first.
    async fn usage_records(&self, filter: &UsageFilter) -> RepoResult<Vec<UsageRecord>>;

    /// What the records `filter` selects cost, in picos (unpriced ones count 0).
    async fn usage_cost(&self, filter: &UsageFilter) -> RepoResult<i64>;
}

/// Checkpoints: the file changes each turn made to its workspace, and the contents
/// they need to be undone, kept once per SHA-256 (on SQLite as files beside the
/// database, on PostgreSQL in it).
#[async_trait]
pub trait CheckpointRepository: Send + Sync {
    /// Stores changes of the turn `turn_id` of `conversation_id` after those it holds
    /// already (a turn's changes are listed in the order they were stored). Refused
    /// with [`RepositoryError::NotFound`] for an unknown turn of that conversation.
    async fn record_file_changes(
        &self,
        conversation_id: ConversationId,
        turn_id: TurnId,
        changes: &[TurnFileChange],
    ) -> RepoResult<()>;

    /// A conversation's file changes: turn by turn in turn order, each turn's in the
    /// order they were stored.
    async fn file_changes(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<TurnFileChange>>;

    /// Whether the content of `sha256` is kept.
    async fn has_checkpoint_content(&self, sha256: &str) -> RepoResult<bool>;

    /// Keeps `content` under its digest `sha256` (already kept is not an error).
    /// Refused with [`RepositoryError::Conflict`] unless `sha256` is 64 lowercase hex
    /// digits.
    async fn put_checkpoint_content(&self, sha256: &str, content: &[u8]) -> RepoResult<()>;

    /// The content of `sha256`, `None` when it is not kept.
    async fn checkpoint_content(&self, sha256: &str) -> RepoResult<Option<Vec<u8>>>;

    /// Every kept content with its size and when it was last needed (the newest of
    /// when it was kept and when a change naming it was stored), for retention.
    async fn kept_checkpoint_contents(&self) -> RepoResult<Vec<KeptContent>>;

    /// Prunes the contents `sha256s`: first every change whose content before is one
    /// of them and that a rewind could undo is marked not captured with `reason` (a
    /// rewind then names it instead of restoring it), then the contents are removed.
    /// A digest not kept is no error. Refused with [`RepositoryError::Conflict`] for a
    /// string that is not a digest.
    async fn prune_checkpoint_contents(&self, sha256s: &[String], reason: &str) -> RepoResult<()>;
}

mod hook_runs;
pub use hook_runs::HookRunRepository;

mod user_rules;
pub use user_rules::UserRuleRepository;
mod mcp_credentials;
pub use mcp_credentials::McpCredentialRepository;

/// Everything the pipeline needs from storage, as one trait object.
pub trait Store:
    ConversationRepository
    + TurnRepository
    + HistoryRepository
    + SearchRepository
    + AttachmentRepository
    + UsageRepository
    + CheckpointRepository
    + HookRunRepository
    + PermissionGrantRepository
    + UserRuleRepository
    + McpCredentialRepository
{
}

impl<T: ?Sized> Store for T where
    T: ConversationRepository
        + TurnRepository
        + HistoryRepository
        + SearchRepository
        + AttachmentRepository
        + UsageRepository
        + CheckpointRepository
        + HookRunRepository
        + PermissionGrantRepository
        + UserRuleRepository
        + McpCredentialRepository
{
}
