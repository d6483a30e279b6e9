//! `ReadConversationData`: the current conversation's stored timeline as JSON.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};
use smallebot_core::entities::{Conversation, HistoryRow};
use smallebot_core::repository::Store;
use smallebot_core::rules::truncation::truncate_tool_result;
use smallebot_core::time::format_timestamp;

use super::names::READ_CONVERSATION_DATA;
use crate::tools::typed::{self, TypedTool};

const NAME: &str = READ_CONVERSATION_DATA;

/// Rows per page unless the model asks for another `limit`.
pub const CONVERSATION_DATA_DEFAULT_ROWS: u64 = 100;
/// The largest `limit`.
pub const CONVERSATION_DATA_MAX_ROWS: u64 = 500;

/// Returns one page of the current conversation's timeline as one JSON object:
///
/// ```json
/// {"conversationId": "…", "title": "…", "createdAt": "…",
///  "compressedThroughSeq": 12,
///  "totalRows": 240, "offset": 0, "returned": 37, "nextOffset": 37,
///  "messages":  [{"seq", "role", "content", "createdAt", "edited"}],
///  "toolCalls": [{"seq", "callId", "tool", "arguments", "result", "status", "startedAt"}],
///  "reasoning": [{"seq", "content", "createdAt"}],
///  "toolCounts": {"ExecuteCommand": 3}}
/// ```
///
/// The timeline's rows (messages, tool calls, reasoning; one `seq` order) are paged by
/// `offset` and `limit`; `nextOffset` is `null` on the last page. A page is always
/// whole, valid JSON no longer than the tool's result limit (`toolResultMaxLength`, or
/// its `toolResultMaxLengthByTool` entry), so the history never cuts it: rows that do
/// not fit move to the next page, and long texts are cut (head and tail kept) to a
/// quarter of the limit. `toolCounts` counts the whole conversation. `result` is
/// `null` while a call runs. `compressedThroughSeq` is the last row summarized by
/// context compression (`null` if never compressed); those rows are still listed.
/// Messages replaced by an edit are left out: their turn's output was discarded with
/// them (the edited version, with `"edited": true`, is listed).
pub struct ReadConversationData {
    store: Arc<dyn Store>,
    page_chars: usize,
}

impl ReadConversationData {
    /// The tool's name (its key in `toolResultMaxLengthByTool`).
    pub const NAME: &'static str = NAME;

    /// The tool over `store`; every page it returns is at most `page_chars` characters.
    #[must_use]
    pub fn new(store: Arc<dyn Store>, page_chars: usize) -> Self {
        Self { store, page_chars }
    }

    /// The page of `rows` (the timeline, replaced messages already left out) from
    /// `offset`, at most `limit` rows, fitted into the page size.
    fn page(
        &self,
        conversation: &Conversation,
        rows: &[&HistoryRow],
        offset: usize,
        limit: usize,
    ) -> String {
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for row in rows {
            if let HistoryRow::ToolCall(c) = row {
                *counts.entry(c.tool_name.as_str()).or_default() += 1;
            }
        }
        let start = offset.min(rows.len());
        let mut end = start.saturating_add(limit).min(rows.len());
        let mut field_chars = (self.page_chars / 4).max(MIN_FIELD_CHARS);
        loop {
            let text = document(conversation, rows, start, end, field_chars, &counts).to_string();
            if text.chars().count() <= self.page_chars {
                return text;
            }
            if end > start + 1 {
                // Fewer rows: halve the surplus quickly, then one at a time.
                end = start + ((end - start) / 2).max(1);
            } else if field_chars > MIN_FIELD_CHARS {
                field_chars /= 2;
            } else {
                // Not even one row with minimal texts fits: return no rows, moving on.
                end = start;
                let text = document(conversation, rows, start, end, field_chars, &counts);
                return text.to_string();
            }
        }
    }

