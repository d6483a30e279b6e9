//! A model step's rows as the writer stores them ([`PreparedStep`]), built from a
//! [`NewStep`] by [`prepare`]. Both the step's submission (`steps.rs`) and the writer
//! (`write/steps.rs`) use them, so they stand apart from either.

use smallebot_core::entities::{
    Message, NewStep, Role, ThinkBlock, ToolCall, ToolCallStatus, TurnEnd,
};
use smallebot_core::ids::{ConversationId, MessageId, ThinkBlockId, ToolCallId, TurnId};
use smallebot_core::time::Timestamp;

use crate::tx::{now, pg_text};

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
