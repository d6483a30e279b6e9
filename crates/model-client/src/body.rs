//! The JSON body of a chat request, serialized straight from the [`ModelRequest`]
//! (no intermediate `serde_json::Value` tree: building one cloned every message of
//! the history once more per model step, and dropping it cost as much).
//!
//! The output is byte for byte what a `serde_json::Value` of the same request gives:
//! object keys in sorted order (`serde_json` without `preserve_order` sorts them), an
//! assistant message's empty `content` sent as `null` when it carries tool calls.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use smallebot_application::ports::{ModelMessage, ModelRequest, ModelToolCall, ToolSchema};

use crate::body_parts::Parts;

/// The whole streaming request body for `model`.
pub(crate) struct RequestBody<'a> {
    /// The model name sent.
    pub(crate) model: &'a str,
    /// The request.
    pub(crate) request: &'a ModelRequest,
    /// `reasoning_effort`, for models that reason when asked.
    pub(crate) reasoning_effort: Option<&'a str>,
}

impl Serialize for RequestBody<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tools = &self.request.tools;
        let mut map = serializer.serialize_map(None)?;
        if let Some(max_tokens) = self.request.max_tokens {
            map.serialize_entry("max_tokens", &max_tokens)?;
        }
        map.serialize_entry(
            "messages",
            &Messages {
                system: &self.request.system,
                messages: &self.request.messages,
            },
        )?;
        map.serialize_entry("model", self.model)?;
        if let Some(effort) = self.reasoning_effort {
            map.serialize_entry("reasoning_effort", effort)?;
        }
        map.serialize_entry("stream", &true)?;
        map.serialize_entry("stream_options", &IncludeUsage)?;
        if !tools.is_empty() {
            map.serialize_entry("tools", &Tools(tools))?;
        }
        map.end()
    }
}

/// The `tools` array of a request.
struct Tools<'a>(&'a [ToolSchema]);

/// The `tools` array of a request as JSON text, exactly as sent (its tokens count
/// toward the context).
pub fn tools_json(tools: &[ToolSchema]) -> String {
    serde_json::to_string(&Tools(tools)).unwrap_or_default()
}

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(Tool))
    }
}

/// `{"include_usage": true}`
struct IncludeUsage;

impl Serialize for IncludeUsage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("include_usage", &true)?;
        map.end()
    }
}

/// The system prompt (when not empty), then the messages.
struct Messages<'a> {
    system: &'a str,
    messages: &'a [ModelMessage],
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let system = usize::from(!self.system.is_empty());
        let mut seq = serializer.serialize_seq(Some(self.messages.len() + system))?;
        if system == 1 {
            seq.serialize_element(&Text {
                role: "system",
                content: self.system,
            })?;
        }
        for message in self.messages {
            seq.serialize_element(&Message(message))?;
        }
        seq.end()
    }
}

/// `{"content": …, "role": …}`
struct Text<'a> {
    role: &'a str,
    content: &'a str,
}

impl Serialize for Text<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("content", self.content)?;
        map.serialize_entry("role", self.role)?;
        map.end()
    }
}

/// One message as sent.
struct Message<'a>(&'a ModelMessage);

impl Serialize for Message<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            ModelMessage::User { content, parts } if parts.is_empty() => Text {
                role: "user",
                content,
            }
            .serialize(serializer),
            ModelMessage::User { content, parts } => {
                // With attachments: content parts, the text first.
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry(
                    "content",
                    &Parts {
                        text: content,
                        parts,
                    },
                )?;
                map.serialize_entry("role", "user")?;
                map.end()
            }
            ModelMessage::Assistant {
                content,
                tool_calls,
            } if tool_calls.is_empty() => Text {
                role: "assistant",
                content,
            }
            .serialize(serializer),
            ModelMessage::Assistant {
                content,
                tool_calls,
            } => {
                let mut map = serializer.serialize_map(Some(3))?;
                // Only tool calls: the content is null, as OpenAI sends it.
                map.serialize_entry("content", &Some(content).filter(|c| !c.is_empty()))?;
                map.serialize_entry("role", "assistant")?;
                map.serialize_entry("tool_calls", &ToolCalls(tool_calls))?;
                map.end()
            }
            ModelMessage::Tool { call_id, content } => {
                let mut map = serializer.serialize_map(Some(3))?;
                map.serialize_entry("content", content)?;
                map.serialize_entry("role", "tool")?;
                map.serialize_entry("tool_call_id", call_id)?;
                map.end()
            }
        }
    }
}

/// The `tool_calls` of an assistant message.
struct ToolCalls<'a>(&'a [ModelToolCall]);

impl Serialize for ToolCalls<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(ToolCall))
    }
}

/// `{"function": {"arguments", "name"}, "id", "type": "function"}`
struct ToolCall<'a>(&'a ModelToolCall);

impl Serialize for ToolCall<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let call = self.0;
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("function", &CallFunction(call))?;
        map.serialize_entry("id", &call.call_id)?;
        map.serialize_entry("type", "function")?;
        map.end()
    }
}

struct CallFunction<'a>(&'a ModelToolCall);

impl Serialize for CallFunction<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("arguments", &self.0.arguments)?;
        map.serialize_entry("name", &self.0.name)?;
        map.end()
    }
}

