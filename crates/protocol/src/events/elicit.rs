//! The data of an `elicit` event: an MCP server's question to the person during a tool
//! call, or none.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::api::ElicitationField;

/// The data of an `elicit` event: the form a server asks the person to fill in, or
/// none any more.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum ElicitEvent {
    /// A server asks; answer with `POST …/elicitation`.
    ElicitationRequested {
        /// The id to answer with.
        request_id: u64,
        /// The MCP server that asks (its name in mcp.json).
        server: String,
        /// Its message to the person (the server's words: show as text).
        message: String,
        /// The form's fields, in the server's order.
        fields: Vec<ElicitationField>,
        /// Seconds until it counts as declined.
        timeout_secs: u64,
    },
    /// No question waits any more (answered, timed out, or the turn ended).
    ElicitationClosed,
    /// A type this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}
