//! # smallebot-testkit
//!
//! A real HTTP server on 127.0.0.1 (random port) that speaks the OpenAI chat completions
//! protocol, scripted per test and recording every request. Tests, benchmarks and the
//! offline demo point an OpenAI-compatible client at [`TestModel::base_url`].
//!
//! - One [`ScriptedResponse`] renders as an SSE stream of `chat.completion.chunk`s
//!   ending in `data: [DONE]` when the request has `"stream": true`, or as one
//!   `chat.completion` object otherwise.
//! - Answers carry text, reasoning (`reasoning_content`) and tool calls whose arguments
//!   arrive in pieces, optionally interleaved between calls; a usage chunk is sent when
//!   the request sets `stream_options.include_usage`.
//! - Faults: 429 with `Retry-After`, any 5xx, 400 `context_length_exceeded`, delays
//!   before and between chunks, streams cut after N events, a malformed event, an
//!   error object as a stream's last event.
//! - Streams recorded from real servers ([`fixtures`]) replay verbatim
//!   ([`ScriptedResponse::recorded`]).
//! - A response can wait for a [`Gate`] the test opens: before its headers
//!   ([`ScriptedResponse::hold_until`]) or after N events of its stream
//!   ([`ScriptedResponse::pause_after_chunks`]), so a test sees a request in flight
//!   for as long as it needs, however slow the machine.
//! - Responses come from side routes for the requests they match
//!   ([`TestModel::answer_when`]), then a FIFO queue, then a function of the request
//!   ([`TestModel::respond_with`]); with none of them the server answers 500
//!   "smallebot-testkit: no scripted response left for request #N".
//! - With the `browser` feature, `browser` drives headless Chromium over the DevTools
//!   Protocol (the web page's tests and the page benchmark).
//! - [`reference_servers`] finds the official MCP reference servers, installed from
//!   the pinned lock file beside this crate, for tests against them.
//! - [`scenarios`] scripts the demo conversation (a `GetCurrentTime` tool call, an
//!   answer, a title).
//! - [`otlp::OtlpReceiver`] is a small OpenTelemetry trace receiver (OTLP/HTTP,
//!   protobuf or JSON) keeping every span it gets.
//!
//! ```no_run
//! use std::time::Duration;
//! use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let model = TestModel::start().await?;
//! model.push(ScriptedResponse::tool_calls([ToolCallSpec::new("call_1", "GetCurrentTime", "{}")]));
//! model.push(ScriptedResponse::text("It is noon.").chunk_size(3).usage(12, 5));
//! model.push(ScriptedResponse::rate_limited(1));
//! model.respond_with(|req| {
//!     ScriptedResponse::text(format!("echo {}", req.last_user_text().unwrap_or_default()))
//! });
//!
//! // ... point the client under test at `model.base_url()` and run it ...
//!
//! let requests = model.wait_for_requests(2, Duration::from_secs(5)).await?;
//! assert_eq!(requests[0].model(), Some("gpt-4o-mini"));
//! model.shutdown().await;
//! # Ok(())
//! # }
//! ```

#[cfg(feature = "browser")]
pub mod browser;
mod error;
pub mod files;
pub mod fixtures;
mod gate;
pub mod mcp;
pub mod mcp_asking;
mod mcp_catalog;
pub mod mcp_many;
pub mod mcp_oauth;
pub mod otlp;
pub mod postgres;
mod record;
pub mod reference_servers;
mod respond;
pub mod scenarios;
mod script;
mod server;
mod sse;

pub use error::TestkitError;
pub use gate::Gate;
pub use record::{RecordedRequest, message_text};
pub use script::{
    Completion, Cut, DEFAULT_CHUNK_SIZE, ResponseKind, ScriptedResponse, ToolCallSpec, Usage,
    error_body,
};
pub use server::TestModel;