/// `{"function": {"description", "name", "parameters"}, "type": "function"}`
struct Tool<'a>(&'a ToolSchema);

impl Serialize for Tool<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("function", &ToolFunction(self.0))?;
        map.serialize_entry("type", "function")?;
        map.end()
    }
}

struct ToolFunction<'a>(&'a ToolSchema);

impl Serialize for ToolFunction<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tool = self.0;
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("description", &tool.description)?;
        map.serialize_entry("name", &tool.name)?;
        map.serialize_entry("parameters", &tool.parameters)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use smallebot_application::ports::{ModelPart, RequestPurpose};

    /// The body as a `serde_json::Value` tree, built the straightforward way.
    fn reference(model: &str, request: &ModelRequest) -> Value {
        let mut messages = Vec::new();
        if !request.system.is_empty() {
            messages.push(json!({"role": "system", "content": request.system}));
        }
        for m in &request.messages {
            messages.push(match m {
                ModelMessage::User { content, parts } if parts.is_empty() => {
                    json!({"role": "user", "content": content})
                }
                ModelMessage::User { content, parts } => {
                    let mut sent: Vec<Value> = (!content.is_empty())
                        .then(|| json!({"type": "text", "text": content}))
                        .into_iter()
                        .collect();
                    sent.extend(parts.iter().map(|p| match p {
                        ModelPart::Text { text } => json!({"type": "text", "text": text}),
                        ModelPart::Image { data_url } => {
                            json!({"type": "image_url", "image_url": {"url": data_url}})
                        }
                    }));
                    json!({"role": "user", "content": sent})
                }
                ModelMessage::Assistant {
                    content,
                    tool_calls,
                } if tool_calls.is_empty() => json!({"role": "assistant", "content": content}),
                ModelMessage::Assistant {
                    content,
                    tool_calls,
                } => json!({
                    "role": "assistant",
                    "content": if content.is_empty() { Value::Null } else { json!(content) },
                    "tool_calls": tool_calls.iter().map(|c| json!({
                        "id": c.call_id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    })).collect::<Vec<_>>(),
                }),
                ModelMessage::Tool { call_id, content } => {
                    json!({"role": "tool", "tool_call_id": call_id, "content": content})
                }
            });
        }
        let mut body = json!({
            "model": model,
            "messages": messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if !request.tools.is_empty() {
            body["tools"] = json!(request.tools.iter().map(|t| json!({
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
            })).collect::<Vec<_>>());
        }
        body
    }

    fn call(id: &str) -> ModelToolCall {
        ModelToolCall {
            call_id: id.into(),
            name: "ReadFile".into(),
            arguments: "{\"path\":\"a \\\"b\\\".txt\"}".into(),
        }
    }

    #[test]
    fn body_is_byte_for_byte_the_value_tree() {
        let tools = vec![ToolSchema {
            name: "ReadFile".into(),
            description: "Reads a file.\nKeeps \"quotes\".".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        }];
        let messages = vec![
            ModelMessage::user("héllo \u{1}\n"),
            ModelMessage::User {
                content: "see these".into(),
                parts: vec![
                    ModelPart::Text {
                        text: "Attached file a.txt (1 B):\n```\na\n```".into(),
                    },
                    ModelPart::Image {
                        data_url: "data:image/png;base64,iVBORw0KGgo=".into(),
                    },
                ],
            },
            ModelMessage::Assistant {
                content: String::new(),
                tool_calls: vec![call("a"), call("b")],
            },
            ModelMessage::Tool {
                call_id: "a".into(),
                content: "result".into(),
            },
            ModelMessage::Assistant {
                content: "Let me look.".into(),
                tool_calls: vec![call("c")],
            },
            ModelMessage::Assistant {
                content: "Done.".into(),
                tool_calls: Vec::new(),
            },
            ModelMessage::Assistant {
                content: String::new(),
                tool_calls: Vec::new(),
            },
        ];
        for (system, tools) in [("You help.", tools.clone()), ("", Vec::new())] {
            let tools: std::sync::Arc<[ToolSchema]> = tools.into();
            let request = ModelRequest {
                purpose: RequestPurpose::Chat,
                system: system.into(),
                messages: messages.clone(),
                tools,
                thinking: false,
                model: None,
                max_tokens: None,
                billing: None,
            };
            let body = RequestBody {
                model: "m",
                request: &request,
                reasoning_effort: None,
            };
            assert_eq!(
                serde_json::to_string(&body).unwrap(),
                reference("m", &request).to_string()
            );
            let thinking = RequestBody {
                reasoning_effort: Some("high"),
                ..body
            };
            let mut expected = reference("m", &request);
            expected["reasoning_effort"] = "high".into();
            assert_eq!(
                serde_json::to_string(&thinking).unwrap(),
                expected.to_string()
            );
            let bounded = ModelRequest {
                max_tokens: Some(500),
                ..request.clone()
            };
            let mut expected = reference("m", &bounded);
            expected["max_tokens"] = 500.into();
            let body = RequestBody {
                request: &bounded,
                ..body
            };
            assert_eq!(serde_json::to_string(&body).unwrap(), expected.to_string());
        }
    }
}
