//! The JSON sent to and received from an OpenAI-compatible endpoint.

use serde::Deserialize;
use serde_json::{Value, json};
use smallebot_application::ports::{ModelMessage, ModelRequest, ToolSchema};

/// The `tools` array of a request.
#[must_use]
pub fn tools_json(tools: &[ToolSchema]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    }
                })
            })
            .collect(),
    )
}

/// One message as sent.
#[must_use]
pub fn message_json(message: &ModelMessage) -> Value {
    match message {
        ModelMessage::User { content } => json!({"role": "user", "content": content}),
        ModelMessage::Assistant {
            content,
            tool_calls,
        } => {
            let mut m = json!({"role": "assistant", "content": content});
            if !tool_calls.is_empty() {
                if content.is_empty() {
                    m["content"] = Value::Null;
                }
                m["tool_calls"] = Value::Array(
                    tool_calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.call_id,
                                "type": "function",
                                "function": {"name": c.name, "arguments": c.arguments},
                            })
                        })
                        .collect(),
                );
            }
            m
        }
        ModelMessage::Tool { call_id, content } => {
            json!({"role": "tool", "tool_call_id": call_id, "content": content})
        }
    }
}

/// The whole streaming request body for `model`.
#[must_use]
pub fn request_json(model: &str, request: &ModelRequest) -> Value {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    messages.extend(request.messages.iter().map(message_json));
    let mut body = json!({
        "model": model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !request.tools.is_empty() {
        body["tools"] = tools_json(&request.tools);
    }
    body
}

/// One streamed chunk (only the fields we read; everything else is ignored).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Chunk {
    /// Choices (empty in the final usage chunk).
    #[serde(default)]
    pub choices: Vec<ChunkChoice>,
    /// Usage, in the final chunk when asked for.
    #[serde(default)]
    pub usage: Option<WireUsage>,
}

/// One choice of a chunk.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ChunkChoice {
    /// What is new.
    #[serde(default)]
    pub delta: Option<Delta>,
    /// Set on the last content chunk.
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// The new content of a chunk.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Delta {
    /// Answer text.
    #[serde(default)]
    pub content: Option<String>,
    /// Reasoning text (DeepSeek, vLLM, llama.cpp).
    #[serde(default)]
    pub reasoning_content: Option<String>,
    /// Reasoning text (OpenRouter, some Ollama versions).
    #[serde(default)]
    pub reasoning: Option<String>,
    /// Tool call pieces.
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCallDelta>>,
}

/// A piece of one tool call.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ToolCallDelta {
    /// Which call (several may interleave).
    #[serde(default)]
    pub index: Option<usize>,
    /// The call id (first piece).
    #[serde(default)]
    pub id: Option<String>,
    /// Name and argument pieces.
    #[serde(default)]
    pub function: Option<FunctionDelta>,
}

/// Name and argument pieces of a tool call.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct FunctionDelta {
    /// The tool name (first piece).
    #[serde(default)]
    pub name: Option<String>,
    /// A piece of the arguments JSON text.
    #[serde(default)]
    pub arguments: Option<String>,
}

/// Reported usage.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct WireUsage {
    /// Prompt tokens.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Completion tokens.
    #[serde(default)]
    pub completion_tokens: u64,
}
