//! [`McpServers`]' resources and prompts: listed per server when the server declares
//! them, a resource read, a prompt got with its arguments — each within the server's
//! tool timeout, restarting a server that stopped as a tool call does.

use std::collections::BTreeMap;
use std::future::Future;

use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams, ResourceContents, Role};
use rmcp::service::{Peer, RoleClient};
use smallebot_core::rules::tool_search::unoffered_pins;

use super::catalog::{
    McpPrompt, McpPromptArgument, McpPromptMessage, McpPromptRole, McpRequestError, McpResource,
    McpResourceContents, McpResourceTemplate,
};
use super::connection::McpConnection;
use super::content::{base64_len, block_text};
use super::start::McpServers;

/// What a server declares it offers.
#[derive(Clone, Copy)]
enum Offer {
    Resources,
    Prompts,
}

impl Offer {
    fn what(self) -> &'static str {
        match self {
            Self::Resources => "resources",
            Self::Prompts => "prompts",
        }
    }
}

/// Runs `request` on the peer of `connection` within its tool timeout, when the server
/// declares `offer`; `Ok(None)` when it does not.
async fn ask<T, F, Fut>(
    connection: &McpConnection,
    offer: Offer,
    what: &str,
    request: F,
) -> Result<Option<T>, McpRequestError>
where
    F: FnOnce(Peer<RoleClient>) -> Fut,
    Fut: Future<Output = Result<T, rmcp::service::ServiceError>>,
{
    let settings = connection.settings();
    let failed = |reason: String| McpRequestError::Failed {
        server: settings.name.clone(),
        what: what.to_owned(),
        reason,
    };
    let peer = connection.peer().await.map_err(failed)?;
    let declared = peer.peer_info().is_some_and(|info| match offer {
        Offer::Resources => info.capabilities.resources.is_some(),
        Offer::Prompts => info.capabilities.prompts.is_some(),
    });
    if !declared {
        return Ok(None);
    }
    match tokio::time::timeout(settings.tool_timeout, request(peer)).await {
        Err(_) => Err(failed(format!(
            "no answer within {} s (toolTimeoutSeconds)",
            settings.tool_timeout.as_secs()
        ))),
        Ok(Err(error)) => Err(failed(error.to_string())),
        Ok(Ok(value)) => Ok(Some(value)),
    }
}

/// `ask`, with a server that does not declare `offer` an error.
async fn ask_offered<T, F, Fut>(
    connection: &McpConnection,
    offer: Offer,
    what: &str,
    request: F,
) -> Result<T, McpRequestError>
where
    F: FnOnce(Peer<RoleClient>) -> Fut,
    Fut: Future<Output = Result<T, rmcp::service::ServiceError>>,
{
    ask(connection, offer, what, request)
        .await?
        .ok_or_else(|| McpRequestError::NotOffered {
            server: connection.settings().name.clone(),
            what: offer.what(),
        })
}

impl McpServers {
    /// The names of the enabled servers, in mcp.json's order.
    #[must_use]
    pub fn server_names(&self) -> Vec<String> {
        self.enabled().map(|c| c.settings().name.clone()).collect()
    }

    /// The enabled servers that declared resources when they started (for offering
    /// the tool that reads them).
    #[must_use]
    pub fn servers_with_resources(&self) -> Vec<String> {
        self.enabled()
            .filter(|c| c.offers_resources())
            .map(|c| c.settings().name.clone())
            .collect()
    }

    /// A warning for each pinned tool (agent.json `mcp.pinnedTools`, registry names
    /// `server__tool`) that no started server offers.
    #[must_use]
    pub fn pin_warnings(&self, pinned: &[String]) -> Vec<String> {
        let offered: Vec<String> = self
            .mcp_tools()
            .iter()
            .map(|t| t.name().to_owned())
            .collect();
        unoffered_pins(pinned, &offered)
            .into_iter()
            .map(|pin| {
                format!(
                    "agent.json mcp.pinnedTools: \"mcp__{pin}\" is offered by no MCP server \
                     (the server did not start, or has no such tool: `smallebot mcp tools` \
                     lists them); the pin is ignored"
                )
            })
            .collect()
    }

    /// The resources `server` lists (none when it declares no resources).
    ///
    /// # Errors
    /// An unknown server, or the listing failed.
    pub async fn resources(&self, server: &str) -> Result<Vec<McpResource>, McpRequestError> {
        let connection = self.enabled_named(server)?;
        let listed = ask(
            connection,
            Offer::Resources,
            "listing its resources",
            |peer| async move { peer.list_all_resources().await },
        )
        .await?
        .unwrap_or_default();
        Ok(listed
            .into_iter()
            .map(|r| McpResource {
                server: server.to_owned(),
                uri: r.uri,
                name: r.name,
                description: r.description,
                mime_type: r.mime_type,
            })
            .collect())
    }

