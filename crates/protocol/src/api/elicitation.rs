//! `POST /api/conversations/{id}/elicitation`: the person's answer to an MCP server's
//! question during a tool call, and the form fields an `elicit` event shows
//! ([`crate::events::ElicitEvent`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `POST …/elicitation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ElicitationBody {
    /// The `request_id` of the `elicit` event.
    pub request_id: u64,
    /// What the person does.
    pub action: ElicitationReply,
    /// The form filled in, by field name (for `accept`; ignored otherwise). A field
    /// left out gets its default.
    #[serde(default)]
    pub content: Option<Map<String, Value>>,
}

/// What the person does with the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ElicitationReply {
    /// Sends the form (checked against it first: a field that does not fit is `400`).
    Accept,
    /// Declines to answer: the server goes on without it.
    Decline,
    /// Cancels: the server should stop what it was doing.
    Cancel,
}

/// One field of the form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ElicitationField {
    /// The property's name: the answer's key.
    pub name: String,
    /// Its title, if the server gave one.
    #[serde(default)]
    pub title: Option<String>,
    /// Its description, if the server gave one.
    #[serde(default)]
    pub description: Option<String>,
    /// What it accepts.
    pub kind: ElicitationFieldKind,
    /// Whether the answer must have it.
    pub required: bool,
    /// Its default, if any (used when the answer leaves it out).
    #[serde(default)]
    pub default: Option<Value>,
    /// The values to choose from, for `choice`.
    #[serde(default)]
    pub choices: Vec<ElicitationChoice>,
    /// The least length of a `text`.
    #[serde(default)]
    pub min_length: Option<u64>,
    /// The greatest length of a `text`.
    #[serde(default)]
    pub max_length: Option<u64>,
    /// The least `number` or `integer`.
    #[serde(default)]
    pub minimum: Option<f64>,
    /// The greatest `number` or `integer`.
    #[serde(default)]
    pub maximum: Option<f64>,
}

/// What a field accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ElicitationFieldKind {
    /// Text (a JSON string).
    Text,
    /// A number.
    Number,
    /// A whole number.
    Integer,
    /// Yes or no (a JSON boolean).
    Boolean,
    /// One of `choices` (its `value`, a string).
    Choice,
    /// A kind this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// One value of a `choice` field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ElicitationChoice {
    /// What is sent back.
    pub value: String,
    /// What the person sees.
    pub label: String,
}
