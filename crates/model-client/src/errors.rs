//! async-openai errors → model errors that say what failed and what to do.

use async_openai::error::OpenAIError;
use smallebot_application::ports::{ModelError, ModelErrorKind};

use crate::endpoint::ChatEndpoint;
use crate::server_error::{ServerError, is_context_overflow};

/// Longest part of an error body quoted in a message.
const QUOTED_ERROR_CHARS: usize = 200;

/// What an error body says, readably: an OpenAI-style or other JSON body gives its
/// message (`error.message`, `error`, `message`, `detail`, `msg`), an HTML page is
/// named as such, plain text is quoted; anything is cut to 200 characters.
pub(crate) fn readable_error(body: &str) -> String {
    let body = body.trim();
    let said = match serde_json::from_str::<serde_json::Value>(body) {
        Ok(json) => json_message(&json)
            .unwrap_or_else(|| format!("an error body without a message ({} bytes)", body.len())),
        Err(_) if body.starts_with('<') => format!("an HTML error page ({} bytes)", body.len()),
        Err(_) if body.is_empty() => "no error message".to_owned(),
        Err(_) => body.to_owned(),
    };
    let flat = said.split_whitespace().collect::<Vec<_>>().join(" ");
    smallebot_core::rules::truncation::truncate_with_marker(&flat, QUOTED_ERROR_CHARS, "…")
        .into_owned()
}

/// The message of a JSON error body, if it has one where servers put it.
fn json_message(json: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    match json {
        Value::String(text) if !text.trim().is_empty() => Some(text.clone()),
        Value::Object(map) => ["error", "message", "detail", "msg"]
            .iter()
            .filter_map(|key| map.get(*key))
            .find_map(json_message),
        // FastAPI-style `detail: [{msg, …}]`.
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(json_message).collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        _ => None,
    }
}

/// Maps a failed request to a [`ModelError`] for `endpoint`.
pub(crate) fn map_error(err: OpenAIError, endpoint: &ChatEndpoint, attempts: u32) -> ModelError {
    let base_url = endpoint.base_url.as_str();
    match err {
        OpenAIError::ApiError(response) => {
            let status = response.status_code.as_u16();
            let mut api = response.api_error;
            api.message = readable_error(&api.message);
            if is_context_overflow(api.code.as_deref(), &api.message)
                || api.r#type.as_deref() == Some("exceed_context_size_error")
            {
                return ModelError::new(
                    ModelErrorKind::ContextLengthExceeded,
                    format!(
                        "the request is longer than the model's context window: {}",
                        api.message
                    ),
                );
            }
            match status {
                429 => ModelError::new(
                    ModelErrorKind::RateLimited,
                    format!(
                        "rate limited by {base_url} (429) after {attempts} attempts: {}",
                        api.message
                    ),
                ),
                401 | 403 => ModelError::new(
                    ModelErrorKind::Rejected,
                    format!(
                        "{base_url} refused the credentials ({status}): {}. Check the API key in \
                         {}.",
                        api.message,
                        endpoint.api_key_env.as_deref().map_or_else(
                            || "OPENAI_API_KEY (or the apiKeyEnv variable of models.json)"
                                .to_owned(),
                            |var| format!("the environment variable {var}")
                        )
                    ),
                ),
                404 => ModelError::new(
                    ModelErrorKind::Rejected,
                    format!(
                        "{base_url} has no model `{}` or no chat completions endpoint (404): {}. \
                         Check `model` and `baseUrl` in models.json (or SMALLEBOT_MODEL and \
                         OPENAI_BASE_URL).",
                        endpoint.model, api.message
                    ),
                ),
                s if s >= 500 => ModelError::new(
                    ModelErrorKind::Server,
                    format!(
                        "{base_url} failed with {status} after {attempts} attempts: {}",
                        api.message
                    ),
                ),
                _ => ModelError::new(
                    ModelErrorKind::Rejected,
                    format!(
                        "{base_url} rejected the request ({status}): {}",
                        api.message
                    ),
                ),
            }
        }
        OpenAIError::Reqwest(e) if e.is_connect() => ModelError::new(
            ModelErrorKind::Network,
            format!(
                "cannot connect to {base_url} after {attempts} attempts: {e}. Is the server running?"
            ),
        ),
        OpenAIError::Reqwest(e) => ModelError::new(
            ModelErrorKind::Network,
            format!("connection to {base_url} failed: {e}"),
        ),
        // An error body in the server's own shape (llama.cpp's and vLLM's numeric
        // `code`) that async-openai could not read as OpenAI's: read here.
        OpenAIError::JSONDeserialize(e, content) => match ServerError::read_text(&content) {
            Some(error) => error.to_model_error(base_url, "refused the request"),
            None => {
                let snippet: String = content.chars().take(200).collect();
                ModelError::new(
                    ModelErrorKind::Protocol,
                    format!("{base_url} sent a malformed response ({e}): {snippet}"),
                )
            }
        },
        OpenAIError::StreamError(e) => ModelError::new(
            ModelErrorKind::Network,
            format!("the response stream from {base_url} was cut: {e}"),
        ),
        other => ModelError::new(
            ModelErrorKind::Protocol,
            format!("request to {base_url} failed: {other}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::readable_error;

    #[test]
    fn error_bodies_read_as_their_message() {
        let long = "x".repeat(300);
        let cut = format!("{}…", "x".repeat(200));
        let cases = [
            ("The server had an error", "The server had an error"),
            (
                r#"{"error":{"message":"model overloaded","type":"server_error"}}"#,
                "model overloaded",
            ),
            (r#"{"error":"bad gateway"}"#, "bad gateway"),
            (
                r#"{"detail":"Internal Server Error","trace":["a"]}"#,
                "Internal Server Error",
            ),
            (
                r#"{"detail":[{"loc":["body"],"msg":"field required"}]}"#,
                "field required",
            ),
            (
                r#"{"status":500}"#,
                "an error body without a message (14 bytes)",
            ),
            (
                "<html><body>502 Bad Gateway</body></html>",
                "an HTML error page (41 bytes)",
            ),
            ("", "no error message"),
            ("line one\n  line two", "line one line two"),
            (long.as_str(), cut.as_str()),
        ];
        for (body, expected) in cases {
            assert_eq!(readable_error(body), expected, "{body}");
        }
    }
}
