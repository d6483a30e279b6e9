//! The turn of `smallebot run`: its conversation found or created and the files
//! uploaded into it ([`prepare`]), then the turn started and followed to its end, its
//! events printed — the answer to standard output, the rest to standard error
//! ([`follow`]). A stop request (the process's signals) ends the turn stored. A new
//! conversation's title still being asked for when the turn ends (a request retried
//! after a 429 or a 5xx) gets [`TITLE_GRACE`] more, then is dropped (the conversation
//! keeps its first words as the title).

use std::io::{IsTerminal as _, Read as _};
use std::sync::Arc;
use std::time::Duration;

use smallebot_application::{ConversationService, SendOptions, TurnHandle};
use smallebot_core::entities::TurnStatus;
use smallebot_core::ids::{AttachmentId, ConversationId};
use smallebot_core::rules::budget::is_budget_stop;

use crate::TerminalError;
use crate::attach_files::{self, FileToAttach};
use crate::conversation_ref::find_conversation;
use crate::render::{Resizes, RunOutput};
use crate::stop::StopRequests;

/// How long `run` waits after its turn for a title still being asked for (its request
/// retried after a 429 or a 5xx: the first retries come after 0.5 s and 1 s).
pub const TITLE_GRACE: Duration = Duration::from_secs(3);

/// The conversation of the turn and what was uploaded into it.
#[derive(Debug)]
pub struct Prepared {
    /// The conversation the turn runs in.
    pub conversation_id: ConversationId,
    /// Whether it was created for this turn (then it is given a title).
    pub new: bool,
    /// The files uploaded, sent with the message.
    pub attachments: Vec<AttachmentId>,
}

/// How the turn ended.
#[derive(Debug)]
pub struct RunEnd {
    /// The conversation it ran in.
    pub conversation_id: ConversationId,
    /// Its stored status.
    pub status: TurnStatus,
    /// A budget stopped it before a model request ([`smallebot_core::rules::budget`]).
    pub budget_stop: bool,
    /// Printing its events failed (the turn is stored; only its output stopped).
    pub failed_output: Option<std::io::Error>,
}

/// The prompt: `argument`, or standard input read whole for `-`.
///
/// # Errors
/// Standard input is not UTF-8 text, is empty, or cannot be read.
pub fn read_prompt(argument: String) -> Result<String, TerminalError> {
    if argument != "-" {
        return Ok(argument);
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::InvalidData => TerminalError::PromptNotUtf8(error),
            _ => TerminalError::Io(error),
        })?;
    if text.trim().is_empty() {
        return Err(TerminalError::EmptyPrompt);
    }
    Ok(text)
}

/// The conversation `reference` names (of `user`), or a new one, and `files` uploaded
/// into it. Files over a limit, or an image for a model that cannot see it, are
/// refused before anything is stored.
///
/// # Errors
/// The conversation is not found or not `user`'s, a file is refused, or the store fails.
pub async fn prepare(
    service: &ConversationService,
    user: &str,
    reference: Option<&str>,
    files: Vec<FileToAttach>,
) -> Result<Prepared, TerminalError> {
    let existing = match reference {
        Some(reference) => {
            Some(find_conversation(service.store().as_ref(), reference, Some(user)).await?)
        }
        None => None,
    };
    attach_files::check(
        service,
        existing.as_ref(),
        &files.iter().collect::<Vec<_>>(),
    )?;
    let (conversation_id, new) = match existing {
        Some(c) => (c.id, false),
        None => (service.create_conversation(user).await?.id, true),
    };
    let attached = attach_files::upload(service, conversation_id, files).await?;
    Ok(Prepared {
        conversation_id,
        new,
        attachments: attached.into_iter().map(|a| a.id).collect(),
    })
}

/// Starts the turn of `prompt` in `prepared`'s conversation and prints its events
/// (`json`: as JSON lines) until it ends; a stop request from `stops` cancels it, and
/// it ends stored (partial answer kept, tool calls interrupted, commands killed).
///
/// # Errors
/// The turn could not start (busy, refused), or its task stopped unexpectedly.
pub async fn follow(
    service: &Arc<ConversationService>,
    prepared: Prepared,
    prompt: &str,
    json: bool,
    stops: &mut dyn StopRequests,
) -> Result<RunEnd, TerminalError> {
    let conversation_id = prepared.conversation_id;
    let trigger = if prepared.new { "startup" } else { "resume" };
    // The SessionStart and SessionEnd hooks around the run's one turn.
    service.session_started(conversation_id, trigger).await;
    let end = follow_turn(service, prepared, prompt, json, stops).await;
    service.session_ended(conversation_id, "exit").await;
    end
}

/// [`follow`] without the session's hooks.
async fn follow_turn(
    service: &Arc<ConversationService>,
    prepared: Prepared,
    prompt: &str,
    json: bool,
    stops: &mut dyn StopRequests,
) -> Result<RunEnd, TerminalError> {
    let mut output = RunOutput::new(json);
    // The title is asked for by the service beside a new conversation's first turn.
    let options = SendOptions {
        title: prepared.new,
        attachments: prepared.attachments,
        ..SendOptions::default()
    };
    let mut stopping = false;
    let start = service.start(prepared.conversation_id, prompt, options);
    tokio::pin!(start);
    let started = loop {
        tokio::select! {
            started = &mut start => break started,
            stop = stops.next() => {
                // Stopped while the turn is being stored (a compression before it, say):
                // it ends cancelled once stored.
                errln!("{stop}: stopping the turn");
                service.interrupt_all();
                stopping = true;
            }
        }
    };
    let TurnHandle {
        mut events,
        end: mut turn,
        title,
        ..
    } = started?;
    // A resize lays the answer's open lines out again at the new width.
    let mut resizes = Resizes::watch(!json && std::io::stdout().is_terminal());
    let outcome = loop {
        tokio::select! {
            Some(event) = events.recv() => output.print(&event),
            Some(()) = resizes.next() => output.resized(),
            joined = &mut turn => {
                while let Some(event) = events.try_recv() {
                    output.print(&event);
                }
                break joined
                    .map_err(|source| TerminalError::TaskJoin { what: "the turn", source })
                    .and_then(|sent| sent.map_err(TerminalError::from));
            }
            stop = stops.next() => {
                errln!("{stop}: stopping the turn");
                service.interrupt_all();
                stopping = true;
            }
        }
    };
    let failed_output = output.failed.take();
    drop(output);
    if let Some(title) = title {
        wait_for_title(title, stopping).await;
    }
    let outcome = outcome?;
    if !json && failed_output.is_none() {
        // What the turn and its conversation cost, where the model has prices.
        let store = service.store().as_ref();
        match crate::usage::cost_line(store, prepared.conversation_id, Some(outcome.turn_id)).await
        {
            Ok(Some(line)) => errln!("{line}"),
            Ok(None) => {}
            Err(error) => errln!("warning: the turn's cost could not be read: {error}"),
        }
    }
    Ok(RunEnd {
        conversation_id: prepared.conversation_id,
        status: outcome.status,
        budget_stop: outcome.error.as_deref().is_some_and(is_budget_stop),
        failed_output,
    })
}

/// A title still being asked for gets [`TITLE_GRACE`] more, unless the process is
/// stopping; then it is given up and the conversation keeps its fallback title.
async fn wait_for_title<T>(mut title: tokio::task::JoinHandle<T>, stopping: bool) {
    let grace = if stopping {
        Duration::ZERO
    } else {
        TITLE_GRACE
    };
    if tokio::time::timeout(grace, &mut title).await.is_err() {
        title.abort();
    }
}