    async fn read(&self, args: TimelineArgs, context: &ToolContext) -> Result<String, String> {
        let id = context.conversation_id.ok_or_else(no_context)?;
        let offset = args.offset.unwrap_or(0);
        let limit = args.limit.unwrap_or(CONVERSATION_DATA_DEFAULT_ROWS);
        if !(1..=CONVERSATION_DATA_MAX_ROWS).contains(&limit) {
            return Err(format!(
                "Error: {NAME}: limit must be between 1 and {CONVERSATION_DATA_MAX_ROWS}, got {limit}."
            ));
        }
        let failed = |e| format!("Error: {NAME}: reading the conversation failed: {e}");
        let conversation = self
            .store
            .get_conversation(id)
            .await
            .map_err(failed)?
            .ok_or_else(|| format!("Error: {NAME}: conversation {id} no longer exists."))?;
        let stored = self.store.rows_after(id, 0).await.map_err(failed)?;
        let rows: Vec<&HistoryRow> = stored
            .iter()
            .filter(|r| !matches!(r, HistoryRow::Message(m) if m.replaced_by.is_some()))
            .collect();
        let as_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        Ok(self.page(&conversation, &rows, as_usize(offset), as_usize(limit)))
    }
}

/// Texts are never cut below this many characters.
const MIN_FIELD_CHARS: usize = 40;

/// The JSON document of `rows[start..end]` with texts cut to `field_chars`.
fn document(
    conversation: &Conversation,
    rows: &[&HistoryRow],
    start: usize,
    end: usize,
    field_chars: usize,
    counts: &BTreeMap<&str, u64>,
) -> Value {
    let cut = |text: &str| truncate_tool_result(text, field_chars).into_owned();
    let mut messages = Vec::new();
    let mut calls = Vec::new();
    let mut reasoning = Vec::new();
    for row in &rows[start..end] {
        match row {
            HistoryRow::Message(m) => messages.push(json!({
                "seq": m.seq,
                "role": m.role.as_str(),
                "content": cut(&m.content),
                "createdAt": format_timestamp(&m.created_at),
                "edited": m.is_edited,
            })),
            HistoryRow::ToolCall(c) => calls.push(json!({
                "seq": c.seq,
                "callId": c.call_id,
                "tool": c.tool_name,
                "arguments": cut(&c.arguments),
                "result": c.result.as_deref().map(cut),
                "status": c.status.as_str(),
                "startedAt": format_timestamp(&c.started_at),
            })),
            HistoryRow::ThinkBlock(b) => reasoning.push(json!({
                "seq": b.seq,
                "content": cut(&b.content),
                "createdAt": format_timestamp(&b.created_at),
            })),
        }
    }
    json!({
        "conversationId": conversation.id.to_string(),
        "title": conversation.title,
        "createdAt": format_timestamp(&conversation.created_at),
        "compressedThroughSeq": conversation.compressed_through_seq,
        "totalRows": rows.len(),
        "offset": start,
        "returned": end - start,
        "nextOffset": (end < rows.len()).then_some(end),
        "messages": messages,
        "toolCalls": calls,
        "reasoning": reasoning,
        "toolCounts": counts,
    })
}

/// The answer outside a conversation.
fn no_context() -> String {
    format!("Error: {NAME} has no conversation context: it only works inside a conversation turn.")
}

/// `ReadConversationData`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TimelineArgs {
    /// First row to return (0 = the oldest). Default 0.
    #[serde(default, deserialize_with = "typed::lenient_u64")]
    #[schemars(with = "Option<u64>")]
    pub offset: Option<u64>,
    /// Most rows to return (fewer when they do not fit the page). Default 100.
    #[serde(default, deserialize_with = "typed::lenient_u64")]
    #[schemars(with = "Option<u64>", range(min = 1, max = CONVERSATION_DATA_MAX_ROWS))]
    pub limit: Option<u64>,
}

#[async_trait]
impl TypedTool for ReadConversationData {
    type Args = TimelineArgs;

    fn name(&self) -> &str {
        NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn description(&self) -> String {
        "Read this conversation's stored timeline as JSON, a page at a time: \
         messages, tool calls (long texts cut), reasoning, and how often \
         each tool was called (toolCounts). Rows share one seq order. \
         totalRows and nextOffset say how to continue: call again with \
         offset = nextOffset until it is null."
            .into()
    }

    fn unavailable(&self, context: &ToolContext) -> Option<ToolOutcome> {
        context
            .conversation_id
            .is_none()
            .then(|| ToolOutcome::error(no_context()))
    }

    async fn run(&self, args: TimelineArgs, context: &ToolContext) -> ToolOutcome {
        match self.read(args, context).await {
            Ok(text) => ToolOutcome::ok(text),
            Err(text) => ToolOutcome::error(text),
        }
    }
}
