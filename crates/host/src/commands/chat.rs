//! `smallebot chat`: wires the application and runs the terminal's chat session
//! (`smallebot_terminal::chat::run_chat`) until the person leaves.

use std::sync::Arc;

use smallebot_agent::assembly::{Home, WarmUp};
use smallebot_terminal::chat::{ChatParts, Opening, TerminalConfirmer, TerminalElicitor, run_chat};

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

/// Runs the chat on stdin/stdout until the person leaves.
pub async fn run(home: &Home, args: ChatArgs) -> Result<(), HostError> {
    let (confirmer, confirmations) = TerminalConfirmer::channel();
    let app = wiring::build(
        home,
        args.user.as_deref(),
        Arc::new(confirmer),
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
    // The MCP servers' questions during a call are asked in this chat.
    let (elicitor, forms) = TerminalElicitor::channel();
    app.mcp.set_elicitor(Arc::new(elicitor));
    let parts = ChatParts {
        forms,
        service: Arc::clone(&app.service),
        user: app.user.clone(),
        home: home.root().to_path_buf(),
        model: app.model.clone(),
        sandbox: app.sandbox.as_ref().map(|s| s.summary()),
        tokenizer: Arc::clone(&app.tokenizer),
        confirmations,
        mcp: Arc::clone(&app.mcp),
        skills: app.skills.clone(),
        agents: home.agent_folders(None),
        workspace: home.workspace_dir(),
    };
    let opening = Opening {
        conversation: args.conversation,
        new: args.new,
        resume: args.resume,
    };
    let result = run_chat(parts, opening, &mut signals).await;
    app.close().await;
    Ok(result?)
}
