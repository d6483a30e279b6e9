//! What the test model received: [`RecordedRequest`].

use serde_json::Value;

/// The prefix of a title request's last user message (the service's title prompt).
pub const TITLE_REQUEST_PREFIX: &str = "Generate a short title";

/// One request received on the chat completions route, in arrival order.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// Arrival index, starting at 0.
    pub index: usize,
    /// The request path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// The parsed JSON body (`Value::Null` when the body was not JSON).
    pub body: Value,
    /// The `Authorization` header, e.g. `Bearer sk-test`.
    pub authorization: Option<String>,
    /// All request headers as (lower-case name, value); non-UTF-8 values are skipped.
    pub headers: Vec<(String, String)>,
}

impl RecordedRequest {
    /// The `model` field.
    pub fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }

    /// Whether the request asked for an SSE stream (`"stream": true`).
    pub fn is_streaming(&self) -> bool {
        self.body.get("stream").and_then(Value::as_bool) == Some(true)
    }

    /// Whether the request asked for a usage chunk (`stream_options.include_usage`).
    pub fn include_usage(&self) -> bool {
        self.body
            .pointer("/stream_options/include_usage")
            .and_then(Value::as_bool)
            == Some(true)
    }

    /// The `messages` array (empty when missing).
    pub fn messages(&self) -> &[Value] {
        array(&self.body, "messages")
    }

    /// The `tools` array (empty when missing).
    pub fn tools(&self) -> &[Value] {
        array(&self.body, "tools")
    }

    /// The names of the offered tools (`tools[].function.name`).
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools()
            .iter()
            .filter_map(|tool| tool.pointer("/function/name").and_then(Value::as_str))
            .collect()
    }

    /// The last message, whatever its role.
    pub fn last_message(&self) -> Option<&Value> {
        self.messages().last()
    }

    /// The role of the last message (`system`, `user`, `assistant`, `tool`).
    pub fn last_role(&self) -> Option<&str> {
        self.last_message()?.get("role").and_then(Value::as_str)
    }

    /// How many tool results came since the last `user` message: the steps a scripted
    /// turn has taken so far.
    pub fn tool_results_since_user(&self) -> usize {
        self.messages()
            .iter()
            .rev()
            .take_while(|m| m["role"] != "user")
            .filter(|m| m["role"] == "tool")
            .count()
    }

    /// The text of the last `user` message (text parts joined when content is an array).
    pub fn last_user_text(&self) -> Option<String> {
        self.messages()
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .map(message_text)
    }

    /// The content parts of the last `user` message (empty when its content is plain
    /// text): `{"type": "text", "text": …}`, `{"type": "image_url", "image_url": {"url":
    /// …}}`.
    pub fn last_user_parts(&self) -> Vec<Value> {
        self.messages()
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    }

    /// Whether this is SmallEBot asking for a conversation's title (its last user
    /// message starts with [`TITLE_REQUEST_PREFIX`]).
    pub fn asks_for_title(&self) -> bool {
        self.last_user_text()
            .is_some_and(|text| text.trim_start().starts_with(TITLE_REQUEST_PREFIX))
    }
}

/// The text of a message: its `content` string, or its text parts joined.
pub fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

fn array<'a>(body: &'a Value, key: &str) -> &'a [Value] {
    body.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(body: Value) -> RecordedRequest {
        RecordedRequest {
            index: 0,
            path: "/v1/chat/completions".into(),
            body,
            authorization: None,
            headers: Vec::new(),
        }
    }

    #[test]
    fn helpers_read_the_body() {
        let req = request(json!({
            "model": "m",
            "stream": true,
            "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {"name": "GetCurrentTime"}}],
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                {"role": "tool", "tool_call_id": "c", "content": "12:00"}
            ]
        }));
        assert_eq!(req.model(), Some("m"));
        assert!(req.is_streaming());
        assert!(req.include_usage());
        assert_eq!(req.tool_names(), vec!["GetCurrentTime"]);
        assert_eq!(req.last_user_text().as_deref(), Some("ab"));
        assert_eq!(req.last_role(), Some("tool"));
        assert_eq!(req.messages().len(), 3);
    }

    #[test]
    fn helpers_tolerate_missing_fields() {
        let req = request(Value::Null);
        assert_eq!(req.model(), None);
        assert!(!req.is_streaming());
        assert!(!req.include_usage());
        assert!(req.messages().is_empty());
        assert_eq!(req.last_user_text(), None);
    }
}
