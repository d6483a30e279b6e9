//! Slash commands of the chat REPL.

use smallebot_core::rules::pasted_path::typed_path;

use crate::export_text::ExportFormat;

/// `/rewind`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RewindSlash {
    /// The first turn to take back (its number or id); the last turn when `None`.
    pub to: Option<String>,
    /// `files` (the default), `conversation` or `both`.
    pub scope: Option<String>,
    /// Also replace files changed since the turn.
    pub force: bool,
    /// Undo the last rewind instead.
    pub undo: bool,
}

/// A parsed slash command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slash {
    /// Start a new conversation.
    New,
    /// List this user's conversations.
    List,
    /// Switch to another conversation (id or unique id prefix).
    Switch(String),
    /// Show context usage.
    Usage,
    /// Compress the context now, optionally focused.
    Compact(Option<String>),
    /// Show the conversation's task list (the plan).
    Tasks,
    /// Search all of this user's conversations.
    Search(String),
    /// List the models, or choose one for this conversation.
    Model(Option<String>),
    /// Answer the last message again.
    Retry,
    /// Replace the last message with this text and answer it again.
    Edit(String),
    /// Take the last turn out of the context (kept in the history, marked undone).
    Undo,
    /// Show the MCP servers and their state.
    Mcp,
    /// List the skills (and the problems of broken skill folders).
    Skills,
    /// List the agent definitions (and the problems of broken agent files).
    Agents,
    /// Choose a conversation to open from a picker of recent ones.
    Resume,
    /// Show this conversation's whole timeline.
    History,
    /// List the files the last turn changed.
    Changes,
    /// Bring back the files (and, or, take back the turns) as they were before a turn,
    /// or undo the last such rewind.
    Rewind(RewindSlash),
    /// Show the Nth tool call of the last turn whole.
    Show(usize),
    /// Put the last answer on the clipboard (OSC 52).
    Copy,
    /// Print finished tool calls' results whole (`Some(true)`), folded
    /// (`Some(false)`), or say which (`None`).
    Verbose(Option<bool>),
    /// Write the conversation as Markdown or JSON, to this file or one named after
    /// its title.
    Export(ExportFormat, Option<String>),
    /// Clear the screen.
    Clear,
    /// Attach a file (the path as typed, unquoted) to the next message.
    Attach(String),
    /// List the files attached to the next message.
    Attached,
    /// Take the files attached to the next message off.
    AttachClear,
    /// List your permission grants (`None`), or revoke the one with this id.
    Permissions(Option<i64>),
    /// Get the prompt `prompt` of the MCP server `server` with these arguments (as
    /// typed) and send its messages.
    McpPrompt {
        /// The server's name.
        server: String,
        /// The prompt's name.
        prompt: String,
        /// The rest of the line.
        args: String,
    },
    /// Show help.
    Help,
    /// Leave.
    Quit,
}

