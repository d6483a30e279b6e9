//! An error object a server sent — as an event inside a stream or as an error body it
//! wrote in its own shape — read as the server wrote it, and whether another attempt
//! can pass.
//!
//! The shapes read: `{"error": {"message", "type", "code"}}` (OpenAI; llama.cpp, whose
//! `code` is the HTTP status as a number; vLLM; Ollama's OpenAI-compatible endpoint)
//! and `{"error": "text"}` (Ollama's own).

use serde_json::Value;
use smallebot_application::ports::{ModelError, ModelErrorKind};

/// Longest part of a server's message quoted.
const QUOTED_CHARS: usize = 300;

/// An error object a server sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServerError {
    /// The server's message, verbatim (whitespace runs made one space, cut at 300).
    pub(crate) message: String,
    /// Its `type`, if any (`server_error`, `exceed_context_size_error`, …).
    pub(crate) kind: Option<String>,
    /// Its `code` as text: a word (`context_length_exceeded`) or an HTTP status.
    pub(crate) code: Option<String>,
}

impl ServerError {
    /// The error object of `json`, if it is one (`{"error": …}`).
    pub(crate) fn read(json: &Value) -> Option<Self> {
        json.get("error").and_then(Self::of_value)
    }

    /// The error object itself (the value of `error`), if it is one.
    pub(crate) fn of_value(error: &Value) -> Option<Self> {
        match error {
            Value::String(text) => Some(Self::new(text, None, None)),
            Value::Object(map) => {
                let text = |key: &str| match map.get(key) {
                    Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
                    Some(Value::Number(n)) => Some(n.to_string()),
                    _ => None,
                };
                let message = text("message").unwrap_or_else(|| "no message".to_owned());
                Some(Self::new(&message, text("type"), text("code")))
            }
            _ => None,
        }
    }

    /// The error object of a body's text, if it is one.
    pub(crate) fn read_text(body: &str) -> Option<Self> {
        serde_json::from_str::<Value>(body.trim())
            .ok()
            .as_ref()
            .and_then(Self::read)
    }

    fn new(message: &str, kind: Option<String>, code: Option<String>) -> Self {
        let flat = message.split_whitespace().collect::<Vec<_>>().join(" ");
        let message =
            smallebot_core::rules::truncation::truncate_with_marker(&flat, QUOTED_CHARS, "…")
                .into_owned();
        Self {
            message,
            kind,
            code,
        }
    }

    /// What kind of failure it is: the request is too long for the server's context, it
    /// was refused (4xx, an invalid request), rate limited, or the server failed.
    pub(crate) fn kind(&self) -> ModelErrorKind {
        let kind = self.kind.as_deref().unwrap_or("").to_ascii_lowercase();
        let status = self.code.as_deref().and_then(|c| c.parse::<u16>().ok());
        if is_context_overflow(self.code.as_deref(), &self.message)
            || kind == "exceed_context_size_error"
        {
            ModelErrorKind::ContextLengthExceeded
        } else if status == Some(429) || kind.starts_with("rate_limit") {
            ModelErrorKind::RateLimited
        } else if status.is_some_and(|s| (400..500).contains(&s))
            || [
                "invalid_request_error",
                "badrequesterror",
                "bad_request",
                "not_found_error",
                "authentication_error",
                "permission_error",
            ]
            .contains(&kind.as_str())
        {
            ModelErrorKind::Rejected
        } else {
            ModelErrorKind::Server
        }
    }

    /// Whether sending the same request again may pass: not when it is too long or
    /// refused.
    pub(crate) fn retryable(&self) -> bool {
        !matches!(
            self.kind(),
            ModelErrorKind::ContextLengthExceeded | ModelErrorKind::Rejected
        )
    }

    /// The message quoted as the server wrote it, with its type when it gave one.
    pub(crate) fn quoted(&self) -> String {
        match &self.kind {
            Some(kind) => format!("\"{}\" ({kind})", self.message),
            None => format!("\"{}\"", self.message),
        }
    }

    /// A [`ModelError`] for people: where it came from (`when`, e.g. "ended its answer
    /// with an error"), the server's words, and what to do when there is something.
    pub(crate) fn to_model_error(&self, base_url: &str, when: &str) -> ModelError {
        let kind = self.kind();
        let hint = match kind {
            ModelErrorKind::ContextLengthExceeded => {
                " — the request does not fit the server's context: compress the conversation \
                 (/compact), give the server a larger context (llama.cpp: -c, fewer slots with \
                 -np) or lower contextWindow in models.json"
            }
            ModelErrorKind::Rejected => {
                " — the server refused this request; sending it again \
                                         will not help"
            }
            _ => "",
        };
        ModelError::new(kind, format!("{base_url} {when}: {}{hint}", self.quoted()))
    }
}

