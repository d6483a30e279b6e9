//! `smallebot run "prompt" [--conversation ID] [--json]`: one turn, then exit.

use std::io::IsTerminal;
use std::sync::Arc;

use smallebot_agent::assembly::Home;
use smallebot_application::SendOptions;
use smallebot_core::entities::TurnStatus;
use smallebot_core::ids::ConversationId;

use crate::error::HostError;
use crate::render::{EventPrinter, Style};
use crate::wiring;

/// Arguments of `run`.
pub struct RunArgs {
    /// The message.
    pub prompt: String,
    /// Continue this conversation instead of starting a new one.
    pub conversation: Option<String>,
    /// Print events as JSON lines.
    pub json: bool,
    /// Conversation owner.
    pub user: Option<String>,
}

/// Runs one turn, streaming its events to stdout.
pub async fn run(home: &Home, args: RunArgs) -> Result<(), HostError> {
    let app = wiring::build(home, args.user.as_deref()).await?;
    let service = Arc::clone(&app.service);
    let conversation_id: ConversationId = match &args.conversation {
        Some(id) => id.parse()?,
        None => service.create_conversation(&app.user).await?.id,
    };
    let mut events = service.subscribe(conversation_id);
    let style = Style {
        ansi: std::io::stdout().is_terminal(),
    };
    let mut printer = EventPrinter::new(std::io::stdout().lock(), args.json, style);
    let sender = Arc::clone(&service);
    let prompt = args.prompt.clone();
    let mut turn = tokio::spawn(async move {
        sender
            .send(conversation_id, &prompt, SendOptions::default())
            .await
    });
    let outcome = loop {
        tokio::select! {
            Some(event) = events.recv() => printer.print(&event)?,
            joined = &mut turn => {
                while let Some(event) = events.try_recv() {
                    printer.print(&event)?;
                }
                break joined.map_err(|source| HostError::TaskJoin { what: "the turn", source })??;
            }
            _ = tokio::signal::ctrl_c() => {
                service.cancel(conversation_id);
            }
        }
    };
    drop(printer);
    if outcome.status == TurnStatus::Completed && outcome.first_turn {
        // A title from the model for a new conversation (stored silently).
        let _ = service.generate_title(conversation_id).await;
    }
    app.store.close().await;
    match outcome.status {
        TurnStatus::Completed => Ok(()),
        status => Err(HostError::TurnNotCompleted {
            conversation_id,
            status,
        }),
    }
}
