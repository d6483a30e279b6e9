//! The protocol's JSON Schema: one document whose `$defs` hold every type of the
//! protocol, checked into `docs/protocol.schema.json`.

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::{PROTOCOL_VERSION, api, attachments, events, plan};

/// The schema document: `$defs` with every event and body type, and the protocol's
/// version.
#[must_use]
pub fn document() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    generator.subschema_for::<events::Event>();
    generator.subschema_for::<events::ConfirmEvent>();
    generator.subschema_for::<events::ElicitEvent>();
    generator.subschema_for::<events::ReloadEvent>();
    generator.subschema_for::<plan::Plan>();
    generator.subschema_for::<api::ErrorBody>();
    generator.subschema_for::<api::LoginBody>();
    generator.subschema_for::<api::LoggedIn>();
    generator.subschema_for::<api::Me>();
    generator.subschema_for::<api::Ready>();
    generator.subschema_for::<Vec<api::Conversation>>();
    generator.subschema_for::<api::NewConversationBody>();
    generator.subschema_for::<api::CreatedConversation>();
    generator.subschema_for::<api::RenameBody>();
    generator.subschema_for::<api::ConversationExport>();
    generator.subschema_for::<api::Timeline>();
    generator.subschema_for::<api::RewindBody>();
    generator.subschema_for::<api::RewindAnswer>();
    generator.subschema_for::<api::FileDiff>();
    generator.subschema_for::<api::TextBody>();
    generator.subschema_for::<api::Started>();
    generator.subschema_for::<api::Cancelled>();
    generator.subschema_for::<api::CompactBody>();
    generator.subschema_for::<api::CompactReport>();
    generator.subschema_for::<api::Undone>();
    generator.subschema_for::<api::ConfirmationBody>();
    generator.subschema_for::<api::ElicitationBody>();
    generator.subschema_for::<api::ModelList>();
    generator.subschema_for::<api::ChooseModelBody>();
    generator.subschema_for::<api::ChosenModel>();
    generator.subschema_for::<Vec<api::SearchHit>>();
    generator.subschema_for::<api::UsageReport>();
    generator.subschema_for::<api::SkillList>();
    generator.subschema_for::<api::SkillDetail>();
    generator.subschema_for::<api::AgentList>();
    generator.subschema_for::<api::PermissionGrantList>();
    generator.subschema_for::<api::McpServerList>();
    generator.subschema_for::<api::McpConnectUrl>();
    generator.subschema_for::<api::McpResourceList>();
    generator.subschema_for::<api::McpResourceRead>();
    generator.subschema_for::<api::McpResourceFiles>();
    generator.subschema_for::<api::McpPromptList>();
    generator.subschema_for::<api::McpPromptGet>();
    generator.subschema_for::<api::McpPromptText>();
    generator.subschema_for::<attachments::Uploaded>();
    let definitions: Map<String, Value> = generator.take_definitions(true);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "SmallEBot protocol",
        "description": "The server-sent events and HTTP API bodies of SmallEBot's web server (docs/protocol.md).",
        "x-protocol-version": PROTOCOL_VERSION,
        "$defs": definitions,
    })
}

/// [`document`] as the checked-in file holds it: pretty JSON with a final newline.
#[must_use]
pub fn document_text() -> String {
    let mut text = serde_json::to_string_pretty(&document()).unwrap_or_default();
    text.push('\n');
    text
}
