//! The JSON received from an OpenAI-compatible endpoint (what is sent: `body.rs`).

use serde::Deserialize;

/// One streamed chunk (only the fields we read; everything else is ignored).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Chunk {
    /// Choices (empty in the final usage chunk).
    #[serde(default)]
    pub choices: Vec<ChunkChoice>,
    /// Usage, in the final chunk when asked for.
    #[serde(default)]
    pub usage: Option<WireUsage>,
    /// llama.cpp's timings of the request (in its last chunk): how much of the prompt
    /// came from its cache.
    #[serde(default)]
    pub timings: Option<Timings>,
    /// An error object sent inside the stream (llama.cpp, OpenAI, vLLM, Ollama): the
    /// stream ends with it. Read by [`crate::server_error::ServerError::read`].
    #[serde(default)]
    pub error: Option<serde_json::Value>,
}

/// llama.cpp's `timings` object (only the fields read).
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct Timings {
    /// Prompt tokens taken from the slot's cache.
    #[serde(default)]
    pub cache_n: Option<u64>,
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
    /// What the prompt tokens were made of (OpenAI, vLLM, recent llama.cpp).
    #[serde(default)]
    pub prompt_tokens_details: Option<PromptTokensDetails>,
    /// What the completion tokens were made of (OpenAI's reasoning models, vLLM).
    #[serde(default)]
    pub completion_tokens_details: Option<CompletionTokensDetails>,
}

/// `usage.completion_tokens_details`.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct CompletionTokensDetails {
    /// Completion tokens spent reasoning.
    #[serde(default)]
    pub reasoning_tokens: Option<u64>,
}

/// `usage.prompt_tokens_details`.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct PromptTokensDetails {
    /// Prompt tokens served from the provider's prompt cache.
    #[serde(default)]
    pub cached_tokens: Option<u64>,
}
