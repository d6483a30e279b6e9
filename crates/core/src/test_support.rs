//! Test support: single-row writes that no product path uses (the pipeline stores a
//! turn with its message in one step and a model step's rows with
//! [`TurnRepository::record_step`](crate::repository::TurnRepository::record_step)),
//! kept out of [`Store`] so a store implements only what the product needs. Both
//! stores implement it for tests and fixtures that build a timeline row by row.
//! [`Intercepted`] wraps a store so a test can act before any of its calls.

mod intercept;

pub use intercept::{Intercepted, Interceptor};

use async_trait::async_trait;

use crate::entities::{
    HistoryRow, Message, NewMessage, NewStep, NewThinkBlock, NewToolCall, RecordedStep,
    StepToolCall, ThinkBlock, ToolCall, Turn,
};
use crate::error::RepositoryError;
use crate::ids::ConversationId;
use crate::repository::{RepoResult, Store};

/// Row-by-row writes for tests, on top of a [`Store`].
#[async_trait]
pub trait RowFixtures: Store {
    /// Starts a turn (status `running`, no lease, no message), allocating its `seq`.
    async fn start_turn(
        &self,
        conversation_id: ConversationId,
        thinking_mode: bool,
    ) -> RepoResult<Turn>;

    /// Appends a message with the next `seq`.
    async fn append_message(&self, message: &NewMessage) -> RepoResult<Message>;

    /// Inserts a started tool call (status `running`) with the next `seq`: a model
    /// step of that one call.
    async fn append_tool_call(&self, call: &NewToolCall) -> RepoResult<ToolCall> {
        let step = NewStep {
            conversation_id: call.conversation_id,
            turn_id: call.turn_id,
            reasoning: None,
            message: None,
            tool_calls: vec![StepToolCall {
                call_id: call.call_id.clone(),
                tool_name: call.tool_name.clone(),
                arguments: call.arguments.clone(),
                token_count: call.token_count,
            }],
            end: None,
        };
        match only_row(self.record_step(&step).await?)? {
            HistoryRow::ToolCall(recorded) => Ok(recorded),
            other => Err(unexpected_row(&other)),
        }
    }

    /// Appends a reasoning block with the next `seq`: a model step of reasoning only.
    async fn append_think_block(&self, block: &NewThinkBlock) -> RepoResult<ThinkBlock> {
        let step = NewStep {
            conversation_id: block.conversation_id,
            turn_id: block.turn_id,
            reasoning: Some(block.content.clone()),
            message: None,
            tool_calls: Vec::new(),
            end: None,
        };
        match only_row(self.record_step(&step).await?)? {
            HistoryRow::ThinkBlock(recorded) => Ok(recorded),
            other => Err(unexpected_row(&other)),
        }
    }
}

/// The one row a one-row step wrote.
fn only_row(step: RecordedStep) -> RepoResult<HistoryRow> {
    let mut rows = step.rows.into_iter();
    match (rows.next(), rows.next()) {
        (Some(row), None) => Ok(row),
        _ => Err(RepositoryError::Corrupt(
            "a one-row step did not write exactly one row".to_owned(),
        )),
    }
}

fn unexpected_row(row: &HistoryRow) -> RepositoryError {
    RepositoryError::Corrupt(format!("a one-row step wrote a different row: {row:?}"))
}
