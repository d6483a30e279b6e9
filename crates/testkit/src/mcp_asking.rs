//! The test MCP server's tools that ask the client during a call: `ask` sends a form
//! (elicitation) and says what came back; `sample` asks for a completion (sampling)
//! and says what came back or why it was refused.
// Sampling is deprecated by the spec (SEP-2577) and still what servers send.
#![allow(deprecated)]

use rmcp::model::{
    CreateMessageRequestParams, ElicitRequestParams, ElicitationAction, ElicitationSchema,
    SamplingMessage,
};
use rmcp::{Peer, RoleServer, tool, tool_router};

use crate::mcp::TestServer;

/// The message of the `ask` tool's form.
pub const ASK_MESSAGE: &str = "Who is asking?";

/// The schema of the `ask` tool's form: `name` (text, required), `age` (a whole number
/// 0..=150), `color` (`red` or `green`, default `red`).
#[must_use]
pub fn ask_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "description": "Your name"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "color": {"type": "string", "enum": ["red", "green"], "default": "red"}
        },
        "required": ["name"]
    })
}

#[tool_router(router = asking_router, vis = "pub(crate)")]
impl TestServer {
    /// Asks the person for a form and says what came back.
    #[tool(description = "Ask the person who they are")]
    async fn ask(&self, peer: Peer<RoleServer>) -> String {
        let schema: ElicitationSchema = match serde_json::from_value(ask_schema()) {
            Ok(schema) => schema,
            Err(error) => return format!("bad schema: {error}"),
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: ASK_MESSAGE.to_owned(),
            requested_schema: schema,
        };
        match peer.create_elicitation(params).await {
            Ok(result) => match result.action {
                ElicitationAction::Accept => format!(
                    "accepted {}",
                    result.content.unwrap_or(serde_json::Value::Null)
                ),
                ElicitationAction::Decline => "declined".to_owned(),
                ElicitationAction::Cancel => "cancelled".to_owned(),
                other => format!("unknown action {other:?}"),
            },
            Err(error) => format!("elicitation failed: {error}"),
        }
    }

    /// Asks the client's model for a completion and says what came back.
    #[tool(description = "Ask the client's model to say hello")]
    async fn sample(&self, peer: Peer<RoleServer>) -> String {
        let params =
            CreateMessageRequestParams::new(vec![SamplingMessage::user_text("Say hello")], 50);
        let answered = peer.create_message(params).await;
        match answered {
            Ok(result) => format!(
                "sampled from {}: {}",
                result.model,
                result
                    .message
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .map_or("", |t| t.text.as_str())
            ),
            Err(error) => format!("sampling failed: {error}"),
        }
    }
}
