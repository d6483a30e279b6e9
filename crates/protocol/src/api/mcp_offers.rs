//! What the user's MCP servers offer the page's message box: `GET /api/mcp/resources`
//! (resources and resource templates, offered after `@`), `POST
//! /api/mcp/resources/read` (a resource's contents as files to send with the message),
//! `GET /api/mcp/prompts` (offered after `/`) and `POST
//! /api/mcp/prompts/{server}/{name}` (a prompt's text for the message box).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The answer of `GET /api/mcp/resources`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpResourceList {
    /// The resources of every enabled server, servers in mcp.json's order.
    pub resources: Vec<McpResourceRow>,
    /// The resource templates, likewise.
    pub templates: Vec<McpTemplateRow>,
}

/// A resource a server lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpResourceRow {
    /// The server's name in mcp.json.
    pub server: String,
    /// Its URI.
    pub uri: String,
    /// Its name (the server's text).
    pub name: String,
    /// What the server says it is.
    pub description: Option<String>,
    /// Its MIME type, when the server says.
    pub mime_type: Option<String>,
}

/// A resource template a server lists (`note://{name}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpTemplateRow {
    /// The server's name in mcp.json.
    pub server: String,
    /// The URI template (RFC 6570).
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// What the server says it is.
    pub description: Option<String>,
    /// Its arguments, in order.
    pub arguments: Vec<McpArgumentRow>,
}

/// An argument of a prompt or a resource template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpArgumentRow {
    /// Its name.
    pub name: String,
    /// What it is for (prompts only).
    pub description: Option<String>,
    /// Whether it must be given.
    pub required: bool,
}

/// `POST /api/mcp/resources/read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McpResourceRead {
    /// The server's name in mcp.json.
    pub server: String,
    /// The resource's URI, or a template's URI template (expanded with `arguments`).
    pub uri: String,
    /// A template's arguments.
    #[serde(default)]
    pub arguments: BTreeMap<String, String>,
}

/// The answer of `POST /api/mcp/resources/read`: the resource's parts as files, which
/// the page sends with the message as it sends uploaded files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpResourceFiles {
    /// The URI read (a template's expanded).
    pub uri: String,
    /// Its parts, each within the per-file limit.
    pub files: Vec<McpResourceFile>,
}

/// One part of a resource, as a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpResourceFile {
    /// Its file name (from the URI's last part; `.txt` added to text without an
    /// ending).
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its content, base64.
    pub base64: String,
}

/// The answer of `GET /api/mcp/prompts`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpPromptList {
    /// The prompts of every enabled server, servers in mcp.json's order.
    pub prompts: Vec<McpPromptRow>,
}

/// A prompt a server lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpPromptRow {
    /// The server's name in mcp.json.
    pub server: String,
    /// Its name on the server.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
    /// Its arguments, in the server's order.
    pub arguments: Vec<McpArgumentRow>,
}

/// `POST /api/mcp/prompts/{server}/{name}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McpPromptGet {
    /// The prompt's arguments by name.
    #[serde(default)]
    pub arguments: BTreeMap<String, String>,
}

/// The answer of `POST /api/mcp/prompts/{server}/{name}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpPromptText {
    /// The prompt's messages as the text of one message (the assistant's marked
    /// `(assistant)`), for the message box.
    pub text: String,
}
