//! A conversation as text to export: Markdown or JSON, shared by `smallebot
//! conversations export` and the chat's `/export`.

use smallebot_core::entities::ConversationExport;
use smallebot_core::rules::export::markdown;

use crate::error::TerminalError;

/// The format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Markdown: the conversation to read.
    Md,
    /// JSON: the structured conversation (the protocol's `ConversationExport`).
    Json,
}

/// A gathered conversation as `format` — Markdown by the core rule, JSON as the web
/// API's export — ending with a line break (`conversations export`, the chat's
/// `/export`).
pub fn export_text(
    gathered: &ConversationExport,
    format: ExportFormat,
) -> Result<String, TerminalError> {
    let mut text = match format {
        ExportFormat::Md => markdown(gathered),
        ExportFormat::Json => {
            serde_json::to_string_pretty(&smallebot_application::wire::bodies::export(gathered))
                .map_err(std::io::Error::other)?
        }
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}
