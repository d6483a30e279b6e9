//! Answering an MCP server's request for a completion during a tool call (sampling,
//! `sampling/createMessage`) with the model of the call's conversation — only for a
//! server with `"sampling": true`.
//!
//! The request is billed to the turn whose call asked (and so checked against its
//! budgets by a metering model), the call's tool timeout pauses meanwhile, cancelling
//! the turn cancels it, and only text is answered. Refused, with a message for the
//! server saying why: sampling not enabled, no call running (or calls of several
//! conversations: the request would not say whose turn pays), a call outside a known
//! turn, content other than text, or the model failing.
// Sampling is deprecated by the spec (SEP-2577) and still what servers send.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, Role, SamplingMessage,
    SamplingMessageContentBlock,
};
use smallebot_application::ports::{
    ChatModel, ModelMessage, ModelRequest, RequestBilling, RequestPurpose,
};
use smallebot_core::entities::UsageAccount;
use smallebot_core::rules::budget::projected_prompt_tokens;

use crate::asking::{ActiveCall, Asking};

/// Answers `request` of `server` with `model` (`None`: nothing here can), for the call
/// running on it now.
///
/// # Errors
/// The refusal sent to the server (see the module's documentation).
pub(crate) async fn answer(
    server: &str,
    enabled: bool,
    model: Option<Arc<dyn ChatModel>>,
    asking: &Asking,
    request: CreateMessageRequestParams,
) -> Result<CreateMessageResult, McpError> {
    if !enabled {
        return Err(refusal(format!(
            "sampling is not enabled for MCP server {server}; set \"sampling\": true for it \
             in mcp.json"
        )));
    }
    let Some(model) = model else {
        return Err(refusal(format!(
            "MCP server {server} asked for a completion, but no model answers sampling here"
        )));
    };
    let Some(call) = asking.call_to_ask() else {
        return Err(refusal(format!(
            "MCP server {server} asked for a completion outside its tool calls (or during \
             calls of several conversations): refused, a completion is answered only for \
             the one call that asks, and billed to its turn"
        )));
    };
    let Some(billing) = billing(&call, 0) else {
        return Err(refusal(format!(
            "MCP server {server} asked for a completion during a call whose turn is not \
             known: refused, a completion is billed to the turn that asks"
        )));
    };
    let messages = model_messages(&request.messages).map_err(|kind| {
        refusal(format!(
            "MCP server {server} asked for a completion with {kind} content: only text is \
             answered"
        ))
    })?;
    let system = request.system_prompt.unwrap_or_default();
    let bytes: usize = system.len() + messages.iter().map(message_len).sum::<usize>();
    let model_id = call.requester.as_ref().and_then(|r| r.model.clone());
    let model_request = ModelRequest {
        purpose: RequestPurpose::Sampling,
        system,
        messages,
        tools: Arc::from([]),
        thinking: false,
        model: model_id.clone(),
        max_tokens: Some(request.max_tokens),
        billing: Some(RequestBilling {
            prompt_tokens: projected_prompt_tokens(u64::try_from(bytes).unwrap_or(u64::MAX), false),
            ..billing
        }),
    };
    let _paused = call.clock.pause();
    let response = tokio::select! {
        response = model.complete(&model_request, &|_| {}) => response,
        () = call.cancel.cancelled() => {
            return Err(refusal(format!(
                "MCP server {server}'s completion was cancelled with the turn"
            )));
        }
    };
    let response = response.map_err(|error| {
        refusal(format!(
            "the model could not answer MCP server {server}'s completion: {}",
            error.message
        ))
    })?;
    let mut result = CreateMessageResult::new(
        SamplingMessage::assistant_text(response.text),
        model.model_name(model_id.as_deref()),
    );
    result.stop_reason = Some(
        if response.cut.is_some() {
            "maxTokens"
        } else {
            "endTurn"
        }
        .to_owned(),
    );
    Ok(result)
}

/// Whom the completion is billed to: the user of the call's turn, the turn it bills
/// (its root's inside a sub-agent), as a request outside the turn's steps (step 0),
/// its prompt counted as `prompt_tokens`; `None` when the call's turn is not known.
fn billing(call: &ActiveCall, prompt_tokens: u64) -> Option<RequestBilling> {
    let requester = call.requester.as_ref()?;
    let billed = call.billed_to?;
    Some(RequestBilling {
        account: UsageAccount {
            user_name: requester.user_name.clone(),
            conversation_id: billed.conversation_id,
            turn_id: Some(billed.turn_id),
            sub_conversation_id: call
                .conversation_id
                .filter(|own| *own != billed.conversation_id),
            step: 0,
        },
        prompt_tokens,
    })
}

/// The request's messages for the model; the kind of the first content that is not
/// text, when one is not.
fn model_messages(messages: &[SamplingMessage]) -> Result<Vec<ModelMessage>, &'static str> {
    messages
        .iter()
        .map(|message| {
            let mut text = String::new();
            for block in message.content.clone().into_vec() {
                match block {
                    SamplingMessageContentBlock::Text(part) => text.push_str(&part.text),
                    SamplingMessageContentBlock::Image(_) => return Err("image"),
                    SamplingMessageContentBlock::Audio(_) => return Err("audio"),
                    SamplingMessageContentBlock::ToolUse(_) => return Err("tool use"),
                    SamplingMessageContentBlock::ToolResult(_) => return Err("tool result"),
                    _ => return Err("unknown"),
                }
            }
            Ok(match message.role {
                Role::User => ModelMessage::User {
                    content: text,
                    parts: Vec::new(),
                },
                Role::Assistant => ModelMessage::Assistant {
                    content: text,
                    tool_calls: Vec::new(),
                },
            })
        })
        .collect()
}

/// The text size of a message, for the prompt's estimate.
fn message_len(message: &ModelMessage) -> usize {
    match message {
        ModelMessage::User { content, .. } | ModelMessage::Assistant { content, .. } => {
            content.len()
        }
        _ => 0,
    }
}

/// A refusal the server reads.
fn refusal(message: String) -> McpError {
    McpError::invalid_request(message, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image() -> SamplingMessage {
        serde_json::from_value(serde_json::json!({
            "role": "user",
            "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}
        }))
        .unwrap()
    }

    #[test]
    fn only_text_becomes_the_models_messages() {
        let cases: Vec<(Vec<SamplingMessage>, Result<usize, &str>)> = vec![
            (vec![SamplingMessage::user_text("hi")], Ok(1)),
            (
                vec![
                    SamplingMessage::user_text("hi"),
                    SamplingMessage::assistant_text("hello"),
                    SamplingMessage::user_text("again"),
                ],
                Ok(3),
            ),
            (
                vec![SamplingMessage::user_text("hi"), image()],
                Err("image"),
            ),
        ];
        for (messages, expected) in cases {
            let got = model_messages(&messages).map(|m| m.len());
            assert_eq!(got, expected, "{messages:?}");
        }
        let messages = model_messages(&[
            SamplingMessage::user_text("hi"),
            SamplingMessage::assistant_text("hello"),
        ])
        .unwrap();
        assert!(matches!(&messages[0], ModelMessage::User { content, .. } if content == "hi"));
        assert!(
            matches!(&messages[1], ModelMessage::Assistant { content, .. } if content == "hello")
        );
    }
}
