//! `smallebot conversations list|show|delete`.

use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};
use smallebot_infrastructure::SqliteStore;

use crate::cli::ConversationsCommand;
use crate::error::HostError;
use crate::render::{conversation_line, render_timeline};

/// Runs one `conversations` subcommand.
pub async fn run(store: &SqliteStore, command: ConversationsCommand) -> Result<(), HostError> {
    match command {
        ConversationsCommand::List { user } => {
            let conversations = store.list_conversations(user.as_deref()).await?;
            if conversations.is_empty() {
                println!("no conversations yet");
            }
            for c in &conversations {
                println!("{}", conversation_line(c));
            }
        }
        ConversationsCommand::Show { id } => {
            let id: ConversationId = id.parse()?;
            let conversation = store
                .get_conversation(id)
                .await?
                .ok_or_else(|| HostError::NotFound(format!("conversation {id} not found")))?;
            let turns = store.list_turns(id).await?;
            let rows = store.rows_after(id, 0).await?;
            print!("{}", render_timeline(&conversation, &turns, &rows));
        }
        ConversationsCommand::Delete { id } => {
            let id: ConversationId = id.parse()?;
            if !store.delete_conversation(id).await? {
                return Err(HostError::NotFound(format!("conversation {id} not found")));
            }
            println!("deleted conversation {id}");
        }
    }
    Ok(())
}
