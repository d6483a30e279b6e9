//! The OpenAI-compatible chat model client (OpenAI, Ollama, vLLM, llama.cpp server, …)
//! on async-openai's bring-your-own-types API, so provider extensions such as
//! `reasoning_content` deltas come through.
//!
//! Streaming with `stream_options.include_usage`; retries with exponential backoff and
//! jitter on 429/5xx/connection errors honouring `Retry-After` ([`RetryPolicy`]), and of
//! whole requests whose stream broke after it started (`ClientSettings::stream_max_retries`);
//! a stream idle timeout; reasoning from `reasoning_content`, `reasoning` or a leading
//! `<think>` block; cancellation by dropping the future.

mod accumulate;
mod attempt;
mod body;
mod body_parts;
mod endpoint;
mod errors;
mod model;
mod retry;
mod server_error;
mod server_probe;
mod server_windows;
mod think;
mod unconfigured;
mod wire;

pub use endpoint::{ChatEndpoint, ClientSettings, NamedEndpoint, ask_server};
pub use model::OpenAiChatModel;
pub use retry::RetryPolicy;
pub use server_probe::{PROBE_TIMEOUT, ServerKind, ServerReport, probe};
pub use server_windows::ServerWindows;
pub use unconfigured::UnconfiguredModel;

pub(crate) use body::tools_json;
