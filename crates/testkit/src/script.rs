//! What the test model answers: [`ScriptedResponse`] and its parts.
//!
//! A scripted response is written once and rendered either as an SSE stream (when the
//! request says `"stream": true`) or as one `chat.completion` JSON object.

use std::time::Duration;

use serde_json::{Value, json};

use crate::gate::Gate;

/// Default number of characters per streamed text, reasoning or argument piece.
pub const DEFAULT_CHUNK_SIZE: usize = 8;

/// One tool call the model makes: id, function name and the JSON arguments as text.
///
/// When streamed, the first delta of a call carries `index`, `id`, `type: "function"`,
/// `function.name` and `function.arguments: ""`; the arguments then arrive in pieces of
/// the response's [`ScriptedResponse::chunk_size`] characters, each delta carrying only
/// `index` and `function.arguments`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallSpec {
    /// The call id, e.g. `call_1`.
    pub id: String,
    /// The function name, e.g. `GetCurrentTime`.
    pub name: String,
    /// The arguments exactly as the model sends them (normally a JSON object as text).
    pub arguments: String,
    /// Whether the first delta (the one with id and name) also carries the first piece of
    /// the arguments instead of an empty string.
    pub first_piece_in_header: bool,
}

impl ToolCallSpec {
    /// A tool call with the given id, function name and arguments text.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            first_piece_in_header: false,
        }
    }

    /// Send the first piece of the arguments in the same delta as the id and name.
    #[must_use]
    pub fn first_piece_in_header(mut self) -> Self {
        self.first_piece_in_header = true;
        self
    }
}

/// Token counts reported in the `usage` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// `usage.prompt_tokens`.
    pub prompt_tokens: u64,
    /// `usage.completion_tokens`.
    pub completion_tokens: u64,
    /// `usage.prompt_tokens_details.cached_tokens`: prompt tokens the server took from
    /// its prompt cache (left out when `None`).
    pub cached_tokens: Option<u64>,
    /// `usage.completion_tokens_details.reasoning_tokens`: completion tokens spent
    /// reasoning (left out when `None`).
    pub reasoning_tokens: Option<u64>,
}

impl Usage {
    /// The `usage` JSON object, with `total_tokens` the sum of both counts.
    pub fn to_json(self) -> Value {
        let mut usage = json!({
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        });
        if let Some(cached) = self.cached_tokens {
            usage["prompt_tokens_details"] = json!({ "cached_tokens": cached });
        }
        if let Some(reasoning) = self.reasoning_tokens {
            usage["completion_tokens_details"] = json!({ "reasoning_tokens": reasoning });
        }
        usage
    }
}

/// A successful assistant answer: reasoning, text and tool calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Reasoning text, streamed before the text.
    pub reasoning: Option<String>,
    /// The field the reasoning is sent in: `reasoning_content` (DeepSeek, vLLM,
    /// llama.cpp) by default, or `reasoning` (OpenRouter, some Ollama versions).
    pub reasoning_field: &'static str,
    /// Answer text (`content`), streamed after the reasoning.
    pub text: String,
    /// Tool calls, streamed after the text.
    pub tool_calls: Vec<ToolCallSpec>,
    /// Interleave the argument deltas of several tool calls (round robin).
    pub interleaved: bool,
    /// Characters per streamed piece (at least 1).
    pub chunk_size: usize,
    /// `finish_reason`; `None` means `"tool_calls"` when there are tool calls, else `"stop"`.
    pub finish_reason: Option<String>,
    /// Scripted usage; `None` means an estimate of about four characters per token.
    pub usage: Option<Usage>,
}

impl Completion {
    /// The finish reason that will be sent.
    pub fn effective_finish_reason(&self) -> String {
        match &self.finish_reason {
            Some(reason) => reason.clone(),
            None if self.tool_calls.is_empty() => "stop".to_owned(),
            None => "tool_calls".to_owned(),
        }
    }
}

/// How a response is shaped on the wire: an answer or an HTTP error.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResponseKind {
    /// HTTP 200 with a completion (streamed or not).
    Completion(Completion),
    /// An HTTP error status with a JSON body.
    HttpError {
        /// The status code, e.g. 429.
        status: u16,
        /// The JSON body, normally `{"error": {...}}`.
        body: Value,
    },
    /// HTTP 200 with an SSE body recorded from a real server, replayed event by event
    /// as it was recorded (streaming or not; see [`crate::fixtures`]).
    Recorded {
        /// The SSE events, each with its `data: ` line(s) and the blank line ending it.
        events: Vec<String>,
    },
}

/// How a stream ends early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cut {
    /// After this many SSE events the connection is dropped mid-body (an incomplete
    /// chunked body, as when a proxy or the provider dies).
    Abort(usize),
    /// After this many SSE events the body ends cleanly, but without `data: [DONE]`.
    End(usize),
}

