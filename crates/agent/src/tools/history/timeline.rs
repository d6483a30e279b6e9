//! `ReadConversationData`: the current conversation's stored timeline as JSON.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolSchema, ToolTraits};
use smallebot_core::entities::{Conversation, HistoryRow};
use smallebot_core::repository::Store;
use smallebot_core::rules::truncation::truncate_tool_result;
use smallebot_core::time::format_timestamp;

use crate::tools::args::Args;
use crate::tools::registry::Tool;

pub(super) const NAME: &str = "ReadConversationData";

/// Returns the current conversation's timeline as one JSON object:
///
/// ```json
/// {"conversationId": "…", "title": "…", "createdAt": "…",
///  "compressedThroughSeq": 12,
///  "messages":  [{"seq", "role", "content", "createdAt", "edited"}],
///  "toolCalls": [{"seq", "callId", "tool", "arguments", "result", "status", "startedAt"}],
///  "reasoning": [{"seq", "content", "createdAt"}],
///  "toolCounts": {"ExecuteCommand": 3}}
/// ```
///
/// Each list is in `seq` order (the `seq`s interleave into one timeline). Tool
/// arguments and results are cut to `toolResultMaxLength` characters (head and tail
/// kept, as in the model's history); `result` is `null` while a call runs.
/// `compressedThroughSeq` is the last row summarized by context compression (`null` if
/// never compressed); those rows are still listed. Messages replaced by an edit are
/// left out: their turn's output was discarded with them, so they are no longer part of
/// the conversation (the edited version, with `"edited": true`, is listed).
pub struct ReadConversationData {
    store: Arc<dyn Store>,
    tool_result_max_length: usize,
}

impl ReadConversationData {
    /// The tool over `store`, cutting tool texts to `tool_result_max_length` characters.
    #[must_use]
    pub fn new(store: Arc<dyn Store>, tool_result_max_length: usize) -> Self {
        Self {
            store,
            tool_result_max_length,
        }
    }

    /// The JSON document for `conversation` and its rows.
    fn document(&self, conversation: &Conversation, rows: &[HistoryRow]) -> Value {
        let cut = |text: &str| truncate_tool_result(text, self.tool_result_max_length).into_owned();
        let mut messages = Vec::new();
        let mut calls = Vec::new();
        let mut reasoning = Vec::new();
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for row in rows {
            match row {
                HistoryRow::Message(m) if m.replaced_by.is_some() => {}
                HistoryRow::Message(m) => messages.push(json!({
                    "seq": m.seq,
                    "role": m.role.as_str(),
                    "content": m.content,
                    "createdAt": format_timestamp(&m.created_at),
                    "edited": m.is_edited,
                })),
                HistoryRow::ToolCall(c) => {
                    *counts.entry(c.tool_name.as_str()).or_default() += 1;
                    calls.push(json!({
                        "seq": c.seq,
                        "callId": c.call_id,
                        "tool": c.tool_name,
                        "arguments": cut(&c.arguments),
                        "result": c.result.as_deref().map(cut),
                        "status": c.status.as_str(),
                        "startedAt": format_timestamp(&c.started_at),
                    }));
                }
                HistoryRow::ThinkBlock(b) => reasoning.push(json!({
                    "seq": b.seq,
                    "content": b.content,
                    "createdAt": format_timestamp(&b.created_at),
                })),
            }
        }
        json!({
            "conversationId": conversation.id.to_string(),
            "title": conversation.title,
            "createdAt": format_timestamp(&conversation.created_at),
            "compressedThroughSeq": conversation.compressed_through_seq,
            "messages": messages,
            "toolCalls": calls,
            "reasoning": reasoning,
            "toolCounts": counts,
        })
    }

    async fn run(&self, context: &ToolContext) -> Result<String, String> {
        let id = context.conversation_id.ok_or_else(|| {
            format!("Error: {NAME} has no conversation context: it only works inside a conversation turn.")
        })?;
        let failed = |e| format!("Error: {NAME}: reading the conversation failed: {e}");
        let conversation = self
            .store
            .get_conversation(id)
            .await
            .map_err(failed)?
            .ok_or_else(|| format!("Error: {NAME}: conversation {id} no longer exists."))?;
        let rows = self.store.rows_after(id, 0).await.map_err(failed)?;
        Ok(self.document(&conversation, &rows).to_string())
    }
}

#[async_trait]
impl Tool for ReadConversationData {
    fn name(&self) -> &str {
        NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: NAME.into(),
            description: "Read this conversation's full stored timeline as JSON: messages, tool \
                          calls (arguments and results cut to the configured length), \
                          reasoning, and how often each tool was called (toolCounts). Rows \
                          share one seq order. Takes no arguments."
                .into(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        }
    }

    async fn call(&self, _args: &Args, context: &ToolContext) -> ToolOutcome {
        match self.run(context).await {
            Ok(text) => ToolOutcome::ok(text),
            Err(text) => ToolOutcome::error(text),
        }
    }
}
