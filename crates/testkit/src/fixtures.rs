//! Streams and bodies recorded from real model servers, for tests of what those
//! servers really send (`fixtures/` in this crate; how each was recorded is in
//! `fixtures/README.md`). Replay a stream with [`crate::ScriptedResponse::recorded`].

/// llama.cpp `llama-server` (Gemma 3 270M, one slot): an answer stopped by its
/// `max_tokens` — `finish_reason: "length"`, then usage with
/// `prompt_tokens_details.cached_tokens` and llama.cpp's `timings` (`cache_n`).
pub const LLAMA_CPP_LENGTH: &str = include_str!("../fixtures/llama-cpp/length.sse");

/// llama.cpp `llama-server` (two slots sharing a 256-token context): an answer that
/// started, then the error event `{"error":{"code":500,"message":"Context size has
/// been exceeded.","type":"server_error"}}` ending the stream (no `[DONE]`).
pub const LLAMA_CPP_CONTEXT_EXCEEDED: &str =
    include_str!("../fixtures/llama-cpp/context-exceeded.sse");

/// llama.cpp `llama-server` (Gemma 3 270M, `-c 4096 -np 1`): its `GET /props`, which
/// says the context per slot (`default_generation_settings.n_ctx`: 4096) and the slots
/// (`total_slots`: 1).
pub const LLAMA_CPP_PROPS: &str = include_str!("../fixtures/llama-cpp/props.json");

/// llama.cpp `llama-server`: the HTTP 400 body of a prompt longer than a slot's
/// context (`exceed_context_size_error`, with a numeric `code`).
pub const LLAMA_CPP_EXCEEDS_CONTEXT_BODY: &str =
    include_str!("../fixtures/llama-cpp/exceeds-context.json");

/// llama.cpp `llama-server` (Gemma 3 270M, one slot): the answer to a summary request
/// whose conversation's earlier answers were themselves control tokens — nothing but
/// `<|im_end|>\n<|im_start|>user\n` over and over.
pub const LLAMA_CPP_SUMMARY_CONTROL_TOKENS: &str =
    include_str!("../fixtures/llama-cpp/summary-control-tokens.sse");

/// llama.cpp `llama-server` (Gemma 3 270M, one slot): the answer to a summary request,
/// cut at its `max_tokens: 200` — the request's own text echoed, then again and again
/// between `<|im_end|>` tokens.
pub const LLAMA_CPP_SUMMARY_REPETITION: &str =
    include_str!("../fixtures/llama-cpp/summary-repetition.sse");
