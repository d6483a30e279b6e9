//! # smallebot-model-client
//!
//! The model client: the application's [`ChatModel`](smallebot_application::ports::ChatModel)
//! port on an OpenAI-compatible chat-completions endpoint — OpenAI itself, or a server
//! on this machine (llama.cpp's `llama-server`, Ollama, vLLM, LM Studio, …). It speaks
//! the chat-completions protocol on async-openai's bring-your-own-types API, so provider
//! extensions such as `reasoning_content` deltas come through, and asks a local server
//! what it serves (its context window, its slots) in that server's own words.
//!
//! Streaming with `stream_options.include_usage`; retries with exponential backoff and
//! jitter on 429/5xx/connection errors honouring `Retry-After` ([`RetryPolicy`]), and of
//! whole requests whose stream broke after it started (`ClientSettings::stream_max_retries`);
//! a stream idle timeout; reasoning from `reasoning_content`, `reasoning` or a leading
//! `<think>` block; cancellation by dropping the future.
//!
//! Where requests go is this crate's own vocabulary ([`ChatEndpoint`],
//! [`NamedEndpoint`], [`ClientSettings`]): the configuration files that say it are read
//! elsewhere (`smallebot-agent`), which converts them into these.

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
mod span;
mod think;
mod wire;

pub use body::tools_json;
pub use endpoint::{ChatEndpoint, ClientSettings, ENV_MODEL_ID, NamedEndpoint, ask_server};
pub use model::OpenAiChatModel;
pub use retry::RetryPolicy;
pub use server_probe::{PROBE_TIMEOUT, ServerKind, ServerReport, probe};
pub use server_windows::ServerWindows;
