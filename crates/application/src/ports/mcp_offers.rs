//! What each user's MCP servers offer besides tools, for the page's message box: their
//! resources and resource templates, their prompts, a resource read as files, a prompt
//! got as text (`/api/mcp/resources…`, `/api/mcp/prompts…`).

use std::collections::BTreeMap;

use async_trait::async_trait;
use smallebot_protocol::api::{McpPromptList, McpResourceList};

/// Why a resource could not be read or a prompt got.
#[derive(Debug, thiserror::Error)]
pub enum McpOfferError {
    /// No enabled server has that name.
    #[error("no enabled MCP server is called '{0}' in mcp.json")]
    UnknownServer(String),
    /// The server has no prompt of that name.
    #[error("the MCP server '{server}' has no prompt '{prompt}'")]
    UnknownPrompt {
        /// The server.
        server: String,
        /// The prompt asked for.
        prompt: String,
    },
    /// Required arguments (of a prompt or a resource template) were not given.
    #[error("{what} needs the argument(s) {}: fill them in", missing.join(", "))]
    MissingArguments {
        /// What needs them (`the prompt 'review' of the MCP server 't'`).
        what: String,
        /// The required arguments not given, in order.
        missing: Vec<String>,
    },
    /// The server does not offer resources or prompts, is not running, or its answer
    /// failed or cannot be used.
    #[error("{0}")]
    Failed(String),
}

/// A resource's part as a file to send with a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpResourcePart {
    /// Its file name.
    pub name: String,
    /// Its content.
    pub content: Vec<u8>,
}

/// The resources and prompts of each user's MCP servers (as that user sees them).
#[async_trait]
pub trait UserMcpOffers: Send + Sync {
    /// The resources and templates of `user`'s enabled servers (a server that cannot
    /// list them is left out).
    async fn resources(&self, user: &str) -> McpResourceList;

    /// The prompts of `user`'s enabled servers (a server that cannot list them is left
    /// out).
    async fn prompts(&self, user: &str) -> McpPromptList;

    /// Reads the resource `uri` of `server` as `user`: each part as a file.
    ///
    /// # Errors
    /// An unknown server, or the read failed.
    async fn read_resource(
        &self,
        user: &str,
        server: &str,
        uri: &str,
    ) -> Result<Vec<McpResourcePart>, McpOfferError>;

    /// Gets the prompt `prompt` of `server` as `user` with `arguments`: its messages as
    /// the text of one message.
    ///
    /// # Errors
    /// An unknown server or prompt, a required argument missing, or the request failed.
    async fn prompt_text(
        &self,
        user: &str,
        server: &str,
        prompt: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<String, McpOfferError>;
}
