//! What MCP servers offer besides tools: resources, resource templates and prompts,
//! as typed values ([`McpResource`], [`McpResourceTemplate`], [`McpPrompt`]), read
//! ([`McpResourceContents`]) and got ([`McpPromptMessage`]) through the same connection
//! as the tools, each failure an [`McpRequestError`] naming the server.

use base64::Engine as _;
use smallebot_core::rules::mcp_mentions::resource_file_name;
use smallebot_core::rules::uri_template::uri_template_arguments;

/// A resource a server lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpResource {
    /// The server's name in mcp.json.
    pub server: String,
    /// Its URI, as read.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What the server says it is.
    pub description: Option<String>,
    /// Its MIME type, when known.
    pub mime_type: Option<String>,
}

/// A resource template a server lists (`note://{name}`): its URI with arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpResourceTemplate {
    /// The server's name in mcp.json.
    pub server: String,
    /// The URI template (RFC 6570), e.g. `note://{name}`.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// What the server says it is.
    pub description: Option<String>,
}

impl McpResourceTemplate {
    /// The template's arguments, in order (`{name}` and `{+path}` give `name`, `path`).
    #[must_use]
    pub fn arguments(&self) -> Vec<String> {
        uri_template_arguments(&self.uri_template)
            .into_iter()
            .map(|a| a.name)
            .collect()
    }
}

/// An argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPromptArgument {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Whether the prompt cannot be got without it.
    pub required: bool,
}

/// A prompt a server lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPrompt {
    /// The server's name in mcp.json.
    pub server: String,
    /// Its name on the server.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
    /// Its arguments, in the server's order.
    pub arguments: Vec<McpPromptArgument>,
}

impl McpPrompt {
    /// The required arguments `given` lacks (empty values count as missing), in order.
    #[must_use]
    pub fn missing_arguments(
        &self,
        given: &std::collections::BTreeMap<String, String>,
    ) -> Vec<String> {
        self.arguments
            .iter()
            .filter(|a| a.required && given.get(&a.name).is_none_or(|v| v.trim().is_empty()))
            .map(|a| a.name.clone())
            .collect()
    }
}

/// One part of a resource as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpResourceContents {
    /// Text.
    Text {
        /// The URI of this part.
        uri: String,
        /// Its MIME type, when given.
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary data.
    Blob {
        /// The URI of this part.
        uri: String,
        /// Its MIME type, when given.
        mime_type: Option<String>,
        /// Its decoded size in bytes.
        size: usize,
        /// The data, base64.
        base64: String,
    },
}

impl McpResourceContents {
    /// The text, or for binary data a line describing it (URI, MIME type, size): what
    /// the model reads.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Self::Text { text, .. } => text.clone(),
            Self::Blob {
                uri,
                mime_type,
                size,
                ..
            } => format!(
                "[binary resource {uri}: {}, {size} bytes; not shown]",
                mime_type.as_deref().unwrap_or("unknown type")
            ),
        }
    }
}

impl McpResourceContents {
    /// This part as a file to attach: its name (from the URI's last part, `.txt` added
    /// to text without an ending) and bytes (text as it is, binary decoded from base64).
    ///
    /// # Errors
    /// [`McpRequestError::Undecodable`] when the base64 does not decode.
    pub fn into_file(self, server: &str) -> Result<(String, Vec<u8>), McpRequestError> {
        match self {
            Self::Text { uri, text, .. } => {
                Ok((resource_file_name(server, &uri, true), text.into_bytes()))
            }
            Self::Blob { uri, base64, .. } => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(base64.as_bytes())
                    .map_err(|e| McpRequestError::Undecodable {
                        server: server.to_owned(),
                        uri: uri.clone(),
                        reason: e.to_string(),
                    })?;
                Ok((resource_file_name(server, &uri, false), bytes))
            }
        }
    }
}

