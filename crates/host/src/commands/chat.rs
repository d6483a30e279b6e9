//! `smallebot chat`: wires the application and runs the terminal's REPL on
//! standard input and output until the person leaves.

use std::io::IsTerminal;

use smallebot_agent::assembly::{Home, WarmUp};
use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_terminal::chat::{
    EditorInput, HISTORY_FILE, PipedInput, Repl, TerminalConfirmer, cursor_query, model_shown,
};
use smallebot_terminal::conversation_ref::find_conversation;
use smallebot_terminal::render::{EventPrinter, Style};
use tokio::io::BufReader;
use tokio::sync::mpsc;

use crate::error::HostError;
use crate::shutdown::StopSignals;
use crate::wiring;

/// Arguments of `chat`.
pub struct ChatArgs {
    /// Continue this conversation.
    pub conversation: Option<String>,
    /// Start a new conversation (default: continue the most recent one).
    pub new: bool,
    /// Choose the conversation from the picker (on a terminal; else the most recent).
    pub resume: bool,
    /// Conversation owner.
    pub user: Option<String>,
}

/// Runs the REPL on stdin/stdout until the person leaves.
pub async fn run(home: &Home, args: ChatArgs) -> Result<(), HostError> {
    let (confirmer, confirmations) = TerminalConfirmer::channel();
    let app = wiring::build(
        home,
        args.user.as_deref(),
        std::sync::Arc::new(confirmer),
        WarmUp::Background,
    )
    .await?;
    // Caught once started: SIGTERM and SIGHUP end the session with its turn stored;
    // Ctrl+C stays the REPL's.
    let mut signals = match StopSignals::catch(false) {
        Ok(signals) => signals,
        Err(error) => {
            app.close().await;
            return Err(error);
        }
    };
    let service = std::sync::Arc::clone(&app.service);
    // A new conversation is created with its first message, not before.
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let picking = args.resume && terminal;
    let conversation = match (&args.conversation, args.new || picking) {
        (Some(reference), _) => {
            Some(find_conversation(service.store().as_ref(), reference, Some(&app.user)).await?)
        }
        (None, false) => service
            .store()
            .list_conversations(Some(&app.user))
            .await?
            .into_iter()
            .next(),
        (None, true) => None,
    };
    let (interrupt_tx, interrupts) = mpsc::unbounded_channel();
    let ctrl_c = tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            if interrupt_tx.send(()).is_err() {
                break;
            }
        }
    });
    let style = Style::for_stdout();
    let opened = match &conversation {
        Some(c) => format!("{} ({})", escape_controls(&c.title), c.id),
        None if picking => "choose a conversation to resume".to_owned(),
        None => "new conversation".to_owned(),
    };
    let mut banner = format!(
        "SmallEBot — {opened} — /help for commands\nhome {} · model {}",
        home.root().display(),
        escape_controls(&model_shown(
            &app.service,
            conversation.as_ref(),
            &app.model
        ))
    );
    if let Some(sandbox) = &app.sandbox {
        banner.push('\n');
        banner.push_str(&sandbox.summary());
    }
    if let Err(error) = outln!("{banner}") {
        app.close().await;
        return Err(error.into());
    }
    let printer = EventPrinter::new(std::io::stdout(), false, style)
        .wrap_on_terminal(std::io::stdout().is_terminal());
    let mut repl = Repl::new(
        service,
        app.user.clone(),
        conversation.as_ref().map(|c| c.id),
        printer,
        interrupts,
    )
    .on_terminal(std::io::stdout().is_terminal())
    .with_tokenizer(std::sync::Arc::clone(&app.tokenizer))
    .with_confirmations(confirmations)
    .with_mcp(std::sync::Arc::clone(&app.mcp))
    .with_skills(app.skills.clone())
    .with_agents(home.agent_folders(None));
    if let Some(c) = &conversation {
        repl.show_recent(c.id).await?;
    }
    if picking {
        match repl.pick().await? {
            Some(id) => repl.open(id).await?,
            None => outln!("new conversation: it is saved with your first message")?,
        }
    }
    let session = async {
        // The line editor needs the terminal to say where the cursor is; one that does
        // not answer gets plain lines at once rather than the editor's 2 s wait.
        if terminal && cursor_query::terminal_answers(cursor_query::ANSWER_WAIT) {
            repl.run(EditorInput::start(
                home.root().join(HISTORY_FILE),
                style.ansi,
            ))
            .await
        } else {
            repl.run(PipedInput::new(BufReader::new(tokio::io::stdin())))
                .await
        }
    };
    let result = tokio::select! {
        result = session => result,
        stop = signals.recv() => {
            // The running turn (a task of its own) ends stored before the exit.
            errln!("{stop}: stopping");
            crate::shutdown::interrupt_and_wait(std::slice::from_ref(&app.service)).await;
            Ok(())
        }
    };
    ctrl_c.abort();
    app.close().await;
    Ok(result?)
}
