//! What MCP servers offer besides tools: resources, resource templates and prompts,
//! as typed values ([`McpResource`], [`McpResourceTemplate`], [`McpPrompt`]), read
//! ([`McpResourceContents`]) and got ([`McpPromptMessage`]) through the same connection
//! as the tools, each failure an [`McpRequestError`] naming the server.

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
        template_arguments(&self.uri_template)
    }
}

/// The names inside `{…}` of a URI template, operators (`+#./;?&`) and modifiers
/// (`*`, `:N`) left out, each once.
fn template_arguments(template: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let inner =
            rest[open + 1..open + close].trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for name in inner.split(',') {
            let name = name.split([':', '*']).next().unwrap_or("").trim();
            if !name.is_empty() && !out.iter().any(|n| n == name) {
                out.push(name.to_owned());
            }
        }
        rest = &rest[open + close + 1..];
    }
    out
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
mod tests {
    use super::*;

    #[test]
    fn template_arguments_table() {
        let cases: [(&str, &[&str]); 5] = [
            ("note://{name}", &["name"]),
            ("file:///{+path}", &["path"]),
            ("db://{table}/{id}{?fields*}", &["table", "id", "fields"]),
            ("x://{a,b:3}/{a}", &["a", "b"]),
            ("plain://none", &[]),
        ];
        for (template, want) in cases {
            assert_eq!(template_arguments(template), want, "{template}");
        }
    }

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
