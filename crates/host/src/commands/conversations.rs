//! `smallebot conversations list|show|delete|search`.

use smallebot_agent::tools;
use smallebot_core::entities::{SearchQuery, SearchScope};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};
use smallebot_core::tasks::{TaskStore, format_plan};
use smallebot_infrastructure::SqliteStore;

use crate::cli::ConversationsCommand;
use crate::error::HostError;
use crate::render::{conversation_line, render_timeline};

/// Runs one `conversations` subcommand; `tasks` holds the conversations' task lists.
pub async fn run(
    store: &SqliteStore,
    tasks: &dyn TaskStore,
    command: ConversationsCommand,
) -> Result<(), HostError> {
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
            match tasks.load(id).await {
                Ok(list) if !list.tasks.is_empty() => println!("\n{}", format_plan(&list)),
                Ok(_) => {}
                Err(error) => eprintln!("the task list cannot be shown: {error}"),
            }
        }
        ConversationsCommand::Delete { id } => {
            let id: ConversationId = id.parse()?;
            if !store.delete_conversation(id).await? {
                return Err(HostError::NotFound(format!("conversation {id} not found")));
            }
            println!("deleted conversation {id}");
            if let Err(error) = tasks.delete(id).await {
                eprintln!("its task list could not be deleted: {error}");
            }
        }
        ConversationsCommand::Search {
            query,
            user,
            days,
            limit,
        } => {
            let since = days
                .map(|d| tools::since_days_ago(d, chrono::Utc::now()))
                .transpose()
                .map_err(HostError::InvalidArgument)?;
            let query = SearchQuery {
                text: query.join(" "),
                scope: user.map_or(SearchScope::All, SearchScope::User),
                since,
                limit: tools::clamp_max_results(limit),
            };
            println!("{}", tools::search_and_format(store, &query).await?);
        }
    }
    Ok(())
}
