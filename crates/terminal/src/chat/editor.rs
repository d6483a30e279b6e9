//! The line editor on a terminal (reedline, chosen over rustyline for its bracketed
//! paste, menus and maintained key bindings): editing, history kept in the home,
//! Alt+Enter or Shift+Enter for a new line, a paste of any size as one message, Tab
//! completion of slash commands, of conversation ids after `/switch`, of the format
//! after `/export` and of file paths after `@` and `/attach `.
//!
//! reedline blocks while it reads, so it runs on a thread of its own; each read is a
//! request answered over a channel.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, mpsc};

use reedline::{
    ColumnarMenu, Completer, EditCommand, Emacs, FileBackedHistory, KeyCode, KeyModifiers,
    MenuBuilder, Prompt, PromptEditMode, PromptHistorySearch, Reedline, ReedlineEvent,
    ReedlineMenu, Signal, Span, Suggestion, default_emacs_keybindings,
};
use tokio::sync::oneshot;

use smallebot_core::rules::mentions::path_being_typed;

use super::input::{Input, LineSource};
use super::mcp_complete::McpOffer;
use super::path_complete::complete_path;

/// Entries kept in the history file.
const HISTORY_ENTRIES: usize = 1_000;
/// The commands offered by Tab.
const COMMANDS: &[&str] = &[
    "/new",
    "/list",
    "/switch ",
    "/usage",
    "/permissions",
    "/compact",
    "/tasks",
    "/search ",
    "/model",
    "/retry",
    "/undo",
    "/mcp",
    "/edit ",
    "/copy",
    "/export ",
    "/resume",
    "/history",
    "/changes",
    "/rewind",
    "/show ",
    "/verbose ",
    "/attach ",
    "/clear",
    "/help",
    "/quit",
];

type Reply = oneshot::Sender<std::io::Result<Signal>>;

/// The chat's input on a terminal.
pub struct EditorInput {
    requests: mpsc::Sender<(String, Reply)>,
    pending: Option<oneshot::Receiver<std::io::Result<Signal>>>,
    conversations: Arc<Mutex<Vec<String>>>,
    mcp: Arc<Mutex<McpOffer>>,
}

impl EditorInput {
    /// Starts the editor thread; history goes to `history` (a warning is printed and
    /// nothing is kept if the file cannot be used); `colours` off (`NO_COLOR`) draws
    /// what is typed, the prompt and the menu without colours.
    pub fn start(history: PathBuf, colours: bool) -> Self {
        let (requests, receiver) = mpsc::channel::<(String, Reply)>();
        let conversations = Arc::new(Mutex::new(Vec::new()));
        let ids = Arc::clone(&conversations);
        let mcp = Arc::new(Mutex::new(McpOffer::default()));
        let offer = Arc::clone(&mcp);
        let spawned = std::thread::Builder::new()
            .name("line-editor".into())
            .spawn(move || {
                let mut editor = editor(history, ids, offer, colours);
                while let Ok((prompt, reply)) = receiver.recv() {
                    let read = editor.read_line(&ChatPrompt(prompt));
                    if matches!(read, Ok(Signal::Success(_))) {
                        // Kept at once: the process may end without dropping the editor.
                        let _ = editor.sync_history();
                    }
                    let _ = reply.send(read);
                }
            });
        if let Err(error) = spawned {
            // Without the thread every read fails, saying why.
            errln!("error: cannot start the line editor: {error}");
        }
        Self {
            requests,
            pending: None,
            conversations,
            mcp,
        }
    }
}