/// One scripted answer of the test model, built with the constructors and builder
/// methods below. Builder methods about completions do nothing on HTTP errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptedResponse {
    /// The answer or error.
    pub kind: ResponseKind,
    /// Extra response headers (name, value).
    pub headers: Vec<(String, String)>,
    /// Delay before the status line and headers are sent.
    pub delay_headers: Duration,
    /// Delay before the first chunk (streaming) or before the response (otherwise).
    pub delay_before: Duration,
    /// Delay between two SSE events (streaming only).
    pub delay_between: Duration,
    /// End the stream early.
    pub cut: Option<Cut>,
    /// Insert `data: {not json` as the SSE event at this position (0-based).
    pub malformed_at: Option<usize>,
    /// Send `data: {body}` as the SSE event at this position (0-based) and end the
    /// stream there, as servers end a stream with an error.
    pub error_event_at: Option<(usize, Value)>,
    /// Wait for this gate (after `delay_headers`) before the status line and headers.
    pub hold: Option<Gate>,
    /// After this many SSE events, wait for the gate before the next (streaming only).
    pub pause: Option<(usize, Gate)>,
}

impl ScriptedResponse {
    fn completion(completion: Completion) -> Self {
        Self {
            kind: ResponseKind::Completion(completion),
            headers: Vec::new(),
            delay_headers: Duration::ZERO,
            delay_before: Duration::ZERO,
            delay_between: Duration::ZERO,
            cut: None,
            malformed_at: None,
            error_event_at: None,
            hold: None,
            pause: None,
        }
    }

    /// An answer consisting of `text`, finishing with `"stop"`.
    pub fn text(text: impl Into<String>) -> Self {
        Self::completion(Completion {
            reasoning: None,
            reasoning_field: "reasoning_content",
            text: text.into(),
            tool_calls: Vec::new(),
            interleaved: false,
            chunk_size: DEFAULT_CHUNK_SIZE,
            finish_reason: None,
            usage: None,
        })
    }

    /// An answer consisting of tool calls only, finishing with `"tool_calls"`.
    pub fn tool_calls(calls: impl IntoIterator<Item = ToolCallSpec>) -> Self {
        Self::text("").with_tool_calls(calls)
    }

    /// An HTTP error with the given status and JSON body.
    pub fn http_error(status: u16, body: Value) -> Self {
        Self {
            kind: ResponseKind::HttpError { status, body },
            ..Self::text("")
        }
    }

    /// HTTP 429 with `Retry-After: {retry_after_secs}` and an OpenAI rate-limit error body.
    pub fn rate_limited(retry_after_secs: u64) -> Self {
        Self::http_error(
            429,
            error_body(
                &format!("Rate limit reached. Please try again in {retry_after_secs}s."),
                "requests",
                None,
                Some("rate_limit_exceeded"),
            ),
        )
        .with_header("retry-after", retry_after_secs.to_string())
    }

    /// A server error (any status, normally 5xx) with an OpenAI-style error body.
    pub fn server_error(status: u16) -> Self {
        Self::http_error(
            status,
            error_body(
                "The server had an error while processing your request. Sorry about that!",
                "server_error",
                None,
                None,
            ),
        )
    }

    /// HTTP 400 `context_length_exceeded`, as OpenAI answers a prompt that is too long.
    pub fn context_length_exceeded() -> Self {
        Self::http_error(
            400,
            error_body(
                "This model's maximum context length is 128000 tokens. However, your messages \
                 resulted in 131072 tokens. Please reduce the length of the messages.",
                "invalid_request_error",
                Some("messages"),
                Some("context_length_exceeded"),
            ),
        )
    }

    /// A stream recorded from a real server (`sse`: its body, events separated by a
    /// blank line), replayed event by event; the delays, gates and cuts above apply.
    pub fn recorded(sse: &str) -> Self {
        let events = sse
            .split("\n\n")
            .filter(|event| !event.trim().is_empty())
            .map(|event| format!("{}\n\n", event.trim_start_matches('\n')))
            .collect();
        Self {
            kind: ResponseKind::Recorded { events },
            ..Self::text("")
        }
    }

    fn map_completion(mut self, f: impl FnOnce(&mut Completion)) -> Self {
        if let ResponseKind::Completion(completion) = &mut self.kind {
            f(completion);
        }
        self
    }

    /// Stream `reasoning` as `reasoning_content` deltas before the text (non-streaming:
    /// `message.reasoning_content`).
    #[must_use]
    pub fn with_reasoning(self, reasoning: impl Into<String>) -> Self {
        let reasoning = reasoning.into();
        self.map_completion(|c| c.reasoning = Some(reasoning))
    }

    /// Send the reasoning in the `reasoning` field instead of `reasoning_content`.
    #[must_use]
    pub fn reasoning_in_field_reasoning(self) -> Self {
        self.map_completion(|c| c.reasoning_field = "reasoning")
    }

    /// Add tool calls after the text (text and tool calls in one response).
    #[must_use]
    pub fn with_tool_calls(self, calls: impl IntoIterator<Item = ToolCallSpec>) -> Self {
        self.map_completion(|c| c.tool_calls.extend(calls))
    }

