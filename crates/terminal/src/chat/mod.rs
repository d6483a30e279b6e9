//! The interactive chat: the REPL, its line editor, prompts and slash commands. The
//! host's `chat` command wires the application and hands its parts to [`run_chat`].

#[cfg(test)]
mod attach_tests;
#[cfg(test)]
mod commands_tests;
mod confirm;
pub mod cursor_query;
mod editor;
mod elicit;
mod input;
mod mcp_complete;
#[cfg(test)]
mod mcp_tests;
mod path_complete;
mod picker;
mod repl;
mod session;
#[cfg(test)]
mod session_hooks_tests;
mod slash;
mod status_line;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;

pub use confirm::{ConfirmRequest, StdinConfirmer, TerminalConfirmer};
pub use editor::EditorInput;
pub use elicit::{FormRequest, TerminalElicitor};
pub use input::PipedInput;
pub use repl::Repl;
pub use session::{ChatParts, Opening, run_chat};

/// The input history's file in the home.
pub const HISTORY_FILE: &str = smallebot_agent::assembly::CHAT_HISTORY_FILE;

/// The model `conversation` (or a new one) runs on, as the banner names it: the name
/// sent to the endpoint, with its id in models.json when there is a choice and the two
/// differ.
pub fn model_shown(
    service: &smallebot_application::ConversationService,
    conversation: Option<&smallebot_core::entities::Conversation>,
    default: &str,
) -> String {
    let choices = service.models();
    let id = conversation
        .and_then(|c| service.model_of(c))
        .or_else(|| choices.first().map(|m| m.id.clone()));
    match id.and_then(|id| choices.iter().find(|m| m.id == id)) {
        Some(m) if choices.len() > 1 && m.id != m.model => format!("{} ({})", m.model, m.id),
        Some(m) => m.model.clone(),
        None => default.to_owned(),
    }
}
