//! Recording one model step — reasoning, assistant message, requested tool calls and,
//! for the last step, the end of the turn: the rows are built here, with their places
//! in the step as `seq`s, and the writer stores them in one statement (with the steps
//! of other turns queued at the same time, see `write/steps.rs`).

use smallebot_core::entities::{
    Message, NewStep, RecordedStep, Role, ThinkBlock, ToolCall, ToolCallStatus, TurnEnd,
};
use smallebot_core::ids::{ConversationId, MessageId, ThinkBlockId, ToolCallId, TurnId};
use smallebot_core::repository::{RepoResult, TurnRepository};
use smallebot_core::time::Timestamp;

use crate::store::PgStore;
use crate::tx::{now, pg_text};
use crate::write::Job;

/// A step's rows, each `seq` holding its place in the step (from 1) until the
/// statement returns the base they are added to.
#[derive(Debug)]
pub(crate) struct PreparedStep {
    /// The conversation.
    pub conversation_id: ConversationId,
    /// The turn.
    pub turn_id: TurnId,
    /// When the rows were created (their `created_at`).
    pub at: Timestamp,
    /// The reasoning, if any.
    pub think: Option<ThinkBlock>,
    /// The assistant message, if any.
    pub message: Option<Message>,
    /// The requested calls.
    pub calls: Vec<ToolCall>,
    /// The end of the turn, when this is its last step.
    pub end: Option<TurnEnd>,
}

/// Stores `step`.
pub(crate) async fn record_step(store: &PgStore, step: &NewStep) -> RepoResult<RecordedStep> {
    let count = usize::from(step.reasoning.is_some())
        + usize::from(step.message.is_some())
        + step.tool_calls.len();
    if count == 0 {
        // Nothing to insert: at most the end of the turn.
        return Ok(RecordedStep {
            rows: Vec::new(),
            turn: match &step.end {
                Some(end) => Some(
                    store
                        .finish_turn(step.turn_id, end.status, end.error.as_deref())
                        .await?,
                ),
                None => None,
            },
        });
    }
    let prepared = prepare(step);
    store
        .writer()
        .submit("recording a model step", |reply| {
            Job::RecordStep(Box::new(prepared), reply)
        })
        .await
}

/// The rows of `step` (at least one), each `seq` holding its place in the step.
pub(crate) fn prepare(step: &NewStep) -> PreparedStep {
    let at = now();
    let mut place = 0_i64;
    let mut take = || {
        place += 1;
        place
    };
    // `seq` holds the place until the statement returns the base.
    let think = step.reasoning.as_deref().map(|text| ThinkBlock {
        id: ThinkBlockId::new(),
        conversation_id: step.conversation_id,
        turn_id: step.turn_id,
        seq: take(),
        content: pg_text(text).into_owned(),
        created_at: at,
    });
    let message = step.message.as_ref().map(|m| Message {
        id: MessageId::new(),
        conversation_id: step.conversation_id,
        turn_id: step.turn_id,
        seq: take(),
        role: Role::Assistant,
        content: pg_text(&m.content).into_owned(),
        token_count: m.token_count,
        created_at: at,
        replaced_by: None,
        is_edited: false,
        attachments: Vec::new(),
    });
    let calls: Vec<ToolCall> = step
        .tool_calls
        .iter()
        .map(|call| ToolCall {
            id: ToolCallId::new(),
            conversation_id: step.conversation_id,
            turn_id: step.turn_id,
            seq: take(),
            call_id: pg_text(&call.call_id).into_owned(),
            tool_name: pg_text(&call.tool_name).into_owned(),
            arguments: pg_text(&call.arguments).into_owned(),
            result: None,
            status: ToolCallStatus::Running,
            token_count: call.token_count,
            started_at: at,
            completed_at: None,
        })
        .collect();
    PreparedStep {
        conversation_id: step.conversation_id,
        turn_id: step.turn_id,
        at,
        think,
        message,
        calls,
        end: step.end.as_ref().map(|end| TurnEnd {
            status: end.status,
            error: end.error.as_deref().map(|e| pg_text(e).into_owned()),
            cut: end.cut,
        }),
    }
}
