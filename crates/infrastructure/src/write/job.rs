//! The write jobs: one variant per kind of write, with typed fields and a typed
//! reply, and how each runs inside its own savepoint.

use rusqlite::Connection;
use smallebot_core::entities::{
    CompressionUpdate, Conversation, Message, MessageReplacement, NewStep, RecordedStep, Seq,
    ToolCall, ToolCallCompletion, Turn, TurnRestart, TurnStatus, TurnUndo,
};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::time::Timestamp;

use super::attachments::AttachmentsPut;
use super::settle::{Refusal, Reply, Settled, settle};
use super::turns::TurnStart;
use super::{append, attachments, conversations, file_changes, history, hook_runs, turns, usage};
use crate::content_files::ContentFiles;

/// One write of the store, with where its answer goes.
#[derive(Debug)]
pub(crate) enum Write {
    /// A conversation's own row: created, renamed, its model, deleted, compressed.
    Conversation(ConversationWrite),
    /// Stores uploads into one conversation under the quotas; the rows, and the
    /// digests of the expired uploads it deleted (to sweep once committed).
    PutAttachments {
        put: AttachmentsPut,
        reply: Reply<(Vec<smallebot_core::entities::Attachment>, Vec<String>)>,
    },
    /// Deletes the uploads never sent from before a moment; how many, and the digests
    /// of their content (to sweep once committed).
    DeleteUnsent {
        before: Timestamp,
        reply: Reply<(u64, Vec<String>)>,
    },
    /// Removes the content files of these digests that no row uses any more.
    SweepContents {
        files: ContentFiles,
        sha256s: Vec<String>,
        reply: Reply<()>,
    },
    /// Starts a turn without a lease or message (a test fixture).
    #[cfg(any(test, feature = "test-support"))]
    StartTurn {
        conversation_id: ConversationId,
        thinking_mode: bool,
        reply: Reply<Turn>,
    },
    /// Starts a leased turn with its user message; whether it titled the conversation.
    StartTurnWithMessage {
        start: TurnStart,
        reply: Reply<(Turn, Message, bool)>,
    },
    /// Ends a turn.
    FinishTurn {
        turn_id: TurnId,
        status: TurnStatus,
        error: Option<String>,
        reply: Reply<Turn>,
    },
    /// Renews a running turn's lease; whether it still runs.
    Heartbeat {
        turn_id: TurnId,
        at: Timestamp,
        reply: Reply<bool>,
    },
    /// Marks a running turn interrupted; whether it ran.
    InterruptTurn { turn_id: TurnId, reply: Reply<bool> },
    /// Replaces a user message by a new version (guarded); with the digests of the
    /// discarded turns' attachments.
    ReplaceUserMessage {
        replacement: MessageReplacement,
        reply: Reply<((Turn, Message), Vec<String>)>,
    },
    /// Starts a turn again from its user message (guarded); with the digests of the
    /// discarded turns' attachments.
    RestartTurn {
        restart: TurnRestart,
        reply: Reply<((Turn, Message), Vec<String>)>,
    },
    /// Marks a turn undone (guarded).
    MarkTurnUndone { undo: TurnUndo, reply: Reply<Turn> },
    /// Records a model step (and the end of its turn).
    RecordStep {
        step: NewStep,
        reply: Reply<RecordedStep>,
    },
    /// Appends a message (a test fixture).
    #[cfg(any(test, feature = "test-support"))]
    AppendMessage {
        message: smallebot_core::entities::NewMessage,
        reply: Reply<Message>,
    },
    /// Stores a tool call's result.
    CompleteToolCall {
        turn_id: TurnId,
        call_id: String,
        completion: ToolCallCompletion,
        reply: Reply<ToolCall>,
    },
    /// Marks a conversation's token counts provisional from a `seq`.
    MarkCountsProvisional {
        conversation_id: ConversationId,
        from_seq: Seq,
        reply: Reply<()>,
    },
    /// Replaces provisional token counts with exact ones.
    SetExactCounts {
        conversation_id: ConversationId,
        counts: Vec<(Seq, i64)>,
        through_seq: Seq,
        reply: Reply<()>,
    },
    /// Adds every stored row not indexed yet to the full-text index.
    IndexPending { reply: Reply<()> },
    /// A write of checkpoints' file changes.
    Checkpoint(CheckpointWrite),
    /// A write of permission grants.
    Grant(super::grants::GrantWrite),
    /// A write of sign-ins to MCP servers.
    McpCredential(super::mcp_credentials::McpCredentialWrite),
    /// A write of the web app's users.
    User(super::UserWrite),
    /// Nothing: waits until what was queued before it is written.
    Flush { reply: Reply<()> },
    /// Records one model request's usage.
    RecordUsage {
        record: Box<smallebot_core::entities::UsageRecord>,
        reply: Reply<()>,
    },
    /// Records one hook run.
    HookRun {
        run: Box<smallebot_core::entities::HookRun>,
        reply: Reply<()>,
    },
}