/// A prompt's messages as the text of one message: the person's as they are, the
/// assistant's marked `(assistant)`, separated by blank lines.
#[must_use]
pub fn prompt_message_text(messages: &[McpPromptMessage]) -> String {
    messages
        .iter()
        .map(|m| match m.role {
            McpPromptRole::User => m.text.clone(),
            McpPromptRole::Assistant => format!("(assistant) {}", m.text),
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Who a prompt message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpPromptRole {
    /// The person.
    User,
    /// The assistant.
    Assistant,
}

/// One message of a prompt, as text (images and binary resources described).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPromptMessage {
    /// Who it is from.
    pub role: McpPromptRole,
    /// Its text.
    pub text: String,
}

/// Why a resource or prompt request failed; each names the server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpRequestError {
    /// No server of that name is configured and enabled.
    #[error("there is no enabled MCP server '{server}' (known: {known}); see `smallebot mcp list`")]
    UnknownServer {
        /// The name asked for.
        server: String,
        /// The enabled servers, comma-separated.
        known: String,
    },
    /// The server does not offer this kind of thing.
    #[error("the MCP server '{server}' offers no {what}")]
    NotOffered {
        /// The server.
        server: String,
        /// `resources` or `prompts`.
        what: &'static str,
    },
    /// The server has no prompt of that name.
    #[error("the MCP server '{server}' has no prompt '{prompt}' (it has: {known})")]
    UnknownPrompt {
        /// The server.
        server: String,
        /// The prompt asked for.
        prompt: String,
        /// Its prompts, comma-separated.
        known: String,
    },
    /// Required prompt arguments were not given.
    #[error("the prompt '{prompt}' of the MCP server '{server}' needs the argument(s): {}", missing.join(", "))]
    MissingArguments {
        /// The server.
        server: String,
        /// The prompt.
        prompt: String,
        /// The required arguments not given.
        missing: Vec<String>,
    },
    /// A resource's binary contents are not valid base64.
    #[error(
        "the MCP server '{server}' sent {uri} as base64 that does not decode ({reason}): it was not attached"
    )]
    Undecodable {
        /// The server.
        server: String,
        /// The resource.
        uri: String,
        /// What the decoder said.
        reason: String,
    },
    /// The request failed (the server is not running, answered with an error, or too
    /// late).
    #[error("{what} on the MCP server '{server}' failed: {reason}")]
    Failed {
        /// The server.
        server: String,
        /// What was asked (`reading note://a`, `listing its prompts`).
        what: String,
        /// Why.
        reason: String,
    },
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn missing_arguments_are_the_required_ones_not_given() {
        let prompt = McpPrompt {
            server: "t".into(),
            name: "review".into(),
            description: None,
            arguments: vec![
                McpPromptArgument {
                    name: "topic".into(),
                    description: None,
                    required: true,
                },
                McpPromptArgument {
                    name: "tone".into(),
                    description: None,
                    required: false,
                },
            ],
        };
        let mut given = std::collections::BTreeMap::new();
        assert_eq!(prompt.missing_arguments(&given), ["topic"]);
        given.insert("topic".to_owned(), " ".to_owned());
        assert_eq!(prompt.missing_arguments(&given), ["topic"]);
        given.insert("topic".to_owned(), "rust".to_owned());
        assert!(prompt.missing_arguments(&given).is_empty());
    }

    #[test]
    fn a_resource_becomes_a_named_file_and_bad_base64_is_an_error_naming_it() {
        let blob = |base64: &str| McpResourceContents::Blob {
            uri: "file:///pixel.png".to_owned(),
            mime_type: Some("image/png".to_owned()),
            size: 3,
            base64: base64.to_owned(),
        };
        let text = McpResourceContents::Text {
            uri: "note://readme".to_owned(),
            mime_type: None,
            text: "hello".to_owned(),
        };
        assert_eq!(
            text.into_file("t").unwrap(),
            ("readme.txt".to_owned(), b"hello".to_vec())
        );
        assert_eq!(
            blob("AAEC").into_file("t").unwrap(),
            ("pixel.png".to_owned(), vec![0, 1, 2])
        );
        let error = blob("not base64!").into_file("t").unwrap_err().to_string();
        assert!(
            error.contains("'t'")
                && error.contains("file:///pixel.png")
                && error.contains("not attached"),
            "{error}"
        );
    }

    #[test]
    fn a_prompts_messages_are_one_text_the_assistants_marked() {
        let message = |role, text: &str| McpPromptMessage {
            role,
            text: text.to_owned(),
        };
        let cases = [
            (vec![], ""),
            (vec![message(McpPromptRole::User, "a")], "a"),
            (
                vec![
                    message(McpPromptRole::User, "Please review x."),
                    message(McpPromptRole::Assistant, "Reviewing now."),
                ],
                "Please review x.\n\n(assistant) Reviewing now.",
            ),
        ];
        for (messages, want) in cases {
            assert_eq!(prompt_message_text(&messages), want);
        }
    }

    #[test]
    fn blobs_are_described_not_inlined() {
        let blob = McpResourceContents::Blob {
            uri: "file:///p.png".into(),
            mime_type: Some("image/png".into()),
            size: 70,
            base64: "AAAA".into(),
        };
        assert_eq!(
            blob.describe(),
            "[binary resource file:///p.png: image/png, 70 bytes; not shown]"
        );
    }
}