    /// The resource templates `server` lists (none when it declares no resources).
    ///
    /// # Errors
    /// An unknown server, or the listing failed.
    pub async fn resource_templates(
        &self,
        server: &str,
    ) -> Result<Vec<McpResourceTemplate>, McpRequestError> {
        let connection = self.enabled_named(server)?;
        let listed = ask(
            connection,
            Offer::Resources,
            "listing its resource templates",
            |peer| async move { peer.list_all_resource_templates().await },
        )
        .await?
        .unwrap_or_default();
        Ok(listed
            .into_iter()
            .map(|t| McpResourceTemplate {
                server: server.to_owned(),
                uri_template: t.uri_template,
                name: t.name,
                description: t.description,
            })
            .collect())
    }

    /// The prompts `server` lists (none when it declares no prompts).
    ///
    /// # Errors
    /// An unknown server, or the listing failed.
    pub async fn prompts(&self, server: &str) -> Result<Vec<McpPrompt>, McpRequestError> {
        let connection = self.enabled_named(server)?;
        let listed = ask(
            connection,
            Offer::Prompts,
            "listing its prompts",
            |peer| async move { peer.list_all_prompts().await },
        )
        .await?
        .unwrap_or_default();
        Ok(listed
            .into_iter()
            .map(|p| McpPrompt {
                server: server.to_owned(),
                name: p.name,
                description: p.description,
                arguments: p
                    .arguments
                    .unwrap_or_default()
                    .into_iter()
                    .map(|a| McpPromptArgument {
                        name: a.name,
                        description: a.description,
                        required: a.required == Some(true),
                    })
                    .collect(),
            })
            .collect())
    }

    /// Every enabled server's resources, prompts or templates through `list`; a server
    /// that fails is left out and logged.
    pub async fn from_every_server<T, F, Fut>(&self, list: F) -> Vec<T>
    where
        F: Fn(String) -> Fut,
        Fut: Future<Output = Result<Vec<T>, McpRequestError>>,
    {
        let mut out = Vec::new();
        for server in self.server_names() {
            match list(server).await {
                Ok(items) => out.extend(items),
                Err(error) => tracing::warn!(%error, "an MCP server's list is left out"),
            }
        }
        out
    }

    /// Reads the resource `uri` of `server`: each part as text or a blob.
    ///
    /// # Errors
    /// An unknown server, one that offers no resources, or the read failed.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<Vec<McpResourceContents>, McpRequestError> {
        let connection = self.enabled_named(server)?;
        let params = ReadResourceRequestParams::new(uri);
        let read = ask_offered(
            connection,
            Offer::Resources,
            &format!("reading {uri}"),
            |peer| async move { peer.read_resource(params).await },
        )
        .await?;
        Ok(read
            .contents
            .into_iter()
            .map(|part| match part {
                ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text,
                    ..
                } => McpResourceContents::Text {
                    uri,
                    mime_type,
                    text,
                },
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => McpResourceContents::Blob {
                    uri,
                    mime_type,
                    size: base64_len(&blob),
                    base64: blob,
                },
                // A kind of contents a newer protocol added: said, not dropped.
                _ => McpResourceContents::Text {
                    uri: uri.to_owned(),
                    mime_type: None,
                    text: "[resource contents of a kind this client cannot read]".to_owned(),
                },
            })
            .collect())
    }

    /// Gets the prompt `prompt` of `server` with `arguments`: its messages as text.
    ///
    /// # Errors
    /// An unknown server or prompt, a required argument missing, or the request failed.
    pub async fn get_prompt(
        &self,
        server: &str,
        prompt: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<Vec<McpPromptMessage>, McpRequestError> {
        let connection = self.enabled_named(server)?;
        let prompts = self.prompts(server).await?;
        let Some(listed) = prompts.iter().find(|p| p.name == prompt) else {
            return Err(McpRequestError::UnknownPrompt {
                server: server.to_owned(),
                prompt: prompt.to_owned(),
                known: prompts
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        let missing = listed.missing_arguments(arguments);
        if !missing.is_empty() {
            return Err(McpRequestError::MissingArguments {
                server: server.to_owned(),
                prompt: prompt.to_owned(),
                missing,
            });
        }
        let object = arguments
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        let params = GetPromptRequestParams::new(prompt).with_arguments(object);
        let got = ask_offered(
            connection,
            Offer::Prompts,
            &format!("getting the prompt {prompt}"),
            |peer| async move { peer.get_prompt(params).await },
        )
        .await?;
        Ok(got
            .messages
            .into_iter()
            .map(|message| McpPromptMessage {
                role: match message.role {
                    Role::User => McpPromptRole::User,
                    Role::Assistant => McpPromptRole::Assistant,
                },
                text: serde_json::to_value(&message.content)
                    .map(|block| block_text(&block))
                    .unwrap_or_else(|e| format!("[content that cannot be read: {e}]")),
            })
            .collect())
    }
}