impl Write {
    /// Runs the job on `conn` inside a savepoint of its own (or, given a refusal,
    /// only takes its error): its answer, to send once the transaction ended.
    pub(super) fn apply(self, conn: Result<&Connection, &Refusal>) -> Settled {
        use Write as W;
        match self {
            W::Conversation(write) => write.apply(conn),
            W::PutAttachments { put, reply } => {
                settle(conn, reply, |c| attachments::insert_all(c, &put))
            }
            W::DeleteUnsent { before, reply } => settle(conn, reply, |c| {
                attachments::delete_unsent_before(c, &before)
            }),
            W::SweepContents {
                files,
                sha256s,
                reply,
            } => settle(conn, reply, |c| attachments::sweep(c, &files, &sha256s)),
            #[cfg(any(test, feature = "test-support"))]
            W::StartTurn {
                conversation_id,
                thinking_mode,
                reply,
            } => settle(conn, reply, |c| {
                turns::insert_turn(c, conversation_id, thinking_mode, None, &crate::time::now())
            }),
            W::StartTurnWithMessage { start, reply } => {
                settle(conn, reply, |c| turns::start_with_message(c, &start))
            }
            W::FinishTurn {
                turn_id,
                status,
                error,
                reply,
            } => settle(conn, reply, |c| {
                append::finish(c, turn_id, status, error.as_deref(), None)
            }),
            W::Heartbeat { turn_id, at, reply } => {
                settle(conn, reply, |c| turns::heartbeat(c, turn_id, at))
            }
            W::InterruptTurn { turn_id, reply } => {
                settle(conn, reply, |c| turns::interrupt(c, turn_id))
            }
            W::ReplaceUserMessage { replacement, reply } => settle(conn, reply, |c| {
                turns::replace_user_message(c, &replacement)
            }),
            W::RestartTurn { restart, reply } => {
                settle(conn, reply, |c| turns::restart(c, &restart))
            }
            W::MarkTurnUndone { undo, reply } => {
                settle(conn, reply, |c| turns::mark_undone(c, &undo))
            }
            W::RecordStep { step, reply } => {
                settle(conn, reply, |c| history::record_step(c, &step))
            }
            #[cfg(any(test, feature = "test-support"))]
            W::AppendMessage { message, reply } => {
                settle(conn, reply, |c| history::append_message(c, &message))
            }
            W::CompleteToolCall {
                turn_id,
                call_id,
                completion,
                reply,
            } => settle(conn, reply, |c| {
                history::complete_tool_call(c, turn_id, &call_id, &completion)
            }),
            W::MarkCountsProvisional {
                conversation_id,
                from_seq,
                reply,
            } => settle(conn, reply, |c| {
                history::mark_provisional(c, conversation_id, from_seq)
            }),
            W::SetExactCounts {
                conversation_id,
                counts,
                through_seq,
                reply,
            } => settle(conn, reply, |c| {
                history::set_exact_counts(c, conversation_id, &counts, through_seq)
            }),
            W::IndexPending { reply } => settle(conn, reply, append::index_pending),
            W::User(write) => write.apply(conn),
            W::Checkpoint(write) => write.apply(conn),
            W::Grant(write) => write.apply(conn),
            W::McpCredential(write) => write.apply(conn),
            W::RecordUsage { record, reply } => {
                settle(conn, reply, |c| usage::insert_queued(c, &record))
            }
            W::HookRun { run, reply } => settle(conn, reply, |c| hook_runs::insert(c, &run)),
            W::Flush { reply } => settle(conn, reply, |_| Ok(())),
        }
    }
}

/// A write of one conversation's row, with where its answer goes.
#[derive(Debug)]
pub(crate) enum ConversationWrite {
    /// Inserts a new conversation.
    Create {
        conversation: Conversation,
        reply: Reply<()>,
    },
    /// Gives a conversation a new title.
    Rename {
        id: ConversationId,
        title: String,
        reply: Reply<()>,
    },
    /// Sets or clears a conversation's model.
    SetModel {
        id: ConversationId,
        model: Option<String>,
        reply: Reply<()>,
    },
    /// Deletes a conversation with everything in it; whether it existed, and the
    /// digests of its attachments (to sweep once committed).
    Delete {
        id: ConversationId,
        reply: Reply<(bool, Vec<String>)>,
    },
    /// Moves a conversation's compression boundary.
    SetCompression {
        id: ConversationId,
        update: CompressionUpdate,
        reply: Reply<Conversation>,
    },
}

impl ConversationWrite {
    /// Runs the write as [`Write::apply`] does.
    fn apply(self, conn: Result<&Connection, &Refusal>) -> Settled {
        use ConversationWrite as C;
        match self {
            C::Create {
                conversation,
                reply,
            } => settle(conn, reply, |c| conversations::create(c, &conversation)),
            C::Rename { id, title, reply } => {
                settle(conn, reply, |c| conversations::rename(c, id, &title))
            }
            C::SetModel { id, model, reply } => settle(conn, reply, |c| {
                conversations::set_model(c, id, model.as_deref())
            }),
            C::Delete { id, reply } => settle(conn, reply, |c| conversations::delete(c, id)),
            C::SetCompression { id, update, reply } => {
                settle(conn, reply, |c| conversations::compress(c, id, &update))
            }
        }
    }
}

/// A write of checkpoints' file changes, with where its answer goes.
#[derive(Debug)]
pub(crate) enum CheckpointWrite {
    /// Stores file changes of a turn.
    RecordFileChanges {
        conversation_id: ConversationId,
        turn_id: TurnId,
        changes: Vec<smallebot_core::entities::TurnFileChange>,
        reply: Reply<()>,
    },
    /// Marks the changes whose content before is one of `sha256s` not captured, with
    /// `reason` (checkpoint retention; the contents are removed after the commit).
    MarkPruned {
        sha256s: Vec<String>,
        reason: String,
        reply: Reply<()>,
    },
}

impl CheckpointWrite {
    /// Runs the write as [`Write::apply`] does.
    fn apply(self, conn: Result<&Connection, &Refusal>) -> Settled {
        match self {
            Self::RecordFileChanges {
                conversation_id,
                turn_id,
                changes,
                reply,
            } => settle(conn, reply, |c| {
                file_changes::insert(c, conversation_id, turn_id, &changes)
            }),
            Self::MarkPruned {
                sha256s,
                reason,
                reply,
            } => settle(conn, reply, |c| {
                file_changes::mark_pruned(c, &sha256s, &reason)
            }),
        }
    }
}