/// Whether an error's code or message says the request is too long for the model.
pub(crate) fn is_context_overflow(code: Option<&str>, message: &str) -> bool {
    let lower = message.to_lowercase();
    code == Some("context_length_exceeded")
        || lower.contains("maximum context length")
        || lower.contains("context length exceeded")
        || lower.contains("context window")
        || lower.contains("too many tokens")
        // llama.cpp: mid-answer ("Context size has been exceeded.") and before it
        // ("request (424 tokens) exceeds the available context size (256 tokens)").
        || lower.contains("context size has been exceeded")
        || lower.contains("exceeds the available context size")
        // Ollama: "input length exceeds the context length".
        || lower.contains("exceeds the context length")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn error_objects_of_each_server_are_read_and_judged() {
        use ModelErrorKind as K;
        let cases = [
            // llama.cpp, mid-stream with slots sharing the context (recorded).
            (
                json!({"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}),
                "Context size has been exceeded.",
                K::ContextLengthExceeded,
            ),
            // llama.cpp, a prompt longer than a slot (recorded, HTTP 400).
            (
                json!({"error":{"code":400,"message":"request (424 tokens) exceeds the available context size (256 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":424,"n_ctx":256}}),
                "request (424 tokens) exceeds the available context size (256 tokens), try increasing it",
                K::ContextLengthExceeded,
            ),
            (
                json!({"error":{"code":500,"message":"Compute error.","type":"server_error"}}),
                "Compute error.",
                K::Server,
            ),
            // OpenAI, in a stream.
            (
                json!({"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}),
                "The server had an error while processing your request.",
                K::Server,
            ),
            // vLLM.
            (
                json!({"error":{"object":"error","message":"This model's maximum context length is 2048 tokens.","type":"BadRequestError","param":null,"code":400}}),
                "This model's maximum context length is 2048 tokens.",
                K::ContextLengthExceeded,
            ),
            (
                json!({"error":{"object":"error","message":"Invalid tool_choice","type":"BadRequestError","code":400}}),
                "Invalid tool_choice",
                K::Rejected,
            ),
            // Ollama's OpenAI-compatible endpoint, and its own API.
            (
                json!({"error":{"message":"model runner has unexpectedly stopped","type":"api_error","param":null,"code":null}}),
                "model runner has unexpectedly stopped",
                K::Server,
            ),
            (
                json!({"error":"input length exceeds the context length"}),
                "input length exceeds the context length",
                K::ContextLengthExceeded,
            ),
            (
                json!({"error":{"message":"slow down","type":"rate_limit_error"}}),
                "slow down",
                K::RateLimited,
            ),
        ];
        for (json, message, kind) in cases {
            let error = ServerError::read(&json).unwrap();
            assert_eq!(error.message, message, "{json}");
            assert_eq!(error.kind(), kind, "{json}");
            assert_eq!(
                error.retryable(),
                matches!(kind, K::Server | K::RateLimited),
                "{json}"
            );
        }
        for not_an_error in [
            json!({"choices":[]}),
            json!({"error": null}),
            json!({"error": 3}),
        ] {
            assert_eq!(ServerError::read(&not_an_error), None, "{not_an_error}");
        }
        assert_eq!(ServerError::read_text("{not json"), None);
    }

    #[test]
    fn the_model_error_quotes_the_server() {
        let error = ServerError::read(&json!({"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}})).unwrap();
        let e = error.to_model_error("http://127.0.0.1:8080/v1", "ended its answer with an error");
        assert_eq!(e.kind, ModelErrorKind::ContextLengthExceeded);
        assert!(
            e.message.starts_with(
                "http://127.0.0.1:8080/v1 ended its answer with an error: \"Context size has been \
                 exceeded.\" (server_error) — the request does not fit"
            ),
            "{}",
            e.message
        );
    }

    #[test]
    fn recognises_context_overflow_messages() {
        let cases = [
            (Some("context_length_exceeded"), "whatever", true),
            (
                None,
                "This model's maximum context length is 8192 tokens",
                true,
            ),
            (None, "prompt exceeds context window", true),
            (None, "Context size has been exceeded.", true),
            (None, "Invalid API key", false),
        ];
        for (code, message, expected) in cases {
            assert_eq!(is_context_overflow(code, message), expected, "{message}");
        }
    }
}
