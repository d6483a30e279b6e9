//! A chat session from its start to the person leaving: the conversation it opens
//! (named, the most recent, a new one, or picked), the banner, the REPL on the line
//! editor (or on plain lines when standard input is no terminal, or one that does not
//! answer the cursor query), Ctrl+C handed to the REPL, and a stop request ending the
//! session with its turn stored.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::Arc;

use smallebot_agent::agents::AgentFolders;
use smallebot_agent::skills::SkillCatalog;
use smallebot_agent::tokenizer::Tokenizer;
use smallebot_application::ConversationService;
use smallebot_application::pipeline::shutdown::interrupt_and_wait;
use smallebot_core::entities::Conversation;
use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_mcp::McpServers;
use tokio::io::BufReader;
use tokio::sync::mpsc;

use super::confirm::ConfirmRequest;
use super::elicit::FormRequest;
use super::{EditorInput, HISTORY_FILE, PipedInput, Repl, cursor_query, model_shown};
use crate::TerminalError;
use crate::conversation_ref::find_conversation;
use crate::render::{EventPrinter, Style};
use crate::stop::StopRequests;

/// What a chat session runs on: the parts of the wired application it uses.
pub struct ChatParts {
    /// The conversation service.
    pub service: Arc<ConversationService>,
    /// Whose conversations these are.
    pub user: String,
    /// The home directory (shown in the banner; the input history lives there).
    pub home: PathBuf,
    /// The default model's name, shown when the service names none.
    pub model: String,
    /// The sandbox's one-line summary, shown in the banner.
    pub sandbox: Option<String>,
    /// The tokenizer (the status line's exact counts).
    pub tokenizer: Arc<Tokenizer>,
    /// The confirmation requests of the terminal's confirmer.
    pub confirmations: mpsc::Receiver<ConfirmRequest>,
    /// The forms of the terminal's elicitor (MCP servers' questions).
    pub forms: mpsc::Receiver<FormRequest>,
    /// The MCP servers (`/mcp`).
    pub mcp: Arc<McpServers>,
    /// The skills (`/skills`).
    pub skills: Option<Arc<SkillCatalog>>,
    /// The agent definitions' folders (`/agents`).
    pub agents: AgentFolders,
    /// The workspace the tools work in (`/rewind` brings its files back).
    pub workspace: PathBuf,
}

/// Which conversation the session opens.
#[derive(Debug, Clone, Default)]
pub struct Opening {
    /// This one (id or unique prefix).
    pub conversation: Option<String>,
    /// A new one (created with its first message).
    pub new: bool,
    /// The one the person picks (on a terminal; else the most recent).
    pub resume: bool,
}

/// Runs the session until the person leaves or `stops` asks to stop (then the running
/// turn ends stored before this returns).
///
/// # Errors
/// The named conversation is not found, the store fails, or the output cannot be written.
pub async fn run_chat(
    parts: ChatParts,
    opening: Opening,
    stops: &mut dyn StopRequests,
) -> Result<(), TerminalError> {
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let picking = opening.resume && terminal;
    let conversation = opened(&parts, &opening, picking).await?;
    outln!("{}", banner(&parts, conversation.as_ref(), picking))?;
    let service = Arc::clone(&parts.service);
    let (interrupt_tx, interrupts) = mpsc::unbounded_channel();
    let ctrl_c = tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            if interrupt_tx.send(()).is_err() {
                break;
            }
        }
    });
    let style = Style::for_stdout();
    let printer = EventPrinter::new(std::io::stdout(), false, style)
        .wrap_on_terminal(std::io::stdout().is_terminal());
    let mut repl = Repl::new(
        Arc::clone(&service),
        parts.user,
        conversation.as_ref().map(|c| c.id),
        printer,
        interrupts,
    )
    .on_terminal(std::io::stdout().is_terminal())
    .with_tokenizer(parts.tokenizer)
    .with_confirmations(parts.confirmations)
    .with_forms(parts.forms)
    .with_mcp(parts.mcp)
    .with_skills(parts.skills)
    .with_agents(parts.agents)
    .with_workspace(parts.workspace);
    let session = async {
        if let Some(c) = &conversation {
            repl.show_recent(c.id).await?;
        }
        if picking {
            match repl.pick().await? {
                Some(id) => repl.open(id).await?,
                None => outln!("new conversation: it is saved with your first message")?,
            }
        }
        // The line editor needs the terminal to say where the cursor is; one that does
        // not answer gets plain lines at once rather than the editor's 2 s wait.
        if terminal && cursor_query::terminal_answers(cursor_query::ANSWER_WAIT) {
            repl.run(EditorInput::start(
                parts.home.join(HISTORY_FILE),
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
        stop = stops.next() => {
            // The running turn (a task of its own) ends stored before the exit.
            errln!("{stop}: stopping");
            if let Err(warning) = interrupt_and_wait(std::slice::from_ref(&service)).await {
                errln!("{warning}");
            }
            Ok(())
        }
    };
    ctrl_c.abort();
    result
}

/// The conversation the session opens with (`None`: a new one, or one to pick). A new
/// conversation is created with its first message, not before.
async fn opened(
    parts: &ChatParts,
    opening: &Opening,
    picking: bool,
) -> Result<Option<Conversation>, TerminalError> {
    let store = parts.service.store();
    Ok(match (&opening.conversation, opening.new || picking) {
        (Some(reference), _) => {
            Some(find_conversation(store.as_ref(), reference, Some(&parts.user)).await?)
        }
        (None, false) => store
            .list_conversations(Some(&parts.user))
            .await?
            .into_iter()
            .next(),
        (None, true) => None,
    })
}

/// The first lines: the conversation, how to get help, the home, the model, the sandbox.
fn banner(parts: &ChatParts, conversation: Option<&Conversation>, picking: bool) -> String {
    let opened = match conversation {
        Some(c) => format!("{} ({})", escape_controls(&c.title), c.id),
        None if picking => "choose a conversation to resume".to_owned(),
        None => "new conversation".to_owned(),
    };
    let mut banner = format!(
        "SmallEBot — {opened} — /help for commands\nhome {} · model {}",
        parts.home.display(),
        escape_controls(&model_shown(&parts.service, conversation, &parts.model))
    );
    if let Some(sandbox) = &parts.sandbox {
        banner.push('\n');
        banner.push_str(sandbox);
    }
    banner
}
