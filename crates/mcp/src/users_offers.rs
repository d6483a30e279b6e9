//! [`McpUsers`]' resources and prompts as each user sees them ([`UserMcpOffers`]): the
//! lists for the page's message box, a resource read as files, a prompt as text.

use std::collections::BTreeMap;

use async_trait::async_trait;
use smallebot_application::ports::{McpOfferError, McpResourcePart, UserMcpOffers};
use smallebot_core::rules::uri_template::uri_template_arguments;
use smallebot_protocol::api::{
    McpArgumentRow, McpPromptList, McpPromptRow, McpResourceList, McpResourceRow, McpTemplateRow,
};

use crate::catalog::{McpPrompt, McpRequestError, McpResource, McpResourceTemplate};
use crate::users::McpUsers;
use crate::{McpServers, prompt_message_text};

/// What went wrong, as the page is told.
fn offer_error(error: McpRequestError) -> McpOfferError {
    match error {
        McpRequestError::UnknownServer { server, .. } => McpOfferError::UnknownServer(server),
        McpRequestError::UnknownPrompt { server, prompt, .. } => {
            McpOfferError::UnknownPrompt { server, prompt }
        }
        McpRequestError::MissingArguments {
            server,
            prompt,
            missing,
        } => McpOfferError::MissingArguments {
            what: format!("the prompt '{prompt}' of the MCP server '{server}'"),
            missing,
        },
        other => McpOfferError::Failed(other.to_string()),
    }
}

fn resource_row(resource: McpResource) -> McpResourceRow {
    McpResourceRow {
        server: resource.server,
        uri: resource.uri,
        name: resource.name,
        description: resource.description,
        mime_type: resource.mime_type,
    }
}

fn template_row(template: McpResourceTemplate) -> McpTemplateRow {
    let arguments = uri_template_arguments(&template.uri_template)
        .into_iter()
        .map(|a| McpArgumentRow {
            name: a.name,
            description: None,
            required: a.required,
        })
        .collect();
    McpTemplateRow {
        server: template.server,
        uri_template: template.uri_template,
        name: template.name,
        description: template.description,
        arguments,
    }
}

fn prompt_row(prompt: McpPrompt) -> McpPromptRow {
    McpPromptRow {
        server: prompt.server,
        name: prompt.name,
        description: prompt.description,
        arguments: prompt
            .arguments
            .into_iter()
            .map(|a| McpArgumentRow {
                name: a.name,
                description: a.description,
                required: a.required,
            })
            .collect(),
    }
}

/// Every server's prompts in `view`.
async fn prompts_of(view: &McpServers) -> Vec<McpPrompt> {
    view.from_every_server(|server| async move { view.prompts(&server).await })
        .await
}

#[async_trait]
impl UserMcpOffers for McpUsers {
    async fn resources(&self, user: &str) -> McpResourceList {
        let view = self.servers_of(user).await;
        let view = &*view;
        let resources = view
            .from_every_server(|server| async move { view.resources(&server).await })
            .await;
        let templates = view
            .from_every_server(|server| async move { view.resource_templates(&server).await })
            .await;
        McpResourceList {
            resources: resources.into_iter().map(resource_row).collect(),
            templates: templates.into_iter().map(template_row).collect(),
        }
    }

    async fn prompts(&self, user: &str) -> McpPromptList {
        let view = self.servers_of(user).await;
        McpPromptList {
            prompts: prompts_of(&view)
                .await
                .into_iter()
                .map(prompt_row)
                .collect(),
        }
    }

    async fn read_resource(
        &self,
        user: &str,
        server: &str,
        uri: &str,
    ) -> Result<Vec<McpResourcePart>, McpOfferError> {
        let view = self.servers_of(user).await;
        let parts = view.read_resource(server, uri).await.map_err(offer_error)?;
        parts
            .into_iter()
            .map(|part| {
                let (name, content) = part.into_file(server).map_err(offer_error)?;
                Ok(McpResourcePart { name, content })
            })
            .collect()
    }

    async fn prompt_text(
        &self,
        user: &str,
        server: &str,
        prompt: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<String, McpOfferError> {
        let view = self.servers_of(user).await;
        let messages = view
            .get_prompt(server, prompt, arguments)
            .await
            .map_err(offer_error)?;
        Ok(prompt_message_text(&messages))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_errors_become_what_the_page_is_told() {
        let cases = [
            (
                McpRequestError::UnknownServer {
                    server: "x".into(),
                    known: "t".into(),
                },
                "no enabled MCP server is called 'x' in mcp.json",
            ),
            (
                McpRequestError::UnknownPrompt {
                    server: "t".into(),
                    prompt: "p".into(),
                    known: String::new(),
                },
                "the MCP server 't' has no prompt 'p'",
            ),
            (
                McpRequestError::MissingArguments {
                    server: "t".into(),
                    prompt: "review".into(),
                    missing: vec!["topic".into()],
                },
                "the prompt 'review' of the MCP server 't' needs the argument(s) topic: fill them \
                 in",
            ),
            (
                McpRequestError::NotOffered {
                    server: "t".into(),
                    what: "prompts",
                },
                "the MCP server 't' offers no prompts",
            ),
        ];
        for (error, want) in cases {
            assert_eq!(offer_error(error).to_string(), want);
        }
    }

    #[test]
    fn a_templates_arguments_say_which_are_required() {
        let row = template_row(McpResourceTemplate {
            server: "t".into(),
            uri_template: "db://{table}{?fields}".into(),
            name: "rows".into(),
            description: None,
        });
        let arguments: Vec<(&str, bool)> = row
            .arguments
            .iter()
            .map(|a| (a.name.as_str(), a.required))
            .collect();
        assert_eq!(arguments, [("table", true), ("fields", false)]);
    }
}
