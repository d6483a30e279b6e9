//! The test MCP server's resources (text [`README_URI`], a PNG [`PIXEL_URI`]), its
//! template `note://{name}` and its prompt `review` (`topic` required, `tone` optional).

use rmcp::ErrorData;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, Prompt, PromptArgument, PromptMessage,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role,
};

use crate::mcp::PIXEL_PNG;

/// The URI of the test server's text resource.
pub const README_URI: &str = "note://readme";

/// The text of [`README_URI`].
pub const README_TEXT: &str = "The readme of the test server: resources work.";

/// The URI of the test server's binary resource ([`PIXEL_PNG`]).
pub const PIXEL_URI: &str = "file:///pixel.png";

/// The resources listed.
pub(crate) fn resources() -> ListResourcesResult {
    ListResourcesResult::with_all_items(vec![
        Resource::new(README_URI, "readme")
            .with_description("The test server's readme")
            .with_mime_type("text/plain"),
        Resource::new(PIXEL_URI, "pixel").with_mime_type("image/png"),
    ])
}

/// The resource templates listed.
pub(crate) fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new("note://{name}", "note").with_description("A note by name"),
    ])
}

/// The resource `uri`: the readme, the pixel, or a note by name.
///
/// # Errors
/// Any other URI is not found.
pub(crate) fn read(uri: String) -> Result<ReadResourceResponse, ErrorData> {
    let contents = if uri == README_URI {
        ResourceContents::text(README_TEXT, uri)
    } else if uri == PIXEL_URI {
        ResourceContents::BlobResourceContents {
            uri,
            mime_type: Some("image/png".to_owned()),
            blob: PIXEL_PNG.to_owned(),
            meta: None,
        }
    } else if let Some(name) = uri.strip_prefix("note://") {
        ResourceContents::text(format!("the note called {name}"), uri.clone())
    } else {
        return Err(ErrorData::resource_not_found(
            format!("no resource {uri}"),
            None,
        ));
    };
    Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
        vec![contents],
    )))
}

/// The prompts listed.
pub(crate) fn prompts() -> ListPromptsResult {
    ListPromptsResult::with_all_items(vec![Prompt::new(
        "review",
        Some("Ask for a review of a topic"),
        Some(vec![
            PromptArgument::new("topic")
                .with_description("What to review")
                .with_required(true),
            PromptArgument::new("tone").with_description("How to say it"),
        ]),
    )])
}

/// The prompt `review`: a request for a review and the assistant's start.
///
/// # Errors
/// Another prompt, or no `topic`.
pub(crate) fn prompt(request: &GetPromptRequestParams) -> Result<GetPromptResponse, ErrorData> {
    if request.name != "review" {
        return Err(ErrorData::invalid_params(
            format!("no prompt {}", request.name),
            None,
        ));
    }
    let argument = |name: &str| {
        request
            .arguments
            .as_ref()
            .and_then(|a| a.get(name))
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    let Some(topic) = argument("topic") else {
        return Err(ErrorData::invalid_params("topic is required", None));
    };
    let tone = argument("tone").unwrap_or_else(|| "plain".to_owned());
    Ok(GetPromptResponse::Complete(
        GetPromptResult::new(vec![
            PromptMessage::new_text(Role::User, format!("Please review {topic} ({tone}).")),
            PromptMessage::new_text(Role::Assistant, "Reviewing now."),
        ])
        .with_description("A review"),
    ))
}
