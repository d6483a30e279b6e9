//! `smallebot conversations list|show|export|delete|search`.

use smallebot_agent::assembly::Home;
use smallebot_agent::tools;
use smallebot_application::PipelineError;
use smallebot_core::entities::{SearchQuery, SearchScope};
use smallebot_core::repository::Store;
use smallebot_core::rules::search_limits;
use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_core::tasks::TaskStore;
use smallebot_infrastructure::{DatabaseLocation, FileTaskStore, SqliteStore};

use smallebot_terminal::TerminalError;
use smallebot_terminal::conversation_ref::find_conversation;
use smallebot_terminal::export_file::ExportFileError;
use smallebot_terminal::stored;

use crate::cli::ConversationsCommand;
use crate::error::HostError;
use crate::wiring;

/// Runs one `conversations` subcommand.
pub async fn run(home: &Home, command: ConversationsCommand) -> Result<(), HostError> {
    match command {
        ConversationsCommand::Delete { id } => delete(home, &id).await,
        ConversationsCommand::List { user, all } => {
            with_store(home, async |store, _| {
                Ok(stored::list(store, user.as_deref(), all).await?)
            })
            .await
        }
        ConversationsCommand::Export {
            id,
            format,
            output,
            force,
        } => {
            with_store(home, async |store, _| {
                stored::export(store, &id, format, output.as_deref(), force)
                    .await
                    .map_err(|error| match error {
                        TerminalError::ExportFile(ExportFileError::Exists(path)) => {
                            HostError::ExportExists(path)
                        }
                        other => other.into(),
                    })
            })
            .await
        }
        ConversationsCommand::Show { id } => {
            with_store(home, async |store, tasks| {
                Ok(stored::show(store, tasks, &id).await?)
            })
            .await
        }
        ConversationsCommand::Search {
            query,
            user,
            days,
            limit,
        } => {
            let since = days
                .map(|d| search_limits::since_days_ago(d, chrono::Utc::now()))
                .transpose()
                .map_err(HostError::InvalidDays)?;
            let query = SearchQuery {
                text: query.join(" "),
                scope: user.map_or(SearchScope::All, SearchScope::User),
                since,
                limit: search_limits::clamp_max_results(limit),
            };
            with_store(home, async |store, _| {
                let found = tools::search_for_people(store, &query).await?;
                outln!("{}", escape_controls(&found))?;
                Ok(())
            })
            .await
        }
    }
}

/// Opens the store, marks turns abandoned by a stopped process `interrupted` (so what
/// is shown is true), runs `work` on it, closes it. A database that cannot be written
/// here (a read-only home, file or file system) is opened read-only instead, and shown
/// as stored.
async fn with_store(
    home: &Home,
    work: impl AsyncFnOnce(&dyn Store, &dyn TaskStore) -> Result<(), HostError>,
) -> Result<(), HostError> {
    let app = match wiring::build_without_model(home).await {
        Ok(app) => app,
        Err(HostError::Store(error)) if error.is_read_only() => {
            let path = match home.database_location().map(DatabaseLocation::parse) {
                None => home.database(),
                Some(Ok(DatabaseLocation::Sqlite(path))) => path,
                Some(_) => return Err(HostError::Store(error)),
            };
            let store = SqliteStore::open_read_only(&path).await?;
            errln!(
                "note: {} cannot be written here; reading it as it is (turns left running by \
                 a stopped process are not marked interrupted)",
                path.display()
            );
            let tasks = FileTaskStore::new(home.tasks_dir());
            let result = work(&store, &tasks).await;
            store.close().await;
            return result;
        }
        Err(error) => return Err(error),
    };
    let result = match wiring::recover(&app).await {
        Ok(()) => {
            let tasks = app.store.task_store(home);
            work(app.store.store().as_ref(), tasks.as_ref()).await
        }
        Err(error) => Err(error),
    };
    app.close().await;
    result
}

/// Deletes a conversation through the service, so the busy check applies (a running
/// turn is not pulled away) and its task list goes with it.
async fn delete(home: &Home, reference: &str) -> Result<(), HostError> {
    let app = wiring::build_without_model(home).await?;
    let id = match find_conversation(app.service.store().as_ref(), reference, None).await {
        Ok(conversation) => conversation.id,
        Err(error) => {
            app.close().await;
            return Err(error.into());
        }
    };
    let deleted = app.service.delete_conversation(id).await;
    app.close().await;
    match deleted {
        Ok(()) => {
            outln!("deleted conversation {id}")?;
            Ok(())
        }
        Err(PipelineError::ConversationNotFound(id)) => {
            Err(TerminalError::ConversationNotFound(id).into())
        }
        Err(other) => Err(other.into()),
    }
}
