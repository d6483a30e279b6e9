//! The OpenAI-compatible chat model client (OpenAI, Ollama, vLLM, llama.cpp server, …)
//! on async-openai's bring-your-own-types API, so provider extensions such as
//! `reasoning_content` deltas come through.
//!
//! Streaming with `stream_options.include_usage`; retries with exponential backoff and
//! jitter on 429/5xx/connection errors honouring `Retry-After`, at most 4 attempts
//! ([`RetryPolicy`]); a stream idle timeout; cancellation by dropping the future.

mod accumulate;
mod errors;
mod model;
mod retry;
mod unconfigured;
pub(crate) mod wire;

pub use model::{ChatEndpoint, ClientSettings, OpenAiChatModel};
pub use retry::RetryPolicy;
pub use unconfigured::UnconfiguredModel;