    /// Interleave the argument deltas of several tool calls: all headers first, then
    /// call 0 piece, call 1 piece, call 0 piece, ...
    #[must_use]
    pub fn interleaved(self) -> Self {
        self.map_completion(|c| c.interleaved = true)
    }

    /// Characters per streamed text, reasoning or arguments piece (0 counts as 1).
    #[must_use]
    pub fn chunk_size(self, chars: usize) -> Self {
        self.map_completion(|c| c.chunk_size = chars.max(1))
    }

    /// Override the `finish_reason` (e.g. `"length"`).
    #[must_use]
    pub fn finish_reason(self, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        self.map_completion(|c| c.finish_reason = Some(reason))
    }

    /// Report these token counts in `usage` (`total_tokens` is their sum).
    #[must_use]
    pub fn usage(self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        self.map_completion(|c| {
            c.usage = Some(Usage {
                prompt_tokens,
                completion_tokens,
                cached_tokens: None,
                reasoning_tokens: None,
            });
        })
    }

    /// Report these token counts in `usage`, `cached` of the prompt's as taken from the
    /// server's prompt cache (`prompt_tokens_details.cached_tokens`).
    #[must_use]
    pub fn usage_cached(self, prompt_tokens: u64, completion_tokens: u64, cached: u64) -> Self {
        self.map_completion(|c| {
            c.usage = Some(Usage {
                prompt_tokens,
                completion_tokens,
                cached_tokens: Some(cached),
                reasoning_tokens: None,
            });
        })
    }

    /// Report every token count the OpenAI protocol knows: `prompt_tokens`, of them
    /// `cached` from the server's cache, `completion_tokens`, of them `reasoning` spent
    /// reasoning (`completion_tokens_details.reasoning_tokens`).
    #[must_use]
    pub fn usage_detailed(self, prompt: u64, cached: u64, completion: u64, reasoning: u64) -> Self {
        self.map_completion(|c| {
            c.usage = Some(Usage {
                prompt_tokens: prompt,
                completion_tokens: completion,
                cached_tokens: Some(cached),
                reasoning_tokens: Some(reasoning),
            });
        })
    }

    /// Add a response header. An invalid name or value makes the server answer 500 with
    /// an explanation instead.
    #[must_use]
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Wait this long before sending the status line and headers (any response).
    #[must_use]
    pub fn delay_headers(mut self, delay: Duration) -> Self {
        self.delay_headers = delay;
        self
    }

    /// Hold the response before its status line and headers until the test opens
    /// `gate` (or the server shuts down).
    #[must_use]
    pub fn hold_until(mut self, gate: &Gate) -> Self {
        self.hold = Some(gate.clone());
        self
    }

    /// Stream the first `events` SSE events, then wait for `gate` before the rest
    /// (streaming only): the test sees a turn mid-answer for as long as it needs.
    #[must_use]
    pub fn pause_after_chunks(mut self, events: usize, gate: &Gate) -> Self {
        self.pause = Some((events, gate.clone()));
        self
    }

    /// Wait this long before the first chunk. Streaming: headers go out at once, then
    /// the body stays silent for `delay` (use hours to simulate a hung stream for idle
    /// timeouts). Non-streaming and errors: the whole response waits.
    #[must_use]
    pub fn delay_before(mut self, delay: Duration) -> Self {
        self.delay_before = delay;
        self
    }

    /// Wait this long between two SSE events (streaming only).
    #[must_use]
    pub fn delay_between(mut self, delay: Duration) -> Self {
        self.delay_between = delay;
        self
    }

    /// Drop the connection after `events` SSE events, mid-body, never sending
    /// `data: [DONE]`. Non-streaming: the JSON body is cut in the middle.
    #[must_use]
    pub fn cut_after_chunks(mut self, events: usize) -> Self {
        self.cut = Some(Cut::Abort(events));
        self
    }

    /// End the body cleanly after `events` SSE events, without `data: [DONE]`.
    /// Non-streaming: the JSON body is cut in the middle.
    #[must_use]
    pub fn end_after_chunks(mut self, events: usize) -> Self {
        self.cut = Some(Cut::End(events));
        self
    }

    /// Send the error object `body` as the SSE event at position `position` (0-based)
    /// and end the stream there, without `data: [DONE]` — as llama.cpp, OpenAI, vLLM
    /// and Ollama end a stream that failed after it started (streaming only).
    #[must_use]
    pub fn error_event_at(mut self, position: usize, body: Value) -> Self {
        self.error_event_at = Some((position, body));
        self
    }

    /// Insert the malformed event `data: {not json` at SSE position `position` (0-based;
    /// the other events are all still sent). Non-streaming: the body is `{not json`.
    #[must_use]
    pub fn malformed_chunk_at(mut self, position: usize) -> Self {
        self.malformed_at = Some(position);
        self
    }
}

/// An OpenAI-style error body: `{"error": {message, type, param, code}}`.
pub fn error_body(message: &str, kind: &str, param: Option<&str>, code: Option<&str>) -> Value {
    json!({
        "error": {
            "message": message,
            "type": kind,
            "param": param,
            "code": code,
        }
    })
}