/// The help text.
pub const HELP: &str = "\
Commands:
  /new           start a new conversation
  /list          list your conversations
  /switch ID     switch to a conversation (full id or a unique prefix)
  /resume        choose a recent conversation from a list (type to filter)
  /history       show this whole conversation (the reopened view shows the last turns)
  /usage         show how full the context window is
  /compact [F]   summarize older turns now (optionally focusing on F)
  /tasks         show this conversation's task list (the plan)
  /changes       list the files the last turn changed
  /rewind [N] [files|conversation|both] [force]
                 bring the files back to before turn N (default the last), or take
                 the turns back too; /rewind undo undoes the last rewind
  /search QUERY  search all your conversations (messages and tool calls)
  /model [ID]    list the models, or run this conversation on model ID
  /retry         answer your last message again
  /edit TEXT     replace your last message with TEXT and answer it again
  /undo          take the last turn out of the context (kept in the history, marked)
  /mcp           show the MCP servers: running or not, tools, last error
  /skills        list the skills the model can load, and broken skill folders
  /agents        list the agents the model can delegate to, and broken agent files
  /permissions   list what you allowed for good when asked (your grants);
                 /permissions revoke ID revokes one: such calls are asked about again
  /show N        show the Nth tool call of the last turn whole (arguments, result)
  /verbose [on|off]
                 print each tool call's result whole as it ends (a file's diff in
                 colour), or fold it into its line again (the default)
  /copy          put the last answer on the clipboard (through the terminal, OSC 52:
                 the terminal must allow programs to set the clipboard)
  /export md|json [FILE]
                 write this conversation as Markdown or JSON to FILE, or to a
                 file named after its title here (an existing file is never replaced)
  /SERVER:PROMPT [ARGS]
                 send an MCP server's prompt (listed below when servers offer any):
                 NAME=VALUE sets an argument, other words fill the first one left;
                 a required argument not given is asked for
  /attach PATH   attach a file to your next message (relative to the working
                 directory; quote a name with spaces); /attach alone lists them,
                 /attach clear takes them off. @path in a message attaches too, and
                 a pasted (or dragged) image file path attaches that image;
                 @SERVER:URI attaches an MCP server's resource
  /clear         clear the screen
  /help          show this help
  /quit          leave (Ctrl+D works too)
Keys:
  Enter          send; Alt+Enter or Shift+Enter starts a new line
  Tab            complete a command (MCP prompts too), the conversation id after
                 /switch, a file path after @ or /attach, or a resource after @SERVER:
  Ctrl+R         search what you typed before (Up and Down walk through it)
  Ctrl+C         while a turn runs: cancel it (the partial answer is kept);
                 at the prompt: twice to exit";

/// Parses a line starting with `/`; `None` for ordinary messages, `Some(Err)` for an
/// unknown or malformed command (with a message saying what to type instead).
pub fn parse_slash(line: &str) -> Option<Result<Slash, String>> {
    let line = line.trim();
    let rest = line.strip_prefix('/')?;
    let mut parts = rest.splitn(2, char::is_whitespace);
    let typed_name = parts.next().unwrap_or("");
    let arg = parts.next().map(str::trim).unwrap_or("");
    if let Some((server, prompt)) = typed_name.split_once(':') {
        return Some(if server.is_empty() || prompt.is_empty() {
            Err("usage: /SERVER:PROMPT [ARGS] (an MCP server's prompt; /help lists them)".into())
        } else {
            Ok(Slash::McpPrompt {
                server: server.to_owned(),
                prompt: prompt.to_owned(),
                args: arg.to_owned(),
            })
        });
    }
    let name = typed_name.to_lowercase();
    Some(match (name.as_str(), arg) {
        ("new", "") => Ok(Slash::New),
        ("list", "") => Ok(Slash::List),
        ("switch", "") => Err("usage: /switch ID".into()),
        ("switch", id) => Ok(Slash::Switch(id.to_owned())),
        ("usage", "") => Ok(Slash::Usage),
        ("compact", "") => Ok(Slash::Compact(None)),
        ("compact", focus) => Ok(Slash::Compact(Some(focus.to_owned()))),
        ("tasks", "") => Ok(Slash::Tasks),
        ("search", "") => Err("usage: /search QUERY".into()),
        ("search", words) => Ok(Slash::Search(words.to_owned())),
        ("model", "") => Ok(Slash::Model(None)),
        ("model", id) => Ok(Slash::Model(Some(id.to_owned()))),
        ("retry", "") => Ok(Slash::Retry),
        ("edit", "") => Err("usage: /edit NEW TEXT (replaces your last message)".into()),
        ("edit", text) => Ok(Slash::Edit(text.to_owned())),
        ("undo", "") => Ok(Slash::Undo),
        ("mcp", "") => Ok(Slash::Mcp),
        ("skills", "") => Ok(Slash::Skills),
        ("agents", "") => Ok(Slash::Agents),
        ("clear", "") => Ok(Slash::Clear),
        ("attach", "") => Ok(Slash::Attached),
        ("attach", "clear") => Ok(Slash::AttachClear),
        ("attach", path) => Ok(Slash::Attach(typed_path(path))),
        ("copy", "") => Ok(Slash::Copy),
        ("export", args) => parse_export(args),
        ("verbose", "") => Ok(Slash::Verbose(None)),
        ("verbose", "on") => Ok(Slash::Verbose(Some(true))),
        ("verbose", "off") => Ok(Slash::Verbose(Some(false))),
        ("verbose", _) => Err("usage: /verbose [on|off]".into()),
        ("resume", "") => Ok(Slash::Resume),
        ("history", "") => Ok(Slash::History),
        ("changes", "") => Ok(Slash::Changes),
        ("rewind", args) => parse_rewind(args),
        ("show", n) => match n.parse::<usize>() {
            Ok(n) if n > 0 => Ok(Slash::Show(n)),
            _ => Err("usage: /show N (the number on the tool call's line)".into()),
        },
        ("permissions", "") => Ok(Slash::Permissions(None)),
        ("permissions", args) => parse_revoke(args),
        ("help" | "?", _) => Ok(Slash::Help),
        ("quit" | "exit" | "q", _) => Ok(Slash::Quit),
        (
            known @ ("new" | "list" | "usage" | "tasks" | "retry" | "undo" | "clear" | "mcp"
            | "skills" | "agents" | "copy"),
            _,
        ) => Err(format!("/{known} takes no argument")),
        (other, _) => Err(format!("unknown command /{other}; type /help for the list")),
    })
}