/// The chat's key bindings: Emacs's, with Alt+Enter and Shift+Enter adding a line.
///
/// Keys typed while a turn runs wait in the terminal's queue with the terminal still in
/// line mode, which turns the Enter key's carriage return into a line feed; read once
/// the editor put the terminal in raw mode, a line feed is Ctrl+J, and Alt+Enter's
/// escape + line feed is Ctrl+Alt+J — which reedline would insert as a literal `j` (its
/// rule for AltGr characters). Ctrl+J is Enter already (Emacs's bindings, as in
/// readline); Ctrl+Alt+J adds a line, as Alt+Enter does.
fn chat_keybindings() -> reedline::Keybindings {
    let mut keys = default_emacs_keybindings();
    let new_line = || ReedlineEvent::Edit(vec![EditCommand::InsertNewline]);
    for modifiers in [KeyModifiers::ALT, KeyModifiers::SHIFT] {
        keys.add_binding(modifiers, KeyCode::Enter, new_line());
    }
    keys.add_binding(
        KeyModifiers::CONTROL | KeyModifiers::ALT,
        KeyCode::Char('j'),
        new_line(),
    );
    keys
}

fn editor(
    history: PathBuf,
    conversations: Arc<Mutex<Vec<String>>>,
    mcp: Arc<Mutex<McpOffer>>,
    colours: bool,
) -> Reedline {
    let mut keys = chat_keybindings();
    keys.add_binding(
        KeyModifiers::NONE,
        KeyCode::Tab,
        ReedlineEvent::UntilFound(vec![
            ReedlineEvent::Menu("completion".into()),
            ReedlineEvent::MenuNext,
        ]),
    );
    let menu = ColumnarMenu::default().with_name("completion");
    let editor = Reedline::create()
        .with_edit_mode(Box::new(Emacs::new(keys)))
        .with_completer(Box::new(ChatCompleter {
            conversations,
            mcp,
            base: None,
        }))
        .with_menu(ReedlineMenu::EngineCompleter(Box::new(menu)))
        // One candidate (a unique id prefix, `/q`): completed at once, no menu.
        .with_quick_completions(true)
        .with_ansi_colors(colours)
        .use_bracketed_paste(true);
    match FileBackedHistory::with_file(HISTORY_ENTRIES, history.clone()) {
        Ok(kept) => editor.with_history(Box::new(kept)),
        Err(error) => {
            errln!(
                "warning: input history is not kept ({}: {error})",
                history.display()
            );
            editor
        }
    }
}

impl LineSource for EditorInput {
    fn draws_prompt(&self) -> bool {
        true
    }

    async fn read(&mut self, prompt: &str) -> std::io::Result<Input> {
        if self.pending.is_none() {
            let (reply, answer) = oneshot::channel();
            self.requests
                .send((prompt.to_owned(), reply))
                .map_err(|_| std::io::Error::other("the line editor stopped"))?;
            self.pending = Some(answer);
        }
        let Some(answer) = self.pending.as_mut() else {
            return Err(std::io::Error::other("the line editor lost a read"));
        };
        let signal = answer.await;
        self.pending = None;
        let signal = signal.map_err(|_| std::io::Error::other("the line editor stopped"))??;
        Ok(match signal {
            Signal::Success(text) => Input::Line(text),
            Signal::CtrlD => Input::Closed,
            _ => Input::Interrupted,
        })
    }

    fn discard_pending(&mut self) {
        // Keys typed while a turn ran wait in the terminal's queue: flush them.
        let _ = rustix::termios::tcflush(
            rustix::stdio::stdin(),
            rustix::termios::QueueSelector::IFlush,
        );
    }

    fn offer_conversations(&mut self, ids: Vec<String>) {
        if let Ok(mut offered) = self.conversations.lock() {
            *offered = ids;
        }
    }

    fn offer_mcp(&mut self, resources: Vec<String>, prompts: Vec<String>) {
        if let Ok(mut offered) = self.mcp.lock() {
            *offered = McpOffer { resources, prompts };
        }
    }
}

/// The prompt: `› `, or a question's.
struct ChatPrompt(String);

