//! Recording one model step — reasoning, assistant message, requested tool calls and,
//! for the last step, the end of the turn — atomically, as one batched write.
//!
//! The step is one JSON document: `at`, `conversation`, `turn` (also as `subject`),
//! `think_id`,
//! `reasoning` (null: none), `message_id`, `message` (null: none), `message_tokens`,
//! `calls` (an array of `{id, call_id, name, arguments, tokens}`), `status` (null: the
//! turn goes on) and `error`. The batch's statements (`tx/batch.rs`) insert nothing
//! for an absent part, and every row they return starts with a tag naming its
//! statement. Steps of several turns that queued for the write connection share one
//! transaction.

use std::collections::HashMap;

use crate::database::SqliteStore;
use crate::rows::{self, corrupt};
use crate::tx::{DirectRow, Job, JobKind, direct_storage, now};
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, Message, NewStep, RecordedStep, Role, ThinkBlock, ToolCall, ToolCallStatus,
};
use smallebot_core::ids::{MessageId, ThinkBlockId, ToolCallId};
use smallebot_core::repository::RepoResult;

/// Stores `step` in one transaction.
pub(crate) async fn record_step(store: &SqliteStore, step: &NewStep) -> RepoResult<RecordedStep> {
    const ACTION: &str = "recording a model step";
    let (at, at_text) = now();
    let think_id = ThinkBlockId::new();
    let message_id = MessageId::new();
    let call_ids: Vec<ToolCallId> = step.tool_calls.iter().map(|_| ToolCallId::new()).collect();
    let calls: Vec<serde_json::Value> = step
        .tool_calls
        .iter()
        .zip(&call_ids)
        .map(|(call, id)| {
            serde_json::json!({
                "id": id.to_string(),
                "call_id": call.call_id,
                "name": call.tool_name,
                "arguments": call.arguments,
                "tokens": call.token_count,
            })
        })
        .collect();
    let document = serde_json::json!({
        "at": at_text,
        "conversation": step.conversation_id.to_string(),
        "turn": step.turn_id.to_string(),
        "subject": step.turn_id.to_string(),
        "think_id": think_id.to_string(),
        "reasoning": step.reasoning,
        "message_id": message_id.to_string(),
        "message": step.message.as_ref().map(|m| m.content.as_str()),
        "message_tokens": step.message.as_ref().map_or(0, |m| m.token_count),
        "calls": calls,
        "status": step.end.as_ref().map(|e| e.status.as_str()),
        "error": step.end.as_ref().and_then(|e| e.error.as_deref()),
    });
    let mut keys = vec![think_id.to_string(), message_id.to_string()];
    keys.extend(call_ids.iter().map(ToString::to_string));
    if step.end.is_some() {
        keys.push(format!("turn:{}", step.turn_id));
    }
    let returned = store
        .writer()
        .run_batched(Job {
            kind: JobKind::Step,
            doc: document.to_string(),
            keys,
        })
        .await
        .map_err(|err| {
            if err.is_unique_violation() {
                RepositoryError::Conflict(
                    "a tool call id of this step is already used in its turn".into(),
                )
            } else {
                direct_storage(ACTION)(err)
            }
        })?;

    let mut think_seq = None;
    let mut message_seq = None;
    let mut call_seqs = HashMap::with_capacity(call_ids.len());
    let mut turn = None;
    for row in &returned {
        match tag(row)?.as_str() {
            "think" => think_seq = Some(seq(row)?),
            "message" => message_seq = Some(seq(row)?),
            "call" => {
                let id = row.text_at(2)?;
                call_seqs.insert(id, seq(row)?);
            }
            "turn" => turn = Some(rows::turn(row)?),
            other => return Err(corrupt("step result", format!("unknown tag '{other}'"))),
        }
    }
    let written =
        usize::from(think_seq.is_some()) + usize::from(message_seq.is_some()) + call_seqs.len();
    let expected = usize::from(step.reasoning.is_some())
        + usize::from(step.message.is_some())
        + step.tool_calls.len();
    if written != expected {
        // Nothing matched the conversation id: the transaction wrote nothing.
        return Err(RepositoryError::not_found(
            "conversation",
            step.conversation_id,
        ));
    }
    if step.end.is_some() && turn.is_none() {
        return Err(RepositoryError::not_found("turn", step.turn_id));
    }

    let mut recorded = Vec::with_capacity(expected);
    if let (Some(content), Some(seq)) = (&step.reasoning, think_seq) {
        recorded.push(HistoryRow::ThinkBlock(ThinkBlock {
            id: think_id,
            conversation_id: step.conversation_id,
            turn_id: step.turn_id,
            seq,
            content: content.clone(),
            created_at: at,
        }));
    }
    if let (Some(message), Some(seq)) = (&step.message, message_seq) {
        recorded.push(HistoryRow::Message(Message {
            id: message_id,
            conversation_id: step.conversation_id,
            turn_id: step.turn_id,
            seq,
            role: Role::Assistant,
            content: message.content.clone(),
            token_count: message.token_count,
            created_at: at,
            replaced_by: None,
            is_edited: false,
        }));
    }
    for (call, id) in step.tool_calls.iter().zip(call_ids) {
        let seq = call_seqs
            .get(&id.to_string())
            .copied()
            .ok_or_else(|| corrupt("step result", format!("tool call {id} not returned")))?;
        recorded.push(HistoryRow::ToolCall(ToolCall {
            id,
            conversation_id: step.conversation_id,
            turn_id: step.turn_id,
            seq,
            call_id: call.call_id.clone(),
            tool_name: call.tool_name.clone(),
            arguments: call.arguments.clone(),
            result: None,
            status: ToolCallStatus::Running,
            token_count: call.token_count,
            started_at: at,
            completed_at: None,
        }));
    }
    Ok(RecordedStep {
        rows: recorded,
        turn,
    })
}

fn tag(row: &DirectRow) -> RepoResult<String> {
    row.text_at(0)
}

fn seq(row: &DirectRow) -> RepoResult<i64> {
    row.int_at(1)
}