/// `/permissions revoke ID`.
fn parse_revoke(args: &str) -> Result<Slash, String> {
    let mut words = args.split_whitespace();
    match (
        words.next(),
        words.next().map(str::parse::<i64>),
        words.next(),
    ) {
        (Some("revoke"), Some(Ok(id)), None) => Ok(Slash::Permissions(Some(id))),
        _ => Err("usage: /permissions [revoke ID] (the id from /permissions)".into()),
    }
}

/// `/rewind`'s arguments, in any order: a turn (number or id), `files`,
/// `conversation` or `both`, `force`; or `undo` (with `force` at most).
fn parse_rewind(args: &str) -> Result<Slash, String> {
    const USAGE: &str = "usage: /rewind [TURN] [files|conversation|both] [force] | /rewind undo";
    let mut rewind = RewindSlash::default();
    for word in args.split_whitespace() {
        match word.to_lowercase().as_str() {
            "undo" => rewind.undo = true,
            "force" | "--force" => rewind.force = true,
            scope @ ("files" | "conversation" | "both") => {
                if rewind.scope.replace(scope.to_owned()).is_some() {
                    return Err(format!("one of files, conversation or both ({USAGE})"));
                }
            }
            _ if rewind.to.is_none() && !word.starts_with('-') => {
                rewind.to = Some(word.to_owned());
            }
            _ => return Err(format!("/rewind does not take '{word}' ({USAGE})")),
        }
    }
    if rewind.undo && (rewind.to.is_some() || rewind.scope.is_some()) {
        return Err(format!("/rewind undo takes no turn or scope ({USAGE})"));
    }
    Ok(Slash::Rewind(rewind))
}

/// `/export`'s arguments: `md` or `json`, then an optional file name (the rest of the
/// line, so it may hold spaces).
fn parse_export(args: &str) -> Result<Slash, String> {
    const USAGE: &str = "usage: /export md|json [FILE]";
    let mut parts = args.splitn(2, char::is_whitespace);
    let format = match parts.next().unwrap_or("").to_lowercase().as_str() {
        "md" | "markdown" => ExportFormat::Md,
        "json" => ExportFormat::Json,
        "" => return Err(USAGE.into()),
        other => {
            return Err(format!(
                "/export writes md or json, not '{other}' ({USAGE})"
            ));
        }
    };
    let file = parts.next().map(str::trim).filter(|f| !f.is_empty());
    Ok(Slash::Export(format, file.map(str::to_owned)))
}

#[cfg(test)]
#[path = "slash_tests.rs"]
mod tests;
