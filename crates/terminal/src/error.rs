//! The terminal front end's error type: what the chat, the rendering and the files it
//! reads and writes for the person can fail with. The host maps it into its own error
//! at the boundary.

use smallebot_application::PipelineError;
use smallebot_application::pipeline::CompressionSkipped;
use smallebot_core::RepositoryError;
use smallebot_core::ids::{ConversationId, InvalidId};
use smallebot_core::rules::attachment::AttachmentRefusal;
use smallebot_core::rules::terminal_text::escape_line;

use crate::user_path::shown;

/// Why an action of the terminal front end failed.
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    /// Reading or writing stored data failed.
    #[error(transparent)]
    Repository(#[from] RepositoryError),
    /// An id argument is malformed.
    #[error(transparent)]
    InvalidId(#[from] InvalidId),
    /// A rewind (or a prune of checkpoint contents) could not be done.
    #[error(transparent)]
    Rewind(smallebot_checkpoints::CheckpointError),
    /// An MCP server's resource or prompt could not be had.
    #[error(transparent)]
    Mcp(#[from] smallebot_mcp::McpRequestError),
    /// The pipeline refused the request.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// `/compact` changed nothing.
    #[error("nothing changed: {0}")]
    NothingCompacted(String),
    /// The conversation does not exist.
    #[error("conversation {0} not found")]
    ConversationNotFound(ConversationId),
    /// No permission grant has this id (of this user, where limited to one).
    #[error(
        "no permission grant has the id {0} (`smallebot permissions list --all` shows the ids)"
    )]
    NoSuchGrant(i64),
    /// No conversation id starts with what was given.
    #[error(
        "no conversation{} has an id starting with '{}' (`smallebot conversations list` shows the ids)",
        .owner.as_ref().map(|o| format!(" of {}", escape_line(o))).unwrap_or_default(),
        escape_line(.reference)
    )]
    NoConversationMatches {
        /// What was given.
        reference: String,
        /// Whose conversations were looked at, if limited.
        owner: Option<String>,
    },
    /// Several conversation ids start with what was given.
    #[error("'{}' starts {count} conversation ids: give more of the id", escape_line(.reference))]
    AmbiguousConversation {
        /// What was given.
        reference: String,
        /// How many ids start with it.
        count: usize,
    },
    /// The conversation belongs to someone else.
    #[error(
        "conversation {id} is not {user}'s: open your own conversations (`smallebot conversations list --user {user}`) or pass the owner with --user",
        user = escape_line(.user)
    )]
    NotYourConversation {
        /// The conversation.
        id: ConversationId,
        /// Who asked.
        user: String,
    },
    /// A background task panicked or was aborted.
    #[error("{what} stopped unexpectedly: {source}")]
    TaskJoin {
        /// Which task.
        what: &'static str,
        /// Why it stopped.
        #[source]
        source: tokio::task::JoinError,
    },
    /// A file to attach (`--attach`, `@path`) cannot be read.
    #[error("cannot read {} to attach it: {source}. Check the path.", shown(.path))]
    AttachmentUnreadable {
        /// The path given.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },

    /// A path to attach names no regular file (a directory, a FIFO, a socket, a device).
    #[error(
        "cannot attach {}: it is {what}, not a regular file. Only regular files can be \
         attached; copy what it holds into a file first.",
        shown(.path)
    )]
    AttachmentNotRegular {
        /// The path given.
        path: std::path::PathBuf,
        /// What it is: `a FIFO (named pipe)`, `a character device`, ….
        what: &'static str,
    },

    /// `run -` read nothing from standard input.
    #[error(
        "the prompt read from standard input is empty: pipe the message in, or pass it as an argument"
    )]
    EmptyPrompt,
    /// The prompt `run -` read from standard input is not UTF-8 text.
    #[error(
        "the prompt read from standard input is not valid UTF-8 text: {0}. Convert it first \
         (for example with `iconv -t UTF-8`), or give the prompt as an argument."
    )]
    PromptNotUtf8(std::io::Error),

    /// `skills show` named a skill that is not there.
    #[error("no skill is called '{}' (`smallebot skills list` shows them)", escape_line(.0))]
    UnknownSkill(String),
    /// `skills check` found problems that keep the folder from loading.
    #[error("{} does not load as a skill: fix the problems above", escape_line(.0))]
    SkillCheckFailed(String),
    /// `mcp …` named a server mcp.json does not have.
    #[error("mcp.json has no MCP server named '{}' (`smallebot mcp list` shows them)", escape_line(.0))]
    UnknownMcpServer(String),
    /// Signing in to an MCP server, or its stored sign-in, failed.
    #[error(transparent)]
    McpAuth(#[from] smallebot_mcp::McpAuthError),

    /// A resource's binary contents are not valid base64.
    #[error(
        "the MCP server '{}' sent {} as base64 that does not decode ({reason}): it was not attached",
        escape_line(.server),
        escape_line(.uri)
    )]
    McpBlobUndecodable {
        /// The server.
        server: String,
        /// The resource.
        uri: String,
        /// What the decoder said.
        reason: String,
    },

    /// `agents show` named an agent that is not there.
    #[error("no agent is called '{}' (`smallebot agents list` shows them)", escape_line(.0))]
    UnknownAgent(String),
    /// `agents check` found a file that does not load (or nothing to check).
    #[error("{}", escape_line(.0))]
    AgentCheckFailed(String),

    /// An export could not be written to its file.
    #[error(transparent)]
    ExportFile(crate::export_file::ExportFileError),

    /// Reading or writing standard input, output or error, or another file, failed.
    #[error("input/output failed: {0}")]
    Io(#[from] std::io::Error),
}

impl From<AttachmentRefusal> for TerminalError {
    fn from(refusal: AttachmentRefusal) -> Self {
        Self::Pipeline(refusal.into())
    }
}

impl From<CompressionSkipped> for TerminalError {
    fn from(skipped: CompressionSkipped) -> Self {
        Self::NothingCompacted(skipped.to_string())
    }
}

impl TerminalError {
    /// Whether the conversation was busy (a turn running here or in another process).
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            Self::Pipeline(PipelineError::Busy(_) | PipelineError::TurnRunning { .. })
        )
    }
}