impl Prompt for ChatPrompt {
    fn render_prompt_left(&self) -> std::borrow::Cow<'_, str> {
        std::borrow::Cow::Borrowed(&self.0)
    }

    fn render_prompt_right(&self) -> std::borrow::Cow<'_, str> {
        std::borrow::Cow::Borrowed("")
    }

    fn render_prompt_indicator(&self, _mode: PromptEditMode) -> std::borrow::Cow<'_, str> {
        std::borrow::Cow::Borrowed("")
    }

    fn render_prompt_multiline_indicator(&self) -> std::borrow::Cow<'_, str> {
        std::borrow::Cow::Borrowed("  ")
    }

    fn render_prompt_history_search_indicator(
        &self,
        search: PromptHistorySearch,
    ) -> std::borrow::Cow<'_, str> {
        std::borrow::Cow::Owned(format!("(history: {}) ", search.term))
    }
}

/// Completes slash commands, conversation ids after `/switch `, and file paths after
/// `@` and `/attach `.
struct ChatCompleter {
    conversations: Arc<Mutex<Vec<String>>>,
    /// The MCP resources and prompts offered.
    mcp: Arc<Mutex<McpOffer>>,
    /// The directory relative paths complete from; `None`: the working directory.
    base: Option<PathBuf>,
}

impl Completer for ChatCompleter {
    fn complete(&mut self, line: &str, pos: usize) -> Vec<Suggestion> {
        let typed = line.get(..pos).unwrap_or(line);
        let suggest = |values: Vec<String>, start: usize| {
            values
                .into_iter()
                .map(|value| Suggestion {
                    value,
                    span: Span::new(start, pos),
                    ..Suggestion::default()
                })
                .collect()
        };
        if let Some(start) = path_being_typed(typed) {
            let base = match &self.base {
                Some(base) => base.clone(),
                None => std::env::current_dir().unwrap_or_default(),
            };
            let partial = typed.get(start..).unwrap_or_default();
            let home = std::env::var("HOME").ok();
            let resources = if typed.starts_with("/attach ") {
                Vec::new()
            } else {
                self.offer().resources(partial)
            };
            let resources = resources.into_iter().map(|value| Suggestion {
                value,
                span: Span::new(start, pos),
                append_whitespace: true,
                ..Suggestion::default()
            });
            return resources
                .chain(
                    complete_path(partial, &base, home.as_deref())
                        .into_iter()
                        .map(|found| Suggestion {
                            value: found.value,
                            span: Span::new(start, pos),
                            // A file is done: the message goes on after a space.
                            append_whitespace: !found.directory,
                            ..Suggestion::default()
                        }),
                )
                .collect();
        }
        if let Some(prefix) = typed.strip_prefix("/switch ") {
            let ids = self
                .conversations
                .lock()
                .map(|ids| ids.clone())
                .unwrap_or_default();
            let matching = ids
                .into_iter()
                .filter(|id| id.starts_with(prefix.trim()))
                .collect();
            return suggest(matching, "/switch ".len());
        }
        if let Some(format) = typed.strip_prefix("/export ")
            && !format.contains(' ')
        {
            let matching = ["md ", "json "]
                .into_iter()
                .filter(|f| f.starts_with(format))
                .map(str::to_owned)
                .collect();
            return suggest(matching, "/export ".len());
        }
        if typed.starts_with('/') && !typed.contains(' ') {
            let mut matching = completions(typed);
            matching.extend(self.offer().prompts(typed));
            return suggest(matching, 0);
        }
        Vec::new()
    }
}

impl ChatCompleter {
    /// The MCP resources and prompts offered now.
    fn offer(&self) -> McpOffer {
        self.mcp
            .lock()
            .map(|offer| offer.clone())
            .unwrap_or_default()
    }
}

/// The commands that start with `typed`.
fn completions(typed: &str) -> Vec<String> {
    COMMANDS
        .iter()
        .filter(|c| c.starts_with(typed))
        .map(|c| (*c).to_owned())
        .collect()
}

#[cfg(test)]
#[path = "editor_tests.rs"]
mod tests;
